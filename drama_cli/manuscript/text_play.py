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

from drama_cli.manuscript.cast_names import parse_entry
from drama_cli.manuscript.headings import spoken_heading
from drama_cli.manuscript.imported import ImportedChapter, ImportedScene, Manuscript
from drama_cli.manuscript.plain_text import CHAPTER_LINE
from drama_cli.manuscript.play import finish_play

_NAME_ROW = re.compile(r"^\s*[A-Z][A-Z’'. -]{0,30}[A-Z]\s*$")
_CUE = re.compile(r"^([A-Z][A-Z’'. -]{0,30}[A-Z])(?:\.|:)\s+(\S.*)$", re.S)
_DIRECTION = re.compile(r"\[([^\]]+)\]|\(([^)]+)\)|(?<!\w)_([^_]+)_(?!\w)")
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
    act, scene, chapter and cast headings are left as they are."""

    def marked(rows: list[str]) -> list[str]:
        first = rows[0] if len(rows) > 1 else ""
        if not _NAME_ROW.match(first) or any(
            p.match(first) for p in (_ACT, _ORDINAL, _CAST_HEADING, CHAPTER_LINE)
        ):
            return rows
        return [first.strip() + ".", *rows[1:]]

    return [marked(rows) for rows in blocks]


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
    return [(kind, " ".join(words.split())) for kind, words in found if words.strip(" .,;:")]


def read_text_play(blocks: list[list[str]], manuscript: Manuscript, directions: str) -> None:
    """Fill `manuscript` with the play in the text's `blocks` (rows of each paragraph)."""
    chapters: list[ImportedChapter] = []
    entries, labels = [], Counter()
    in_cast = False
    for rows in blocks:
        if not rows:
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
        if in_cast and rows and not act and not _CUE.match(paragraph):
            entries += [parse_entry(" ".join(row.split())) for row in rows]
            continue
        in_cast = False
        if act:
            _open(chapters, act, rows[0])
            paragraph = " ".join(" ".join(rows[1:]).split())
        if paragraph:
            _item(chapters, paragraph, labels)
    finish_play(manuscript, entries, labels, chapters, directions)


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
        scene.lines.append((label, segments(cue.group(2))))
    else:
        scene.lines += [(None, words) for _, words in segments(paragraph)]
