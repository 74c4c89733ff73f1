"""Block-FP8 weights: float8_e4m3fn values with one fp32 scale per 128×128 block.

Dequantised weight = fp8 × weight_scale_inv of its block (spec §2.1, MoE table).
"""

from __future__ import annotations

import torch


def dequantize_blocks(
    weight: torch.Tensor, scale_inv: torch.Tensor, block: tuple[int, int], dtype: torch.dtype
) -> torch.Tensor:
    """Expand block-FP8 weights to `dtype`.

    weight: [..., rows, cols] float8_e4m3fn; scale_inv: [..., ceil(rows/b0), ceil(cols/b1)]
    fp32; block: (b0, b1). Returns [..., rows, cols] in `dtype`, each element multiplied by its
    block's scale in fp32 before rounding. Partial edge blocks use their block's scale.
    """
    rows, cols = weight.shape[-2:]
    scale = scale_inv.float()
    scale = scale.repeat_interleave(block[0], dim=-2)[..., :rows, :]
    scale = scale.repeat_interleave(block[1], dim=-1)[..., :cols]
    return (weight.float() * scale).to(dtype)
