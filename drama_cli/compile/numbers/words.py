"""The words of one language for the parts of a number expression: cardinals that agree with the
noun after them, ordinals, years, decimals, digit strings, times, dates, fractions and amounts.

Cardinals, ordinals and years come from `num2words` (through `drama_cli.script.spoken.number_words`);
the agreement is `grammar`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from drama_cli.compile.numbers import grammar
from drama_cli.compile.numbers.nouns import STREET_WORDS, noun_gender
from drama_cli.compile.numbers.rules import LANGUAGES, LanguageRules
from drama_cli.script.spoken import number_words

# A half after a whole number or a scale word ("three and a half", "un million et demi").
AND_A_HALF = {"en": "and a half", "de": "einhalb", "fr": "et demi", "es": "y medio"}


@dataclass
class Context:
    """The words around an expression: `before`, the words before it (lower case, punctuation
    stripped, nearest last); `noun`, the word right after it as written ('' at the end);
    `after`, the word after that one ('' where punctuation or the end comes first)."""

    before: list[str] = field(default_factory=list)
    noun: str = ""
    after: str = ""


# What a form returns for text it knows but cannot say (`on 3/4` in plain `en`): no other form
# may read it, so it is left exactly as written.
LEFT_AS_WRITTEN = "\x00left as written"

_NOT_DIGIT = re.compile(r"\D")


def written_whole(match: re.Match, name: str = "") -> int | None:
    """The whole part of a number form's match (group `int` + `name`), separators dropped
    (`1,000` -> 1000); None when not written."""
    whole = match.group(f"int{name}")
    return None if whole is None else int(_NOT_DIGIT.sub("", whole))


class Words:
    """Says numbers in one language (`LANGUAGES[language]`); `month_first` reads `3/2/2003` as
    March 2 (en-US), otherwise day first."""

    def __init__(self, language: str, month_first: bool | None = False):
        self.language = language
        self.rules: LanguageRules = LANGUAGES[language]
        self.month_first = month_first

    def gender(self, word: str) -> str | None:
        """The gender of `word` as a noun, or None."""
        return noun_gender(word, self.language)

    def cardinal(
        self, value: int, gender: str | None = None, context: Context | None = None
    ) -> str:
        """`value` in words, agreeing with a noun of `gender` (German also with the case the
        words before call for; only `1` changes there)."""
        if value < 0:
            return f"{self.rules.minus} {self.cardinal(-value, gender, context)}"
        said = number_words(value, self.language)
        if gender is None:
            return said
        if self.language == "de":
            return (
                grammar.german_one(context.before if context else [], gender)
                if value == 1
                else said
            )
        if self.language == "es":
            return grammar.spanish_gender(said, gender)
        if self.language == "fr":
            return grammar.french_gender(said, gender)
        return said

    def counted(self, value: int, context: Context) -> str:
        """A cardinal before the context's noun, agreeing with it when its gender is known; in
        German `1` before any capitalised word, or before an adjective and a noun (`1 großes
        Ei`), is the article (`ein`), not the numeral `eins`."""
        gender = self.gender(context.noun) if context.noun else None
        if context.noun.lower() in STREET_WORDS.get(self.language, ()):
            gender = None  # a house number
        if (
            self.language == "de"
            and value == 1
            and context.before
            and context.before[-1] in grammar.DE_LABELS
        ):
            return number_words(value, "de")  # `Nummer 1 Novak Djokovic`: a label, "eins"
        if (
            self.language == "de"
            and value == 1
            and context.noun[:1].islower()
            and context.after[:1].isupper()
        ):
            gender = self.gender(context.after) or grammar.german_adjective_gender(
                context.noun, grammar.german_case(context.before)
            )
        if gender is None and self.language == "de" and value == 1 and context.noun[:1].isupper():
            gender = "n"
        if (
            gender is None
            and self.language == "es"
            and value == 1
            and context.before[-1:] == ["la"]
        ):
            gender = "f"  # `desde la 1 de la tarde`: the hour, "la una"
        return self.cardinal(value, gender, context)

    def ordinal(
        self,
        value: int,
        gender: str | None = None,
        context: Context | None = None,
        before_noun: bool = False,
    ) -> str:
        """`value` as an ordinal agreeing with its noun (`gender`) and, in German, the case."""
        said = number_words(value, self.language, "ordinal")
        if self.language == "de":
            return grammar.german_ordinal(said, context.before if context else [], gender)
        if self.language == "es":
            return grammar.spanish_ordinal(said, gender, before_noun)
        if self.language == "fr" and gender == "f" and value == 1:
            return "première"
        return said

    def year(self, value: int) -> str:
        """A year: "nineteen eighty-four", "neunzehnhundertvierundachtzig"."""
        return number_words(value, self.language, "year")

    def digits(self, text: str) -> str:
        """Each digit said on its own ("zero zero seven"); other characters are gaps."""
        return " ".join(number_words(int(c), self.language) for c in text if c.isdigit())

    def decimal(
        self,
        whole: int | None,
        frac: str | None,
        gender: str | None = None,
        context: Context | None = None,
    ) -> str:
        """A number with a decimal part: the whole part (`None` for `.5`), the mark's word and
        each digit after it."""
        said = "" if whole is None else self.cardinal(whole, gender if not frac else None, context)
        if frac:
            said = f"{said} {self.rules.point} {self.decimals(frac)}".strip()
        return said

    def decimals(self, frac: str) -> str:
        """The digits after the decimal mark: French and Spanish say up to three of them as one
        number after their zeros ("virgule zéro cinq", "coma cincuenta y seis"), as newsreaders
        do; longer runs and other languages digit by digit."""
        rest = frac.lstrip("0")
        if self.language not in ("fr", "es") or len(frac) > 3 or not rest:
            return self.digits(frac)
        return " ".join([self.digits("0")] * (len(frac) - len(rest)) + [self.cardinal(int(rest))])

    def noun_form(self, value: int, frac: str | None, singular: str, plural: str) -> str:
        """The singular for exactly one, the plural otherwise."""
        return singular if value == 1 and not frac else plural

    def fraction(self, numerator: int, denominator: int) -> str | None:
        """`3/5` in words ("three fifths"), or None where the language has no form here."""
        names = self.rules.fraction_names
        if denominator in names:
            name = names[denominator][0 if numerator == 1 else 1]
        elif self.language == "es" or denominator < 2:
            return None
        else:
            ordinal = number_words(denominator, self.language, "ordinal")
            name = (
                ordinal[:-1].capitalize() + "el"
                if self.language == "de"
                else ordinal
                if numerator == 1
                else ordinal + "s"
            )
        if self.language == "de" and denominator == 2 and numerator != 1:
            name = "Halbe"
        one = {"en": "one", "de": "ein", "fr": "un", "es": "un"}[self.language]
        return f"{one if numerator == 1 else self.cardinal(numerator)} {name}"

    def mixed(self, whole: int, numerator: int, denominator: int) -> str | None:
        """`3 3/5` ("three and three fifths"); a half after a whole number as the language says it
        ("three and a half", "dreieinhalb", "trois et demi", "tres y medio")."""
        if (numerator, denominator) == (1, 2):
            half, whole_said = AND_A_HALF[self.language], self.cardinal(whole)
            if self.language == "de":  # `1 ½`: "eineinhalb", not "einseinhalb"
                return (
                    whole_said.removesuffix("s") if whole_said.endswith("eins") else whole_said
                ) + half
            return f"{whole_said} {half}"
        part = self.fraction(numerator, denominator)
        if part is not None and self.language == "en" and numerator == 1:
            part = "a" + part.removeprefix("one")  # "two and a quarter"
        return None if part is None else f"{self.cardinal(whole)} {self.rules.and_word} {part}"

    def measured(
        self, whole: int, numerator: int, denominator: int, noun: str, gender: str | None
    ) -> str | None:
        """A fraction before the noun it measures, in French or Spanish word order: `1/2 taza` →
        "media taza", `2 1/2 tazas` → "dos tazas y media", `3½ tasses` → "trois tasses et demie",
        `1/2 sachet` → "un demi-sachet", `1/4 litre` → "un quart de litre". `whole` is 0 when
        there is none; None for another language or a fraction without a name."""
        if self.language not in ("fr", "es"):
            return None
        feminine = gender == "f"
        if (numerator, denominator) == (1, 2):
            half = {"fr": ("demie", "demi"), "es": ("media", "medio")}[self.language][
                0 if feminine else 1
            ]
            if whole:
                return f"{self.cardinal(whole, gender)} {noun} {self.rules.and_word} {half}"
            if self.language == "fr":
                return f"{'une' if feminine else 'un'} demi-{noun}"
            return f"{half} {noun}"
        part = self.fraction(numerator, denominator)
        if part is None:
            return None
        if whole:
            return f"{self.cardinal(whole, gender)} {noun} {self.rules.and_word} {part}"
        of = "d'" if self.language == "fr" and noun[:1].lower() in "aeiouéèêh" else "de "
        return f"{part} {of}{noun}"

    def month(self, number: int) -> str:
        """The name of month `number` (1-12)."""
        return self.rules.months[number - 1]

    def date(
        self, day: int, month: int, year: int | None, context: Context, month_first: bool = False
    ) -> str:
        """A date in the language's spoken order; English says the month first when
        `month_first` (as en-US writes it)."""
        name = self.month(month)
        year_said = f" {self.year(year)}" if year is not None else ""
        if self.language == "en":
            if month_first:
                return f"{name} {self.ordinal(day)}{year_said}"
            lead = "" if context.before and context.before[-1] == "the" else "the "
            return f"{lead}{self.ordinal(day)} of {name}{year_said}"
        if self.language == "de":
            return f"{self.ordinal(day, 'm', context)} {name}{year_said}"
        if self.language == "fr":
            return f"{'premier' if day == 1 else self.cardinal(day)} {name}{year_said}"
        return f"{self.cardinal(day)} de {name}" + (f" de{year_said}" if year_said else "")
