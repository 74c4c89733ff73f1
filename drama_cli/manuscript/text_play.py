"""Plays in plain text, in the common Project Gutenberg forms.

A speech is a paragraph opening with its speaker's name in capitals followed by a full stop or
a colon (`ALGERNON. Did you hear…`, `LANE: Yes, sir.`), or with the name alone on its first
line (`with_cue_marks`); a `SCENE:` or `TIME:` label names no one; directions are in brackets,
parentheses or underscores (`[Hands them on a salver.]`, `(Languidly.)`, `_Enter Lane._`).
`ACT I` lines open chapters and `SCENE II` lines scenes; a "Dramatis Personae", "Persons of the
Play" or "Characters" heading gives the cast from the rows under it ("LANE, manservant"). Other
paragraphs of the play are directions. The text is a play when at least five paragraphs, and a
fifth of all, are speeches. `manuscript.play.finish_play` does the rest as for EPUB plays.
"""

from __future__ import annotations

import re
from collections import Counter

from drama_cli.manuscript.cast_names import parse_entries
from drama_cli.manuscript.headings import spoken_heading
from drama_cli.manuscript.imported import ImportedChapter, ImportedScene, Manuscript
from drama_cli.manuscript.plain_text import CHAPTER_LINE
from drama_cli.manuscript.play import finish_play

_NAME_ROW = re.compile(r"^\s*[A-Z][A-Z’'. -]{0,30}[A-Z]\s*$")
# A speaker's cue opening a speech: "NORA. Yes!", "LANE: Yes, sir.", or the name and a direction
# before the stop ("HELMER [calls out from his room]. Is that…"), the direction kept as the
# speech's first words.
_CUE = re.compile(
    r"^([A-Z][A-Z’'. -]{0,30}[A-Z])(?:\.|:|\s*(\[[^\]]{1,200}\]|\([^)]{1,200}\))\s*[.:]?)\s+(\S.*)$",
    re.S,
)
# A speaker's name alone on a row, as Gutenberg's proofreaders set it above the speech: "NORA."
_NAME_ALONE = re.compile(r"^\s*([A-Z][A-Z’'. -]{0,30}[A-Z])\s*([.:]?)\s*$")
# A direction: in brackets, in parentheses, or in underscores where it opens with a capital and
# runs to two words or more ("_He sits._"; "_is_" is emphasis, read as a word).
_DIRECTION = re.compile(r"\[([^\]]+)\]|\(([^)]+)\)|(?<!\w)_([A-Z][^_]*\s[^_]+)_(?!\w)")
_EMPHASIS = re.compile(r"(?<!\w)_([^_]+)_(?!\w)")
_ACT = re.compile(
    r"^\s*(act|scene)\s+([ivxlcdm]+|\d+|one|two|three|four|five|six|seven)\b[.:]?\s*(.*)$", re.I
)
_ORDINAL = re.compile(r"^\s*(first|second|third|fourth|fifth)\s+(act|scene)\b\.?\s*$", re.I)
# Labels a play prints like a speaker's cue that name no one: "SCENE: A room." is a direction.
_SETTING_LABELS = {
    "Scene",
    "The Scene",
    "Setting",
    "Place",
    "Time",
    "Period",
    "Note",
    "Enter",
    "Exit",
    "Exeunt",
    "Curtain",
    "Act",
}
_WORDS = ("one", "two", "three", "four", "five", "six", "seven")
_ORDINALS = {"first": "One", "second": "Two", "third": "Three", "fourth": "Four", "fifth": "Five"}
_CAST_HEADING = re.compile(
    r"^\s*(?:dramatis person(?:ae|æ)|(?:the )?persons of the play|characters|the persons)\s*[.:]?\s*$",
    re.I,
)


def with_cue_marks(blocks: list[list[str]]) -> list[list[str]]:
    """The text's blocks with a speaker's name alone above the speech ("LANE" over "Yes,
    sir.", as modern scripts print it) given the full stop of the Gutenberg form ("LANE.");
    act, scene, chapter and cast headings are left as they are. A name that is a paragraph of
    its own ("NORA." above a blank line) is joined to the paragraph under it, where it ends
    with a stop or stands alone more than once."""

    def heading(row: str) -> bool:
        return any(p.match(row) for p in (_ACT, _ORDINAL, _CAST_HEADING, CHAPTER_LINE))

    def marked(rows: list[str]) -> list[str]:
        first = rows[0] if len(rows) > 1 else ""
        if not _NAME_ROW.match(first) or heading(first):
            return rows
        return [first.strip() + ".", *rows[1:]]

    alone = Counter(
        _NAME_ALONE.match(rows[0]).group(1)
        for rows in blocks
        if len(rows) == 1 and _NAME_ALONE.match(rows[0])
    )
    out: list[list[str]] = []
    index = 0
    while index < len(blocks):
        rows = blocks[index]
        name = _NAME_ALONE.match(rows[0]) if len(rows) == 1 else None
        following = blocks[index + 1] if index + 1 < len(blocks) else []
        if (
            name
            and not heading(rows[0])
            and (name.group(2) or alone[name.group(1)] > 1)
            and following
            and not _NAME_ALONE.match(following[0])
            and not heading(following[0])
        ):  # the name is a paragraph of its own, the speech the next one
            out.append([name.group(1) + ".", *following])
            index += 2
            continue
        out.append(marked(rows))
        index += 1
    return out


def is_text_play(paragraphs: list[str]) -> bool:
    """True when at least five paragraphs, and a fifth of them, open with a speaker's cue."""
    cues = sum(bool(_CUE.match(p)) for p in paragraphs)
    return cues >= 5 and cues * 5 >= len(paragraphs)


def segments(text: str) -> list[tuple[str, str]]:
    """A speech as ('speech' | 'direction', words) segments in order."""
    found, last = [], 0
    for match in _DIRECTION.finditer(text):
        found += [
            ("speech", text[last : match.start()]),
            ("direction", next(g for g in match.groups() if g)),
        ]
        last = match.end()
    found.append(("speech", text[last:]))
    return [
        (kind, " ".join(_EMPHASIS.sub(r"\1", words).replace("_", " ").split()))
        for kind, words in found
        if words.strip(" .,;:_")
    ]


def read_text_play(blocks: list[list[str]], manuscript: Manuscript, directions: str) -> None:
    """Fill `manuscript` with the play in the text's `blocks` (rows of each paragraph)."""
    chapters: list[ImportedChapter] = []
    entries, labels = [], Counter()
    in_cast = False
    for rows in blocks:
        if not rows:
            continue
        if not chapters and not in_cast and not entries and _title_page(rows):
            manuscript.left_out["title page"] += 1
            continue
        if _CAST_HEADING.match(rows[0]):
            in_cast, rows = True, rows[1:]
            manuscript.left_out["dramatis personae (made the cast)"] += 1
            if not rows:
                continue
        paragraph = " ".join(" ".join(rows).split())
        ordinal = _ORDINAL.match(rows[0]) if rows else None
        if ordinal:  # "FIRST ACT" → "ACT One"
            rows = [f"{ordinal.group(2)} {_ORDINALS[ordinal.group(1).lower()]}", *rows[1:]]
        act = _ACT.match(rows[0]) if rows else None
        if in_cast and rows and not act and not _CUE.match(paragraph) and paragraph[0] not in "[(":
            entries += [entry for row in rows for entry in parse_entries(row)]
            continue
        in_cast = False
        if act:
            _open(chapters, act, rows[0])
            paragraph = " ".join(" ".join(rows[1:]).split())
        if paragraph:
            _item(chapters, paragraph, labels)
    finish_play(manuscript, entries, labels, chapters, directions)


def _title_page(rows: list[str]) -> bool:
    """True for a paragraph of a title page before the play's cast or first act: at most four
    short rows ("A DOLL'S HOUSE", "by", "Translated by R. Farquharson Sharp"), no speech."""
    return (
        len(rows) <= 4
        and all(len(row.strip()) <= 60 for row in rows)
        and not _CUE.match(" ".join(rows))
        and not _ACT.match(rows[0])
        and not _ORDINAL.match(rows[0])
        and not _CAST_HEADING.match(rows[0])
    )


def _open(chapters: list[ImportedChapter], act, row: str) -> None:
    label, number, rest = act.group(1).capitalize(), act.group(2), act.group(3).strip(" .")
    title = spoken_heading(
        f"{label} {number.capitalize() if number.isalpha() and number.lower() in _WORDS else number.upper()}"
    )
    title += f": {rest}" if rest else ""
    if act.group(1).lower() == "act" or not chapters:
        chapters.append(ImportedChapter(title, scenes=[ImportedScene(None)]))
    elif chapters[-1].scenes[-1].title is None and not chapters[-1].scenes[-1].lines:
        chapters[-1].scenes[-1].title = title
    else:
        chapters[-1].scenes.append(ImportedScene(title))


def _item(chapters: list[ImportedChapter], paragraph: str, labels: Counter) -> None:
    if not chapters:
        chapters.append(ImportedChapter("Prologue", scenes=[ImportedScene(None)]))
    scene = chapters[-1].scenes[-1]
    cue = _CUE.match(paragraph)
    label = cue.group(1).strip(" .").title() if cue else None
    if label and label not in _SETTING_LABELS:
        labels[label] += 1
        scene.lines.append((label, segments(f"{cue.group(2) or ''} {cue.group(3)}")))
    else:
        scene.lines += [(None, words) for _, words in segments(paragraph)]
