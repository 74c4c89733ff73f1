"""The YAML script reader, string-preserving (case Y1, Y3): the script's top level, its cast
and cast files; scenes and lines are read by `yaml_scenes`, books by `book`, lexicons by
`lexicon`, every node through `yaml_reader.YamlReader` (text kept as written).

Errors are ScriptErrors at file:line:col with the fix: duplicate keys, tabs in indentation,
values YAML cannot read unquoted (`[sighs] Fine`, `*waves*`, `Wait: you knew?`), unknown keys
(with the closest known key), wrong value types.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.book import read_book_node, read_chapters_node
from drama_cli.script.characters import refuse_control_characters
from drama_cli.script.direction import check_model_tokens
from drama_cli.script.document import (
    PROJECT_FOLDER_NAMES,
    VOICE_SOURCES,
    CastMember,
    Consent,
    ReferenceClip,
    Scene,
    Script,
    VoiceSource,
    Warning_,
)
from drama_cli.script.language_tags import read_language_label
from drama_cli.script.lexicon import read_language_keys
from drama_cli.script.problems import Problems
from drama_cli.script.sound_table import read_sounds_node
from drama_cli.script.voice_library import (
    LIBRARY_PREFIX,
    LibraryError,
    clip_file,
    library_dir,
    read_voice,
)
from drama_cli.script.yaml_reader import YamlReader, compose
from drama_cli.script.yaml_scenes import MIX_KEYS, read_lines, read_mix, read_scene
from drama_cli.script.yaml_sounds import check_anchors

SCRIPT_KEYS = (
    "title",
    "cast",
    "narrator",
    "scenes",
    "lines",
    "description",
    "book",
    "chapters",
    *MIX_KEYS,
    "lexicon",
    "lexicons",
    "language",
    "normalize",
    "sounds",
    "voice_library",
)
MEMBER_KEYS = (
    "voice",
    "reference",
    "transcript",
    "references",
    "description",
    "speaker",
    "aliases",
    "lang",
    "consent",
    "voice_source",
    "design",
    "gender",
)
CLIP_KEYS = ("audio", "path", "transcript")
CONSENT_KEYS = ("by", "on", "note")
SOURCE_KEYS = ("kind", "note")
LANGUAGE_KEYS = ("lexicon", "lexicons", "language", "normalize")  # drama_cli.script.lexicon


def read_yaml(
    source: str,
    path: str = "<script>",
    base_dir: str | None = None,
    problems: Problems | None = None,
) -> Script:
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
        raise ScriptError(
            "the script is empty",
            SourcePosition(path, 1, 1),
            "start with 'cast:' and 'scenes:' (see docs/guide/scripts.md)",
        )
    top = reader.mapping(root, SCRIPT_KEYS, "the script")
    base = Path(base_dir) if base_dir is not None else Path(path).parent
    script = Script(source=path, base_dir=str(base), format="yaml")
    if "title" in top:
        script.title = reader.text(top["title"][1], "title") or ""
        script.title_page = {"Title": script.title}
    if "cast" in top:
        library = read_library_key(reader, top, base)
        script.cast = read_cast_node(reader, top["cast"][1], base, library)
    if "narrator" in top:
        script.narrator = reader.scalar(top["narrator"][1], "narrator")
    script.mix = read_mix(reader, top)
    if "sounds" in top:
        with problems.collect():
            script.sounds = read_sounds_node(reader, top["sounds"][1])
    read_language_keys(reader, top, base, script)
    if "book" in top:
        script.book = read_book_node(reader, top["book"][1])
    if "scenes" in top and "lines" in top:
        raise reader.error("use either 'scenes:' or top-level 'lines:', not both", top["lines"][0])
    if "chapters" in top and ("scenes" in top or "lines" in top):
        raise reader.error(
            "use either 'chapters:' or 'scenes:', not both",
            top["chapters"][0],
            "put each scene under its chapter, or give scenes 'chapter: TITLE'",
        )
    if "chapters" in top:
        script.scenes.extend(read_chapters_node(reader, top["chapters"][1]))
    if "scenes" in top:
        node = top["scenes"][1]
        if not isinstance(node, SequenceNode):
            raise reader.error(
                "'scenes' must be a list of scenes", node, "start each scene with '- id: ...'"
            )
        for number, scene_node in enumerate(node.value, start=1):
            with problems.collect():
                script.scenes.append(read_scene(reader, scene_node, number))
    elif "lines" in top:
        scene = Scene(id="scene-1", position=reader.at(top["lines"][0]))
        read_lines(reader, top["lines"][1], scene)
        problems.errors.extend(check_anchors(scene))
        script.scenes.append(scene)
    with problems.collect():
        _check_unique_ids(script)
    if own:
        problems.raise_if_any()
    script.warnings.extend(reader.warnings)
    return script


def read_library_key(reader: YamlReader, top: dict, base: Path) -> Path | None:
    """The folder of `voice_library: DIR` (relative to `base`), or None when not given."""
    if "voice_library" not in top:
        return None
    folder = reader.scalar(top["voice_library"][1], "voice_library").strip()
    return base / folder if folder else None


def read_cast_node(
    reader: YamlReader, node: Node, base: Path, library: Path | None = None
) -> dict[str, CastMember]:
    """Cast members from a `cast:` mapping (name -> settings, or name -> reference path). A bad
    member's error goes to `reader.problems` and the member stays, bare, so one run lists every
    bad field and its lines do not count as unknown speakers. `library`: the folder that
    `voice: library:NAME` looks in (None: `voice_library.default_library_dir()`)."""
    members: dict[str, CastMember] = {}
    for name, (key_node, value_node) in reader.mapping(node, None, "the cast").items():
        members[name] = CastMember(name=name, position=reader.at(key_node))
        with reader.problems.collect():
            members[name] = _read_member(reader, name, key_node, value_node, base, library)
    return members


def _read_member(
    reader: YamlReader, name: str, key_node: Node, node: Node, base: Path, library: Path | None
) -> CastMember:
    member = CastMember(name=name, position=reader.at(key_node))
    if isinstance(node, ScalarNode):
        if node.value.startswith(LIBRARY_PREFIX):
            _library_voice(reader, member, node, None, library)
        elif node.value:
            member.references.append(_clip(reader, node.value, None, node, base))
        return member
    fields = reader.mapping(node, MEMBER_KEYS, f"cast member {name}")
    transcript = _transcript(reader, fields)
    for key in ("voice", "reference"):
        if key in fields:
            path = reader.scalar(fields[key][1], key)
            if path.startswith(LIBRARY_PREFIX):
                _library_voice(reader, member, fields[key][1], transcript, library)
                continue
            member.references.append(_clip(reader, path, transcript, fields[key][1], base))
    if "design" in fields:
        member.design = (reader.text(fields["design"][1], "design") or "").strip() or None
        if member.design is None:
            raise reader.error(
                f"design of {name} is empty",
                fields["design"][0],
                'describe the voice: design: "a gravelly old sea captain"',
            )
        check_model_tokens(member.design, reader.text_start(fields["design"][1]))
        if "[" in member.design or "]" in member.design:
            raise reader.error(
                f"design of {name} holds a bracket",
                fields["design"][1],
                "it is sent as the style prefix [design]: write it without [ and ]",
            )
    if "transcript" in fields and not member.references:
        raise reader.error(
            "a transcript needs its audio: add 'voice: refs/<name>.wav'", fields["transcript"][0]
        )
    if "references" in fields:
        refs = fields["references"][1]
        if not isinstance(refs, SequenceNode):
            raise reader.error(
                "'references' must be a list", refs, "write '- audio: refs/x.wav' items"
            )
        for item in refs.value:
            member.references.append(_read_clip(reader, item, base))
    if "description" in fields:
        member.description = reader.text(fields["description"][1], "description")
        check_model_tokens(member.description or "", reader.text_start(fields["description"][1]))
    if "gender" in fields:
        member.gender = " ".join(reader.scalar(fields["gender"][1], "gender").lower().split())
        member.gender = member.gender or None
    if "speaker" in fields:
        with reader.problems.collect():  # listed with the lines' problems; the member stays
            index = reader.integer(fields["speaker"][1], "speaker index")
            if not 0 <= index <= 15:
                raise reader.error(
                    f"speaker index must be 0..15, got {index}", fields["speaker"][1]
                )
            member.speaker_index = index
    if "aliases" in fields:
        member.aliases = reader.string_list(fields["aliases"][1], "alias")
    if "lang" in fields:
        member.lang = read_language_label(reader, fields["lang"][1], "lang")
    if "consent" in fields:
        member.consent = _read_consent(reader, fields["consent"][1], name)
    if "voice_source" in fields:
        member.voice_source = _read_voice_source(reader, fields["voice_source"][1], name)
    return member


def _library_voice(
    reader: YamlReader,
    member: CastMember,
    node: Node,
    transcript: str | None,
    library: Path | None,
) -> None:
    """Give `member` the library voice named by `library:NAME` at `node`: its clip, its
    transcript (unless the cast gives one) and its consent or source record (unless the cast
    gives one). Raises ScriptError at `node` for an unknown voice or a bad record."""
    name = reader.scalar(node, "voice")[len(LIBRARY_PREFIX) :].strip()
    folder = library_dir(library)
    try:
        voice = read_voice(folder, name)
    except LibraryError as err:
        raise reader.error(
            str(err), node, "add it with `drama voices add CLIP --name NAME`"
        ) from None
    member.library_voice = voice.name
    member.references.append(
        ReferenceClip(
            path=str(clip_file(folder, voice).resolve()),
            transcript=transcript if transcript is not None else voice.transcript,
            position=reader.at(node),
        )
    )
    consent, source = voice.cast_records()
    member.consent = member.consent or consent
    member.voice_source = member.voice_source or source


def _read_consent(reader: YamlReader, node: Node, name: str) -> Consent:
    """`consent: {by: NAME, on: YYYY-MM-DD, note: TEXT}`; `by` and `on` are required."""
    hint = "write 'consent: {by: NAME, on: YYYY-MM-DD, note: ...}'"
    if not isinstance(node, MappingNode):
        raise reader.error(f"consent of {name} must be a mapping with 'by' and 'on'", node, hint)
    fields = reader.mapping(node, CONSENT_KEYS, f"consent of {name}")
    for key in ("by", "on"):
        if key not in fields or not (reader.text(fields[key][1], key) or "").strip():
            raise reader.error(f"consent of {name} needs '{key}'", node, hint)
    on = reader.scalar(fields["on"][1], "on").strip()
    try:
        dt.date.fromisoformat(on)
    except ValueError:
        raise reader.error(
            f"consent date {on!r} of {name} is not a date",
            fields["on"][1],
            "write it as YYYY-MM-DD",
        ) from None
    note = reader.text(fields["note"][1], "note") if "note" in fields else None
    return Consent(reader.text(fields["by"][1], "by").strip(), on, note)


def _read_voice_source(reader: YamlReader, node: Node, name: str) -> VoiceSource:
    """`voice_source: KIND` or `voice_source: {kind: KIND, note: TEXT}`, KIND one of VOICE_SOURCES."""
    fields = (
        {}
        if isinstance(node, ScalarNode)
        else reader.mapping(node, SOURCE_KEYS, f"voice_source of {name}")
    )
    kind_node = node if isinstance(node, ScalarNode) else fields.get("kind", (None, None))[1]
    if kind_node is None:
        raise reader.error(
            f"voice_source of {name} needs 'kind'", node, f"one of {', '.join(VOICE_SOURCES)}"
        )
    kind = reader.scalar(kind_node, "voice_source").strip()
    if kind not in VOICE_SOURCES:
        raise reader.error(
            f"voice_source {kind!r} of {name} is not one of {', '.join(VOICE_SOURCES)}", kind_node
        )
    note = reader.text(fields["note"][1], "note") if "note" in fields else None
    return VoiceSource(kind, note)


def _read_clip(reader: YamlReader, node: Node, base: Path) -> ReferenceClip:
    if isinstance(node, ScalarNode):
        return _clip(reader, node.value, None, node, base)
    fields = reader.mapping(node, CLIP_KEYS, "a reference")
    key = "audio" if "audio" in fields else "path" if "path" in fields else None
    if key is None:
        raise reader.error("a reference needs 'audio: <file>'", node)
    return _clip(
        reader,
        reader.scalar(fields[key][1], key),
        _transcript(reader, fields),
        fields[key][1],
        base,
    )


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


def _clip(
    reader: YamlReader, path: str, transcript: str | None, node: Node, base: Path
) -> ReferenceClip:
    """A reference clip; without a transcript, `<clip>.txt` beside the audio is read if present
    (refused, at the clip's path, when it holds a model token)."""
    if transcript is None:
        sidecar = (base / path).with_suffix(".txt")
        if sidecar.is_file():
            written = (
                sidecar.read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
            )
            refuse_control_characters(written, str(sidecar))
            transcript = written.strip() or None
            if transcript is not None:
                check_model_tokens(transcript, reader.at(node))
    return ReferenceClip(path=path, transcript=transcript, position=reader.at(node))


def _check_unique_ids(script: Script) -> None:
    """Raise every duplicate scene id and every duplicate line id (ScriptErrors when several),
    counting ids that differ only in case as duplicates: each names a folder of the project,
    and on a case-insensitive file system (macOS, Windows) `A-B` and `a-b` are one folder. A
    scene id that is a folder the project folder itself holds (`PROJECT_FOLDER_NAMES`, in any
    case) is refused too."""
    seen_scenes: dict[str, str] = {}
    seen_lines: dict[str, str] = {}
    problems = Problems()
    for scene in script.scenes:
        _check_new_id("scene", scene.id, scene.position, seen_scenes, problems)
        if scene.id.casefold() in PROJECT_FOLDER_NAMES:
            problems.errors.append(
                ScriptError(
                    f"scene id {scene.id!r} is the name of the project folder's "
                    f"{scene.id.casefold()}/ folder, which drama {scene.id.casefold()} writes",
                    scene.position,
                    "give the scene another id",
                )
            )
        for line in scene.lines:
            _check_new_id("line", line.id, line.position, seen_lines, problems)
    problems.raise_if_any()


def _check_new_id(kind: str, id_: str, position, seen: dict[str, str], problems: Problems) -> None:
    """Record `id_` in `seen` (case-folded id -> id), or add the error of a duplicate."""
    earlier = seen.get(id_.casefold())
    if earlier is None:
        seen[id_.casefold()] = id_
    elif earlier == id_:
        problems.errors.append(
            ScriptError(f"duplicate {kind} id {id_!r}", position, f"give each {kind} its own id")
        )
    else:
        problems.errors.append(
            ScriptError(
                f"{kind} ids {earlier!r} and {id_!r} differ only in case",
                position,
                f"give each {kind} an id of its own (they would share a folder on a case-insensitive file system)",
            )
        )


def read_cast_file(path: str | Path) -> tuple[dict[str, CastMember], str | None, list[Warning_]]:
    """Read a companion cast file (`play.cast.yaml`): either a `cast:` mapping (with an optional
    `narrator:` and a `sounds:` table, read by `drama_cli.script.sound_table`) or the member
    mapping itself. Returns (members, narrator, warnings).
    Raises ScriptError with positions in that file (also for a file that is not UTF-8)."""
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ScriptError(
            f"cannot read cast file: {err.strerror}", SourcePosition(str(path), 1, 1)
        ) from None
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise ScriptError(
            "the cast file is not UTF-8 text",
            SourcePosition(str(path), line, 1),
            "save the file as UTF-8",
        ) from None
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    reader = YamlReader(source, str(path))
    root = compose(source, str(path))
    if root is None:
        raise ScriptError("the cast file is empty", SourcePosition(str(path), 1, 1))
    top = reader.mapping(root, None, "the cast file")
    narrator = None
    if "sounds" in top and "cast" not in top:
        raise reader.error(
            "a cast file with a 'sounds:' table lists its members under 'cast:'",
            top["sounds"][0],
            "put the members under 'cast:' beside 'sounds:'",
        )
    if "cast" in top:
        reader.mapping(
            root,
            ("cast", "narrator", "title", "sounds", "voice_library", *LANGUAGE_KEYS),
            "the cast file",
        )
        narrator = reader.scalar(top["narrator"][1], "narrator") if "narrator" in top else None
        library = read_library_key(reader, top, path.parent)
        members = read_cast_node(reader, top["cast"][1], path.parent, library)
    else:
        members = read_cast_node(reader, root, path.parent)
    reader.problems.raise_if_any()
    return members, narrator, reader.warnings
