"""Manuscripts (`.txt`, `.md`, `.epub`) → a YAML book script for `drama import`.

Chapters come from headings: Markdown `#` lines (`##` when the text has no `#`), plain-text
lines that start with "Chapter" (any case) followed by a number or a word, and for EPUB the
spine in reading order, each document the table of contents names opening a chapter with that
title. Paragraphs (blank-line separated; EPUB `<p>`) become narrator lines, in source order.

With `dialogue=True`, text in double quotes (“…” or "…") becomes a line of its own, attributed
when the narration right after (or right before) it is a simple speech tag: a speech verb next
to a capitalised name ("said Holmes", "Watson asked", "cried Mrs. Bennet"). Quotes without one
go to the placeholder speaker UNATTRIBUTED, which `drama check` lists with the cast.

EPUB is read with the standard library (zipfile, ElementTree, html.parser): the format is a
zip of XHTML files with an OPF package file, and a reader of that much needs no dependency.
"""

from __future__ import annotations

import html.parser
import json
import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from drama_cli.errors import UsageError
from drama_cli.script.book import UNATTRIBUTED

NARRATOR = "NARRATOR"
PLACEHOLDER = UNATTRIBUTED
SUFFIXES = (".txt", ".md", ".markdown", ".epub")
SPEECH_VERBS = ("said", "says", "asked", "asks", "cried", "replied", "answered", "returned",
                "whispered", "shouted", "called", "continued", "remarked", "exclaimed", "observed",
                "muttered", "added", "began", "repeated", "murmured", "told", "demanded", "snapped")
_TITLED = r"(?:Mr|Mrs|Ms|Miss|Dr|Sir|Lady|Lord|Captain|Colonel|Professor)\.?"
_NAME = rf"((?:{_TITLED}\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
_VERBS = "|".join(SPEECH_VERBS)
_AFTER = re.compile(rf"^[\s,;:—–-]*(?:{_VERBS})\s+{_NAME}\b")  # said Holmes
_BEFORE = re.compile(rf"^[\s,;:—–-]*{_NAME}\s+(?:{_VERBS})\b")  # Holmes said
_CHAPTER_LINE = re.compile(r"^\s*(chapter|book|part)\s+([0-9]+|[ivxlcdm]+|[a-z-]+)\b.*$", re.I)
# Double quotes (curly or straight), and single quotes (curly or straight) that open after a
# space or the start and close before a space, punctuation or the end: an apostrophe between
# letters (don't, don’t) stays inside, and one that ends a word (Holmes' hat) opens nothing.
_QUOTE = re.compile(r"“([^”]*)”|\"([^\"]*)\""
                    r"|(?<![\w‘’'])‘((?:[^’]|(?<=\w)’(?=\w))+?)’(?![\w’])"
                    r"|(?<![\w'’])'((?:[^']|(?<=\w)'(?=\w))+?)'(?![\w'])")
_INSIDE_SENTENCE = re.compile(r"[,.!?…;:—–]")  # a quote holding none of these reads as a title
_NOT_A_NAME = {"The", "He", "She", "It", "They", "We", "I", "You", "His", "Her", "This", "That"}


@dataclass
class ImportedChapter:
    """A chapter read from a manuscript: its title and paragraphs in source order."""

    title: str
    paragraphs: list[str] = field(default_factory=list)


@dataclass
class Manuscript:
    """A whole manuscript: title, author (when the source names them) and chapters."""

    title: str
    author: str | None
    chapters: list[ImportedChapter]


def read_manuscript(path: Path) -> Manuscript:
    """Read a `.txt`, `.md` or `.epub` manuscript. Raises UsageError for another suffix, an
    unreadable file or one with no text."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UsageError(f"cannot import {path.name}: a manuscript is .txt, .md or .epub")
    try:
        if suffix == ".epub":
            manuscript = _read_epub(path)
        else:
            text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
            manuscript = _read_markdown(text, path.stem) if suffix != ".txt" else _read_text(text, path.stem)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    except (UnicodeDecodeError, zipfile.BadZipFile, ElementTree.ParseError, KeyError) as err:
        raise UsageError(f"cannot read {path.name}: {err}") from None
    manuscript.chapters = [c for c in manuscript.chapters if c.paragraphs]
    if not manuscript.chapters:
        raise UsageError(f"{path.name} holds no paragraphs to read")
    return manuscript


def _strip_gutenberg(text: str) -> tuple[str, dict]:
    """The text between Project Gutenberg's START and END markers (all of it without them),
    and the `Title:` / `Author:` lines of its header."""
    header = {}
    for key in ("Title", "Author"):
        match = re.search(rf"^{key}:\s*(.+)$", text[:5000], re.M)
        if match:
            header[key.lower()] = match.group(1).strip()
    start = re.search(r"^\*\*\*\s*START OF.*\*\*\*\s*$", text, re.M)
    end = re.search(r"^\*\*\*\s*END OF.*\*\*\*\s*$", text, re.M)
    if start:
        text = text[start.end():end.start() if end else None]
    return text, header


def _paragraphs(text: str) -> list[str]:
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def _read_text(text: str, stem: str) -> Manuscript:
    text, header = _strip_gutenberg(text)
    chapters = [ImportedChapter("Opening")]
    for paragraph in _paragraphs(text):
        if _CHAPTER_LINE.match(paragraph) and len(paragraph) <= 80:
            chapters.append(ImportedChapter(_title_case(paragraph.rstrip("."))))
        elif not re.fullmatch(r"\[Illustration[^\]]*\]", paragraph):
            chapters[-1].paragraphs.append(paragraph)
    if len(chapters) > 1 and not chapters[0].paragraphs:
        chapters.pop(0)
    return Manuscript(header.get("title") or stem, header.get("author"), chapters)


def _title_case(heading: str) -> str:
    """`CHAPTER I.` → `Chapter I`: a shouted heading in title case, roman numerals kept."""
    if heading != heading.upper():
        return heading
    return " ".join(word if re.fullmatch(r"[IVXLCDM]+", word) else word.capitalize()
                    for word in heading.split())


def _read_markdown(text: str, stem: str) -> Manuscript:
    level = "#" if re.search(r"^#\s", text, re.M) else "##"
    chapters = [ImportedChapter("Opening")]
    title = None
    for paragraph in _paragraphs(text):
        heading = re.match(r"^(#+)\s+(.*)$", paragraph)
        if heading and heading.group(1) == level:
            chapters.append(ImportedChapter(_plain_markdown(heading.group(2))))
        elif heading and level == "##" and heading.group(1) == "#":
            title = title or _plain_markdown(heading.group(2))
        elif heading:
            continue  # deeper headings are structure, not read
        else:
            chapters[-1].paragraphs.append(_plain_markdown(paragraph))
    if len(chapters) > 1 and not chapters[0].paragraphs:
        chapters.pop(0)
    return Manuscript(title or stem, None, chapters)


def _plain_markdown(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)  # images
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their words
    text = re.sub(r"(\*\*|__|\*|_|`)", "", text)
    text = re.sub(r"^\s*>\s?", "", text)
    return " ".join(text.split())


class _XhtmlText(html.parser.HTMLParser):
    """Paragraph texts (`<p>`, `<div>` without inner paragraphs, list items) and the first
    heading of one XHTML document."""

    BLOCKS = {"p", "li", "blockquote", "div"}
    HEADINGS = {"h1", "h2", "h3"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self.heading: str | None = None
        self._text: list[str] = []
        self._in_heading = False
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "head"):
            self._skip += 1
        elif tag in self.HEADINGS:
            self._flush()
            self._in_heading = True
        elif tag in self.BLOCKS or tag == "br":
            self._flush() if tag != "br" else self._text.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "head"):
            self._skip = max(0, self._skip - 1)
        elif tag in self.HEADINGS:
            words = " ".join("".join(self._text).split())
            self._text = []
            self._in_heading = False
            if words and self.heading is None:
                self.heading = words
        elif tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data):
        if not self._skip:
            self._text.append(data)

    def _flush(self):
        words = " ".join("".join(self._text).split())
        self._text = []
        if words and not self._in_heading:
            self.paragraphs.append(words)

    def close(self):
        super().close()
        self._flush()


_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "opf": "http://www.idpf.org/2007/opf",
       "dc": "http://purl.org/dc/elements/1.1/", "ncx": "http://www.daisy.org/z3986/2005/ncx/",
       "x": "http://www.w3.org/1999/xhtml"}


def _read_epub(path: Path) -> Manuscript:
    with zipfile.ZipFile(path) as book:
        container = ElementTree.fromstring(book.read("META-INF/container.xml"))
        opf_path = container.find(".//c:rootfile", _NS).get("full-path")
        opf = ElementTree.fromstring(book.read(opf_path))
        base = posixpath.dirname(opf_path)
        title = (opf.findtext(".//dc:title", default="", namespaces=_NS) or path.stem).strip()
        author = (opf.findtext(".//dc:creator", default="", namespaces=_NS) or "").strip() or None
        items = {item.get("id"): item for item in opf.find("opf:manifest", _NS)}
        spine = [items[ref.get("idref")].get("href") for ref in opf.find("opf:spine", _NS)
                 if ref.get("idref") in items]
        toc = _epub_toc(book, base, items.values())
        chapters: list[ImportedChapter] = []
        for href in spine:
            parser = _XhtmlText()
            parser.feed(book.read(posixpath.join(base, href)).decode("utf-8", "replace"))
            parser.close()
            name = toc.get(href) or (parser.heading if not chapters or not toc else None)
            if name:
                chapters.append(ImportedChapter(name))
            elif not chapters:
                continue  # cover and title pages before the first chapter
            chapters[-1].paragraphs.extend(parser.paragraphs)
    return Manuscript(title, author, chapters)


def _epub_toc(book: zipfile.ZipFile, base: str, items) -> dict[str, str]:
    """Document href → title from the EPUB 3 navigation document or the EPUB 2 NCX (first
    entry per document)."""
    toc: dict[str, str] = {}
    for item in items:
        href = posixpath.join(base, item.get("href"))
        if "nav" in (item.get("properties") or "").split():
            nav = ElementTree.fromstring(book.read(href))
            for link in nav.iter(f"{{{_NS['x']}}}a"):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(item.get("href")),
                                                           link.get("href", "").split("#")[0]))
                toc.setdefault(target, " ".join("".join(link.itertext()).split()))
            return toc
    for item in items:
        if item.get("media-type") == "application/x-dtbncx+xml":
            ncx = ElementTree.fromstring(book.read(posixpath.join(base, item.get("href"))))
            for point in ncx.iter(f"{{{_NS['ncx']}}}navPoint"):
                label = " ".join((point.findtext("ncx:navLabel/ncx:text", "", _NS)).split())
                target = point.find("ncx:content", _NS).get("src", "").split("#")[0]
                toc.setdefault(target, label)
    return toc


def speech_lines(paragraph: str, dialogue: bool) -> list[tuple[str, str]]:
    """(speaker, text) lines of one paragraph: the narrator's whole paragraph, or with
    `dialogue` its quotes and the narration around them as separate lines."""
    if not dialogue or not _QUOTE.search(paragraph):
        return [(NARRATOR, paragraph)]
    pieces: list[list[str]] = []  # [kind, text]; a quoted title stays in its narration
    last = 0
    for match in _QUOTE.finditer(paragraph):
        quote = next(group for group in match.groups() if group is not None)
        before = paragraph[last:match.start()]
        after = paragraph[match.end():]
        if _quoted_words(quote, before, after):
            before += match.group(0)
        if pieces and pieces[-1][0] == "narration":
            pieces[-1][1] += before
        else:
            pieces.append(["narration", before])
        if not _quoted_words(quote, paragraph[last:match.start()], after):
            pieces.append(["quote", quote])
        last = match.end()
    if pieces and pieces[-1][0] == "narration":
        pieces[-1][1] += paragraph[last:]
    else:
        pieces.append(["narration", paragraph[last:]])
    lines = []
    previous = None  # (speaker, piece index) of the last quote
    for index, (kind, text) in enumerate(pieces):
        text = text.strip()
        if kind == "quote":
            if text:
                after = pieces[index + 1][1] if index + 1 < len(pieces) else ""
                before = pieces[index - 1][1] if index else ""
                speaker = _speaker(after, before)
                if speaker == PLACEHOLDER and previous and previous[1] == index - 2 \
                        and previous[0] != PLACEHOLDER and _tag_only(before, previous[0]):
                    speaker = previous[0]  # "Thank you," Watson replied. "It is cold tonight."
                previous = (speaker, index)
                lines.append((speaker, text))
        elif text.strip(" ,;:—–-"):
            lines.append((NARRATOR, text.strip(" ,;:—–-").strip()))
    return lines


def _quoted_words(quote: str, before: str, after: str) -> bool:
    """A quote that is words named inside a sentence ("She had read "The Times" that
    morning."): no speech tag beside it, no comma or sentence mark inside, and the sentence
    going on before and after it."""
    if _INSIDE_SENTENCE.search(quote) or _speaker(after, before) != PLACEHOLDER:
        return False
    if re.search(rf"\b(?:{_VERBS})\W*$", before) or re.match(rf"\W*(?:\w+\s+)?(?:{_VERBS})\b", after):
        return False  # he said "yes": speech
    return bool(before.strip()) and not before.rstrip().endswith((".", "!", "?", ":", "…")) \
        and bool(after.strip()) and not after.lstrip().startswith((",", ";", ":", "—", "–"))


def _tag_only(narration: str, speaker: str) -> bool:
    """The narration between two quotes is only the speech tag naming `speaker` ("Watson
    replied."), so the second quote goes on the same speech."""
    words = re.sub(r"[^\w\s.]", " ", narration).split()
    named = [word for word in words if word[:1].isupper() and word.rstrip(".").upper() not in speaker.split()]
    return len(words) <= 6 and not named


def _speaker(after: str, before: str) -> str:
    """The name of a speech tag right after the quote ("said Holmes", "Holmes asked") or,
    failing that, ending the narration before it ("Holmes said:", "cried Holmes:"), in
    capitals; PLACEHOLDER
    when there is none."""
    for pattern in (_AFTER, _BEFORE):
        match = pattern.match(after)
        if match and match.group(1) not in _NOT_A_NAME:
            return match.group(1).upper()
    for pattern in (rf"{_NAME}\s+(?:{_VERBS})[\s,:—–-]*$", rf"\b(?:{_VERBS})\s+{_NAME}[\s,:—–-]*$"):
        tail = re.search(pattern, before)
        if tail and tail.group(1) not in _NOT_A_NAME:
            return tail.group(1).upper()
    return PLACEHOLDER


def _speakable(text: str) -> str:
    """Text as a script line reads it: brackets, braces and angle brackets (the direction
    grammar's marks) become parentheses, so prose is never read as a tag or a voice switch."""
    return text.translate(str.maketrans({"[": "(", "]": ")", "{": "(", "}": ")", "<": "(", ">": ")"}))


def _key(name: str) -> str:
    """A speaker name as a YAML key: plain when it is capitals, spaces and dots, else quoted."""
    return name if re.fullmatch(r"[A-Z][A-Z .'-]*[A-Z.]", name) else json.dumps(name, ensure_ascii=False)


def script_yaml(manuscript: Manuscript, narrator: str | None, dialogue: bool, source: str) -> str:
    """The YAML book script of a manuscript: a book block, the cast (the narrator, the named
    speakers, UNATTRIBUTED when a quote has no speech tag), and one chapter per imported
    chapter holding one scene, its lines in source order."""
    chapters = [(c.title, [line for p in c.paragraphs for line in speech_lines(p, dialogue)])
                for c in manuscript.chapters]
    speakers = list(dict.fromkeys(s for _, lines in chapters for s, _ in lines))
    out = [f"# Imported from {source} by drama import; each line is one paragraph or quote.",
           f"title: {json.dumps(manuscript.title, ensure_ascii=False)}",
           f"narrator: {NARRATOR}", "book:", f"  title: {json.dumps(manuscript.title, ensure_ascii=False)}"]
    if manuscript.author:
        out.append(f"  author: {json.dumps(manuscript.author, ensure_ascii=False)}")
    if narrator:
        out.append(f"  narrator: {json.dumps(narrator, ensure_ascii=False)}")
    out.append("cast:")
    for name in [NARRATOR] + [s for s in speakers if s != NARRATOR]:
        if name == PLACEHOLDER:
            out.append(f"  {PLACEHOLDER}:\n    description: placeholder for quotes without a speech "
                       "tag; give each of its lines its speaker")
        else:
            out.append(f"  {_key(name)}: {{}}")
    out.append("chapters:")
    for number, (title, lines) in enumerate(chapters, start=1):
        out += [f"  - title: {json.dumps(title, ensure_ascii=False)}", "    scenes:",
                f"      - id: chapter-{number}", "        lines:"]
        for speaker, text in lines:
            out.append(f"          - {_key(speaker)}: {json.dumps(_speakable(text), ensure_ascii=False)}")
    return "\n".join(out) + "\n"
