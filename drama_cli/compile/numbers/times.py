"""Times, durations and dates of number expressions said in words (`forms` matches them)."""

from __future__ import annotations

import re

from drama_cli.compile.numbers.words import LEFT_AS_WRITTEN, Context, Words

MERIDIEM = r"(?i:a\.m\.?|p\.m\.?|am|pm)"
_CLOCK_WORDS = {
    "en": ("minute", "minutes", "second", "seconds"),
    "de": ("Minute", "Minuten", "Sekunde", "Sekunden"),
    "fr": ("minute", "minutes", "seconde", "secondes"),
    "es": ("minuto", "minutos", "segundo", "segundos"),
}
_HOUR_WORDS = {
    "en": ("hour", "hours"),
    "de": ("Stunde", "Stunden"),
    "fr": ("heure", "heures"),
    "es": ("hora", "horas"),
}
_CLOCK_BEFORE = {
    "en": {"at", "by", "from", "until", "till", "to"},
    "de": {"um", "bis", "ab", "von", "gegen"},
    "fr": {"à", "vers", "de", "dès"},
    "es": {"a", "las", "la", "hacia", "desde", "hasta"},
}  # a clock time after these


_MILITARY_HOURS = ("hours", "hrs")


def _after_clock_word(context: Context, language: str) -> bool:
    """Whether the word before is one a clock time follows in `language` (`at`, `um`, `à`…)."""
    return bool(context.before) and context.before[-1] in _CLOCK_BEFORE[language]


def say_time(match: re.Match, w: Words, context: Context) -> str | None:
    """A clock time (`10:30`, `7pm`, `19.30 Uhr`, `22 h 30`), or a race time `H:MM:SS`."""
    hours, minutes = int(match.group("h")), int(match.group("m") or 0)
    seconds = int(match.groupdict().get("s") or 0)
    meridiem = (match.groupdict().get("mer") or "").lower()
    if (
        hours > 24
        or minutes > 59
        or (meridiem and not 1 <= hours <= 12)
        or (hours == 24 and minutes)
    ):
        return None
    if (
        match.groupdict().get("s")
        and not meridiem
        and "Uhr" not in match.group(0)
        and not _after_clock_word(context, w.language)
    ):
        return _hours_minutes_seconds(w, hours, minutes, seconds)  # a race time: `2:03:59`
    said = _clock(w, hours, minutes, meridiem)
    if w.language == "en" and not meridiem and context.noun.lower() in _MILITARY_HOURS:
        said = military_time(w, match.group("h"), minutes)  # `08:00 hours`
    elif said == "midnight" and seconds:
        said = "zero hundred"
    if seconds:
        _, _, second, second_plural = _CLOCK_WORDS[w.language]
        said += (
            f" {w.rules.and_word} {w.cardinal(seconds)} {second if seconds == 1 else second_plural}"
        )
    if meridiem:
        said += f" {w.rules.meridiem[meridiem]}"
    return said


def military_time(w: Words, hours: str, minutes: int) -> str:
    """An English clock time read as the military reads it, hours as written (`08`, `14`):
    "zero eight hundred", "fourteen thirty", "zero hundred"; the word `hours` is not included."""
    hour = "zero" if int(hours) == 0 else w.cardinal(int(hours))
    if hours.startswith("0") and int(hours):
        hour = f"zero {hour}"
    if minutes == 0:
        return f"{hour} hundred"
    return f"{hour} oh {w.cardinal(minutes)}" if minutes < 10 else f"{hour} {w.cardinal(minutes)}"


def say_military_digits(match: re.Match, w: Words, context: Context) -> str | None:
    """`0800 hours`, `at 2300 hrs`: four digits before `hours` read as a military time when they
    start with 0 or follow a clock word (`at`, `by`…); otherwise a count (`2300 hours of footage`)."""
    if not match.group("h").startswith("0") and not _after_clock_word(context, "en"):
        return None
    return f"{military_time(w, match.group('h'), int(match.group('m')))} hours"


def say_clock_after_clock_word(match: re.Match, w: Words, context: Context) -> str | None:
    """British `at 7.30`: a time written with a dot, read as one only after `at`, `by`,
    `from`, `until` or `till` (elsewhere `7.30` is a decimal)."""
    if not context.before or context.before[-1] not in _CLOCK_BEFORE[w.language] - {"to"}:
        return None  # `rose to 7.30`: a level, not a time
    return say_time(match, w, context)


def say_clock_before_range(match: re.Match, w: Words, context: Context) -> str | None:
    """German `7.30 bis 12 Uhr`: a clock time whose `Uhr` is written only after the range's end."""
    if context.noun != "bis" or not context.after[:1].isdigit():
        return None
    return say_time(match, w, context)


def _hours_minutes_seconds(w: Words, hours: int, minutes: int, seconds: int) -> str:
    """A duration written `H:MM:SS`: "two hours three minutes fifty-nine seconds"."""
    minute, minutes_word, second, seconds_word = _CLOCK_WORDS[w.language]
    hour, hours_word = _HOUR_WORDS[w.language]
    parts = [
        (hours, hour, hours_word, "f" if w.language in ("fr", "es", "de") else None),
        (minutes, minute, minutes_word, "f" if w.language in ("fr", "de") else "m"),
        (seconds, second, seconds_word, "f" if w.language in ("fr", "de") else "m"),
    ]
    return " ".join(
        f"{w.cardinal(n, gender)} {one if n == 1 else many}" for n, one, many, gender in parts if n
    )


def _clock(w: Words, hours: int, minutes: int, meridiem: str) -> str:
    minute = w.cardinal(
        minutes, "f" if w.language == "fr" else None
    )  # "sept heures cinquante et une"
    if w.language == "en":
        hour = w.cardinal(hours)
        if hours == minutes == 0 and not meridiem:
            return "midnight"  # `00:00`
        if minutes == 0:
            return hour if meridiem else f"{hour} o'clock" if hours <= 12 else f"{hour} hundred"
        return f"{hour} oh {minute}" if minutes < 10 else f"{hour} {minute}"
    if w.language == "de":
        hour = "ein" if hours == 1 else w.cardinal(hours)
        return f"{hour} Uhr" + (f" {minute}" if minutes else "")
    hour = w.cardinal(hours, "f")
    if w.language == "fr":
        return f"{hour} heure{'s' if hours > 1 else ''}" + (f" {minute}" if minutes else "")
    return hour + (f" y {minute}" if minutes else "")


def minute_words(language: str) -> str:
    """A pattern of the words that say the minutes of a duration written before them (`45:12
    minutes`, `12:30 min`, `1:01 Min.`)."""
    one, many = _CLOCK_WORDS[language][:2]
    return rf"(?:{one}|{many}|(?i:mins?|mn)\.?)(?!\w)"


def say_minutes_and_seconds(match: re.Match, w: Words, context: Context) -> str | None:
    """`45:12 minutes`: "forty-five minutes twelve seconds" (the minutes word is said once)."""
    return _hours_minutes_seconds(w, 0, int(match.group("mi")), int(match.group("s")))


def say_duration(match: re.Match, w: Words, context: Context) -> str | None:
    """`2:45.5`: minutes, then seconds with their decimals."""
    minutes, seconds = int(match.group("mi")), int(match.group("s"))
    minute, minute_plural, _, second_plural = _CLOCK_WORDS[w.language]
    seconds_said = w.decimal(seconds, match.group("f"))
    if context.noun.lower() in {word.lower() for word in _CLOCK_WORDS[w.language]}:
        return (
            f"{w.cardinal(minutes)} {seconds_said}"  # `1:45,3 Minuten`: the unit is written after
        )
    gender = "m" if w.language == "es" else "f"
    return (
        f"{w.cardinal(minutes, gender)} {minute if minutes == 1 else minute_plural} "
        f"{seconds_said} {second_plural}"
    )


_DATE_BEFORE = frozenset("on by until till from since before after".split())


def say_day_and_month(match: re.Match, w: Words, context: Context) -> str | None:
    """English `on 3/4`, `by 12/25`: a day and month without a year after a word of time, read
    by the language label as `3/4/2003` is; left as written where it could be either way round
    (`LEFT_AS_WRITTEN`), never a fraction. Elsewhere (`3/4 cup`) None: a fraction."""
    if not context.before or context.before[-1] not in _DATE_BEFORE:
        return None
    said = say_date(match, w, context)
    return LEFT_AS_WRITTEN if said is None else said


def say_date(match: re.Match, w: Words, context: Context) -> str | None:
    """A numeric date, read by the language label where the order could be either way."""
    parts = match.groupdict()
    if parts.get("a"):
        first, second = int(parts["a"]), int(parts["b"])
        month_first = w.month_first if w.language == "en" else False
        if month_first is None:  # plain `en`: only an unambiguous date is read
            if first > 12 and second <= 12:
                month_first = False
            elif second > 12 and first <= 12:
                month_first = True
            else:
                return None
        day, month = (second, first) if month_first else (first, second)
    else:
        day, month, month_first = int(parts["d"]), int(parts["mo"]), bool(w.month_first)
    if not (1 <= day <= 31 and 1 <= month <= 12):
        return None
    return w.date(day, month, int(parts["y"]) if parts.get("y") else None, context, month_first)
