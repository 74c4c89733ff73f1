"""Host-to-device copies of experts into pool slots.

On the CPU a copy is a plain `copy_` (the simulated device pool is a separate tensor pool).
On CUDA the copies go on a side stream shared by all layers: before the first copy of a batch
the side stream waits for the compute stream (a slot may still be read by queued kernels),
and before the compute stream reads the pool it waits for an event recorded after the
copies, so copies issued early (prefetch) overlap with the compute queued in between.
"""

from __future__ import annotations

import torch


class SlotCopier:
    """Copies one layer's experts from host tensors into slots of its device pool.

    device: the pool's device; stream: the CUDA side stream (None on the CPU).
    """

    def __init__(self, device: torch.device, stream=None):
        self.device = device
        self.stream = stream if device.type == "cuda" else None
        self._pending = False

    def copy(self, pool, slot: int, expert: dict[str, torch.Tensor]) -> None:
        """Queue the copy of `expert` (name → host tensor) into slot `slot` of `pool`."""
        if self.stream is None:
            for name, tensor in expert.items():
                getattr(pool, name)[slot].copy_(tensor)
            return
        if not self._pending:
            self.stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.stream):
            for name, tensor in expert.items():
                getattr(pool, name)[slot].copy_(tensor, non_blocking=True)
        self._pending = True

    def wait(self) -> None:
        """Make the compute stream wait until every copy queued so far has landed (no-op on
        the CPU, where copies are synchronous)."""
        if self.stream is None or not self._pending:
            return
        done = torch.cuda.Event()
        done.record(self.stream)
        torch.cuda.current_stream(self.device).wait_event(done)
        self._pending = False
