"""Number expressions of a text found whole, and each said or left exactly as written.

The text is cut at white space into words. Each word holding a digit (or a fraction sign, or a
currency or number mark before a number) starts an expression: the word with the one or two
words after it, then the word alone, is matched against the language's forms (`forms.forms`),
longest first, so `$5 million`, `10:00:00 p.m.`, `24:00 Uhr` and `22 h 30` are one expression
each. Quotes and brackets around it and the punctuation after it are not part of it; a final
`.` is when a form needs it (`3.` before a German noun, `p.m.`). A word with a digit that no
form takes whole is left as written, with the reason, never half said.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from drama_cli.compile.numbers.forms import forms
from drama_cli.compile.numbers.grammar import french_elision
from drama_cli.compile.numbers.rules import VULGAR_FRACTIONS
from drama_cli.compile.numbers.words import LEFT_AS_WRITTEN, Context, Words

_WORD = re.compile(r"\S+")
_OPENERS = "([{\"'“‘„«¿¡"
_CLOSERS = ")]}\"'”’»,;:!?…"
_NUMERIC = re.compile(rf"\d|[{''.join(VULGAR_FRACTIONS)}]")
_COMPOUND = re.compile(r"(.*\d[^-]*)-([^\W\d](?:[^\W\d]|-)*)")  # no digit after the hyphen
_PAIR = re.compile(r"([^-–]*\d[^-–]*)[-–]([^-–]*\d[^-–]*)")
_GROUP = re.compile(r"\d{3}")
# Letters written raised after an ordinal (`1ᵉʳ`, `2ᵉ`, `1ʳᵉ`, `1.ᵒ`), read as the plain letters;
# one character for one, so positions in the text stay as they are.
_SUPERSCRIPT = str.maketrans("ᵃᵈᵉʰᵐⁿᵒʳˢᵗ", "adehmnorst")
_EXTRA_WORDS = 2  # words after the first that one expression may take
# Digit groups after a space that may continue one number (`1 000 000 000 000`); a longer run of
# three-digit words is a table of numbers, each read on its own.
_MAX_GROUPS = 4
_ELIDED = {"fr": re.compile(r"(?:[dlDL]|[Qq]u|[Jj]usqu)['’](?=\d)")}


@dataclass(frozen=True)
class Expression:
    """One number expression of a text.

    start, end: its place in the text (characters). written: the text there. said: its words,
    or None when it is left as written. form: the form that said it ("time", "amount", …), or
    "unknown". why: for one left as written, the reason.
    """

    start: int
    end: int
    written: str
    said: str | None
    form: str
    why: str = ""


class Recogniser:
    """The number expressions of one language (`expressions`)."""

    def __init__(self, words: Words):
        self.words = words
        self.forms = forms(words.language, words.rules)
        rules = words.rules
        signs = ["+", "-", "−"] if words.language == "fr" else []  # `+ 3,7 %`
        self.starters = frozenset(list(rules.currencies) + list(rules.number_marks) + signs)

    def expressions(self, text: str) -> list[Expression]:
        """Every number expression of `text`, in order, none overlapping."""
        tokens = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        runs, table = _group_runs(text, tokens)
        found: list[Expression] = []
        i = 0
        while i < len(tokens):
            if not self._starts(text, tokens, i):
                i += 1
                continue
            if table[i]:  # one number of a table: never joined to the next group
                groups = -1 if i + 1 < len(tokens) and table[i + 1] else 0
            else:
                groups = runs[i + 1] if i + 1 < len(tokens) else 0
            expression, used = self._expression(text, tokens, i, groups)
            if expression is not None:
                found.append(self._elided(text, expression, found[-1].end if found else 0))
            i += used
        return found

    def _elided(self, text: str, expression: Expression, free_from: int) -> Expression:
        """French `de 1,5 %`, `plus que 1`: `de`/`que` before a number said from "un"/"une"
        elide as they do in speech ("d'un virgule cinq pour cent"); the expression then starts
        at that word."""
        if self.words.language != "fr" or expression.said is None:
            return expression
        before = french_elision(text[free_from : expression.start], expression.said)
        if before is None:
            return expression
        start, said = free_from + before[0], before[1] + expression.said
        return Expression(
            start,
            expression.end,
            text[start : expression.end],
            said,
            expression.form,
            expression.why,
        )

    def _starts(self, text: str, tokens, i: int) -> bool:
        word = text[tokens[i][0] : tokens[i][1]]
        if _NUMERIC.search(word):
            return True
        bare = word.strip(_OPENERS)
        return (
            bare in self.starters
            and i + 1 < len(tokens)
            and bool(re.match(r"\d", text[tokens[i + 1][0] : tokens[i + 1][1]]))
        )

    def _expression(self, text: str, tokens, i: int, groups: int) -> tuple[Expression | None, int]:
        """The expression starting at word `i` and how many words it takes. `groups`: how many
        three-digit words after it may be groups of the same number; -1 when the next word is
        another number of a table, so the expression is this word alone."""
        start = tokens[i][0]
        word = text[start : tokens[i][1]]
        lead = len(word) - len(word.lstrip(_OPENERS))
        if lead and word[lead - 1] in "'’" and re.match(r"\d0s\b", word[lead:]):
            lead -= 1  # `'90s`
        elided = _ELIDED.get(self.words.language)
        article = elided.match(word) if elided else None
        if article:
            lead = article.end()  # French `d'1 %`: the number after the article
        start += lead
        if groups < 0:
            limit = 0
        elif i + 1 < len(tokens) and text[tokens[i + 1][0] : tokens[i + 1][1]] in ("x", "×", "ft"):
            limit = _EXTRA_WORDS + groups + 1  # `2 x 8 cm`: the sign; `6 ft 2 in`: feet, inches
        else:
            limit = _EXTRA_WORDS + groups  # `1 000 000 000`: groups are words of one number
        for extra in range(min(limit, len(tokens) - 1 - i), -1, -1):
            if any(_trail(text[a:b]) for a, b in tokens[i : i + extra]):
                continue  # punctuation inside: not one expression
            end = tokens[i + extra][1] - len(
                _trail(text[tokens[i + extra][0] : tokens[i + extra][1]])
            )
            if end <= start:
                continue
            for stop in _stops(text, end):
                context = self._context(text, tokens, i, i + extra, stop)
                said = self._say(text[start:stop], context)
                if said is not None:
                    if said[1].endswith(".") and text[stop : stop + 1] == ".":
                        stop += 1  # `pm.` ending a sentence: said "p.m." ends it
                    elif (
                        text[stop - 1] == "."
                        and not said[1].endswith(".")
                        and not text[stop:].strip()
                    ):
                        said = (
                            said[0],
                            said[1] + ".",
                        )  # `10 Min.` ending the text: the dot ends it too
                    return Expression(start, stop, text[start:stop], said[1], said[0]), extra + 1
                compound = _COMPOUND.fullmatch(text, start, stop) if extra else None
                if compound:  # `5 1/2-inch`: the whole number and the fraction are one number
                    expression = self._compound(text, compound, Context(context.before))
                    if expression is not None:
                        return expression, extra + 1
        end = tokens[i][1] - len(_trail(word))
        end -= 1 if end > start and text[end - 1] == "." else 0
        if end <= start or not re.search(r"\d", text[start:end]):
            return None, 1
        if _foot_mark(text, end):
            end += 1
            return Expression(
                start, end, text[start:end], None, "unknown", self._why(text[start:end])
            ), 1
        pair = self._pair(text[start:end], self._context(text, tokens, i, i, end))
        if pair is not None:
            end += 1 if pair.endswith(".") and text[end : end + 1] == "." else 0
            return Expression(start, end, text[start:end], pair, "range"), 1
        compound = _COMPOUND.fullmatch(text, start, end)
        if compound:  # `19th-century`, `9-inch`: the number said, the word after the hyphen kept
            expression = self._compound(
                text, compound, Context(self._context(text, tokens, i, i, end).before)
            )
            if expression is not None:
                return expression, 1
        return Expression(
            start, end, text[start:end], None, "unknown", self._why(text[start:end])
        ), 1

    def _compound(self, text: str, compound: re.Match, context: Context) -> Expression | None:
        """`a 500-rupee note`: the number's words joined by hyphens ("five-hundred-rupee"); in
        German a lower-case word after the hyphen is one word with the number (`20-jährige` →
        "zwanzigjährige"), a capitalised one keeps the hyphen (`1:1-Ausgleich` →
        "eins-zu-eins-Ausgleich")."""
        start, number = compound.start(), compound.group(1)
        said = self._say(number, context)
        if said is None:
            return None
        words = said[1]
        if self.words.language in ("en", "de") and not re.search(
            rf"\d{re.escape(self.words.rules.decimal)}\d", number
        ):
            words = words.replace(
                " ", "-"
            )  # a decimal keeps its spaces: "seven point one-magnitude"
        if self.words.language == "de" and compound.group(2)[0].islower():
            return Expression(
                start, compound.end(), compound.group(0), words + compound.group(2), said[0]
            )
        return Expression(start, start + len(number), number, words, said[0])

    def _why(self, written: str) -> str:
        """Why `written` is left as written."""
        if self.words.language == "en" and re.fullmatch(r"\d{1,2}/\d{1,2}(?:/\d{4})?", written):
            return "day and month could be either way round: give the language as en-US or en-GB"
        return "no number form of the language takes it whole"

    def _pair(self, written: str, context: Context) -> str | None:
        """`9am-5pm`, `$5-$10`: two expressions that each carry a unit, a meridiem or a currency,
        joined by a dash, said as a range."""
        match = _PAIR.fullmatch(written)
        if match is None:
            return None
        first = self._say(match.group(1), Context(context.before))
        second = self._say(match.group(2), Context([], context.noun))
        if first is None or second is None or {first[0], second[0]} & {"number", "digits"}:
            return None
        return f"{first[1]} {self.words.rules.range_word} {second[1]}"

    def _say(self, candidate: str, context: Context) -> tuple[str, str] | None:
        candidate = candidate.translate(_SUPERSCRIPT)  # `1ᵉʳ`, `2ᵉ`, `1.ᵉʳ`: as `1er`, `2e`
        for name, pattern, say in self.forms:
            match = pattern.fullmatch(candidate)
            if match is None:
                continue
            try:
                said = say(match, self.words, context)
            except OverflowError:  # beyond the largest number `num2words` names
                return None
            if said == LEFT_AS_WRITTEN:
                return None
            if said is not None:
                return name, said
        return None

    def _context(self, text: str, tokens, first: int, last: int, stop: int) -> Context:
        before = [_bare(text[a:b]).lower() for a, b in tokens[max(0, first - 4) : first]]
        noun = after = ""
        after_end = tokens[last][1]
        if stop == after_end and last + 1 < len(tokens):
            a, b = tokens[last + 1]
            noun = _bare(text[a:b])
            if last + 2 < len(tokens) and not _trail(text[a:b]):
                after = _bare(text[slice(*tokens[last + 2])])
        return Context(before, noun, after)


def _group_runs(text: str, tokens) -> tuple[list[int], list[bool]]:
    """For each word, how many three-digit words follow from it on (at most `_MAX_GROUPS` + 1),
    and whether it belongs to a table: a run of more three-digit words than one number's groups,
    with the number before the run. One pass from the end: linear in the number of words."""
    count = len(tokens)
    runs = [0] * (count + 1)
    for j in range(count - 1, -1, -1):
        if _GROUP.fullmatch(text, *tokens[j]):
            runs[j] = min(runs[j + 1] + 1, _MAX_GROUPS + 2)
    table = [False] * (count + 1)
    j = 0
    while j < count:
        if not runs[j]:
            j += 1
            continue
        end = j
        while end < count and runs[end]:
            end += 1
        leader = j > 0 and bool(_NUMERIC.search(text, *tokens[j - 1]))
        if end - j + leader > _MAX_GROUPS + 1:
            for k in range(j - leader, end):
                table[k] = True
        j = end
    return runs, table


def _stops(text: str, end: int) -> tuple[int, ...]:
    """Where an expression ending at `end` (closing punctuation left out) may stop: one further
    for an inch mark (`5'11"`) or only there for a foot mark (`6'`: said with it or not at all),
    one shorter without a final dot."""
    if _foot_mark(text, end):
        return (end + 1,)
    if end < len(text) and text[end] in '"″”':
        return end + 1, end
    return (end, end - 1) if text[end - 1] == "." else (end,)


def _foot_mark(text: str, end: int) -> bool:
    """Whether the mark at `end`, right after a digit, is a foot mark (`6' wide`) rather than a
    quote closing one opened before it (`'give me 5'`)."""
    if end >= len(text) or not text[end - 1].isdigit() or text[end] not in "'’′":
        return False
    if text[end] == "′":
        return True
    opened = _opening_quotes(text)
    return bisect.bisect_left(opened, end) % 2 == 0


@functools.lru_cache(maxsize=8)
def _opening_quotes(text: str) -> list[int]:
    """Where `text` opens a single quote (at its start or after white space), in order; found
    once per text so that many foot marks in one line stay linear."""
    return [m.start() for m in re.finditer(r"(?:^|(?<=\s))['‘]", text)]


def _trail(word: str) -> str:
    """The closing punctuation at the end of a word, with a full stop after a bracket or quote
    (`(gas 5).`, `(7e).`); a dot right after the number stays (`3.`, `p.m.`)."""
    core = word.rstrip(_CLOSERS)
    if len(core) > 1 and core.endswith(".") and core[-2] in _CLOSERS:
        core = core[:-1].rstrip(_CLOSERS)
    return word[len(core) :]


def _bare(word: str) -> str:
    return word.strip(_OPENERS + _CLOSERS + ".")
