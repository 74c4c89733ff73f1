"""Write an edited line's new text back into its script file (`drama edit --update-script`)."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import stat
from pathlib import Path

from drama_cli.errors import ScriptError, UsageError
from drama_cli.script.fountain import read_fountain
from drama_cli.script.yaml_format import read_yaml
from engine.files import write_text_atomic

# `- SPEAKER: text`, the speaker plain or quoted
_SHORT_LINE = re.compile(
    r"^(\s*-\s+(\"[^\"\n]*\"|'[^'\n]*'|[^\s:#\"'{\[][^:#\n]*?):[ \t]+)(\S.*?)[ \t]*\r?\n?$"
)


_LINE_KEYS = {"speaker", "text", "id", "note", "notes", "pause_after", "overlap", "direction"}


def _scalar_length(value: str) -> int:
    """Length of the YAML scalar at the start of `value`, without a trailing ` # comment` and the
    blanks before it: a quoted scalar ends at its closing quote, a plain one before ` #`."""
    if value[:1] in "\"'":
        quote, at = value[0], 1
        while at < len(value):
            if quote == '"' and value[at] == "\\":
                at += 2
                continue
            if value[at] == quote:
                if quote == "'" and value[at + 1 : at + 2] == "'":
                    at += 2
                    continue
                return at + 1
            at += 1
        return len(value.rstrip())
    comment = re.search(r"[ \t]#", value)
    return len((value[: comment.start()] if comment else value).rstrip())


def _short_yaml_value(source_line: str, old_text: str) -> tuple[int, int] | None:
    """(start, end) of the text in a short-form YAML line `- SPEAKER: text` that holds the
    first word of `old_text`, as offsets into `source_line`; None for any other line."""
    match = _SHORT_LINE.match(source_line)
    if match is None or match.group(2).strip("\"' ").lower() in _LINE_KEYS:
        return None
    value = match.group(3)
    if value[:1] in "{[|>&*" or old_text.split()[0].strip("\"'") not in value:
        return None
    return match.start(3), match.start(3) + _scalar_length(value)


def updated_script_text(script, line, old_text: str, new_text: str) -> str:
    """The script file's text with the line's text rewritten (`drama edit --update-script`),
    written nowhere.

    YAML: the value of the line's `text:` key, or of the short form `- SPEAKER: text`
    (written double-quoted; a trailing `# comment` stays). Fountain: the first
    occurrence of the old text after the line's cue. Raises UsageError when the script was
    read from stdin, the text cannot be found, or the rewritten file would not read back with
    this line's new text and every other line as it was (a flow mapping, a multi-line value).
    """
    path = Path(script.source)
    if not path.is_file():
        raise UsageError("--update-script needs a script file (not stdin)")
    source = path.read_text(encoding="utf-8")
    start_line = (line.position.line - 1) if line.position else 0
    lines = source.splitlines(keepends=True)
    offset = sum(len(x) for x in lines[:start_line])
    short = _short_yaml_value(lines[start_line] if start_line < len(lines) else "", old_text)
    if script.format == "yaml" and short is not None:
        lo, hi = offset + short[0], offset + short[1]
        updated = source[:lo] + json.dumps(new_text, ensure_ascii=False) + source[hi:]
    elif script.format == "yaml":
        pattern = re.compile(r"^(\s*(?:-\s+)?text:[ \t]*)(.*?)([ \t]*)$", re.MULTILINE)
        match = pattern.search(source, offset)
        if match is None or old_text.split()[0].strip("\"'") not in match.group(2):
            raise UsageError(f"cannot find the text of line {line.id} in {path}; edit it by hand")
        end = match.start(2) + _scalar_length(match.group(2))
        updated = source[: match.start(2)] + json.dumps(new_text, ensure_ascii=False) + source[end:]
    else:
        at = source.find(old_text, offset)
        if at < 0:
            raise UsageError(f"cannot find the text of line {line.id} in {path}; edit it by hand")
        updated = source[:at] + new_text + source[at + len(old_text) :]
    _check_rewrite(script, line.id, source, updated, old_text, new_text)
    return updated


def _check_rewrite(
    script, line_id: str, source: str, updated: str, old_text: str, new_text: str
) -> None:
    """Raise UsageError unless `updated` reads as `source` with only line `line_id`'s text
    changed: to `new_text` (YAML), or with `old_text` replaced by it (Fountain)."""
    read = read_yaml if script.format == "yaml" else read_fountain

    def texts(text: str) -> dict:
        return {each.id: each.text for each in read(text, script.source).lines()}

    expected = texts(source)
    if line_id in expected:
        expected[line_id] = (
            new_text
            if script.format == "yaml"
            else expected[line_id].replace(old_text, new_text, 1)
        )
    try:
        found = texts(updated)
    except ScriptError:
        found = None
    if found != expected:
        raise UsageError(
            f"cannot update the text of line {line_id} in {script.source}: its form (a flow "
            "mapping, a multi-line value) is not one --update-script rewrites; edit it by hand"
        )


def update_script_text(script, line, old_text: str, new_text: str, updated: str | None = None):
    """Rewrite the line's text in the script file (`updated_script_text`, or `updated` when
    already made): a backup copy `<file>.<UTC time>.bak` first, then the new file written
    beside it and renamed into place (atomic). Returns the backup path. Raises UsageError as
    `updated_script_text`.
    """
    if updated is None:
        updated = updated_script_text(script, line, old_text, new_text)
    path = Path(script.source)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    backup = path.with_name(f"{path.name}.{stamp}.bak")
    shutil.copy2(path, backup)
    write_text_atomic(path, updated, mode=stat.S_IMODE(path.stat().st_mode))  # its own permissions
    return backup
