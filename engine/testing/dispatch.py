"""Counting what a piece of torch code dispatches: aten operations and host synchronisations.

`OpCounter` is a `TorchDispatchMode`: every aten operation dispatched while it is active is
counted by name. Host synchronisations are the operations whose result the host must wait for
on an accelerator: scalar reads (`_local_scalar_dense`, behind `.item()`, `int()`, `bool()`),
operations with data-dependent output sizes (`nonzero`, `unique`, `masked_select`), and copies
from an accelerator to the CPU.
"""

from __future__ import annotations

from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode

SYNC_OPS = (
    "_local_scalar_dense",
    "nonzero",
    "_unique",
    "_unique2",
    "unique_dim",
    "unique_consecutive",
    "masked_select",
    "is_nonzero",
    "equal",
)


class OpCounter(TorchDispatchMode):
    """Counts aten operations by their overload packet name (e.g. `mm`, `_local_scalar_dense`).

    Use as a context manager: `with OpCounter() as ops: ...`; then `ops.total` (all operations),
    `ops.syncs` (host synchronisations, see the module docstring) and `ops.counts` (a Counter).
    """

    def __init__(self):
        super().__init__()
        self.counts: Counter[str] = Counter()
        self.device_to_host = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        self.counts[name] += 1
        if name in ("_to_copy", "copy_") and _is_device_to_host(func, args, kwargs):
            self.device_to_host += 1
        return func(*args, **kwargs)

    @property
    def total(self) -> int:
        """Every aten operation dispatched."""
        return sum(self.counts.values())

    @property
    def syncs(self) -> int:
        """Host synchronisations: scalar reads, data-dependent sizes, accelerator-to-CPU copies."""
        return sum(self.counts[name] for name in SYNC_OPS) + self.device_to_host


def _is_device_to_host(func, args, kwargs) -> bool:
    if func.overloadpacket.__name__ == "copy_":
        destination, source = args[0], args[1]
        return destination.device.type == "cpu" and source.device.type != "cpu"
    source, device = args[0], kwargs.get("device")
    return device is not None and torch.device(device).type == "cpu" and source.device.type != "cpu"
