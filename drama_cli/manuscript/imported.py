"""What `drama import` reads from a manuscript, before it is written as a script.

A novel's chapters hold paragraphs, attributed later (`manuscript.dialogue`); a play's chapters hold
scenes of lines whose speakers are already known (`manuscript.play`). Both record what was left out,
by kind, so the command can say what the narrator will not read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

NARRATOR = "NARRATOR"
# A novel's paragraph that is only this mark is a break (an ornament, a rule): a pause after
# the line before it, never a line.
BREAK = "\u2042"
BREAK_PAUSE_S = 2.0
# The title of a text's chapter before its first heading; a text without headings is one
# chapter titled by the book's title instead.
OPENING = "Opening"


@dataclass
class ImportedLine:
    """One item of a scene: a character's line (`speaker` a cast key), or a narrated stage
    direction (`speaker` None, written as an `action:` item). `note` is the style prefix sent
    before the text (`languidly`); `overlap` starts the line with the one before it (two
    characters speaking together)."""

    speaker: str | None
    text: str
    note: str | None = None
    overlap: bool = False
    rule: str | None = None  # for a quote: the rule that found its speaker
    pause_after: float | None = None  # seconds of silence after the line (a break in the text)
    confidence: float | None = None  # for a quote: how sure its rule is, 0..1
    candidates: list[tuple[str, float]] | None = None  # for a quote: its best two speakers


def add_break(lines: list[ImportedLine]) -> None:
    """A break in the text: BREAK_PAUSE_S of silence after the last line (nothing at a
    chapter's start, where the heading's pause already is)."""
    if lines:
        lines[-1].pause_after = BREAK_PAUSE_S


@dataclass
class ImportedScene:
    """A scene of a play: its title (None for an act's only scene) and its lines in order."""

    title: str | None
    lines: list[ImportedLine] = field(default_factory=list)


@dataclass
class ImportedChapter:
    """A chapter read from a manuscript: its title, and either paragraphs in source order (a
    novel) or scenes (a play)."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    scenes: list[ImportedScene] = field(default_factory=list)

    def is_empty(self) -> bool:
        """True when the chapter holds nothing to read."""
        return not self.paragraphs and not any(scene.lines for scene in self.scenes)


@dataclass
class Manuscript:
    """A whole manuscript: title, author (when the source names them), chapters, the cast of a
    play (key → description or None; empty for a novel) and what was left out (kind → count)."""

    title: str
    author: str | None
    chapters: list[ImportedChapter]
    cast: dict[str, str | None] = field(default_factory=dict)
    left_out: Counter = field(default_factory=Counter)
    language: str | None = None
    publisher: str | None = None
    rights: str | None = None

    @property
    def is_play(self) -> bool:
        """True when the manuscript's lines already have their characters (a play)."""
        return any(chapter.scenes for chapter in self.chapters)
