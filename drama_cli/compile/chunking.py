"""Long-line chunking: cut a line's model text into pieces a single generation voices well.

docs/internals/model.md §4.2 and cases M3, M4, T4 (docs/internals/bug-cases.md). Cuts happen only at
whitespace outside markup (`<|...|>`,
`<tag>`, `</tag>`, `[...]`) and never right after a point tag (it stays with the words it
precedes), preferring, in order:

1. sentence ends: `.`, `!`, `?`, `…` (possibly followed by closing quotes, brackets or closing
   tags) and speaker switches; never after a title or initial (`Dr.`, `Mrs.`, `St.`, `A.`), never
   after a dotted abbreviation (`a.m.`, `e.g.`) followed by a lower-case word; a period between
   digits (`4.50`) is never followed by whitespace, so it is never a cut;
2. clause marks: `,`, `;`, `:`, `—`, `–`;
3. any space; a single word longer than the cap is cut hard as a last resort, never inside
   markup (a tag longer than the cap is kept whole, over the cap).

Pieces are packed greedily up to `max_chars` (default 300 characters, counted without speaker
tags). A final chunk shorter than `min_tail_chars` is merged into the one before it when that
fits, else the last two chunks are re-cut so the tail is long enough. Every chunk starts with its
speaker tag; a scoped tag open at a cut is closed at the end of the chunk and reopened at the
start of the next.
"""

from __future__ import annotations

import re

from engine.constants import SPEAKER_TAG, SPEAKER_TAG_PATTERN
from engine.text import MODEL_TOKEN, PHONEME_PAIR, POINT_TAG, SCOPED_TAG, SCOPED_TAG_PARTS, TAG_NAME

DEFAULT_MAX_CHARS = 300
DEFAULT_MIN_TAIL_CHARS = 20
MIN_MAX_CHARS = 40  # below this a cap cuts words apart and the packing loop makes no progress

_MARKUP = re.compile(f"{PHONEME_PAIR}|{MODEL_TOKEN}|{SCOPED_TAG}|{POINT_TAG}")
_PHONEME_TOKENS = re.compile(r"<\|phoneme_(?:start|end)\|>")
_TAG_OR_SCOPE = re.compile(f"{SPEAKER_TAG_PATTERN}|{SCOPED_TAG_PARTS}")
_TRAILING_CLOSE = re.compile(rf"</{TAG_NAME}>$")
_TITLES = frozenset(
    "dr mr mrs ms mx st jr sr prof mt ft capt col gen lt sgt cpl rev fr hon gov sen rep messrs mme mlle".split()
)
_SENTENCE_PUNCT = ".!?…。！？"
_CLAUSE_PUNCT = ",;:—–，：；、"
_CLOSERS = "\"')]”’»"

SENTENCE, CLAUSE, SPACE = 0, 1, 2


def split_text(
    text: str,
    max_chars: int = DEFAULT_MAX_CHARS,
    per_sentence: bool = False,
    min_tail_chars: int = DEFAULT_MIN_TAIL_CHARS,
) -> list[str]:
    """Cut speaker-tagged model text into chunks (rules in the module docstring).

    text: one line's model text, e.g. `<|speaker:0|> Dr. Okafor met ...`; untagged text is
    chunked as is and its chunks stay untagged. per_sentence: one sentence per chunk (still capped).
    Returns the chunks in order, each non-empty; joining their words reproduces the input words.
    Raises ValueError when `max_chars` is below MIN_MAX_CHARS (40).
    """
    if max_chars < MIN_MAX_CHARS:
        raise ValueError(
            f"chunk cap {max_chars} is below the minimum of {MIN_MAX_CHARS} characters"
        )
    text = text.strip()
    if not text:
        return []
    protected = _protected_mask(text)
    levels = _cut_levels(text, protected)
    ranges = _split_range(text, 0, len(text), levels, SENTENCE, max_chars, per_sentence, protected)
    ranges = _fix_tail(text, ranges, levels, max_chars, min_tail_chars, per_sentence)
    pieces = [text[a:b].strip() for a, b in ranges]
    return _retag([p for p in pieces if p])


def chunk_length(chunk: str) -> int:
    """Characters that count against the cap: the chunk without speaker tags and without the
    phoneme tokens around a lexicon pronunciation."""
    return len(_PHONEME_TOKENS.sub("", SPEAKER_TAG.sub("", chunk)).strip())


def _protected_mask(text: str) -> list[bool]:
    mask = [False] * len(text)
    for match in _MARKUP.finditer(text):
        for index in range(match.start(), match.end()):
            mask[index] = True
    return mask


def _cut_levels(text: str, protected: list[bool]) -> dict[int, int]:
    """Map each whitespace index where a cut is allowed to its level (SENTENCE, CLAUSE, SPACE)."""
    levels: dict[int, int] = {}
    for index, char in enumerate(text):
        if not char.isspace() or protected[index] or index == 0 or text[index - 1].isspace():
            continue
        if index + 1 >= len(text) or text[:index].endswith(("|>", "]")):
            continue  # a point tag stays with the words it precedes
        levels[index] = _level_at(text, index)
    return levels


def _level_at(text: str, index: int) -> int:
    """Level of a cut at whitespace `index` (see module docstring)."""
    if SPEAKER_TAG.match(text, index + 1):
        return SENTENCE
    end = index
    while True:  # skip closing tags and closing quotes before the whitespace
        match = _TRAILING_CLOSE.search(text, max(0, end - 48), end)
        if match:
            end = match.start()
        elif end > 0 and text[end - 1] in _CLOSERS and not text[:end].endswith("]"):
            end -= 1
        else:
            break
    if end == 0:
        return SPACE
    last = text[end - 1]
    if last in _SENTENCE_PUNCT:
        return SENTENCE if _real_sentence_end(text, end, index) else SPACE
    if last in _CLAUSE_PUNCT:
        return CLAUSE
    return SPACE


def _real_sentence_end(text: str, end: int, index: int) -> bool:
    """False after titles (`Dr.`), initials (`A.`) and dotted abbreviations before lower case."""
    word_start = end
    while (
        word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in ">]"
    ):
        word_start -= 1
    word = text[word_start:end]
    if not word.endswith(".") or word.endswith(".."):
        return True
    stem = word[:-1].lstrip("\"'(")
    if stem.lower() in _TITLES:
        return False
    if len(stem) == 1 and stem.isalpha() and stem.isupper():
        return False
    following = text[index + 1 : index + 2]
    if "." in stem and following and not following.isupper():
        return False
    return True


def _split_range(text, start, end, levels, level, max_chars, per_sentence, protected):
    """Cut text[start:end] at cuts of `level`, split long parts at lower levels, pack greedily."""
    if level > SPACE:
        return _hard_split(text, start, end, max_chars, protected)
    cuts = [i for i, lv in levels.items() if start < i < end and lv <= level]
    bounds = [start] + sorted(cuts) + [end]
    parts: list[tuple[int, int]] = []
    for a, b in zip(bounds, bounds[1:]):
        a = a + 1 if a != start else a
        if _length(text, a, b) > max_chars:
            parts += _split_range(text, a, b, levels, level + 1, max_chars, False, protected)
        else:
            parts.append((a, b))
    if per_sentence and level == SENTENCE:
        return parts
    return _pack(text, parts, max_chars)


def _pack(text: str, parts: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    packed: list[tuple[int, int]] = []
    for a, b in parts:
        if packed and _length(text, packed[-1][0], b) <= max_chars:
            packed[-1] = (packed[-1][0], b)
        else:
            packed.append((a, b))
    return packed


def _hard_split(text, start, end, max_chars, protected):
    """Last resort for a single word longer than the cap: cut outside markup every max_chars;
    markup that starts a piece and runs past the cap (a long tag) is kept whole, over the cap."""
    parts, a = [], start
    while end - a > max_chars:
        b = a + max_chars
        while b > a + 1 and _inside(protected, b):
            b -= 1
        if _inside(protected, b):
            b = a + max_chars
            while b < end and _inside(protected, b):
                b += 1
        parts.append((a, b))
        a = b
    parts.append((a, end))
    return parts


def _inside(protected: list[bool], index: int) -> bool:
    """Whether a cut before `index` would fall inside markup."""
    return protected[index - 1] and index < len(protected) and protected[index]


def _length(text: str, a: int, b: int) -> int:
    return chunk_length(text[a:b])


def _fix_tail(text, ranges, levels, max_chars, min_tail, per_sentence):
    """Merge or re-cut a final chunk shorter than `min_tail` (case M4)."""
    if per_sentence or len(ranges) < 2 or _length(text, *ranges[-1]) >= min_tail:
        return ranges
    (a, _), (_, b) = ranges[-2], ranges[-1]
    if _length(text, a, b) <= max_chars:
        return ranges[:-2] + [(a, b)]
    best = None
    for index, level in sorted(levels.items()):
        if not a < index < b:
            continue
        left, right = _length(text, a, index), _length(text, index + 1, b)
        if left <= max_chars and right <= max_chars and right >= min_tail:
            key = (level, -index)
            if best is None or key < best[0]:
                best = (key, index)
    if best is None:
        return ranges
    return ranges[:-2] + [(a, best[1]), (best[1] + 1, b)]


def _retag(pieces: list[str]) -> list[str]:
    """Give every piece its speaker tag and close/reopen scoped tags across cuts."""
    speaker: str | None = None
    open_tags: list[str] = []
    chunks = []
    for piece in pieces:
        reopen = "".join(f"<{name}>" for name in open_tags)
        body = piece
        lead = SPEAKER_TAG.match(body)
        if lead:
            speaker = lead.group()
            body = body[lead.end() :].lstrip()
        for match in _TAG_OR_SCOPE.finditer(piece):
            if match.group().startswith("<|"):
                speaker = match.group()
            elif match.group("close"):
                if open_tags and open_tags[-1] == match.group("name"):
                    open_tags.pop()
            else:
                open_tags.append(match.group("name"))
        close = "".join(f"</{name}>" for name in reversed(open_tags))
        prefix = lead.group() if lead else _current_prefix(chunks, speaker, piece)
        body = reopen + body + close
        chunks.append(f"{prefix} {body}" if prefix else body)
    return chunks


def _current_prefix(chunks: list[str], speaker: str | None, piece: str) -> str:
    """Speaker tag a piece without its own leading tag continues with (the last one seen before)."""
    if not chunks:
        return ""
    previous = [tag.group() for tag in SPEAKER_TAG.finditer(chunks[-1])]
    return previous[-1] if previous else ""
