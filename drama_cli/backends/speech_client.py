"""The transport under the server backends: one `SpeechClient` per server sends `WireRequest`s
(`speech_wire.py`) with httpx and reads the audio as it arrives (`speech_stream.py`).

httpx is a well-kept HTTP client with streamed bodies, separate connect and read timeouts and
HTTP/1.1 keep-alive; one `httpx.Client` (thread-safe) is shared by the requests in flight.

Per request: a connect and a read timeout (a stream that stops sending for longer than the read
timeout is an error); 429 and 5xx answers retried with exponential backoff, waiting what
`Retry-After` asks (seconds or an HTTP date) when it is given, up to a bounded number of
attempts; every failure a `ServerError` of one line naming the server and the cause (see its
`cause`), with the server's own message read from its error envelope (OpenAI
`{"error": {"message"}}`, FastAPI `{"detail"}`, Fish `{"status", "message"}`, a 422 list).
The API key goes only into the Authorization header: no message, repr or log holds it, and
every message is scrubbed of it in case a server echoes it back.

Each answer comes back with the model that voiced it (`ServerModel`: from the answer's headers,
else the server's model list, read once), so takes can record it. Facts:
docs/internals/servers.md.
"""

from __future__ import annotations

import email.utils
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from drama_cli.backends.speech_keys import ApiKey
from drama_cli.backends.speech_stream import SampleCallback, ServerAudio, read_answer
from drama_cli.backends.speech_wire import WireRequest
from drama_cli.errors import ServerError, UsageError

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
MODEL_HEADERS = (
    "x-model-id",
    "x-model",
    "model",
)  # the first one an answer carries names its model
VERSION_HEADERS = ("x-model-version", "x-server-version")
ERROR_BODY_LIMIT = 64 * 1024  # bytes of an error answer read for its message
MESSAGE_LIMIT = 300  # characters of a server's message kept in an error line


@dataclass(frozen=True)
class Timeouts:
    """Seconds to wait for a connection (`connect_s`) and for each next piece of an answer
    (`read_s`: a stream silent for longer is an error)."""

    connect_s: float = 10.0
    read_s: float = 120.0


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of 429 and 5xx answers: at most `attempts` tries in all; the wait before try n+1
    is what `Retry-After` asks, else `backoff_s * 2**(n-1)` capped at `max_backoff_s`; a
    `Retry-After` longer than `max_wait_s` ends the retries at once."""

    attempts: int = 4
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    max_wait_s: float = 120.0


@dataclass(frozen=True)
class ServerModel:
    """The model a server says voiced an answer: its id and version (None when the server
    does not say)."""

    id: str | None
    version: str | None = None


@dataclass(frozen=True)
class SpeechAnswer:
    """One answered request: `audio` (float32 mono at 44,100 Hz, `ServerAudio`), the `model`
    that voiced it, the `attempts` it took, `finish_reason` (the `X-Finish-Reason` header, e.g.
    `length` for a take stopped at its token budget; None without one) and the answer's
    `headers` (lower-case names; cookies left out)."""

    audio: ServerAudio
    model: ServerModel
    attempts: int
    finish_reason: str | None
    headers: dict[str, str]


def server_label(url: str) -> str:
    """`scheme://host[:port]` of `url`, without credentials, path or query: how messages name a
    server. Raises UsageError when `url` is not an http(s) URL with a host."""
    try:  # a bad IPv6 bracket or port raises ValueError (the port only when read)
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--server {url!r}: not an http:// or https:// URL with a host")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def retry_after_s(value: str | None, now_s: float) -> float | None:
    """The wait in seconds a `Retry-After` header asks for: a number of seconds or an HTTP
    date (its distance from `now_s`, epoch seconds; 0 when past). None when absent or
    unreadable."""
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now_s)


def envelope_message(body: bytes, content_type: str | None) -> str | None:
    """The message of an error answer, one line: OpenAI's `{"error": {"message"}}` (or a
    string `error`), FastAPI's `{"detail": ...}` (a string, or a 422 list of `{loc, msg}`),
    Fish's `{"status", "message"}`, a bare list of such items, or a short plain-text body.
    None for an empty or HTML body."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        if "html" in (content_type or "").lower() or text.lstrip().startswith("<"):
            return None
        return _one_line(text)
    return _one_line(_message_of(parsed)) if _message_of(parsed) else None


def _message_of(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        items = [_message_of(item) for item in value]
        return "; ".join(item for item in items if item) or None
    if not isinstance(value, dict):
        return None
    if "error" in value and value["error"]:
        return _message_of(value["error"])
    if "detail" in value and value["detail"]:
        return _message_of(value["detail"])
    if "msg" in value:
        where = ".".join(str(part) for part in value.get("loc", ()) if part != "body")
        return f"{where}: {value['msg']}" if where else str(value["msg"])
    if value.get("message"):
        return str(value["message"])
    return None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MESSAGE_LIMIT else line[: MESSAGE_LIMIT - 1] + "…"


class SpeechClient:
    """Requests to one speech server at `server` (an http(s) URL; its path is ignored).

    api_key: sent as `Authorization: Bearer …` (None: no header). timeouts, retry: see
    `Timeouts` and `RetryPolicy`. connections: the most connections kept open (set it to the
    number of requests in flight). sleep, clock: how to wait and what time it is (injected
    by tests). The repr shows the server only. Use as a context manager or call `close()`.
    """

    def __init__(
        self,
        server: str,
        api_key: ApiKey | None = None,
        *,
        timeouts: Timeouts = Timeouts(),
        retry: RetryPolicy = RetryPolicy(),
        connections: int = 8,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ):
        self.server = server_label(server)
        self.timeouts, self.retry = timeouts, retry
        self._key = api_key
        self._sleep, self._clock = sleep, clock
        self._models: dict[str, ServerModel] = {}
        self._lock = threading.Lock()
        self._http = httpx.Client(
            base_url=self.server,
            timeout=httpx.Timeout(timeouts.read_s, connect=timeouts.connect_s),
            limits=httpx.Limits(
                max_connections=max(1, connections), max_keepalive_connections=max(1, connections)
            ),
            follow_redirects=False,
            trust_env=False,
        )

    def __repr__(self) -> str:
        return f"SpeechClient({self.server!r})"

    def __enter__(self) -> SpeechClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def speak(self, request: WireRequest, on_samples: SampleCallback | None = None) -> SpeechAnswer:
        """Send `request` and read its audio as it arrives (`on_samples(n)`: samples at the
        server's rate received so far).

        Raises ServerError (one line, see its `cause`): `unreachable`, `timeout`, `key`,
        `payment`, `busy`, `refused`, `format`, `truncated`, or `model` when the answer shows
        a model other than `request.expected_model`.
        """
        try:
            return self._speak(request, on_samples)
        except ServerError as err:
            raise ServerError(self._scrub(str(err)), err.cause, err.status) from None

    def server_model(self, models_path: str = "/v1/models") -> ServerModel:
        """The model the server lists first at `models_path` (OpenAI-style `{"data": [{"id",
        ...}]}`; its `version` or `revision` field when given), read once per client.
        `ServerModel(None)` when the list cannot be read."""
        with self._lock:
            if models_path in self._models:
                return self._models[models_path]
        found = ServerModel(None)
        try:
            response = self._http.get(models_path, headers=self._auth())
            listed = response.json().get("data") if response.status_code == 200 else None
            if isinstance(listed, list) and listed and isinstance(listed[0], dict):
                first = listed[0]
                version = first.get("version", first.get("revision"))
                found = ServerModel(
                    str(first["id"]) if "id" in first else None,
                    None if version is None else str(version),
                )
        except (httpx.HTTPError, ValueError, AttributeError):
            pass
        with self._lock:
            self._models[models_path] = found
        return found

    def _auth(self) -> dict[str, str]:
        return {} if self._key is None else {"Authorization": f"Bearer {self._key.reveal()}"}

    def _scrub(self, text: str) -> str:
        if self._key is not None and self._key.reveal():
            text = text.replace(self._key.reveal(), "[the key]")
        return text

    def _build(self, request: WireRequest) -> httpx.Request:
        headers = {**request.headers, **self._auth()}
        if request.content is not None:
            headers["Content-Type"] = request.content_type or "application/octet-stream"
            return self._http.build_request(
                "POST", request.path, content=request.content, headers=headers
            )
        if request.fields is not None or request.files is not None:
            return self._http.build_request(
                "POST", request.path, data=request.fields, files=request.files, headers=headers
            )
        return self._http.build_request("POST", request.path, json=request.json, headers=headers)

    def _speak(self, request: WireRequest, on_samples: SampleCallback | None) -> SpeechAnswer:
        attempts = max(1, self.retry.attempts)
        for attempt in range(1, attempts + 1):
            response = self._send(request)
            try:
                if response.status_code in RETRIED_STATUSES:
                    wait_s = self._retry_wait(response, attempt, attempts)
                else:
                    return self._answer(request, response, attempt, on_samples)
            finally:
                response.close()
            self._sleep(wait_s)
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _send(self, request: WireRequest) -> httpx.Response:
        try:
            return self._http.send(self._build(request), stream=True)
        except httpx.ConnectTimeout:
            raise ServerError(
                f"cannot reach {self.server} (no connection within {self.timeouts.connect_s:g} s)",
                "unreachable",
            ) from None
        except httpx.ConnectError as err:
            reason = "connection refused" if "refused" in str(err).lower() else _one_line(str(err))
            raise ServerError(f"cannot reach {self.server} ({reason})", "unreachable") from None
        except httpx.TimeoutException:
            raise self._timeout_error("before answering") from None
        except httpx.TransportError as err:
            raise ServerError(
                f"cannot reach {self.server} ({_one_line(str(err)) or type(err).__name__})",
                "unreachable",
            ) from None

    def _timeout_error(self, when: str) -> ServerError:
        return ServerError(
            f"{self.server} sent nothing for {self.timeouts.read_s:g} s {when} (read timeout)",
            "timeout",
        )

    def _retry_wait(self, response: httpx.Response, attempt: int, attempts: int) -> float:
        asked = retry_after_s(response.headers.get("retry-after"), self._clock())
        if attempt == attempts:
            raise self._status_error(
                response, f"after {attempts} attempt{'s' if attempts > 1 else ''}"
            )
        if asked is not None and asked > self.retry.max_wait_s:
            raise self._status_error(response, f"and asks to wait {asked:.0f} s")
        if asked is not None:
            return asked
        return min(self.retry.max_backoff_s, self.retry.backoff_s * 2 ** (attempt - 1))

    def _status_error(self, response: httpx.Response, note: str = "") -> ServerError:
        status = response.status_code
        try:
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) >= ERROR_BODY_LIMIT:
                    break
        except httpx.HTTPError:
            pass
        message = envelope_message(body, response.headers.get("content-type"))
        said = f": {message}" if message else ""
        note = f" {note}" if note else ""
        if status in (401, 403):
            what = (
                f"refused the API key from {self._key.source}"
                if self._key is not None
                else "needs an API key"
            )
            return ServerError(f"{self.server} {what} (HTTP {status}{said})", "key", status)
        if status == 402:
            return ServerError(
                f"{self.server} asks for payment (HTTP 402{said})", "payment", status
            )
        if status in RETRIED_STATUSES:
            return ServerError(f"{self.server} answered HTTP {status}{note}{said}", "busy", status)
        return ServerError(
            f"{self.server} refused the request (HTTP {status}{said})", "refused", status
        )

    def _answer(
        self,
        request: WireRequest,
        response: httpx.Response,
        attempt: int,
        on_samples: SampleCallback | None,
    ) -> SpeechAnswer:
        if response.status_code >= 300:
            raise self._status_error(response)
        headers = {
            name.lower(): value
            for name, value in response.headers.items()
            if name.lower() not in ("set-cookie",)
        }
        model = self._model_of(request, headers)
        try:
            audio = read_answer(
                headers.get("content-type"), headers, response.iter_bytes(), on_samples
            )
        except httpx.TimeoutException:
            raise self._timeout_error("in the middle of its answer") from None
        except httpx.RemoteProtocolError:
            raise ServerError(
                f"{self.server} closed the connection in the middle of its answer (cut short)",
                "truncated",
            ) from None
        except httpx.TransportError as err:
            raise ServerError(
                f"{self.server} broke off its answer ({_one_line(str(err))})", "truncated"
            ) from None
        except ServerError as err:
            raise ServerError(f"{self.server}: {err}", err.cause, err.status) from None
        return SpeechAnswer(audio, model, attempt, headers.get("x-finish-reason"), headers)

    def _model_of(self, request: WireRequest, headers: dict[str, str]) -> ServerModel:
        named = next((headers[h] for h in MODEL_HEADERS if headers.get(h)), None)
        version = next((headers[h] for h in VERSION_HEADERS if headers.get(h)), None)
        expected = request.expected_model
        if expected is not None and named is not None and named != expected:
            raise ServerError(
                f"{self.server} voiced the take with model {named}, not {expected}; "
                "the take is refused",
                "model",
            )
        if named is not None:
            return ServerModel(named, version)
        if expected is not None:
            return ServerModel(expected, version)
        if request.models_path is not None:
            listed = self.server_model(request.models_path)
            return ServerModel(listed.id, version or listed.version)
        return ServerModel(None, version)
