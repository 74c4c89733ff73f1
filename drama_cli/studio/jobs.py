"""The studio's one background worker: actions that make takes run here one at a time, in the
order asked, each reporting progress and stopping at its next step when cancelled (takes
already finished are kept). The actions take the project lock themselves, so a command-line
render of the same project makes a job fail with "project ... is in use"."""

from __future__ import annotations

import itertools
import queue
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from drama_cli.errors import DramaError, JobCancelled, system_error_message
from engine.errors import EngineError

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
KEPT_JOBS = 50  # finished jobs the studio still lists


@dataclass
class Job:
    """One action asked for in the studio.

    kind: "render", "revise", "edit", "mix" or "select"; line: the line id (a scene id for
    "mix"); params: what the action takes.
    state: QUEUED, RUNNING, DONE, FAILED or CANCELLED. done / total: steps (new takes)
    finished of those asked; message: what runs now; takes: numbers of the takes it made;
    error: why it failed.
    """

    id: int
    kind: str
    line: str
    params: dict[str, object]
    state: str = QUEUED
    done: int = 0
    total: int = 1
    message: str = ""
    takes: list[int] = field(default_factory=list)
    error: str = ""
    cancel_asked: threading.Event = field(default_factory=threading.Event, repr=False)

    def check(self) -> None:
        """Raise JobCancelled when the job was cancelled (called between steps)."""
        if self.cancel_asked.is_set():
            raise JobCancelled(f"{self.kind} of {self.line} cancelled")

    def to_dict(self) -> dict:
        """The job as the page reads it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "line": self.line,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "message": self.message,
            "takes": list(self.takes),
            "error": self.error,
        }


class Worker:
    """One thread that runs jobs in order. run_job(job): the action, called on the worker's
    thread; it reports through the job and calls `job.check()` between steps."""

    def __init__(self, run_job: Callable[[Job], None]):
        self._run_job = run_job
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._jobs: dict[int, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="studio-worker", daemon=True)
        self._thread.start()

    def submit(self, kind: str, line: str, params: dict, total: int = 1) -> Job:
        """Queue a job; returns it (state QUEUED)."""
        job = Job(next(self._ids), kind, line, dict(params), total=total)
        with self._lock:
            self._jobs[job.id] = job
            finished = [j.id for j in self._jobs.values() if j.state in (DONE, FAILED, CANCELLED)]
            for old in finished[:-KEPT_JOBS]:
                del self._jobs[old]
        self._queue.put(job)
        return job

    def cancel(self, job_id: int) -> Job | None:
        """Ask a job to stop: a queued job never starts, a running one stops at its next step.
        Returns the job, or None when no such job is kept."""
        with self._lock:
            job = self._jobs.get(job_id)
        if job is not None:
            job.cancel_asked.set()
        return job

    def jobs(self) -> list[Job]:
        """The jobs kept, oldest first."""
        with self._lock:
            return list(self._jobs.values())

    def pending(self) -> list[Job]:
        """The jobs queued or running, oldest first."""
        return [job for job in self.jobs() if job.state in (QUEUED, RUNNING)]

    def busy(self) -> bool:
        """Whether a job is queued or running."""
        return bool(self.pending())

    def stop(self, timeout_s: float = 5.0, keep: tuple[str, ...] = ()) -> list[Job]:
        """Cancel every job but the queued ones of the kinds in `keep`, which still run, in
        order, once the running job has stopped at its next step; end the thread, waiting up to
        `timeout_s` for it. Returns the jobs kept that had not finished by then (none when the
        thread ended)."""
        for job in self.jobs():
            if job.kind not in keep or job.state != QUEUED:
                job.cancel_asked.set()
        self._queue.put(None)
        self._thread.join(timeout_s)
        return [job for job in self.pending() if job.kind in keep]

    def _loop(self) -> None:
        while (job := self._queue.get()) is not None:
            if job.cancel_asked.is_set():
                job.state = CANCELLED
                continue
            job.state = RUNNING
            try:
                self._run_job(job)
                job.state = DONE
            except JobCancelled:
                job.state = CANCELLED
            except (DramaError, EngineError) as err:
                job.state, job.error = FAILED, str(err)
            except Exception as err:
                # a read-only folder or a full disk: the line the commands print; else a bug:
                # keep serving, say what happened
                message = system_error_message(err)
                if message is None:
                    traceback.print_exc(file=sys.stderr)
                    message = f"internal error: {err}"
                job.state, job.error = FAILED, message
            job.message = ""
