"""The codec's windowed causal transformer (docs/internals/codec.md §1.2, "WindowLimitedTransformer").

Pre-norm blocks with LayerScale, fused q|k|v projection, interleaved-pair RoPE with a bf16
table, SwiGLU feed-forward, final RMSNorm. Query i attends to the `window` most recent
positions i-window+1 .. i. Attention is computed block by block over the window (each block
of queries sees at most 2*window-1 keys), so cost is linear in the sequence length.

Streaming: with a `state` dict each layer keeps its last window-1 keys and values (RoPE
already applied at their absolute positions), and positions continue across chunks.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine.codec.convs import planes_of, rows_of

State = dict | None


class RMSNorm(nn.Module):
    """x * rsqrt(mean(x^2) + eps) computed in fp32, cast back, then * weight (docs/internals/codec.md §1.2)."""

    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: Tensor) -> Tensor:
        """`[..., dim] -> [..., dim]`."""
        x32 = x.float()
        normed = x32 * torch.rsqrt(torch.mean(x32 * x32, dim=-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


class RotaryTable:
    """cos/sin of RoPE angles, rounded to bf16 like the reference table (docs/internals/codec.md §1.2).

    angle(pos, j) = pos * base^(-2j/head_dim), j < head_dim/2, computed in fp32. The table
    grows on demand, so positions are not capped.
    """

    def __init__(self, head_dim: int, base: float):
        exponents = torch.arange(0, head_dim, 2, device="cpu")[: head_dim // 2].float() / head_dim
        self.freqs = 1.0 / (base**exponents)
        self.table = torch.empty(0, head_dim // 2, 2, dtype=torch.bfloat16, device="cpu")

    def get(self, start: int, length: int, device: torch.device) -> Tensor:
        """Rows for positions start .. start+length-1: `[length, head_dim/2, 2]` fp32 (cos, sin)."""
        end = start + length
        if self.table.shape[0] < end:
            self._grow(max(end, 2 * self.table.shape[0]))
        if self.table.device != device:
            self.table = self.table.to(device)
        return self.table[start:end].float()

    def _grow(self, size: int) -> None:
        angles = torch.outer(torch.arange(size, device="cpu"), self.freqs)
        unit = torch.polar(torch.ones_like(angles), angles)
        self.table = torch.stack([unit.real, unit.imag], dim=-1).to(torch.bfloat16)


def apply_rope(x: Tensor, rope: Tensor) -> Tensor:
    """Rotate adjacent pairs (x[2j], x[2j+1]) of `x [B, T, H, D]` by `rope [T, D/2, 2]`, in fp32."""
    pairs = x.float().reshape(*x.shape[:-1], -1, 2)
    cos = rope[None, :, None, :, 0]
    sin = rope[None, :, None, :, 1]
    even, odd = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1)
    return rotated.flatten(3).type_as(x)


def windowed_attention(q: Tensor, k: Tensor, v: Tensor, window: int) -> Tensor:
    """Causal attention limited to the last `window` keys, computed block by block.

    q `[B, H, Tq, D]`; k, v `[B, H, Tk, D]` with Tk >= Tq, where the queries are the last Tq
    positions of the keys (earlier keys are cached context). Query i (key index
    i + Tk - Tq) sees keys max(0, i + Tk - Tq - window + 1) .. i + Tk - Tq. Returns
    `[B, H, Tq, D]`. Scale 1/sqrt(D) (SDPA default).
    """
    offset = k.shape[2] - q.shape[2]
    outputs = []
    for start in range(0, q.shape[2], window):
        stop = min(start + window, q.shape[2])
        k_start = max(0, start + offset - window + 1)
        k_stop = stop + offset
        mask = _window_mask(start + offset, stop + offset, k_start, k_stop, window, q.device)
        outputs.append(
            F.scaled_dot_product_attention(
                q[:, :, start:stop],
                k[:, :, k_start:k_stop],
                v[:, :, k_start:k_stop],
                attn_mask=mask,
            )
        )
    return outputs[0] if len(outputs) == 1 else torch.cat(outputs, dim=2)


def _window_mask(
    q_start: int, q_stop: int, k_start: int, k_stop: int, window: int, device: torch.device
) -> Tensor:
    """Boolean `[Tq, Tk]` mask (True = attend) for absolute query/key index ranges."""
    q_pos = torch.arange(q_start, q_stop, device=device)[:, None]
    k_pos = torch.arange(k_start, k_stop, device=device)[None, :]
    return (k_pos <= q_pos) & (k_pos > q_pos - window)


class Attention(nn.Module):
    """Multi-head windowed causal self-attention: `wqkv` [3*H*D, dim], `wo` [dim, H*D], no bias."""

    def __init__(self, dim: int, n_heads: int, head_dim: int, window: int):
        super().__init__()
        self.wqkv = nn.Linear(dim, 3 * n_heads * head_dim, bias=False)
        self.wo = nn.Linear(n_heads * head_dim, dim, bias=False)
        self.n_heads, self.head_dim, self.window = n_heads, head_dim, window

    def forward(self, x: Tensor, rope: Tensor, state: State = None) -> Tensor:
        """x `[B, T, dim]` -> `[B, T, dim]`; rope: the rotary table of the T positions. With
        `state`, keys and values of earlier chunks inside the window are kept and extended."""
        batch, length, _ = x.shape
        q, k, v = self.wqkv(x).view(batch, length, 3, self.n_heads, self.head_dim).unbind(2)
        q, k = apply_rope(q, rope), apply_rope(k, rope)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        if state is not None:
            k, v = self._extend_cache(k, v, state)
        y = windowed_attention(q, k, v, self.window)
        return self.wo(y.transpose(1, 2).reshape(batch, length, -1))

    def _extend_cache(self, k: Tensor, v: Tensor, state: dict) -> tuple[Tensor, Tensor]:
        cached = state.get(self)
        if cached is not None:
            k = torch.cat([cached[0], k], dim=2)
            v = torch.cat([cached[1], v], dim=2)
        keep = self.window - 1
        state[self] = (
            k[:, :, -keep:] if keep else k[:, :, :0],
            v[:, :, -keep:] if keep else v[:, :, :0],
        )
        return k, v


class FeedForward(nn.Module):
    """SwiGLU: w2(silu(w1 x) * w3 x), no biases (docs/internals/codec.md §1.2)."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        """`[..., dim] -> [..., dim]`."""
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class LayerScale(nn.Module):
    """Per-channel scale `gamma [dim]` of a transformer branch (docs/internals/codec.md §1.2)."""

    def __init__(self, dim: int):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(dim))

    def forward(self, x: Tensor) -> Tensor:
        """`[..., dim] -> [..., dim]`."""
        return x * self.gamma


class TransformerBlock(nn.Module):
    """h = x + ls1(attn(norm1 x)); out = h + ls2(ffn(norm2 h)) (docs/internals/codec.md §1.2)."""

    def __init__(self, dim: int, n_heads: int, head_dim: int, hidden: int, window: int, eps: float):
        super().__init__()
        self.attention = Attention(dim, n_heads, head_dim, window)
        self.feed_forward = FeedForward(dim, hidden)
        self.attention_norm = RMSNorm(dim, eps)
        self.ffn_norm = RMSNorm(dim, eps)
        self.attention_layer_scale = LayerScale(dim)
        self.ffn_layer_scale = LayerScale(dim)

    def forward(self, x: Tensor, rope: Tensor, state: State = None) -> Tensor:
        """`[B, T, dim] -> [B, T, dim]`; rope and state as in `Attention.forward`."""
        h = x + self.attention_layer_scale(self.attention(self.attention_norm(x), rope, state))
        return h + self.ffn_layer_scale(self.feed_forward(self.ffn_norm(h)))


class WindowedTransformer(nn.Module):
    """Windowed causal transformer on planes: `[B, dim, 1, T] -> [B, dim, 1, T]`.

    The output replaces the input (no outer skip). Positions start at 0 for a whole clip,
    and continue from the previous chunk when streaming.
    """

    def __init__(
        self,
        dim: int,
        n_layers: int,
        n_heads: int,
        head_dim: int,
        hidden: int,
        window: int,
        rope_base: float,
        eps: float,
    ):
        super().__init__()
        self.layers = nn.ModuleList(
            TransformerBlock(dim, n_heads, head_dim, hidden, window, eps) for _ in range(n_layers)
        )
        self.norm = RMSNorm(dim, eps)
        self.rotary = RotaryTable(head_dim, rope_base)

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, dim, 1, T] -> [B, dim, 1, T]`; with `state`, positions continue from the last chunk."""
        x = rows_of(x)
        start = 0 if state is None else state.get(self, 0)
        rope = self.rotary.get(start, x.shape[1], x.device)
        if state is not None:
            state[self] = start + x.shape[1]
        for layer in self.layers:
            x = layer(x, rope, state)
        return planes_of(self.norm(x))
