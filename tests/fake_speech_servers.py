"""Fake speech servers for the tests: starlette apps speaking each server's wire format
(docs/internals/servers.md), served by uvicorn on 127.0.0.1 on a port the OS picks.

`FakeSpeechServer(style)` is one server (`sglang`, `vllm`, `llama` or `fish`); `serving(fake)`
starts it on a thread, waits until it accepts connections and stops it afterwards. Each fake
records the requests it received (`requests`), counts the requests in flight
(`most_in_flight`), answers a deterministic 440 Hz tone at its own rate, and fails on demand
(`fail(kind, ...)`, one queued fault per request): an HTTP status with an error envelope in a
chosen style (and a `Retry-After`), a stalled stream, a truncated stream, a wrong sample rate,
an answer voiced by another model, an unexpected content type.
"""

from __future__ import annotations

import asyncio
import base64
import email.parser
import email.policy
import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import anyio.to_thread
import msgpack
import numpy as np
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

CHUNK_BYTES = 4096
FISH_DEFAULT_MODEL = "s2.1-pro"  # what the hosted API voices with when the model header is wrong
ENVELOPE_OF = {"sglang": "openai", "vllm": "openai", "llama": "openai", "fish": "fish"}


def tone(rate: int, seconds: float) -> np.ndarray:
    """A 440 Hz sine at amplitude 0.25: float32 mono [rate * seconds] at `rate` Hz."""
    t = np.arange(int(round(rate * seconds))) / rate
    return (0.25 * np.sin(2 * np.pi * 440.0 * t)).astype(np.float32)


def pcm16(samples: np.ndarray) -> bytes:
    """float32 samples as little-endian PCM16 bytes."""
    return (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()


def wav_header(rate: int, data_bytes: int) -> bytes:
    """The 44-byte header of a PCM16 mono WAV whose data is `data_bytes` long."""
    return (
        b"RIFF"
        + struct.pack("<I", (36 + data_bytes) & 0xFFFFFFFF)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
        + b"data"
        + struct.pack("<I", data_bytes & 0xFFFFFFFF)
    )


def envelope(style: str, status: int, message: str) -> object:
    """An error body in one server style: `openai`, `fastapi`, `fish` or `422` (a list)."""
    if style == "openai":
        return {
            "error": {"message": message, "type": "invalid_request", "param": None, "code": status}
        }
    if style == "fastapi":
        return {"detail": message}
    if style == "fish":
        return {"status": status, "message": message, "reason": "test"}
    if style == "422":
        return [{"loc": ["body", "text"], "msg": message, "type": "value_error"}]
    raise ValueError(style)


@dataclass
class Received:
    """A request a fake received: its path, headers (lower-case names) and decoded body (JSON,
    msgpack, or multipart fields with files as bytes)."""

    path: str
    headers: dict[str, str]
    body: object


@dataclass
class Fault:
    """A fault the next request meets: `kind` is `status`, `stall`, `truncate`, `rate`,
    `model` or `content_type`; the other fields shape it."""

    kind: str
    status: int = 500
    style: str | None = None  # the error envelope's style (None: the server's own)
    message: str = "the fake failed on purpose"
    retry_after: str | None = None
    rate: str | None = None  # `rate`: the X-Sample-Rate sent (None: none)
    wav_rate: int | None = None  # `rate`: the rate the WAV header says


@dataclass
class FakeSpeechServer:
    """One fake server of `style` answering a `seconds`-long tone at `rate` Hz; `api_key`:
    the key it wants (None: any); `model_id` / `model_version`: what it reports."""

    style: str
    rate: int = 44_100
    seconds: float = 0.5
    api_key: str | None = None
    model_id: str = "drama-3"
    model_version: str = "fake-1.0"
    report_model: bool = True  # OpenAI styles: X-Model-Id / X-Model-Version on every answer
    url: str = ""
    requests: list[Received] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0
    faults: deque = field(default_factory=deque)
    released: threading.Event = field(default_factory=threading.Event)
    stalled: threading.Event = field(default_factory=threading.Event)
    _barrier: threading.Barrier | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, kind: str, times: int = 1, **shape) -> None:
        """Queue `times` faults of `kind` (see `Fault`) for the next requests."""
        for _ in range(times):
            self.faults.append(Fault(kind, **shape))

    def hold(self, count: int) -> None:
        """Make every request wait until `count` requests are in flight at once (a request
        still waiting after 10 s is answered 500)."""
        self._barrier = threading.Barrier(count, timeout=10)

    def app(self) -> Starlette:
        """The starlette app."""
        routes = [Route("/v1/models", self._models, methods=["GET"])]
        routes.append(Route("/health", lambda request: Response("ok"), methods=["GET"]))
        if self.style == "fish":
            routes += [
                Route("/v1/tts", self._speech, methods=["POST"]),
                Route("/v1/audio/infill", self._speech, methods=["POST"]),
            ]
        else:
            routes.append(Route("/v1/audio/speech", self._speech, methods=["POST"]))
        if self.style == "llama":
            routes.append(Route("/tts", self._speech, methods=["POST"]))
        return Starlette(routes=routes)

    async def _models(self, request: Request) -> Response:
        item = {"id": self.model_id, "object": "model", "version": self.model_version}
        return JSONResponse({"object": "list", "data": [item]})

    def _error(self, status: int, message: str, style: str | None = None, **headers) -> Response:
        body = envelope(style or ENVELOPE_OF[self.style], status, message)
        return JSONResponse(body, status_code=status, headers=headers)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    async def _speech(self, request: Request) -> Response:
        """A speech request, counted in flight from its arrival until just before the last
        piece of its answer leaves (so a client that starts the next request on reading it
        never sees one too many)."""
        self._enter()
        try:
            response = await self._answer(request)
        except BaseException:
            self._leave()
            raise
        if not isinstance(response, StreamingResponse):
            self._leave()
        return response

    async def _answer(self, request: Request) -> Response:
        raw = await request.body()
        headers = {name.lower(): value for name, value in request.headers.items()}
        body = decode_body(headers.get("content-type", ""), raw)
        self.requests.append(Received(request.url.path, headers, body))
        if self._barrier is not None:
            try:
                await anyio.to_thread.run_sync(self._barrier.wait)
            except threading.BrokenBarrierError:
                return self._error(500, "not enough requests in flight")
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            given = headers.get("authorization", "").removeprefix("Bearer ")
            return self._error(401, f"invalid api key {given!r}")
        fault = self.faults.popleft() if self.faults else Fault("none")
        if fault.kind == "status":
            extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            return self._error(fault.status, fault.message, fault.style, **extra)
        if fault.kind == "content_type":
            return Response("<html>gateway</html>", media_type="text/html")
        return self._audio(request.url.path, body, headers, fault)

    def _audio(self, path: str, body, headers: dict, fault: Fault) -> Response:
        mode, rate, events = self._shape(path, body)
        samples = pcm16(tone(rate, self.seconds))
        answer_headers = {}
        if self.style == "fish":
            wanted = "drama-3" if path.endswith("infill") else "drama-3-preview"
            model = wanted if headers.get("model") == wanted else FISH_DEFAULT_MODEL
            answer_headers["model"] = FISH_DEFAULT_MODEL if fault.kind == "model" else model
        elif self.report_model:
            answer_headers["X-Model-Id"] = self.model_id
            answer_headers["X-Model-Version"] = self.model_version
        if self.style == "sglang":
            answer_headers["X-Finish-Reason"] = "stop"
        if mode != "wav":
            answer_headers["X-Sample-Rate"] = str(rate)
        if fault.kind == "rate":
            answer_headers.pop("X-Sample-Rate", None)
            if fault.rate is not None:
                answer_headers["X-Sample-Rate"] = fault.rate
        cut = fault.kind == "truncate"
        if mode == "wav":
            header = wav_header(fault.wav_rate or rate, len(samples))
            payload = header + (samples[: len(samples) // 2] if cut else samples)
            media, pieces = "audio/wav", _pieces(payload)
        elif mode == "pcm":
            media, pieces = "audio/pcm", _pieces(samples[:-1] if cut else samples)
        else:
            media, pieces = "text/event-stream", self._events(samples, events, cut)
        return StreamingResponse(
            self._paced(pieces, fault), media_type=media, headers=answer_headers
        )

    def _shape(self, path: str, body) -> tuple[str, int, bool]:
        """(answer mode wav|pcm|sse, rate, SSE with event lines) for a request."""
        body = body if isinstance(body, dict) else {}
        if self.style == "fish":
            rate = int(body.get("sample_rate", self.rate))
            return ("pcm" if body.get("format") == "pcm" else "wav"), rate, False
        if path == "/tts":
            return "pcm", self.rate, False
        if not body.get("stream"):
            return "wav", self.rate, False
        if body.get("stream_format") == "sse":
            return "sse", self.rate, self.style == "vllm"
        return "pcm", self.rate, False

    def _events(self, samples: bytes, named: bool, cut: bool) -> list[bytes]:
        frames = []
        for piece in _pieces(samples):
            delta = {"type": "speech.audio.delta", "audio": base64.b64encode(piece).decode()}
            frames.append(_event("speech.audio.delta" if named else None, delta))
        if not cut:
            done = {"type": "speech.audio.done", "usage": {"output_tokens": 10}}
            frames.append(_event("speech.audio.done" if named else None, done))
        return frames

    async def _paced(self, pieces: list[bytes], fault: Fault):
        for number, piece in enumerate(pieces):
            stall = fault.kind == "stall" and number == 0
            if stall or number == len(pieces) - 1:
                self._leave()
            yield piece
            if stall:
                self.stalled.set()
                await anyio.to_thread.run_sync(self.released.wait)
                return
            await asyncio.sleep(0)


def _pieces(data: bytes) -> list[bytes]:
    return [data[at : at + CHUNK_BYTES] for at in range(0, len(data), CHUNK_BYTES)] or [b""]


def _event(name: str | None, data: dict) -> bytes:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def decode_body(content_type: str, raw: bytes) -> object:
    """A request body decoded by its content type: JSON, msgpack, or multipart form fields
    (strings) and files (bytes)."""
    media = content_type.split(";")[0].strip().lower()
    if media == "application/json":
        return json.loads(raw)
    if media == "application/msgpack":
        return msgpack.unpackb(raw)
    if media == "multipart/form-data":
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        form = {}
        for part in message.iter_parts():
            payload = part.get_payload(decode=True)
            name = part.get_param("name", header="content-disposition")
            form[name] = payload if part.get_filename() else payload.decode()
        return form
    return raw


class _Server(uvicorn.Server):
    """A uvicorn server that says when it accepts connections."""

    def __init__(self, config: uvicorn.Config):
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        self.ready.set()


@contextmanager
def serving(fake: FakeSpeechServer) -> Iterator[FakeSpeechServer]:
    """Serve `fake` on 127.0.0.1 on a free port (its `url` set) until the block ends; returns
    once the server accepts connections. Stalled answers are released before it stops."""
    listener = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(
        fake.app(), log_level="warning", lifespan="off", timeout_graceful_shutdown=2
    )
    server = _Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    if not server.ready.wait(30):
        raise RuntimeError("the fake speech server did not start")
    fake.url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        yield fake
    finally:
        fake.released.set()
        server.should_exit = True
        thread.join(10)
        listener.close()


@contextmanager
def refusing_port() -> Iterator[str]:
    """The URL of a port on 127.0.0.1 that is bound but not listening, so every connection is
    refused, for as long as the block runs."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()
