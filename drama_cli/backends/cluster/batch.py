"""`ClusterBatch`: the `StreamBatch` of a cluster render. Each stream (a unit: one take's
request, or a scene group) goes to the worker slot with the most room (`WorkerPool.free`);
each worker voices up to its `streams` at once with its backend's own batch and answers each
`pump` call with the first stream that finishes, so results come back as each finishes. The
driver stores every take itself, so a unit whose worker died is simply sent again: nothing
is stored twice and nothing is lost.

Faults: a worker that dies (killed, out of memory, node lost: Ray's RayActorError), or whose
call raised something other than an EngineError, is replaced and the units it had in hand are
sent again, first in line, to another worker when there is one. A unit that failed on `tries`
workers comes back with an EngineError saying so (the render reports its line as failed). A
worker's EngineError is the engine refusing the request: it comes back at once, as from any
backend.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from drama_cli.backends.base import FailedAttempt, FrameCallback, GenerationRequest, StreamDone
from drama_cli.backends.cluster.clips import ClipShipper
from drama_cli.backends.cluster.pool import WorkerPool
from drama_cli.backends.cluster.slot import Slot
from drama_cli.errors import RenderError
from engine import EngineError

WAIT_S = 0.2  # longest single wait for results, so that Ctrl-C is seen at once


@dataclass
class Unit:
    """One stream: the backend method to call, its request and extra arguments, and where it
    has failed so far."""

    method: str
    request: GenerationRequest
    args: tuple[object, ...] = ()
    failed_on: set[int] = field(default_factory=set)  # slot numbers
    problems: list[str] = field(default_factory=list)


class ClusterBatch:
    """A `StreamBatch` over a `WorkerPool` (see the module docstring). size: streams in
    flight at once (more wait here for room on a worker). tries: workers a unit may fail on
    before it is given up. on_frames is never called (no frame progress across the network)."""

    def __init__(
        self,
        pool: WorkerPool,
        size: int,
        shipper: ClipShipper | None = None,
        tries: int | None = None,
    ):
        self.pool, self.size = pool, size
        self.shipper = shipper or ClipShipper()
        self.tries = tries or max(2, len(pool.slots))
        self._units: dict[int, Unit] = {}
        self._waiting: deque[int] = deque()
        self._pumps: dict = {}  # object ref of a pump call -> its slot
        self._ready: deque[StreamDone] = deque()  # units refused or given up, to hand back

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int:
        return self.submit_unit(Unit("generate", request))

    def submit_unit(self, unit: Unit) -> int:
        """Queue a unit (a `generate` request or a `generate_scene` group); returns its ticket."""
        ticket = self.pool.next_ticket()
        self._units[ticket] = unit
        self._waiting.append(ticket)
        return ticket

    def active(self) -> int:
        return len(self._units)

    def next_done(self) -> StreamDone:
        """The next unit that finishes, or that failed on `tries` workers (with an
        EngineError). Raises LookupError when none is active, RenderError when every worker
        slot is gone."""
        import ray  # optional: ray (the cluster extra), which connect() found installed

        if not self._units:
            raise LookupError("no stream is active")
        while True:
            self._dispatch()
            if self._ready:
                return self._ready.popleft()
            if not self._pumps:
                raise RenderError("the cluster has no workers left for this render")
            ready, _ = ray.wait(list(self._pumps), num_returns=1, timeout=WAIT_S)
            if ready:
                done = self._collect(ready[0])
                if done is not None:
                    return done

    def _dispatch(self) -> None:
        """Give waiting units to slots with room, then call every slot that has units in
        hand and no call in flight."""
        while self._waiting:
            slot = self.pool.free(self._units[self._waiting[0]].failed_on)
            if slot is None:
                break
            slot.outbox.append(self._waiting.popleft())
        for slot in self.pool.slots:
            if slot.actor is not None and slot.pump is None and slot.busy:
                self._pump(slot)

    def _pump(self, slot: Slot) -> None:
        units = []
        for ticket in slot.outbox:
            unit = self._units[ticket]
            try:
                clips = self.shipper.clips(unit.request)
            except EngineError as err:
                self._units.pop(ticket)
                self._ready.append(StreamDone(ticket, error=err))
                continue
            units.append((ticket, unit.method, unit.request, clips, unit.args))
            slot.sent[ticket] = time.perf_counter()
        slot.outbox = []
        if slot.sent:
            slot.pump = slot.actor.pump.remote(units, slot.streams)
            self._pumps[slot.pump] = slot

    def _collect(self, ref) -> StreamDone | None:
        """The unit a finished call returned, or None when there is nothing to hand back."""
        import ray  # optional: ray (the cluster extra), which connect() found installed
        from ray.exceptions import RayActorError, RayError

        slot = self._pumps.pop(ref)
        slot.pump = None
        try:
            ticket, status, result, seconds, notices = ray.get(ref)
        except RayActorError as err:
            self._lost(slot, f"worker {slot.number} on {slot.node} died: {_first(err)}")
            return None
        except RayError as err:
            self._lost(slot, f"worker {slot.number} on {slot.node}: {_first(err)}")
            return None
        sent = slot.sent.pop(ticket, None)
        if sent is None or ticket not in self._units:
            return None  # a stream of a batch closed before (never one of this batch)
        self.pool.tell(slot, notices)
        slot.units, slot.busy_s = slot.units + 1, slot.busy_s + seconds
        slot.wall_s += time.perf_counter() - sent
        self._units.pop(ticket)
        if status == "refused":
            return StreamDone(ticket, error=EngineError(result))
        if status == "failed":  # a try that failed on the way: the render may repeat it
            return StreamDone(ticket, error=FailedAttempt(result))
        for generation in result if isinstance(result, list) else [result]:
            if generation is not None:  # (a scene group that did not split is None)
                generation.info["node"] = slot.node  # the machine that voiced it, for the record
        return StreamDone(ticket, result)

    def _lost(self, slot: Slot, problem: str) -> None:
        """Replace the slot's worker and send the units it had in hand again, first in line;
        units that failed on `tries` workers are given up (an EngineError each)."""
        sent, outbox = list(slot.sent), list(slot.outbox)
        self.pool.replace(slot)
        slot.failures += len(sent)
        self._waiting.extendleft(reversed([*sent, *outbox]))
        for ticket in sent:
            unit = self._units[ticket]
            unit.failed_on.add(slot.number)
            unit.problems.append(problem)
            if len(unit.problems) >= self.tries:
                self._waiting.remove(ticket)
                self._units.pop(ticket)
                self._ready.append(
                    StreamDone(
                        ticket,
                        error=EngineError(
                            f"failed on {len(unit.problems)} workers; last: {problem}"
                        ),
                    )
                )

    def close(self) -> None:
        """Drop the units not handed back yet: each worker that had some in hand drops them
        after its current call (the backend's `close` stops the workers themselves)."""
        for slot in self.pool.slots:
            if slot.busy and slot.actor is not None:
                try:
                    slot.actor.reset.remote()
                except Exception:  # the worker is gone
                    pass
            slot.clear()
        self._pumps.clear()
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
