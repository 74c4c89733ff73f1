"""The YAML script reader, string-preserving (case Y1, Y3).

The file is composed to YAML nodes (`yaml.compose`), never constructed: every text field is
taken from the scalar's source string, so `no`, `Yes`, `Null`, `10:30` stay strings. A text
value written as an unquoted flow sequence (`text: [sighs]`) is taken as its exact source slice.
A value swallowed by a comment (`text: #1 rule`, YAML reads everything after ` #` as a comment)
is recovered from the source line and reported as a warning, so it is never silently empty.

Errors are ScriptErrors at file:line:col with the fix: duplicate keys, tabs in indentation,
values YAML cannot read unquoted (`[sighs] Fine`, `*waves*`, `Wait: you knew?`), unknown keys
(with the closest known key), wrong value types.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.direction import check_model_tokens, parse_directions
from drama_cli.script.document import (
    CastMember,
    DialogueNumbers,
    Element,
    Line,
    MixOptions,
    ReferenceClip,
    Scene,
    Script,
    Warning_,
)
from drama_cli.script.problems import Problems

QUOTE_HINT = 'put the value in double quotes, e.g. text: "[sighs] Fine."'
MIX_KEYS = ("room_tone", "room_tone_db", "gap", "head", "tail")
SCRIPT_KEYS = ("title", "cast", "narrator", "scenes", "lines", "description", "book", "chapters",
               *MIX_KEYS, "lexicon", "lexicons", "language", "normalize")
MEMBER_KEYS = ("voice", "reference", "transcript", "references", "description", "speaker", "aliases", "lang")
CLIP_KEYS = ("audio", "path", "transcript")
SCENE_KEYS = ("id", "title", "direction", "lines", "chapter", *MIX_KEYS)
LINE_KEYS = ("speaker", "text", "note", "notes", "id", "pause_after", "overlap", "lang", "normalize")
LANGUAGE_KEYS = ("lexicon", "lexicons", "language", "normalize")  # drama_cli.script.lexicon
ELEMENT_KEYS = ("action", "direction", "section", "transition", "remark")
MIN_PAUSE_S = -10.0  # a negative pause overlaps the end of the line before
MAX_PAUSE_S = 60.0  # longer silences are a typo (99999 s wrote a 13 GB mix)


class _Reader:
    """One YAML source being read; holds the text for positions and recovery."""

    def __init__(self, source: str, path: str, problems: Problems | None = None):
        self.source = source
        self.path = path
        self.problems = problems or Problems()
        self.lines = source.split("\n")
        self.warnings: list[Warning_] = []
        self.numbers = DialogueNumbers()

    def at(self, node: Node) -> SourcePosition:
        """1-based position of a node's first character."""
        return SourcePosition(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def error(self, message: str, node: Node, hint: str | None = None) -> ScriptError:
        """A ScriptError located at `node`."""
        return ScriptError(message, self.at(node), hint)

    def mapping(self, node: Node, allowed: tuple[str, ...] | None, what: str) -> dict[str, tuple[Node, Node]]:
        """Keys of a mapping node -> (key node, value node); duplicates and unknown keys raise."""
        if not isinstance(node, MappingNode):
            raise self.error(f"{what} must be a mapping of keys to values", node)
        result: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node, "key")
            if key in result:
                first = result[key][0].start_mark.line + 1
                raise self.error(f"duplicate key {key!r} (first at line {first})", key_node,
                                 "keep one: each key may appear once in a mapping")
            if allowed is not None and key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(allowed)}"
                raise self.error(f"unknown key {key!r} in {what}", key_node, hint)
            result[key] = (key_node, value_node)
        return result

    def scalar(self, node: Node, what: str) -> str:
        """A scalar's exact source string; raises for lists and mappings."""
        if isinstance(node, ScalarNode):
            return node.value
        raise self.error(f"{what} must be a single value, not a list or mapping", node, QUOTE_HINT)

    def text(self, node: Node, what: str) -> str | None:
        """A text field as the exact source string (None when empty); see the module docstring."""
        if isinstance(node, ScalarNode):
            if node.value == "" and node.style is None:
                return self._recover_comment(node, what)
            return node.value
        if isinstance(node, SequenceNode) and node.flow_style:
            return self.source[node.start_mark.index:node.end_mark.index]
        raise self.error(f"{what} must be text, not a list or mapping", node, QUOTE_HINT)

    def _recover_comment(self, node: Node, what: str) -> str | None:
        line = self.lines[node.start_mark.line]
        rest = line[node.start_mark.column:]
        match = re.search(r"(?:^|\s)(#.*)$", rest)
        if not match:
            return None
        recovered = match.group(1).rstrip()
        self.warnings.append(Warning_(
            f"{what} {recovered!r} starts with '#', which YAML reads as a comment; "
            "taken as the text (quote it to silence this warning)", self.at(node)))
        return recovered

    def integer(self, node: Node, what: str) -> int:
        """A whole number from a scalar; raises ScriptError otherwise."""
        value = self.scalar(node, what)
        try:
            return int(value)
        except ValueError:
            raise self.error(f"{what} must be a whole number, got {value!r}", node) from None

    def seconds(self, node: Node, what: str, low: float = 0.0, high: float = MAX_PAUSE_S) -> float:
        """Seconds from `0.5`, `-0.5`, `0.5s` or `500ms`, within [low, high]; raises ScriptError
        for anything else."""
        value = self.scalar(node, what).strip().lower()
        match = re.fullmatch(r"([-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*(ms|s)?", value)
        if not match:
            example = "-0.5, 0.5s or 500ms" if low < 0 else "0.5, 0.5s or 500ms"
            raise self.error(f"{what} must be a duration like {example}, got {value!r}", node)
        number = float(match.group(1))
        number = number / 1000 if match.group(2) == "ms" else number
        if not low <= number <= high:
            raise self.error(f"{what} must be between {low:g} and {high:g} seconds, got {number:g}", node)
        return number

    def number(self, node: Node, what: str, low: float, high: float) -> float:
        """A decimal number within [low, high] (e.g. a level in dB); raises ScriptError otherwise."""
        value = self.scalar(node, what).strip().lower()
        value = value[:-2].strip() if value.endswith("db") else value
        try:
            number = float(value)
        except ValueError:
            raise self.error(f"{what} must be a number, got {value!r}", node) from None
        if not low <= number <= high:
            raise self.error(f"{what} must be between {low:g} and {high:g}, got {number:g}", node)
        return number

    def boolean(self, node: Node, what: str) -> bool:
        """true/yes/on or false/no/off; raises ScriptError otherwise."""
        value = self.scalar(node, what).strip().lower()
        if value in ("true", "yes", "on"):
            return True
        if value in ("false", "no", "off"):
            return False
        raise self.error(f"{what} must be true or false, got {value!r}", node)

    def string_list(self, node: Node, what: str) -> list[str]:
        """A list of strings, or one string (comma-separated for aliases)."""
        if isinstance(node, SequenceNode):
            return [self.scalar(item, what) for item in node.value]
        return [part.strip() for part in self.scalar(node, what).split(",") if part.strip()]


def read_yaml(source: str, path: str = "<script>", base_dir: str | None = None,
              problems: Problems | None = None) -> Script:
    """Read a YAML script (format in README "Script formats") into a Script, speakers unresolved.

    source: the file's text. path: the name used in positions. base_dir: folder that reference
    paths are relative to (default: the folder of `path`), used to find `<clip>.txt` transcripts.
    problems: a collector for errors in scenes and lines (the reader goes on after them and the
    caller raises); without one, those errors are raised at the end (ScriptErrors when several).
    Raises ScriptError with file:line:col for every problem found.
    """
    own = problems is None
    problems = Problems() if own else problems
    reader = _Reader(source, path, problems)
    root = compose(source, path)
    if root is None:
        raise ScriptError("the script is empty", SourcePosition(path, 1, 1),
                          "start with 'cast:' and 'scenes:' (see README)")
    top = reader.mapping(root, SCRIPT_KEYS, "the script")
    base = Path(base_dir) if base_dir is not None else Path(path).parent
    script = Script(source=path, base_dir=str(base), format="yaml")
    if "title" in top:
        script.title = reader.text(top["title"][1], "title") or ""
        script.title_page = {"Title": script.title}
    if "cast" in top:
        script.cast = read_cast_node(reader, top["cast"][1], base)
    if "narrator" in top:
        script.narrator = reader.scalar(top["narrator"][1], "narrator")
    script.mix = read_mix(reader, top)
    read_language_keys(reader, top, base, script)
    if "book" in top:
        from drama_cli.script.book import read_book_node

        script.book = read_book_node(reader, top["book"][1])
    if "scenes" in top and "lines" in top:
        raise reader.error("use either 'scenes:' or top-level 'lines:', not both", top["lines"][0])
    if "chapters" in top and ("scenes" in top or "lines" in top):
        raise reader.error("use either 'chapters:' or 'scenes:', not both", top["chapters"][0],
                           "put each scene under its chapter, or give scenes 'chapter: TITLE'")
    if "chapters" in top:
        from drama_cli.script.book import read_chapters_node

        script.scenes.extend(read_chapters_node(reader, top["chapters"][1]))
    if "scenes" in top:
        node = top["scenes"][1]
        if not isinstance(node, SequenceNode):
            raise reader.error("'scenes' must be a list of scenes", node, "start each scene with '- id: ...'")
        for number, scene_node in enumerate(node.value, start=1):
            with problems.collect():
                script.scenes.append(_read_scene(reader, scene_node, number))
    elif "lines" in top:
        scene = Scene(id="scene-1", position=reader.at(top["lines"][0]))
        _read_lines(reader, top["lines"][1], scene)
        script.scenes.append(scene)
    with problems.collect():
        _check_unique_ids(script)
    if own:
        problems.raise_if_any()
    script.warnings.extend(reader.warnings)
    return script


_TAB_INDENT = re.compile(r"^ *\t[^\n]*\S", re.MULTILINE)  # a tab in the indentation of a line with text


def compose(source: str, path: str) -> Node | None:
    """`yaml.compose` with tabs and YAML syntax errors turned into located ScriptErrors.

    libyaml (`yaml.CSafeLoader`, when PyYAML has it) reads the script; only a script it refuses
    is read again by the pure-Python loader, whose messages and marks the errors are built from
    (it reads a 5 MB script about ten times slower)."""
    tab = _TAB_INDENT.search(source)
    if tab is not None:
        number = source.count("\n", 0, tab.start()) + 1
        column = tab.group().index("\t") + 1
        raise ScriptError("tab in indentation", SourcePosition(path, number, column),
                          "YAML indents with spaces: replace the tab with spaces")
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None and not source.startswith("\ufeff"):  # libyaml counts marks after a BOM
        try:
            return _plain_styles(yaml.compose(source, Loader=fast))
        except (yaml.YAMLError, UnicodeError, RecursionError):
            pass  # read again below for the located message
    try:
        return yaml.compose(source, Loader=yaml.SafeLoader)
    except RecursionError:
        line, column = _deepest_point(source)
        raise ScriptError("YAML nested too deeply to read", SourcePosition(path, line, column),
                          "a script needs only a few levels: check the brackets and indentation "
                          "from here") from None
    except yaml.MarkedYAMLError as err:
        if "quoted scalar" in (err.context or "") and err.context_mark is not None:
            mark = err.context_mark  # an unclosed quote: report where it opens, not where the file ends
            raise ScriptError("unclosed quote", SourcePosition(path, mark.line + 1, mark.column + 1),
                              f"close it with {source[mark.index]} on the same value") from None
        mark = err.problem_mark or err.context_mark
        where = SourcePosition(path, mark.line + 1, mark.column + 1) if mark else SourcePosition(path, 1, 1)
        problem = err.problem or err.context or "unreadable YAML"
        hint = "replace the tab with spaces" if "\\t" in problem or "\t" in problem else (
            QUOTE_HINT + "; values that start with [ { * & ! @ ` % or hold ': ' or ' #' need quotes")
        raise ScriptError(f"YAML cannot read this: {problem}", where, hint) from None
    except yaml.YAMLError as err:
        raise ScriptError(f"YAML cannot read this: {err}", SourcePosition(path, 1, 1)) from None


def _plain_styles(root: Node | None) -> Node | None:
    """Give libyaml's plain scalars the style the Python loader gives them (None, not ''), so
    an empty plain value reads the same either way (`_Reader.text` recovers a `#` value)."""
    stack, seen = ([root] if root is not None else []), set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # aliases share nodes, and may loop
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.style == "":
                node.style = None
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            stack.extend(item for pair in node.value for item in pair)
    return root


def _deepest_point(source: str, limit: int = 100) -> tuple[int, int]:
    """(line, column), 1-based, where flow brackets or indentation first nest `limit` levels deep
    (the end of the deepest point when they never do)."""
    depth, best = 0, (0, (1, 1))
    for number, line in enumerate(source.split("\n"), start=1):
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and indent // 2 >= limit:
            return number, indent + 1
        for column, char in enumerate(line, start=1):
            depth += (char in "[{") - (char in "]}")
            if depth >= limit:
                return number, column
            if depth > best[0]:
                best = (depth, (number, column))
    return best[1]


def read_cast_node(reader: _Reader, node: Node, base: Path) -> dict[str, CastMember]:
    """Cast members from a `cast:` mapping (name -> settings, or name -> reference path)."""
    members: dict[str, CastMember] = {}
    for name, (key_node, value_node) in reader.mapping(node, None, "the cast").items():
        members[name] = _read_member(reader, name, key_node, value_node, base)
    return members


def _read_member(reader: _Reader, name: str, key_node: Node, node: Node, base: Path) -> CastMember:
    member = CastMember(name=name, position=reader.at(key_node))
    if isinstance(node, ScalarNode):
        if node.value:
            member.references.append(_clip(reader, node.value, None, node, base))
        return member
    fields = reader.mapping(node, MEMBER_KEYS, f"cast member {name}")
    transcript = reader.text(fields["transcript"][1], "transcript") if "transcript" in fields else None
    for key in ("voice", "reference"):
        if key in fields:
            path = reader.scalar(fields[key][1], key)
            member.references.append(_clip(reader, path, transcript, fields[key][1], base))
    if "transcript" in fields and not member.references:
        raise reader.error("a transcript needs its audio: add 'voice: refs/<name>.wav'", fields["transcript"][0])
    if "references" in fields:
        refs = fields["references"][1]
        if not isinstance(refs, SequenceNode):
            raise reader.error("'references' must be a list", refs, "write '- audio: refs/x.wav' items")
        for item in refs.value:
            member.references.append(_read_clip(reader, item, base))
    if "description" in fields:
        member.description = reader.text(fields["description"][1], "description")
    if "speaker" in fields:
        with reader.problems.collect():  # listed with the lines' problems; the member stays
            index = reader.integer(fields["speaker"][1], "speaker index")
            if not 0 <= index <= 15:
                raise reader.error(f"speaker index must be 0..15, got {index}", fields["speaker"][1])
            member.speaker_index = index
    if "aliases" in fields:
        member.aliases = reader.string_list(fields["aliases"][1], "alias")
    if "lang" in fields:
        member.lang = reader.scalar(fields["lang"][1], "lang")
    return member


def _read_clip(reader: _Reader, node: Node, base: Path) -> ReferenceClip:
    if isinstance(node, ScalarNode):
        return _clip(reader, node.value, None, node, base)
    fields = reader.mapping(node, CLIP_KEYS, "a reference")
    key = "audio" if "audio" in fields else "path" if "path" in fields else None
    if key is None:
        raise reader.error("a reference needs 'audio: <file>'", node)
    transcript = reader.text(fields["transcript"][1], "transcript") if "transcript" in fields else None
    return _clip(reader, reader.scalar(fields[key][1], key), transcript, fields[key][1], base)


def _clip(reader: _Reader, path: str, transcript: str | None, node: Node, base: Path) -> ReferenceClip:
    """A reference clip; without a transcript, `<clip>.txt` beside the audio is read if present."""
    if transcript is None:
        sidecar = (base / path).with_suffix(".txt")
        if sidecar.is_file():
            transcript = sidecar.read_text(encoding="utf-8-sig").strip() or None
    if transcript is not None:
        check_model_tokens(transcript, reader.at(node))
    return ReferenceClip(path=path, transcript=transcript, position=reader.at(node))


def _read_scene(reader: _Reader, node: Node, number: int) -> Scene:
    fields = reader.mapping(node, SCENE_KEYS, "a scene")
    scene_id = reader.scalar(fields["id"][1], "scene id").strip() if "id" in fields else f"scene-{number}"
    if not scene_id:
        raise reader.error("scene id is empty", fields["id"][1])
    scene = Scene(id=scene_id, position=reader.at(node))
    if "title" in fields:
        scene.title = reader.text(fields["title"][1], "title") or ""
    if "direction" in fields:
        scene.direction = reader.text(fields["direction"][1], "direction")
        scene.elements.append(Element("direction", scene.direction or "", reader.at(fields["direction"][1])))
    scene.mix = read_mix(reader, fields)
    if "chapter" in fields:
        scene.chapter = " ".join((reader.text(fields["chapter"][1], "chapter") or "").split()) or None
    if "lines" in fields:
        _read_lines(reader, fields["lines"][1], scene)
    return scene


def read_mix(reader: _Reader, fields: dict[str, tuple[Node, Node]]) -> MixOptions | None:
    """Mix settings from a script's or a scene's keys (MIX_KEYS); None when none is given.
    A bad room tone, level or duration is a ScriptError at its value, recorded in the reader's
    problems so that every bad field is listed (the field stays unset)."""
    if not any(key in fields for key in MIX_KEYS):
        return None
    mix = MixOptions()
    if "room_tone" in fields:
        with reader.problems.collect():
            node = fields["room_tone"][1]
            value = reader.scalar(node, "room_tone").strip()
            if not value:
                raise reader.error("room_tone is empty", node, "write 'noise' or the path of a room-tone clip")
            mix.room_tone = "noise" if value.lower() == "noise" else value
            mix.room_tone_position = reader.at(node)
    if "room_tone_db" in fields:
        with reader.problems.collect():
            mix.room_tone_db = reader.number(fields["room_tone_db"][1], "room_tone_db", -120.0, 0.0)
    for key, attribute in (("gap", "gap_s"), ("head", "head_s"), ("tail", "tail_s")):
        if key in fields:
            with reader.problems.collect():
                setattr(mix, attribute, reader.seconds(fields[key][1], key, 0.0, MAX_PAUSE_S))
    return mix


def _read_lines(reader: _Reader, node: Node, scene: Scene) -> None:
    if not isinstance(node, SequenceNode):
        raise reader.error("'lines' must be a list", node, "start each line with '- SPEAKER: text'")
    for item in node.value:
        with reader.problems.collect():
            entry = _read_line_item(reader, item, scene)
            scene.elements.append(entry)
            if isinstance(entry, Line):
                scene.lines.append(entry)


def _read_line_item(reader: _Reader, node: Node, scene: Scene) -> Line | Element:
    if isinstance(node, ScalarNode):
        speaker, sep, text = node.value.partition(":")
        if not sep or not text.strip():
            raise reader.error("a line must be 'SPEAKER: text' or a mapping with speaker and text", node)
        return _make_line(reader, scene, node, speaker.strip(), text.strip(), node)
    if not isinstance(node, MappingNode):
        raise reader.error("a line must be 'SPEAKER: text' or a mapping", node)
    fields = reader.mapping(node, None, "a line")
    if len(fields) == 1:
        (key, (key_node, value_node)), = fields.items()
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
    return line


def _make_line(reader: _Reader, scene: Scene, node: Node, speaker: str, text: str | None, text_node: Node) -> Line:
    if text is None or not text.strip():
        raise reader.error(f"the line of {speaker} has no text", text_node,
                           "write the words after the colon (quote them if they start with [ or #)")
    where = _text_start(reader, text_node)
    number = reader.numbers.next(scene)
    line = Line(id=f"{scene.id}-{number}", speaker=speaker, text=text, cue=speaker,
                position=reader.at(node))
    line.spans = parse_directions(text, where)
    return line


def _text_start(reader: _Reader, node: Node) -> SourcePosition:
    """Position of the first character of a text value: after an opening quote, or on the first
    content line of a block scalar (`|`, `>`)."""
    where = reader.at(node)
    style = getattr(node, "style", None)
    if style in ("'", '"'):
        return SourcePosition(where.file, where.line, where.column + 1)
    if style in ("|", ">") and node.start_mark.line + 1 < len(reader.lines):
        content = reader.lines[node.start_mark.line + 1]
        return SourcePosition(where.file, where.line + 1, len(content) - len(content.lstrip(" ")) + 1)
    return where


def _apply_line_fields(reader: _Reader, line: Line, fields: dict[str, tuple[Node, Node]]) -> None:
    if "id" in fields:
        line.id = reader.scalar(fields["id"][1], "id").strip()
        if not line.id:
            raise reader.error("line id is empty", fields["id"][1])
    if "note" in fields:
        node = fields["note"][1]
        note = reader.text(node, "note") or ""
        check_model_tokens(note, reader.at(node))
        line.notes += [note] if note.strip() else []
    if "notes" in fields:
        node = fields["notes"][1]
        notes = reader.string_list(node, "notes") if isinstance(node, SequenceNode) \
            else [reader.text(node, "notes") or ""]
        for note in notes:
            check_model_tokens(note, reader.at(node))
        line.remarks += [n for n in notes if n.strip()]
    if "pause_after" in fields:
        with reader.problems.collect():  # each bad field is listed, not just the first
            line.pause_after_s = reader.seconds(fields["pause_after"][1], "pause_after", MIN_PAUSE_S, MAX_PAUSE_S)
    if "overlap" in fields:
        with reader.problems.collect():
            line.overlap = reader.boolean(fields["overlap"][1], "overlap")
    if "normalize" in fields:
        with reader.problems.collect():
            line.normalize = reader.boolean(fields["normalize"][1], "normalize")


def _check_unique_ids(script: Script) -> None:
    """Raise every duplicate scene id and every duplicate line id (ScriptErrors when several)."""
    seen_scenes: set[str] = set()
    seen_lines: set[str] = set()
    problems = Problems()
    for scene in script.scenes:
        if scene.id in seen_scenes:
            problems.errors.append(ScriptError(f"duplicate scene id {scene.id!r}", scene.position,
                                               "give each scene its own id"))
        seen_scenes.add(scene.id)
        for line in scene.lines:
            if line.id in seen_lines:
                problems.errors.append(ScriptError(f"duplicate line id {line.id!r}", line.position,
                                                   "give each line its own id"))
            seen_lines.add(line.id)
    problems.raise_if_any()


def read_language_keys(reader: _Reader, fields: dict[str, tuple[Node, Node]], base: Path, script: Script) -> None:
    """The script's `lexicon:`, `lexicons:`, `language:` and `normalize:` keys (a script's top level,
    or a Fountain script's cast file), added to `script`."""
    from drama_cli.script.lexicon import language_code, read_lexicon_keys

    script.lexicon += read_lexicon_keys(reader, fields, base)
    if "language" in fields:
        script.language = language_code(reader.scalar(fields["language"][1], "language")) or script.language
    if "normalize" in fields:
        script.normalize = reader.boolean(fields["normalize"][1], "normalize")


def read_cast_file(path: str | Path) -> tuple[dict[str, CastMember], str | None, list[Warning_]]:
    """Read a companion cast file (`play.cast.yaml`): either a `cast:` mapping (with an optional
    `narrator:`) or the member mapping itself. Returns (members, narrator, warnings).
    Raises ScriptError with positions in that file (also for a file that is not UTF-8)."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ScriptError(f"cannot read cast file: {err.strerror}", SourcePosition(str(path), 1, 1)) from None
    except UnicodeDecodeError as err:
        line = path.read_bytes()[:err.start].count(b"\n") + 1
        raise ScriptError("the cast file is not UTF-8 text", SourcePosition(str(path), line, 1),
                          "save the file as UTF-8") from None
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    reader = _Reader(source, str(path))
    root = compose(source, str(path))
    if root is None:
        raise ScriptError("the cast file is empty", SourcePosition(str(path), 1, 1))
    top = reader.mapping(root, None, "the cast file")
    narrator = None
    if "cast" in top:
        reader.mapping(root, ("cast", "narrator", "title", *LANGUAGE_KEYS), "the cast file")
        narrator = reader.scalar(top["narrator"][1], "narrator") if "narrator" in top else None
        members = read_cast_node(reader, top["cast"][1], path.parent)
    else:
        members = read_cast_node(reader, root, path.parent)
    reader.problems.raise_if_any()
    return members, narrator, reader.warnings
