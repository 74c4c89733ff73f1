"""Sparse mixture of experts of the Qwen3.5 backbone with block-FP8 routed experts (docs/internals/model.md §3.2
"MoE", §2.1 MoE table).

Router: softmax over all experts in fp32, top-k, renormalise the k weights to sum to 1. Each
expert is a SwiGLU down(silu(gate(x)) ⊙ up(x)). A shared SwiGLU expert is added, scaled by
sigmoid(shared_expert_gate(x)). Routed experts stay float8_e4m3fn in memory; on CUDA, up to 16 rows
go through the Triton kernels of `engine.kernels.fp8_experts` and more rows (prefill) through the
grouped matmuls of `engine.kernels.fp8_grouped` (FP8 tiles read and scaled in registers in both);
otherwise only the experts a step selects are dequantised, block by block, when used. On the CPU a
resident stack may keep experts once dequantised (`DenseBudget`): rewriting an expert in float32
every step costs as much memory traffic as the matmuls that read it, so a batch of rows that picks
many distinct experts would spend half its step dequantising.

The routed experts come from an expert source: `FP8Experts` (all experts resident) or an
`engine.offload.cache.ExpertCache` (a few slots per layer filled from host memory). Both answer
`fetch(ids)` with a stacked pool and the ids' places in it, so every path runs the same code
and kernels on the same weights whichever source it reads.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from engine.kernels import fp8_experts as kernels
from engine.kernels import fp8_grouped
from engine.kernels.cpu_linear import PackedWeights, packed_or_plain, product
from engine.layers.fp8 import dequantize_blocks

_PROJECTIONS = ("gate_proj", "up_proj", "down_proj")


@dataclass
class DenseBudget:
    """Bytes of dense copies a CPU model may still keep (one budget shared by the whole model:
    packed weights, `engine.kernels.cpu_linear`, and experts kept dequantised); `kept` counts
    the copies granted so far."""

    left: int
    kept: int = 0

    def take(self, size: int) -> bool:
        """Reserve `size` bytes; False (nothing reserved) when fewer are left."""
        if size > self.left:
            return False
        self.left -= size
        self.kept += 1
        return True


def stacked_swiglu(x: torch.Tensor, gate_up: torch.Tensor, down: torch.Tensor) -> torch.Tensor:
    """The SwiGLU expert down(silu(gate(x)) ⊙ up(x)) with gate and up stacked as gate_up
    [2I, D] (gate first): one matmul for both. x: [N, D]; down: [D, I] → [N, D]. The weights
    may be packed (`engine.kernels.cpu_linear`)."""
    gate, up = product(x, gate_up).chunk(2, dim=-1)
    return product(F.silu(gate) * up, down)


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
            scales = torch.stack(
                [weights[f"{e}.{proj}.weight_scale_inv"].float() for e in range(num_experts)]
            )
            self.register_buffer(proj, stacked)
            self.register_buffer(f"{proj}_scale", scales)
        self.block = block
        self.keep_dense(None)

    def keep_dense(self, budget: DenseBudget | None) -> None:
        """Keep experts once dequantised while `budget` allows (None: dequantise every use).
        Only for a stack whose experts never change (not a cache's slot pool)."""
        self.dense_budget = budget
        self._dense: dict[tuple[int, torch.dtype], tuple[torch.Tensor, ...]] = {}

    @classmethod
    def empty(
        cls, slots: int, like: dict[str, torch.Tensor], block: tuple[int, int], device: torch.device
    ) -> FP8Experts:
        """A pool of `slots` zeroed experts shaped like the one expert `like` ({"gate_proj": …,
        "gate_proj_scale": …, …}: each [out, in] float8_e4m3fn or its fp32 scales)."""
        pool = cls.__new__(cls)
        nn.Module.__init__(pool)
        for name in tensor_names():
            tensor = like[name]
            pool.register_buffer(
                name, torch.zeros((slots, *tensor.shape), dtype=tensor.dtype, device=device)
            )
        pool.block = block
        pool.keep_dense(None)  # its slots are refilled, so nothing dequantised may be kept
        return pool

    @property
    def slots(self) -> int:
        """Experts held at once (all of them)."""
        return self.gate_proj.shape[0]

    def fetch(self, ids: torch.Tensor) -> tuple[FP8Experts, torch.Tensor]:
        """(the stacked experts, the place of each id in them): here `(self, ids)`."""
        return self, ids

    def prefetch_next(self, x: torch.Tensor) -> None:
        """Nothing to prefetch when every expert is resident."""

    def dequantized(self, ids: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
        """(gate [k, I, D], up [k, I, D], down [k, D, I]) of experts `ids` [k] in `dtype`."""
        return tuple(
            dequantize_blocks(
                getattr(self, p)[ids], getattr(self, f"{p}_scale")[ids], self.block, dtype
            )
            for p in _PROJECTIONS
        )

    def expert(self, place: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        """(gate and up stacked [2I, D], down [D, I]) of the expert at `place` in `dtype`: the
        kept copy when there is one, else dequantised now and kept if `dense_budget` allows.
        Packed for oneDNN where `engine.kernels.cpu_linear.pack` can (float32 on the CPU), kept
        or not, so every eager product of an expert takes the same path."""
        kept = self._dense.get((place, dtype))
        if kept is not None:
            return kept
        gate, up, down = (
            dequantize_blocks(
                getattr(self, p)[place], getattr(self, f"{p}_scale")[place], self.block, dtype
            )
            for p in _PROJECTIONS
        )
        weights = tuple(packed_or_plain(w) for w in (torch.cat((gate, up)), down))
        size = sum(w.numel() * w.element_size() for w in weights)
        if self.dense_budget is not None and self.dense_budget.take(size):
            self._dense[(place, dtype)] = weights
        return weights


def _one_row_compiled(
    x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, e: FP8Experts
) -> torch.Tensor:
    """The k routed experts of one row inside a compiled graph, as batched matrix-vector
    products over the picked experts dequantised together: the compiler fuses each product with
    the dequantisation, so the step reads the FP8 weights once and never writes their float32
    copies (a product per expert would receive materialised float32 weights: a compiled CPU
    decode about half as fast). `test_the_compiled_moe_step_keeps_routed_experts_in_fp8` guards it."""
    gate, up, down = e.dequantized(ids[0], x.dtype)  # [k, I, D], [k, I, D], [k, D, I]
    hidden = F.silu(gate @ x[0]) * (up @ x[0])  # [k, I]
    out = (down @ hidden[:, :, None])[:, :, 0]  # [k, D]
    return (out * weights[0][:, None]).sum(0, keepdim=True)


def tensor_names() -> tuple[str, ...]:
    """The six stacked tensors of an expert pool: each projection and its block scales."""
    return tuple(name for proj in _PROJECTIONS for name in (proj, f"{proj}_scale"))


def row_chunks(ids: torch.Tensor, slots: int, num_experts: int) -> list[slice]:
    """Consecutive row ranges of `ids` [N, k] that each use at most `slots` distinct experts
    (one range, read without a host sync, when `slots` covers all `num_experts` or there is
    one row). Raises ValueError when one row alone needs more than `slots`."""
    if slots >= num_experts or ids.shape[0] == 1:
        return [slice(None)]
    chunks, start, seen = [], 0, set()
    for row, experts in enumerate(ids.tolist()):
        if len(set(experts)) > slots:
            raise ValueError(f"a row uses {len(set(experts))} experts but only {slots} slots exist")
        if len(seen | set(experts)) > slots:
            chunks.append(slice(start, row))
            start, seen = row, set()
        seen |= set(experts)
    chunks.append(slice(start, len(ids)))
    return chunks


class SparseMoE(PackedWeights, nn.Module):
    """One MoE block (Qwen3.5 `mlp`), weights keyed as in the checkpoint under `…mlp.`.

    experts: where the routed experts come from; None stacks `weights["experts.E.…"]` into a
    resident `FP8Experts`, else an `engine.offload.cache.ExpertCache` (then `weights` need not hold
    the routed experts). forward(x [N, D]) → [N, D] in x's dtype, the same bits either way.
    """

    PACKED = ("router", "shared_gate_proj", "shared_up_proj", "shared_down_proj", "shared_gate")

    def __init__(
        self,
        weights: dict[str, torch.Tensor],
        num_experts: int,
        top_k: int,
        block: tuple[int, int],
        experts: nn.Module | None = None,
    ):
        super().__init__()
        self.register_buffer("router", weights["gate.weight"])
        if experts is None:
            routed = {
                k.removeprefix("experts."): v
                for k, v in weights.items()
                if k.startswith("experts.")
            }
            experts = FP8Experts(routed, num_experts, block)
        self.experts = experts
        for proj in _PROJECTIONS:
            self.register_buffer(f"shared_{proj}", weights[f"shared_expert.{proj}.weight"])
        self.register_buffer("shared_gate", weights["shared_expert_gate.weight"])
        self.num_experts = num_experts
        self.top_k = top_k
        self.block = block

    def route(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Top-k experts per row: (weights [N, k] in x's dtype, summing to 1; ids [N, k])."""
        probs = F.softmax(self.dense(x, "router").float(), dim=-1)
        top, ids = probs.topk(self.top_k, dim=-1)
        return (top / top.sum(-1, keepdim=True)).to(x.dtype), ids

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x `[N, D]` -> `[N, D]` in x's dtype: top-k routed experts plus the gated shared expert
        (docs/internals/model.md §3.2)."""
        weights, ids = self.route(x)
        self.experts.prefetch_next(x)
        routed = self._routed(x, weights, ids)
        shared = self.dense(
            F.silu(self.dense(x, "shared_gate_proj")) * self.dense(x, "shared_up_proj"),
            "shared_down_proj",
        )
        return routed + torch.sigmoid(self.dense(x, "shared_gate")) * shared

    def _routed(
        self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, path=None
    ) -> torch.Tensor:
        """The routed experts' sum, row chunk by row chunk when the source holds fewer experts
        than the rows use (each row's result does not depend on the other rows). path: one of
        the `_…_rows` methods (default: the one the device and row count call for)."""
        path = path or self._path(x)
        if path == self._many_rows:
            return self._many_rows(x, weights, ids)
        if path == self._grouped_rows and self.experts.slots < self.num_experts:
            return self._grouped_by_expert_group(x, weights, ids)
        parts = []
        for rows in row_chunks(ids, self.experts.slots, self.num_experts):
            pool, places = self.experts.fetch(ids[rows])
            parts.append(path(x[rows], weights[rows], places, pool))
        return parts[0] if len(parts) == 1 else torch.cat(parts)

    def _path(self, x: torch.Tensor):
        if x.is_cuda and kernels.available(x.device) and self.block[0] == self.block[1]:
            return self._fused_rows if x.shape[0] <= kernels.MAX_ROWS else self._grouped_rows
        return self._one_row if x.shape[0] == 1 else self._many_rows

    def _fused_rows(
        self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, e: FP8Experts | None = None
    ) -> torch.Tensor:
        """The routed experts of up to 16 rows in two Triton launches reading the FP8 weights
        and block scales directly (`engine.kernels.fp8_experts`). ids index `e` (default: the
        resident experts)."""
        e = self.experts if e is None else e
        return kernels.fp8_experts_rows(
            x,
            weights,
            ids,
            e.gate_proj,
            e.up_proj,
            e.down_proj,
            e.gate_proj_scale,
            e.up_proj_scale,
            e.down_proj_scale,
            e.block[0],
        )

    def _grouped_rows(
        self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, e: FP8Experts | None = None
    ) -> torch.Tensor:
        """The routed experts of many rows (prefill): rows grouped by expert, then two grouped
        Triton matmuls reading the FP8 weights and block scales directly
        (`engine.kernels.fp8_grouped`). ids index `e` (default: the resident experts)."""
        e = self.experts if e is None else e
        return fp8_grouped.fp8_experts_grouped(
            x,
            weights,
            ids,
            e.gate_proj,
            e.up_proj,
            e.down_proj,
            e.gate_proj_scale,
            e.up_proj_scale,
            e.down_proj_scale,
            e.block[0],
        )

    def _grouped_by_expert_group(
        self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor
    ) -> torch.Tensor:
        """The grouped kernels over a cache smaller than the experts the rows use: the (row,
        slot) pairs of each group of at most `slots` experts (ascending ids) go through
        `fp8_grouped.fp8_expert_parts` once the group is resident, and the parts are summed over
        the slots as the one-call path sums them. Each expert is copied at most once per call."""
        top_k, flat = ids.shape[1], ids.reshape(-1)
        parts = torch.empty(flat.numel(), x.shape[1], dtype=torch.float32, device=x.device)
        for group in flat.unique().split(self.experts.slots):
            chosen = torch.isin(flat, group).nonzero()[:, 0]
            e, places = self.experts.fetch(flat[chosen])
            parts[chosen] = fp8_grouped.fp8_expert_parts(
                x[chosen // top_k],
                weights.reshape(-1)[chosen, None],
                places[:, None],
                e.gate_proj,
                e.up_proj,
                e.down_proj,
                e.gate_proj_scale,
                e.up_proj_scale,
                e.down_proj_scale,
                e.block[0],
            )
        return parts.view(x.shape[0], top_k, x.shape[1]).sum(1).to(x.dtype)

    def _one_row(
        self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor, e: FP8Experts | None = None
    ) -> torch.Tensor:
        """The k routed experts of one row, summed in routing order. Eagerly each is fetched by
        place, so kept copies serve it; inside a compiled graph `_one_row_compiled` runs instead
        (reading `ids` on the host would break the graph)."""
        e = self.experts if e is None else e
        if torch.compiler.is_compiling():
            return _one_row_compiled(x, weights, ids, e)
        out = torch.zeros_like(x)
        for weight, place in zip(weights[0], ids[0].tolist()):
            out += stacked_swiglu(x, *e.expert(place, x.dtype)) * weight
        return out

    def _many_rows(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Expert by expert in ascending id order, over the (row, choice) pairs sorted by expert
        once, fetched in groups the source can hold at once; each row sums its experts in
        ascending id order, so the sum never depends on the source."""
        flat = ids.reshape(-1)
        order = flat.argsort(stable=True)
        experts, counts = flat[order].unique_consecutive(return_counts=True)
        rows = order // ids.shape[1]
        parts, scale = x[rows], weights.reshape(-1)[order, None]
        bounds = [0, *counts.cumsum(0).tolist()]
        for first in range(0, len(experts), self.experts.slots):
            pool, places = self.experts.fetch(experts[first : first + self.experts.slots])
            for index, place in enumerate(places.tolist(), start=first):
                pairs = slice(bounds[index], bounds[index + 1])
                parts[pairs] = (
                    stacked_swiglu(parts[pairs], *pool.expert(place, x.dtype)) * scale[pairs]
                )
        return torch.zeros_like(x).index_add_(0, rows, parts)
