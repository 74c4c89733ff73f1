"""Manuscripts (`.txt`, `.md`, `.epub`) read for `drama import`.

Chapters come from headings: Markdown `#` lines (`##` when the text has no `#`), plain-text
heading lines (`plain_text.CHAPTER_LINE`, a heading line with the paragraph right under it
gives both), and for EPUB the reading order of the package (`manuscript.epub_novel`; plays in
`manuscript.play`, plays printed as text in `manuscript.text_play`). Paragraphs are blank-line
separated (EPUB `<p>`), or lines, in a text saved with one line per paragraph.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from drama_cli.errors import UsageError
from drama_cli.manuscript.attribution import AttributionOptions
from drama_cli.manuscript.epub import Epub, is_play
from drama_cli.manuscript.epub_novel import read_novel
from drama_cli.manuscript.fountain_writer import cast_yaml, fountain_text
from drama_cli.manuscript.headings import spoken_heading
from drama_cli.manuscript.imported import BREAK, OPENING, ImportedChapter, Manuscript
from drama_cli.manuscript.markdown import read_markdown
from drama_cli.manuscript.plain_text import (
    CHAPTER_LINE,
    NUMERAL_LINE,
    ORNAMENT,
    contents_entries,
    furniture,
    furniture_sections,
    strip_markers,
)
from drama_cli.manuscript.play import read_play
from drama_cli.manuscript.text_play import is_text_play, read_text_play, with_cue_marks
from drama_cli.manuscript.writer import ImportReport, script_yaml
from drama_cli.script.resolve import name_key

SUFFIXES = (".txt", ".md", ".markdown", ".epub")
SCRIPT_KINDS = (
    "yaml",
    "fountain",
)  # what `drama import --to` writes; a Fountain play comes with its cast file
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# An encoding a text names in its first lines: Project Gutenberg's header line, an HTML-style
# `charset=` or an editor's `coding:` mark.
_DECLARED_ENCODING = re.compile(
    rb"(?:character set encoding|charset|coding)\s*[:=]\s*[\"']?([A-Za-z][\w.-]*)", re.I
)
# Latin-1 read as Windows-1252: the same letters, and the typographic marks that Windows puts
# where Latin-1 has only control codes (curly quotes, dashes) read as what they are.
_LATIN_1 = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1", "iso", "cp819", "windows-1252"}


def read_manuscript(
    path: Path, directions: str = "narrate", chapter_level: int | None = None, notes: str = "drop"
) -> Manuscript:
    """Read a `.txt`, `.md` or `.epub` manuscript, or `-`: stdin, an EPUB when it is a zip,
    else Markdown when a line is a `#` heading, else plain text (`directions`: a play's stage
    directions, 'narrate' or 'drop'; `chapter_level`: the Markdown heading level of chapters;
    `notes`: an EPUB's notes, 'drop' or 'chapter-end'). Raises UsageError, one line, for
    another suffix, an unreadable file, text that is not UTF-8 (or UTF-16 with its byte-order
    mark), a broken EPUB or one with nothing to read."""
    path = Path(path)
    if str(path) == "-":
        return _read_stdin(directions, chapter_level, notes)
    suffix = path.suffix.lower()
    if suffix in (".fountain", ".yaml", ".yml"):
        raise UsageError(
            f"{path.name} is already a script: drama check, compile and render read it as it is"
        )
    if suffix not in SUFFIXES:
        raise UsageError(
            f"cannot import {path.name}: a manuscript is .txt, .md or .epub (save it as one of those)"
        )
    try:
        if suffix == ".epub":
            manuscript = read_epub(path, directions, notes)
        else:
            manuscript = _read_words(
                _decoded(path.read_bytes(), str(path)),
                path.stem,
                suffix == ".txt",
                directions,
                chapter_level,
            )
    except IsADirectoryError:
        raise UsageError(f"cannot read {path}: it is a folder") from None
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    return _with_paragraphs(manuscript, path.name)


def read_epub(path: Path, directions: str = "narrate", notes: str = "drop") -> Manuscript:
    """The manuscript of an EPUB: a play's cast and scenes (`manuscript.play`) or a novel's
    chapters of paragraphs (`notes`: 'drop', or 'chapter-end' to read a chapter's notes at its
    end); metadata from the OPF. Raises UsageError for a broken package."""
    epub = Epub(path)
    meta = epub.metadata
    manuscript = Manuscript(
        meta["title"] or path.stem,
        meta["creator"],
        [],
        language=meta["language"],
        publisher=meta["publisher"],
        rights=meta["rights"],
    )
    if is_play(epub):
        read_play(epub, manuscript, directions)
    else:
        read_novel(epub, manuscript, notes == "chapter-end")
        _as_text_play(manuscript, directions)
    return manuscript


def _as_text_play(manuscript: Manuscript, directions: str) -> None:
    """A book without Standard Ebooks' play semantics whose paragraphs are speeches
    ("LANE. Yes, sir.", as plain-text plays print them) is read as a play (`manuscript.text_play`),
    each chapter's title a row before its paragraphs ("Act One" opens an act)."""
    if not is_text_play(
        [p for chapter in manuscript.chapters for p in chapter.paragraphs if p != BREAK]
    ):
        return
    blocks = [
        [row]
        for chapter in manuscript.chapters
        for row in (chapter.title, *chapter.paragraphs)
        if row != BREAK
    ]
    manuscript.chapters = []
    read_text_play(blocks, manuscript, directions)


def _read_stdin(directions: str, chapter_level: int | None, notes: str) -> Manuscript:
    data = sys.stdin.buffer.read()
    if data.startswith(b"PK\x03\x04"):
        with tempfile.TemporaryDirectory(prefix="drama-import-") as folder:
            (Path(folder) / "stdin.epub").write_bytes(data)
            return _with_paragraphs(
                read_epub(Path(folder) / "stdin.epub", directions, notes), "stdin"
            )
    text = _decoded(data, "stdin")
    plain = not re.search(r"^#{1,6}[ \t]+\S", text, re.M)
    return _with_paragraphs(_read_words(text, "stdin", plain, directions, chapter_level), "stdin")


def _read_words(
    text: str, stem: str, plain: bool, directions: str, chapter_level: int | None
) -> Manuscript:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _read_text(text, stem, directions) if plain else read_markdown(text, stem, chapter_level)


def _decoded(data: bytes, label: str) -> str:
    """Manuscript bytes as text: UTF-8 (a byte-order mark dropped), UTF-16 with its mark, the
    encoding the file names in its first lines (Project Gutenberg's `Character set encoding:
    ISO-8859-1`, a `charset=` or `coding:` mark), else Windows-1252 (a superset of Latin-1's
    printable characters) when the bytes read as it and most are ASCII; control
    characters other than tab and line ends become spaces. Raises UsageError naming
    `label`:line:col and the byte for text that is none of these."""
    try:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            text = data.decode("utf-16")
        else:
            text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        text = _legacy_text(data)
        if text is None:
            raw = data[: err.start]
            line = raw.count(b"\n") + 1
            column = err.start - (raw.rfind(b"\n") + 1) + 1
            raise UsageError(
                f"{label}:{line}:{column}: not UTF-8 text (byte 0x{data[err.start]:02x}); "
                "save the manuscript as UTF-8"
            ) from None
    return _CONTROL.sub(" ", text)


def _legacy_text(data: bytes) -> str | None:
    """Text in an 8-bit encoding: the one the file declares, else Windows-1252 when every byte
    is defined there, none is NUL and at most a third are outside ASCII; None otherwise."""
    declared = _DECLARED_ENCODING.search(data[:20000])
    names = [declared.group(1).decode("ascii")] if declared else []
    if not declared and (b"\x00" in data or 3 * sum(byte > 0x7F for byte in data) > len(data)):
        return None
    if names and names[0].lower().replace("_", "-") in _LATIN_1:
        names = ["cp1252", "latin-1"]
    for name in [*names, "cp1252"]:
        try:
            return data.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return None


def _with_paragraphs(manuscript: Manuscript, name: str) -> Manuscript:
    """The manuscript without empty chapters; UsageError when nothing is left to read."""
    manuscript.chapters = [c for c in manuscript.chapters if not c.is_empty()]
    if not manuscript.chapters:
        raise UsageError(f"{name} holds no paragraphs to read")
    return manuscript


def _strip_gutenberg(text: str) -> tuple[str, dict, Counter]:
    """The text between Project Gutenberg's START and END markers (all of it without them),
    the `Title:` / `Author:` lines of its header, and what was left out by kind: without a
    START marker the header lines are taken out of the text ('title line', 'author line')."""
    header, left_out = {}, Counter()
    start = re.search(r"^\*\*\*\s*START OF.*\*\*\*\s*$", text, re.M)
    end = re.search(r"^\*\*\*\s*END OF.*\*\*\*\s*$", text, re.M)
    for key in ("Title", "Author"):
        match = re.search(rf"^{key}:\s*(.+)$", text[:5000], re.M)
        if match:
            header[key.lower()] = match.group(1).strip()
            if not start:
                text = text[: match.start()] + text[match.end() + 1 :]
                left_out[f"{key.lower()} line"] += 1
    if start:
        text = text[start.end() : end.start() if end else None]
    return text, header, left_out


def _read_text(text: str, stem: str, directions: str = "narrate") -> Manuscript:
    text, header, header_lines = _strip_gutenberg(text)
    manuscript = Manuscript(
        header.get("title") or stem, header.get("author"), [ImportedChapter(OPENING)]
    )
    manuscript.left_out.update(header_lines)
    chapters, left_out = manuscript.chapters, manuscript.left_out
    blocks = [
        [row for row in block.split("\n") if row.strip()] for block in re.split(r"\n\s*\n", text)
    ]
    if _lines_are_paragraphs(blocks):
        blocks = [[row] for rows in blocks for row in rows]
    blocks = _without_furniture(blocks, left_out)
    play = with_cue_marks(blocks)
    if is_text_play([" ".join(rows) for rows in play if rows]):
        read_text_play(play, manuscript, directions)
        return manuscript
    contents = contents_entries(blocks)
    left_out["contents list"] += bool(contents)
    numbered = sum(bool(rows) and bool(NUMERAL_LINE.match(rows[0])) for rows in blocks) >= 2
    titled = True  # the last chapter's title is complete (no subtitle may follow)
    for index, rows in enumerate(blocks):
        if index in contents:
            continue
        if rows and CHAPTER_LINE.match(rows[0]) and len(rows[0].strip()) <= 80:
            chapters.append(ImportedChapter(_title_case(rows[0].strip().rstrip("."))))
            titled = len(rows[0].split()) > 2  # "CHAPTER I. The Lamp" has its title already
            rows = rows[1:]  # a paragraph right under its heading is still read
        elif rows and numbered and NUMERAL_LINE.match(rows[0]):
            chapters.append(ImportedChapter(spoken_heading(rows[0].strip().rstrip("."))))
            rows, titled = rows[1:], False
        if rows and not titled and _is_subtitle(rows[0]):  # "CHAPTER I." over "THE LAMP."
            chapters[-1].title += ": " + _title_case(" ".join(rows[0].split()).rstrip("."))
            rows = rows[1:]
        titled = titled or bool(rows)
        paragraph = " ".join(" ".join(rows).split())
        kind = furniture(paragraph) if paragraph else None
        if kind:
            left_out[kind] += 1
        elif paragraph and ORNAMENT.fullmatch(paragraph):
            chapters[-1].paragraphs.append(BREAK)
        elif paragraph and strip_markers(paragraph, left_out).strip():
            chapters[-1].paragraphs.append(" ".join(strip_markers(paragraph, Counter()).split()))
    if len(chapters) > 1 and not any(p != BREAK for p in chapters[0].paragraphs):
        chapters.pop(0)
    manuscript.left_out = +left_out
    return manuscript


def _without_furniture(blocks: list[list[str]], left_out: Counter) -> list[list[str]]:
    """The blocks less the edition's pages (errata, advertisements, transcriber's notes: each
    counted once) and its furniture paragraphs (each counted), `plain_text` says which."""
    sections = furniture_sections(blocks)
    kept = []
    for index, rows in enumerate(blocks):
        if index in sections:
            left_out[sections[index]] += sections.get(index - 1) != sections[index]
            continue
        kind = furniture(" ".join(" ".join(rows).split())) if rows else None
        if kind:
            left_out[kind] += 1
        else:
            kept.append(rows)
    return kept


def _lines_are_paragraphs(blocks: list[list[str]]) -> bool:
    """True when each line of the text is a paragraph (as a word processor saves text: no
    blank lines between paragraphs, or lines too long to be wrapped ones): the text has no
    blank line, or a fifth of the lines of its blocks of several lines are over 100 characters."""
    wrapped = [row for rows in blocks if len(rows) > 1 for row in rows]
    if not wrapped:
        return False
    return len([rows for rows in blocks if rows]) == 1 or 5 * sum(
        len(row) > 100 for row in wrapped
    ) >= len(wrapped)


def _is_subtitle(row: str) -> bool:
    """True for a chapter's title in capitals on the line under its heading ("THE LAMP.")."""
    words = row.strip().rstrip(".")
    return (
        0 < len(words) <= 60
        and words == words.upper()
        and bool(re.search(r"[A-Z]{2}", words))
        and not CHAPTER_LINE.match(words)
        and not ORNAMENT.fullmatch(words)
    )


def _title_case(heading: str) -> str:
    """`CHAPTER I.` → `Chapter I`: a shouted heading in title case, roman numerals kept."""
    if heading != heading.upper():
        return heading
    return " ".join(
        word if re.fullmatch(r"[IVXLCDM]+", word) else word.capitalize() for word in heading.split()
    )


@dataclass(frozen=True)
class ImportedScript:
    """What `import_script` made of a manuscript: `texts`, the YAML script, or the Fountain
    screenplay and its cast file; `yaml`, the YAML script in either case; the import's report
    and its number of chapters."""

    texts: tuple[str, ...]
    yaml: str
    report: ImportReport
    chapters: int


def import_script(
    path: Path,
    to: str = "yaml",
    *,
    narrator: str | None = None,
    title: str | None = None,
    author: str | None = None,
    dialogue: bool = False,
    narrator_is: str | None = None,
    keep_tags: bool = True,
    directions: str = "narrate",
    chapter_level: int | None = None,
    notes: str = "drop",
    notice: Callable[[str], None] = print,
    min_confidence: float = 0.0,
) -> ImportedScript:
    """`drama import`: read the manuscript `path` (`read_manuscript`) and write it as a script
    of kind `to` (one of SCRIPT_KINDS), titled `title` and by `author` when given, with the
    quotes as lines of their speakers with `dialogue` (`narrator_is`: who says "said I";
    `keep_tags`: speech tags stay narration; `min_confidence`: a quote whose speaker was found
    with less confidence stays UNATTRIBUTED). A manuscript from stdin that names no title is
    said to `notice`. Raises UsageError for a novel with `directions` 'drop' or `to` 'fountain'."""
    book = read_manuscript(path, directions, chapter_level, notes)
    source = "stdin" if str(path) == "-" else Path(path).name
    if directions == "drop" and not book.is_play:
        raise UsageError(
            f"--directions drop is for a play's stage directions; {source} is read as a novel"
        )
    book.title = " ".join(title.split()) if title and title.strip() else book.title
    if book.title == "stdin" and source == "stdin":
        notice("import: the manuscript names no title, so the book is titled stdin; give --title")
    book.author = " ".join(author.split()) if author and author.strip() else book.author
    options = AttributionOptions(
        narrator_is=name_key(narrator_is) if narrator_is else None,
        keep_tags=keep_tags,
        min_confidence=min_confidence,
    )
    text, report = script_yaml(book, narrator, dialogue, source, options)
    if to == "fountain" and not book.is_play:
        raise UsageError(f"--to fountain writes plays; {source} is read as a novel (write YAML)")
    texts = (fountain_text(book, source), cast_yaml(book)) if to == "fountain" else (text,)
    return ImportedScript(texts, text, report, len(book.chapters))
