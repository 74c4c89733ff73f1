"""Markdown manuscripts, read by structure with markdown-it-py (CommonMark; installed with rich).

Headings of the chapter level become chapters (default: `#`, or `##` when the text has at most
one `#`, which is then the book's title); paragraphs, list items and quotes are read; a
thematic break (`***`, `---`) is a pause. Left out and counted: YAML front matter (its
`title:` and `author:` fill the book block), code blocks, tables, HTML blocks and comments,
images, footnote definitions (`[^1]: …`) and references (`[^1]`), headings below the chapter
level.
"""

from __future__ import annotations

import re
from collections import Counter

from markdown_it import MarkdownIt

from drama_cli.manuscript.imported import BREAK, OPENING, ImportedChapter, Manuscript

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FOOTNOTE_DEFINITION = re.compile(r"^\[\^[^\]]+\]:")
_FOOTNOTE_REFERENCE = re.compile(r"\[\^[^\]]+\]")
_SKIPPED_BLOCKS = {
    "table_open": ("table", "table_close"),
    "fence": ("code block", None),
    "code_block": ("code block", None),
    "html_block": ("HTML", None),
}


def front_matter(text: str, left_out: Counter) -> tuple[str, dict[str, str]]:
    """The text without its YAML front matter, and the matter's plain `key: value` pairs."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return text, {}
    left_out["front matter"] += 1
    pairs = dict(re.findall(r"^(\w+):[ \t]*[\"']?(.*?)[\"']?[ \t]*$", match.group(1), re.M))
    return text[match.end() :], {key.lower(): value for key, value in pairs.items() if value}


def read_markdown(text: str, stem: str, chapter_level: int | None = None) -> Manuscript:
    """The manuscript of a Markdown text (`chapter_level`: the heading level that opens a
    chapter, 1 for `#`; None to choose as the module says)."""
    left_out: Counter = Counter()
    text, meta = front_matter(text, left_out)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open"]
    level = chapter_level or (
        1 if levels.count(1) > 1 or (levels and min(levels) == 1 and 2 not in levels) else 2
    )
    manuscript = Manuscript(
        meta.get("title") or stem, meta.get("author"), [ImportedChapter(OPENING)], left_out=left_out
    )
    heading_title = _walk(tokens, level, manuscript)
    if heading_title and "title" not in meta:
        manuscript.title = heading_title
    if len(manuscript.chapters) > 1 and not any(
        p != BREAK for p in manuscript.chapters[0].paragraphs
    ):
        manuscript.chapters.pop(0)
    return manuscript


def _walk(tokens, level: int, manuscript: Manuscript) -> str | None:
    """Fill the manuscript's chapters from the token stream; returns the first `#` heading
    above the chapter level (the book's title), if any."""
    chapters, left_out = manuscript.chapters, manuscript.left_out
    title = None
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type in _SKIPPED_BLOCKS:
            kind, closing = _SKIPPED_BLOCKS[token.type]
            left_out[kind] += 1
            while closing and tokens[index].type != closing:
                index += 1
        elif token.type == "hr":
            chapters[-1].paragraphs.append(BREAK)
        elif token.type == "heading_open":
            words = _inline_text(tokens[index + 1], left_out)
            depth = int(token.tag[1])
            if depth == level:
                chapters.append(ImportedChapter(words))
            elif depth == 1 and title is None:
                title = words
            else:
                left_out[
                    "heading above the chapter level"
                    if depth < level
                    else "heading below the chapter level"
                ] += 1
            index += 2
        elif token.type == "inline" and _FOOTNOTE_DEFINITION.match(token.content):
            left_out["footnote"] += 1
        elif token.type == "inline" and _inline_text(token, Counter()):
            chapters[-1].paragraphs.append(_inline_text(token, left_out))
        index += 1
    return title


def _inline_text(token, left_out: Counter) -> str:
    """The words of an inline token: text and inline code as written, links as their words,
    images and inline HTML left out, footnote references dropped."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            left_out["image"] += 1
        elif child.type == "html_inline":
            left_out["HTML"] += 1
            parts.append(
                " " if re.match(r"<br\b", child.content, re.I) else ""
            )  # a line break parts words
    words = "".join(parts)
    words, count = _FOOTNOTE_REFERENCE.subn("", words)
    if count:
        left_out["note marker"] += count
    return " ".join(words.split())
