"""Characters no script, cast file or lexicon holds, refused by every reader at their place.

Control characters (C0 but tab and newline, DEL, C1) would reach the model's text, the
subtitles and the terminal, where an escape sequence can retitle the window or hide text; NEL,
U+2028 and U+2029 are read as line breaks by some readers and not others, which would shift
every line number after them. A lone surrogate (U+D800 to U+DFFF, written as a YAML escape such
as `"\\ud800"`) is no character at all: it cannot be written as UTF-8, so it would fail later,
in a cache key, the tokenizer or a file name.

Invisible characters that reorder or split text (the bidi embeddings, overrides and isolates
U+202A to U+202E and U+2066 to U+2069, the zero-width space U+200B) are not refused, since
right-to-left scripts use direction marks legitimately, but each is warned about at its place:
it reaches the model unseen and makes the line read differently from how it looks.
"""

from __future__ import annotations

import re

from drama_cli.errors import ScriptError, ScriptErrors, SourcePosition
from drama_cli.script.document import Warning_

# In the text of a file (line ends already read as LF, so CR is not among them).
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# In a value a reader has decoded (a YAML escape can write any of these, CR included).
BAD_IN_VALUE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
HINT = "remove it: a script holds no control characters"
# Invisible characters warned about (never refused): bidi embeddings, overrides and isolates,
# and the zero-width space.
INVISIBLE = re.compile("[\u200b\u202a-\u202e\u2066-\u2069]")
_INVISIBLE_NAMES = {
    0x200B: "zero-width space",
    0x202A: "left-to-right embedding",
    0x202B: "right-to-left embedding",
    0x202C: "pop directional formatting",
    0x202D: "left-to-right override",
    0x202E: "right-to-left override",
    0x2066: "left-to-right isolate",
    0x2067: "right-to-left isolate",
    0x2068: "first strong isolate",
    0x2069: "pop directional isolate",
}


def character_error(character: str, where: SourcePosition) -> ScriptError:
    """The located error for one refused character (`control character U+0007 in the script`)."""
    code = ord(character)
    if 0xD800 <= code <= 0xDFFF:
        return ScriptError(
            f"invalid character U+{code:04X} (a lone surrogate) in the script",
            where,
            "remove it: a surrogate is half of a character and cannot be written as text",
        )
    return ScriptError(f"control character U+{code:04X} in the script", where, HINT)


def invisible_warning(character: str, where: SourcePosition) -> Warning_:
    """The located warning for one invisible character (`invisible character U+202E
    (right-to-left override) in the text`)."""
    code = ord(character)
    return Warning_(
        f"invisible character U+{code:04X} ({_INVISIBLE_NAMES[code]}) in the text: it reaches "
        "the model unseen; remove it unless it is meant",
        where,
    )


def invisible_character_warnings(source: str, path: str) -> list[Warning_]:
    """The located warnings of every invisible character (INVISIBLE) written in `source`, the
    text of the file `path`."""
    found = list(INVISIBLE.finditer(source))
    return [
        invisible_warning(match.group(), where)
        for match, where in zip(found, _positions(source, found, path), strict=True)
    ]


def refuse_control_characters(source: str, path: str) -> None:
    """Raise the located error of each control character (or lone surrogate) in `source`, the
    text of the file `path` (ScriptErrors when there are several, so `drama check` lists them
    all); nothing when it has none."""
    found = list(CONTROL.finditer(source))
    errors = [
        character_error(match.group(), where)
        for match, where in zip(found, _positions(source, found, path), strict=True)
    ]
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ScriptErrors(errors)


def _positions(source: str, found: list[re.Match], path: str) -> list[SourcePosition]:
    """The 1-based position of each match, in one pass over the text."""
    positions, line, start, counted = [], 1, 0, 0
    for match in found:
        index = match.start()
        line += source.count("\n", counted, index)
        counted = index
        start = source.rfind("\n", 0, index) + 1
        positions.append(SourcePosition(path, line, index - start + 1))
    return positions
