"""The backend interface: one compiled request in, one generation (take audio + checks) out.

A backend knows nothing about take stores or mixes. `drama_cli.render` builds a
`GenerationRequest` per line and attempt, calls `Backend.generate`, and stores the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from engine.checks import CheckReport
from engine.conversation import SAMPLE_RATE, Conversation


@dataclass(frozen=True)
class GenerationRequest:
    """What a backend needs to render one attempt of one line.

    scene_id, line_id: where the take will be stored (for messages and progress).
    speaker: the line's cast name; speaker_names maps `<|speaker:k|>` indices to cast names.
    text: the speaker-tagged text the model is asked to speak (tags and directions included);
        the signal checks estimate the expected duration from it.
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
    """One generated take.

    audio: float32 mono `[samples]` at 44,100 Hz.
    codes: `[10, T]` int64 codec codes when the backend has them (drama3), else None.
    stop_reason: `eos` (end of speech), `length` (frame budget hit) or backend-specific.
    checks: the signal checks (`engine.checks.check_take`) on `audio`.
    info: backend facts for the take record (frames, seconds taken, device, scratch flag, ...).
    """

    audio: np.ndarray
    codes: np.ndarray | None
    stop_reason: str
    checks: CheckReport
    info: dict = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        """Length of `audio` in seconds."""
        return len(self.audio) / SAMPLE_RATE


@runtime_checkable
class Backend(Protocol):
    """A take generator.

    name: `scratch`, `drama3`, ...; scratch: True for timing drafts (labelled in every output).
    identity(): what about the engine shapes its audio (engine name, version, model revision);
        it is part of every cache key, so a new model renders lines again.
    generate(request): one attempt; raises `engine.errors.EngineError` (or a subclass) when the
        request cannot be served.
    close(): free models and devices.

    Optional: `generate_scene(request, texts) -> list[Generation] | None` voices a `scene`
    conversation and returns one generation per line (None when the output does not split
    into the lines); without it, `--mode scene` renders in history mode. `on_frames`: an
    attribute the render sets to `callable(frames, budget)` for frame progress while streaming.
    """

    name: str
    scratch: bool

    def identity(self) -> dict: ...

    def generate(self, request: GenerationRequest) -> Generation: ...

    def close(self) -> None: ...
