"""Standard Ebooks productions from the shared fixtures folder, zipped into EPUBs for tests.

The fixtures sit beside the clone (`<repo>/../shared/fixtures/epub/`); a test that needs one
skips with the reason where the folder is absent.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

EPUB_SOURCES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "epub"
EARNEST = "oscar-wilde_the-importance-of-being-earnest"
PRIDE = "jane-austen_pride-and-prejudice"


def source_tree(name: str) -> Path:
    """The unpacked `src/` tree of a fixture production; skips the test when it is absent."""
    tree = EPUB_SOURCES / name / "src"
    if not (tree / "mimetype").is_file():
        pytest.skip(
            f"shared EPUB fixtures not found at {EPUB_SOURCES} (they sit beside the clone in CI)"
        )
    return tree


def build_epub(name: str, folder: Path) -> Path:
    """Zip a fixture production as an EPUB in `folder` (`mimetype` first, stored) and return it."""
    tree = source_tree(name)
    path = folder / f"{name}.epub"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.write(tree / "mimetype", "mimetype", compress_type=zipfile.ZIP_STORED)
        for file in sorted(tree.rglob("*")):
            if file.is_file() and file.name != "mimetype":
                book.write(file, file.relative_to(tree).as_posix())
    return path


def write_epub(path: Path, opf_path: str, opf: str, files: dict[str, str]) -> Path:
    """Write an EPUB at `path`: `mimetype` first and stored, the container naming `opf_path`,
    the package text `opf` and `files` (name in the zip → text)."""
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr(
            "META-INF/container.xml",
            (
                '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                f'<rootfiles><rootfile full-path="{opf_path}" media-type="application/oebps-package+xml"/>'
                "</rootfiles></container>"
            ),
        )
        book.writestr(opf_path, opf)
        for name, text in files.items():
            book.writestr(name, text)
    return path
