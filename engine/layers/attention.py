"""Gated full attention of the Qwen3.5 backbone with its KV cache (spec §3.2, "Gated full
attention").

q_proj gives, per head, 256 query rows then 256 gate rows; q and k get zero-centred per-head
RMSNorms and partial rotate-half RoPE; causal GQA (query head h reads kv head h // group);
the output is multiplied by sigmoid(gate) before o_proj.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.layers.norms import ZeroCentredRMSNorm
from engine.layers.rope import apply_rotate_half_rope


class KVCache:
    """Keys and values of one attention layer for one stream, grown in place.

    Storage: k, v [kv_heads, capacity, head_dim]; `length` rows are valid. `append` returns the
    valid keys and values including the new rows.
    """

    def __init__(self, kv_heads: int, head_dim: int, device, dtype, capacity: int = 256):
        self.k = torch.empty(kv_heads, capacity, head_dim, device=device, dtype=dtype)
        self.v = torch.empty_like(self.k)
        self.length = 0

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Add rows k, v: [N, kv_heads, head_dim]; returns all valid (k, v) [kv_heads, T, head_dim]."""
        end = self.length + k.shape[0]
        if end > self.k.shape[1]:
            self._grow(max(end, 2 * self.k.shape[1]))
        self.k[:, self.length : end] = k.transpose(0, 1)
        self.v[:, self.length : end] = v.transpose(0, 1)
        self.length = end
        return self.k[:, :end], self.v[:, :end]

    def _grow(self, capacity: int) -> None:
        for name in ("k", "v"):
            old = getattr(self, name)
            new = old.new_empty(old.shape[0], capacity, old.shape[2])
            new[:, : self.length] = old[:, : self.length]
            setattr(self, name, new)

    def clone(self) -> "KVCache":
        """An independent copy of the valid rows (for prefix caches)."""
        copy = KVCache.__new__(KVCache)
        copy.k, copy.v, copy.length = self.k.clone(), self.v.clone(), self.length
        return copy


def causal_gqa_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float) -> torch.Tensor:
    """Causal grouped-query attention of N new rows over T cached rows (the last N are the new).

    q: [N, heads, head_dim]; k, v: [kv_heads, T, head_dim]. Returns [N, heads, head_dim].
    Row i of q sits at position T − N + i and sees keys 0..T − N + i. Softmax in fp32 (SDPA).
    """
    n, total = q.shape[0], k.shape[1]
    mask = None
    if 1 < n < total:
        rows = torch.arange(total - n, total, device=q.device)[:, None]
        mask = torch.arange(total, device=q.device)[None, :] <= rows
    out = F.scaled_dot_product_attention(
        q.transpose(0, 1)[None], k[None], v[None], attn_mask=mask,
        is_causal=(1 < n == total), scale=scale, enable_gqa=True,
    )
    return out[0].transpose(0, 1)


class GatedAttention(nn.Module):
    """One gated full-attention layer (Qwen3.5 `self_attn`), weights as in spec §2.1.

    weights: `q_proj.weight` [2·H·hd, D] (per head [q; gate]), `k_proj.weight`, `v_proj.weight`
    [Hkv·hd, D], `o_proj.weight` [D, H·hd], `q_norm.weight`, `k_norm.weight` [hd].
    forward(x [N, D], rope (cos, sin) [N, rotary/2], cache: KVCache) → [N, D].
    """

    def __init__(self, weights: dict[str, torch.Tensor], heads: int, kv_heads: int, head_dim: int, eps: float):
        super().__init__()
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            self.register_buffer(name, weights[f"{name}.weight"])
        self.q_norm = ZeroCentredRMSNorm(weights["q_norm.weight"], eps)
        self.k_norm = ZeroCentredRMSNorm(weights["k_norm.weight"], eps)
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim

    def new_cache(self, capacity: int = 256) -> KVCache:
        """An empty KV cache on this layer's device and dtype."""
        return KVCache(self.kv_heads, self.head_dim, self.k_proj.device, self.k_proj.dtype, capacity)

    def forward(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor], cache: KVCache) -> torch.Tensor:
        """x `[N, D]` -> `[N, D]` in x's dtype; appends the rows' keys and values to `cache`."""
        n = x.shape[0]
        query, gate = F.linear(x, self.q_proj).view(n, self.heads, 2 * self.head_dim).chunk(2, dim=-1)
        key = F.linear(x, self.k_proj).view(n, self.kv_heads, self.head_dim)
        value = F.linear(x, self.v_proj).view(n, self.kv_heads, self.head_dim)
        query = apply_rotate_half_rope(self.q_norm(query), *rope)
        key = apply_rotate_half_rope(self.k_norm(key), *rope)
        keys, values = cache.append(key, value)
        out = causal_gqa_attention(query, keys, values, self.head_dim**-0.5)
        out = out * torch.sigmoid(gate)
        return F.linear(out.reshape(n, -1), self.o_proj)
