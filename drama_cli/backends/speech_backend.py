"""What the server backends (`sglang`, `vllm`, `llama`, `fish`) share: their options record,
turning a `GenerationRequest` into one server request, running it through `SpeechClient`, and
several requests in flight for `--batch N`.

A server backend voices the `clone` layout (and Fish's hosted API the `infill` layout of
`drama edit`); the render plans history mode as clone and refuses revise and scene mode before
any take is made (`drama_cli.render.plan.layout_for_backend`: a backend that needs the network
is refused scene mode rather than falling back), and, on a backend that voices one speaker per
request (`Capabilities.multi_speaker` False), a line with a voice switch
(`drama_cli.render.plan.refuse_voice_switches`). The request's speakers are
numbered again from 0 in the order of their indices (the scene's map may give a line's speaker
index 3; a server wants the voices it is sent as 0, 1, ...), in the text and in every reference
transcript. References travel as 16-bit WAV at 44,100 Hz (read once per file).

Failures (`drama_cli.errors.ServerError`): a try that failed on the way (an answer cut short,
voiced by another model, a server still busy after its own retries, a timeout; `RETRY_CAUSES`)
becomes a `FailedAttempt`, which the render tries again while `--retries` allows, keeping
nothing of it; a request the server refuses or answers in an unreadable form becomes an
EngineError, so the render records that line as refused by the engine and goes on with the
others; what concerns every take (the server cannot be reached, it
refuses the key, it asks for payment) stops the render with the client's one line. A take the
server stopped at its token budget (`X-Finish-Reason: length`) comes back with stop reason
`length`, so the take checks fail it and the render's retries apply.

The API key is only ever read from the environment variable named by `--api-key-env` (or the
backend's default variable), else from the keyring entry `drama/<engine>`; the options record
holds the variable's name, never the key. The wire facts are in docs/internals/servers.md.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drama_cli.backends.base import (
    BackendDefaults,
    FailedAttempt,
    FrameCallback,
    Generation,
    GenerationRequest,
    StreamDone,
    backend_option,
)
from drama_cli.errors import ServerError, UsageError
from engine import Conversation, EngineError
from engine.constants import SAMPLE_RATE, SPEAKER_TAG

if TYPE_CHECKING:
    from drama_cli.backends.registry import BackendOptions
    from drama_cli.backends.speech_client import ServerModel, SpeechClient
    from drama_cli.backends.speech_wire import Reference, WireRequest

DEFAULT_TIMEOUT_S = 120.0
CONNECTIONS = 64  # connections the client keeps open (the most requests in flight it serves)
# ServerError causes that concern one take (an EngineError: the line is refused, the render
# goes on); the others (unreachable, key, payment) stop the render. Of these, RETRY_CAUSES are
# tries that failed on the way: a FailedAttempt, tried again while --retries allows.
TAKE_CAUSES = frozenset({"truncated", "model", "busy", "timeout", "format", "refused", "request"})
RETRY_CAUSES = frozenset({"truncated", "model", "busy", "timeout"})


def parse_timeout(text: str) -> float:
    """`--timeout` seconds as a positive float. Raises UsageError for anything else."""
    try:
        seconds = float(text)
    except ValueError:
        raise UsageError(f"--timeout {text!r}: not a number of seconds") from None
    if not seconds > 0:
        raise UsageError(f"--timeout {text!r}: must be more than 0 seconds")
    return seconds


def parse_env_name(text: str) -> str:
    """`--api-key-env` as an environment variable's name. Raises UsageError for a value that
    is not one (a key pasted in by mistake is not echoed back)."""
    name = text.strip()
    if not name or not all(c.isalnum() or c == "_" for c in name) or name[0].isdigit():
        raise UsageError(
            "--api-key-env takes the name of an environment variable (e.g. FISH_API_KEY), "
            "not the key itself"
        )
    return name


@dataclass(frozen=True)
class ServerOptions:
    """The options every server backend takes (`ServerBackend.options_type`).

    server: the server's URL (None: the backend's default, if it has one).
    api_key_env: the environment variable that holds the API key (None: the backend's
        default variable, if any); the name is saved with the project, the key never.
    timeout: seconds a server may stay silent before the request fails.
    """

    server: str | None = backend_option(
        None,
        "--server",
        "The speech server's URL for sglang, vllm, llama and fish, e.g. http://gpu-box:8000"
        " (fish: Fish Audio's API unless given).",
    )
    api_key_env: str | None = backend_option(
        None,
        "--api-key-env",
        "The environment variable holding the server's API key (fish: FISH_API_KEY unless"
        " given); its name is saved with the project, the key never.",
        parse=parse_env_name,
    )
    timeout: float = backend_option(
        DEFAULT_TIMEOUT_S,
        "--timeout",
        "Seconds a speech server may stay silent before the request fails.",
        parse=parse_timeout,
        kind=float,
    )


def renumbered(text: str, index: dict[int, int]) -> str:
    """`text` with each `<|speaker:k|>` written as `<|speaker:index[k]|>`."""
    return SPEAKER_TAG.sub(lambda m: f"<|speaker:{index[int(m.group(1))]}|>", text)


def speaker_order(conversation: Conversation) -> list[int]:
    """The speaker indices a conversation uses (its text's tags and its references), sorted:
    position n is the speaker sent as `<|speaker:n|>`."""
    tagged = {int(k) for k in SPEAKER_TAG.findall(conversation.text or "")}
    return sorted(tagged | {ref.speaker for ref in conversation.references})


def server_failure(err: ServerError) -> Exception:
    """What a backend raises for a failed server request: a `FailedAttempt` (tried again while
    `--retries` allows) for a try that failed on the way (`RETRY_CAUSES`), an EngineError (the
    line is refused, the render goes on) for another failure of that take (`TAKE_CAUSES`), else
    the ServerError itself (one line; the render stops)."""
    if err.cause in RETRY_CAUSES:
        return FailedAttempt(f"{err.cause}: {err}")
    if err.cause in TAKE_CAUSES:
        return EngineError(str(err))
    return err


class ServerBatch:
    """A `StreamBatch` with up to `size` requests in flight at once (`RequestPool`), each
    result handed back as it finishes."""

    def __init__(self, backend: ServerBackend, size: int):
        # lazy: the pool's threads start only for a render
        from drama_cli.backends.speech_pool import RequestPool

        self.backend, self.size = backend, max(1, size)
        self._pool = RequestPool(self.size)

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int:
        return self._pool.submit(lambda: self.backend.generate(request, on_frames))

    def active(self) -> int:
        return self._pool.active()

    def next_done(self) -> StreamDone:
        finished = self._pool.next_done()
        if finished.error is None:
            return StreamDone(finished.ticket, finished.result)
        if isinstance(finished.error, EngineError):
            return StreamDone(finished.ticket, error=finished.error)
        raise finished.error

    def close(self) -> None:
        self._pool.close()


class ServerBackend(BackendDefaults):
    """A backend that voices takes on a speech server. Subclasses set `name`, `capabilities`,
    `default_server` / `default_key_env` (None: none) and `key_required`, and build the wire
    request in `wire_request`.

    The server's model is read once (`server_model`); `identity()` holds the server's origin
    (scheme, host and port: no path, query or credentials), the model id and version, so a take
    from a server never shares a cache key with one of the embedded engine.
    """

    scratch = False
    options_type = ServerOptions
    default_server: str | None = None
    default_key_env: str | None = None
    key_required = False
    lists_models = True  # the server answers GET /v1/models

    def __init__(
        self, options: ServerOptions = ServerOptions(), notice: Callable[[str], None] = print
    ):
        self.options, self.notice = options, notice
        self._checked = False
        self.url = self.origin = ""
        self.timeout_s = DEFAULT_TIMEOUT_S
        self._key = None
        self._client: SpeechClient | None = None
        self._model: ServerModel | None = None
        self._lock = threading.Lock()
        self._wavs: dict[str, bytes] = {}

    def check(self) -> None:
        """Read the options once, before the first request (and `identity`): the server, the
        timeout and the API key. Raises UsageError, one line, without a server, for a bad URL
        or timeout, or for a key that is named or needed and not found."""
        if self._checked:
            return
        # lazy: httpx, read only when a server backend is used
        from drama_cli.backends.speech_client import server_label
        from drama_cli.backends.speech_keys import find_api_key

        options = self.options
        server = options.server or self.default_server
        if not server:
            raise UsageError(
                f"--engine {self.name} needs --server URL "
                "(the speech server's address, e.g. http://gpu-box:8000)"
            )
        origin = server_label(server)
        timeout_s = parse_timeout(str(options.timeout))
        env_var = options.api_key_env or self.default_key_env
        key = find_api_key(env_var, self.name) if env_var else None
        if options.api_key_env and key is None:
            raise UsageError(
                f"--api-key-env {options.api_key_env}: the variable is not set "
                f"(and no keyring entry drama/{self.name})"
            )
        if self.key_required and key is None:
            raise UsageError(
                f"--engine {self.name} needs an API key: set {env_var} "
                "(or name another variable with --api-key-env)"
            )
        self.url, self.origin, self.timeout_s, self._key = server, origin, timeout_s, key
        self._checked = True

    @classmethod
    def from_options(cls, options: BackendOptions) -> ServerBackend:
        """The backend `--engine NAME` gets: its `ServerOptions` (`options.own`) and the notice
        callback. Nothing is checked or sent until it is used (`check`)."""
        own = options.own if isinstance(options.own, ServerOptions) else ServerOptions()
        return cls(own, options.notice)

    # ---- the server -------------------------------------------------------------------

    def client(self) -> SpeechClient:
        """The one `SpeechClient` of this backend (made on first use; safe across threads)."""
        self.check()
        with self._lock:
            if self._client is None:
                # lazy: httpx
                from drama_cli.backends.speech_client import SpeechClient, Timeouts

                self._client = SpeechClient(
                    self.url,
                    self._key,
                    timeouts=Timeouts(read_s=self.timeout_s),
                    connections=CONNECTIONS,
                )
            return self._client

    def server_model(self) -> ServerModel:
        """The model the server reports (read once; `ServerModel(None)` when it lists none)."""
        # lazy: httpx
        from drama_cli.backends.speech_client import ServerModel

        if self._model is None:
            found = self.client().server_model() if self.lists_models else ServerModel(None)
            self._model = self.reported_model(found)
        return self._model

    def reported_model(self, listed: ServerModel) -> ServerModel:
        """The model to record when the server's list says `listed` (a backend whose server
        lists none names the model it asks for)."""
        return listed

    def identity(self) -> dict:
        """Engine name, the server's origin, its model id and version (part of every cache
        key)."""
        self.check()
        model = self.server_model()
        return {
            "engine": self.name,
            "server": self.origin,
            "model": model.id,
            "revision": model.version,
        }

    # ---- requests ---------------------------------------------------------------------

    def reference_wav(self, clip, where: str) -> bytes:
        """The bytes of a 16-bit WAV at 44,100 Hz of a reference `clip` (its file, read once).
        Raises EngineError for a clip without a file; AudioError for an unreadable one."""
        if not clip.path:
            raise EngineError(f"the {self.name} engine needs {where} as an audio file")
        with self._lock:
            known = self._wavs.get(clip.path)
        if known is None:
            # lazy: soundfile, soxr and torch (the reference reader)
            from drama_cli.backends.reference_audio import load_audio
            from drama_cli.backends.speech_wire import wav_bytes

            known = wav_bytes(load_audio(clip.path))
            with self._lock:
                self._wavs[clip.path] = known
        return known

    def voices(self, conversation: Conversation) -> tuple[str, list[list[Reference]]]:
        """The request's text and each speaker's references, the speakers numbered again from
        0 (`speaker_order`); transcripts tagged with their speaker's new tag."""
        # lazy: msgpack and soundfile (the wire module)
        from drama_cli.backends.speech_wire import Reference

        order = speaker_order(conversation)
        index = {k: n for n, k in enumerate(order)}
        groups: list[list[Reference]] = [[] for _ in order]
        for number, ref in enumerate(conversation.references, 1):
            text = renumbered(ref.transcript or "", index)
            wav = self.reference_wav(ref.clip, f"reference {number}")
            groups[index[ref.speaker]].append(Reference(wav, text, ref.clip.codes))
        return renumbered(conversation.text, index), groups

    def one_voice(self, request: GenerationRequest) -> tuple[str, list[Reference]]:
        """The text and references of a request with one speaker. Raises EngineError for a
        request with several (a line that switches voices; the render refuses those while
        planning, this guards direct calls)."""
        text, groups = self.voices(request.conversation)
        if len(groups) > 1:
            raise EngineError(
                f"the {self.name} engine voices one speaker per request; line "
                f"{request.line_id} has {len(groups)} voices (render it with drama3 or fish)"
            )
        return text, groups[0] if groups else []

    def sampling(self, request: GenerationRequest):
        """The request's sampling as the wire modules send it (`Sampling`)."""
        # lazy: msgpack and soundfile (the wire module)
        from drama_cli.backends.speech_wire import Sampling

        given = request.sampling
        max_new = given.get("max_new_tokens")
        top_k = given.get("top_k")
        return Sampling(
            temperature=float(given.get("temperature", 1.0) or 0.0),
            top_p=float(given.get("top_p", 0.9) or 0.9),
            top_k=None if top_k is None else int(top_k),
            max_new_tokens=None if max_new is None else int(max_new),
            seed=request.seed,
        )

    def wire_request(self, request: GenerationRequest) -> WireRequest:
        """The server request voicing `request` (each backend's wire format)."""
        raise NotImplementedError

    def model_name(self) -> str:
        """The model name sent in a request body: the server's own, else `drama-3`."""
        return self.server_model().id or "drama-3"

    def check_layout(self, conversation: Conversation) -> None:
        """Raise EngineError for a layout the backend does not voice (the render plans around
        them; this guards direct calls)."""
        if conversation.layout not in self.capabilities.layouts:
            voiced = " and ".join(sorted(self.capabilities.layouts))
            raise EngineError(
                f"the {self.name} engine voices the {voiced} layouts, not {conversation.layout}"
            )

    def generate(
        self, request: GenerationRequest, on_frames: FrameCallback | None = None
    ) -> Generation:
        """One take from the server. Stop reason `length` when the server says it stopped at
        its token budget, else `eos`. Raises EngineError when the take failed (see the
        module's docstring), ServerError when the server cannot serve any take."""
        started = time.perf_counter()
        self.check_layout(request.conversation)
        try:
            wire = self.wire_request(request)
            answer = self.client().speak(wire)
        except ServerError as err:
            raise server_failure(err) from None
        audio = self.answer_audio(request, answer.audio.samples)
        info = {
            "engine": self.name,
            "server": self.origin,
            "model": answer.model.id,
            "model_version": answer.model.version,
            "server_rate": answer.audio.native_rate,
            "attempts": answer.attempts,
            "seconds": round(time.perf_counter() - started, 3),
        }
        stop = "length" if answer.finish_reason == "length" else "eos"
        return Generation(audio, None, stop, info)

    def answer_audio(self, request: GenerationRequest, samples):
        """The take's audio from the answer's samples (float32 at 44,100 Hz)."""
        return samples

    def open_batch(self, size: int) -> ServerBatch:
        """Up to `size` requests in flight at once (`ServerBatch`)."""
        return ServerBatch(self, size)

    def close(self) -> None:
        """Close the connections."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


def seconds_to_samples(seconds: float | None) -> int:
    """Samples at 44,100 Hz in `seconds` (0 for None)."""
    return int(round((seconds or 0.0) * SAMPLE_RATE))
