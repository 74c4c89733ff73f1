"""How many streams a batch may hold: slot bytes from the model's config and a byte budget
(docs/internals/engine.md "Memory budget").

A slot of `capacity` rows costs its KV rows (`Drama3Config.kv_bytes_per_frame`: every full
attention layer of the backbone and every tower layer, keys and values), its Gated DeltaNet
state (`Drama3Config.gdn_state_bytes`) and its small per-stream tensors (masks, positions,
last row and hidden state, RAS window, draw key). One slot's worth stays free for the stream
being prefilled while the batch decodes, so the batch never holds more than the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.errors import EngineError
from engine.offload.sizes import host_available_bytes

ROW_EXTRA_BYTES = 2  # the two visibility masks, one bool each per row
CPU_BUDGET_SHARE = 0.25  # of the memory the system reports free, when no budget is given
CUDA_BUDGET_SHARE = 0.8  # of the device memory free when the batch opens


@dataclass(frozen=True)
class BatchMemory:
    """The accounting of one batch.

    budget: bytes the batch may hold (slot storage plus one slot for a prefill in flight).
    kv_bytes_per_row: KV bytes one row of one stream adds (all layers, keys and values).
    state_bytes: bytes per stream that do not grow with rows (Gated DeltaNet states and the
        per-stream tensors). Raises EngineError for a budget or sizes below 1.
    """

    budget: int
    kv_bytes_per_row: int
    state_bytes: int

    def __post_init__(self) -> None:
        if self.budget < 1 or self.kv_bytes_per_row < 1 or self.state_bytes < 0:
            raise EngineError(f"a batch memory budget needs positive sizes; got {self}")

    @classmethod
    def for_model(cls, model, budget: int) -> BatchMemory:
        """The accounting of `model` (an `engine.generate.Drama3`) in its dtype, with `budget` bytes."""
        config, width = model.config, torch.finfo(model.dtype).bits // 8
        per_stream = (
            config.text.hidden_size * width
            + 11 * 8
            + 64 * 8  # hidden, row, RAS window and counters
            + config.gdn_state_bytes(width)
        )
        return cls(int(budget), config.kv_bytes_per_frame(width) + ROW_EXTRA_BYTES, per_stream)

    def slot_bytes(self, capacity: int) -> int:
        """Bytes of one slot of `capacity` rows."""
        return capacity * self.kv_bytes_per_row + self.state_bytes

    def slots(self, capacity: int, most: int) -> int:
        """How many slots of `capacity` rows the budget holds, at most `most`, one slot's worth
        kept for the prefill of a joining stream (0: not even one stream fits)."""
        return max(0, min(most, self.budget // self.slot_bytes(capacity) - 1))

    def held(self, slots: int, capacity: int) -> int:
        """Bytes `slots` slots of `capacity` rows hold, with the prefill reserve."""
        return (slots + 1) * self.slot_bytes(capacity)


def default_budget(device: torch.device) -> int:
    """Bytes a batch may use when none is given: 80 % of the CUDA device's free memory, or a
    quarter of the memory the system reports available on the CPU (1 GiB when unknown)."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free * CUDA_BUDGET_SHARE)
    available = host_available_bytes()
    return 1 << 30 if available is None else int(available * CPU_BUDGET_SHARE)


__all__ = ["BatchMemory", "default_budget"]
