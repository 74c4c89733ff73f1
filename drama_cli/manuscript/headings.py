"""Chapter, act and scene headings as they are read aloud (`Act I` → `Act One`)."""

from __future__ import annotations

import re

from num2words import num2words

_NUMERAL = re.compile(r"^(?:((?i:act|scene|chapter|part|book))\s+)?([IVXLCDM]+|\d+)\b([.:]?)(.*)$")


def spoken_heading(heading: str, kind: str = "chapter") -> str:
    """A heading as it is read aloud: `Act I` → `Act One`, a bare `IV` → `Chapter Four`
    (`kind` names the bare number), `Chapter 2: The Ball` → `Chapter Two: The Ball`; any
    other heading as it is."""
    match = _NUMERAL.match(heading.strip())
    if not match:
        return heading
    label, number, mark, rest = match.groups()
    value = int(number) if number.isdigit() else roman_value(number)
    rest = rest.strip()
    if value is None or value >= 400 or (label is None and rest and not mark):
        return heading
    word = num2words(value).title().replace(" And ", " and ")
    return f"{(label or kind).capitalize()} {word}" + (
        f": {rest.lstrip(':. ')}" if rest.lstrip(":. ") else ""
    )


def roman_value(numeral: str) -> int | None:
    """The value of a roman numeral (`XIV` → 14), None when it is not one."""
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    numeral = numeral.upper()
    if not numeral or any(c not in values for c in numeral):
        return None
    total = 0
    for index, char in enumerate(numeral):
        value = values[char]
        total += (
            -value if index + 1 < len(numeral) and values[numeral[index + 1]] > value else value
        )
    return total
