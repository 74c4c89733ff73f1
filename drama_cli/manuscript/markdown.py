"""Markdown manuscripts, read by structure with markdown-it-py (CommonMark) and the plugins of
mdit-py-plugins, so that Pandoc's Markdown is read as its structure, never its markup.

Headings of the chapter level become chapters (default: `#`, or `##` when the text has at most
one `#`, which is then the book's title); paragraphs, list items, quotes, definition lists and
the contents of fenced divs (`::: note`) are read; a thematic break (`***`, `---`) is a pause.
Left out and counted: YAML front matter (its `title:` and `author:` fill the book block) and a
Pandoc title block (`% Title`, `% Author`, `% Date` lines), code blocks, tables, HTML blocks and
comments, images, footnotes (`[^1]: …` and inline `^[…]`) and their references, attribute
blocks (`{#id .class}`, `{width=60%}`), headings below the chapter level.
"""

from __future__ import annotations

import re
from collections import Counter

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from drama_cli.manuscript.imported import BREAK, OPENING, ImportedChapter, Manuscript

_SKIPPED_BLOCKS = {
    "table_open": ("table", "table_close"),
    "fence": ("code block", None),
    "code_block": ("code block", None),
    "html_block": ("HTML", None),
    "footnote_block_open": (None, "footnote_block_close"),
}
# Pandoc attributes the attribute plugin leaves as text: after a heading's words or an image
# (`{#id}`, `{width=60%}`); `{NARRATOR}` is words.
_ATTRIBUTE = r"(?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|[^\s}]+))"
_ATTRIBUTES = re.compile(
    rf"\s*\{{\s*{_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*\s*\}}\s*$|^\{{\s*{_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*\s*\}}"
)


def _parser() -> MarkdownIt:
    """CommonMark with tables, YAML front matter, footnotes, attributes, fenced divs of any
    name and definition lists."""
    return (
        MarkdownIt("commonmark")
        .enable("table")
        .use(front_matter_plugin)
        .use(footnote_plugin)
        .use(attrs_plugin, spans=True)
        .use(attrs_block_plugin)
        .use(container_plugin, "div", validate=lambda *_: True)
        .use(deflist_plugin)
    )


def front_matter(content: str) -> dict[str, str]:
    """The `title` and `author` of YAML front matter (an author list joined), as text."""
    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    meta = {}
    for key in ("title", "author"):
        value = data.get(key)
        if isinstance(value, list):
            value = ", ".join(
                str(v if not isinstance(v, dict) else v.get("name", "")) for v in value
            )
        if value:
            meta[key] = " ".join(str(value).split())
    return meta


def _title_block(text: str, left_out: Counter) -> tuple[str, dict[str, str]]:
    """The text without a Pandoc title block (`%` lines at its start), and its title and author."""
    rows = text.split("\n")
    count = 0
    while count < min(3, len(rows)) and rows[count].startswith("%"):
        count += 1
    if not count:
        return text, {}
    left_out["title block"] += 1
    fields = [row[1:].strip() for row in rows[:count]]
    meta = dict(zip(("title", "author"), fields[:2]))
    return "\n".join(rows[count:]), {key: value for key, value in meta.items() if value}


def read_markdown(text: str, stem: str, chapter_level: int | None = None) -> Manuscript:
    """The manuscript of a Markdown text (`chapter_level`: the heading level that opens a
    chapter, 1 for `#`; None to choose as the module says)."""
    left_out: Counter = Counter()
    text, meta = _title_block(text, left_out)
    tokens = _parser().parse(text)
    for token in tokens:
        if token.type == "front_matter":
            left_out["front matter"] += 1
            meta = {**meta, **front_matter(token.content)}
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
            if kind:
                left_out[kind] += 1
            while closing and tokens[index].type != closing:
                left_out["footnote"] += tokens[index].type == "footnote_open"
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
        elif token.type == "inline":
            words = _inline_text(token, left_out)  # an image alone is counted, never a line
            if words:
                chapters[-1].paragraphs.append(words)
        index += 1
    return title


def _inline_text(token, left_out: Counter) -> str:
    """The words of an inline token: text and inline code as written, links and spans as their
    words, images, inline HTML and attribute blocks left out, footnote references dropped."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            words = child.content
            if child.type == "text" and _ATTRIBUTES.search(words):
                words = _ATTRIBUTES.sub("", words)
                left_out["attributes"] += 1
            parts.append(words)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            left_out["image"] += 1
        elif child.type == "footnote_ref":
            left_out["note marker"] += 1
        elif child.type == "html_inline":
            left_out["HTML"] += 1
            parts.append(
                " " if re.match(r"<br\b", child.content, re.I) else ""
            )  # a line break parts words
    return " ".join("".join(parts).split())
