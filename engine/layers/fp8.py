"""Block-FP8 weights: float8_e4m3fn values with one fp32 scale per 128×128 block.

Dequantised weight = fp8 × weight_scale_inv of its block (docs/internals/model.md §2.1, MoE table).

On CPU, torch converts float8 element by element; moving the e4m3 bits into an fp16 bit
pattern is exact and vectorised: sign to bit 15, exponent and mantissa to bits 7..13. The fp16
read of those bits is the e4m3 value × 2^−8 (fp16's exponent bias is 15, e4m3's is 7), for
normal and subnormal values alike, so 2^8 is folded into the block scale. Under torch.compile
the same idea with float32 bits (bits 20..27, read as the value × 2^−120) compiles to the
fastest CPU code; eagerly, the fp16 form moves fewer bytes.
"""

from __future__ import annotations

import torch

_FP16_FROM_E4M3 = 256.0  # 2^(15 − 7)
_CLEAR_BIT_14 = -16385  # int16 0xBFFF
_FP32_FROM_E4M3 = 2.0**120  # 2^(127 − 7)
_KEEP_SIGN_AND_LOW_BITS = -2014314496  # int32 0x87F00000: bit 31 and bits 20..26


def fp8_to_float(weight: torch.Tensor) -> torch.Tensor:
    """Exact float32 values of a float8_e4m3fn tensor (any shape); vectorised on CPU."""
    if weight.device.type != "cpu":
        return weight.float()
    return _scaled_half(weight).float() * _FP16_FROM_E4M3


def _scaled_half(weight: torch.Tensor) -> torch.Tensor:
    """fp16 tensor equal to the e4m3 values × 2^−8 (NaN encodings are not expected in weights)."""
    bits = (weight.view(torch.int8).to(torch.int16) << 7) & _CLEAR_BIT_14
    return bits.view(torch.float16)


def _scaled_float(weight: torch.Tensor) -> torch.Tensor:
    """float32 tensor equal to the e4m3 values × 2^−120 (e4m3 subnormals become fp32 subnormals)."""
    bits = (weight.view(torch.int8).to(torch.int32) << 20) & _KEEP_SIGN_AND_LOW_BITS
    return bits.view(torch.float32)


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
    if weight.device.type != "cpu":
        values = weight
    elif torch.compiler.is_compiling():
        values, scale = _scaled_float(weight), scale * _FP32_FROM_E4M3
    else:
        values, scale = _scaled_half(weight), scale * _FP16_FROM_E4M3
    if rows % block[0] == 0 and cols % block[1] == 0:
        expanded = values.float()  # a fresh tensor: scaled in place, block by block
        grid = expanded.unflatten(-1, (cols // block[1], block[1])).unflatten(
            -3, (rows // block[0], block[0])
        )
        grid.mul_(scale[..., :, None, :, None])
        return expanded.to(dtype)
    scale = scale.repeat_interleave(block[0], dim=-2)[..., :rows, :]
    scale = scale.repeat_interleave(block[1], dim=-1)[..., :cols]
    return (values.float() * scale).to(dtype)
