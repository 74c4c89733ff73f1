"""Sparse mixture of experts of the Qwen3.5 backbone with block-FP8 routed experts (docs/model.md §3.2
"MoE", §2.1 MoE table).

Router: softmax over all experts in fp32, top-k, renormalise the k weights to sum to 1. Each
expert is a SwiGLU down(silu(gate(x)) ⊙ up(x)). A shared SwiGLU expert is added, scaled by
sigmoid(shared_expert_gate(x)). Routed experts stay float8_e4m3fn in memory; on CUDA, up to 16 rows
go through the Triton kernels of `engine.kernels.fp8_experts` and more rows (prefill) through the
grouped matmuls of `engine.kernels.fp8_grouped` (FP8 tiles read and scaled in registers in both);
otherwise only the experts a step selects are dequantised, block by block, when used.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.kernels import fp8_experts as kernels
from engine.kernels import fp8_grouped
from engine.layers.fp8 import dequantize_blocks

_PROJECTIONS = ("gate_proj", "up_proj", "down_proj")


def swiglu(x: torch.Tensor, gate: torch.Tensor, up: torch.Tensor, down: torch.Tensor) -> torch.Tensor:
    """down(silu(gate(x)) ⊙ up(x)). x: [N, D]; gate, up: [I, D]; down: [D, I] → [N, D]."""
    return F.linear(F.silu(F.linear(x, gate)) * F.linear(x, up), down)


class FP8Experts(nn.Module):
    """The routed experts of one layer, stacked and kept in block-FP8.

    For each projection p in gate_proj, up_proj, down_proj: `p` [E, out, in] float8_e4m3fn and
    `p_scale` [E, ceil(out/b0), ceil(in/b1)] fp32. `dequantized(ids, dtype)` expands the selected
    experts only.
    """

    def __init__(self, weights: dict[str, torch.Tensor], num_experts: int, block: tuple[int, int]):
        super().__init__()
        for proj in _PROJECTIONS:
            stacked = torch.stack([weights[f"{e}.{proj}.weight"] for e in range(num_experts)])
            scales = torch.stack([weights[f"{e}.{proj}.weight_scale_inv"].float() for e in range(num_experts)])
            self.register_buffer(proj, stacked)
            self.register_buffer(f"{proj}_scale", scales)
        self.block = block

    def dequantized(self, ids: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
        """(gate [k, I, D], up [k, I, D], down [k, D, I]) of experts `ids` [k] in `dtype`."""
        return tuple(
            dequantize_blocks(getattr(self, p)[ids], getattr(self, f"{p}_scale")[ids], self.block, dtype)
            for p in _PROJECTIONS
        )


class SparseMoE(nn.Module):
    """One MoE block (Qwen3.5 `mlp`), weights keyed as in the checkpoint under `…mlp.`.

    forward(x [N, D]) → [N, D] in x's dtype.
    """

    def __init__(self, weights: dict[str, torch.Tensor], num_experts: int, top_k: int, block: tuple[int, int]):
        super().__init__()
        self.register_buffer("router", weights["gate.weight"])
        experts = {k.removeprefix("experts."): v for k, v in weights.items() if k.startswith("experts.")}
        self.experts = FP8Experts(experts, num_experts, block)
        for proj in _PROJECTIONS:
            self.register_buffer(f"shared_{proj}", weights[f"shared_expert.{proj}.weight"])
        self.register_buffer("shared_gate", weights["shared_expert_gate.weight"])
        self.top_k = top_k

    def route(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Top-k experts per row: (weights [N, k] in x's dtype, summing to 1; ids [N, k])."""
        probs = F.softmax(F.linear(x, self.router).float(), dim=-1)
        top, ids = probs.topk(self.top_k, dim=-1)
        return (top / top.sum(-1, keepdim=True)).to(x.dtype), ids

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x `[N, D]` -> `[N, D]` in x's dtype: top-k routed experts plus the gated shared expert
        (docs/model.md §3.2)."""
        weights, ids = self.route(x)
        if x.is_cuda and kernels.available(x.device) and self.experts.block[0] == self.experts.block[1]:
            routed = self._fused_rows(x, weights, ids) if x.shape[0] <= kernels.MAX_ROWS else self._grouped_rows(
                x, weights, ids)
        elif x.shape[0] == 1:
            routed = self._one_row(x, weights, ids)
        else:
            routed = self._many_rows(x, weights, ids)
        shared = swiglu(x, self.shared_gate_proj, self.shared_up_proj, self.shared_down_proj)
        return routed + torch.sigmoid(F.linear(x, self.shared_gate)) * shared

    def _fused_rows(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """The routed experts of up to 16 rows in two Triton launches reading the FP8 weights
        and block scales directly (`engine.kernels.fp8_experts`)."""
        e = self.experts
        return kernels.fp8_experts_rows(x, weights, ids, e.gate_proj, e.up_proj, e.down_proj, e.gate_proj_scale,
                                        e.up_proj_scale, e.down_proj_scale, e.block[0])

    def _grouped_rows(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """The routed experts of many rows (prefill): rows grouped by expert, then two grouped
        Triton matmuls reading the FP8 weights and block scales directly
        (`engine.kernels.fp8_grouped`)."""
        e = self.experts
        return fp8_grouped.fp8_experts_grouped(x, weights, ids, e.gate_proj, e.up_proj, e.down_proj,
                                               e.gate_proj_scale, e.up_proj_scale, e.down_proj_scale, e.block[0])

    def _one_row(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        gate, up, down = self.experts.dequantized(ids[0], x.dtype)
        hidden = F.silu(gate @ x[0]) * (up @ x[0])  # [k, I]
        out = torch.bmm(down, hidden[:, :, None])[:, :, 0]  # [k, D]
        return weights[0][None, :] @ out

    def _many_rows(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        out = torch.zeros_like(x)
        used = ids.unique()
        for expert, (gate, up, down) in zip(used.tolist(), zip(*self.experts.dequantized(used, x.dtype))):
            rows, slot = (ids == expert).nonzero(as_tuple=True)
            contribution = swiglu(x[rows], gate, up, down) * weights[rows, slot][:, None]
            out.index_add_(0, rows, contribution)
        return out
