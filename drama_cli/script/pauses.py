"""Lines that are only punctuation (`...`, `—`, `– –`): a timed pause, not words to voice.

Such a line has no letter or digit, no tag and no switch. It is taken out of its scene's lines
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

from drama_cli.script.document import Element, Line, Script, Warning_

PAUSE_PER_MARK_S = 0.5
MAX_PAUSE_LINE_S = 3.0
_MARK = re.compile(r"\.{2,}|[-‐‑‒–—―]+|\S")


def is_pause_line(line: Line) -> bool:
    """True when the line has neither a letter nor a digit, nor any tag or switch."""
    return all(span.kind == "text" for span in line.spans) and re.search(r"[^\W_]", line.text) is None


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
            seconds = pause_seconds(line.text)
            shown = " ".join(line.text.split())
            if kept:
                kept[-1].beat_s += seconds
                kept[-1].pauses.append((shown, seconds))
                message = (f"line {line.id} ({shown!r}) has no words: a pause of {seconds:g} s after "
                           f"line {kept[-1].id}, not sent to the engine")
            else:
                message = (f"line {line.id} ({shown!r}) has no words and opens the scene: left out "
                           "(give the scene 'head:' for silence before its first line)")
            script.warnings.append(Warning_(message, line.position))
            scene.elements = [Element("pause", shown, line.position) if element is line else element
                              for element in scene.elements]
        scene.lines = kept
