"""`ClusterBatch`: the `StreamBatch` of a cluster render. Each stream (a unit: one take's
request, or a scene group) goes to an idle worker of the pool; results come back as each
finishes. The driver stores every take itself, so a unit whose worker died is simply sent
again: nothing is stored twice and nothing is lost.

Faults: a worker that dies (killed, out of memory, node lost: Ray's RayActorError) is
replaced and its unit retried on another worker first; so is a unit whose worker raised
something other than an EngineError. A unit that failed on `tries` workers comes back with an
EngineError saying so (the render reports its line as failed). A worker's EngineError is the
engine refusing the request: it comes back at once, as from any backend.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from drama_cli.backends.base import FrameCallback, GenerationRequest, StreamDone
from drama_cli.backends.cluster.clips import files_to_ship, read_clip
from drama_cli.backends.cluster.pool import Slot, WorkerPool
from drama_cli.errors import RenderError
from engine.errors import EngineError

WAIT_S = 0.2  # longest single wait for results, so that Ctrl-C is seen at once


@dataclass
class Unit:
    """One stream: the backend method to call, its request and extra arguments, and where it
    has failed so far."""

    method: str
    request: GenerationRequest
    args: tuple = ()
    failed_on: set = field(default_factory=set)  # slot numbers
    problems: list = field(default_factory=list)


class ClipShipper:
    """Puts each reference file's bytes in Ray's object store once per render, so that a
    worker fetches each clip at most once."""

    def __init__(self):
        self._sent: dict[str, tuple] = {}  # path -> (sha256, object ref)

    def clips(self, request: GenerationRequest) -> dict:
        """path -> (sha256, object ref) for every clip of `request` given only as a file.
        Raises EngineError for a file that cannot be read."""
        import ray

        for path in files_to_ship(request):
            if path not in self._sent:
                try:
                    digest, data = read_clip(path)
                except OSError as err:
                    raise EngineError(f"cannot read the clip {path}: {err.strerror or err}") from None
                self._sent[path] = (digest, ray.put(data))
        return {path: self._sent[path] for path in files_to_ship(request)}


class ClusterBatch:
    """A `StreamBatch` over a `WorkerPool` (see the module docstring). size: streams in
    flight at once (more wait here for a worker). tries: workers a unit may fail on before
    it is given up. on_frames is never called (no frame progress across the network)."""

    def __init__(self, pool: WorkerPool, size: int, shipper: ClipShipper | None = None,
                 tries: int | None = None):
        self.pool, self.size = pool, size
        self.shipper = shipper or ClipShipper()
        self.tries = tries or max(2, len(pool.slots))
        self._units: dict[int, Unit] = {}
        self._waiting: deque[int] = deque()
        self._running: dict = {}  # object ref -> (ticket, slot, sent at)
        self._ready: deque[StreamDone] = deque()  # units refused before they were sent
        self._tickets = 0

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int:
        return self.submit_unit(Unit("generate", request))

    def submit_unit(self, unit: Unit) -> int:
        """Queue a unit (any backend method the worker runs); returns its ticket."""
        self._tickets += 1
        self._units[self._tickets] = unit
        self._waiting.append(self._tickets)
        return self._tickets

    def active(self) -> int:
        return len(self._units)

    def next_done(self) -> StreamDone:
        """The next unit that finishes, or that failed on `tries` workers (with an
        EngineError). Raises LookupError when none is active, RenderError when every worker
        slot is gone."""
        import ray

        if not self._units:
            raise LookupError("no stream is active")
        while True:
            self._dispatch()
            if self._ready:
                return self._ready.popleft()
            if not self._running:
                raise RenderError("the cluster has no workers left for this render")
            ready, _ = ray.wait(list(self._running), num_returns=1, timeout=WAIT_S)
            if ready:
                done = self._collect(ready[0])
                if done is not None:
                    return done

    def _dispatch(self) -> None:
        while self._waiting:
            unit = self._units[self._waiting[0]]
            slot = self.pool.idle(unit.failed_on)
            if slot is None:
                return
            ticket = self._waiting.popleft()
            try:
                clips = self.shipper.clips(unit.request)
            except EngineError as err:
                self._units.pop(ticket)
                self._ready.append(StreamDone(ticket, error=err))
                continue
            ref = slot.actor.call.remote(unit.method, unit.request, clips, *unit.args)
            slot.busy = True
            self._running[ref] = (ticket, slot, time.perf_counter())

    def _collect(self, ref) -> StreamDone | None:
        """The result of a finished call, or None when its unit was sent again."""
        import ray
        from ray.exceptions import RayActorError, RayError

        ticket, slot, sent = self._running.pop(ref)
        slot.busy = False
        try:
            status, result, seconds, notices = ray.get(ref)
        except RayActorError as err:
            self.pool.replace(slot)
            return self._retry(ticket, slot, f"worker {slot.number} on {slot.node} died: {_first(err)}")
        except RayError as err:
            return self._retry(ticket, slot, f"worker {slot.number} on {slot.node}: {_first(err)}")
        self.pool.tell(slot, notices)
        slot.units += 1
        slot.busy_s += seconds
        slot.wall_s += time.perf_counter() - sent
        self._units.pop(ticket)
        if status == "refused":
            return StreamDone(ticket, error=EngineError(result))
        for generation in result if isinstance(result, list) else [result]:
            if generation is not None:  # (a scene group that did not split is None)
                generation.info["node"] = slot.node  # the machine that voiced it, for the record
        return StreamDone(ticket, result)

    def _retry(self, ticket: int, slot: Slot, problem: str) -> StreamDone | None:
        """Send a unit that failed on `slot` again, first in line; give it up (an EngineError)
        once it failed on `tries` workers."""
        unit = self._units[ticket]
        slot.failures += 1
        unit.failed_on.add(slot.number)
        unit.problems.append(problem)
        if len(unit.problems) >= self.tries:
            self._units.pop(ticket)
            return StreamDone(ticket, error=EngineError(
                f"failed on {len(unit.problems)} workers; last: {unit.problems[-1]}"))
        self._waiting.appendleft(ticket)
        return None

    def close(self) -> None:
        """Cancel the units in flight (their workers stop them or finish unheard) and drop
        the rest."""
        import ray

        for ref in self._running:
            try:
                ray.cancel(ref)
            except Exception:  # the worker is gone or the call already ended
                pass
        for _, slot, _ in self._running.values():
            slot.busy = False
        self._running.clear()
        self._waiting.clear()
        self._ready.clear()
        self._units.clear()


def _first(err: BaseException) -> str:
    """What went wrong, in one line: the worker's own exception (`Type: message`) when Ray
    carried one back, else the first line of Ray's message."""
    cause = getattr(err, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {_first(cause)}"
    return (str(err).strip().splitlines() or [type(err).__name__])[0]
