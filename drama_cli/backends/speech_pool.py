"""Several server requests in flight at once: a pool of threads that runs calls (each one
request through a `SpeechClient`, which is safe to share between threads) and hands each
result back as it finishes, for `--batch N` on the server backends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Finished:
    """A finished call: its `ticket` (from `RequestPool.submit`, or its index in
    `as_finished`), and its `result`, or the exception it raised as `error`."""

    ticket: int
    result: Any = None
    error: Exception | None = None


class RequestPool:
    """Runs up to `size` calls at once on threads.

    submit(call): start `call()` (or queue it until a thread is free); returns its ticket
        (1, 2, ...). active(): calls not handed back yet. next_done(): blocks until a call
        finishes and returns it as `Finished` (the oldest ticket among those done); raises
        LookupError when none is active. close(): drop the calls not started; the pool cannot
        be used again.
    """

    def __init__(self, size: int):
        self.size = max(1, size)
        self._pool = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="speech")
        self._running: dict[Future, int] = {}
        self._tickets = 0

    def submit(self, call: Callable[[], Any]) -> int:
        """Start `call()`; its ticket."""
        self._tickets += 1
        self._running[self._pool.submit(call)] = self._tickets
        return self._tickets

    def active(self) -> int:
        """The calls submitted and not yet handed back by `next_done`."""
        return len(self._running)

    def next_done(self) -> Finished:
        """The next call to finish (blocks). Raises LookupError when none is active."""
        if not self._running:
            raise LookupError("no request is in flight")
        done, _ = wait(list(self._running), return_when=FIRST_COMPLETED)
        future = min(done, key=self._running.__getitem__)
        ticket = self._running.pop(future)
        error = future.exception()
        if error is not None and not isinstance(error, Exception):
            raise error
        return Finished(ticket, None if error else future.result(), error)

    def close(self) -> None:
        """Drop the calls not started (running ones end on their own)."""
        self._running.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> RequestPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def as_finished(calls: Iterable[Callable[[], Any]], size: int) -> Iterator[Finished]:
    """Run `calls` with at most `size` in flight, submitting the next as one finishes; yield
    each as `Finished` (ticket: the call's index in `calls`, from 0) in the order they finish."""
    pending = iter(enumerate(calls))
    with RequestPool(size) as pool:
        indices: dict[int, int] = {}

        def top_up() -> None:
            while pool.active() < pool.size:
                item = next(pending, None)
                if item is None:
                    return
                indices[pool.submit(item[1])] = item[0]

        top_up()
        while pool.active():
            finished = pool.next_done()
            top_up()
            yield Finished(indices.pop(finished.ticket), finished.result, finished.error)
