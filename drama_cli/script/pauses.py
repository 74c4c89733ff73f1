"""Lines that are only punctuation (`...`, `—`, `– –`): a timed pause, not words to voice.

Such a line has no letter or digit, no tag and no switch (a sound cue `{sfx: NAME}` may stand
in it: the sound starts where the line before ends). It is taken out of its scene's lines
when the script is read, so it is never sent to the engine; its pause is added to the silence
after the line before it (`Line.beat_s`, as a Fountain `(beat)` is), so the mix leaves it, and
the scene keeps it among its elements as a `pause` element for display, and the line before
keeps it in `Line.pauses` for the cue sheet. `drama check` lists each one as a warning at its
position.

The pause lasts `PAUSE_PER_MARK_S` for each mark (an ellipsis, a run of dashes, or any other
punctuation character), at least one mark's worth and at most `MAX_PAUSE_LINE_S`.
"""

from __future__ import annotations

import re

from drama_cli.script.document import Element, Line, Script, SoundAnchor, Warning_

PAUSE_PER_MARK_S = 0.5
MAX_PAUSE_LINE_S = 3.0
_MARK = re.compile(r"\.{2,}|[-‐‑‒–—―]+|\S")


def is_pause_line(line: Line) -> bool:
    """True when the line has neither a letter nor a digit, nor any tag or switch; sound cues
    (`{sfx: NAME}`) are no words."""
    if not all(span.kind in ("text", "sound") for span in line.spans):
        return False
    return re.search(r"[^\W_]", _uncued(line)) is None


def _uncued(line: Line) -> str:
    """The line's text without its sound cues."""
    if not any(span.kind == "sound" for span in line.spans):
        return line.text
    return "".join(span.text for span in line.spans if span.kind == "text")


def pause_seconds(text: str) -> float:
    """How long a punctuation-only line pauses (rule in the module docstring)."""
    marks = len(_MARK.findall(text))
    return min(MAX_PAUSE_LINE_S, max(1, marks) * PAUSE_PER_MARK_S)


def take_out_pauses(script: Script) -> None:
    """Turn every punctuation-only line into a pause after the line before it (see the module
    docstring), with a warning; one that opens a scene has no line before it and is dropped."""
    for scene in script.scenes:
        kept: list[Line] = []
        for line in scene.lines:
            if not is_pause_line(line):
                kept.append(line)
                continue
            seconds = pause_seconds(_uncued(line))
            shown = " ".join(_uncued(line).split())
            if kept:
                kept[-1].beat_s += seconds
                kept[-1].pauses.append((shown, seconds))
                message = (
                    f"line {line.id} ({shown!r}) has no words: a pause of {seconds:g} s after "
                    f"line {kept[-1].id}, not sent to the engine"
                )
            else:
                message = (
                    f"line {line.id} ({shown!r}) has no words and opens the scene: left out "
                    "(give the scene 'head:' for silence before its first line)"
                )
            script.warnings.append(Warning_(message, line.position))
            _move_cues(scene, line, kept[-1] if kept else None)
            scene.elements = [
                Element("pause", shown, line.position) if element is line else element
                for element in scene.elements
            ]
        scene.lines = kept


def _move_cues(scene, pause: Line, before: Line | None) -> None:
    """Sound cues written in the pause line start where the line before it ends (the scene's
    start when there is none), as the pause does."""
    for sound in scene.sounds:
        if sound.start.line == pause.id:
            sound.start = SoundAnchor(
                before.id if before else None,
                "end" if before else "start",
                0.0,
                sound.start.position,
            )
