"""The written forms of number expressions, one pattern and one saying function each.

A form's pattern must match a whole candidate (`re.fullmatch`); its function returns the words,
or None when the match is not this form after all (a month 13, a range that is a phone number),
and the next form is tried. Forms are tried in the order `forms` lists them. Times and dates
are said by `times`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from drama_cli.compile.numbers import english
from drama_cli.compile.numbers.codes import IDENTIFIER, MODEL_WORDS, code_digits, say_identifier
from drama_cli.compile.numbers.grammar import german_half, german_sentence_start
from drama_cli.compile.numbers.nouns import listed_gender
from drama_cli.compile.numbers.rules import (
    FOREIGN_SCALES,
    SPACES,
    VULGAR_FRACTIONS,
    YEAR_RANGE,
    LanguageRules,
)
from drama_cli.compile.numbers.times import (
    MERIDIEM,
    minute_words,
    say_clock_after_clock_word,
    say_clock_before_range,
    say_date,
    say_day_and_month,
    say_duration,
    say_military_digits,
    say_minutes_and_seconds,
    say_time,
)
from drama_cli.compile.numbers.words import (
    AND_A_HALF,
    LEFT_AS_WRITTEN,
    Context,
    Words,
    written_whole,
)
from drama_cli.script.spoken import number_words

Say = Callable[[re.Match, Words, Context], "str | None"]


def number_pattern(rules: LanguageRules, name: str = "") -> str:
    """A number as the language writes it: groups `int{name}`, `frac{name}` (digits after the
    decimal mark); `.5` has no whole part."""
    mark = re.escape(rules.decimal)
    return (
        rf"(?={mark}?\d)(?P<int{name}>{grouped_digits(rules)}|\d+)?(?:{mark}(?P<frac{name}>\d+))?"
    )


def grouped_digits(rules: LanguageRules) -> str:
    """A whole number written in thousands groups. Languages with a decimal comma group with a
    space as readily as with their mark (`17 000 Fans`); elsewhere (English) spaced groups count
    only from two on (`1 000 000 dollars`), so that two numbers side by side (`scores of 120
    135`) stay two."""
    if rules.groups[0] in SPACES or rules.decimal == ",":
        return rf"\d{{1,3}}(?:(?:{_alternatives(rules.groups)})\d{{3}})+"
    marks = [g for g in rules.groups if g not in SPACES]
    spaces = [g for g in rules.groups if g in SPACES]
    spaced = rf"|\d{{1,3}}(?:(?:{_alternatives(spaces)})\d{{3}}){{2,}}" if spaces else ""
    return rf"\d{{1,3}}(?:(?:{_alternatives(marks)})\d{{3}})+{spaced}"


def _alternatives(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _units(rules: LanguageRules) -> str:
    """Unit symbols; those of two letters or more also in any case (`12KG`)."""
    return "|".join(
        f"(?i:{re.escape(u)})" if len(u) > 1 and u.isalpha() and u.islower() else re.escape(u)
        for u in sorted(rules.units, key=len, reverse=True)
    )


# ---- ranges, fractions, decades, ordinals ---------------------------------------------------


def _range(match: re.Match, w: Words, context: Context) -> str | None:
    first, second = match.group("a"), match.group("b")
    if (
        (first[0] == "0" and len(first) > 1)
        or (second[0] == "0" and len(second) > 1)
        or (len(first) == 3 and len(second) == 4)
        or len(second) > 4
        or len(first) > 4
    ):
        return None
    a, b = int(first), int(second)
    game = (
        english.score(w, a, b, context)
        if w.language == "en" and max(len(first), len(second)) <= 3
        else None
    )
    if game is not None and not match.groupdict().get("unit") and not match.groupdict().get("pct"):
        return game
    days = (
        english.day_range(w, a, b, context)
        if w.language == "en" and not match.groupdict().get("unit")
        else None
    )
    if days is not None:
        return days
    to = _range_word(w, context)
    is_year = len(first) == 4 and YEAR_RANGE[0] <= a <= YEAR_RANGE[1]
    if is_year and len(second) == 2:  # `1990-95`: the second year in its last two digits
        return f"{w.year(a)} {to} {w.cardinal(b)}" if b > a % 100 else None
    if is_year and len(second) == 4:
        return f"{w.year(a)} {to} {w.year(b)}" if b > a else None
    if b <= a and (len(first) > 3 or len(second) > 3):
        return None  # not a score: `2024-117` is a code
    word = to if b > a else w.rules.score_word
    said = f"{w.cardinal(a)} {word} {w.counted(b, context)}"
    unit = match.groupdict().get("unit")
    if unit:
        said += " " + w.rules.units[_unit_key(w.rules, unit)][1]
    if match.groupdict().get("pct"):
        said += f" {w.rules.percent}"
    return said


_BETWEEN_AND = {
    "en": ("between", "and"),
    "de": ("zwischen", "und"),
    "fr": ("entre", "et"),
    "es": ("entre", "y"),
}


def _range_word(w: Words, context: Context) -> str:
    """The word joining a range: "and" after the language's "between" (`between 18-22 minutes`,
    `entre 36-39 grados`: "entre treinta y seis y treinta y nueve"), else its "to"."""
    between, joined = _BETWEEN_AND.get(w.language, (None, None))
    return joined if between and context.before[-1:] == [between] else w.rules.range_word


# Words around `H:MM` that make it a clock time: one no clock can show (`24:45 Uhr`) is left as
# written rather than read as a score.
_CLOCK_NOUNS = frozenset("uhr h hrs hours horas hs heures o'clock".split())
_CLOCK_BEFORE = {
    "en": frozenset("at by until till".split()),
    "de": frozenset("um gegen ab".split()),
    "fr": frozenset("à vers dès".split()),
    "es": frozenset("las la".split()),
}


def _score(match: re.Match, w: Words, context: Context) -> str | None:
    """`2:1`, German `24:25` (handball): a score, "two to one", "vierundzwanzig zu
    fünfundzwanzig"; a pair in a clock's place (`um 24:45 Uhr`, `at 25:10`, and in English any
    `H:MM` outside a game) is no time either, and is left as written."""
    if (
        context.noun.lower() in _CLOCK_NOUNS
        or context.before[-1:]
        and (context.before[-1] in _CLOCK_BEFORE[w.language])
    ):
        return LEFT_AS_WRITTEN
    if w.language == "en" and len(match.group("b")) == 2 and not english.is_game(context):
        return LEFT_AS_WRITTEN
    return f"{w.cardinal(int(match.group('a')))} {w.rules.score_word} {w.cardinal(int(match.group('b')))}"


def _fraction(match: re.Match, w: Words, context: Context) -> str | None:
    parts = match.groupdict()
    if parts.get("v"):
        numerator, denominator = VULGAR_FRACTIONS[parts["v"]]
    else:
        numerator, denominator = int(parts["n"]), int(parts["d"])
        if (numerator, denominator) == (24, 7):
            return f"{w.cardinal(24)} {w.cardinal(7)}"
        if not (
            numerator < denominator and (denominator <= 10 or denominator in (12, 16, 32, 64, 100))
        ):
            return None
    if parts.get("w"):
        return w.mixed(int(parts["w"]), numerator, denominator)
    if w.language == "de" and (numerator, denominator) == (1, 2) and w.gender(context.noun):
        return german_half(context.before, w.gender(context.noun))  # `1/2 Stunde`: "eine halbe"
    return w.fraction(numerator, denominator)


def _measured(match: re.Match, w: Words, context: Context) -> str | None:
    """`1/2 taza`, `2 1/2 tazas`, `3½ tasses`, `1/2 c.c.`: a fraction with the unit or noun it
    measures (`Words.measured`); a noun must have a known gender."""
    parts = match.groupdict()
    if parts.get("v"):
        numerator, denominator = VULGAR_FRACTIONS[parts["v"]]
    else:
        numerator, denominator = int(parts["n"]), int(parts["d"])
        if not 0 < numerator < denominator <= 10:
            return None
    whole = int(parts.get("w") or parts.get("w2") or 0)
    if parts.get("unit"):
        singular, plural, gender = w.rules.units[_unit_key(w.rules, parts["unit"])]
        if w.language == "en":
            return english.measured(w, whole, numerator, denominator, singular, plural)
        if w.language == "de":
            return _german_measured(
                w, whole, numerator, denominator, (singular, plural, gender), context
            )
        noun = singular if whole <= 1 else plural
    else:
        noun, gender = parts["noun"], w.gender(parts["noun"])
        if gender is None:
            return None
    return w.measured(whole, numerator, denominator, noun, gender)


def _german_measured(
    w: Words, whole: int, numerator: int, denominator: int, unit: tuple, context: Context
) -> str | None:
    """`2 1/2 kg` "zweieinhalb Kilogramm", `1/2 kg` "ein halbes Kilogramm" (the half agreeing
    with the unit), `3/4 l` "drei Viertel Liter". `unit`: (singular, plural, gender)."""
    singular, plural, gender = unit
    if whole:
        mixed = w.mixed(whole, numerator, denominator)
        return None if mixed is None else f"{mixed} {plural}"
    if (numerator, denominator) == (1, 2):
        return f"{german_half(context.before, gender)} {singular}"
    part = w.fraction(numerator, denominator)
    return None if part is None else f"{part} {singular}"


def _day_month(match: re.Match, w: Words, context: Context) -> str | None:
    """`du 30/04`, `el 3/5`: a day and month without a year, read only after a word that
    introduces a date (a bare `1/2` is a fraction)."""
    day, month = int(match.group("d")), int(match.group("mo"))
    if (
        not (context.before and context.before[-1] in _DATE_BEFORE[w.language])
        or not (1 <= day <= 31 and 1 <= month <= 12)
        or re.match(r"d(?:e|es|el|u)?$|d['’]", context.noun.lower())
    ):
        return None  # `le 1/4 de finale` is a fraction
    return w.date(day, month, None, context)


def _padded_day(match: re.Match, w: Words, context: Context) -> str | None:
    """`01 de febrero`, `08 mai`: a day written with a leading zero before its month, said as a
    day (elsewhere `01` is read digit by digit)."""
    month = context.after if w.language == "es" and context.noun == "de" else context.noun
    if month.lower() not in w.rules.months:
        return None
    return (
        "premier"
        if w.language == "fr" and match.group("d") == "1"
        else w.cardinal(int(match.group("d")))
    )


_DATE_BEFORE = {
    "fr": frozenset("du au le dès depuis jusqu'au".split()),
    "es": frozenset("el del al desde hasta".split()),
}


def _decade(match: re.Match, w: Words, context: Context) -> str | None:
    tens, century = int(match.group("t")), match.group("c")
    if century is None:
        if tens == 0:
            return None
        said = w.cardinal(tens * 10)
    elif int(century) * 100 + tens * 10 < YEAR_RANGE[0]:  # `1000s`: no decade of a year
        return "thousands" if (century, tens, context.noun) == ("10", 0, "of") else None
    else:
        said = w.year(int(century) * 100 + tens * 10)
    if w.language == "de":
        return said + "er"
    return said[:-1] + "ies" if said.endswith("y") else said + "s"


def _ordinal(match: re.Match, w: Words, context: Context) -> str | None:
    value, suffix = written_whole(match), (match.groupdict().get("suf") or "").lstrip(".")
    if value is None or match.groupdict().get("frac"):
        return None
    if match.group("int").startswith("00"):
        return LEFT_AS_WRITTEN  # `001.º`: a code, no ordinal (`05. Dezember` is a day)
    gender = w.gender(context.noun) if context.noun else None
    if w.language == "de":
        if not context.noun or german_sentence_start(context.noun):
            return None  # `Kapitel 4. Am Morgen`: the dot ends the sentence
        if context.noun in ("und", "oder", "bis"):  # `am 3. und 4. Mai`: like the one after it
            return w.ordinal(value, None, context)
        if not context.noun[0].isupper():  # `als 3. ins Ziel`: an ordinal standing for a noun
            return number_words(value, "de", "ordinal")
        return w.ordinal(value, gender, context)
    if w.language == "fr":
        if value == 1 and suffix in ("re", "ère"):
            return "première"
        if value == 2 and suffix in ("nd", "nde", "d", "de"):
            return "second" if suffix in ("nd", "d") else "seconde"
        return w.ordinal(value, "f" if suffix in ("re", "ère") else None)
    if w.language == "es":
        if suffix in ("er",):
            return w.ordinal(value, "m", context, before_noun=True)
        feminine = suffix in ("ª", "a")
        return w.ordinal(
            value,
            "f" if feminine else gender if gender == "m" else None,
            context,
            before_noun=bool(context.noun) and gender == "m",
        )
    if english.is_month(context.noun.lower()):
        return english.day_before_month(w.ordinal(value), context)
    return w.ordinal(value)


# ---- amounts, percentages, units, plain numbers ----------------------------------------------


def _amount(match: re.Match, w: Words, context: Context) -> str | None:
    symbol = match.group("sym").strip()
    unit, units, cent, cents, gender = w.rules.currencies[symbol]
    value, frac = written_whole(match), match.group("frac")
    sign = f"{w.rules.minus} " if match.groupdict().get("neg") else ""
    scale = match.groupdict().get("scale")
    if w.language == "en" and english.attributive(context, money=True):
        units = unit  # `a $5 fee`: "a five dollar fee"
    if scale:
        number = scaled_number(w, value, frac, scale)
        return f"{sign}{number}{_of(w, number, units)}{units}"
    if value is None or (
        value == 0 and frac and len(frac) == 2 and int(frac)
    ):  # `$.73`, `$0.50`: cents only
        c = int(frac) if frac and len(frac) == 2 else 0
        return f"{sign}{w.cardinal(c, 'm')} {cent if c == 1 else cents}" if c else None
    number = w.cardinal(value, gender)
    said = f"{number}{_of(w, number, units)}{unit if value == 1 else units}"
    if frac and len(frac) == 2 and int(frac):
        c = int(frac)
        said += f"{w.rules.amount_joiner}{w.cardinal(c, 'm')} {cent if c == 1 else cents}"
    elif frac and int(frac):
        said = f"{w.decimal(value, frac)} {units}"
    return sign + said


def scaled_number(w: Words, value: int | None, frac: str | None, scale: str) -> str:
    """A number with its scale word as written (`5 million`, `2,5 Mio.`, `3 millions`, an
    English `million` in another language's line), said in the line's language: "fünf
    Millionen", "eine Million", "fünftausend", "mil millones"; in French and Spanish a decimal
    of exactly ,5 as a newsreader says it ("un million et demi", "dos millones y medio"), and a
    French scale word after a decimal kept as written (`1,2 million` stays singular)."""
    power, one, many = w.rules.scales.get(scale) or FOREIGN_SCALES[w.language][scale]
    single = value == 1 and not frac
    if single and (one.startswith("mil ") or (power == 3 and w.language in ("fr", "es"))):
        return one  # "mil millones", "mille", "mil": never "un mil"
    if (
        w.language in ("fr", "es")
        and frac == "5"
        and value
        and power > 3
        and not one.startswith("mil ")
    ):
        return f"{w.cardinal(value, 'm')} {one if value == 1 else many} {AND_A_HALF[w.language]}"
    gender = "f" if w.language == "de" and one.startswith(("Milli", "Billi")) else "m"
    number = w.decimal(value, frac, gender)
    if power == 3 and w.language == "de" and not frac:
        return number + one  # "fünftausend"
    word = (
        scale if w.language == "fr" and frac and scale in (one, many) else one if single else many
    )
    return f"{number} {word}"


def _of(w: Words, number: str, noun: str) -> str:
    """What joins a number ending in a scale noun to the noun counted: " de " in French and
    Spanish (" d'" before a vowel: "un million d'euros"); a space otherwise."""
    if not re.search(
        r"(?:million|milliard|millón|millones|billón|billones|mil millones)s?(?: et demi| y medio)?$",
        number,
    ):
        return " "
    of = w.rules.scale_of
    return (
        " d'"
        if of == " de " and w.language == "fr" and re.match(r"[aeiouéèêh]", noun, re.I)
        else of
    )


def _percent(match: re.Match, w: Words, context: Context) -> str | None:
    return f"{_signed(match, w, w.decimal(written_whole(match), match.group('frac')))} {w.rules.percent}"


def _unit(match: re.Match, w: Words, context: Context) -> str | None:
    singular, plural, gender = w.rules.units[_unit_key(w.rules, match.group("unit"))]
    value, frac = written_whole(match), match.group("frac")
    number = w.decimal(value, frac, gender, context)
    if w.language == "en" and english.millions_of(match.group("unit"), context):
        return f"{_signed(match, w, number)} million"  # `1.5m people`
    if w.language == "en" and english.attributive(context):
        plural = singular  # `a 20cm tin`: "a twenty centimetre tin"
    return f"{_signed(match, w, number)} {w.noun_form(value or 0, frac, singular, plural)}"


def _unit_key(rules: LanguageRules, written: str) -> str:
    if written in rules.units:
        return written
    return next(u for u in rules.units if u.lower() == written.lower())


def _feet(match: re.Match, w: Words, context: Context) -> str | None:
    names = {"en": ("foot", "feet", "inch", "inches"), "de": ("Fuß", "Fuß", "Zoll", "Zoll")}.get(
        w.language
    )
    if names is None:
        return None
    feet, inches = int(match.group("ft")), match.group("inch")
    said = f"{w.cardinal(feet)} {names[0] if feet == 1 else names[1]}"
    if inches:
        said += f" {w.cardinal(int(inches))} {names[2] if int(inches) == 1 else names[3]}"
    return said


def _scaled(match: re.Match, w: Words, context: Context) -> str | None:
    """A number before a scale word (`scaled_number`), with its sign; None without a whole part."""
    value = written_whole(match)
    if value is None:
        return None
    return _signed(match, w, scaled_number(w, value, match.group("frac"), match.group("scale")))


def _currency_word(match: re.Match, w: Words, context: Context) -> str | None:
    """`3,40 euros`: whole units and two decimals before a written currency name, said as
    "trois euros quarante", "tres euros con cuarenta"."""
    frac = match.group("frac")
    if frac is None or len(frac) != 2:
        return None
    unit, units, _, _, gender = next(
        names for names in w.rules.currencies.values() if match.group("cur") in names[:2]
    )
    value, cents = written_whole(match), int(frac)
    said = f"{w.cardinal(value, gender)} {unit if value == 1 else units}"
    if cents:
        said += f"{'' if w.language == 'fr' else ' con'} {w.cardinal(cents)}"
    return said


def _plus(match: re.Match, w: Words, context: Context) -> str | None:
    """`+20 points`: a number with a plus sign before a word, a change rather than a phone
    number's country code."""
    if not context.noun or not context.noun[0].isalpha():
        return None
    return _plain(match, w, context)


def _clock_mark(match: re.Match, w: Words, context: Context) -> str | None:
    """Spanish `las 7,45`, `9.30 horas`: a time written with a comma or a point, read as one
    only after `las`/`la` or before `horas` (otherwise it is a decimal); `9,00` says "nueve"
    either way."""
    marked = context.noun.lower() in ("horas", "h", "hrs") or context.before[-1:] in (
        ["las"],
        ["la"],
    )
    if not marked and match.group("m") != "00":
        return None
    return say_time(match, w, context) + (" horas" if match.group("hs") else "")


def _french_clock(match: re.Match, w: Words, context: Context) -> str | None:
    """French `22 h 30`, `22H`; in a duration `5 h 28 min 58 s` the hours alone, each unit
    after being said with its own number."""
    if match.group("m") and context.noun.lower() in ("min", "mn"):
        return None
    return say_time(match, w, context)


def _spaced_sign(match: re.Match, w: Words, context: Context) -> str | None:
    """French `en baisse de - 7,8 %`, `à + 3 s`: a sign with a space after it inside a sentence
    (at the start of a line it is a list's dash)."""
    if not context.before:
        return None
    return (
        _unit(match, w, context) if match.groupdict().get("unit") else _percent(match, w, context)
    )


def _day_list(match: re.Match, w: Words, context: Context) -> str | None:
    """`17-18-19 juin`, `7/8/9 June`: days of one month joined by dashes, said as a list of days
    ("dix-sept, dix-huit et dix-neuf juin", "the seventeenth, eighteenth and nineteenth of June");
    never digit by digit. German writes days with dots, so there it is left as written."""
    if context.noun.lower().rstrip(".") not in {m.lower() for m in w.rules.months} | (
        set(english.ABBREVIATED_MONTHS) if w.language == "en" else set()
    ):
        return None
    days = [int(d) for d in re.split(r"[-/]", match.group(0))]
    if not all(1 <= d <= 31 for d in days) or w.language == "de":
        return LEFT_AS_WRITTEN
    if w.language == "en":
        said = [w.ordinal(d) for d in days]
        lead = "" if context.before[-1:] == ["the"] else "the "
        return f"{lead}{', '.join(said[:-1])} {w.rules.and_word} {said[-1]} of"
    said = ["premier" if w.language == "fr" and d == 1 else w.cardinal(d) for d in days]
    return f"{', '.join(said[:-1])} {w.rules.and_word} {said[-1]}"


def _digits(match: re.Match, w: Words, context: Context) -> str | None:
    text = match.group(0)
    lead = f"{w.rules.plus} " if text.startswith("+") else ""
    return lead + w.digits(text)


def _number_sign(match: re.Match, w: Words, context: Context) -> str | None:
    if match.group("code"):  # `No. 2024-117`: a code, digit by digit
        return f"{w.rules.number_sign} {w.digits(match.group('int') + match.group('code'))}"
    return f"{w.rules.number_sign} {w.cardinal(written_whole(match))}"


def _plain(match: re.Match, w: Words, context: Context) -> str | None:
    whole, frac = match.group("int"), match.group("frac")
    value = written_whole(match)
    if whole and whole.isdigit() and len(whole) > 9:
        return w.digits(whole)
    if (
        whole
        and whole.isdigit()
        and not frac
        and context.before[-1:]
        and (context.before[-1] in MODEL_WORDS)
    ):
        return code_digits(w, whole)  # `Boeing 737`, `flight 447`: a name, not a quantity
    if (
        whole
        and whole.isdigit()
        and len(whole) == 4
        and not frac
        and not match.group("neg")
        and YEAR_RANGE[0] <= value <= YEAR_RANGE[1]
        and not (w.language == "es" and listed_gender(context.noun, w.language))
    ):
        return _decade_word(w, w.year(value), context)  # `1383 páginas` is a count, not a year
    if not frac and context.before[-1:] == ["années"]:
        return _decade_word(w, w.cardinal(value), context)
    if (
        w.language == "en"
        and whole
        and whole.isdigit()
        and not frac
        and not match.group("neg")
        and english.early_year(value, context)
    ):
        return w.year(value)  # `in 1066`: "ten sixty-six"
    if w.language == "en" and english.dialled(whole, context):
        return w.digits(whole)  # `Call 911`: "nine one one"
    if w.language == "en" and not frac and not match.group("neg") and value is not None:
        day = english.day_of_month(w, value, context)
        if day is not None:
            return day
    said = w.decimal(value, frac) if frac else w.counted(value, context)
    return _signed(match, w, said)


def _decade_word(w: Words, said: str, context: Context) -> str:
    """French `les années 80`: the decade's number takes no plural s ("quatre-vingt")."""
    if w.language == "fr" and context.before[-1:] == ["années"]:
        return re.sub(r"(vingt|cent)s$", r"\1", said)
    return said


def _signed(match: re.Match, w: Words, said: str) -> str:
    sign = match.groupdict().get("neg")
    if not sign:
        return said
    return f"{w.rules.plus if sign == '+' else w.rules.minus} {said}"


def _romance_forms(
    rules: LanguageRules, number: str, units: str, fractions: str
) -> list[tuple[str, str, Say]]:
    """The forms French and Spanish share: a fraction with what it measures, a day and month,
    a scale word, cents before a currency name, a plus sign."""
    fraction = (
        rf"(?:(?:(?P<w>\d+)\s)?(?P<n>\d+)/(?P<d>\d+)|(?:(?P<w2>\d+)\s?)?(?P<v>[{fractions}]))"
    )
    scales = _alternatives(k for k in rules.scales if k[0].islower())
    names = _alternatives(
        {name for names in rules.currencies.values() for name in names[:2] if " " not in name}
    )
    return [
        ("fraction", rf"{fraction}\s?(?P<unit>{units})", _measured),
        ("fraction", rf"{fraction}\s(?P<noun>[^\W\d_]{{2,}})", _measured),
        ("date", r"(?P<d>\d{1,2})/(?P<mo>\d{1,2})", _day_month),
        ("date", r"0(?P<d>[1-9])", _padded_day),
        ("number", rf"(?P<neg>[-−+])?{number}\s(?P<scale>{scales})", _scaled),
        ("amount", rf"{number}\s(?P<cur>{names})", _currency_word),
        ("number", rf"{number}\s(?P<noun>[^\W\d_]{{2,}})", _millions_of),
        ("number", rf"(?P<neg>\+){number}", _plus),
    ]


def _millions_of(match: re.Match, w: Words, context: Context) -> str | None:
    """French and Spanish `1 000 000 personnes`: a noun counted in whole millions takes "de"
    ("un million de personnes", "deux millions d'habitants"); None for any other number."""
    value, noun = written_whole(match), match.group("noun")
    if value is None or match.group("frac") or noun.lower() in ("de", "d"):
        return None
    said = w.counted(value, Context(context.before, noun))
    of = _of(w, said, noun)
    return None if of == " " else f"{said}{of}{noun}"


_TIMES = {"en": "by", "de": "mal", "fr": "sur", "es": "por"}  # `2 x 8 cm`


def _dimensions(match: re.Match, w: Words, context: Context) -> str | None:
    """`2 x 8 cm`: "two by eight centimetres", "zwei mal acht Zentimeter"."""
    sides = [w.decimal(written_whole(match, n), match.group(f"frac{n}")) for n in "ab"]
    said = f" {_TIMES[w.language]} ".join(sides)
    unit, tail = match.group("unit"), match.group("tail")
    return said + (
        f" {w.rules.units[_unit_key(w.rules, unit)][1]}" if unit else f"-{tail}" if tail else ""
    )


_PRODUCT = {"en": "times", "de": "mal", "fr": "fois", "es": "por"}  # `3 * 4`
_TIMES_SIGN = re.compile(r"\s?\*\s?")


def _product(match: re.Match, w: Words, context: Context) -> str | None:
    """`5 * 5`, `2*3*4`: "five times five", "drei mal vier" (the `*` is never a markdown mark)."""
    return f" {_PRODUCT[w.language]} ".join(
        w.cardinal(int(n)) for n in _TIMES_SIGN.split(match.group(0))
    )


_OPERATORS = {
    "en": {
        "+": "plus",
        "-": "minus",
        "−": "minus",
        "*": "times",
        "×": "times",
        "/": "divided by",
        "÷": "divided by",
        "=": "equals",
    },
    "de": {
        "+": "plus",
        "-": "minus",
        "−": "minus",
        "*": "mal",
        "×": "mal",
        "/": "geteilt durch",
        "÷": "geteilt durch",
        "=": "gleich",
    },
    "fr": {
        "+": "plus",
        "-": "moins",
        "−": "moins",
        "*": "fois",
        "×": "fois",
        "/": "divisé par",
        "÷": "divisé par",
        "=": "égale",
    },
    "es": {
        "+": "más",
        "-": "menos",
        "−": "menos",
        "*": "por",
        "×": "por",
        "/": "entre",
        "÷": "entre",
        "=": "igual a",
    },
}
_OPERAND = r"\d+(?:[.,]\d+)?"
EQUATION = rf"{_OPERAND}(?:\s?[-−+*×/÷]\s?{_OPERAND})+\s?=\s?[-−]?{_OPERAND}"


def _equation(match: re.Match, w: Words, context: Context) -> str | None:
    """`2+2=4`, `3*4=12`, `10/2=5`: each number and sign said ("two plus two equals four",
    "zwei plus zwei gleich vier", "deux plus deux égale quatre", "dos más dos igual a cuatro");
    a number with the other language's decimal mark is not read (None)."""
    said = []
    for part in re.findall(rf"{_OPERAND}|[-−+*×/÷=]", match.group(0)):
        if part[0].isdigit():
            whole, _, frac = part.partition(w.rules.decimal)
            if not whole.isdigit() or (frac and not frac.isdigit()):
                return None
            said.append(w.decimal(int(whole), frac or None))
        else:
            said.append(_OPERATORS[w.language][part])
    return " ".join(said)


def _clock_range(match: re.Match, w: Words, context: Context) -> str | None:
    """`23:42-03:28 Uhr`: two clock times, the `Uhr` said with each."""
    times = []
    for part in (match.group("a"), match.group("b")):
        clock = re.fullmatch(r"(?P<h>\d{1,2})[.:](?P<m>\d{2})", part)
        times.append(say_time(clock, w, context))
    return None if None in times else f" {w.rules.range_word} ".join(times)


def _hours_and_minutes(match: re.Match, w: Words, context: Context) -> str | None:
    """`2:26 Stunden`: "zwei Stunden und sechsundzwanzig Minuten"; `2:01:39 Stunden`: "zwei
    Stunden, eine Minute und neununddreißig Sekunden"."""
    counts = [int(match.group("h")), int(match.group("m")), int(match.group("s") or 0)]
    said = [
        f"{w.cardinal(n, 'f')} {one if n == 1 else many}"
        for n, (one, many) in zip(
            counts, [("Stunde", "Stunden"), ("Minute", "Minuten"), ("Sekunde", "Sekunden")]
        )
        if n
    ]
    return ", ".join(said[:-1]) + f" {w.rules.and_word} {said[-1]}" if len(said) > 1 else said[0]


def _joined_ordinal(match: re.Match, w: Words, context: Context) -> str | None:
    """`48.Minute` (no space after the dot): the ordinal and its noun."""
    noun = match.group("noun")
    said = _ordinal(match, w, Context(context.before, noun))
    return None if said is None else f"{said} {noun}"


def forms(language: str, rules: LanguageRules) -> list[tuple[str, re.Pattern, Say]]:
    """The (name, pattern, say) forms of `language` in the order they are tried."""
    number = number_pattern(rules)
    sign = r"(?P<neg>[-−+])?"
    symbols = _alternatives(rules.currencies)
    foreign = FOREIGN_SCALES.get(language, {})
    amount_scales = _alternatives(set(rules.scales) | set(foreign))
    units = _units(rules)
    fractions = "".join(VULGAR_FRACTIONS)
    grouped = rf"(?P<int>{grouped_digits(rules)}|\d+)"  # `#1,161`
    sides = rf"{number_pattern(rules, 'a')}\s?[x×]\s?{number_pattern(rules, 'b')}"  # `2 x 8`
    found: list[tuple[str, str, Say]] = [
        (
            "duration",
            rf"(?P<mi>\d{{1,3}}):(?P<s>[0-5]\d)\s?{minute_words(language)}",
            say_minutes_and_seconds,
        ),
        (
            "time",
            r"(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?"
            + {"en": rf"(?:\s?(?P<mer>{MERIDIEM}))?", "de": r"(?:\sUhr)?"}.get(language, ""),
            say_time,
        ),
        ("duration", r"(?P<mi>\d{1,3}):(?P<s>[0-5]\d)[.,](?P<f>\d+)", say_duration),
        ("date", r"(?P<d>\d{1,2})\.(?P<mo>\d{1,2})\.(?P<y>\d{4})", say_date),
        ("date", r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})", say_date),
        ("date", r"(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})", say_date),
        (
            "range",
            rf"(?P<a>\d+)(?:[-‐–]|\s[–-]\s)(?P<b>\d+)(?:\s?(?P<unit>{units})|\s?(?P<pct>%))?",
            _range,
        ),
        ("score", r"(?P<a>\d{1,2}):(?P<b>\d{1,2})", _score),
        ("fraction", r"(?:(?P<w>\d+)[\s-])?(?P<n>\d+)/(?P<d>\d+)", _fraction),
        ("fraction", rf"(?:(?P<w>\d+)\s?)?(?P<v>[{fractions}])", _fraction),
        ("dimensions", rf"{sides}(?:\s?(?P<unit>{units})|-(?P<tail>[^\W\d]+))?", _dimensions),
        ("equation", EQUATION, _equation),
        ("product", r"\d+(?:\s?\*\s?\d+)+", _product),
        (
            "amount",
            rf"(?P<neg>[-−])?(?P<sym>{symbols})\s?{number}(?:\s?(?P<scale>{amount_scales}))?",
            _amount,
        ),
        (
            "amount",
            rf"(?P<neg>[-−])?{number}(?:\s?(?P<scale>{amount_scales}))?\s?(?P<sym>{symbols})",
            _amount,
        ),
        ("percent", rf"{sign}{number}\s?%", _percent),
        ("unit", rf"{sign}{number}\s?(?P<unit>{units})", _unit),
        ("date", r"\d{1,2}(?:-\d{1,2}){2,}", _day_list),
        (
            "digits",
            r"0\d+(?:-\d+|\s\d{3,})*|\+\d+(?:[-\s.]\d+)*|\d+(?:-\d+){2,}|\d{3}-\d{4}|\d+(?:-0\d+)+",
            _digits,
        ),
        (
            "number sign",
            rf"(?:{_alternatives(rules.number_marks)})\s?{grouped}(?P<code>(?:[-/.]\d+)+)?",
            _number_sign,
        ),
        ("identifier", IDENTIFIER, say_identifier),
        ("number", rf"{sign}{number}", _plain),
    ]
    if foreign:  # `5 million Menschen`: an English scale word said in the line's language
        found.insert(-1, ("number", rf"{number}\s(?P<scale>{_alternatives(foreign)})", _scaled))
    measured = (
        "fraction",
        rf"(?:(?:(?P<w>\d+)[\s-])?(?P<n>\d+)/(?P<d>\d+)|(?:(?P<w2>\d+)\s?)?"
        rf"(?P<v>[{fractions}]))\s?(?P<unit>{units})",
        _measured,
    )  # `2 1/2 kg`
    if language == "en":
        found[1:1] = [
            ("date", r"(?P<a>\d{1,2})/(?P<b>\d{1,2})", say_day_and_month),
            ("time", rf"(?P<h>\d{{1,2}})(?:\.(?P<m>\d{{2}}))?\s?(?P<mer>{MERIDIEM})", say_time),
            ("time", r"(?P<h>\d{1,2})\.(?P<m>[0-5]\d)", say_clock_after_clock_word),
            ("time", r"(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)\s(?:hours|hrs)", say_military_digits),
            ("decade", r"(?:['’]|(?P<c>\d{2}))?(?P<t>\d)0['’]?s", _decade),
            ("ordinal", rf"{number_pattern(rules)}(?P<suf>st|nd|rd|th)", _ordinal),
            ("length", r"(?P<ft>\d+)['’′](?:(?P<inch>\d+)(?:\"|”|″|'')?)?", _feet),
            ("length", r"(?P<ft>\d+)\s?ft\s(?P<inch>\d+)\s?in", _feet),  # `6ft 2in`
            measured,
            *english.forms(number),
        ]
    elif language == "de":
        found[1:1] = [
            ("time", r"(?P<h>\d{1,2})(?:[.:](?P<m>\d{2}))?\sUhr", say_time),
            ("time", r"(?P<a>\d{1,2}[.:]\d{2})[-–](?P<b>\d{1,2}[.:]\d{2})\sUhr", _clock_range),
            ("time", r"(?P<h>\d{1,2})\.(?P<m>\d{2})", say_clock_before_range),
            (
                "duration",
                r"(?P<h>\d{1,2}):(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?\sStunden",
                _hours_and_minutes,
            ),
            measured,
            ("decade", r"(?P<c>\d{2})?(?P<t>\d)0er", _decade),
            ("ordinal", r"(?P<int>\d+)\.", _ordinal),
            ("ordinal", r"(?P<int>\d+)\.(?P<noun>[A-ZÄÖÜ](?:[^\W\d]|-)*)", _joined_ordinal),
            (
                "number",
                rf"{number}\s?(?P<scale>{_alternatives(k for k in rules.scales if '.' in k)})",
                _scaled,
            ),
        ]
    elif language == "fr":
        found[1:1] = [
            ("time", r"(?P<h>\d{1,2})\s?[hH](?:\s?(?P<m>\d{2}))?", _french_clock),
            ("ordinal", r"(?P<int>\d+)(?P<suf>er|re|ère|e|ème|eme|nde|nd|de|d)", _ordinal),
            ("percent", rf"(?P<neg>[-−+])\s{number}\s?%", _spaced_sign),
            ("unit", rf"(?P<neg>[-−+])\s{number}\s?(?P<unit>{units})", _spaced_sign),
            *_romance_forms(rules, number, units, fractions),
        ]
    else:
        found[1:1] = [
            ("ordinal", r"(?P<int>\d+)(?P<suf>\.?º|\.?ª|\.er|er|\.[oa])", _ordinal),
            ("time", r"(?P<h>\d{1,2})[.,](?P<m>[0-5]\d)(?:\s?(?P<hs>h))?", _clock_mark),
            ("percent", r"(?P<neg>[-−])?(?P<int>\d+)['’](?P<frac>\d{1,2})\s?%", _percent),
            *_romance_forms(rules, number, units, fractions),
        ]
    return [(name, re.compile(pattern), say) for name, pattern, say in found]
