"""The drama3 backend's `StreamBatch`: render requests decoded together by the engine's batch
(`engine.batch.EngineBatch`), each result turned into a take as `Drama3Backend.generate` does.

The batch runs on the caller's thread: `next_done` steps the engine until a stream ends. A
request the engine refuses (a prompt too long, an unreadable clip, sampling settings out of
range) comes back from `next_done` with its EngineError, in turn with the others.
"""

from __future__ import annotations

import time
from collections import deque

from drama_cli.backends.base import (
    FrameCallback,
    GenerationRequest,
    StreamDone,
    every_few_frames,
)
from engine import EngineError


class EngineStreamBatch:
    """Up to `size` requests of `backend` (a `Drama3Backend`) decoded together; the
    `drama_cli.backends.base.StreamBatch` contract, at every size (one included). Each stream
    draws as `generate` would for its seed (the counter-based race keyed by it), so its take
    depends on the request only."""

    def __init__(self, backend, size: int):
        from engine import EngineBatch  # lazy: torch, 1 s at start-up

        self.backend, self.size = backend, size
        self._engine = EngineBatch(backend.model, size)
        self._tickets: dict[
            int, tuple[int, float]
        ] = {}  # engine ticket -> (ticket, perf_counter at submit)
        self._done: deque = (
            deque()
        )  # refused StreamDones and finished engine streams (`engine.batch.Finished`)
        self._count = 0

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int:
        """Queue `request` and return its ticket (see `StreamBatch`)."""
        self._count += 1
        started = time.perf_counter()
        try:
            conversation, params = self.backend.engine_request(request)
            take = self.backend.model.request(conversation, params, request.seed)
            inner = self._engine.submit(take, on_frame=every_few_frames(on_frames))
        except EngineError as err:
            self._done.append(StreamDone(self._count, error=err))
        else:
            self._tickets[inner] = (self._count, started)
        return self._count

    def active(self) -> int:
        """Streams submitted and not yet returned by `next_done`."""
        return sum(isinstance(done, StreamDone) for done in self._done) + len(self._tickets)

    def next_done(self) -> StreamDone:
        """The next stream to finish (refused ones first); raises LookupError when none is active.
        A finished stream becomes a take (its codes decoded) only when it is returned."""
        while not self._done:
            if not self._tickets:
                raise LookupError("no stream is active")
            for finished in self._engine.step():
                self._done.append(finished)
        done = self._done.popleft()
        if isinstance(done, StreamDone):
            return done
        ticket, started = self._tickets.pop(done.ticket)
        return StreamDone(ticket, self.backend.take(done.generation, started))

    def close(self) -> None:
        """Forget every stream not returned yet and free the batch's storage."""
        self._tickets.clear()
        self._done.clear()
        self._engine = None
