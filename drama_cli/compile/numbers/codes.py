"""Identifiers of letters and digits said the way announcers say them: `221B` "two twenty-one
B", `COVID-19` "COVID nineteen", `A7` "A seven", `Boeing 737` "seven thirty-seven", `BA2490`
"B A twenty-four ninety".

Letters are said by name (written as capitals apart, which the model spells); a run of four
letters or more is a word (`COVID`) and kept. Digits are grouped as people say them: one or two
digits as a number; three in English as a digit and a pair ("seven thirty-seven"), in German
after letters or a maker's name digit by digit ("sieben drei sieben"), in French and Spanish as
a number ("sept cent trente-sept"); four as two pairs ("twenty-four ninety"); a leading zero
and five digits or more one by one. A lexicon entry for the whole identifier overrides all of
this (the lexicon runs before the number rules).
"""

from __future__ import annotations

import re

from drama_cli.compile.numbers.words import Context, Words

# Words after which a bare number is a model or flight number, not a quantity (`Boeing 737`).
MODEL_WORDS = frozenset(
    "boeing airbus cessna embraer tupolev antonov ilyushin sukhoi mig learjet porsche "
    "flight flug vol vuelo".split()
)
# Upper-case letters and digits in runs, a hyphen allowed between runs; both kinds present.
IDENTIFIER = r"(?=[A-Z\d-]*[A-Z])(?=[A-Z\d-]*\d)(?:[A-Z]+|\d+)(?:-?(?:[A-Z]+|\d+))+"
_OH = {"en": "oh", "de": "null", "fr": "zéro", "es": "cero"}


def say_identifier(match: re.Match, w: Words, context: Context) -> str | None:
    """`221B`, `COVID-19`, `R2-D2`, `MP3`: each run of letters spelt (four or more kept as a
    word), each run of digits grouped (`code_digits`); None for an English ordinal in capitals
    (`1ST`)."""
    written = match.group(0)
    if re.fullmatch(r"\d+(?:ST|ND|RD|TH)", written):
        return None
    said = []
    for run in re.findall(r"[A-Z]+|\d+", written):
        if run.isdigit():
            said.append(code_digits(w, run, after_letters=bool(said)))
        else:
            said.append(run if len(run) >= 4 else " ".join(run))
    return " ".join(said)


def code_digits(w: Words, digits: str, after_letters: bool = True) -> str:
    """A run of digits of an identifier as people say it in `w`'s language (module docstring);
    `after_letters`: the digits follow letters or a maker's name (`A320`, `Boeing 737`) rather
    than lead (`221B`, a house number)."""
    if digits.startswith("0") or len(digits) > 4:
        return w.digits(digits)
    if len(digits) <= 2:
        return w.cardinal(int(digits))
    if len(digits) == 3:
        head, pair = digits[0], digits[1:]
        if w.language == "en":
            if pair == "00":
                return w.cardinal(int(digits))
            return f"{w.cardinal(int(head))} {_pair(w, pair)}"
        if w.language == "de" and after_letters and pair != "00":
            return w.digits(digits)
        return w.cardinal(int(digits))
    if digits.endswith("00") and w.language != "en":
        return w.cardinal(int(digits))
    first, second = digits[:2], digits[2:]
    if second == "00":
        return f"{w.cardinal(int(first))} hundred"
    return f"{w.cardinal(int(first))} {_pair(w, second)}"


def _pair(w: Words, pair: str) -> str:
    """Two digits said as one number, a leading zero as "oh" ("seven oh seven")."""
    if pair.startswith("0"):
        return f"{_OH[w.language]} {w.cardinal(int(pair[1]))}"
    return w.cardinal(int(pair))
