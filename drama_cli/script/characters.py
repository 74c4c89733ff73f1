"""Characters no script, cast file or lexicon holds, refused by every reader at their place.

Control characters (C0 but tab and newline, DEL, C1) would reach the model's text, the
subtitles and the terminal, where an escape sequence can retitle the window or hide text; NEL,
U+2028 and U+2029 are read as line breaks by some readers and not others, which would shift
every line number after them. A lone surrogate (U+D800 to U+DFFF, written as a YAML escape such
as `"\\ud800"`) is no character at all: it cannot be written as UTF-8, so it would fail later,
in a cache key, the tokenizer or a file name.
"""

from __future__ import annotations

import re

from drama_cli.errors import ScriptError, SourcePosition

# In the text of a file (line ends already read as LF, so CR is not among them).
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# In a value a reader has decoded (a YAML escape can write any of these, CR included).
BAD_IN_VALUE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
HINT = "remove it: a script holds no control characters"


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


def refuse_control_characters(source: str, path: str) -> None:
    """Raise the located error of the first control character (or lone surrogate) in `source`,
    the text of the file `path`; nothing when it has none."""
    found = CONTROL.search(source)
    if found is None:
        return
    line = source.count("\n", 0, found.start()) + 1
    column = found.start() - (source.rfind("\n", 0, found.start()) + 1) + 1
    raise character_error(found.group(), SourcePosition(path, line, column))
