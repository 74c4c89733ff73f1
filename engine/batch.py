"""The decode loop: every take, alone or with others, is a stream of one `EngineBatch`
(docs/internals/engine.md "The decode loop").

    batch = EngineBatch(model, size=8)
    ticket = batch.submit(request)                         # an engine.take.TakeRequest
    for done in batch.run():                               # as each stream ends
        done.ticket, done.generation                       # an engine.take.Generation

Streams wait in submission order. The first waiting stream joins when a slot is free and the
memory budget allows (`engine.batch_memory`): its prompt is prefilled through the model's
prefix cache in chunks, at most 256 rows between two decode steps of the live streams (so
several short prompts may join in one step), then copied into a free slot. Each step decodes
one frame for every live stream (`engine.step.decode_step`); a stream leaves at EOS, at its
frame budget or at a separator (when asked), and the last slot moves into its place. Every
stream keeps its own positions, caches, RAS window and counter-based draws keyed by its own
seed, so its codes do not depend on the other streams. Streams with other sampling settings
wait until the batch is empty.

Two modes. `eager` runs the live slots only, attending over the rows some stream has reached.
`graph` (CUDA) pads to 1, 2, 4, … slots and replays the compiled step as a CUDA graph per
padded size (`engine.graphs`). The host reads each step's rows once: on CUDA a step late,
through pinned memory, while the device runs the next step; on the CPU at once.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from engine.batch_memory import BatchMemory, default_budget
from engine.errors import EngineError
from engine.frame_rules import FrameRules
from engine.graphs import StepGraphs, capture_step
from engine.step import BatchSettings, SlotStorage, decode_step, static_capacity
from engine.take import Generation, PhaseClock, TakeRequest

FrameProgress = Callable[[int, int], None]  # (frames decoded so far, frame budget)
FrameCodes = Callable[[torch.Tensor], None]  # codes `[10]` int64 of each kept frame, in order
PREFILL_ROWS_PER_STEP = 256  # prompt rows prefilled between two decode steps (one chunk's worth)
SPAN_STEP = 128  # an eager step attends over whole multiples of this many rows
MODES = ("eager", "graph")

RECOMPILE_LIMIT = 64  # compiled variants of the step kept per process


def padded_size(live: int, slots: int) -> int:
    """The step size for `live` streams: the next power of two, at most `slots`."""
    size = 1
    while size < live:
        size *= 2
    return min(size, slots)


@dataclass
class Finished:
    """A stream that ended: the ticket `submit` gave it and its `Generation`."""

    ticket: int
    generation: Generation


@dataclass
class _Stream:
    ticket: int
    request: TakeRequest
    settings: BatchSettings
    on_frame: FrameProgress | None
    on_codes: FrameCodes | None
    rules: FrameRules | None = None
    launched: int = 0  # steps run for it
    frames: int = 0  # frames the host has read
    done: bool = False
    started: float = field(default_factory=time.perf_counter)

    @property
    def rows(self) -> int:
        return self.request.slot_rows


class EngineBatch:
    """Up to `size` streams of one `engine.generate.Drama3` decoded together (one for a take
    alone).

    budget: bytes the batch's slot storage may hold (default `default_budget`); min_rows: the
    smallest slot capacity in rows; mode: `eager` or `graph` (default the model's
    `decode_mode`); timed: keep a `PhaseClock` of prefill and decode seconds, which each
    finished take carries as `phase_s`. The storage is made on the first step, sized for the
    streams waiting then, and grows (with copies of the live slots) when a longer stream
    arrives; it never holds more than the budget. Raises EngineError for an unknown mode or
    `graph` off CUDA. Not thread-safe.
    """

    def __init__(
        self,
        model,
        size: int,
        budget: int | None = None,
        min_rows: int = 0,
        mode: str | None = None,
        timed: bool = False,
    ):
        if size < 1:
            raise EngineError(f"a batch holds at least one stream; got {size}")
        self.model, self.size, self.min_rows = model, size, min_rows
        self.memory = BatchMemory.for_model(model, budget or default_budget(model.device))
        self.storage: SlotStorage | None = None
        self.waiting: deque[_Stream] = deque()
        self.live: list[_Stream] = []  # slot i holds live[i]
        self._joining: list | None = None  # [stream, its prefill steps, rows of its next chunk]
        self._reads: deque = deque()  # (streams by slot, rows read or to read) of steps run
        self._tickets = 0
        self._runner = decode_step
        self._padded = False  # compiled steps run at padded sizes only
        self.graphs: StepGraphs | None = None
        self.clock = PhaseClock(timed, model.device)
        self._pinned: list[torch.Tensor] = []
        self.read_lag = 1 if model.device.type == "cuda" else 0  # steps the host reads behind
        mode = mode or model.decode_mode
        if mode not in MODES:
            raise EngineError(f"unknown decode mode {mode!r}; choose one of {', '.join(MODES)}")
        if mode == "graph":
            self.compile(fullgraph=False, capture=True)

    # ---- the caller's side ----------------------------------------------------------------

    def submit(
        self,
        request: TakeRequest,
        on_frame: FrameProgress | None = None,
        on_codes: FrameCodes | None = None,
    ) -> int:
        """Queue one take and return its ticket. on_frame(frames, budget): after each of its
        frames; on_codes(codes): each kept frame's codes `[10]` as soon as it is known to be
        kept (a semantic:0 frame one frame late). Raises EngineError for a stream whose slot
        alone exceeds the memory budget."""
        rows = request.slot_rows
        if self.memory.slots(static_capacity(max(rows, self.min_rows)), 1) == 0:
            need = self.memory.held(1, static_capacity(rows))
            raise EngineError(
                f"a stream of {rows} rows needs {need:,} bytes; the batch budget is "
                f"{self.memory.budget:,}"
            )
        self._tickets += 1
        settings = BatchSettings(request.params, request.extra_ids, request.ignore_eos)
        self.waiting.append(_Stream(self._tickets, request, settings, on_frame, on_codes))
        return self._tickets

    def pending(self) -> int:
        """Streams submitted and not finished (waiting, joining or live)."""
        return len(self.waiting) + len(self.live) + (self._joining is not None)

    def run(self) -> Iterator[Finished]:
        """Step until every stream submitted (also those submitted meanwhile) has finished,
        yielding each as it ends."""
        while self.pending():
            yield from self.step()

    def clear(self) -> None:
        """Forget every stream, waiting, joining or live (their slots become padding)."""
        self.waiting.clear()
        self._joining, self._reads = None, deque()
        for slot in range(len(self.live)):
            self.storage.free(slot)
        self.live = []

    def compile(
        self,
        fullgraph: bool = True,
        capture: bool = False,
        backend: str | None = "inductor",
        capture_with=None,
    ) -> None:
        """Run later steps through `torch.compile(decode_step, dynamic=False)`, one compiled
        graph per padded size (1, 2, 4, … slots). capture: CUDA only, also capture each padded
        size as a CUDA graph (`engine.graphs.StepGraphs`). fullgraph: refuse graph breaks.
        backend: torch.compile's; None runs the step uncompiled at padded sizes. capture_with:
        a stand-in for `engine.graphs.capture_step` (same signature), which runs graph mode's
        bookkeeping off CUDA (tests, and `bench/gpu_check.py --smoke`); implies capture. On the
        CPU a step of several rows fails to compile (the routed experts read their choices on
        the host, a graph break inside a compiled layer). Raises EngineError for a real capture
        off CUDA."""
        if capture and capture_with is None and self.model.device.type != "cuda":
            raise EngineError("decode mode 'graph' needs a CUDA device")
        # One graph per padded size and batch settings: past dynamo's default limit of 8 the
        # step would quietly run uncompiled.
        config = torch._dynamo.config
        config.recompile_limit = max(config.recompile_limit, RECOMPILE_LIMIT)
        self._runner = (
            decode_step
            if backend is None
            else torch.compile(decode_step, fullgraph=fullgraph, dynamic=False, backend=backend)
        )
        self._padded = True
        self.graphs = None
        if capture or capture_with is not None:
            self.graphs = StepGraphs(
                self._runner,
                decode_step,
                capture_with or capture_step,
                pool=(lambda: None) if capture_with else None,
            )

    def step(self) -> list[Finished]:
        """Prefill joining streams (chunks of up to PREFILL_ROWS_PER_STEP rows in all; until one
        stream is live when none is), decode one frame of every live stream, and read the rows
        of the step before (on CUDA) or of this one (on the CPU). Returns the streams that ended."""
        self.clock.switch("prefill")
        self._prefill()
        self.clock.switch("decode")
        if self._launching():
            self._launch()
        lag = self.read_lag if self._launching() else 0
        ended = []
        while len(self._reads) > lag:
            ended += self._read(*self._reads.popleft())
        if not self.live:  # every stream of a step not read yet has ended
            self._reads.clear()
        self.clock.switch(None)
        return ended

    # ---- joining --------------------------------------------------------------------------

    def _prefill(self) -> None:
        """Run prefill chunks of joining streams, one stream at a time in submission order."""
        spent = 0
        while True:
            if self._joining is None and not self._admit():
                return
            stream, steps, upcoming = self._joining
            if self.live and spent and spent + upcoming > PREFILL_ROWS_PER_STEP:
                return
            spent += upcoming
            try:
                self._joining[2] = next(steps)
            except StopIteration as done:
                self._join(stream, done.value)

    def _admit(self) -> bool:
        """Start the first waiting stream when its settings, a slot and memory allow (its
        prefill waits in `_joining`, or it joins at once). False when none could start."""
        if not self.waiting:
            return False
        head = self.waiting[0]
        if self.storage is not None and self.storage.settings != head.settings:
            if self.live or self._reads:
                return False
            self.storage.configure(head.settings)
        if not self._make_room(head):
            return False
        self.waiting.popleft()
        head.started = time.perf_counter()
        request = head.request
        steps = self.model.start_state_steps(
            request.rows.to(self.model.device), request.system_rows
        )
        try:
            self._joining = [head, steps, next(steps)]
        except StopIteration as done:
            self._join(head, done.value)
        return True

    def _make_room(self, head: _Stream) -> bool:
        """True when a slot of enough rows is free for `head`, making or growing the storage."""
        storage, live = self.storage, len(self.live)
        if storage is not None and max(head.rows, self.min_rows) <= storage.capacity:
            return live < storage.slots
        rows = max(
            [head.rows, self.min_rows]
            + [s.rows for s in self.waiting if s.settings == head.settings]
        )
        capacity = max(static_capacity(rows), storage.capacity if storage else 0)
        slots = self.memory.slots(capacity, self.size)
        if live >= slots:
            return False
        if storage is None:
            self.storage = SlotStorage(self.model, slots, capacity, head.settings)
        else:
            self.storage = storage.grown(slots, capacity, live)
            self._pinned = []
        return True

    def _join(self, stream: _Stream, state) -> None:
        """Copy a prefilled stream into the next free slot; it decodes from the next step."""
        self._joining = None
        request = stream.request
        self.storage.load(len(self.live), state, request.rows[:, 0], request.seed)
        stream.rules = request.rules(self.model)
        self.live.append(stream)

    # ---- decoding -------------------------------------------------------------------------

    def _launching(self) -> bool:
        """Whether some live stream may still need a frame."""
        return any(not s.done and s.launched < s.request.max_frames for s in self.live)

    def _launch(self) -> None:
        """Queue one step of every live slot and the copy of its rows for the host."""
        live = len(self.live)
        if self._padded:
            stack = self.storage.stack(padded_size(live, self.storage.slots))
            stack.attend_within(None)
        else:  # eager: the live slots only, attending over the rows some stream has reached
            stack = self.storage.stack(live)
            furthest = max(stream.request.rows.shape[0] + stream.launched for stream in self.live)
            stack.attend_within(
                min(-(-(furthest + 1) // SPAN_STEP) * SPAN_STEP, self.storage.capacity)
            )
        with torch.no_grad():
            if self.graphs is not None:
                self.graphs.run(stack)
            else:
                self._runner(stack)
        for stream in self.live:
            stream.launched += 1
        self._reads.append((list(self.live), self._copy_rows(live)))

    def _copy_rows(self, live: int):
        """The rows of the step just queued, for the host: on the CPU a copy; on CUDA a pinned
        buffer filled without blocking and the event that says it is filled."""
        rows = self.storage.row[:live]
        if rows.device.type != "cuda":
            return rows.clone(), None
        if len(self._pinned) < 2:  # two in turn: one being filled while the host reads the other
            self._pinned.append(
                torch.empty(self.storage.slots, 11, dtype=torch.int64, pin_memory=True)
            )
        buffer = self._pinned.pop(0)
        self._pinned.append(buffer)
        buffer[:live].copy_(rows, non_blocking=True)
        event = torch.cuda.Event()
        event.record()
        return buffer[:live], event

    def _read(self, streams: list[_Stream], read) -> list[Finished]:
        """Take one step's rows (`streams`: who held each slot then) into each stream's rules;
        streams that end leave their slots."""
        rows, event = read
        if event is not None:
            event.synchronize()
        rows = rows.clone()
        now, ended = time.perf_counter(), []
        for stream, row in zip(streams, rows):
            if stream.done:
                continue
            stream.frames += 1
            released = stream.rules.push(int(row[0]), row[1:], now - stream.started)
            self._release(stream, released)
            if stream.on_frame is not None:
                stream.on_frame(stream.frames, stream.request.max_frames)
            if stream.rules.reason is not None or stream.frames >= stream.request.max_frames:
                ended.append(self._leave(stream))
        return ended

    def _release(self, stream: _Stream, released: list[torch.Tensor]) -> None:
        if stream.on_codes is not None:
            for codes in released:
                stream.on_codes(codes)

    def _leave(self, stream: _Stream) -> Finished:
        """End `stream`; the last live slot moves into its place."""
        slot, last = self.live.index(stream), len(self.live) - 1
        if slot != last:
            self.storage.move(last, slot)
            self.live[slot] = self.live[last]
        self.live.pop()
        self.storage.free(last)
        stream.done = True
        self._release(stream, stream.rules.end())
        return Finished(stream.ticket, stream.request.generation(stream.rules, self.clock.seconds))


__all__ = ["MODES", "EngineBatch", "Finished", "padded_size"]
