"""The backend interface: one compiled request in, one generation (take audio and the facts of
how it was made) out.

A backend knows nothing about take stores, mixes or signal checks. `drama_cli.render` builds a
`GenerationRequest` per line and attempt, calls `Backend.generate`, runs the signal checks on
the result once (`drama_cli.render.attempt`) and stores it. What a backend can do beyond
`generate` is declared in its `capabilities`; callers read those, never probe for methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

import numpy as np

from engine.constants import SAMPLE_RATE
from engine.conversation import Conversation
from engine.errors import EngineError

if TYPE_CHECKING:
    from drama_cli.backends.registry import BackendOptions

FrameCallback = Callable[[int, int], None]  # (frames generated so far, frame budget)


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
    sampling: dict = field(default_factory=dict)
    seed: int = 0
    speaker_names: dict = field(default_factory=dict)

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
        (`drama_cli.render.attempt.STOP_REASONS`: `eos`, `length`, `separator`).
    info: backend facts for the take record (frames, seconds taken, device, scratch flag, ...).
    """

    audio: np.ndarray
    codes: np.ndarray | None
    stop_reason: str
    info: dict = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        """Length of `audio` in seconds."""
        return len(self.audio) / SAMPLE_RATE


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do besides `generate`; callers read these flags, never probe methods.

    scene_layout: `generate_scene` voices a whole `scene` conversation (else `--mode scene`
        renders in history mode).
    codes: its takes carry codec codes, and `encode_audio` / `decode_codes` work (edits keep
        the take's own codes around the new middle).
    infill: it voices `infill` conversations (the new middle between the take's prefix and
        suffix); without it an edit asks it to speak only the new words.
    streaming_frames: `generate` reports frame progress through its `on_frames` argument.
    """

    scene_layout: bool = False
    codes: bool = False
    infill: bool = False
    streaming_frames: bool = False


@runtime_checkable
class Backend(Protocol):
    """A take generator.

    name: `scratch`, `drama3`, ... (the `--engine` value); scratch: True for timing drafts
        (labelled in every output); capabilities: what it can do besides `generate`.
    identity(): what about the engine shapes its audio (engine name, version, model revision);
        it is part of every cache key, so a new model renders lines again.
    generate(request, on_frames=None): one attempt; `on_frames(frames, budget)` is called with
        frame progress when `capabilities.streaming_frames`. Raises `engine.errors.EngineError`
        (or a subclass) when the request cannot be served.
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

    def identity(self) -> dict: ...

    def generate(self, request: GenerationRequest,
                 on_frames: FrameCallback | None = None) -> Generation: ...

    def generate_scene(self, request: GenerationRequest, texts: list[str],
                       on_frames: FrameCallback | None = None) -> list[Generation] | None: ...

    def encode_audio(self, audio: np.ndarray) -> np.ndarray: ...

    def decode_codes(self, codes: np.ndarray) -> np.ndarray: ...

    def close(self) -> None: ...


class BackendDefaults:
    """The members a backend without some capability inherits: each raises EngineError saying
    what the engine cannot do. Backends subclass it and override what they support."""

    name = "unnamed"
    scratch = False
    capabilities = Capabilities()

    @classmethod
    def from_options(cls, options: BackendOptions) -> BackendDefaults:
        """Build the backend for `drama_cli.backends.registry.make_backend` from its
        `BackendOptions` (model folder, device, notice); this default takes none of them."""
        return cls()

    def generate_scene(self, request: GenerationRequest, texts: list[str],
                       on_frames: FrameCallback | None = None) -> list[Generation] | None:
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
