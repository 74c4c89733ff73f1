"""Words of an edit: the diff between a line's old and new spoken words (`drama_cli.script.spoken`),
word timings (from speech recognition or estimated), the span a change covers, and the text
operations behind `--replace`, `--insert --after` and `--insert --at`. Pure: no audio, no model.

Times are seconds in the source take.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drama_cli.errors import UsageError
from drama_cli.script.spoken import Word, normalise_word, spoken_tokens, spoken_words
from engine.text import LINE_MARKUP

WORD_PAD_S = 0.05  # how far a span may reach into the pause beside a changed word


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
        old_start=changes[0][1],
        old_end=changes[-1][2],
        new_start=changes[0][3],
        new_end=changes[-1][4],
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


MIN_OVERLAP_S = 0.02  # a span reaching less than this into a word does not take the word


@dataclass(frozen=True)
class WordRegion:
    """The whole words an edit regenerates: the take's words `[old_start, old_end)`, heard from
    `start_s` to `end_s` (seconds in the take), become `new_words` (as written in the new text)."""

    old_start: int
    old_end: int
    start_s: float
    end_s: float
    new_words: tuple[str, ...]


def whole_word_region(
    old_text: str,
    new_text: str,
    timed: Sequence[Word],
    span_s: tuple[float, float],
    duration_s: float,
    at_least_one_word: bool = False,
) -> WordRegion | None:
    """The words an edit must regenerate so that no word is cut: every word of the take that
    the span reaches into (by more than `MIN_OVERLAP_S`) and every changed word; an edge word
    the recogniser did not hear reaches to the heard word beside it (or the take's start or end).

    With `at_least_one_word` (an engine that voices the middle from its words alone) the region
    also holds at least one word of the new text, taking in a neighbour when the change alone
    leaves it empty (an insertion, a deletion). The times reach into the pauses beside the
    region as far as `span_s` does, never into a neighbouring word. Returns None when no word
    of the take was heard (nothing to place the edit by).
    """
    old = spoken_words(old_text)
    tokens = spoken_tokens(new_text)
    aligned = align_timings(old, timed)
    if not any(aligned):
        return None
    start, end = span_s
    touched = [
        i
        for i, w in enumerate(aligned)
        if w is not None and min(end, w.end_s) - max(start, w.start_s) > MIN_OVERLAP_S
    ]
    change = diff_words(old, [normalise_word(t) for t in tokens])
    if touched or change:
        a = min(touched + ([change.old_start] if change else []))
        b = max([i + 1 for i in touched] + ([change.old_end] if change else []))
    else:  # the span lies in a pause: the boundary it starts at
        a = b = sum(1 for w in aligned if w is not None and w.end_s <= start)
    delta = len(tokens) - len(old)
    while at_least_one_word and b + delta <= a and (a > 0 or b < len(old)):
        a, b = (a - 1, b) if a > 0 else (a, b + 1)  # take in a neighbour so the middle says a word
    before = next((w for w in reversed(aligned[:a]) if w), None)
    after = next((w for w in aligned[b:] if w), None)
    lo = before.end_s if before else 0.0
    hi = after.start_s if after else duration_s
    if a == b:
        start_s, end_s = start, end
    else:  # an edge word without a time reaches to the heard word beside it
        start_s = min(start, aligned[a].start_s) if aligned[a] else lo
        end_s = max(end, aligned[b - 1].end_s) if aligned[b - 1] else hi
    start_s, end_s = max(lo, start_s), min(hi, end_s)
    if end_s < start_s:  # an insertion point inside a word: the boundary beside it
        start_s = end_s = min(max(start, lo), hi)
    return WordRegion(a, b, start_s, end_s, tuple(tokens[a : b + delta]))


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
    return re.compile(
        r"(?<![\w'])" + r"[\s,;:.!?\u2014-]+".join(words) + r"(?![\w'])", re.IGNORECASE
    )


def replace_words(text: str, old: str, new: str, line_id: str = "") -> str:
    """The line text with the one occurrence of the phrase `old` (case-insensitive, whole
    words) replaced by `new`. Raises UsageError when `old` is not in the text, or occurs more
    than once (the message lists the occurrences: which one is meant would be a guess)."""
    matches = phrase_matches(text, old)
    if not matches:
        raise UsageError(f"{old!r} is not in line {line_id or '?'}: {text!r}")
    if len(matches) > 1:
        raise ambiguous_phrase(
            text,
            old,
            matches,
            line_id,
            "give --span START:END around the one to replace, or a longer phrase that occurs once",
        )
    return replace_match(text, matches[0], new)


def replace_match(text: str, match: re.Match, new: str) -> str:
    """`text` with `match` replaced by `new`; an empty `new` removes the words and the space
    before them, so no gap is left before punctuation ("You had my note?" -> "You had my?")."""
    if new.strip():
        return text[: match.start()] + new.strip() + text[match.end() :]
    before, after = text[: match.start()].rstrip(), text[match.end() :]
    if not before:
        return after.lstrip(" ,;:")
    return before + (after if not after[:1].isspace() else " " + after.lstrip())


def ambiguous_phrase(
    text: str, phrase: str, matches: Sequence[re.Match], line_id: str, advice: str
) -> UsageError:
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
    return UsageError(
        f"{phrase!r} occurs {len(matches)} times in line {line_id or '?'} "
        f"({'; '.join(shown)}); {advice}"
    )


def phrase_matches(text: str, phrase: str) -> list[re.Match]:
    """Every occurrence of `phrase` in `text` (case-insensitive, whole words), in order."""
    return list(_phrase_pattern(phrase).finditer(text))


def replace_in_span(
    text: str,
    old: str,
    new: str,
    span_s: tuple[float, float],
    timed: Sequence[Word] | None,
    line_id: str = "",
) -> str:
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
        why = (
            "no word times to tell which is inside the span"
            if not timed
            else "none of them is heard inside the span"
        )
        raise ambiguous_phrase(
            text, old, matches, line_id, f"{why}; give a longer --replace phrase that occurs once"
        )
    return replace_match(text, chosen, new)


def _occurrence_in_span(
    text: str, matches: Sequence[re.Match], span_s: tuple[float, float], timed: Sequence[Word]
) -> re.Match | None:
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
    """The line text with `words` inserted after the one occurrence of the word (or phrase)
    `anchor` (case-insensitive, whole words). Raises UsageError when `anchor` is not in the
    text, or occurs more than once (the message lists the occurrences, as `replace_words`)."""
    matches = phrase_matches(text, anchor)
    if not matches:
        raise UsageError(f"{anchor!r} is not in line {line_id or '?'}: {text!r}")
    if len(matches) > 1:
        raise ambiguous_phrase(
            text,
            anchor,
            matches,
            line_id,
            "give a longer --after phrase that occurs once, or --at SECONDS",
        )
    return text[: matches[0].end()] + " " + words.strip() + text[matches[0].end() :]


def insert_at_word_index(text: str, index: int, words: str) -> str:
    """The line text with `words` inserted before spoken word number `index` (0-based); an
    index past the last word appends after it, before the line's closing punctuation.
    Direction tags stay where they are."""
    tokens = [
        m for m in re.finditer(r"\S+", text) if normalise_word(LINE_MARKUP.sub("", m.group()))
    ]
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
    boundaries = (
        [timed[0].start_s]
        + [0.5 * (a.end_s + b.start_s) for a, b in zip(timed[:-1], timed[1:])]
        + [timed[-1].end_s]
        if timed
        else [0.0]
    )
    return int(np.argmin([abs(b - at_s) for b in boundaries]))
