"""The Ray actor of a cluster render: one backend, built on its node and loaded once, voicing
one request at a time. The model folder is resolved on the node (`--model` as given, else
that node's `DRAMA_MODEL` or huggingface_hub cache); a node without one reports it, named, in
`describe()` instead of failing later.

Results come back as plain tuples so that nothing but data crosses the network:
`("ok", result, seconds, notices)` or `("refused", message, seconds, notices)` for an
EngineError (the driver reports the line as the engine refusing it), with the backend's
one-line notices since the last call; any other exception raises to the driver, which retries
the unit on another worker.
"""

from __future__ import annotations

import os
import socket
import time

from drama_cli.backends.base import GenerationRequest
from drama_cli.backends.cluster.clips import ClipFolder
from drama_cli.backends.registry import make_backend
from drama_cli.errors import DramaError
from engine.errors import EngineError


def node_name() -> str:
    """This machine as the messages name it: `hostname (ip)`."""
    import ray

    return f"{socket.gethostname()} ({ray.util.get_node_ip_address()})"


class BackendWorker:
    """One backend on one node (a Ray actor class; `pool` makes it remote).

    engine, model, device, graph: as `drama_cli.backends.registry.make_backend` takes them,
    resolved here on the worker's node.
    """

    def __init__(self, engine: str, model: str | None, device: str | None, graph: bool = True):
        self.node = node_name()
        self.notices: list[str] = []
        self._told = 0  # notices already sent to the driver
        self.error: str | None = None
        self.backend = None
        self.clips = ClipFolder()
        try:
            self.backend = make_backend(engine, model, notice=self.notices.append,
                                        device=device, graph=graph)
        except (DramaError, EngineError) as err:
            self.error = f"worker on node {self.node}: {err}"

    def describe(self) -> dict:
        """Node, process id, notices so far and, when the backend could not be built, the
        error; else the backend's name, scratch flag, capabilities and identity."""
        facts = {"node": self.node, "pid": os.getpid(), "error": self.error,
                 "notices": self._fresh_notices()}
        if self.backend is not None:
            facts.update(name=self.backend.name, scratch=bool(self.backend.scratch),
                         capabilities=self.backend.capabilities,
                         identity=self.backend.identity())
        return facts

    def _local(self, request: GenerationRequest, clips: dict) -> GenerationRequest:
        """The request with its shipped clips (path -> (sha256, object ref)) copied here."""
        import ray

        for path, (digest, ref) in clips.items():
            suffix = os.path.splitext(path)[1]
            if not self.clips.has(digest, suffix):
                self.clips.write(digest, suffix, ray.get(ref))
        return self.clips.localise(request, {p: d for p, (d, _) in clips.items()})

    def _fresh_notices(self) -> list[str]:
        fresh, self._told = self.notices[self._told:], len(self.notices)
        return fresh

    def call(self, method: str, request: GenerationRequest, clips: dict, *args) -> tuple:
        """Run `backend.<method>(request, *args)` (`generate` or `generate_scene`) and return
        `("ok", result, seconds, notices)`, or `("refused", message, seconds, notices)` for an
        EngineError (seconds: the backend's time; notices: its new one-line messages)."""
        started = time.perf_counter()
        if self.backend is None:
            return "refused", self.error, 0.0, []
        try:
            result = self._run(method, self._local(request, clips), args)
        except EngineError as err:
            return "refused", str(err), time.perf_counter() - started, self._fresh_notices()
        return "ok", result, time.perf_counter() - started, self._fresh_notices()

    def _run(self, method: str, request: GenerationRequest, args: tuple):
        if method == "generate_scene":
            return self.backend.generate_scene(request, *args)
        return self.backend.generate(request)

    def codec(self, method: str, array):
        """`backend.encode_audio(array)` (method `encode_audio`) or `backend.decode_codes(array)`."""
        if method == "encode_audio":
            return self.backend.encode_audio(array)
        return self.backend.decode_codes(array)

    def close(self) -> None:
        """Free the backend (models and devices)."""
        if self.backend is not None:
            self.backend.close()
