"""Float32 products on the CPU over weights packed once for oneDNN (docs/internals/engine.md "Dense
products on the CPU").

`F.linear` in float32 on the CPU calls MKL's sgemm, which runs a product of 2 to 16 rows at
about half the speed per weight byte of a one-row product on the machines measured; oneDNN's
matmul over a weight reordered once into its blocked layout keeps a few rows' product near the
one-row cost (`bench/cpu_linear.py` prints both). PyTorch reaches that path only through the two
ops its compiler emits for frozen CPU graphs, `torch.ops.mkldnn._reorder_linear_weight` and
`torch.ops.mkldnn._linear_pointwise`, so `packing_works` tries them once against `F.linear`;
without them (another build, another platform) every product stays with `F.linear`.

A packed weight is an opaque tensor (layout `torch._mkldnn`, same element count, float32). It
serves eager products only: inside a compiled graph `linear` reads the plain weight.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

SELF_TEST_TOLERANCE = 1e-5  # absolute and relative, on products of magnitude about 1


@functools.cache
def packing_works() -> bool:
    """True when this torch build packs weights for oneDNN and its product agrees with
    `F.linear` on a small float32 case (checked once per process)."""
    weight = torch.linspace(-1.0, 1.0, 96 * 64).reshape(96, 64)
    rows = torch.linspace(1.0, -1.0, 3 * 64).reshape(3, 64)
    try:
        got = packed_linear(rows, torch.ops.mkldnn._reorder_linear_weight(weight))
    except (AttributeError, RuntimeError, NotImplementedError):
        return False
    return torch.allclose(
        got, F.linear(rows, weight), rtol=SELF_TEST_TOLERANCE, atol=SELF_TEST_TOLERANCE
    )


def packable(weight: torch.Tensor) -> bool:
    """True when `weight` is a float32 CPU matrix and packing works in this build."""
    return (
        weight.dim() == 2
        and weight.dtype == torch.float32
        and weight.device.type == "cpu"
        and packing_works()
    )


def pack(weight: torch.Tensor) -> torch.Tensor | None:
    """A packed copy of `weight` `[out, in]` for `packed_linear`, or None when it is not
    `packable`."""
    return (
        torch.ops.mkldnn._reorder_linear_weight(weight.contiguous()) if packable(weight) else None
    )


def packed_linear(x: torch.Tensor, packed: torch.Tensor) -> torch.Tensor:
    """`x @ weight.T` for x `[..., in]` float32 and `packed` from `pack`: `[..., out]` float32."""
    return torch.ops.mkldnn._linear_pointwise(x, packed, None, "none", [], "")


def packed_or_plain(weight: torch.Tensor) -> torch.Tensor:
    """`pack(weight)` where packing applies, else `weight` itself (for `product`)."""
    packed = pack(weight)
    return weight if packed is None else packed


def product(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """`x @ weight.T` for a weight that is either plain `[out, in]` or packed (`pack`)."""
    return packed_linear(x, weight) if weight.is_mkldnn else F.linear(x, weight)


class PackedLinear(nn.Module):
    """A bias-free `nn.Linear` whose eager products read a packed copy of its weight.

    weight: `[out, in]`, kept as the parameter `weight` (the state dict is an `nn.Linear`'s);
    packed: its `pack`, held outside the state dict.
    """

    def __init__(self, weight: torch.Tensor, packed: torch.Tensor):
        super().__init__()
        self.weight = nn.Parameter(weight, requires_grad=False)
        self.packed = packed

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x `[..., in]` -> `[..., out]`."""
        if torch.compiler.is_compiling():  # before reading `packed`: a graph must not hold it
            return F.linear(x, self.weight)
        return packed_linear(x, self.packed)


class PackedWeights:
    """Mixin for a module whose products read weight tensors held as attributes: `dense(x,
    name)` is `F.linear(x, getattr(self, name))`, through a packed copy once `pack_weights` made
    one and the call runs eagerly. `PACKED` names the weights its products read."""

    PACKED: tuple[str, ...] = ()
    packed: dict[str, torch.Tensor] | None = None

    def pack_weights(self, take: Callable[[int], bool]) -> int:
        """Pack the weights `PACKED` names while `take(bytes)` grants their bytes; returns how
        many were packed."""
        count = 0
        for name in self.PACKED:
            weight = getattr(self, name)
            if name in (self.packed or {}) or not packable(weight):
                continue
            if take(weight.numel() * weight.element_size()):
                self.packed = {**(self.packed or {}), name: pack(weight)}
                count += 1
        return count

    def dense(self, x: torch.Tensor, name: str) -> torch.Tensor:
        """`x @ weight.T` for the weight attribute `name`: x `[..., in]` -> `[..., out]`."""
        if torch.compiler.is_compiling() or not self.packed or name not in self.packed:
            return F.linear(x, getattr(self, name))
        return packed_linear(x, self.packed[name])


def pack_linears(root: nn.Module, take: Callable[[int], bool]) -> int:
    """Replace each bias-free float32 CPU `nn.Linear` under `root` by a `PackedLinear`, while
    `take(bytes)` grants the packed copy's bytes (largest weights first, since they gain the
    most). Returns how many were packed."""
    found = [
        (name, module)
        for name, module in root.named_modules()
        if type(module) is nn.Linear and module.bias is None
    ]
    found.sort(key=lambda item: -item[1].weight.numel())
    packed_count = 0
    for name, module in found:
        weight = module.weight.detach()
        if not packable(weight) or not take(weight.numel() * weight.element_size()):
            continue
        parent_name, _, child = name.rpartition(".")
        setattr(root.get_submodule(parent_name), child, PackedLinear(weight, pack(weight)))
        packed_count += 1
    return packed_count


__all__ = [
    "PackedLinear",
    "PackedWeights",
    "pack",
    "pack_linears",
    "packable",
    "packed_linear",
    "packed_or_plain",
    "packing_works",
    "product",
]
