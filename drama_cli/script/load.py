"""One entry point for reading a script from a file or stdin, whatever its format."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

from drama_cli.errors import ScriptError, SourcePosition, UsageError
from drama_cli.script.book import finish_book
from drama_cli.script.document import Script
from drama_cli.script.fountain_sounds import resolve_sound_cues, spoken_cue_warnings
from drama_cli.script.lexicon import read_cast_file_language
from drama_cli.script.line_sounds import resolve_line_cues
from drama_cli.script.pauses import take_out_pauses
from drama_cli.script.problems import Problems
from drama_cli.script.resolve import add_narration, resolve_speakers
from drama_cli.script.sound_table import add_cast_sounds
from drama_cli.script.yaml_format import read_cast_file, read_yaml

YAML_SUFFIXES = (".yaml", ".yml")
FOUNTAIN_SUFFIXES = (".fountain", ".spmd")  # any other name is read by its content, like stdin


def load_script(
    path_or_dash: str | Path,
    cast: str | Path | None = None,
    resolve: bool = True,
    problems: Problems | None = None,
) -> Script:
    """Read, parse and (by default) resolve a script.

    path_or_dash: a `.yaml`/`.yml` or `.fountain` file, or "-" to read stdin; stdin and files
        with other names (`.txt`) are sniffed: YAML when a line starts with `cast:`, `scenes:`,
        `lines:`, `chapters:` or `book:`, else Fountain.
    cast: a YAML cast file; for Fountain the default is `<stem>.cast.yaml` beside the script;
        for YAML it replaces (by name) or adds to the script's own cast.
    resolve: map every speaker onto the cast (raises ScriptError for unknown names).
    Raises ScriptError (file:line:col) for a problem in the script or the cast file; problems in
    several lines (bad directions, model tokens, unknown speakers) are all collected first and
    raised together as ScriptErrors (a ScriptError that reads as the first; `.errors` has all).
    With `problems` given, those are collected there instead and the script is returned (for
    `drama check`, which goes on to check the reference clips); a script that cannot be read at
    all still raises.
    """
    name, text, base = _read_source(path_or_dash)
    return script_from_text(name, text, base, cast, resolve, problems)


def script_from_text(
    name: str,
    text: str,
    base: str | Path,
    cast: str | Path | None = None,
    resolve: bool = True,
    problems: Problems | None = None,
) -> Script:
    """`load_script` for a script already in memory: `text` read as the file `name` (its
    suffix, or the content, picks the reader), relative paths starting from the folder `base`;
    the other arguments and the errors as for `load_script`."""
    own = problems is None
    problems = Problems() if own else problems
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise ScriptError(
            "the script is empty",
            SourcePosition(name, 1, 1),
            "write a YAML script (cast: and scenes:) or a Fountain screenplay (see docs/guide/scripts.md)",
        )
    if _is_yaml(name, text):
        script = read_yaml(text, name, base_dir=str(base), problems=problems)
    else:
        from drama_cli.script.fountain import (
            read_fountain,  # lazy: the Fountain reader, 7 ms at start-up (drama check of a YAML script)
        )

        script = read_fountain(text, name, base_dir=str(base), problems=problems)
    script.text_sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    script.text = text
    if cast is not None or script.format == "fountain":
        cast_path = _attach_cast(script, name, cast)
        with problems.collect():
            problems.errors.extend(add_cast_sounds(script, cast_path))
    if script.format == "fountain":
        from drama_cli.script.fountain import (
            cue_like_warnings,  # lazy: the Fountain reader, 7 ms at start-up (drama check of a YAML script)
        )

        script.warnings.extend(cue_like_warnings(script))
    with problems.collect():
        finish_book(script)
    if script.narrator:
        with problems.collect():
            add_narration(script)
    if script.format == "fountain":
        script.warnings.extend(spoken_cue_warnings(script))  # after narration: action is spoken too
        problems.errors.extend(resolve_sound_cues(script))
    problems.errors.extend(resolve_line_cues(script))
    take_out_pauses(script)  # after narration: action lines pause too, and count as a line before
    if resolve:
        resolve_speakers(script, problems)
    if own:
        problems.raise_if_any()
    if not problems.errors:  # lines refused above are left out of the scenes, not missing
        with problems.collect():
            _check_something_to_render(script)
    if own:
        problems.raise_if_any()
    return script


def _check_something_to_render(script: Script) -> None:
    """Raise ScriptError (at 1:1) when no scene has a line: there would be nothing to render."""
    if any(scene.lines for scene in script.scenes):
        return
    actions = sum(
        1 for scene in script.scenes for e in scene.elements if getattr(e, "kind", "") == "action"
    )
    if actions and not script.narrator:
        hint = (
            f"its {actions} action paragraph{'s are' if actions != 1 else ' is'} spoken only when "
            f"the cast names a narrator (narrator: NAME)"
        )
        if script.format == "fountain":
            hint += "; a speech needs its character cue in capitals on a row of its own, not 'NAME: speech'"
    elif script.format == "fountain":
        hint = "write a character cue in capitals, then its dialogue on the next line"
    else:
        hint = "give each scene 'lines:', e.g. '- ALGERNON: Did you hear what I was playing?'"
    raise ScriptError(
        "nothing to render: the script has no lines", SourcePosition(script.source, 1, 1), hint
    )


def _read_source(path_or_dash: str | Path) -> tuple[str, str, Path]:
    if str(path_or_dash) == "-":
        stdin = getattr(sys.stdin, "buffer", None)  # bytes, so binary input is refused like a file
        if stdin is None:
            return "<stdin>", sys.stdin.read(), Path.cwd()
        return "<stdin>", _decode(stdin.read(), "<stdin>"), Path.cwd()
    path = Path(path_or_dash)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ScriptError(
            f"cannot read script: {err.strerror}", SourcePosition(str(path), 1, 1)
        ) from None
    return str(path), _decode(data, str(path)), script_folder(path)


def script_folder(path: Path) -> Path:
    """The folder a script's relative paths (reference clips, room tone) start from: the
    folder of the file itself, also when `path` is a symbolic link to it elsewhere."""
    return Path(os.path.realpath(path)).parent if path.is_symlink() else path.parent


def _decode(data: bytes, name: str) -> str:
    """The script's text; ScriptError at the first line that is not UTF-8 (or holds NUL bytes,
    which no text script has)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ScriptError(
            "the script is not UTF-8 text", SourcePosition(name, line, 1), "save the file as UTF-8"
        ) from None
    if "\x00" in text:
        before = text[: text.index("\x00")]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        raise ScriptError(
            "the script is not text (it holds NUL bytes)",
            SourcePosition(name, line, column),
            "give a YAML or Fountain script saved as UTF-8 text",
        )
    return text


def _is_yaml(name: str, text: str) -> bool:
    suffix = Path(name).suffix.lower()
    if suffix in YAML_SUFFIXES:
        return True
    if suffix in FOUNTAIN_SUFFIXES:
        return False
    return re.search(r"^(cast|scenes|lines|chapters|book):", text, re.MULTILINE) is not None


def cast_file_for(script_path: str) -> Path | None:
    """The companion cast file of a Fountain script: `<stem>.cast.yaml` (or `.yml`) beside it
    (for a symbolic link, beside the link, else beside the file it points to)."""
    path = Path(script_path)
    beside = [path, Path(os.path.realpath(path))] if path.is_symlink() else [path]
    for script in beside:  # a link's own name first, then the file it points to
        for suffix in (".cast.yaml", ".cast.yml"):
            candidate = script.with_name(script.stem + suffix)
            if candidate.is_file():
                return candidate
    return None


def _attach_cast(script: Script, name: str, cast: str | Path | None) -> Path:
    """Add the members of the cast file (`cast`, else the Fountain script's companion) to
    `script`, with its narrator and language keys; returns the cast file's path."""
    if cast is not None and not str(cast).strip():
        raise UsageError("--cast is empty: give the cast file (YAML)")
    if cast is not None and Path(cast).is_dir():
        raise UsageError(f"--cast {cast} is a folder: give the cast file (YAML)")
    cast_path = (
        Path(cast) if cast is not None else (cast_file_for(name) if name != "<stdin>" else None)
    )
    if cast_path is None:
        hint = (
            "a script read from stdin needs --cast FILE"
            if name == "<stdin>"
            else f"write {Path(name).stem}.cast.yaml beside it, or pass --cast FILE"
        )
        raise ScriptError("no cast file for this script", SourcePosition(name, 1, 1), hint)
    members, narrator, warnings = read_cast_file(cast_path)
    for member in members.values():
        for clip in member.references:
            if not Path(clip.path).is_absolute():
                clip.path = os.path.relpath(cast_path.parent / clip.path, script.base_dir)
    script.cast.update(members)
    read_cast_file_language(cast_path, script)
    if narrator and not script.narrator:
        script.narrator = narrator
    script.warnings.extend(warnings)
    return cast_path
