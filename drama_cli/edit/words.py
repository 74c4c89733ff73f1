"""Words of an edit: the spoken words of a line, the diff between its old and new text, word
timings (from speech recognition or estimated), the span a change covers, and the text
operations behind `--replace`, `--insert --after` and `--insert --at`. Pure: no audio, no model.

Times are seconds in the source take.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from drama_cli.errors import UsageError

WORD_PAD_S = 0.05  # how far a span may reach into the pause beside a changed word


_TAG = re.compile(r"<\|[^|]*\|>|</?[A-Za-z][^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}")


_WORD_CHARS = re.compile(r"[^\w']+", re.UNICODE)


@dataclass(frozen=True)
class Word:
    """A spoken word with its time in the take, in seconds from the take's start."""

    text: str
    start_s: float
    end_s: float


def normalise_word(word: str) -> str:
    """Lower-case a word and strip punctuation around it ("Goodbye," -> "goodbye")."""
    return _WORD_CHARS.sub("", word.lower()).strip("'")


def spoken_words(text: str) -> list[str]:
    """The normalised spoken words of a line: direction tags (`[sighs]`, `<whisper>`,
    `<|speaker:0|>`) removed, split on whitespace, punctuation stripped, empties dropped."""
    words = (normalise_word(w) for w in _TAG.sub(" ", text).split())
    return [w for w in words if w]


@dataclass(frozen=True)
class WordChange:
    """The changed region of an edit as half-open word-index ranges: old words
    `[old_start, old_end)` become new words `[new_start, new_end)`. An insertion has
    `old_start == old_end`; a deletion has `new_start == new_end`."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


def diff_words(old_words: Sequence[str], new_words: Sequence[str]) -> WordChange | None:
    """Diff two normalised word lists (difflib); return the one region enclosing every change,
    or None when the words are the same."""
    matcher = difflib.SequenceMatcher(a=list(old_words), b=list(new_words), autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changes:
        return None
    return WordChange(
        old_start=changes[0][1], old_end=changes[-1][2], new_start=changes[0][3], new_end=changes[-1][4]
    )


def estimate_timings(words: Sequence[str], duration_s: float) -> list[Word]:
    """Rough word times when no speech recognition is available: the take's duration shared
    out by word length (one extra character per word for the gap). Only for display and for
    placing `--at` insertions in the text; spans come from `--at`/`--span` then."""
    weights = [len(w) + 1 for w in words]
    total = float(sum(weights)) or 1.0
    timings, t = [], 0.0
    for word, weight in zip(words, weights):
        step = duration_s * weight / total
        timings.append(Word(word, t, t + step))
        t += step
    return timings


def align_timings(words: Sequence[str], timed: Sequence[Word]) -> list[Word | None]:
    """Map each script word to a recognised word with times (difflib over normalised words);
    words the recogniser heard differently get None."""
    heard = [normalise_word(w.text) for w in timed]
    aligned: list[Word | None] = [None] * len(words)
    matcher = difflib.SequenceMatcher(a=list(words), b=heard, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            aligned[block.a + k] = timed[block.b + k]
    return aligned


def span_for_change(
    change: WordChange, old_words: Sequence[str], timed: Sequence[Word], duration_s: float
) -> tuple[float, float]:
    """The time span (seconds) covering the changed old words, widened to word boundaries.

    The span starts at the end of the last unchanged word before the change (reaching at most
    `WORD_PAD_S` into the pause before the first changed word) and ends at the start of the
    first unchanged word after it (likewise). Script words the recogniser did not hear widen
    the span to the nearest heard neighbour. An insertion gives the pause between two words.
    """
    aligned = align_timings(old_words, timed)
    before = next((w for w in reversed(aligned[: change.old_start]) if w), None)
    after = next((w for w in aligned[change.old_end :] if w), None)
    changed = [w for w in aligned[change.old_start : change.old_end] if w]
    left_edge = before.end_s if before else 0.0
    right_edge = after.start_s if after else duration_s
    if changed and changed[0] is aligned[change.old_start]:
        start = max(left_edge, changed[0].start_s - WORD_PAD_S)
    else:
        start = left_edge
    if changed and changed[-1] is aligned[change.old_end - 1]:
        end = min(right_edge, changed[-1].end_s + WORD_PAD_S)
    else:
        end = right_edge
    if end < start:  # overlapping recogniser times: keep the span non-empty and ordered
        start, end = min(start, end), max(start, end)
    return max(0.0, start), min(duration_s, end)


def words_in_span(timed: Sequence[Word], start_s: float, end_s: float) -> list[str]:
    """The recognised (or estimated) words that overlap the span by more than half their length."""
    covered = []
    for w in timed:
        overlap = min(end_s, w.end_s) - max(start_s, w.start_s)
        if overlap > 0.5 * max(w.end_s - w.start_s, 1e-9):
            covered.append(w.text)
    return covered


def _phrase_pattern(phrase: str) -> re.Pattern:
    words = [re.escape(w) for w in phrase.split()]
    if not words:
        raise UsageError("empty word or phrase")
    return re.compile(r"(?<![\w'])" + r"[\s,;:.!?\u2014-]+".join(words) + r"(?![\w'])", re.IGNORECASE)


def replace_words(text: str, old: str, new: str, line_id: str = "") -> str:
    """The line text with the one occurrence of the phrase `old` (case-insensitive, whole
    words) replaced by `new`. Raises UsageError when `old` is not in the text, or occurs more
    than once (the message lists the occurrences: which one is meant would be a guess)."""
    matches = phrase_matches(text, old)
    if not matches:
        raise UsageError(f"{old!r} is not in line {line_id or '?'}: {text!r}")
    if len(matches) > 1:
        raise ambiguous_phrase(text, old, matches, line_id, "give --span START:END around the one to "
                               "replace, or a longer phrase that occurs once")
    match = matches[0]
    return text[: match.start()] + new.strip() + text[match.end() :]


def ambiguous_phrase(text: str, phrase: str, matches: Sequence[re.Match], line_id: str,
                     advice: str) -> UsageError:
    """The error for a phrase that occurs more than once: each occurrence numbered and marked
    «…», with up to two words before it and three after, then `advice`."""
    shown = []
    for n, match in enumerate(matches, 1):
        before = text[: match.start()].split()[-2:]
        rest = text[match.end() :]
        after = rest.split()
        mark = f"«{match.group()}»"
        if after and not rest[0].isspace():  # punctuation right after the phrase stays with it
            mark, after = mark + after[0], after[1:]
        shown.append(f"{n}: " + " ".join([*before, mark, *after[:3]]))
    return UsageError(f"{phrase!r} occurs {len(matches)} times in line {line_id or '?'} "
                      f"({'; '.join(shown)}); {advice}")


def phrase_matches(text: str, phrase: str) -> list[re.Match]:
    """Every occurrence of `phrase` in `text` (case-insensitive, whole words), in order."""
    return list(_phrase_pattern(phrase).finditer(text))


def replace_in_span(text: str, old: str, new: str, span_s: tuple[float, float],
                    timed: Sequence[Word] | None, line_id: str = "") -> str:
    """The line text with the occurrence of the phrase `old` that lies inside `span_s`
    (seconds in the take) replaced by `new`.

    A phrase that occurs once is replaced wherever it is. When it occurs more than once the
    recognised word times `timed` choose the occurrence overlapping the span most; without word
    times (or when no occurrence overlaps the span) the choice would be a guess, so UsageError
    asks for a phrase that occurs once. Raises UsageError when `old` is not in the text.
    """
    matches = phrase_matches(text, old)
    if len(matches) <= 1:
        return replace_words(text, old, new, line_id)
    chosen = _occurrence_in_span(text, matches, span_s, timed) if timed else None
    if chosen is None:
        why = "no word times to tell which is inside the span" if not timed else \
            "none of them is heard inside the span"
        raise ambiguous_phrase(text, old, matches, line_id,
                               f"{why}; give a longer --replace phrase that occurs once")
    return text[: chosen.start()] + new.strip() + text[chosen.end() :]


def _occurrence_in_span(text: str, matches: Sequence[re.Match], span_s: tuple[float, float],
                        timed: Sequence[Word]) -> re.Match | None:
    aligned = align_timings(spoken_words(text), timed)
    best, best_overlap = None, 0.0
    for match in matches:
        first = len(spoken_words(text[: match.start()]))
        heard = [w for w in aligned[first : first + len(spoken_words(match.group()))] if w]
        if not heard:
            continue
        overlap = min(span_s[1], heard[-1].end_s) - max(span_s[0], heard[0].start_s)
        if overlap > best_overlap:
            best, best_overlap = match, overlap
    return best


def insert_after(text: str, anchor: str, words: str, line_id: str = "") -> str:
    """The line text with `words` inserted after the first occurrence of the word (or phrase)
    `anchor`. Raises UsageError when `anchor` is not in the text."""
    match = _phrase_pattern(anchor).search(text)
    if match is None:
        raise UsageError(f"{anchor!r} is not in line {line_id or '?'}: {text!r}")
    return text[: match.end()] + " " + words.strip() + text[match.end() :]


def insert_at_word_index(text: str, index: int, words: str) -> str:
    """The line text with `words` inserted before spoken word number `index` (0-based); an
    index past the last word appends after it, before the line's closing punctuation.
    Direction tags stay where they are."""
    tokens = [m for m in re.finditer(r"\S+", text) if normalise_word(_TAG.sub("", m.group()))]
    if not tokens:
        return (text.rstrip() + " " + words.strip()).strip()
    if index < len(tokens):
        start = tokens[index].start()
        return text[:start] + words.strip() + " " + text[start:]
    last = tokens[-1]
    cut = last.start() + len(last.group().rstrip(".!?,;:\u2026"))
    return text[:cut] + " " + words.strip() + text[cut:]


def word_index_at(timed: Sequence[Word], at_s: float) -> int:
    """The index of the word boundary nearest to `at_s` seconds: 0 before the first word,
    len(timed) after the last."""
    boundaries = [timed[0].start_s] + [
        0.5 * (a.end_s + b.start_s) for a, b in zip(timed[:-1], timed[1:])
    ] + [timed[-1].end_s] if timed else [0.0]
    return int(np.argmin([abs(b - at_s) for b in boundaries]))
