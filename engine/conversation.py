"""The engine's input contract: a Drama 3 conversation for one generation, as plain data.

`drama_cli.compile` fills these from a script; `engine.prompt` turns them into frame rows
`[N, 11]` using the exact strings of each layout (`engine.layouts`, docs/internals/layouts.md). Nothing
here imports torch, so the compiler stays light.

Audio is carried as `AudioClip` (`engine.clip`): codec codes `[10, T]` int64 (codebook 0 semantic, 1-9
residual, frames at 44,100 / 2048 Hz) once known, or a source path plus a duration so that
prompt sizes can be estimated before anything is encoded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.clip import AudioClip
from engine.layouts import get_layout


@dataclass(frozen=True)
class Reference:
    """A voice reference: speaker index (0..15), its exact transcript (None: no text), its audio."""

    speaker: int
    transcript: str | None
    clip: AudioClip


@dataclass(frozen=True)
class Exchange:
    """An earlier user/assistant pair kept as context: the speaker-tagged text and its audio."""

    text: str
    clip: AudioClip


@dataclass(frozen=True)
class Conversation:
    """One generation request in a named layout (`docs/internals/layouts.md`).

    text: the speaker-tagged target text (`<|speaker:k|> ...`); for `scene`, unused.
    context: earlier exchanges (`history`: earlier lines; `revise`: earlier takes of the line).
    note: the director's note read against the context (`revise`).
    lines: the speaker-tagged lines of a scene (`scene`); descriptions: (speaker, text) pairs.
    prefix / suffix: the audio before / after the edited span (`infill`).
    lookahead: the next chunk shown after `<|endofturn|>` (`stream`).
    """

    layout: str
    references: tuple[Reference, ...] = ()
    text: str = ""
    context: tuple[Exchange, ...] = ()
    note: str | None = None
    lines: tuple[str, ...] = ()
    descriptions: tuple[tuple[int, str], ...] = ()
    prefix: AudioClip | None = None
    suffix: AudioClip | None = None
    lookahead: str | None = None
    meta: dict[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        """Raises `EngineError` for a layout that is not in `engine.layouts.LAYOUTS`."""
        get_layout(self.layout)
