"""What English says differently from the other languages.

Scores of a game: a draw is "two all" and a nought is "nil" (`0-0` → "nil nil", `1-0` → "one
nil"); American English (the `en-US` label) says "nothing" (`0-0` → "nothing nothing", `1-0` →
"one nothing"). A dash between two numbers is a game's score when a word of games stands near it
(`won`, `drew`, `draw`, `level`, `victory`…); other scores keep "to" (`3-1` → "three to one").

An amount or a measure used as an adjective takes the singular unit: after `a`/`an` (and, for
money, `the` or a possessive) and before a word that is not a preposition or pronoun (`a $100
billion buyback` → "a one hundred billion dollar buyback", `a 20cm tin` → "a twenty centimetre
tin"). A day after a month name is an ordinal (`March 31` → "March thirty-first"); a day before
one is "the … of" (`15th October` → "the fifteenth of October"); two days next to a month are
ordinals too (`24–25 December`), and a range after `between` says "and" (`between 18-22`).

Forms only English writes (`forms`): a year cut to two digits (`’89`), shots made of those taken
(`11-of-19`), pence (`70p`), and a recipe's temperature without the degree sign (`180C`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from drama_cli.compile.numbers.words import Context, Words, written_whole

_GAME_WORDS = frozenset(
    "won win wins winning beat beats beaten lost lose loses losing drew draw draws drawn tied tie ties level "
    "levelled leveled led lead leads leading trailed trailing victory victories defeat defeats loss win "
    "result results score scored scoreline match game final thrashing rout halftime half-time".split()
)
_DETERMINERS = frozenset("a an".split())
_MONEY_DETERMINERS = _DETERMINERS | frozenset("the its their his her our my your this that".split())
_NOT_NOUNS = frozenset(
    "of in on at to for from by with into onto per each a an the and or but than as if when while that "
    "which who this these those it he she they we you i me him her them us is was are were be been has "
    "had have do does did will would can could should may might must last next until till through".split()
)
_DIMENSIONS = frozenset("wide long deep high tall thick across away apart".split())
_TEMPERATURE_WORDS = frozenset(
    "at to oven bake baking heat heated preheat preheated temperature temperatures "
    "cool warm reduce reduced reach reached hit".split()
)
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


def is_game(context: Context) -> bool:
    """Whether a word of games stands among the words before or right after a score."""
    return bool(_GAME_WORDS & set(context.before)) or context.noun.lower() in _GAME_WORDS


def score(w: Words, a: int, b: int, context: Context) -> str | None:
    """A game's score with a draw or a nought ("two all", "one nil"), or None to say it as a
    plain pair of numbers."""
    if not is_game(context) or (a != b and 0 not in (a, b)):
        return None
    nought = "nothing" if w.month_first is True else "nil"
    if a == b:
        return f"{nought} {nought}" if a == 0 else f"{w.cardinal(a)} all"
    return " ".join(nought if n == 0 else w.cardinal(n) for n in (a, b))


# Nouns counted in millions in the press (`1.5m people`): an `m` before them is "million".
_COUNTED_IN_MILLIONS = frozenset(
    "people users viewers customers subscribers visitors fans votes voters copies jobs homes "
    "households residents children adults deaths cases downloads views followers listeners readers "
    "passengers tourists members workers refugees patients students animals trees".split()
)


def millions_of(unit: str, context: Context) -> bool:
    """Whether the unit `m` written against a number counts millions of the noun after it
    (`3m viewers`), not metres."""
    return unit == "m" and context.noun.lower() in _COUNTED_IN_MILLIONS


_BEFORE_A_YEAR = frozenset("year in since until till from before after by of around".split())
_ERAS = frozenset("AD BC BCE CE".split())


def early_year(value: int | None, context: Context) -> bool:
    """Whether `value` (1010..1099, below the years read anywhere) is a year here: after `year`
    or `AD`, before an era (`AD`, `BC`), or after `in`, `since`, `by`… with no lower-case word
    after it (`in 1066.` is a year, `in 1066 pages` a count). A later year (2100..9999) is one
    only after `year` (`the year 2525`)."""
    before = context.before[-1].lower() if context.before else ""
    if value is not None and 2100 <= value <= 9999:
        return before == "year"
    if value is None or not 1010 <= value < 1100:
        return False
    return (
        before in ("year", "ad")
        or context.noun in _ERAS
        or (before in _BEFORE_A_YEAR and not context.noun[:1].islower())
    )


def measured(
    w: Words, whole: int, numerator: int, denominator: int, singular: str, plural: str
) -> str | None:
    """A fraction before a unit: `2 1/2 kg` "two and a half kilograms", `½ tsp` "half a
    teaspoon", `3/4 tsp` "three quarters of a teaspoon"; `whole` is 0 when there is none."""
    if whole:
        mixed = w.mixed(whole, numerator, denominator)
        return None if mixed is None else f"{mixed} {plural}"
    article = "an" if singular[:1] in "aeiou" or singular.startswith("hour") else "a"
    if (numerator, denominator) == (1, 2):
        return f"half {article} {singular}"
    part = w.fraction(numerator, denominator)
    return None if part is None else f"{part} of {article} {singular}"


_EMERGENCY_NUMBERS = frozenset("911 999 112 000 111 101".split())
_DIALLING = frozenset("call dial ring phone".split())


def dialled(whole: str | None, context: Context) -> bool:
    """Whether `whole` is a telephone number after `call`, `dial`, `ring` or `phone` (`Call
    911`): any number after `dial`, an emergency number (911, 999, 112…) after the others."""
    verb = context.before[-1].lower() if context.before else ""
    return bool(whole) and verb in _DIALLING and (verb == "dial" or whole in _EMERGENCY_NUMBERS)


def attributive(context: Context, money: bool = False) -> bool:
    """Whether an amount (`money`) or a measure stands as an adjective before a noun."""
    determiners = _MONEY_DETERMINERS if money else _DETERMINERS
    noun = context.noun
    if (
        noun.lower() in _DIMENSIONS
        and context.before[-1:]
        and context.before[-1] not in determiners
    ):
        return False  # `a board 12 in. wide`: the measure follows its noun
    return (
        bool(determiners & set(context.before[-2:]))
        and noun[:1].isalpha()
        and noun.lower() not in _NOT_NOUNS
        and not noun.isupper()
    )


ABBREVIATED_MONTHS = {
    month[:4] if month == "september" else month[:3]: month.capitalize()
    for month in MONTHS
    if month != "may"
} | {"sep": "September"}


def is_month(word: str) -> bool:
    """Whether `word` (lower case, without a dot) names a month, in full or abbreviated."""
    return word in MONTHS or word in ABBREVIATED_MONTHS


def day_of_month(w: Words, value: int, context: Context) -> str | None:
    """A day written as a number next to a month name: "thirty-first" after it (`March 31`),
    "the fifteenth of" before it (`15 October`); None otherwise."""
    if not 1 <= value <= 31:
        return None
    noun = context.noun.lower()
    if (
        context.before
        and is_month(context.before[-1])
        and (not noun or noun[0].isdigit() or noun in _NOT_NOUNS)
    ):
        return w.ordinal(value)  # not `In March 12 people died`
    if is_month(context.noun.lower()):
        return day_before_month(w.ordinal(value), context)
    return None


def day_before_month(ordinal: str, context: Context) -> str:
    """ "the fifteenth of" before a month name ("the" left out after a written `the`)."""
    lead = "" if context.before and context.before[-1] == "the" else "the "
    return f"{lead}{ordinal} of"


def day_range(w: Words, a: int, b: int, context: Context) -> str | None:
    """Two days next to a month name (`24–25 December`, `March 3-5`) as ordinals, or None."""
    if not 1 <= a < b <= 31:
        return None
    if context.before and is_month(context.before[-1]):
        return f"{w.ordinal(a)} to {w.ordinal(b)}"
    if is_month(context.noun.lower()):
        return f"{day_before_month(w.ordinal(a), context).removesuffix(' of')} to the {w.ordinal(b)} of"
    return None


def forms(number: str) -> list[tuple[str, str, Callable[[re.Match, Words, Context], str | None]]]:
    """English forms the other languages do not write, as `forms.forms` lists them (name,
    pattern, say): `’89`, `11-of-19`, `70p`, `180C`, `3x`, `50-50`. `number`: the language's number pattern."""
    return [
        ("year", r"’(?P<y>\d{2})", _short_year),
        ("pair", r"(?P<a>\d+)-of-(?P<b>\d+)", _of_pair),
        ("amount", rf"{number}p", _pence),
        ("unit", r"(?P<int>\d{1,3})(?P<unit>[CF])", _temperature),
        ("multiple", rf"{number}[x×]", _times),
        ("odds", r"50[-–/]50", _even_odds),
    ]


def _short_year(match: re.Match, w: Words, context: Context) -> str | None:
    """`’89`: "eighty-nine"; `’05`: "oh five"."""
    year = int(match.group("y"))
    return f"oh {w.cardinal(year)}" if year < 10 else w.cardinal(year)


def _of_pair(match: re.Match, w: Words, context: Context) -> str | None:
    """`11-of-19` (shots made of those taken): "eleven of nineteen"."""
    return f"{w.cardinal(int(match.group('a')))} of {w.cardinal(int(match.group('b')))}"


def _even_odds(match: re.Match, w: Words, context: Context) -> str | None:
    """`50-50`, `50/50`: "fifty-fifty", never a score or a fraction."""
    return "fifty-fifty"


def _times(match: re.Match, w: Words, context: Context) -> str | None:
    """`3x a day`, `10x faster`, `1.5x`: "three times", "once" for a whole 1."""
    value, frac = written_whole(match), match.group("frac")
    if value is None:
        return None
    return "once" if value == 1 and not frac else f"{w.decimal(value, frac)} times"


def _pence(match: re.Match, w: Words, context: Context) -> str | None:
    """`70p`, `5.5p`: an amount in pence."""
    value, frac = written_whole(match), match.group("frac")
    if value is None:
        return None
    return f"{w.decimal(value, frac)} {'penny' if value == 1 and not frac else 'pence'}"


def _temperature(match: re.Match, w: Words, context: Context) -> str | None:
    """`180C` in a recipe: degrees, where a word of heat or `at`/`to` stands before it (so a
    flat numbered `12C` is left alone)."""
    if not _TEMPERATURE_WORDS & set(context.before[-3:]):
        return None
    value = int(match.group("int"))
    scale = "Celsius" if match.group("unit") == "C" else "Fahrenheit"
    return f"{w.cardinal(value)} {'degree' if value == 1 else 'degrees'} {scale}"
