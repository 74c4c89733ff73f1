"""The Ray actor of a cluster render: one backend, built on its node and loaded once, voicing
the streams the driver sends it through the backend's own batch (`Backend.open_batch`, so an
engine that decodes streams together does so on each worker). The model folder is resolved on
the node (`--model` as given, else that node's `DRAMA_MODEL` or huggingface_hub cache); a node
without one reports it, named, in `describe()` instead of failing later.

The driver calls `pump(units, streams)`: the worker adds the units to its batch and returns
the first stream that finishes, as a plain tuple so that nothing but data crosses the network:
`(ticket, "ok", result, seconds, notices)`, or `(ticket, "refused", message, seconds,
notices)` for an EngineError (the driver reports the line as the engine refusing it), or
`(ticket, "failed", message, seconds, notices)` for a `FailedAttempt` (the render may try it
again), with the backend's one-line notices since the last call. Any other exception raises to the driver,
which sends the worker's streams to other workers.
"""

from __future__ import annotations

import os
import socket
import time
from collections import deque

from drama_cli.backends.base import FailedAttempt, GenerationRequest, StreamBatch
from drama_cli.backends.cluster.clips import ClipFolder
from drama_cli.backends.registry import BackendChoice, build_backend
from drama_cli.errors import DramaError
from engine import EngineError


def node_name() -> str:
    """This machine as the messages name it: `hostname (ip)`."""
    import ray  # optional: ray (the cluster extra), which connect() found installed

    return f"{socket.gethostname()} ({ray.util.get_node_ip_address()})"


class BackendWorker:
    """One backend on one node (a Ray actor class; `pool` makes it remote).

    choice: the render's `drama_cli.backends.registry.BackendChoice` (engine, `--model`,
    `--device`, backend options), built into a backend here on the worker's node.
    """

    def __init__(self, choice: BackendChoice):
        self.node = node_name()
        self.notices: list[str] = []
        self._told = 0  # notices already sent to the driver
        self.error: str | None = None
        self.backend = None
        self.clips = ClipFolder()
        self._batch: StreamBatch | None = None
        self._own: dict[int, tuple] = {}  # batch ticket -> (driver ticket, started at)
        self._direct: deque = deque()  # scene groups: (ticket, request, texts)
        try:
            self.backend = build_backend(choice, self.notices.append)
        except (DramaError, EngineError) as err:
            self.error = f"worker on node {self.node}: {err}"

    def describe(self) -> dict:
        """Node, process id, notices so far and, when the backend could not be built, the
        error; else the backend's name, scratch flag, capabilities, options record and
        identity."""
        facts = {
            "node": self.node,
            "pid": os.getpid(),
            "error": self.error,
            "notices": self._fresh_notices(),
        }
        if self.backend is not None:
            facts.update(
                name=self.backend.name,
                scratch=bool(self.backend.scratch),
                capabilities=self.backend.capabilities,
                options=self.backend.options,
                identity=self.backend.identity(),
            )
        return facts

    def _fresh_notices(self) -> list[str]:
        fresh, self._told = self.notices[self._told :], len(self.notices)
        return fresh

    def _local(self, request: GenerationRequest, clips: dict) -> GenerationRequest:
        """The request with its shipped clips (path -> (sha256, object ref)) copied here."""
        import ray  # optional: ray (the cluster extra), which connect() found installed

        for path, (digest, ref) in clips.items():
            suffix = os.path.splitext(path)[1]
            if not self.clips.has(digest, suffix):
                self.clips.write(digest, suffix, ray.get(ref))
        return self.clips.localise(request, {p: d for p, (d, _) in clips.items()})

    def pump(self, units: list[tuple], streams: int) -> tuple:
        """Take `units` ((ticket, method, request, clips, args) each; method `generate` or
        `generate_scene`), voice them with the worker's batch of `streams` streams (a scene
        group alone, at once) and return the first that finishes (see the module docstring).
        Raises LookupError when nothing is in hand."""
        if self._batch is None:
            self._batch = self.backend.open_batch(streams)
        for ticket, method, request, clips, args in units:
            request = self._local(request, clips)
            if method == "generate_scene":
                self._direct.append((ticket, request, args))
            else:
                self._own[self._batch.submit(request)] = (ticket, time.perf_counter())
        if self._direct:
            ticket, request, args = self._direct.popleft()
            return self._scene(ticket, request, args)
        done = self._batch.next_done()
        ticket, started = self._own.pop(done.ticket)
        seconds = time.perf_counter() - started
        if done.error is not None:
            status = "failed" if isinstance(done.error, FailedAttempt) else "refused"
            return ticket, status, str(done.error), seconds, self._fresh_notices()
        return ticket, "ok", done.generation, seconds, self._fresh_notices()

    def _scene(self, ticket: int, request: GenerationRequest, args: tuple) -> tuple:
        started = time.perf_counter()
        try:
            result = self.backend.generate_scene(request, *args)
        except EngineError as err:
            return ticket, "refused", str(err), time.perf_counter() - started, self._fresh_notices()
        return ticket, "ok", result, time.perf_counter() - started, self._fresh_notices()

    def reset(self) -> None:
        """Drop the streams in hand (the driver's batch closed); the next `pump` starts a new
        batch."""
        if self._batch is not None:
            self._batch.close()
        self._batch, self._own = None, {}
        self._direct.clear()

    def codec(self, method: str, array):
        """`backend.encode_audio(array)` (method `encode_audio`) or `backend.decode_codes(array)`."""
        if method == "encode_audio":
            return self.backend.encode_audio(array)
        return self.backend.decode_codes(array)

    def close(self) -> None:
        """Free the backend (models and devices)."""
        self.reset()
        if self.backend is not None:
            self.backend.close()
