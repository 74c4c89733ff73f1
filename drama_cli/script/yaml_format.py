"""The YAML script reader, string-preserving (case Y1, Y3): the script's top level, its cast
and cast files; scenes and lines are read by `yaml_scenes`, books by `book`, lexicons by
`lexicon`, every node through `yaml_reader.YamlReader` (text kept as written).

Errors are ScriptErrors at file:line:col with the fix: duplicate keys, tabs in indentation,
values YAML cannot read unquoted (`[sighs] Fine`, `*waves*`, `Wait: you knew?`), unknown keys
(with the closest known key), wrong value types.
"""

from __future__ import annotations

from pathlib import Path

from yaml.nodes import Node, ScalarNode, SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.book import read_book_node, read_chapters_node
from drama_cli.script.direction import check_model_tokens
from drama_cli.script.document import CastMember, ReferenceClip, Scene, Script, Warning_
from drama_cli.script.lexicon import read_language_keys
from drama_cli.script.problems import Problems
from drama_cli.script.yaml_reader import YamlReader, compose
from drama_cli.script.yaml_scenes import MIX_KEYS, read_lines, read_mix, read_scene

SCRIPT_KEYS = ("title", "cast", "narrator", "scenes", "lines", "description", "book", "chapters",
               *MIX_KEYS, "lexicon", "lexicons", "language", "normalize")
MEMBER_KEYS = ("voice", "reference", "transcript", "references", "description", "speaker", "aliases", "lang")
CLIP_KEYS = ("audio", "path", "transcript")
LANGUAGE_KEYS = ("lexicon", "lexicons", "language", "normalize")  # drama_cli.script.lexicon


def read_yaml(source: str, path: str = "<script>", base_dir: str | None = None,
              problems: Problems | None = None) -> Script:
    """Read a YAML script (format in docs/guide/scripts.md) into a Script, speakers unresolved.

    source: the file's text. path: the name used in positions. base_dir: folder that reference
    paths are relative to (default: the folder of `path`), used to find `<clip>.txt` transcripts.
    problems: a collector for errors in scenes and lines (the reader goes on after them and the
    caller raises); without one, those errors are raised at the end (ScriptErrors when several).
    Raises ScriptError with file:line:col for every problem found.
    """
    own = problems is None
    problems = Problems() if own else problems
    reader = YamlReader(source, path, problems)
    root = compose(source, path)
    if root is None:
        raise ScriptError("the script is empty", SourcePosition(path, 1, 1),
                          "start with 'cast:' and 'scenes:' (see docs/guide/scripts.md)")
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
        script.book = read_book_node(reader, top["book"][1])
    if "scenes" in top and "lines" in top:
        raise reader.error("use either 'scenes:' or top-level 'lines:', not both", top["lines"][0])
    if "chapters" in top and ("scenes" in top or "lines" in top):
        raise reader.error("use either 'chapters:' or 'scenes:', not both", top["chapters"][0],
                           "put each scene under its chapter, or give scenes 'chapter: TITLE'")
    if "chapters" in top:
        script.scenes.extend(read_chapters_node(reader, top["chapters"][1]))
    if "scenes" in top:
        node = top["scenes"][1]
        if not isinstance(node, SequenceNode):
            raise reader.error("'scenes' must be a list of scenes", node, "start each scene with '- id: ...'")
        for number, scene_node in enumerate(node.value, start=1):
            with problems.collect():
                script.scenes.append(read_scene(reader, scene_node, number))
    elif "lines" in top:
        scene = Scene(id="scene-1", position=reader.at(top["lines"][0]))
        read_lines(reader, top["lines"][1], scene)
        script.scenes.append(scene)
    with problems.collect():
        _check_unique_ids(script)
    if own:
        problems.raise_if_any()
    script.warnings.extend(reader.warnings)
    return script


def read_cast_node(reader: YamlReader, node: Node, base: Path) -> dict[str, CastMember]:
    """Cast members from a `cast:` mapping (name -> settings, or name -> reference path)."""
    members: dict[str, CastMember] = {}
    for name, (key_node, value_node) in reader.mapping(node, None, "the cast").items():
        members[name] = _read_member(reader, name, key_node, value_node, base)
    return members


def _read_member(reader: YamlReader, name: str, key_node: Node, node: Node, base: Path) -> CastMember:
    member = CastMember(name=name, position=reader.at(key_node))
    if isinstance(node, ScalarNode):
        if node.value:
            member.references.append(_clip(reader, node.value, None, node, base))
        return member
    fields = reader.mapping(node, MEMBER_KEYS, f"cast member {name}")
    transcript = _transcript(reader, fields)
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
        check_model_tokens(member.description or "", reader.text_start(fields["description"][1]))
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


def _read_clip(reader: YamlReader, node: Node, base: Path) -> ReferenceClip:
    if isinstance(node, ScalarNode):
        return _clip(reader, node.value, None, node, base)
    fields = reader.mapping(node, CLIP_KEYS, "a reference")
    key = "audio" if "audio" in fields else "path" if "path" in fields else None
    if key is None:
        raise reader.error("a reference needs 'audio: <file>'", node)
    return _clip(reader, reader.scalar(fields[key][1], key), _transcript(reader, fields), fields[key][1], base)


def _transcript(reader: YamlReader, fields: dict) -> str | None:
    """The `transcript:` of a member or reference, refused with the place of the first model
    token in it; None without one."""
    if "transcript" not in fields:
        return None
    node = fields["transcript"][1]
    transcript = reader.text(node, "transcript")
    if transcript is not None:
        check_model_tokens(transcript, reader.text_start(node))
    return transcript


def _clip(reader: YamlReader, path: str, transcript: str | None, node: Node, base: Path) -> ReferenceClip:
    """A reference clip; without a transcript, `<clip>.txt` beside the audio is read if present
    (refused, at the clip's path, when it holds a model token)."""
    if transcript is None:
        sidecar = (base / path).with_suffix(".txt")
        if sidecar.is_file():
            transcript = sidecar.read_text(encoding="utf-8-sig").strip() or None
            if transcript is not None:
                check_model_tokens(transcript, reader.at(node))
    return ReferenceClip(path=path, transcript=transcript, position=reader.at(node))


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
    reader = YamlReader(source, str(path))
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
