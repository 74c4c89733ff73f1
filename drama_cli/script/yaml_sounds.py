"""Sounds in a YAML scene: `- sound: FILE` items among its lines (effects), `- music: FILE`
items (music cues: a sting, a theme that plays once) and the scene's `music:` / `ambience:` beds, each named by its
`name:` or its file's stem, with their anchors (`at: LINE end + 0.5`, `after: LINE`,
`at: 12.0`, `until: LINE | scene-end`). Anchors naming a line the scene does not have, and an
`until:` that comes before the sound's start, are errors at the anchor (`check_anchors`)."""

from __future__ import annotations

import re
from pathlib import PurePath

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.document import Scene, Sound, SoundAnchor
from drama_cli.script.yaml_reader import YamlReader

SOUND_KEYS = (
    "sound",
    "name",
    "at",
    "after",
    "until",
    "gain_db",
    "fade_in",
    "fade_out",
    "loop",
    "duck",
)
MUSIC_KEYS = ("music", *SOUND_KEYS[1:])
BED_KEYS = ("file", *SOUND_KEYS[1:])
BED_KINDS = ("music", "ambience")
MAX_FADE_S = 600.0
GAIN_DB_RANGE = (-120.0, 24.0)
MAX_ANCHOR_S = 24 * 3600.0  # seconds on a scene's clock, and offsets from a line
SCENE_START, SCENE_END = "scene-start", "scene-end"
ANCHOR_HINT = (
    "write a line id (with 'start' or 'end'), 'scene-start', 'scene-end' or seconds, "
    "e.g. 'at: s1-2 end + 0.5' or 'at: 12.0'"
)
_SECONDS = r"(?:\d+(?:\.\d*)?|\.\d+)"
_ANCHOR = re.compile(
    rf"(?P<ref>\S+?)(?:\s+(?P<edge>start|end))?"
    rf"(?:\s+(?P<sign>[+-])\s*(?P<offset>{_SECONDS})\s*(?P<unit>ms|s)?)?"
)
_CLOCK = re.compile(rf"(?P<offset>{_SECONDS})\s*(?P<unit>ms|s)?")
_NUMBER = re.compile(
    rf"[+-]?(?:{_SECONDS}(?:e[+-]?\d+)?|inf(?:inity)?|nan)\s*(?:ms|s)?", re.IGNORECASE
)  # what a reader takes for seconds but the clock refuses


def is_sound_item(fields: dict) -> bool:
    """Whether a mapping among a scene's lines is a sound item (a `sound:` or `music:` key)."""
    return "sound" in fields or "music" in fields


def read_sound_item(reader: YamlReader, node: MappingNode, scene: Scene) -> Sound:
    """An effect (`sound:`, keys in SOUND_KEYS) or a music cue (`music:`, MUSIC_KEYS: plays
    once and is ducked unless it says otherwise) written among the lines. Without `at:` or
    `after:` it starts where the line before it ends (the scene's start when it comes first)."""
    music = "music" in reader.mapping(node, None, "a sound")
    fields = reader.mapping(node, MUSIC_KEYS if music else SOUND_KEYS, "a sound")
    previous = scene.lines[-1].id if scene.lines else None
    default = SoundAnchor(previous, "end" if previous else "start", 0.0, reader.at(node))
    return _read_sound(
        reader,
        node,
        fields,
        "music" if music else "sound",
        "music" if music else "effect",
        default,
        loop=False,
        duck=music,
    )


def read_beds(reader: YamlReader, fields: dict[str, tuple[Node, Node]]) -> list[Sound]:
    """The `music:` and `ambience:` beds of a scene: each a file path, a mapping (BED_KEYS) or a
    list of those. A bed loops from the scene's start to its end and is ducked under dialogue
    unless it says otherwise. Bad values are recorded in the reader's problems."""
    beds = []
    for kind in BED_KINDS:
        if kind not in fields:
            continue
        value = fields[kind][1]
        for item in value.value if isinstance(value, SequenceNode) else [value]:
            with reader.problems.collect():
                beds.append(_read_bed(reader, item, kind))
    return beds


def _read_bed(reader: YamlReader, node: Node, kind: str) -> Sound:
    start = SoundAnchor(None, "start", 0.0, reader.at(node))
    if isinstance(node, ScalarNode):
        path = _path(reader, node)
        return Sound(
            path,
            kind,
            start,
            loop=True,
            duck=True,
            name=PurePath(path).stem,
            position=reader.at(node),
        )
    fields = reader.mapping(node, BED_KEYS, f"the {kind} bed")
    if "file" not in fields:
        raise reader.error(f"the {kind} bed has no file", node, "add 'file: sounds/NAME.wav'")
    return _read_sound(reader, node, fields, "file", kind, start, loop=True, duck=True)


def _read_sound(
    reader: YamlReader,
    node: Node,
    fields: dict,
    file_key: str,
    kind: str,
    start: SoundAnchor,
    loop: bool,
    duck: bool,
) -> Sound:
    path = _path(reader, fields[file_key][1])
    sound = Sound(
        path,
        kind,
        start,
        loop=loop,
        duck=duck,
        name=_name(reader, fields, path),
        position=reader.at(node),
    )
    if "at" in fields and "after" in fields:
        raise reader.error("give 'at:' or 'after:', not both", fields["after"][0])
    if "at" in fields:
        sound.start = read_anchor(reader, fields["at"][1], "start")
    if "after" in fields:
        after = read_anchor(reader, fields["after"][1], "end")
        if after.line is None:
            raise reader.error("'after:' takes a line id", fields["after"][1], ANCHOR_HINT)
        sound.start = after
    if "until" in fields:
        sound.until = read_anchor(reader, fields["until"][1], "end")
    if "gain_db" in fields:
        sound.gain_db = reader.number(fields["gain_db"][1], "gain_db", *GAIN_DB_RANGE)
    for key in ("fade_in", "fade_out"):
        if key in fields:
            setattr(sound, f"{key}_s", reader.seconds(fields[key][1], key, 0.0, MAX_FADE_S))
    for key in ("loop", "duck"):
        if key in fields:
            setattr(sound, key, reader.boolean(fields[key][1], key))
    return sound


def _name(reader: YamlReader, fields: dict, path: str) -> str:
    """The sound's `name:` as written, else its file's stem (`sfx/door.wav` is `door`): what
    labels, subtitles and the cue sheet call it."""
    if "name" not in fields:
        return PurePath(path).stem
    name = " ".join(reader.scalar(fields["name"][1], "name").split())
    if not name:
        raise reader.error(
            "the sound's name is empty",
            fields["name"][1],
            "write a short name, e.g. 'name: door-slam', or leave the key out",
        )
    return name


def _path(reader: YamlReader, node: Node) -> str:
    path = reader.scalar(node, "sound file").strip()
    if not path:
        raise reader.error(
            "the sound file is empty", node, "write the path of a sound file (WAV, FLAC, OGG, MP3)"
        )
    return path


def read_anchor(reader: YamlReader, node: Node, edge: str) -> SoundAnchor:
    """An anchor (`LINE`, `LINE start|end`, either `+ SECONDS` / `- SECONDS`, `scene-start`,
    `scene-end`, or seconds on the scene's clock, 0 to MAX_ANCHOR_S); a line without an edge
    takes `edge`. Raises ScriptError at the value for anything else, a number out of that
    range included."""
    text = " ".join(reader.scalar(node, "anchor").split())
    where = reader.at(node)
    clock = _CLOCK.fullmatch(text)
    if clock:
        return SoundAnchor(None, "start", _in_range(_seconds(clock), text, where), where)
    if _NUMBER.fullmatch(text):
        raise ScriptError(
            f"the anchor {text} is not a time on the scene's clock", where, _RANGE_HINT
        )
    match = _ANCHOR.fullmatch(text)
    if not match:
        raise ScriptError(f"cannot read the anchor {text!r}", where, ANCHOR_HINT)
    offset = _in_range(_seconds(match), text, where) * (-1 if match.group("sign") == "-" else 1)
    ref = match.group("ref")
    if ref in (SCENE_START, SCENE_END):
        if match.group("edge"):
            raise ScriptError(f"{ref} takes no 'start' or 'end'", where, ANCHOR_HINT)
        return SoundAnchor(None, "start" if ref == SCENE_START else "end", offset, where)
    return SoundAnchor(ref, match.group("edge") or edge, offset, where)


_RANGE_HINT = (
    f"write seconds from 0 to {MAX_ANCHOR_S:.0f} (24 h) from the scene's start, or "
    "an offset from a line, e.g. 'at: s1-2 start - 5'"
)


def _in_range(seconds: float, text: str, where: SourcePosition) -> float:
    if not seconds <= MAX_ANCHOR_S:
        raise ScriptError(f"the anchor {text} is out of range", where, _RANGE_HINT)
    return seconds


def _seconds(match: re.Match) -> float:
    if match.group("offset") is None:
        return 0.0
    value = float(match.group("offset"))
    return value / 1000 if match.group("unit") == "ms" else value


def check_anchors(scene: Scene) -> list[ScriptError]:
    """An error at each anchor of the scene's sounds that names a line the scene does not
    have (sounds are placed on one scene's timeline), and at each `until:` that surely comes
    before its sound's start (`until_before_start`)."""
    ids = {line.id for line in scene.lines}
    errors = [
        ScriptError(
            f"sound {sound.name}: no line {anchor.line!r} in scene {scene.id}",
            anchor.position,
            "anchor it to a line of this scene",
        )
        for sound in scene.sounds
        for anchor in sound.anchors()
        if anchor.line not in ids
    ]
    if errors:
        return errors
    return [
        ScriptError(
            f"sound {sound.name}: until {_label(sound.until)} before the sound "
            f"starts (at {_label(sound.start)})",
            sound.until.position,
            "stop it at a line or time after its start",
        )
        for sound in scene.sounds
        if until_before_start(scene, sound)
    ]


def until_before_start(scene: Scene, sound: Sound) -> bool:
    """Whether `sound.until` comes at or before `sound.start` whatever the takes' lengths: both
    on the scene's clock, or on lines in order with no overlapping line from one to the other
    (lines then follow each other), and the until's offset no later than the start's."""
    start, until = sound.start, sound.until
    if until is None or until.offset_s > start.offset_s:
        return False
    if start.line is None or until.line is None:
        return (start.line, start.edge) == (until.line, until.edge)
    index = {line.id: n for n, line in enumerate(scene.lines)}
    first, last = index[until.line], index[start.line]
    if first == last:
        return until.edge == "start" or start.edge == "end"
    return first < last and not any(line.overlap for line in scene.lines[first + 1 : last + 1])


def _label(anchor: SoundAnchor) -> str:
    """`g-1 ends`, `g-2 starts + 0.5 s`, `scene-start + 3 s`."""
    if anchor.line is None:
        where = SCENE_START if anchor.edge == "start" else SCENE_END
    else:
        where = f"{anchor.line} {anchor.edge}s"
    sign = "-" if anchor.offset_s < 0 else "+"
    return where + (f" {sign} {abs(anchor.offset_s):g} s" if anchor.offset_s else "")
