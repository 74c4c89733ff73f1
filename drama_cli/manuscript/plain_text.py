"""Plain-text manuscripts as Project Gutenberg and similar editions print them: what is the
book's text and what only the edition's furniture.

Left out and counted: the contents list (chapter headings that appear again later, and the
"Contents" line above them), transcriber's notes and "Produced by" credits, edition lines
("Second Edition."), "THE END" lines, `[Illustration…]` lines, `[Footnote N: …]` paragraphs,
page numbers (`{12}`, `[Pg 12]`) and note markers after a word (`word[3]`, `word.(3)`). Ornament lines
(`* * *`, `⁂`) are breaks: a pause after the line before them (`imported.BREAK`).
"""

from __future__ import annotations

import re
from collections import Counter

ORNAMENT = re.compile(r"^[\s*⁂·•~#=_-]+$")
_NUMBER_WORD = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|last"
)
_NUMBER = rf"(?:\d+|[IVXLCDM]+|[ivxlcdm]+|(?i:(?:the\s+)?(?:{_NUMBER_WORD})(?:[\s-]+(?:{_NUMBER_WORD}))*))"
# A chapter heading line: "Chapter", "Book" or "Part" and a number, alone or with a title after a
# mark or a capital ("CHAPTER I. The Lamp", "Part One—The Rain", "Chapter 3 The Turn"), or a
# named section (Prologue, Epilogue…); "Part of him stayed." and "Chapter and verse" are text.
CHAPTER_LINE = re.compile(
    rf"^\s*(?:(?:[Cc]hapter|CHAPTER|[Bb]ook|BOOK|[Pp]art|PART)\s+{_NUMBER}"
    r"|(?i:prologue|epilogue|interlude|afterword|foreword|preface|introduction))"
    r"(?:\s*$|\s*[.:—–-]|\s+[A-Z0-9“\"‘'(]).*$"
)
# A heading that is only a number ("IV.", "12"): a chapter where the text has two or more.
NUMERAL_LINE = re.compile(r"^\s*(?:[IVXLCDM]+|\d{1,3})\.?\s*$")
_CONTENTS = re.compile(r"^\s*(?:table of\s+)?contents\.?\s*$", re.I)
_FURNITURE = {
    "transcriber's note": re.compile(
        r"^\s*\[?\s*transcriber[’']?s?[’']?\s+notes?\b|^\s*(?:produced|prepared) by\b|^\s*e-?text prepared by\b",
        re.I,
    ),
    "edition line": re.compile(r"^\s*(?:\w+\s+){0,2}edition\.?\s*$", re.I),
    "illustration": re.compile(r"^\s*\[Illustration[^\]]*\]\s*$", re.I),
    "footnote": re.compile(r"^\s*\[Footnote\b[^\]]*\]\s*$", re.I | re.S),
    # the closing credits end with "The end." already
    "end line": re.compile(r"^\s*(?:the\s+end|finis)\s*[.!]?\s*$", re.I),
    # older Gutenberg texts close the book with this line before the END marker
    "Project Gutenberg line": re.compile(
        r"^\s*end of (?:the |this )?project gutenberg(?:'s|’s)?\b", re.I
    ),
}
# Headings of the edition's pages that are not the book: each runs to the next chapter or act
# heading (or the end), all of it left out.
_SECTIONS = {
    "errata list": re.compile(r"^\s*(?:list of\s+)?(?:errata|corrigenda)\s*[.:]?\s*$", re.I),
    "advertisement page": re.compile(
        r"^\s*(?:advertisements?|publishers?[’']?s?[’']?\s+(?:announcements?|advertisements?)"
        r"|by the same (?:author|translator|editor|writer)|(?:also|other (?:books|works|plays)"
        r"|books|works|plays)\s+by\s+[\w .’'-]+|new (?:books|novels|fiction))\s*[.:]?\s*$",
        re.I,
    ),
    "transcriber's note": re.compile(
        r"^\s*\[?\s*transcriber[’']?s?[’']?\s+notes?\s*[.:]?\s*\]?\s*$", re.I
    ),
}
_SECTION_END = re.compile(r"^\s*(?:act|scene)\s+[\w]+\b", re.I)
_PAGE_NUMBER = re.compile(r"\s*(?:\{\d+\}|\[Pg\.?\s*\d+\])")
_NOTE_MARKER = re.compile(r"(?<=[\w.,;:!?’”\"'])(?:\[\d{1,3}\]|\(\d{1,3}\))")


def heading_key(row: str) -> str:
    """The first two words of a chapter heading, lower case ("chapter i"): a contents entry
    and the heading it lists share it."""
    return " ".join(row.lower().replace(".", " ").split()[:2])


def contents_entries(blocks: list[list[str]]) -> set[int]:
    """Indexes of the blocks that are the contents list: blocks of chapter-heading rows whose
    headings all appear again in a later block, and the "Contents" line before them."""
    later: Counter = Counter(
        heading_key(row) for rows in blocks for row in rows if CHAPTER_LINE.match(row)
    )
    found = set()
    for index, rows in enumerate(blocks):
        listed = rows and all(CHAPTER_LINE.match(row) and len(row.strip()) <= 80 for row in rows)
        if listed and all(later[heading_key(row)] > 1 for row in rows):
            found.add(index)
            for row in rows:
                later[heading_key(row)] -= 1
        elif rows and _CONTENTS.match(rows[0]) and len(rows) == 1:
            found.add(index)
    return found


def furniture_sections(blocks: list[list[str]]) -> dict[int, str]:
    """Indexes of the blocks that are the edition's own pages, by kind: an errata list, an
    advertisement page ("By the same author"), transcriber's notes under their heading; each
    from its heading (a block of its own) to the next chapter or act heading."""
    found: dict[int, str] = {}
    kind = None
    for index, rows in enumerate(blocks):
        first = rows[0] if rows else ""
        heading = next((k for k, p in _SECTIONS.items() if len(rows) == 1 and p.match(first)), None)
        if heading:
            kind = heading
        elif kind and (CHAPTER_LINE.match(first) or _SECTION_END.match(first)):
            kind = None
        if kind and rows:
            found[index] = kind
    return found


def furniture(paragraph: str) -> str | None:
    """The kind of edition furniture a paragraph is ('footnote', 'illustration', …), or None."""
    for kind, pattern in _FURNITURE.items():
        if pattern.match(paragraph):
            return kind
    return None


def strip_markers(paragraph: str, left_out: Counter) -> str:
    """The paragraph without page numbers and note markers, each counted in `left_out`."""
    for kind, pattern in (("page number", _PAGE_NUMBER), ("note marker", _NOTE_MARKER)):
        paragraph, count = pattern.subn("", paragraph)
        if count:
            left_out[kind] += count
    return paragraph
