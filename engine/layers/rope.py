"""Partial rotary position embeddings (RoPE): rotate-half (backbone) and interleaved (tower).

Only the first `rotary_dim` dims of each head rotate; the rest pass through. inv_freq_i =
theta^(−2i / rotary_dim) for i < rotary_dim / 2 (docs/internals/model.md §3.2 step 3, §3.4 step 3). Angles and the
rotation are computed in fp32.
"""

from __future__ import annotations

import torch


def rope_angles(
    positions: torch.Tensor, rotary_dim: int, theta: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of position × inv_freq. positions: [N] int (absolute row indices).

    Returns two fp32 tensors [N, rotary_dim / 2].
    """
    exponents = (
        torch.arange(0, rotary_dim, 2, dtype=torch.float32, device=positions.device) / rotary_dim
    )
    inv_freq = 1.0 / (theta**exponents)
    angles = positions.float()[:, None] * inv_freq[None, :]
    return angles.cos(), angles.sin()


def apply_rotate_half_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """NeoX (rotate-half) RoPE on the first 2·cos.shape[-1] dims: the pairs are (i, i + half).

    x: [N, heads, head_dim]; cos, sin: [N, half] fp32 (from `rope_angles`). Returns x's shape
    and dtype.
    """
    half = cos.shape[-1]
    rot = x[..., : 2 * half].float()
    first, second = rot[..., :half], rot[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    rotated = torch.cat((first * c - second * s, second * c + first * s), dim=-1)
    return torch.cat((rotated.to(x.dtype), x[..., 2 * half :]), dim=-1)


def apply_interleaved_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """GPT-J (interleaved) RoPE on the first 2·cos.shape[-1] dims: the pairs are (2i, 2i + 1).

    x: [N, heads, head_dim]; cos, sin: [N, half] fp32 (from `rope_angles`). Returns x's shape
    and dtype. The tower uses this form (docs/internals/model.md §3.4).
    """
    half = cos.shape[-1]
    pairs = x[..., : 2 * half].float().unflatten(-1, (half, 2))
    even, odd = pairs[..., 0], pairs[..., 1]
    c, s = cos[:, None, :], sin[:, None, :]
    rotated = torch.stack((even * c - odd * s, odd * c + even * s), dim=-1).flatten(-2)
    return torch.cat((rotated.to(x.dtype), x[..., 2 * half :]), dim=-1)
