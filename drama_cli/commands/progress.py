"""Render progress on stderr: rich bars on a terminal (`RichProgress`), else one line per
finished line (`LineLog`). Both implement the methods of `drama_cli.render.line.Progress`."""

from __future__ import annotations

import sys
import time

from drama_cli.commands.output import notice, results_console


def time_left(elapsed: float, paced: int, remaining: int) -> str:
    """`about 1 min 20 s left`: the time `remaining` lines take at the pace of `paced` lines
    that took `elapsed` seconds; "" before the first paced line or after the last line."""
    if paced <= 0 or remaining <= 0:
        return ""
    seconds = round(elapsed / paced * remaining)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    parts = [
        f"{value} {unit}"
        for value, unit in ((hours, "h"), (minutes, "min"), (seconds, "s"))
        if value
    ]
    return f"about {' '.join(parts[:2]) or '0 s'} left"


class Pace:
    """Counts a render's finished lines and says the time left (`time_left`) at the pace of
    the lines rendered so far: lines whose takes are reused cost no time, so they set no pace.
    `clock`: seconds, `time.monotonic` by default."""

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._started = 0.0
        self.total = self.done = self._rendered = 0

    def start(self, total_lines: int) -> None:
        """The render of `total_lines` lines begins now."""
        self.total, self._started = total_lines, self._clock()

    def line_done(self, status: str) -> str:
        """Count a finished line of `status` (`reused`, `rendered`, ...); the time left, or ""."""
        self.done += 1
        self._rendered += status != "reused"
        return time_left(self._clock() - self._started, self._rendered, self.total - self.done)


class RichProgress:
    """Rich progress bars on stderr: lines (described with the current line and take), the
    chunks of a line cut into several (`drama_cli.compile.chunking`) and, for engines that
    stream, frames of the current take, with the time left at the pace of
    rendered lines (`Pace`). Implements the methods of `drama_cli.render.line.Progress`."""

    def __init__(self, clock=time.monotonic):
        from rich.progress import (  # lazy: 22 ms at start-up, only for a terminal
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[left]}", markup=False),
            console=results_console(stderr=True),
            transient=True,
        )
        self._pace = Pace(clock)
        self._task = None
        self._frames = None
        self._chunks = None
        self._streams = None
        self._retries = 0

    def start(self, total_lines):
        self._bar.start()
        self._task = self._bar.add_task("lines", total=total_lines, left="")
        self._pace.start(total_lines)

    def frames(self, job, frames, budget):
        if self._frames is None:
            self._frames = self._bar.add_task("frames", total=budget, left="")
        self._bar.update(self._frames, completed=frames, total=budget)

    def streams(self, active, size):
        if size > 1:
            if self._streams is None:
                self._streams = self._bar.add_task("streams", total=size, left="")
            self._bar.update(self._streams, completed=active)

    def line(self, job):
        self._bar.update(self._task, description=f"{job.line_id} {job.speaker}")

    def chunk(self, job, number, chunks, finished):
        if self._chunks is None:
            self._chunks = self._bar.add_task("chunks", total=chunks, left="")
        self._bar.update(
            self._chunks,
            description=f"{job.line_id} chunk {number}/{chunks}",
            completed=number if finished else number - 1,
            total=chunks,
        )

    def attempt(self, job, slot, attempt, seed):
        if self._frames is not None:
            self._bar.update(self._frames, completed=0)
        self._retries += bool(attempt)
        suffix = f" (retry {attempt}; {self._retries} in all)" if attempt else ""
        self._bar.update(
            self._task, description=f"{job.line_id} {job.speaker} take {slot + 1}{suffix}"
        )

    def done(self, outcome):
        self._bar.update(self._task, advance=1, left=self._pace.line_done(outcome.status))

    def finish(self):
        self._bar.stop()


class LineLog:
    """Progress for logs and pipes (stderr not a terminal): one line on stderr per finished
    line, `drama: [3/12] LINE SPEAKER: rendered take 1, 2.31 s; 1 retry; about 2 min 10 s
    left`, with `name_new_takes` naming the takes made when they are not just the selected one
    (`(new takes 2, 3)`), the retries the line needed and the time the lines still to come
    take at the pace of the lines rendered so far (`Pace`); a line cut into chunks also says
    when each chunk starts and is done (`drama: LINE SPEAKER: chunk 2/40 started`). Implements
    the methods of `drama_cli.render.line.Progress`."""

    def __init__(self, name_new_takes: bool = False, clock=time.monotonic):
        self._pace = Pace(clock)
        self._name_new_takes = name_new_takes
        self._streams = ""
        self._retries: dict[str, int] = {}

    def start(self, total_lines):
        self._pace.start(total_lines)

    def line(self, job):
        pass

    def attempt(self, job, slot, attempt, seed):
        if attempt:
            self._retries[job.line_id] = self._retries.get(job.line_id, 0) + 1

    def frames(self, job, frames, budget):
        pass

    def chunk(self, job, number, chunks, finished):
        what = "done" if finished else "started"
        notice(f"{job.line_id} {job.speaker}: chunk {number}/{chunks} {what}{self._streams}")

    def streams(self, active, size):
        self._streams = f" [{active}/{size} streams]" if size > 1 else ""

    def done(self, outcome):
        left = self._pace.line_done(outcome.status)
        take = f" take {outcome.take}, {outcome.duration_s:.2f} s" if outcome.take else ""
        made = outcome.new_takes
        if self._name_new_takes and made and made != [outcome.take]:
            take += f" (new takes {', '.join(map(str, made))})"
        problem = f" ({outcome.message})" if outcome.message else ""
        retries = self._retries.pop(outcome.line_id, 0)
        after = [f"{retries} retr{'y' if retries == 1 else 'ies'}"] * bool(retries)
        after += [left] if left else []
        notice(
            f"[{self._pace.done}/{self._pace.total}] {outcome.line_id} {outcome.speaker}: "
            f"{outcome.status}{take}{problem}"
            f"{''.join('; ' + part for part in after)}{self._streams}"
        )

    def finish(self):
        pass


def stderr_progress(name_new_takes: bool = False):
    """Rich bars when stderr is a terminal, else one line per finished line (`LineLog`)."""
    return RichProgress() if sys.stderr.isatty() else LineLog(name_new_takes)
