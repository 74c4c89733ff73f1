"""A cast entry edited in place: a locked designed voice written into the member's block of a
YAML script or a Fountain play's cast file, every other line of the file (comments, order,
quoting) kept as it was, the file replaced atomically."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, ScalarNode

from drama_cli.errors import UsageError
from drama_cli.script.document import Script
from drama_cli.script.load import cast_file_for
from engine.files import write_text_atomic

DESIGNED_NOTE = "designed from a description"


def cast_file_of(script: Script, name: str = "the cast") -> Path:
    """The file that holds `script`'s cast: the YAML script itself, or a Fountain play's cast
    file. Raises UsageError (naming `name`, whose voice was to be written) when there is none."""
    path = Path(script.source) if script.format == "yaml" else cast_file_for(script.source)
    if path is None or not path.is_file():
        raise UsageError(f"no cast file to write {name}'s voice into")
    return path


def script_library(cast_path: Path) -> Path | None:
    """The folder the cast file's `voice_library: DIR` names (relative to the file), or None."""
    try:
        data = yaml.safe_load(cast_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    folder = data.get("voice_library") if isinstance(data, dict) else None
    return cast_path.parent / str(folder) if folder else None


def _cast_mapping(root) -> MappingNode | None:
    """The node of the members: the `cast:` value, or the root of a bare cast file."""
    if not isinstance(root, MappingNode):
        return None
    for key, value in root.value:
        if isinstance(key, ScalarNode) and key.value == "cast":
            return value if isinstance(value, MappingNode) else None
    return root


def locked_text(source: str, name: str, clip: str, transcript: str, path: str = "<cast>") -> str:
    """`source` with `voice: CLIP`, `transcript: TRANSCRIPT` and (unless the member has one)
    `voice_source` synthetic, designed, added at the top of member `name`'s block.

    Raises UsageError when the member is missing, is not a block mapping (`NAME: {...}` or
    `NAME: clip.wav`: edit it by hand), already has a clip, or the new text would not read
    back as the old one with only those keys added.
    """
    root = yaml.compose(source)
    cast = _cast_mapping(root)
    entry = None
    for key, value in cast.value if cast is not None else []:
        if isinstance(key, ScalarNode) and key.value == name:
            entry = value
    if entry is None:
        raise UsageError(f"{path}: no cast member {name} to write the voice into")
    if not isinstance(entry, MappingNode) or entry.flow_style or not entry.value:
        raise UsageError(
            f"{path}:{entry.start_mark.line + 1}: {name}'s entry is not a block of keys; "
            f"write it as '{name}:' with 'design:' on the next line, or add the voice by hand"
        )
    keys = {k.value for k, _ in entry.value if isinstance(k, ScalarNode)}
    if keys & {"voice", "reference", "references"}:
        raise UsageError(f"{path}: {name} already has a reference clip")
    first = entry.value[0][0]
    indent = " " * first.start_mark.column
    added = [f"{indent}voice: {json.dumps(clip)}", f"{indent}transcript: {json.dumps(transcript)}"]
    if "voice_source" not in keys:
        added.append(f'{indent}voice_source: {{kind: synthetic, note: "{DESIGNED_NOTE}"}}')
    lines = source.splitlines(keepends=True)
    at = first.start_mark.line
    updated = "".join(lines[:at]) + "".join(a + "\n" for a in added) + "".join(lines[at:])
    _check(source, updated, name, clip, transcript, "voice_source" not in keys, path)
    return updated


def _check(
    source: str, updated: str, name: str, clip: str, transcript: str, sourced: bool, path: str
) -> None:
    """Raise UsageError unless `updated` loads as `source` with only the member's keys added."""
    before, after = yaml.safe_load(source), yaml.safe_load(updated)
    members = before.get("cast", before) if isinstance(before, dict) else None
    if not isinstance(members, dict) or not isinstance(members.get(name), dict):
        raise UsageError(f"{path}: cannot find {name}'s entry to write the voice into")
    members[name].update({"voice": clip, "transcript": transcript})
    if sourced:
        members[name]["voice_source"] = {"kind": "synthetic", "note": DESIGNED_NOTE}
    if after != before:
        raise UsageError(
            f"{path}: writing {name}'s voice would change more than the entry; add it by hand"
        )


def lock_member(cast_path: Path, name: str, clip: str, transcript: str) -> None:
    """Write the locked voice into member `name` of the cast file `cast_path` (`locked_text`),
    atomically, keeping the file's permissions. Raises UsageError as `locked_text`."""
    source = cast_path.read_text(encoding="utf-8")
    updated = locked_text(source, name, clip, transcript, str(cast_path))
    write_text_atomic(cast_path, updated, mode=stat.S_IMODE(cast_path.stat().st_mode))


def voice_text(source: str, name: str, voice: str, path: str = "<cast>") -> str:
    """`source` with `voice: VOICE` added to member `name`: at the top of its block, or as its
    one key when the entry is empty (`NAME: {}` or `NAME:`), every other line kept.

    Raises UsageError when the member is missing, already has a voice, is written some other
    way (`NAME: {design: …}`, `NAME: clip.wav`: edit it by hand), or the new text would not
    read back as the old one with only that key added.
    """
    root = yaml.compose(source)
    cast = _cast_mapping(root)
    found = [
        (key, value)
        for key, value in (cast.value if cast is not None else [])
        if isinstance(key, ScalarNode) and key.value == name
    ]
    if not found:
        raise UsageError(f"{path}: no cast member {name} to write the voice into")
    key, entry = found[-1]
    line = f"voice: {json.dumps(voice)}"
    lines = source.splitlines(keepends=True)
    empty_flow = isinstance(entry, MappingNode) and entry.flow_style and not entry.value
    empty_null = isinstance(entry, ScalarNode) and entry.tag.endswith(":null") and not entry.value
    if empty_flow or empty_null:
        at = key.start_mark.line
        row = lines[at]
        if empty_flow:
            if entry.start_mark.line != at or entry.end_mark.line != at:
                raise UsageError(
                    f"{path}:{at + 1}: {name}'s entry spans lines; add the voice by hand"
                )
            head, tail = row[: entry.start_mark.column], row[entry.end_mark.column :]
        else:
            head, tail = row[: key.end_mark.column] + ":", row[key.end_mark.column :].lstrip(":")
        ending = "\n" if row.endswith("\n") or at + 1 < len(lines) else ""
        comment = tail.strip()
        indent = " " * (key.start_mark.column + 2)
        new_row = head.rstrip() + (f"  {comment}" if comment else "") + "\n"
        lines[at] = new_row + indent + line + ending
    elif isinstance(entry, MappingNode) and not entry.flow_style and entry.value:
        keys = {k.value for k, _ in entry.value if isinstance(k, ScalarNode)}
        if keys & {"voice", "reference", "references"}:
            raise UsageError(f"{path}: {name} already has a voice")
        first = entry.value[0][0]
        lines.insert(first.start_mark.line, " " * first.start_mark.column + line + "\n")
    else:
        raise UsageError(
            f"{path}:{entry.start_mark.line + 1}: {name}'s entry is not a block of keys; "
            f"write it as '{name}:' with its keys on the lines below, or add the voice by hand"
        )
    updated = "".join(lines)
    before, after = yaml.safe_load(source), yaml.safe_load(updated)
    members = before.get("cast", before) if isinstance(before, dict) else None
    if isinstance(members, dict) and name in members:
        entry_before = members[name] if isinstance(members[name], dict) else {}
        members[name] = {"voice": voice, **entry_before}
    if after != before:
        raise UsageError(
            f"{path}: writing {name}'s voice would change more than the entry; add it by hand"
        )
    return updated


def write_voices(cast_path: Path, voices: dict[str, str]) -> None:
    """Write `voice: VOICE` into each member of `voices` (name → voice) of the cast file
    `cast_path` (`voice_text`), all or none, atomically, keeping the file's permissions."""
    source = cast_path.read_text(encoding="utf-8")
    updated = source
    for name, voice in voices.items():
        updated = voice_text(updated, name, voice, str(cast_path))
    write_text_atomic(cast_path, updated, mode=stat.S_IMODE(cast_path.stat().st_mode))
