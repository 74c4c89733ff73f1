"""The decode step captured as CUDA graphs, one per padded batch size, sharing one memory pool
(docs/internals/engine.md "Graph mode").

`StepGraphs.run(stack)` replays the graph of `stack`'s size, capturing it on first use: warm-up
calls of the compiled step on a side stream, every tensor the step writes restored, then one
call captured. Graphs belong to one storage and one set of sampling settings; a step of new
storage (grown for a longer stream) or new settings drops them and captures afresh. When a
capture fails, a RuntimeWarning says why and the step runs uncompiled from then on.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch


def capture_step(step: Callable[[], None], mutable: list[torch.Tensor], warmup: int = 2, pool=None):
    """Capture one call of `step()` (a compiled step over fixed CUDA tensors) as a CUDA graph:
    `warmup` calls on a side stream finish compiling and tuning, every tensor in `mutable` (all
    the step writes) is restored, then one call is captured, so the state is as before and the
    graph's `replay()` runs the step. pool: a `torch.cuda.graph_pool_handle()` graphs share."""
    saved = [t.clone() for t in mutable]
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    try:
        with torch.cuda.stream(stream):
            for _ in range(warmup):
                step()
    finally:  # the state is as before even when a warm-up step fails
        torch.cuda.current_stream().wait_stream(stream)
        for target, value in zip(mutable, saved):
            target.copy_(value)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool):
        step()
    torch.cuda.synchronize()
    return graph


class StepGraphs:
    """Captured graphs of `runner` (the compiled step, called with a `engine.step.SlotStack`)
    per padded size. capture(step, mutable, pool) makes one graph (default `capture_step`;
    a stand-in lets the bookkeeping run without a GPU); pool() gives the memory pool the graphs
    share (default `torch.cuda.graph_pool_handle`). `failed` is True once a capture failed:
    then `run` calls `fallback(stack)`, the uncompiled step."""

    def __init__(self, runner, fallback, capture=capture_step, pool=None):
        self.runner, self.fallback, self.capture = runner, fallback, capture
        self._new_pool = pool or torch.cuda.graph_pool_handle
        self.pool = None
        self.graphs: dict[int, object] = {}
        self.owner: tuple | None = None  # (storage, settings) the graphs were captured on
        self.failed = False

    def run(self, stack) -> None:
        """One step of `stack` as its size's graph (captured now when new)."""
        if self.failed:
            self.fallback(stack)
            return
        if (
            self.owner is None
            or self.owner[0] is not stack.storage
            or self.owner[1] != stack.settings
        ):
            self.graphs, self.owner = {}, (stack.storage, stack.settings)
        graph = self.graphs.get(stack.size)
        if graph is None:
            try:
                self.pool = self.pool or self._new_pool()
                graph = self.capture(
                    lambda: self.runner(stack), stack.storage.tensors(), pool=self.pool
                )
            except (
                Exception
            ) as error:  # a GPU or torch build the capture has not met: keep decoding
                warnings.warn(
                    f"capturing the decode step failed ({type(error).__name__}: {error}); "
                    "decoding with the uncompiled step from now on",
                    RuntimeWarning,
                    stacklevel=2,
                )
                self.failed = True
                self.fallback(stack)
                return
            self.graphs[stack.size] = graph
        graph.replay()


__all__ = ["StepGraphs", "capture_step"]
