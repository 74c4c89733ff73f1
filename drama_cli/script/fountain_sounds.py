"""Sound cues on their own in a Fountain screenplay: `SFX:` rows and `[[sfx:]]` notes.

A paragraph of one row `SFX: NAME`, `SOUND: NAME` or `MUSIC: NAME` (action with that prefix),
or a note `[[sfx: NAME]]` / `[[sound: NAME]]` / `[[music: NAME]]`, is a sound cue: an effect
(SFX, SOUND) that plays once, or music that loops to the end of the scene, ducked under the
dialogue. It is kept as a `sound` element (shown, never narrated) and starts where the spoken
line before it ends (the scene's start when none comes before). NAME is looked up in the cast
file's `sounds:` table (`drama_cli.script.sound_table`); a name the table lacks is an error at
the name, and a cue without a name (`SFX:`) one after its colon. A cue inside a line of
dialogue (`{sfx: NAME}`) is the direction grammar's
(`drama_cli.script.line_sounds`).
"""

from __future__ import annotations

import re

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.direction import SOUND_CUE_PREFIX
from drama_cli.script.document import Element, Line, Script, Sound, SoundAnchor, Warning_
from drama_cli.script.sound_table import give_file

CUE = re.compile(rf"(?P<prefix>{SOUND_CUE_PREFIX})\s*:\s*(?P<name>.*?)\s*$", re.IGNORECASE)


def sound_cue(text: str, position: SourcePosition) -> tuple[Element, Sound] | None:
    """The `sound` element and its (unresolved) Sound when `text` is a sound cue, else None.
    `position`: where `text` starts."""
    match = CUE.fullmatch(text.strip())
    if match is None:
        return None
    music = match.group("prefix").upper() == "MUSIC"
    offset = len(text) - len(text.lstrip()) + match.start("name")
    where = SourcePosition(position.file, position.line, position.column + offset)
    sound = Sound(
        "",
        "music" if music else "effect",
        loop=music,
        duck=music,
        name=match.group("name"),
        position=where,
    )
    return Element("sound", text.strip(), position), sound


def resolve_sound_cues(script: Script) -> list[ScriptError]:
    """Give every Fountain sound cue its file (from `script.sounds`, the cast file's table:
    `sound_table.give_file`) and its start (the end of the spoken line before its element,
    narrated action included). Returns an error at each name the table lacks; cues left
    without a file are taken out of their scene."""
    errors = []
    for scene in script.scenes:
        for sound, previous in _cues_after_lines(scene):
            sound.start = SoundAnchor(
                previous.id if previous else None,
                "end" if previous else "start",
                0.0,
                sound.position,
            )
            if not sound.name:
                errors.append(
                    ScriptError(
                        "empty sound cue (no name after the colon)",
                        sound.position,
                        "write SFX: NAME, SOUND: NAME or MUSIC: NAME with NAME "
                        "from the cast file's sounds: table",
                    )
                )
                continue
            missing = give_file(script, sound)
            if missing is not None:
                errors.append(missing)
        scene.sounds = [sound for sound in scene.sounds if sound.path]
    return errors


def _cues_after_lines(scene) -> list[tuple[Sound, Line | None]]:
    """Each sound cue of the scene with the spoken line before it (narrated action included)."""
    cues = iter(scene.sounds)
    narrated = {_place(line.position): line for line in scene.lines if line.kind == "action"}
    previous: Line | None = None
    found = []
    for entry in scene.elements:
        if isinstance(entry, Line):
            previous = entry
        elif isinstance(entry, Element) and entry.kind == "action":
            previous = narrated.get(_place(entry.position), previous)
        elif isinstance(entry, Element) and entry.kind == "sound":
            found.append((next(cues), previous))
    return found


def _place(position: SourcePosition | None) -> tuple | None:
    return (position.file, position.line, position.column) if position is not None else None


def spoken_cue_warnings(script: Script) -> list[Warning_]:
    """A warning at each row of a speech or of narrated action that is a sound cue of a name in
    the cast file's `sounds:` table (`SFX: door-slam` with no blank line before it): Fountain
    reads it as part of that paragraph, so it would be spoken."""
    warnings = []
    for scene in script.scenes:
        for line in scene.lines:
            if line.position is None:
                continue
            for offset, row in enumerate(line.text.split("\n")):
                match = CUE.fullmatch(row.strip())
                if match and match.group("name") in script.sounds:
                    where = SourcePosition(
                        line.position.file, line.position.line + offset, line.position.column
                    )
                    warnings.append(
                        Warning_(
                            f"row {row.strip()!r} of {line.speaker} (line {line.id}) is spoken as words: to "
                            f"play the sound {match.group('name')}, put a blank line before the row",
                            where,
                        )
                    )
    return warnings
