"""The render's work queue: every line's take slots and retries fed to one `StreamBatch`
(`drama_cli.backends.base`), so that independent work is voiced together.

What may run at once:
- the lines of a chain run one after another, and a line opens (is planned, looked up in the
  store, compiled against the takes it hears) only when the line before it has its take
  selected; different chains run side by side. In `history` mode a scene is one chain (a line
  hears the takes before it); in `clone` mode every line is a chain of its own;
- the `takes` slots of an open line run side by side; a slot's retries run one after another
  (a retry starts only when the attempt before it failed its checks);
- the chunks of a long line run in order, one stream at a time.

A try that failed on the way (`FailedAttempt`: a server's answer cut short, voiced by another
model, a server still busy, a timeout) counts as a failed attempt of its slot: while the slot
has tries left (`1 + retries` in all, stored takes and failed tries together) the same
attempt, with the same seed, goes back in the queue and resumes at the chunk that failed;
nothing of the failed try is stored. The take it finally makes records the reasons
(`backend_info.failed_tries`); a slot whose tries all failed leaves the line without a take
from it, its outcome saying why.

Work is taken in script order (scene, line, slot, attempt) whenever the batch has room, so a
batch of 1 makes the same calls in the same order as a render without batches. Each take is
stored as soon as its stream finishes (`drama_cli.takes.store` writes atomically); seeds
depend only on the line, slot and attempt, so a render's takes are the same whatever the
batch size (only their numbers follow the order in which they finish; `choose_take` goes by
slot and attempt).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from drama_cli.backends.base import (
    Backend,
    FailedAttempt,
    Generation,
    StreamBatch,
    StreamDone,
)
from drama_cli.render.line import (
    LineOutcome,
    Progress,
    conclude_line,
    job_request,
    join_and_check,
    line_pieces,
    slot_done,
    store_attempt,
)
from drama_cli.takes.jobs import (
    LineJob,
    RenderSettings,
    cache_key,
    line_seed,
    retry_seed,
)
from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.store import Take, TakeStore
from engine.conversation import Conversation

OPEN = -1  # the slot number that sorts a line's opening before its attempts


@dataclass
class LineEntry:
    """A line of a chain: where it sorts (`order`: scene and line number in the script) and how
    it opens: `open()` returns its LineJob (planned now), or the LineOutcome of a line that
    needs no work (a line kept with `--keep`)."""

    order: tuple[int, int]
    open: Callable[[], LineJob | LineOutcome]


@dataclass
class _Line:
    entry: LineEntry
    rest: list[LineEntry]  # the lines of its chain after it
    job: LineJob
    key: str
    slots: dict[int, list[Take]] = field(default_factory=dict)  # slot -> its stored takes
    failed: dict[int, list[str]] = field(default_factory=dict)  # slot -> its failed tries' reasons
    new_takes: list[int] = field(default_factory=list)  # numbers of the takes stored here
    queued: int = 0  # attempts waiting for room in the batch
    running: int = 0  # attempts in the batch
    calls: int = 0
    refused: str | None = None
    done: bool = False


@dataclass
class _Attempt:
    line: _Line
    slot: int
    number: int
    seed: int
    pieces: list[tuple[Conversation, str]] = field(default_factory=list)  # per chunk, in order
    parts: list[Generation] = field(default_factory=list)  # the chunks' generations so far
    failures: list[str] = field(default_factory=list)  # reasons of its tries that failed


class LineQueue:
    """Renders chains of lines through one batch of `size` streams (see the module docstring).

    `run(chains)` returns every line's outcome in script order; `scene_done(scene_number)` is
    called as soon as the last line of a scene (its lines in these chains) has its take
    selected. EngineError of one stream stops that line's attempts (its outcome says the
    engine refused it); other errors and Ctrl-C propagate, every finished take stored.
    """

    def __init__(
        self,
        store: TakeStore,
        backend: Backend,
        settings: RenderSettings,
        identity: dict,
        hasher: ReferenceHasher,
        progress: Progress,
        size: int,
        scene_done: Callable[[int], None] = lambda scene_number: None,
    ):
        self.store, self.backend, self.settings = store, backend, settings
        self.identity, self.hasher, self.progress, self.size = identity, hasher, progress, size
        self.scene_done = scene_done
        self._queue: list = []  # (order, tie, item): a LineEntry to open or an _Attempt
        self._tie = itertools.count()
        self._tickets: dict[int, _Attempt] = {}
        self._left: dict[int, int] = {}  # scene number -> lines not concluded
        self._outcomes: dict[tuple[int, int], LineOutcome] = {}

    def run(self, chains: list[list[LineEntry]]) -> list[LineOutcome]:
        """Render every line of `chains`; their outcomes in script order."""
        for chain in chains:
            for entry in chain:
                self._left[entry.order[0]] = self._left.get(entry.order[0], 0) + 1
            if chain:
                self._push((*chain[0].order, OPEN, 0), (chain[0], chain[1:]))
        batch = self.backend.open_batch(self.size)
        try:
            while True:
                self._fill(batch)
                if not batch.active():
                    break
                self._finish(batch.next_done(), batch)
                self.progress.streams(batch.active(), batch.size)
        finally:
            batch.close()
        return [self._outcomes[order] for order in sorted(self._outcomes)]

    def _push(self, order: tuple, item) -> None:
        heapq.heappush(self._queue, (order, next(self._tie), item))

    def _fill(self, batch: StreamBatch) -> None:
        """Start work in script order until the batch is full or nothing is ready."""
        while self._queue and batch.active() < batch.size:
            _, _, item = heapq.heappop(self._queue)
            if isinstance(item, _Attempt):
                item.line.queued -= 1
                if not item.line.refused:
                    self._start(item, batch)
            else:
                self._open(*item)
        self.progress.streams(batch.active(), batch.size)

    def _open(self, entry: LineEntry, rest: list[LineEntry]) -> None:
        opened = entry.open()
        if isinstance(opened, LineOutcome):
            self.progress.done(opened)
            self._concluded(entry, rest, opened)
            return
        job = opened
        self.progress.line(job)
        line = _Line(entry, rest, job, cache_key(job, self.identity, self.settings, self.hasher))
        existing = self.store.takes(job.scene_id, job.line_id, line.key)
        base = line_seed(self.settings.seed, job.scene_id, job.line_id)
        for slot in range(self.settings.takes):
            line.slots[slot] = [t for t in existing if t.slot == slot]
            line.failed[slot] = []
            if not self._slot_done(line, slot):
                self._queue_attempt(line, slot, len(line.slots[slot]), base)
        self._conclude_if_done(line)

    def _queue_attempt(self, line: _Line, slot: int, number: int, base: int) -> None:
        attempt = _Attempt(
            line, slot, number, retry_seed(base + slot, number), line_pieces(line.job, self.backend)
        )
        line.queued += 1
        self._push((*line.entry.order, slot, number), attempt)

    def _start(self, attempt: _Attempt, batch: StreamBatch) -> None:
        line = attempt.line
        line.calls += 1
        line.running += 1
        self.progress.attempt(line.job, attempt.slot, attempt.number, attempt.seed)
        if attempt.pieces:
            self._submit(attempt, batch)
        else:
            self._complete(attempt)  # nothing to voice: an empty take (its checks fail)

    def _submit(self, attempt: _Attempt, batch: StreamBatch) -> None:
        """Submit the attempt's next chunk as a stream."""
        job = attempt.line.job
        conversation, text = attempt.pieces[len(attempt.parts)]
        if len(attempt.pieces) > 1:
            self.progress.chunk(job, len(attempt.parts) + 1, len(attempt.pieces), False)
        request = job_request(job, conversation, text, self.settings.sampling, attempt.seed)
        on_frames = None
        if self.backend.capabilities.streaming_frames:

            def on_frames(frames: int, budget: int) -> None:
                self.progress.frames(job, frames, budget)

        self._tickets[batch.submit(request, on_frames)] = attempt

    def _slot_done(self, line: _Line, slot: int) -> bool:
        """Whether a slot needs no more tries: one of its takes passed, or its stored takes
        and failed tries make `1 + retries`."""
        return slot_done(line.slots[slot], self.settings.retries - len(line.failed[slot]))

    def _finish(self, done: StreamDone, batch: StreamBatch) -> None:
        attempt = self._tickets.pop(done.ticket)
        line = attempt.line
        if isinstance(done.error, FailedAttempt):
            self._failed(attempt, str(done.error))
        elif done.error is not None:
            line.refused = line.refused or str(done.error)
            line.running -= 1
            self._conclude_if_done(line)
        else:
            attempt.parts.append(done.generation)
            if len(attempt.pieces) > 1:
                self.progress.chunk(line.job, len(attempt.parts), len(attempt.pieces), True)
            if len(attempt.parts) < len(attempt.pieces):
                self._submit(attempt, batch)  # the next chunk takes the stream's place
            else:
                self._complete(attempt)

    def _failed(self, attempt: _Attempt, reason: str) -> None:
        """A try of `attempt` failed on the way: count it against its slot and queue the same
        attempt again (it resumes at the chunk that failed) while the slot has tries left."""
        line = attempt.line
        line.failed[attempt.slot].append(reason)
        attempt.failures.append(reason)
        line.running -= 1
        if not line.refused and not self._slot_done(line, attempt.slot):
            line.queued += 1
            self._push((*line.entry.order, attempt.slot, attempt.number), attempt)
        self._conclude_if_done(line)

    def _complete(self, attempt: _Attempt) -> None:
        """Check and store a finished attempt; queue the slot's retry when it failed."""
        line = attempt.line
        generation, checks = join_and_check(attempt.parts, attempt.pieces, line.job)
        if attempt.failures:  # the take says which tries failed before it
            generation.info = {**generation.info, "failed_tries": list(attempt.failures)}
        take = store_attempt(
            line.job,
            generation,
            checks,
            line.key,
            self.store,
            self.backend,
            self.settings,
            attempt.slot,
            attempt.number,
            attempt.seed,
        )
        line.slots[attempt.slot].append(take)
        line.new_takes.append(take.number)
        line.running -= 1
        if not line.refused and not self._slot_done(line, attempt.slot):
            base = line_seed(self.settings.seed, line.job.scene_id, line.job.line_id)
            self._queue_attempt(line, attempt.slot, attempt.number + 1, base)
        self._conclude_if_done(line)

    def _conclude_if_done(self, line: _Line) -> None:
        """Select the line's take once none of its attempts is running or queued (a refused
        line drops its queued attempts), and open the next line of its chain."""
        if line.done or line.running or (line.queued and not line.refused):
            return
        line.done = True
        failures = [reason for slot in sorted(line.failed) for reason in line.failed[slot]]
        outcome = conclude_line(
            line.job,
            line.key,
            self.store,
            line.calls,
            line.refused,
            new_takes=line.new_takes,
            failures=failures,
        )
        self.progress.done(outcome)
        self._concluded(line.entry, line.rest, outcome)

    def _concluded(self, entry: LineEntry, rest: list[LineEntry], outcome: LineOutcome) -> None:
        self._outcomes[entry.order] = outcome
        if rest:
            self._push((*rest[0].order, OPEN, 0), (rest[0], rest[1:]))
        scene = entry.order[0]
        self._left[scene] -= 1
        if not self._left[scene]:
            self.scene_done(scene)
