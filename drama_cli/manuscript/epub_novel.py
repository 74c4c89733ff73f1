"""A novel in EPUB: chapters of paragraphs from the table of contents and the headings, with
its notes read at a chapter's end when asked (`manuscript.epub_notes`)."""

from __future__ import annotations

from collections import Counter

from drama_cli.manuscript.epub import (
    BLOCKS,
    HEADINGS,
    Epub,
    bodies,
    epub_types,
    left_out_here,
    local,
    text_of,
)
from drama_cli.manuscript.epub_notes import chapter_notes, note_texts
from drama_cli.manuscript.headings import spoken_heading
from drama_cli.manuscript.imported import BREAK, ImportedChapter, Manuscript


def read_novel(epub: Epub, manuscript: Manuscript, with_notes: bool) -> None:
    """Chapters from the table of contents and headings; pages before the first chapter (a
    cover, a title page without its epub:type) are left out, unless no page has a heading:
    then the whole book is one chapter named by its title. `with_notes`: each page's notes
    are read after its last paragraph."""
    notes = note_texts(epub) if with_notes else {}
    before_first: list[str] = []
    for href, body in bodies(epub, manuscript.left_out):
        reader = _Paragraphs(manuscript.left_out)
        reader.walk(body)
        read = chapter_notes(body, notes) if with_notes else []
        if read:
            reader.chapters[-1][1].extend(read)
            manuscript.left_out["note read at the chapter's end"] += len(read)
        name = epub.toc.get(href)
        for index, (heading, paragraphs) in enumerate(reader.chapters):
            title = heading if index or not name else name
            if title:
                manuscript.chapters.append(
                    ImportedChapter(spoken_heading(title, reader.kinds[index]))
                )
            elif not manuscript.chapters:
                before_first += paragraphs
                continue
            manuscript.chapters[-1].paragraphs.extend(paragraphs)
    if not manuscript.chapters and before_first:
        manuscript.chapters.append(ImportedChapter(manuscript.title, before_first))
    elif before_first:
        manuscript.left_out["page before the first chapter"] += 1


class _Paragraphs:
    """Paragraphs of a document body under their headings: `chapters` is a list of (heading
    or None, paragraphs); a section with a heading opens a new one."""

    def __init__(self, left_out: Counter):
        self.left_out = left_out
        self.chapters: list[tuple[str | None, list[str]]] = [(None, [])]
        self.kinds: list[str] = ["chapter"]

    def walk(self, element, section_kind: str = "chapter") -> None:
        for child in element:
            name = local(child.tag)
            if left_out_here(child, self.left_out):
                continue
            if name in HEADINGS:
                self._heading(text_of(child, self.left_out), section_kind)
            elif name == "hr":
                self.chapters[-1][1].append(BREAK)  # a scene break: a pause
            elif name in BLOCKS and any(local(c.tag) in BLOCKS | HEADINGS for c in child):
                kinds = epub_types(child)
                self.walk(child, "part" if "part" in kinds else section_kind)
            elif name:
                words = text_of(child, self.left_out)
                if words:
                    self.chapters[-1][1].append(words)

    def _heading(self, words: str, kind: str) -> None:
        if not words:
            return
        if self.chapters[-1][0] is None and not self.chapters[-1][1]:
            self.chapters[-1] = (words, [])
            self.kinds[-1] = kind
        elif self.chapters[-1][1] or self.chapters[-1][0] is None:
            self.chapters.append((words, []))
            self.kinds.append(kind)
        else:  # a subtitle right under the heading: one title
            self.chapters[-1] = (f"{self.chapters[-1][0]}: {words}", [])
