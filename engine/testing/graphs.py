"""A stand-in for CUDA graph capture, so graph mode's bookkeeping (one graph per padded batch
size, one pool, recapture on new storage or settings) runs on the CPU: `replay_capture` has
the signature of `engine.graphs.capture_step` and returns a `ReplayedStep` whose `replay()`
runs the step on the tensors it was "captured" on, as a captured graph's replay does."""

from __future__ import annotations

from collections.abc import Callable

import torch


class ReplayedStep:
    """What a captured graph does: `replay()` runs the step again."""

    def __init__(self, step: Callable[[], None]):
        self.replay = step


def replay_capture(
    step: Callable[[], None], mutable: list[torch.Tensor], warmup: int = 2, pool=None
) -> ReplayedStep:
    """`engine.graphs.capture_step` without CUDA: nothing runs now (a real capture leaves the
    state as before too); `mutable` and `pool` are accepted and unused."""
    return ReplayedStep(step)


__all__ = ["ReplayedStep", "replay_capture"]
