"""Sound cues in a Fountain screenplay and the cast file's `sounds:` table that names their files.

A paragraph of one row `SFX: NAME`, `SOUND: NAME` or `MUSIC: NAME` (action with that prefix),
or a note `[[sfx: NAME]]` / `[[sound: NAME]]` / `[[music: NAME]]`, is a sound cue: an effect
(SFX, SOUND) that plays once, or music that loops to the end of the scene, ducked under the
dialogue. It is kept as a `sound` element (shown, never narrated) and starts where the spoken
line before it ends (the scene's start when none comes before). NAME is looked up in the cast
file's `sounds:` table (`NAME: FILE` or `NAME: {file: FILE, gain_db: DB}`, files relative to the
cast file); a bad entry is an error at the entry, once, and a name the table lacks is an error
at the name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from yaml.nodes import MappingNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.document import Element, Line, Script, Sound, SoundAnchor
from drama_cli.script.problems import Problems
from drama_cli.script.yaml_reader import YamlReader, compose

CUE = re.compile(r"(?P<prefix>SFX|SOUND|MUSIC)\s*:\s*(?P<name>\S.*?)\s*$", re.IGNORECASE)
TABLE_KEYS = ("file", "gain_db")


def sound_cue(text: str, position: SourcePosition) -> tuple[Element, Sound] | None:
    """The `sound` element and its (unresolved) Sound when `text` is a sound cue, else None.
    `position`: where `text` starts."""
    match = CUE.fullmatch(text.strip())
    if match is None:
        return None
    music = match.group("prefix").upper() == "MUSIC"
    offset = len(text) - len(text.lstrip()) + match.start("name")
    where = SourcePosition(position.file, position.line, position.column + offset)
    sound = Sound("", "music" if music else "effect", loop=music, duck=music,
                  name=match.group("name"), position=where)
    return Element("sound", text.strip(), position), sound


SoundEntry = tuple[str, float, SourcePosition]  # file relative to the cast file, gain dB, where


def read_sounds_table(path: str | Path) -> tuple[dict[str, SoundEntry | None], list[ScriptError]]:
    """The `sounds:` table of a cast file: (name -> (file relative to the cast file, gain dB,
    where it is written), or None for an entry with an error; the errors, one at each bad
    entry). ({}, []) when the file has none. Raises ScriptError when the table is no mapping."""
    source = Path(path).read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    reader = YamlReader(source, str(path), Problems())
    root = compose(source, str(path))
    top = reader.mapping(root, None, "the cast file") if root is not None else {}
    if "sounds" not in top:
        return {}, []
    table: dict[str, SoundEntry | None] = {}
    for name, (_, node) in reader.mapping(top["sounds"][1], None, "the sounds table").items():
        table[name] = None
        with reader.problems.collect():
            table[name] = _table_entry(reader, name, node)
    return table, reader.problems.errors


def _table_entry(reader: YamlReader, name: str, node) -> SoundEntry:
    gain = 0.0
    file_node = node
    if isinstance(node, MappingNode):
        fields = reader.mapping(node, TABLE_KEYS, f"sound {name}")
        if "file" not in fields:
            raise reader.error(f"sound {name} has no file", node, "add 'file: sounds/NAME.wav'")
        if "gain_db" in fields:
            gain = reader.number(fields["gain_db"][1], "gain_db", -120.0, 24.0)
        file_node = fields["file"][1]
    file = reader.scalar(file_node, "sound file").strip()
    if not file:
        raise reader.error(f"sound {name} has an empty file", file_node, TABLE_PATH_HINT)
    return file, gain, reader.at(file_node)


TABLE_PATH_HINT = "write the path of a WAV or FLAC file, relative to the cast file"


def resolve_sound_cues(script: Script, cast_path: str | Path | None) -> list[ScriptError]:
    """Give every Fountain sound cue its file (from the cast file's `sounds:` table, made
    relative to the script's folder; `Sound.file_position`: the table entry) and its start
    (the end of the spoken line before its element, narrated action included). Returns the
    table's errors (each at its entry) and an error at each name the table lacks; cues left
    without a file are taken out of their scene."""
    if not any(scene.sounds for scene in script.scenes):
        return []
    table, errors = read_sounds_table(cast_path) if cast_path is not None else ({}, [])
    folder = Path(cast_path).parent if cast_path is not None else Path(script.base_dir)
    for scene in script.scenes:
        for sound, previous in _cues_after_lines(scene):
            sound.start = SoundAnchor(previous.id if previous else None,
                                      "end" if previous else "start", 0.0, sound.position)
            if sound.name not in table:
                known = ", ".join(sorted(table)) or "none"
                errors.append(ScriptError(
                    f"no sound named {sound.name!r} in the cast file's sounds: table",
                    sound.position, f"add '{sound.name}: FILE' under 'sounds:' in the cast file, "
                    f"FILE relative to the cast file (known: {known})"))
            elif table[sound.name] is not None:
                file, sound.gain_db, sound.file_position = table[sound.name]
                sound.path = file if Path(file).is_absolute() else \
                    os.path.relpath(folder / file, script.base_dir)
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
