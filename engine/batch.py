"""Continuous batching: many independent streams decoded together (docs/internals/engine.md "Batches of
streams").

    batch = EngineBatch(model, size=8)
    ticket = batch.submit(conversation, params, seed)      # as many as you like
    for done in batch.run():                               # as each stream ends
        done.ticket, done.generation                       # an engine.generate.Generation

Streams wait in submission order. The first waiting stream joins when a slot is free and the
memory budget allows (`engine.batch_memory`): its prompt is prefilled through the model's
prefix cache in chunks, at most 256 rows between two decode steps of the live streams (so
several short prompts may join in one step), then copied into a free slot. Each step decodes one frame for every live stream
(`engine.batch_step.decode_streams`; a compiled step pads to 1, 2, 4, 8, … slots, so few shapes
ever compile, while an eager one runs the live slots only); a stream leaves at EOS,
at its frame budget or at a separator (when asked), and the last slot moves into its place.
Every stream keeps its own positions, caches, RAS window and counter-based draws keyed by its
own seed, so its codes do not depend on the other streams. Streams with other sampling
settings wait until the batch is empty.
"""

from __future__ import annotations

import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from engine.batch_memory import BatchMemory, default_budget
from engine.batch_step import BatchSettings, SlotStorage, decode_streams
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.frame_rules import FrameRules
from engine.frame_step import capture_step, static_capacity
from engine.generate import FrameStream, Generation
from engine.sampling import SamplingParams

FrameProgress = Callable[[int, int], None]  # (frames decoded so far, frame budget)
PREFILL_ROWS_PER_STEP = 256  # prompt rows prefilled between two decode steps (one chunk's worth)
SPAN_STEP = 128  # an eager step attends over whole multiples of this many rows


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
    spec: FrameStream
    settings: BatchSettings
    rows: int  # prompt rows + frame budget + 1: what its slot must hold
    on_frame: FrameProgress | None
    rules: FrameRules | None = None
    frames: int = 0
    started: float = field(default_factory=time.perf_counter)


class EngineBatch:
    """Up to `size` streams of one `engine.generate.Drama3` decoded together.

    budget: bytes the batch's slot storage may hold (default `default_budget`); min_rows: the
    smallest slot capacity in rows. Every stream draws from the counter-based race keyed by its
    seed, so its codes are those `Drama3.generate` gives for its seed. On CUDA the step
    follows the model's decode mode: `compiled` compiles it, `graph` also captures each padded
    size as a CUDA graph (see `compile`); on the CPU it runs eagerly, since the routed experts of
    several rows read their choices on the host, which a compiled region cannot hold. The storage is made on
    the first step, sized for the streams waiting then, and grows (with copies of the live
    slots) when a longer stream arrives; it never holds more than the budget. Not thread-safe.
    """

    def __init__(self, model, size: int, budget: int | None = None, min_rows: int = 0):
        if size < 1:
            raise EngineError(f"a batch holds at least one stream; got {size}")
        self.model, self.size, self.min_rows = model, size, min_rows
        self.memory = BatchMemory.for_model(model, budget or default_budget(model.device))
        self.storage: SlotStorage | None = None
        self.waiting: deque[_Stream] = deque()
        self.live: list[_Stream] = []  # slot i holds live[i]
        self._joining: list | None = None  # [stream, its prefill steps, rows of its next chunk]
        self._tickets = 0
        self._runner = decode_streams
        self._padded = False  # compiled steps run at padded sizes only
        self._graphs: dict[tuple, torch.cuda.CUDAGraph] = {}  # (storage, settings, size) -> graph
        self._graph_pool = None
        self._capture = False
        if model.decode_mode in ("compiled", "graph") and model.device.type == "cuda":
            self.compile(fullgraph=False, capture=model.decode_mode == "graph")

    # ---- the caller's side ----------------------------------------------------------------

    def submit(self, conversation: Conversation, params: SamplingParams, seed: int, max_frames: int | None = None,
               stop_at_separator: bool = False, ignore_eos: bool = False,
               on_frame: FrameProgress | None = None) -> int:
        """Queue one stream (arguments as `Drama3.generate`; on_frame(frames, budget) after each
        of its frames) and return its ticket. Raises EngineError for a refused prompt or frame
        budget, or a stream whose slot alone exceeds the memory budget."""
        spec = FrameStream(self.model, conversation, params, seed, max_frames, stop_at_separator, False, ignore_eos)
        rows = int(spec.rows.shape[0]) + spec.max_frames + 1
        if self.memory.slots(static_capacity(max(rows, self.min_rows)), 1) == 0:
            need = self.memory.held(1, static_capacity(rows))
            raise EngineError(f"a stream of {rows} rows needs {need:,} bytes; the batch budget is "
                              f"{self.memory.budget:,}")
        self._tickets += 1
        settings = BatchSettings(params, spec.extra_ids, ignore_eos)
        self.waiting.append(_Stream(self._tickets, spec, settings, rows, on_frame))
        return self._tickets

    def pending(self) -> int:
        """Streams submitted and not finished (waiting, joining or live)."""
        return len(self.waiting) + len(self.live) + (self._joining is not None)

    def run(self) -> Iterator[Finished]:
        """Step until every stream submitted (also those submitted meanwhile) has finished,
        yielding each as it ends."""
        while self.pending():
            yield from self.step()

    def compile(self, fullgraph: bool = True, capture: bool = False, backend: str = "inductor") -> None:
        """Run later steps through `torch.compile(decode_streams, dynamic=False)`, one compiled
        graph per padded size (1, 2, 4, … slots). capture: CUDA only, also capture each padded
        size as a CUDA graph on its first step and replay it from then on (a new capture when the
        storage grows or the sampling settings change); if a capture fails, a RuntimeWarning says
        why and the batch goes on with the uncompiled step. fullgraph: refuse graph breaks.
        backend: torch.compile's. On the CPU a step of several rows fails to compile (the routed
        experts read their choices on the host inside a compiled region). Raises EngineError
        for capture off CUDA."""
        if capture and self.model.device.type != "cuda":
            raise EngineError("CUDA graphs need the model on a CUDA device")
        self._runner = torch.compile(decode_streams, fullgraph=fullgraph, dynamic=False, backend=backend)
        self._padded, self._capture = True, capture

    def step(self) -> list[Finished]:
        """Prefill joining streams (chunks of up to PREFILL_ROWS_PER_STEP rows in all; until one
        stream is live when none is), then decode one frame of every live stream. Returns the
        streams that ended."""
        self._prefill()
        return self._decode() if self.live else []

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
            if self.live:
                return False
            self.storage.configure(head.settings)
        if not self._make_room(head):
            return False
        self.waiting.popleft()
        head.started = time.perf_counter()
        steps = self.model.start_state_steps(head.spec.rows, head.spec.system_rows)
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
        rows = max([head.rows, self.min_rows] + [s.rows for s in self.waiting if s.settings == head.settings])
        capacity = max(static_capacity(rows), storage.capacity if storage else 0)
        slots = self.memory.slots(capacity, self.size)
        if live >= slots:
            return False
        if storage is None:
            self.storage = SlotStorage(self.model, slots, capacity, head.settings)
        else:
            self.storage = storage.grown(slots, capacity, live)
        return True

    def _join(self, stream: _Stream, state) -> None:
        """Copy a prefilled stream into the next free slot; it decodes from the next step."""
        self._joining = None
        slot, spec, model = len(self.live), stream.spec, self.model
        self.storage.load(slot, state, spec.rows[:, 0], spec.seed)
        stream.rules = FrameRules(model.eos_id, model.semantic_start, model.tower.config.vocab_size,
                                 spec.stop_at_separator)
        self.live.append(stream)

    # ---- decoding -------------------------------------------------------------------------

    def _decode(self) -> list[Finished]:
        live = len(self.live)
        if self._padded:
            stack = self.storage.stack(padded_size(live, self.storage.slots))
            stack.attend_within(None)
        else:  # eager: the live slots only, attending over the rows some stream has reached
            stack = self.storage.stack(live)
            furthest = max(stream.spec.rows.shape[0] + stream.frames for stream in self.live)
            stack.attend_within(min(-(-(furthest + 1) // SPAN_STEP) * SPAN_STEP, self.storage.capacity))
        with torch.no_grad():
            if self._capture:
                self._replay(stack)
            else:
                self._runner(stack)
        rows = self.storage.row[:live].cpu()
        now, ended = time.perf_counter(), []
        for slot, (stream, row) in enumerate(zip(self.live, rows)):
            stream.frames += 1
            stream.rules.push(int(row[0]), row[1:].clone(), now - stream.started)
            if stream.on_frame is not None:
                stream.on_frame(stream.frames, stream.spec.max_frames)
            if stream.rules.reason is not None or stream.frames >= stream.spec.max_frames:
                ended.append(slot)
        return [self._leave(slot) for slot in reversed(ended)][::-1]

    def _replay(self, stack) -> None:
        """Run `stack`'s step as its CUDA graph, capturing it first (graphs of older storage or
        settings are dropped then)."""
        key = (self.storage, self.storage.settings, stack.size)
        graph = self._graphs.get(key)
        if graph is None:
            if any(old[:2] != key[:2] for old in self._graphs):
                self._graphs.clear()
            try:
                self._graph_pool = self._graph_pool or torch.cuda.graph_pool_handle()
                graph = capture_step(lambda: self._runner(stack), self.storage.tensors(), pool=self._graph_pool)
            except Exception as error:  # a GPU or torch build the capture has not met: keep decoding
                warnings.warn(f"capturing the batched step failed ({type(error).__name__}: {error}); "
                              "decoding with the uncompiled step from now on", RuntimeWarning)
                self._runner, self._capture = decode_streams, False
                self._runner(stack)
                return
            self._graphs[key] = graph
        graph.replay()

    def _leave(self, slot: int) -> Finished:
        """End the stream in `slot`; the last live slot moves into its place."""
        stream, last = self.live[slot], len(self.live) - 1
        if slot != last:
            self.storage.move(last, slot)
            self.live[slot] = self.live[last]
        self.live.pop()
        self.storage.free(last)
        stream.rules.end()
        stream.spec.result = stream.spec.generation(stream.rules, {})
        return Finished(stream.ticket, stream.spec.result)


__all__ = ["EngineBatch", "Finished", "padded_size"]
