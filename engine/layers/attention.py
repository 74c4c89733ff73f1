"""Gated full attention of the Qwen3.5 backbone (docs/internals/model.md §3.2, "Gated full attention"); its KV
cache is `engine.layers.kv_cache.KVCache`, shared with the tower.

q_proj gives, per head, 256 query rows then 256 gate rows; q and k get zero-centred per-head
RMSNorms and partial rotate-half RoPE; causal GQA (query head h reads kv head h // group);
the output is multiplied by sigmoid(gate) before o_proj.
"""

from __future__ import annotations

import torch
from torch import nn

from engine.kernels.cpu_linear import PackedWeights
from engine.layers.kv_cache import KVCache, causal_attention
from engine.layers.norms import ZeroCentredRMSNorm
from engine.layers.rope import apply_rotate_half_rope


def causal_gqa_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float
) -> torch.Tensor:
    """Causal grouped-query attention of N new rows over T cached rows (the last N are the new),
    for one stream: `causal_attention` without the batch axis.

    q: [N, heads, head_dim]; k, v: [kv_heads, T, head_dim]. Returns [N, heads, head_dim].
    Row i of q sits at position T − N + i and sees keys 0..T − N + i. Softmax in fp32 (SDPA).
    """
    out = causal_attention(q.transpose(0, 1)[None], k[None], v[None], scale)
    return out[0].transpose(0, 1)


class GatedAttention(PackedWeights, nn.Module):
    """One gated full-attention layer (Qwen3.5 `self_attn`), weights as in docs/internals/model.md §2.1.

    weights: `q_proj.weight` [2·H·hd, D] (per head [q; gate]), `k_proj.weight`, `v_proj.weight`
    [Hkv·hd, D], `o_proj.weight` [D, H·hd], `q_norm.weight`, `k_norm.weight` [hd].
    forward(x [N, D], rope (cos, sin) [N, rotary/2], cache: KVCache or StaticKVCache) → [N, D].
    """

    PACKED = ("q_proj", "k_proj", "v_proj", "o_proj")

    def __init__(
        self, weights: dict[str, torch.Tensor], heads: int, kv_heads: int, head_dim: int, eps: float
    ):
        super().__init__()
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            self.register_buffer(name, weights[f"{name}.weight"])
        self.q_norm = ZeroCentredRMSNorm(weights["q_norm.weight"], eps)
        self.k_norm = ZeroCentredRMSNorm(weights["k_norm.weight"], eps)
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim

    def new_cache(self, capacity: int = 256) -> KVCache:
        """An empty KV cache for one stream, room for `capacity` rows before it grows."""
        return KVCache(capacity)

    def forward(
        self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor], cache: KVCache
    ) -> torch.Tensor:
        """x `[N, D]` -> `[N, D]` in x's dtype; appends the rows' keys and values to `cache`."""
        n = x.shape[0]
        query, gate = (
            self.dense(x, "q_proj").view(n, self.heads, 2 * self.head_dim).chunk(2, dim=-1)
        )
        key = self.dense(x, "k_proj").view(n, self.kv_heads, self.head_dim)
        value = self.dense(x, "v_proj").view(n, self.kv_heads, self.head_dim)
        query = apply_rotate_half_rope(self.q_norm(query), *rope)
        key = apply_rotate_half_rope(self.k_norm(key), *rope)
        out = cache.attend(
            query.transpose(0, 1)[None],
            key.transpose(0, 1)[None],
            value.transpose(0, 1)[None],
            self.head_dim**-0.5,
        )[0].transpose(0, 1)
        out = out * torch.sigmoid(gate)
        return self.dense(out.reshape(n, -1), "o_proj")
