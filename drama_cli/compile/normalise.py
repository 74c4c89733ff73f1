"""Words as the listener hears them: a line's text spans after the pronunciation lexicon and the
number, date and abbreviation rules of the span's language (docs/guide/pronunciation.md).

Run on text spans only, so tags, notes and `{NAME}` switches are never touched; the words a
lexicon entry puts in are never normalised. A lexicon entry with phonemes becomes
`<|phoneme_start|>…<|phoneme_end|>` (the strings of `engine.layouts.STRINGS`; the engine allows
the pair only in the text a turn voices).

The language of a span is its voice's `lang:`, else the script's `language:`, else the one its
writing system shows, else English (`drama_cli.script.lexicon.text_language`). Number
expressions are found whole and said, or left as written (`drama_cli.compile.numbers`);
English, German, French and Spanish are covered; text in another language is sent as written,
and the compiler says so once.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace

from drama_cli.compile.numbers.abbreviations import abbreviations
from drama_cli.compile.numbers.recognise import Expression, Recogniser
from drama_cli.compile.numbers.rules import LANGUAGES
from drama_cli.compile.numbers.words import Words
from drama_cli.errors import ScriptError
from drama_cli.script.direction import render_spans, sent_text_errors, without_cues
from drama_cli.script.document import Line, Script, Span
from drama_cli.script.lexicon import (
    LexiconEntry,
    language_code,
    line_matches,
    text_language,
)
from engine.layouts import STRINGS


class Normaliser:
    """Number expressions and abbreviations of one language's text turned into words.

    language: a code with rules (`LANGUAGES`); month_first: how `3/2/2003` reads (True for
    en-US, False for day first, None when only an unambiguous date is read).
    """

    def __init__(self, language: str, month_first: bool | None = False):
        self.language = language
        self.recogniser = Recogniser(Words(language, month_first))

    def expressions(self, text: str) -> list[Expression]:
        """The number expressions and abbreviations of `text` in order, each said or left as
        written (`Expression.said` None)."""
        numbers = self.recogniser.expressions(text)
        starts = [e.start for e in numbers]  # in order, none overlapping
        words = []
        for e in abbreviations(text, self.language):
            k = bisect.bisect_left(starts, e.end)  # the numbers starting before it ends
            if k == 0 or numbers[k - 1].end <= e.start:
                words.append(e)
        return sorted(numbers + words, key=lambda e: e.start)

    def __call__(self, text: str) -> str:
        return "".join(said for _, _, said in self.pieces(text))

    def pieces(self, text: str) -> list[tuple[int, int, str]]:
        """`text` cut into (start, end, said) pieces that cover it in order: text kept as written
        is its own piece, and each expression said is one piece with its words, so a word of
        the said text maps back to where it is written."""
        result: list[tuple[int, int, str]] = []
        last = 0
        for expression in self.expressions(text):
            if expression.said is None:
                continue
            if expression.start > last:
                result.append((last, expression.start, text[last : expression.start]))
            result.append((expression.start, expression.end, expression.said))
            last = expression.end
        if last < len(text):
            result.append((last, len(text), text[last:]))
        return result


_NORMALISERS: dict[tuple[str, bool | None], Normaliser] = {}


def month_first(label: str) -> bool | None:
    """How a language label reads `3/2/2003`: True (month first) for en-US, None for plain `en`
    (only unambiguous dates), False (day first) for every other label."""
    label = label.strip().lower().replace("_", "-")
    if label in ("en-us", "en-ph"):
        return True
    return None if language_code(label) == "en" and "-" not in label else False


def normaliser(language: str) -> Normaliser | None:
    """The normaliser of a language label (`en`, `en-GB`, `German`), or None for a language
    without rules (text sent as written)."""
    code = language_code(language) or "en"
    if code not in LANGUAGES:
        return None
    key = (code, month_first(language))
    if key not in _NORMALISERS:
        _NORMALISERS[key] = Normaliser(*key)
    return _NORMALISERS[key]


def normalise_text(text: str, language: str) -> str:
    """Numbers, dates and abbreviations of `text` in words of `language` (a label such as `en`,
    `en-US`, `de`); unchanged for languages without rules."""
    said = normaliser(language)
    return said(text) if said else text


def normalised_pieces(text: str, language: str) -> list[tuple[int, int, str]]:
    """`text` as (start, end, said) pieces (`Normaliser.pieces`); one piece as written for a
    language without rules."""
    said = normaliser(language)
    return said.pieces(text) if said else [(0, len(text), text)]


def number_expressions(text: str, language: str) -> list[Expression] | None:
    """The number expressions and abbreviations of `text` in `language`, said or left as
    written; None for a language without rules."""
    said = normaliser(language)
    return said.expressions(text) if said else None


# ---- a line -------------------------------------------------------------------------------


@dataclass
class SpokenLine:
    """A line's spans as they will be said, and what changed them.

    spans: the line's spans with each text span's text after the lexicon and normalisation.
    entries: the lexicon entries the line uses, in order of first use.
    unsupported: languages of text spans that hold digits but have no number rules.
    rewrites: each number expression or abbreviation said, as (written, said), in order.
    """

    spans: list[Span]
    entries: list[LexiconEntry]
    unsupported: list[str]
    rewrites: list[tuple[str, str]] = field(default_factory=list)


def spoken_line(script: Script, line: Line, normalize: bool = True) -> SpokenLine:
    """The line's spans after its lexicon entries and, unless `normalize` is False or the script or
    line turns it off, the number rules of each span's language (`text_language`). Sound cues
    are left out first, so the words on either side are read together as if none were written."""
    if any(span.kind == "sound" for span in line.spans):
        line = replace(line, spans=without_cues(line.spans))
    normalize = normalize and script.normalize and line.normalize
    matches: dict[int, list] = {}
    for span, match in line_matches(script, line):
        matches.setdefault(id(span), []).append(match)
    said = SpokenLine([], [], [])
    speaker = line.speaker
    for span in line.spans:
        if span.kind == "switch":
            speaker = span.value
        if span.kind != "text":
            said.spans.append(span)
            continue
        language = text_language(script, speaker, span.text, line.lang) if normalize else ""
        pieces, last = [], 0
        for match in matches.get(id(span), []):
            pieces.append(_normalised(span.text[last : match.start], language, said))
            pieces.append(said_for(match.entry))
            if match.entry not in said.entries:
                said.entries.append(match.entry)
            last = match.end
        pieces.append(_normalised(span.text[last:], language, said))
        said.spans.append(Span("text", "".join(pieces), span.value, span.column))
    said.unsupported = list(dict.fromkeys(said.unsupported))
    return said


def sent_token_errors(
    script: Script, line: Line, spoken: SpokenLine | None = None
) -> list[ScriptError]:
    """The model tokens the line's text holds once its lexicon entries, number rules and markup
    clean-up have run (`direction.sent_text_errors`), located at the line; [] for a clean line.
    `spoken`: the line's `spoken_line`, when already made."""
    spoken = spoken or spoken_line(script, line)
    return sent_text_errors(
        render_spans(spoken.spans, 0, lambda name: 0, line.notes, line.speaker), line.position
    )


def script_token_errors(script: Script) -> list[ScriptError]:
    """`sent_token_errors` of every line of `script` that could form a model token, in script
    order. A token needs a `|`, which no lexicon respelling and no number rule writes, so a line
    whose text and notes hold none is skipped (most lines: `check` stays fast)."""
    return [
        err
        for line in script.lines()
        if "|" in line.text or any("|" in n for n in line.notes)
        for err in sent_token_errors(script, line)
    ]


def said_for(entry: LexiconEntry) -> str:
    """What an entry puts in the text: its respelling, or its phonemes between the phoneme tokens."""
    if entry.respelling is not None:
        return entry.respelling
    return f"{STRINGS['phoneme_start']}{entry.phonemes}{STRINGS['phoneme_end']}"


def _normalised(text: str, language: str, line: SpokenLine) -> str:
    """`text` said in `language` ('' when normalisation is off); records rewrites and a
    language without rules in `line`."""
    if not language:
        return text
    rules = normaliser(language)
    if rules is None:
        if re.search(r"\d", text):
            line.unsupported.append(language_code(language) or language)
        return text
    pieces = rules.pieces(text)
    line.rewrites += [(text[a:b], said) for a, b, said in pieces if said != text[a:b]]
    return "".join(said for _, _, said in pieces)


def unsupported_notice(language: str) -> str:
    """The one-time notice for numbers in a language without rules."""
    return (
        f"numbers in {language} lines are sent as written: number and symbol rules cover "
        f"{', '.join(LANGUAGES)}"
    )
