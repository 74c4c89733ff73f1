"""A script's `sounds:` table: the names that sound cues use, each mapped to a file.

It is written at the top of a YAML script or in a cast file (Fountain's companion, or a YAML
script's `--cast`): `NAME: FILE` or `NAME: {file: FILE, gain_db: DB}`, files relative to the
file holding the table. Fountain cues (`drama_cli.script.fountain_sounds`) and cues inside a
line (`drama_cli.script.line_sounds`) resolve their names here (`give_file`). A bad entry is an
error at the entry, once; a name the table lacks is an error at the cue.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from yaml.nodes import MappingNode, Node

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.document import Script, Sound
from drama_cli.script.problems import Problems
from drama_cli.script.yaml_reader import YamlReader, compose

TABLE_KEYS = ("file", "gain_db")
TABLE_PATH_HINT = (
    "write the path of a sound file (WAV, FLAC, OGG, MP3), relative to the file holding the table"
)

SoundEntry = tuple[str, float, SourcePosition]  # file, gain dB, where the file is named


def read_sounds_node(reader: YamlReader, node: Node) -> dict[str, SoundEntry | None]:
    """The entries of a `sounds:` mapping: name -> (file as written, gain dB, where), or None
    for an entry with an error (recorded in `reader.problems`, one at each bad entry). Raises
    ScriptError when `node` is no mapping."""
    table: dict[str, SoundEntry | None] = {}
    for name, (_, value) in reader.mapping(node, None, "the sounds table").items():
        table[name] = None
        with reader.problems.collect():
            table[name] = _table_entry(reader, name, value)
    return table


def _table_entry(reader: YamlReader, name: str, node: Node) -> SoundEntry:
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


def read_sounds_table(path: str | Path) -> tuple[dict[str, SoundEntry | None], list[ScriptError]]:
    """The `sounds:` table of a cast file (`read_sounds_node`) and its errors; ({}, []) when
    the file has none. Raises ScriptError when the table is no mapping."""
    source = Path(path).read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    reader = YamlReader(source, str(path), Problems())
    root = compose(source, str(path))
    top = reader.mapping(root, None, "the cast file") if root is not None else {}
    if "sounds" not in top:
        return {}, []
    return read_sounds_node(reader, top["sounds"][1]), reader.problems.errors


def add_cast_sounds(script: Script, cast_path: str | Path) -> list[ScriptError]:
    """Add the cast file's `sounds:` table to `script.sounds` (its entries replace the
    script's own of the same name), files made relative to the script's folder. Returns the
    table's errors."""
    table, errors = read_sounds_table(cast_path)
    folder = Path(cast_path).parent
    for name, entry in table.items():
        if entry is not None and not Path(entry[0]).is_absolute():
            entry = (os.path.relpath(folder / entry[0], script.base_dir), *entry[1:])
        script.sounds[name] = entry
    return errors


def _meant(name: str, table: dict) -> str:
    """ "did you mean NAME? …" for the table's name closest to `name` (case aside), else ''."""
    by_key = {known.casefold(): known for known in table}
    close = difflib.get_close_matches(name.casefold(), list(by_key), n=1, cutoff=0.75)
    return f"did you mean {by_key[close[0]]}? sound names match exactly; " if close else ""


def give_file(script: Script, sound: Sound) -> ScriptError | None:
    """Set `sound`'s path, gain and `file_position` from `script.sounds` under `sound.name`.
    Returns the error at the cue when the table lacks the name (the sound keeps no path); a
    name whose entry has an error leaves the sound without a path and returns None (the entry
    is reported once)."""
    if sound.name not in script.sounds:
        known = ", ".join(sorted(script.sounds)) or "none"
        holder = "the cast file" if script.format == "fountain" else "the script or its cast file"
        table = (
            "the cast file's sounds: table" if script.format == "fountain" else "the sounds: table"
        )
        return ScriptError(
            f"no sound named {sound.name!r} in {table}",
            sound.position,
            f"{_meant(sound.name, script.sounds)}add '{sound.name}: FILE' under 'sounds:' "
            f"in {holder}, FILE relative to that file (known: {known})",
        )
    entry = script.sounds[sound.name]
    if entry is not None:
        sound.path, sound.gain_db, sound.file_position = entry
    return None
