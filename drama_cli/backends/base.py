"""The backend interface: one compiled request in, one generation (take audio and the facts of
how it was made) out.

A backend knows nothing about take stores, mixes or signal checks. `drama_cli.render` builds a
`GenerationRequest` per line and attempt, hands it to a `StreamBatch` (`Backend.open_batch`),
runs the signal checks on each result once (`drama_cli.qc.take_checks`) and stores it. What a
backend can do beyond `generate` is declared in its `capabilities`; callers read those, never
probe for methods.

Batches: `open_batch(size)` gives a `StreamBatch` that voices up to `size` requests (streams)
together. The caller submits streams while it has room and takes each result back with
`next_done()` as soon as that stream finishes, not when the whole batch ends, so it can store
the take and submit new work at once (continuous batching). `SerialBatch`, the default, runs
the streams one at a time in the order submitted; `ThreadBatch` runs `generate` in a pool of
threads, for backends whose `generate` may run concurrently.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from engine import Conversation, EngineError
from engine.constants import SAMPLE_RATE

if TYPE_CHECKING:
    from drama_cli.backends.registry import BackendOptions

FrameCallback = Callable[[int, int], None]  # (frames generated so far, frame budget)
FRAME_REPORT_EVERY = 8  # frames between progress reports (about 0.4 s of audio)


def every_few_frames(on_frames: FrameCallback | None) -> FrameCallback | None:
    """A per-frame callback that passes every FRAME_REPORT_EVERY-th frame on to `on_frames`
    (None when there is nothing to report to)."""
    if on_frames is None:
        return None

    def report(frames: int, budget: int) -> None:
        if frames % FRAME_REPORT_EVERY == 0:
            on_frames(frames, budget)

    return report


@dataclass(frozen=True)
class GenerationRequest:
    """What a backend needs to render one attempt of one line.

    scene_id, line_id: where the take will be stored (for messages and progress).
    speaker: the line's cast name; speaker_names maps `<|speaker:k|>` indices to cast names.
    text: the speaker-tagged text the model is asked to speak (tags and directions included);
        the render layer's signal checks estimate the expected duration from it.
    conversation: the compiled Drama 3 request (`engine.conversation`), layout included.
    layout_version: the version string of the layout (recorded in the take).
    sampling: sampling parameters by name (temperature, top_p, top_k, max_new_tokens, ...).
    seed: the random seed of this attempt.
    """

    scene_id: str
    line_id: str
    speaker: str
    text: str
    conversation: Conversation
    layout_version: str = ""
    sampling: dict[str, float | None] = field(default_factory=dict)
    seed: int = 0
    speaker_names: dict[int, str] = field(default_factory=dict)

    @property
    def layout(self) -> str:
        """The conversation's layout name (`clone`, `history`, ...)."""
        return self.conversation.layout

    @property
    def references(self) -> tuple:
        """The conversation's voice references (`engine.conversation.Reference`)."""
        return self.conversation.references


@dataclass
class Generation:
    """One generated take: facts only (the render layer runs the signal checks on it).

    audio: float32 mono `[samples]` at 44,100 Hz.
    codes: `[10, T]` int64 codec codes when the backend has them (drama3), else None.
    stop_reason: why generation ended, in the render layer's vocabulary
        (`drama_cli.qc.take_checks.STOP_REASONS`: `eos`, `length`, `separator`).
    info: backend facts for the take record (frames, seconds taken, device, scratch flag, ...).
    """

    audio: np.ndarray
    codes: np.ndarray | None
    stop_reason: str
    info: dict[str, object] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        """Length of `audio` in seconds."""
        return len(self.audio) / SAMPLE_RATE


LAYOUT_NAMES = frozenset({"clone", "history", "revise", "scene", "infill", "stream"})


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do besides `generate`, and the facts about it that other stages act
    on; callers read these, never probe methods or compare a backend's name.

    scene_layout: `generate_scene` voices a whole `scene` conversation (else `--mode scene`
        renders in history mode).
    codes: its takes carry codec codes (codes out), and `encode_audio` / `decode_codes` work
        (edits keep the take's own codes around the new middle).
    infill: it voices `infill` conversations (the new middle between the take's prefix and
        suffix); without it an edit asks it to speak only the new words.
    streaming_frames: `generate` reports frame progress through its `on_frames` argument.
    batch_streams: how many streams `open_batch` voices together well; the default of
        `drama render --batch` (1: one at a time, today's order).
    layouts: the conversation layouts it voices (`engine.layouts.LAYOUTS` names: clone,
        history, revise, scene, infill, stream); the render checks a plan against them before
        any take is made (`drama_cli.render.plan.layout_for_backend`). None (the default):
        clone, history and revise (a revision is a history request read against a note), with
        scene and infill when `scene_layout` and `infill` say so.
    codes_in: it takes clips as codec codes `[10, T]` (references, context, infill prefix and
        suffix); without it a clip travels as audio.
    multi_speaker: one request may hold several speakers (`<|speaker:k|>` with k > 0).
    streaming: its audio arrives while it is made (a server's streamed answer), not at the end.
    drama3_model: it runs the Drama 3 model, so the model licence's credit, notice and the
        cast's consent checks apply to its takes.
    network: it reaches another machine (a server) to voice a take.
    local_gpu: it runs a model on this machine's GPU when there is one (a cluster worker of it
        then holds one GPU).
    """

    scene_layout: bool = False
    codes: bool = False
    infill: bool = False
    streaming_frames: bool = False
    batch_streams: int = 1
    layouts: frozenset[str] | None = None
    codes_in: bool = False
    multi_speaker: bool = True
    streaming: bool = False
    drama3_model: bool = False
    network: bool = False
    local_gpu: bool = False

    def __post_init__(self):
        if self.layouts is None:  # the default: clone, history, revise, and what the flags say
            flagged = {"scene": self.scene_layout, "infill": self.infill}
            derived = {"clone", "history", "revise"}
            derived |= {name for name, given in flagged.items() if given}
            object.__setattr__(self, "layouts", frozenset(derived))
        unknown = set(self.layouts) - LAYOUT_NAMES
        if unknown:
            raise ValueError(f"unknown layouts {sorted(unknown)}; known: {sorted(LAYOUT_NAMES)}")
        if self.scene_layout and "scene" not in self.layouts:
            raise ValueError("scene_layout needs 'scene' in layouts")
        if self.infill and "infill" not in self.layouts:
            raise ValueError("infill needs 'infill' in layouts")

    @property
    def codes_out(self) -> bool:
        """Its takes carry codec codes (the same fact as `codes`)."""
        return self.codes


OPTION_KEY = "drama_option"  # where a backend option field keeps its `OptionFlag`


@dataclass(frozen=True)
class OptionFlag:
    """How one field of a backend's options record becomes a command-line option.

    flag: the option (`--server`, `--gpu-memory`; a switch: `--no-graph`). Backends that share
        a flag declare it with the same field name, help, kind and default; the command line
        then offers it once.
    help: the option's help text (one sentence or two).
    parse: turns the text given on the command line (or saved in the project) into the field's
        value; raises UsageError, one line, for a bad value. None: the text is the value.
    switch: the option takes no value; given, the field takes the opposite of its default.
    kind: the type the command line reads before `parse` (str, int, float).
    persist: the value is saved with the project (`project.json`, "engine_options") and used
        again by `drama revise` / `drama edit`. Never True for a secret: a secret is never an
        option value at all, only the name of the environment variable that holds it.
    cluster: the value travels to `--cluster` workers (False: it only makes sense on this
        machine, and `--cluster` refuses it).
    """

    flag: str
    help: str
    parse: Callable[[str], object] | None = None
    switch: bool = False
    kind: type = str
    persist: bool = True
    cluster: bool = True


def backend_option(default: object, flag: str, help: str, **facts) -> object:
    """A field of a backend's options record (a frozen dataclass) that the command line sets
    with `flag`: `server: str | None = backend_option(None, "--server", "Server URL.")`.
    `facts` are `OptionFlag`'s other fields (parse, switch, kind, persist, cluster)."""
    return field(default=default, metadata={OPTION_KEY: OptionFlag(flag, help, **facts)})


@dataclass(frozen=True)
class NoOptions:
    """The options record of a backend that takes no options of its own."""


def option_flags(options_type: type) -> dict[str, tuple[OptionFlag, object]]:
    """{field name: (its `OptionFlag`, its default)} of a backend's options record type, in
    declaration order. Raises TypeError for a field without a flag (every field is an option)."""
    flags = {}
    for item in fields(options_type):
        flag = item.metadata.get(OPTION_KEY)
        if flag is None:
            raise TypeError(f"{options_type.__name__}.{item.name} is not a backend_option")
        flags[item.name] = (flag, item.default)
    return flags


class FailedAttempt(EngineError):
    """An attempt that failed on the way, not because of its request: a server's answer cut
    short, voiced by another model, a server still busy after its own retries, a timeout. The
    render counts it as a failed attempt of its take slot and tries again (the same seed: the
    failure was not the take's) while `--retries` allows; nothing of it is stored (an answer
    voiced by another model is never kept as a take). The message is the reason, one line."""


@dataclass
class StreamDone:
    """One finished stream of a `StreamBatch`: its ticket (what `submit` returned) and either
    its generation or the EngineError that refused it (other errors raise from `next_done`).
    A `FailedAttempt` error is a failed try the render may repeat; any other EngineError
    refuses the line."""

    ticket: int
    generation: Generation | None = None
    error: EngineError | None = None


@runtime_checkable
class StreamBatch(Protocol):
    """Streams voiced together (`Backend.open_batch`).

    size: the most streams decoded at once; more may be submitted (they wait for room).
    submit(request, on_frames=None): queue one stream, return its ticket (an int unique in
        this batch). `on_frames(frames, budget)` as in `Backend.generate`; it may be called
        from another thread.
    active(): streams submitted and not yet returned by `next_done`.
    next_done(): block until a stream finishes and return it (`StreamDone`), each stream once,
        as it finishes. A stream the engine refuses comes back with its EngineError (a
        `FailedAttempt` for a try that failed on the way and may be repeated); any other
        exception raises here. Raises LookupError when no stream is active.
    close(): drop the streams not returned yet (running ones end on their own); the batch
        cannot be used again.

    A stream's result depends only on its request (its seed included), never on the other
    streams in the batch or on `size`.
    """

    size: int

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int: ...

    def active(self) -> int: ...

    def next_done(self) -> StreamDone: ...

    def close(self) -> None: ...


@runtime_checkable
class Backend(Protocol):
    """A take generator.

    name: the `--engine` value; scratch: True for timing drafts (labelled in every output);
        capabilities: what it can do besides `generate`, and its facts (`Capabilities`).
    options_type: its own options record, a frozen dataclass whose fields are made with
        `backend_option` (each a command-line flag); `NoOptions` when it takes none.
        options: the instance it was built with (saved with the project, `persist` fields).
    identity(): what about the engine shapes its audio (engine name, version, model revision);
        it is part of every cache key, so a new model renders lines again.
    generate(request, on_frames=None): one attempt; `on_frames(frames, budget)` is called with
        frame progress when `capabilities.streaming_frames`. Raises `engine.errors.EngineError`
        (or a subclass) when the request cannot be served.
    open_batch(size): a `StreamBatch` voicing up to `size` `generate` requests together; the
        default (`SerialBatch`) runs them one at a time, in the order submitted.
    generate_scene(request, texts, on_frames=None): only with `capabilities.scene_layout`:
        voices a `scene` conversation and returns one generation per line of `texts` (None
        when the output does not split into the lines).
    encode_audio(audio) / decode_codes(codes): only with `capabilities.codes`: float32 mono
        samples at 44,100 Hz <-> codes `[10, T]` int64 with the engine's codec.
    close(): free models and devices.

    A backend without a capability raises EngineError from its members (`BackendDefaults`).
    """

    name: str
    scratch: bool
    capabilities: Capabilities
    options_type: type
    options: object

    def identity(self) -> dict: ...

    def generate(
        self, request: GenerationRequest, on_frames: FrameCallback | None = None
    ) -> Generation: ...

    def open_batch(self, size: int) -> StreamBatch: ...

    def generate_scene(
        self, request: GenerationRequest, texts: list[str], on_frames: FrameCallback | None = None
    ) -> list[Generation] | None: ...

    def encode_audio(self, audio: np.ndarray) -> np.ndarray: ...

    def decode_codes(self, codes: np.ndarray) -> np.ndarray: ...

    def close(self) -> None: ...


class BackendDefaults:
    """The members a backend without some capability inherits: each raises EngineError saying
    what the engine cannot do. Backends subclass it and override what they support."""

    name = "unnamed"
    scratch = False
    capabilities = Capabilities()
    options_type: type = NoOptions  # the backend's own options record (`backend_option` fields)
    options: object = NoOptions()  # the record it was built with

    @classmethod
    def from_options(cls, options: BackendOptions) -> BackendDefaults:
        """Build the backend for `drama_cli.backends.registry.make_backend` from its
        `BackendOptions` (model folder, device, notice, and `options.own`, an instance of
        `options_type`); this default takes none of them."""
        return cls()

    def open_batch(self, size: int) -> StreamBatch:
        """One stream at a time, in the order submitted (`SerialBatch`), whatever `size`."""
        return SerialBatch(self, size)

    def generate_scene(
        self, request: GenerationRequest, texts: list[str], on_frames: FrameCallback | None = None
    ) -> list[Generation] | None:
        """Not supported (no `capabilities.scene_layout`): raises EngineError."""
        raise EngineError(f"the {self.name} engine cannot voice a whole scene at once")

    def encode_audio(self, audio: np.ndarray) -> np.ndarray:
        """Not supported (no `capabilities.codes`): raises EngineError."""
        raise EngineError(f"the {self.name} engine has no codec to encode audio with")

    def decode_codes(self, codes: np.ndarray) -> np.ndarray:
        """Not supported (no `capabilities.codes`): raises EngineError."""
        raise EngineError(f"the {self.name} engine has no codec to decode codes with")

    def close(self) -> None:
        """Nothing to free."""


def stream_done(ticket: int, result: Callable[[], Generation]) -> StreamDone:
    """The `StreamDone` of stream `ticket` whose generation `result()` returns: with its
    generation, or with the EngineError it raised (other errors propagate)."""
    try:
        return StreamDone(ticket, result())
    except EngineError as err:
        return StreamDone(ticket, error=err)


class SerialBatch:
    """A `StreamBatch` that voices its streams one at a time with `backend.generate`, in the
    order submitted: each `next_done` runs the oldest waiting stream. What a backend without
    batched decoding offers; a render with it makes the same calls in the same order as one
    without batches."""

    def __init__(self, backend: Backend, size: int):
        self.backend, self.size = backend, size
        self._waiting: deque = deque()
        self._tickets = 0

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int:
        self._tickets += 1
        self._waiting.append((self._tickets, request, on_frames))
        return self._tickets

    def active(self) -> int:
        return len(self._waiting)

    def next_done(self) -> StreamDone:
        if not self._waiting:
            raise LookupError("no stream is active")
        ticket, request, on_frames = self._waiting.popleft()
        return stream_done(ticket, lambda: self.backend.generate(request, on_frames))

    def close(self) -> None:
        self._waiting.clear()


class ThreadBatch:
    """A `StreamBatch` that runs `backend.generate` for up to `size` streams at once in a pool
    of threads, for backends whose `generate` may run concurrently (scratch). Results come back
    as each stream finishes."""

    def __init__(self, backend: Backend, size: int):
        self.backend, self.size = backend, size
        self._pool = ThreadPoolExecutor(max_workers=max(1, size), thread_name_prefix="stream")
        self._running: dict[Future, int] = {}
        self._tickets = 0

    def submit(self, request: GenerationRequest, on_frames: FrameCallback | None = None) -> int:
        self._tickets += 1
        self._running[self._pool.submit(self.backend.generate, request, on_frames)] = self._tickets
        return self._tickets

    def active(self) -> int:
        return len(self._running)

    def next_done(self) -> StreamDone:
        if not self._running:
            raise LookupError("no stream is active")
        finished, _ = wait(list(self._running), return_when=FIRST_COMPLETED)
        future = min(finished, key=self._running.__getitem__)  # the oldest of those finished
        return stream_done(self._running.pop(future), future.result)

    def close(self) -> None:
        self._running.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)
