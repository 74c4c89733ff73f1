"""Gated DeltaNet mixer of the Qwen3.5 backbone (docs/internals/model.md §3.2, "Gated DeltaNet mixer").

Per value head j the recurrent state S_j [key_dim, value_dim] (fp32) evolves per token as

    S ← S·exp(g);  Δ = β·(v − Sᵀk);  S ← S + k Δᵀ;  o = Sᵀq

with q, k L2-normalised and q scaled by key_dim^−½. Prefill uses the chunked form (exact, a
triangular solve per chunk), one-row decode the recurrent form; on CUDA the kernels of
flash-linear-attention are used when importable.

Chunked form, derived for a chunk of C tokens with in-chunk cumulative log-decay γ_t and the
state S₀ entering the chunk: stacking Δ gives (I + A)Δ = β⊙V − β⊙e^γ⊙(K S₀) with
A[t,s] = β_t e^(γ_t−γ_s) k_t·k_s for s < t; then O = e^γ⊙(Q S₀) + (QKᵀ ⊙ e^(γ_t−γ_s))_{s≤t} Δ
and S_C = e^(γ_C) S₀ + (K ⊙ e^(γ_C−γ))ᵀ Δ.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from engine.kernels.cpu_linear import PackedWeights
from engine.kernels.gated_delta import fla_kernels, gated_delta_step
from engine.layers.norms import GatedRMSNorm

CHUNK_SIZE = 64


@dataclass
class GDNState:
    """Cache of one Gated DeltaNet layer for one stream.

    conv: [conv_channels, kernel − 1] the last pre-conv inputs (activation dtype; zeros at start).
    recurrent: [value_heads, key_dim, value_dim] fp32.
    """

    conv: torch.Tensor
    recurrent: torch.Tensor

    def clone(self) -> GDNState:
        """An independent copy (for prefix caches)."""
        return GDNState(self.conv.clone(), self.recurrent.clone())


@dataclass
class SlotGDNState:
    """Gated DeltaNet states of a batch of independent streams, one slot each (the batched frame
    step, `engine.step`): conv `[B, conv_channels, kernel − 1]` (activation dtype) and
    recurrent `[B, value_heads, key_dim, value_dim]` fp32. `GatedDeltaNet.forward` given one
    advances every slot by one row."""

    conv: torch.Tensor
    recurrent: torch.Tensor


def l2_normalize(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x / sqrt(sum(x²) + eps) over the last dim (the flash-linear-attention convention)."""
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


def recurrent_gated_delta_rule(q, k, v, g, beta, state):
    """The gated delta rule token by token.

    q, k: [T, H, dk] (already normalised and scaled); v: [T, H, dv]; g (log decay ≤ 0), beta:
    [T, H]; state: [H, dk, dv]. All fp32. Returns (o [T, H, dv], final state [H, dk, dv]).
    """
    outputs = []
    for t in range(q.shape[0]):
        state = state * g[t].exp()[:, None, None]
        predicted = torch.einsum("hkv,hk->hv", state, k[t])
        delta = (v[t] - predicted) * beta[t][:, None]
        state = state + k[t][:, :, None] * delta[:, None, :]
        outputs.append(torch.einsum("hkv,hk->hv", state, q[t]))
    return torch.stack(outputs), state


def chunked_gated_delta_rule(q, k, v, g, beta, state, chunk_size: int = CHUNK_SIZE):
    """The gated delta rule over chunks of `chunk_size` tokens (same maths as the recurrent form,
    see the module docstring). Shapes and dtypes as `recurrent_gated_delta_rule`."""
    length = q.shape[0]
    pad = (-length) % chunk_size
    # [H, chunks, C, d]; padded tokens have k = v = 0 and g = 0, so they change nothing.
    q, k, v = (
        F.pad(x, (0, 0, 0, 0, 0, pad)).transpose(0, 1).unflatten(1, (-1, chunk_size))
        for x in (q, k, v)
    )
    g, beta = (
        F.pad(x, (0, 0, 0, pad)).transpose(0, 1).unflatten(1, (-1, chunk_size)) for x in (g, beta)
    )
    gamma = g.cumsum(-1)
    causal = torch.ones(chunk_size, chunk_size, dtype=torch.bool, device=q.device).tril()
    gaps = (gamma[..., :, None] - gamma[..., None, :]).masked_fill(~causal, float("-inf")).exp()
    strict = gaps.masked_fill(torch.eye(chunk_size, dtype=torch.bool, device=q.device), 0.0)
    lower = beta[..., :, None] * (k @ k.transpose(-1, -2)) * strict
    system = lower + torch.eye(chunk_size, device=q.device)
    values = torch.linalg.solve_triangular(
        system, beta[..., None] * v, upper=False, unitriangular=True
    )
    decayed_keys = torch.linalg.solve_triangular(
        system, (beta * gamma.exp())[..., None] * k, upper=False, unitriangular=True
    )
    intra = (q @ k.transpose(-1, -2)) * gaps
    q_decayed = q * gamma.exp()[..., None]
    k_to_end = k * (gamma[..., -1:] - gamma).exp()[..., None]
    outputs = torch.empty_like(v)
    for c in range(q.shape[1]):
        delta = values[:, c] - decayed_keys[:, c] @ state
        outputs[:, c] = q_decayed[:, c] @ state + intra[:, c] @ delta
        state = (
            state * gamma[:, c, -1].exp()[:, None, None] + k_to_end[:, c].transpose(-1, -2) @ delta
        )
    outputs = outputs.flatten(1, 2).transpose(0, 1)[:length]
    return outputs, state


class GatedDeltaNet(PackedWeights, nn.Module):
    """One Gated DeltaNet mixer (Qwen3.5 `linear_attn`), weights as in docs/internals/model.md §2.1.

    weights: dict with `in_proj_qkv.weight`, `in_proj_z.weight`, `in_proj_b.weight`,
    `in_proj_a.weight`, `conv1d.weight` [C, 1, K], `dt_bias`, `A_log`, `norm.weight`,
    `out_proj.weight`. forward(x [N, hidden], state: GDNState) → [N, hidden], updating `state`
    in place.
    """

    PACKED = ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj")

    def __init__(
        self,
        weights: dict[str, torch.Tensor],
        key_heads: int,
        key_dim: int,
        value_heads: int,
        value_dim: int,
        eps: float,
    ):
        super().__init__()
        for name in ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj"):
            self.register_buffer(name, weights[f"{name}.weight"])
        self.register_buffer("conv_weight", weights["conv1d.weight"][:, 0, :])
        self.register_buffer("dt_bias", weights["dt_bias"].float())
        self.register_buffer("decay_rate", -weights["A_log"].float().exp())
        self.norm = GatedRMSNorm(weights["norm.weight"], eps)
        self.key_heads, self.key_dim = key_heads, key_dim
        self.value_heads, self.value_dim = value_heads, value_dim
        self._fla = None

    def new_state(self) -> GDNState:
        """A zero state on this layer's device: conv [C, K−1] in the weights' dtype,
        recurrent [value_heads, key_dim, value_dim] fp32."""
        channels, kernel = self.conv_weight.shape
        device, dtype = self.conv_weight.device, self.conv_weight.dtype
        return GDNState(
            torch.zeros(channels, kernel - 1, device=device, dtype=dtype),
            torch.zeros(
                self.value_heads, self.key_dim, self.value_dim, device=device, dtype=torch.float32
            ),
        )

    def forward(self, x: torch.Tensor, state: GDNState) -> torch.Tensor:
        """x `[N, hidden]` -> `[N, hidden]` in x's dtype; advances `state` (conv window and float32
        recurrent state) by N rows (docs/internals/model.md §3.2). With a `SlotGDNState`, x holds one row
        per stream (`step_streams`)."""
        if isinstance(state, SlotGDNState):
            return self.step_streams(x, state)
        n = x.shape[0]
        mixed = self._causal_conv(self.dense(x, "in_proj_qkv"), state)
        q, k, v = mixed.split(
            (self.key_heads * self.key_dim,) * 2 + (self.value_heads * self.value_dim,), -1
        )
        q, k = (t.unflatten(-1, (self.key_heads, self.key_dim)) for t in (q, k))
        v = v.unflatten(-1, (self.value_heads, self.value_dim))
        beta = torch.sigmoid(self.dense(x, "in_proj_b").float())
        g = self.decay_rate * F.softplus(self.dense(x, "in_proj_a").float() + self.dt_bias)
        repeat = self.value_heads // self.key_heads
        q, k = (t.repeat_interleave(repeat, dim=1) for t in (q, k))
        out = self._delta_rule(q, k, v, g, beta, state).to(x.dtype)
        z = self.dense(x, "in_proj_z").unflatten(-1, (self.value_heads, self.value_dim))
        out = self.norm(out, z).reshape(n, -1)
        return self.dense(out, "out_proj")

    def _causal_conv(self, mixed: torch.Tensor, state: GDNState) -> torch.Tensor:
        """Depthwise causal conv1d (no bias) then SiLU; mixed: [N, C]. Keeps the last K−1 inputs."""
        window = torch.cat((state.conv, mixed.t()), dim=1)  # [C, K−1+N]
        state.conv.copy_(window[:, -state.conv.shape[1] :])
        if mixed.shape[0] == 1:
            out = (window * self.conv_weight).sum(-1, keepdim=True)
        else:
            out = F.conv1d(window[None], self.conv_weight[:, None, :], groups=window.shape[0])[0]
        return F.silu(out.t())

    def _delta_rule(self, q, k, v, g, beta, state: GDNState) -> torch.Tensor:
        if q.is_cuda and (kernels := self._kernels()) is not None:
            return self._delta_rule_fla(kernels, q, k, v, g, beta, state)
        q = l2_normalize(q.float()) * self.key_dim**-0.5
        k = l2_normalize(k.float())
        rule = recurrent_gated_delta_rule if q.shape[0] == 1 else chunked_gated_delta_rule
        out, final = rule(q, k, v.float(), g, beta, state.recurrent)
        state.recurrent.copy_(final)
        return out

    def _kernels(self):
        if self._fla is None:
            self._fla = fla_kernels() or False
        return self._fla or None

    def _delta_rule_fla(self, kernels, q, k, v, g, beta, state: GDNState) -> torch.Tensor:
        """The rule through flash-linear-attention: the fused recurrent kernel for one row (as
        the custom op `engine.kernels.gated_delta.gated_delta_step`), the chunked one for more."""
        if q.shape[0] == 1:
            return gated_delta_step(q, k, v, g, beta, state.recurrent, self.key_dim**-0.5)
        out, final = kernels[0](
            q[None],
            k[None],
            v[None],
            g=g[None],
            beta=beta[None].to(v.dtype),
            scale=self.key_dim**-0.5,
            initial_state=state.recurrent[None],
            output_final_state=True,
            use_qk_l2norm_in_kernel=True,
        )
        state.recurrent.copy_(final[0])
        return out[0]

    def step_streams(self, x: torch.Tensor, state: SlotGDNState) -> torch.Tensor:
        """One row for each of B independent streams: x `[B, hidden]` -> `[B, hidden]`, slot b of
        `state` advanced by row b (the recurrent form, in torch on every device)."""
        mixed = self.dense(x, "in_proj_qkv")
        window = torch.cat((state.conv, mixed[:, :, None]), dim=2)  # [B, C, K]
        state.conv.copy_(window[:, :, 1:])
        mixed = F.silu((window * self.conv_weight).sum(-1))
        q, k, v = mixed.split(
            (self.key_heads * self.key_dim,) * 2 + (self.value_heads * self.value_dim,), -1
        )
        q, k = (t.unflatten(-1, (self.key_heads, self.key_dim)) for t in (q, k))
        v = v.unflatten(-1, (self.value_heads, self.value_dim)).float()
        beta = torch.sigmoid(self.dense(x, "in_proj_b").float())
        g = self.decay_rate * F.softplus(self.dense(x, "in_proj_a").float() + self.dt_bias)
        repeat = self.value_heads // self.key_heads
        q, k = (t.repeat_interleave(repeat, dim=1) for t in (q, k))
        q = l2_normalize(q.float()) * self.key_dim**-0.5
        k = l2_normalize(k.float())
        recurrent = state.recurrent * g.exp()[:, :, None, None]
        predicted = torch.einsum("bhkv,bhk->bhv", recurrent, k)
        delta = (v - predicted) * beta[:, :, None]
        recurrent = recurrent + k[:, :, :, None] * delta[:, :, None, :]
        state.recurrent.copy_(recurrent)
        out = torch.einsum("bhkv,bhk->bhv", recurrent, q).to(x.dtype)
        z = self.dense(x, "in_proj_z").unflatten(-1, (self.value_heads, self.value_dim))
        return self.dense(self.norm(out, z).reshape(x.shape[0], -1), "out_proj")
