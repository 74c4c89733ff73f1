"""The scenes and lines of a YAML script: a scene's keys, its mix settings and each line (the
short form `- SPEAKER: text`, the long form with `speaker:` and `text:`, or an element such as
`- action: ...`)."""

from __future__ import annotations

import re

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from drama_cli.script.direction import check_model_tokens, parse_directions
from drama_cli.script.document import Element, Line, Scene, Warning_
from drama_cli.script.language_tags import read_language_label
from drama_cli.script.mix_settings import SCRIPT_FIELDS, MixSettings
from drama_cli.script.yaml_reader import MAX_PAUSE_S, MIN_PAUSE_S, YamlReader
from drama_cli.script.yaml_sounds import (
    BED_KINDS,
    check_anchors,
    is_sound_item,
    read_beds,
    read_sound_item,
)

MIX_KEYS = tuple(setting.key for setting in SCRIPT_FIELDS)
SCENE_KEYS = ("id", "title", "direction", "lines", "chapter", *MIX_KEYS, *BED_KINDS)
LINE_KEYS = (
    "speaker",
    "text",
    "note",
    "notes",
    "id",
    "pause_after",
    "overlap",
    "lang",
    "normalize",
)
ELEMENT_KEYS = ("action", "direction", "section", "transition", "remark")


def read_scene(reader: YamlReader, node: Node, number: int) -> Scene:
    """One scene of a `scenes:` list (keys in SCENE_KEYS), numbered `number` (default id
    `scene-N`), with its lines. Raises ScriptError at the node for a bad key or value."""
    fields = reader.mapping(node, SCENE_KEYS, "a scene")
    scene_id = (
        reader.scalar(fields["id"][1], "scene id").strip() if "id" in fields else f"scene-{number}"
    )
    if not scene_id:
        raise reader.error("scene id is empty", fields["id"][1])
    scene = Scene(id=scene_id, position=reader.at(node))
    if "title" in fields:
        scene.title = reader.text(fields["title"][1], "title") or ""
    if "direction" in fields:
        scene.direction = reader.text(fields["direction"][1], "direction")
        scene.elements.append(
            Element("direction", scene.direction or "", reader.at(fields["direction"][1]))
        )
    scene.mix = read_mix(reader, fields)
    if "chapter" in fields:
        scene.chapter = (
            " ".join((reader.text(fields["chapter"][1], "chapter") or "").split()) or None
        )
    scene.sounds = read_beds(reader, fields)
    if "lines" in fields:
        read_lines(reader, fields["lines"][1], scene)
    reader.problems.errors.extend(check_anchors(scene))
    return scene


def read_mix(reader: YamlReader, fields: dict[str, tuple[Node, Node]]) -> MixSettings | None:
    """Mix settings from a script's or a scene's keys (MIX_KEYS), each within its range in
    `MIX_FIELDS`; None when none is given. A bad room tone, level or duration is a ScriptError
    at its value, recorded in the reader's problems so that every bad field is listed (the
    field stays unset)."""
    if not any(key in fields for key in MIX_KEYS):
        return None
    given: dict = {}
    if "room_tone" in fields:
        with reader.problems.collect():
            node = fields["room_tone"][1]
            value = reader.scalar(node, "room_tone").strip()
            if not value:
                raise reader.error(
                    "room_tone is empty", node, "write 'noise' or the path of a room-tone clip"
                )
            given.update(
                room_tone="noise" if value.lower() == "noise" else value,
                room_tone_position=reader.at(node),
            )
    for setting in SCRIPT_FIELDS:
        if setting.low is not None and setting.key in fields:
            read = reader.seconds if setting.unit == "seconds" else reader.number
            with reader.problems.collect():
                given[setting.name] = read(
                    fields[setting.key][1], setting.key, setting.low, setting.high
                )
    return MixSettings(**given)


def read_lines(reader: YamlReader, node: Node, scene: Scene) -> None:
    """Add the lines and elements of a `lines:` list to `scene`; a bad line is recorded in the
    reader's problems and the others are still read."""
    if not isinstance(node, SequenceNode):
        raise reader.error("'lines' must be a list", node, "start each line with '- SPEAKER: text'")
    for item in node.value:
        with reader.problems.collect():
            if isinstance(item, MappingNode) and is_sound_item(
                reader.mapping(item, None, "a line")
            ):
                scene.sounds.append(read_sound_item(reader, item, scene))
                continue
            entry = _read_line_item(reader, item, scene)
            scene.elements.append(entry)
            if isinstance(entry, Line):
                scene.lines.append(entry)


def _read_line_item(reader: YamlReader, node: Node, scene: Scene) -> Line | Element:
    if isinstance(node, ScalarNode):
        speaker, sep, text = node.value.partition(":")
        if not sep or not text.strip():
            raise reader.error(
                "a line must be 'SPEAKER: text' or a mapping with speaker and text", node
            )
        return _make_line(reader, scene, node, speaker.strip(), text.strip(), node)
    if not isinstance(node, MappingNode):
        raise reader.error("a line must be 'SPEAKER: text' or a mapping", node)
    fields = reader.mapping(node, None, "a line")
    if len(fields) == 1:
        ((key, (key_node, value_node)),) = fields.items()
        if key in ELEMENT_KEYS:
            kind = "note" if key == "remark" else key
            return Element(kind, reader.text(value_node, key) or "", reader.at(value_node))
        if key not in LINE_KEYS:
            return _make_line(reader, scene, node, key, reader.text(value_node, "text"), value_node)
    reader.mapping(node, LINE_KEYS, "a line")
    if "speaker" not in fields:
        raise reader.error("this line has no speaker", node, "add 'speaker: NAME'")
    speaker = reader.scalar(fields["speaker"][1], "speaker")
    text_node = fields["text"][1] if "text" in fields else node
    text = reader.text(fields["text"][1], "text") if "text" in fields else None
    line = _make_line(reader, scene, node, speaker, text, text_node)
    _apply_line_fields(reader, line, fields)
    if line.overlap and not scene.lines:
        reader.warnings.append(
            Warning_(
                "overlap: true on the scene's first line overlaps nothing: it starts "
                "the scene as any first line does",
                reader.at(fields["overlap"][1]),
            )
        )
    return line


def _make_line(
    reader: YamlReader, scene: Scene, node: Node, speaker: str, text: str | None, text_node: Node
) -> Line:
    if text is None or not text.strip():
        raise reader.error(
            f"the line of {speaker} has no text",
            text_node,
            "write the words after the colon (quote them if they start with [ or #)",
        )
    where = reader.text_start(text_node)
    number = reader.numbers.next(scene)
    line = Line(
        id=f"{scene.id}-{number}", speaker=speaker, text=text, cue=speaker, position=reader.at(node)
    )
    line.spans = parse_directions(text, where)
    _warn_parenthetical(reader, line, where)
    return line


_OPENING_PARENTHETICAL = re.compile(r"\s*\(([^()]{1,40})\)")


def _warn_parenthetical(reader: YamlReader, line: Line, where) -> None:
    """Warn of a line that opens with a short Fountain-style parenthetical (`(softly) Come in.`):
    a YAML line's text is spoken as written, so the direction would be said as words."""
    match = _OPENING_PARENTHETICAL.match(line.text)
    if match is None or len(match.group(1).split()) > 4:
        return  # a longer aside in brackets is prose
    direction = " ".join(match.group(1).split())
    reader.warnings.append(
        Warning_(
            f"the line opens with '({direction})', which a YAML script speaks as words: write it as a "
            f"direction, [{direction}] or note: {direction}",
            where,
        )
    )


def _apply_line_fields(
    reader: YamlReader, line: Line, fields: dict[str, tuple[Node, Node]]
) -> None:
    if "id" in fields:
        line.id = reader.scalar(fields["id"][1], "id").strip()
        if not line.id:
            raise reader.error("line id is empty", fields["id"][1])
    if "note" in fields:
        node = fields["note"][1]
        note = reader.text(node, "note") or ""
        check_model_tokens(note, reader.text_start(node))
        line.notes += [note] if note.strip() else []
    if "notes" in fields:
        node = fields["notes"][1]
        notes = (
            reader.string_list(node, "notes")
            if isinstance(node, SequenceNode)
            else [reader.text(node, "notes") or ""]
        )
        for note in notes:
            check_model_tokens(note, reader.at(node))
        line.remarks += [n for n in notes if n.strip()]
    if "pause_after" in fields:
        with reader.problems.collect():  # each bad field is listed, not just the first
            line.pause_after_s = reader.seconds(
                fields["pause_after"][1], "pause_after", MIN_PAUSE_S, MAX_PAUSE_S
            )
    if "overlap" in fields:
        with reader.problems.collect():
            line.overlap = reader.boolean(fields["overlap"][1], "overlap")
    if "normalize" in fields:
        with reader.problems.collect():
            line.normalize = reader.boolean(fields["normalize"][1], "normalize")
    if "lang" in fields:
        with reader.problems.collect():
            line.lang = read_language_label(reader, fields["lang"][1], "lang") or None
