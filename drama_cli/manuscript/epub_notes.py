"""EPUB footnotes and endnotes read at the end of the chapter that refers to them
(`drama import --notes chapter-end`; by default they are left out with their references)."""

from __future__ import annotations

from drama_cli.manuscript.epub import Epub, epub_types, text_of

NOTE_TYPES = {"endnote", "footnote", "rearnote"}
NOTES = ("drop", "chapter-end")


def note_texts(epub: Epub) -> dict[str, str]:
    """Note id → its words, for every note of the book (`epub:type` endnote, footnote or
    rearnote with an id), back links left out."""
    return {
        note.get("id"): _words_inside(note)
        for _, root in epub.documents
        for note in root.iter()
        if note.get("id") and epub_types(note) & NOTE_TYPES
    }


def _words_inside(note) -> str:
    """The words of a note element (which `text_of` itself would leave out as a note)."""
    parts = [note.text or ""] + [f"{text_of(child)} {child.tail or ''}" for child in note]
    return " ".join(" ".join(parts).split())


def chapter_notes(body, notes: dict[str, str]) -> list[str]:
    """ "Note 1: …" paragraphs for the note references in `body`, in order; a reference to a
    note the book does not hold is skipped."""
    read = []
    for ref in body.iter():
        if "noteref" in epub_types(ref):
            target = (ref.get("href") or "").rpartition("#")[2]
            if notes.get(target):
                read.append(f"Note {text_of(ref) or len(read) + 1}: {notes[target]}")
    return read
