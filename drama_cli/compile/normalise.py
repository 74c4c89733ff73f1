"""Words as the listener hears them: a line's text spans after the pronunciation lexicon and the
number and symbol rules of the speaker's language (docs/guide/pronunciation.md).

Run on text spans only, so tags, notes and `{NAME}` switches are never touched; the words a
lexicon entry puts in are never normalised. A lexicon entry with phonemes becomes
`<|phoneme_start|>…<|phoneme_end|>` (the strings of `engine.layouts.STRINGS`; the engine allows
the pair only in the text a turn voices).

Numbers become words with `num2words` (`drama_cli.script.spoken.number_words`: cardinals, ordinals, years); which digits are a year, a
time, an amount, a percentage or a measure is decided here, per language, by the rules in
`LANGUAGES` and the patterns below. English, German, French and Spanish are covered; text in
another language is sent as written, and the compiler says so once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drama_cli.errors import ScriptError
from drama_cli.script.direction import render_spans, sent_text_errors
from drama_cli.script.document import Line, Script, Span
from drama_cli.script.lexicon import LexiconEntry, line_matches, speaker_language
from drama_cli.script.spoken import number_words
from engine.layouts import STRINGS

YEAR_RANGE = (1100, 2099)  # four digits without separators in this range read as a year


@dataclass(frozen=True)
class LanguageRules:
    """How one language writes and says numbers.

    decimal: the decimal mark; groups: the thousands separators (a group is exactly 3 digits).
    point: the word said for the decimal mark. percent: the word for `%`.
    currencies: symbol -> (singular, plural, cent singular, cent plural).
    units: symbol -> (singular, plural). ordinal: the pattern of a written ordinal, whose group
    `n` is the number (and `fem` marks a feminine form). amount_joiner: between the whole units
    and the cents of an amount. time_style: how a time is said. number_sign: the word for `#`
    before a number. meridiem: `am`/`pm` as written -> as said.
    """

    decimal: str
    groups: tuple[str, ...]
    point: str
    percent: str
    currencies: dict[str, tuple[str, str, str, str]]
    units: dict[str, tuple[str, str]]
    ordinal: str
    amount_joiner: str
    time_style: str
    number_sign: str
    meridiem: dict[str, str] = field(default_factory=dict)


_SPACES = (" ", "\u00a0", "\u202f")
LANGUAGES: dict[str, LanguageRules] = {
    "en": LanguageRules(
        decimal=".", groups=(",",), point="point", percent="percent",
        currencies={"$": ("dollar", "dollars", "cent", "cents"), "€": ("euro", "euros", "cent", "cents"),
                    "£": ("pound", "pounds", "penny", "pence"), "¥": ("yen", "yen", "sen", "sen")},
        units={"km": ("kilometre", "kilometres"), "m": ("metre", "metres"), "cm": ("centimetre", "centimetres"),
               "mm": ("millimetre", "millimetres"), "kg": ("kilogram", "kilograms"), "g": ("gram", "grams"),
               "mg": ("milligram", "milligrams"), "l": ("litre", "litres"), "ml": ("millilitre", "millilitres"),
               "km/h": ("kilometre per hour", "kilometres per hour"), "mph": ("mile per hour", "miles per hour"),
               "°C": ("degree Celsius", "degrees Celsius"), "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
               "kWh": ("kilowatt hour", "kilowatt hours"), "ft": ("foot", "feet"), "in": ("inch", "inches"),
               "lb": ("pound", "pounds"), "lbs": ("pound", "pounds"), "mi": ("mile", "miles")},
        ordinal=r"(?P<n>\d+)(?:st|nd|rd|th)", amount_joiner=" and ", time_style="en", number_sign="number",
        meridiem={"am": "a.m.", "a.m.": "a.m.", "pm": "p.m.", "p.m.": "p.m."}),
    "de": LanguageRules(
        decimal=",", groups=(".", *_SPACES), point="Komma", percent="Prozent",
        currencies={"€": ("Euro", "Euro", "Cent", "Cent"), "$": ("Dollar", "Dollar", "Cent", "Cent"),
                    "£": ("Pfund", "Pfund", "Penny", "Pence"), "¥": ("Yen", "Yen", "Sen", "Sen")},
        units={"km": ("Kilometer", "Kilometer"), "m": ("Meter", "Meter"), "cm": ("Zentimeter", "Zentimeter"),
               "mm": ("Millimeter", "Millimeter"), "kg": ("Kilogramm", "Kilogramm"), "g": ("Gramm", "Gramm"),
               "mg": ("Milligramm", "Milligramm"), "l": ("Liter", "Liter"), "ml": ("Milliliter", "Milliliter"),
               "km/h": ("Kilometer pro Stunde", "Kilometer pro Stunde"),
               "°C": ("Grad Celsius", "Grad Celsius"), "kWh": ("Kilowattstunde", "Kilowattstunden")},
        ordinal=r"(?P<n>\d+)\.(?=[ \u00a0]+\w)", amount_joiner=" und ", time_style="de", number_sign="Nummer"),
    "fr": LanguageRules(
        decimal=",", groups=(*_SPACES, "."), point="virgule", percent="pour cent",
        currencies={"€": ("euro", "euros", "centime", "centimes"), "$": ("dollar", "dollars", "cent", "cents"),
                    "£": ("livre", "livres", "penny", "pence"), "¥": ("yen", "yens", "sen", "sen")},
        units={"km": ("kilomètre", "kilomètres"), "m": ("mètre", "mètres"), "cm": ("centimètre", "centimètres"),
               "mm": ("millimètre", "millimètres"), "kg": ("kilogramme", "kilogrammes"), "g": ("gramme", "grammes"),
               "mg": ("milligramme", "milligrammes"), "l": ("litre", "litres"), "ml": ("millilitre", "millilitres"),
               "km/h": ("kilomètre heure", "kilomètres heure"),
               "°C": ("degré Celsius", "degrés Celsius"), "kWh": ("kilowattheure", "kilowattheures")},
        ordinal=r"(?P<n>\d+)(?:(?P<fem>re|ère)|er|e|ème|eme)", amount_joiner=" et ", time_style="fr", number_sign="numéro"),
    "es": LanguageRules(
        decimal=",", groups=(".", *_SPACES), point="coma", percent="por ciento",
        currencies={"€": ("euro", "euros", "céntimo", "céntimos"), "$": ("dólar", "dólares", "centavo", "centavos"),
                    "£": ("libra", "libras", "penique", "peniques"), "¥": ("yen", "yenes", "sen", "sen")},
        units={"km": ("kilómetro", "kilómetros"), "m": ("metro", "metros"), "cm": ("centímetro", "centímetros"),
               "mm": ("milímetro", "milímetros"), "kg": ("kilogramo", "kilogramos"), "g": ("gramo", "gramos"),
               "mg": ("miligramo", "miligramos"), "l": ("litro", "litros"), "ml": ("mililitro", "mililitros"),
               "km/h": ("kilómetro por hora", "kilómetros por hora"),
               "°C": ("grado Celsius", "grados Celsius"), "kWh": ("kilovatio hora", "kilovatios hora")},
        ordinal=r"(?P<n>\d+)\.?(?:º|°(?=[ \u00a0]*[^\d\sCF])|(?P<fem>ª))", amount_joiner=" con ", time_style="es", number_sign="número"),
}


# ---- one language's matcher ---------------------------------------------------------------


class Normaliser:
    """Numbers and symbols of one language's text turned into words (rules in the module docstring)."""

    def __init__(self, language: str):
        self.language = language
        self.rules = LANGUAGES[language]
        rules = self.rules
        group = "|".join(re.escape(g) for g in rules.groups)
        number = rf"(?P<int>\d{{1,3}}(?:(?:{group})\d{{3}})+|\d+)(?:{re.escape(rules.decimal)}(?P<frac>\d+))?"
        symbols = "".join(re.escape(s) for s in rules.currencies)
        units = "|".join(re.escape(u) for u in sorted(rules.units, key=len, reverse=True))
        meridiem = "|".join(re.escape(m) for m in sorted(rules.meridiem, key=len, reverse=True))
        time_sep = ":" if language != "fr" else r"(?::|[ \u00a0]?h[ \u00a0]?)"
        clock = r"(?:[ \u00a0]Uhr(?!\w))?" if language == "de" else ""
        if language == "en":  # `4.50 p.m.`: a dot separates hours and minutes when a meridiem follows
            time_sep = rf"(?::|\.(?=[0-5]\d[ \u00a0]?(?:{meridiem})(?!\w)))"
        self.pattern = re.compile("|".join((
            rf"(?P<time>(?<![\w.,:])(?P<hh>[01]?\d|2[0-3]){time_sep}(?P<mm>[0-5]\d)(?![\w:]){clock}"
            + (rf"(?:[ \u00a0]?(?P<mer>{meridiem})(?!\w)(?:(?<=m)\.(?!\w))?)?" if meridiem else "") + ")",
            rf"(?P<pre>(?<![\w])(?P<sym1>[{symbols}])[ \u00a0]?" + number.replace("?P<int>", "?P<int1>")
            .replace("?P<frac>", "?P<frac1>") + r"(?!\w))",
            rf"(?P<ord>(?<![\w.,]){rules.ordinal}(?!\w))",
            rf"(?P<num>(?<![\w.,])(?P<neg>[-−](?=\d))?{number}"
            rf"(?:[ \u00a0]?(?:(?P<pct>%)|(?P<sym2>[{symbols}])|(?P<unit>{units})(?![\w/])))?(?![\w])(?!{re.escape(rules.decimal)}\d))",
        )))

    def __call__(self, text: str) -> str:
        text = re.sub(r"(?<![\w#])#(?=\d)", self.rules.number_sign + " ", text)  # `#1`: number one
        return self.pattern.sub(self._say, text)

    def pieces(self, text: str) -> list[tuple[int, int, str]]:
        """`text` cut into (start, end, said) pieces that cover it in order: text kept as written
        is its own piece, and each number, time, amount or `#` sign is one piece with its words,
        so a word of the said text maps back to where it is written."""
        result: list[tuple[int, int, str]] = []
        last = 0
        marks = [(m.start(), m.end(), self.rules.number_sign + " ")
                 for m in re.finditer(r"(?<![\w#])#(?=\d)", text)]
        marks += [(m.start(), m.end(), self._say(m)) for m in self.pattern.finditer(text)]
        for start, end, said in sorted(marks):
            if start > last:
                result.append((last, start, text[last:start]))
            result.append((start, end, said))
            last = end
        if last < len(text):
            result.append((last, len(text), text[last:]))
        return result

    def _say(self, match: re.Match) -> str:
        if match.group("time"):
            return self._time(int(match.group("hh")), int(match.group("mm")), match.groupdict().get("mer"))
        if match.group("pre"):
            return self._amount(match.group("int1"), match.group("frac1"), match.group("sym1"))
        if match.group("ord"):
            return self._ordinal(int(match.group("n")), bool(match.groupdict().get("fem")))
        whole, frac = match.group("int"), match.group("frac")
        if match.group("sym2"):
            return self._amount(whole, frac, match.group("sym2"), negative=bool(match.group("neg")))
        value = int(re.sub(r"\D", "", whole))
        digits_only = whole.isdigit()
        plain = not (frac or match.group("pct") or match.group("unit") or match.group("neg"))
        if plain and digits_only and len(whole) == 4 and YEAR_RANGE[0] <= value <= YEAR_RANGE[1]:
            said = number_words(value, self.language, "year")
        else:
            said = self._decimal(value, frac)
        if match.group("neg"):
            said = f"{number_words(-1, self.language).rsplit(' ', 1)[0]} {said}"
        if match.group("pct"):
            said += f" {self.rules.percent}"
        if match.group("unit"):
            singular, plural = self.rules.units[match.group("unit")]
            said += " " + (singular if value == 1 and not frac else plural)
        return said

    def _decimal(self, value: int, frac: str | None) -> str:
        said = number_words(value, self.language)
        if frac:
            said += f" {self.rules.point} " + " ".join(number_words(int(d), self.language) for d in frac)
        return said

    def _amount(self, whole: str, frac: str | None, symbol: str, negative: bool = False) -> str:
        unit, units, cent, cents = self.rules.currencies[symbol]
        value = int(re.sub(r"\D", "", whole))
        said = f"{number_words(value, self.language)} {unit if value == 1 else units}"
        if frac and len(frac) == 2 and int(frac):
            c = int(frac)
            said += f"{self.rules.amount_joiner}{number_words(c, self.language)} {cent if c == 1 else cents}"
        elif frac and int(frac):
            said = f"{self._decimal(value, frac)} {units}"
        if negative:
            said = f"{number_words(-1, self.language).rsplit(' ', 1)[0]} {said}"
        return said

    def _ordinal(self, value: int, feminine: bool) -> str:
        said = number_words(value, self.language, "ordinal")
        if feminine and self.language == "es" and said.endswith("o"):
            said = said[:-1] + "a"
        if feminine and self.language == "fr" and value == 1:
            said = "première"
        return said

    def _time(self, hours: int, minutes: int, meridiem: str | None) -> str:
        hour = number_words(hours, self.language)
        minute = number_words(minutes, self.language)
        style = self.rules.time_style
        if style == "en":
            said = f"{hour} o'clock" if minutes == 0 and not meridiem else \
                hour if minutes == 0 else f"{hour} oh {minute}" if minutes < 10 else f"{hour} {minute}"
            return said + (f" {self.rules.meridiem[meridiem.lower()]}" if meridiem else "")
        if style == "de":
            hour = "ein" if hours == 1 else hour
            return f"{hour} Uhr" + (f" {minute}" if minutes else "")
        if style == "fr":
            hour = "une" if hours == 1 else hour
            return f"{hour} heure{'s' if hours > 1 else ''}" + (f" {minute}" if minutes else "")
        hour = "una" if hours == 1 else hour
        return hour + (f" y {minute}" if minutes else "")


_NORMALISERS: dict[str, Normaliser] = {}


def normaliser(language: str) -> Normaliser | None:
    """The normaliser of `language`, or None for a language without rules (text sent as written)."""
    if language not in LANGUAGES:
        return None
    if language not in _NORMALISERS:
        _NORMALISERS[language] = Normaliser(language)
    return _NORMALISERS[language]


def normalise_text(text: str, language: str) -> str:
    """Numbers and symbols of `text` in words of `language`; unchanged for other languages."""
    said = normaliser(language)
    return said(text) if said else text


def normalised_pieces(text: str, language: str) -> list[tuple[int, int, str]]:
    """`text` as (start, end, said) pieces (`Normaliser.pieces`); one piece as written for a
    language without rules."""
    said = normaliser(language)
    return said.pieces(text) if said else [(0, len(text), text)]


# ---- a line -------------------------------------------------------------------------------


@dataclass
class SpokenLine:
    """A line's spans as they will be said, and what changed them.

    spans: the line's spans with each text span's text after the lexicon and normalisation.
    entries: the lexicon entries the line uses, in order of first use.
    unsupported: languages of text spans that hold digits but have no number rules.
    """

    spans: list[Span]
    entries: list[LexiconEntry]
    unsupported: list[str]


def spoken_line(script: Script, line: Line, normalize: bool = True) -> SpokenLine:
    """The line's spans after its lexicon entries and, unless `normalize` is False or the script or
    line turns it off, the number rules of each span's language."""
    normalize = normalize and script.normalize and line.normalize
    matches: dict[int, list] = {}
    for span, match in line_matches(script, line):
        matches.setdefault(id(span), []).append(match)
    entries: list[LexiconEntry] = []
    unsupported: list[str] = []
    language = speaker_language(script, line.speaker)
    spans = []
    for span in line.spans:
        if span.kind == "switch":
            language = speaker_language(script, span.value)
        if span.kind != "text":
            spans.append(span)
            continue
        pieces, last = [], 0
        for match in matches.get(id(span), []):
            pieces.append(_normalised(span.text[last:match.start], language, normalize, unsupported))
            pieces.append(said_for(match.entry))
            if match.entry not in entries:
                entries.append(match.entry)
            last = match.end
        pieces.append(_normalised(span.text[last:], language, normalize, unsupported))
        spans.append(Span("text", "".join(pieces), span.value, span.column))
    return SpokenLine(spans, entries, list(dict.fromkeys(unsupported)))


def sent_token_errors(script: Script, line: Line, spoken: SpokenLine | None = None) -> list[ScriptError]:
    """The model tokens the line's text holds once its lexicon entries, number rules and markup
    clean-up have run (`direction.sent_text_errors`), located at the line; [] for a clean line.
    `spoken`: the line's `spoken_line`, when already made."""
    spoken = spoken or spoken_line(script, line)
    return sent_text_errors(render_spans(spoken.spans, 0, lambda name: 0, line.notes), line.position)


def script_token_errors(script: Script) -> list[ScriptError]:
    """`sent_token_errors` of every line of `script` that could form a model token, in script
    order. A token needs a `|`, which no lexicon respelling and no number rule writes, so a line
    whose text and notes hold none is skipped (most lines: `check` stays fast)."""
    return [err for line in script.lines() if "|" in line.text or any("|" in n for n in line.notes)
            for err in sent_token_errors(script, line)]


def said_for(entry: LexiconEntry) -> str:
    """What an entry puts in the text: its respelling, or its phonemes between the phoneme tokens."""
    if entry.respelling is not None:
        return entry.respelling
    return f"{STRINGS['phoneme_start']}{entry.phonemes}{STRINGS['phoneme_end']}"


def _normalised(text: str, language: str, normalize: bool, unsupported: list[str]) -> str:
    if not normalize or not re.search(r"\d", text):
        return text
    if language not in LANGUAGES:
        unsupported.append(language)
        return text
    return normalise_text(text, language)


def unsupported_notice(language: str) -> str:
    """The one-time notice for numbers in a language without rules."""
    return (f"numbers in {language} lines are sent as written: number and symbol rules cover "
            f"{', '.join(LANGUAGES)}")
