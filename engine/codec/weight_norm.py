"""Weight norm as `codec.pth` stores it, and its folding into plain conv weights (docs/internals/codec.md §1.2, §1.7).

W = g * v / ||v||, the norm taken over every dim but 0, no epsilon. The checkpoint stores
(g, v) in two key styles: `<conv>.parametrizations.weight.original0/1` (the encoder and
decoder convs) and `<conv>.weight_g/.weight_v` (the quantizer projections). Our modules hold
the folded `<conv>.weight`; the inner conv's `weight_norm_style` names the file's style.
"""

from __future__ import annotations

import re

import torch
from torch import Tensor, nn

STYLES = {
    "parametrizations": (
        ".parametrizations.weight.original0",
        ".parametrizations.weight.original1",
    ),
    "legacy": (".weight_g", ".weight_v"),
}
_PAIR_KEY = re.compile(
    r"^(?P<module>.+?)(?:\.parametrizations\.weight\.original(?P<new>[01])"
    r"|\.weight_(?P<old>[gv]))$"
)


def weight_normed_modules(model: nn.Module) -> dict[str, str]:
    """Names of the weight-normed convs of `model` -> their checkpoint key style."""
    return {
        name: module.weight_norm_style
        for name, module in model.named_modules()
        if getattr(module, "weight_norm_style", None)
    }


def checkpoint_shapes(model: nn.Module) -> dict[str, tuple[int, ...]]:
    """Every key of a checkpoint for `model`, in the file's own style, with its shape."""
    normed = weight_normed_modules(model)
    shapes = {}
    for key, tensor in model.state_dict().items():
        module, _, leaf = key.rpartition(".")
        if leaf == "weight" and module in normed:
            g_suffix, v_suffix = STYLES[normed[module]]
            shapes[module + g_suffix] = (tensor.shape[0],) + (1,) * (tensor.dim() - 1)
            shapes[module + v_suffix] = tuple(tensor.shape)
        else:
            shapes[key] = tuple(tensor.shape)
    return shapes


def canonical_key(key: str, normed: dict[str, str]) -> str:
    """Rewrite a weight-norm key of either style into the style `normed` expects for its module."""
    match = _PAIR_KEY.match(key)
    if not match or match["module"] not in normed:
        return key
    is_g = match["new"] == "0" or match["old"] == "g"
    g_suffix, v_suffix = STYLES[normed[match["module"]]]
    return match["module"] + (g_suffix if is_g else v_suffix)


def fold(state: dict[str, Tensor], normed: dict[str, str]) -> dict[str, Tensor]:
    """Replace each (g, v) pair of `state` (canonical keys) by the folded `<module>.weight`."""
    folded = dict(state)
    for module, style in normed.items():
        g_suffix, v_suffix = STYLES[style]
        g = folded.pop(module + g_suffix)
        v = folded.pop(module + v_suffix)
        folded[module + ".weight"] = torch._weight_norm(v.float(), g.float(), 0)
    return folded


def unfold(state: dict[str, Tensor], normed: dict[str, str]) -> dict[str, Tensor]:
    """Inverse of `fold`: split each `<module>.weight` into g = ||w|| and v = w (file style)."""
    unfolded = dict(state)
    for module, style in normed.items():
        weight = unfolded.pop(module + ".weight")
        g_suffix, v_suffix = STYLES[style]
        dims = tuple(range(1, weight.dim()))
        unfolded[module + g_suffix] = weight.norm(dim=dims, keepdim=True)
        unfolded[module + v_suffix] = weight
    return unfolded
