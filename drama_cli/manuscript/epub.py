"""EPUB files: the package (OPF), the spine in reading order, and which elements a narrator reads.

An EPUB is a zip of XHTML content documents, an OPF package file naming them and the book's
metadata. EPUB 3 requires content documents to be XML, so they are read with the standard
library's ElementTree (HTML entities such as `&nbsp;` become numeric references first): that gives
the element tree with its `epub:type` semantics, which the whole import rests on, without a
dependency. Documents or sections whose `epub:type` marks front or back matter (title page,
imprint, colophon, copyright page, table of contents, lists, index, Standard Ebooks'
uncopyright, endnotes) are left out and counted, as are note references, page-break markers,
`<aside>`, `<nav>` and `<figure>`. The readers of an EPUB's play (`manuscript.play`), novel
(`manuscript.epub_novel`) and notes (`manuscript.epub_notes`) build on this module.
"""

from __future__ import annotations

import html.entities
import posixpath
import re
import zipfile
from collections import Counter
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from drama_cli.errors import UsageError

NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ncx": "http://www.daisy.org/z3986/2005/ncx/",
    "x": "http://www.w3.org/1999/xhtml",
}
EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
# epub:type values of whole documents or sections a narrator never reads, and their report name.
MATTER = {
    "titlepage": "title page",
    "halftitlepage": "half-title page",
    "imprint": "imprint",
    "colophon": "colophon",
    "copyright-page": "copyright page",
    "toc": "table of contents",
    "loi": "list of illustrations",
    "lot": "list of tables",
    "index": "index",
    "se:uncopyright": "uncopyright",
    "endnotes": "endnotes",
    "footnotes": "footnotes",
    "rearnotes": "endnotes",
    "landmarks": "table of contents",
}
# Inline or block marks left out wherever they are, by epub:type, and their report name.
DROPPED_TYPES = {
    "noteref": "note reference",
    "pagebreak": "page-break marker",
    "footnote": "footnote",
    "endnote": "endnote",
    "rearnote": "endnote",
    "backlink": "",
}
DROPPED_TAGS = {
    "aside": "aside",
    "nav": "navigation",
    "figure": "figure",
    "script": None,
    "style": None,
    "head": None,
}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6", "hgroup"}
BLOCKS = {
    "p",
    "li",
    "dd",
    "dt",
    "blockquote",
    "div",
    "section",
    "article",
    "table",
    "tr",
    "td",
    "th",
    "ul",
    "ol",
    "dl",
    "tbody",
    "thead",
    "header",
    "footer",
    "main",
    "body",
}


def local(tag) -> str:
    """An element's tag without its namespace (`{…xhtml}p` → `p`); '' for comments."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def epub_types(element) -> set[str]:
    """The element's `epub:type` values."""
    return set((element.get(EPUB_TYPE) or "").split())


def dropped_kind(element) -> str | None:
    """Why `element` is never read ('note reference', 'aside', …), or None when it is read.
    Head, script and style are dropped without being reported ('')."""
    for kind in epub_types(element):
        if kind in DROPPED_TYPES:
            return DROPPED_TYPES[kind]
    if local(element.tag) in DROPPED_TAGS:
        return DROPPED_TAGS[local(element.tag)] or ""
    return None


def matter_kind(element) -> str | None:
    """The front or back matter that `element` is (`MATTER`), or None."""
    for kind in epub_types(element):
        if kind in MATTER:
            return MATTER[kind]
    return None


def left_out_here(element, left_out: Counter) -> bool:
    """True when `element` is never read (a dropped mark or front/back matter), counted in
    `left_out` by kind."""
    kind = dropped_kind(element) if local(element.tag) else ""
    kind = kind if kind is not None else matter_kind(element)
    if kind:
        left_out[kind] += 1
    return kind is not None


def text_of(element, left_out: Counter | None = None) -> str:
    """The words of `element` with whitespace collapsed, without its dropped descendants
    (counted in `left_out` when given)."""
    parts: list[str] = []

    def walk(node):
        kind = dropped_kind(node)
        if kind is not None:
            if kind and left_out is not None:
                left_out[kind] += 1
        else:
            parts.append(node.text or "")
            for child in node:
                walk(child)
        parts.append(node.tail or "")

    walk(element)
    parts[-1] = ""  # the element's own tail is not its text
    return " ".join("".join(parts).translate(INVISIBLE).split())


# What an EPUB may expand to: a novel's text is a few MB, so more is a damaged file or one built to
# exhaust memory (a small zip of a highly compressible entry). Counted as the bytes come out of
# the zip, never trusted from its directory.
MAX_ENTRY_BYTES = 16 * 1024 * 1024  # one file of the EPUB, decompressed
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # every file read, decompressed
READ_BLOCK = 1024 * 1024

# Word joiners and zero-width spaces typesetters put around dashes and ellipses: not words.
INVISIBLE = str.maketrans({"\u2060": "", "\u200b": "", "\ufeff": "", "\u00ad": ""})


class Epub:
    """An opened EPUB: metadata, the spine's parsed documents (href, root element) and the
    table of contents (document href → title). Raises UsageError when the package is broken."""

    def __init__(self, path: Path):
        self.path = path
        self.expanded = 0  # bytes read out of the zip so far
        try:
            with zipfile.ZipFile(path) as book:
                self._read(book)
        except zipfile.BadZipFile:
            raise UsageError(f"cannot read {path.name}: not an EPUB (not a zip file)") from None

    def _read(self, book: zipfile.ZipFile) -> None:
        container = self._xml(book, "META-INF/container.xml")
        rootfile = container.find(".//c:rootfile", NS)
        if rootfile is None or not rootfile.get("full-path"):
            raise UsageError(f"cannot read {self.path.name}: its container names no package file")
        opf_path = rootfile.get("full-path")
        opf = self._xml(book, opf_path)
        base = posixpath.dirname(opf_path)
        self.metadata = {
            key: " ".join((opf.findtext(f".//dc:{key}", default="", namespaces=NS)).split()) or None
            for key in ("title", "creator", "language", "publisher", "rights")
        }
        manifest = opf.find("opf:manifest", NS)
        spine = opf.find("opf:spine", NS)
        if manifest is None or spine is None:
            raise UsageError(
                f"cannot read {self.path.name}: its package file has no manifest or spine"
            )
        items = {item.get("id"): item for item in manifest}
        read = [items[ref.get("idref")] for ref in spine if ref.get("idref") in items]
        hrefs = [unquote(item.get("href", "")) for item in read if _is_document(item)]
        self.documents = [(href, self._xml(book, posixpath.join(base, href))) for href in hrefs]
        self.toc = self._toc(book, base, items.values())

    def _entry(self, book: zipfile.ZipFile, name: str) -> bytes:
        """The bytes of file `name` of the EPUB. Raises UsageError when it is missing, or when it
        expands to more than MAX_ENTRY_BYTES, or the files read so far to more than
        MAX_TOTAL_BYTES (checked as it is read, a block at a time)."""
        try:
            entry = book.open(name)
        except KeyError:
            raise UsageError(f"cannot read {self.path.name}: it has no {name}") from None
        blocks = []
        with entry:
            size = 0
            while block := entry.read(READ_BLOCK):
                size += len(block)
                self.expanded += len(block)
                if size > MAX_ENTRY_BYTES:
                    self._too_large(f"its file {name} expands to more than {_mb(MAX_ENTRY_BYTES)}")
                if self.expanded > MAX_TOTAL_BYTES:
                    self._too_large(f"its files expand to more than {_mb(MAX_TOTAL_BYTES)}")
                blocks.append(block)
        return b"".join(blocks)

    def _too_large(self, what: str) -> None:
        raise UsageError(
            f"cannot read {self.path.name}: {what}, far more than a book's text (the EPUB is "
            "damaged, or built to fill the memory of whatever opens it)"
        )

    def _xml(self, book: zipfile.ZipFile, name: str):
        data = self._entry(book, name)
        data = _HTML_ENTITY.sub(_numeric_reference, data)
        try:
            return ElementTree.fromstring(data)
        except ElementTree.ParseError as err:
            line, column = err.position
            kind = (
                "XHTML" if name.lower().endswith(("html", "htm")) else "XML"
            )  # a page, or the container, package, NCX
            raise UsageError(
                f"cannot read {self.path.name}: {name}:{line}:{column + 1}: not well-formed {kind}"
            ) from None

    def _toc(self, book, base: str, items) -> dict[str, str]:
        """Document href → title from the EPUB 3 navigation document or the EPUB 2 NCX."""
        toc: dict[str, str] = {}
        for item in items:
            if "nav" in (item.get("properties") or "").split():
                href = unquote(item.get("href", ""))
                nav = self._xml(book, posixpath.join(base, href))
                for link in nav.iter(f"{{{NS['x']}}}a"):
                    target = posixpath.normpath(
                        posixpath.join(
                            posixpath.dirname(href), unquote(link.get("href", "").split("#")[0])
                        )
                    )
                    toc.setdefault(target, " ".join("".join(link.itertext()).split()))
                return toc
        for item in items:
            if item.get("media-type") == "application/x-dtbncx+xml":
                ncx = self._xml(book, posixpath.join(base, unquote(item.get("href", ""))))
                for point in ncx.iter(f"{{{NS['ncx']}}}navPoint"):
                    label = " ".join((point.findtext("ncx:navLabel/ncx:text", "", NS)).split())
                    content = point.find("ncx:content", NS)
                    if content is not None:
                        toc.setdefault(unquote(content.get("src", "").split("#")[0]), label)
        return toc


def _mb(size: int) -> str:
    return f"{size // (1024 * 1024)} MB"


def _is_document(item) -> bool:
    """True for a manifest item that is a document to read (XHTML, HTML or another XML type,
    or no type given); an image or a sound in the spine has no words."""
    kind = item.get("media-type") or "xml"
    return "xml" in kind or "html" in kind


_HTML_ENTITY = re.compile(rb"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES = {b"amp", b"lt", b"gt", b"quot", b"apos"}


def _numeric_reference(match) -> bytes:
    """An HTML named entity (`&nbsp;`) as the numeric reference XML knows without a DTD."""
    name = match.group(1)
    code = html.entities.name2codepoint.get(name.decode("ascii"))
    return match.group(0) if name in _XML_ENTITIES or code is None else b"&#%d;" % code


def body_of(root):
    """The `<body>` of a parsed content document (the root when there is none)."""
    body = root.find("x:body", NS)
    return root if body is None else body


def bodies(epub: Epub, left_out: Counter):
    """(href, `<body>`) of each spine document to read, in order; front and back matter
    documents are counted in `left_out` instead."""
    for href, root in epub.documents:
        body = body_of(root)
        kind = matter_kind(body)
        if kind:
            left_out[kind] += 1
        else:
            yield href, body


def is_play(epub: Epub) -> bool:
    """True when a document has speech rows: a table cell marked `z3998:persona`."""
    return any(
        local(cell.tag) == "td" and "z3998:persona" in epub_types(cell)
        for _, root in epub.documents
        for cell in root.iter()
    )
