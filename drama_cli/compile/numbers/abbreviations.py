"""Abbreviations and Roman numerals said in full, per language.

Titles (`Dr.`, `Mrs`, `Mme`, `Sra.`) are said before a name; `St.` is Saint before a capitalised
name and Street after one; `e.g.`, `etc.`, `z. B.`, `usw.` anywhere. An abbreviation whose dot
also ends the sentence keeps a full stop after its words. Roman numerals are read after a word
that numbers a part (`Act II` → "Act Two") and after a regnal name (`Henry VIII` → "Henry the
Eighth", in French `Louis XIV` → "Louis quatorze"; the names are those of a list of the commonest
regnal names, so `Rocky II` is left alone).
"""

from __future__ import annotations

import functools
import re

from drama_cli.compile.numbers.english import ABBREVIATED_MONTHS
from drama_cli.compile.numbers.grammar import german_case, german_sentence_start
from drama_cli.compile.numbers.recognise import Expression
from drama_cli.script.spoken import number_words

_TITLES = {
    "en": {
        "Dr.": "Doctor",
        "Dr": "Doctor",
        "Mr.": "Mister",
        "Mr": "Mister",
        "Mrs.": "Missus",
        "Mrs": "Missus",
        "Ms.": "Miz",
        "Prof.": "Professor",
        "Capt.": "Captain",
        "Lt.": "Lieutenant",
        "Sgt.": "Sergeant",
        "Col.": "Colonel",
        "Gen.": "General",
        "Cpl.": "Corporal",
        "Det.": "Detective",
        "Insp.": "Inspector",
        "Rev.": "Reverend",
        "Mt.": "Mount",
    },
    "de": {"Dr.": "Doktor", "Prof.": "Professor", "Hr.": "Herr", "Fr.": "Frau"},
    "fr": {
        "M.": "Monsieur",
        "Mme": "Madame",
        "Mmes": "Mesdames",
        "Mlle": "Mademoiselle",
        "MM.": "Messieurs",
        "Dr": "Docteur",
        "Dr.": "Docteur",
        "Pr": "Professeur",
    },
    "es": {
        "Sr.": "señor",
        "Sra.": "señora",
        "Srta.": "señorita",
        "Dr.": "doctor",
        "Dra.": "doctora",
        "D.": "don",
        "Dña.": "doña",
    },
}
_ANYWHERE = {
    "en": {
        "e.g.": "for example",
        "i.e.": "that is",
        "etc.": "et cetera",
        "vs.": "versus",
        "vs": "versus",
        "approx.": "approximately",
        "incl.": "including",
        "excl.": "excluding",
        "Ref.": "Reference",
        "ref.": "reference",
    },
    "de": {
        "z. B.": "zum Beispiel",
        "z.B.": "zum Beispiel",
        "usw.": "und so weiter",
        "bzw.": "beziehungsweise",
        "d. h.": "das heißt",
        "d.h.": "das heißt",
        "ca.": "circa",
        "MwSt.": "Mehrwertsteuer",
        "inkl.": "inklusive",
        "zzgl.": "zuzüglich",
        "exkl.": "exklusive",
        "Str.": "Straße",
        "Nr.": "Nummer",
    },
    "fr": {
        "etc.": "et cetera",
        "p. ex.": "par exemple",
        "c.-à-d.": "c'est-à-dire",
        "av.": "avenue",
        "bd": "boulevard",
        "n°": "numéro",
        "Réf.": "Référence",
        "réf.": "référence",
        "HT": "hors taxes",
    },
    "es": {
        "etc.": "etcétera",
        "Ud.": "usted",
        "Uds.": "ustedes",
        "p. ej.": "por ejemplo",
        "núm.": "número",
        "pág.": "página",
        "Avda.": "avenida",
        "c/": "calle",
        "aprox.": "aproximadamente",
    },
}
_PART_WORDS = {
    "en": "Act Chapter Part Book Scene Volume Section Round Level World War Episode Season Article Canto",
    "de": "Akt Kapitel Teil Band Szene Buch Abschnitt Folge Staffel Artikel",
    "fr": "Acte Chapitre Partie Tome Scène Livre Volume Épisode Saison Article",
    "es": "Acto Capítulo Parte Tomo Escena Libro Volumen siglo Siglo Episodio Temporada Artículo",
}
_CAN_END = frozenset("etc. usw. etcétera. approx. ca. aprox.".split())
_REGNAL_NAMES = frozenset(
    "Henry Edward George William Richard James Charles Elizabeth Mary John Stephen Anne Victoria Louis Philip "
    "Pius Benedict Gregory Leo Innocent Clement Paul Urban Boniface Alexander Nicholas Peter Catherine Ivan "
    "Frederick Ferdinand Alfonso Carlos Felipe Enrique Luis Fernando Juan Pedro Isabel Heinrich Friedrich "
    "Wilhelm Karl Ludwig Otto Philipp Franz Leopold Rudolf Albrecht Maximilian Henri François Jean Philippe "
    "Napoléon Napoleon Charlemagne Gustav Gustavus Olaf Christian Frederik Haakon Harald Magnus Victor Umberto "
    "Vittorio Ramesses Ptolemy Constantine Justinian Sancho Jaime Jacques Guillaume Robert David "
    "Kenneth Duncan Alexandre Nicolas Pierre Carol Sigismund Casimir Ladislaus Wenceslaus Béla Andrew "
    "Andreas Georg Johann Joseph Josef Jorge Manuel Sebastián Sebastian Baudouin Albert Ludovico".split()
)
_ROMANCE_REGNAL_NAMES = frozenset(
    "Adrien Grégoire Benoît Léon Pie Clément Innocent Urbain Sixte Célestin Alphonse Édouard Frédéric Gustave "
    "Amédée Ramiro Gregorio Benedicto León Pío Clemente Inocencio Urbano Pablo Sixto Ordoño Bermudo".split()
)
_ROMAN = re.compile(r"(?=[MDCLXVI])M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def abbreviations(text: str, language: str) -> list[Expression]:
    """Every abbreviation and read Roman numeral of `text`, said, in order."""
    found = [
        *_abbreviated(text, language),
        *_street_suffix(text, language),
        *_roman(text, language),
        *_french_roman_ordinal(text, language),
        *_spoons(text, language),
        *_month_before_day(text, language),
        *_degree_scale(text, language),
    ]
    found.sort(key=lambda e: e.start)
    result: list[Expression] = []
    for expression in found:
        if not result or expression.start >= result[-1].end:
            result.append(expression)
    return result


_WINDOW = 120  # characters before an abbreviation that decide how it is said


def _before(text: str, start: int) -> str:
    """The text just before `start` (at most `_WINDOW` characters): looking back no further
    keeps a line of many abbreviations linear in its length."""
    return text[max(0, start - _WINDOW) : start]


def _sentence_start(text: str, start: int) -> bool:
    """Whether `start` begins the text or a sentence (after `.`, `!`, `?`, `¿`, `¡`)."""
    before = _before(text, start).rstrip()
    if not before:
        return start <= _WINDOW or not text[:start].strip()
    return before[-1] in ".!?¿¡"


@functools.cache
def _table(language: str) -> tuple[dict[str, str], re.Pattern]:
    """The abbreviations of `language` (`St.` said by `_saint_or_street`) and their pattern."""
    table = _TITLES.get(language, {}) | _ANYWHERE.get(language, {})
    if language == "en":
        table = table | {"St.": "", "St": ""}
    pattern = re.compile(
        r"(?<![\w.])(?:"
        + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
        + r")(?![\w])"
    )
    return table, pattern


def _abbreviated(text: str, language: str):
    titles = _TITLES.get(language, {})
    table, pattern = _table(language)
    for match in pattern.finditer(text):
        written = match.group()
        after = text[match.end() :]
        if written in titles and not re.match(
            r"\s+(?:[A-ZÀ-Ý]|(?:and|&|und|et|y|de|del)\s+[A-ZÀ-Ý]|d['’][A-ZÀ-Ý])", after
        ):
            continue  # a title stands before a name
        said = table[written] or _saint_or_street(text, match)
        if written[0].isupper() and _sentence_start(text, match.start()):
            said = said[0].upper() + said[1:]  # a sentence's first word
        if (
            written.endswith(".")
            and written not in titles
            and (not after.strip() or (written in _CAN_END and re.match(r"\s+[A-ZÀ-Ý]", after)))
        ):
            said += "."
        yield Expression(match.start(), match.end(), written, said, "abbreviation")


def _street_suffix(text: str, language: str):
    """German `Hauptstr.`, `Bestellnr.`: a compound's abbreviated end."""
    if language != "de":
        return
    for match in re.finditer(r"(?<=\w)(str|nr)\.", text):
        said = {"str": "straße", "nr": "nummer"}[match.group(1)] + (
            "." if not text[match.end() :].strip() else ""
        )
        yield Expression(match.start(), match.end(), match.group(), said, "abbreviation")


_SPOON = re.compile(r"(?<![\w.])c\.\s?à\.?\s?(soupe|café|s\.|c\.)(?!\w)")


def _spoons(text: str, language: str):
    """French recipe spoons `c. à soupe`, `c. à s.`, `c. à café`, `c. à c.`: "cuillère(s) à
    soupe/café", plural after a count of two or more (the count itself agrees with the feminine
    "cuillère" through the noun list)."""
    if language != "fr":
        return
    for match in _SPOON.finditer(text):
        kind = "soupe" if match.group(1) in ("soupe", "s.") else "café"
        count = re.search(r"(\d+)(?:[.,]\d+)?\s*$", _before(text, match.start()))
        spoon = "cuillères" if count and int(count.group(1)) >= 2 else "cuillère"
        said = f"{spoon} à {kind}" + (
            "." if match.group().endswith(".") and not text[match.end() :].strip() else ""
        )
        yield Expression(match.start(), match.end(), match.group(), said, "abbreviation")


def _month_before_day(text: str, language: str):
    """English `Dec 10`, `Aug. 8`, `Nov. 1980`, `13 Aug`: an abbreviated month name next to a day
    or before a year, said in full."""
    if language != "en":
        return
    names = "|".join(name.capitalize() for name in ABBREVIATED_MONTHS)
    before_number = rf"(?<![\w.])({names})\.?(?=\s+(?:\d{{1,2}}(?:st|nd|rd|th)?|\d{{4}})\b)"
    after_day = rf"(?:(?<=\d )|(?<=\d(?:st|nd|rd|th) ))({names})\b"
    for match in re.finditer(f"{before_number}|{after_day}", text):
        name = match.group(1) or match.group(2)
        said = ABBREVIATED_MONTHS[name.lower()]
        yield Expression(match.start(), match.end(), match.group(), said, "abbreviation")


def _degree_scale(text: str, language: str):
    """English `350 degrees F`, `175 degrees C`, German `220 Grad C`: the scale's name after the
    word for degrees."""
    degrees = {"en": "degrees", "de": "Grad"}.get(language)
    if degrees is None:
        return
    for match in re.finditer(rf"(?<=\b{degrees} )([CF])\b(?![.\w]\w)", text):
        said = "Celsius" if match.group(1) == "C" else "Fahrenheit"
        yield Expression(match.start(), match.end(), match.group(), said, "abbreviation")


def _saint_or_street(text: str, match: re.Match) -> str:
    """`St.` before a capitalised name that no capitalised word precedes is Saint, else Street."""
    before = _before(text, match.start()).rstrip()
    after_name = re.match(r"\s+[A-Z]", text[match.end() :])
    previous = re.search(r"(\w+)$", before)
    if after_name and not (
        previous and (previous.group(1)[0].isupper() or previous.group(1)[0].isdigit())
    ):
        return "Saint"
    return "Street"


def _roman(text: str, language: str):
    parts = {word.lower() for word in _PART_WORDS.get(language, "").split()}
    for match in re.finditer(r"(?<![\w.])([\wÀ-ÿ]+)\s+([MDCLXVI]+)(\.?)(?![\w])", text):
        word, numeral = match.group(1), match.group(2)
        if not _ROMAN.fullmatch(numeral):
            continue
        value = _roman_value(numeral)
        start = match.start(2)
        end = match.end(3) if language == "de" else match.end(2)
        if word.lower() in parts and (word[0].isupper() or word == "siglo") and value <= 50:
            # `Act III`, a heading in capitals `CHAPTER II.`, `KAPITEL IV`
            end = match.end(
                2
            )  # `Kapitel IV.`: a part's number is no ordinal; the dot ends the sentence
            said = number_words(value, language)
            said = said.capitalize() if language in ("en", "de") else said
        elif _regnal_name(word, language) and (
            numeral != "I" or language != "en" or word in ("Elizabeth", "Charles")
        ):
            said = _regnal(value, language, match.group(3), _case_before(text, match.start(), word))
            if said is None:
                continue
            following = text[end:].split()
            if (
                match.group(3)
                and end == match.end(3)
                and (not following or german_sentence_start(following[0]))
            ):
                said += "."  # `… Ludwig XIII.`: the numeral's dot also ends the sentence
        else:
            continue
        yield Expression(start, end, text[start:end], said, "roman numeral")


def _french_roman_ordinal(text: str, language: str):
    """French `XIXe siècle`, `IIIe République`: a Roman numeral with an ordinal ending."""
    if language != "fr":
        return
    for match in re.finditer(r"(?<![\w.])([MDCLXVI]+)(e|ème|er|re)(?![\w])", text):
        numeral = match.group(1)
        if not _ROMAN.fullmatch(numeral) or (len(numeral) == 1 and numeral not in "IVX"):
            continue  # `Le`, `De`, `Ce`, `Me` are words
        value = _roman_value(numeral)
        said = (
            ("première" if match.group(2) == "re" else "premier")
            if value == 1
            else number_words(value, language, "ordinal")
        )
        yield Expression(match.start(), match.end(), match.group(), said, "roman numeral")


def _regnal_name(word: str, language: str) -> bool:
    """A regnal name, in German also in the genitive (`Ludwigs XIV.`)."""
    if language in ("fr", "es") and word in _ROMANCE_REGNAL_NAMES:
        return True
    return word in _REGNAL_NAMES or (
        language == "de" and word.endswith("s") and word[:-1] in _REGNAL_NAMES
    )


def _case_before(text: str, start: int, name: str) -> str:
    """The German case of a regnal name: genitive for `Ludwigs`, else the case the words before
    it call for (`von Ludwig XIII.`, `von König Philipp IV.`: dative), a title between them
    left out."""
    if name.endswith("s") and name[:-1] in _REGNAL_NAMES:
        return "gen"
    words = [w.strip(".,;:!?()\"'„“").lower() for w in _before(text, start).split()]
    while words and words[-1] in _TITLES_OF_RULERS:
        words.pop()
    return german_case(words)


_TITLES_OF_RULERS = frozenset(
    "könig königin kaiser kaiserin papst herzog herzogin fürst kurfürst zar "
    "zarin prinz prinzessin graf markgraf franz karl".split()
)
_DE_REGNAL_ARTICLE = {"nom": "der", "acc": "den", "dat": "dem", "gen": "des"}


def _regnal(value: int, language: str, dot: str, case: str = "nom") -> str | None:
    """How a regnal number is said after a name: "the Eighth", "der Achte" (in German in the
    case of the name: "dem Achten", "des Achten"), "quatorze", "octavo"."""
    if value < 1 or value > 39:
        return None
    ordinal = number_words(value, language, "ordinal")
    if language == "en":
        return f"the {ordinal.capitalize()}"
    if language == "de":
        ending = "" if case == "nom" else "n"
        return f"{_DE_REGNAL_ARTICLE[case]} {ordinal.capitalize()}{ending}" if dot else None
    if language == "fr":
        return "premier" if value == 1 else number_words(value, language)
    return ordinal if value <= 10 else number_words(value, language)


def _roman_value(numeral: str) -> int:
    total = 0
    for char, following in zip(numeral, numeral[1:] + " ", strict=True):
        value = _ROMAN_VALUES[char]
        total += -value if following != " " and _ROMAN_VALUES[following] > value else value
    return total
