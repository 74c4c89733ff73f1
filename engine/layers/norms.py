"""RMSNorm variants of Qwen3.5 and the Drama 3 tower (docs/internals/model.md §3, RMSNorm paragraph).

RMSNorm(x) = x / sqrt(mean(x²) + eps), always computed in fp32.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def rms_normalize(x: torch.Tensor, eps: float) -> torch.Tensor:
    """x / sqrt(mean(x², last dim) + eps) in fp32. x: [..., dim] any float dtype → fp32."""
    x = x.float()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


class ZeroCentredRMSNorm(nn.Module):
    """Zero-centred RMSNorm: RMSNorm(x) · (1 + w), the weight stored as an offset from one
    (`layernorm_zero_centered_gamma`).

    weight: [dim], any float dtype; it is the `weight` entry of the state dict, so a module built
    on the meta device can take its weight later from `load_state_dict(..., assign=True)`.
    forward(x [..., dim]) → [..., dim] in x's dtype, the fp32 scale 1 + w computed once (at
    construction and after each state-dict load). Used for every backbone and tower norm except
    the Gated DeltaNet output norm (docs/internals/model.md §2.1, §2.2).
    """

    def __init__(self, weight: torch.Tensor, eps: float):
        super().__init__()
        self.register_buffer("weight", weight)
        self.register_buffer("scale", 1.0 + weight.float(), persistent=False)
        self.eps = eps
        self.register_load_state_dict_post_hook(_refresh_scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """`[..., dim] -> [..., dim]` in x's dtype."""
        return (rms_normalize(x, self.eps) * self.scale).to(x.dtype)


def _refresh_scale(module: ZeroCentredRMSNorm, incompatible_keys) -> None:
    module.scale = 1.0 + module.weight.float()


class GatedRMSNorm(nn.Module):
    """Gated RMSNorm of the Gated DeltaNet output: w ⊙ RMSNorm(x) ⊙ silu(gate), plain weight.

    weight: [head_dim]. forward(x, gate: [..., head_dim]) → x's dtype. The normalised value is
    cast to x's dtype before the weight, and the gate is applied in fp32 (docs/internals/model.md §3.2 step 7).
    """

    def __init__(self, weight: torch.Tensor, eps: float):
        super().__init__()
        self.register_buffer("weight", weight)
        self.eps = eps

    def forward(self, x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
        """x, gate `[..., head_dim]` -> `[..., head_dim]` in x's dtype."""
        normed = self.weight * rms_normalize(x, self.eps).to(x.dtype)
        return (normed * F.silu(gate.float())).to(x.dtype)
