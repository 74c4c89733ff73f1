"""The listener's edition: one `<Title>.m4b` (AAC in MP4) with a chapter mark at each chapter's
start, its title, the cover and the book's tags.

ffmpeg encodes the chapter masters in one pass (its concat demuxer reads them in order, so
nothing is held in memory) and writes the chapter marks from an FFMETADATA file: ffmpeg is the
one of our two tools that can write MP4 chapters (both the QuickTime chapter track and the
Nero `chpl` list that players and mutagen read). Tags and the cover are then written with
mutagen, whose MP4 atoms are typed (`covr` with its image format), so they do not depend on
which metadata keys one ffmpeg build maps to which atom. Layout facts: docs/guide/books.md §M4B.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import soundfile as sf

from drama_cli.errors import RenderError, UsageError
from engine.files import atomic_path

M4B_BITRATE_KBPS = 64  # AAC-LC mono: spoken word at audiobook-store quality
_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


def safe_title(title: str, fallback: str) -> str:
    """`title` as a file name on every file system: `\\/:*?"<>|` and control characters become
    `-`, runs of spaces one space, no leading or trailing dot, no leading `-` (a file name that
    starts with `-` reads as an option to other tools); `fallback` when nothing is left."""
    return " ".join(_UNSAFE.sub("-", title).split()).strip(". ").lstrip("-. ") or fallback


def m4b_name(title: str) -> str:
    """`<Title>.m4b`, the title made safe for every file system."""
    return safe_title(title, "book") + ".m4b"


def _escape(value: str) -> str:
    """A value for an FFMETADATA file: `=`, `;`, `#`, `\\` and newlines escaped."""
    return re.sub(r"([=;#\\\n])", r"\\\1", value)


def chapter_marks(masters) -> list[dict]:
    """number, title, start_s and end_s of each chapter: the masters' lengths added up
    (read from their headers, exact to the sample)."""
    marks, start = [], 0
    for chapter, path in masters:
        info = sf.info(str(path))
        end = start + info.frames
        marks.append(
            {
                "number": chapter.number,
                "title": chapter.title,
                "start_s": start / info.samplerate,
                "end_s": end / info.samplerate,
            }
        )
        start = end
    return marks


def metadata_text(marks: list[dict], title: str) -> str:
    """The FFMETADATA file: the title, then one [CHAPTER] per mark in milliseconds."""
    rows = [";FFMETADATA1", f"title={_escape(title)}", ""]
    for mark in marks:
        rows += [
            "[CHAPTER]",
            "TIMEBASE=1/1000",
            f"START={round(mark['start_s'] * 1000)}",
            f"END={round(mark['end_s'] * 1000)}",
            f"title={_escape(mark['title'])}",
            "",
        ]
    return "\n".join(rows)


def cover_path(script) -> Path | None:
    """The book's cover image (relative to the script's folder), None when none is given.
    Raises UsageError when it is missing or not a JPEG or PNG."""
    book = script.book
    if book is None or not book.cover:
        return None
    path = Path(script.base_dir, book.cover)
    if not path.is_file():
        raise UsageError(f"cover image {book.cover!r} not found (paths are relative to the script)")
    if _image_format(path) is None:
        raise UsageError(f"cover image {book.cover!r} is not a JPEG or PNG file")
    return path


def _image_format(path: Path) -> str | None:
    head = path.read_bytes()[:8]
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    return None


def write_m4b(
    masters, target: Path, script, title: str, scratch: bool, ffmpeg: str, credit: str | None = None
) -> dict:
    """Encode the chapter masters [(chapter, wav path)] into `target` (AAC-LC mono at
    M4B_BITRATE_KBPS), with chapter marks, tags and cover, atomically. Returns the file,
    its duration and the marks (`chapter_marks`). credit: the comment's credit line, or None.
    Raises RenderError when ffmpeg fails."""
    marks = chapter_marks(masters)
    work = Path(masters[0][1]).parent
    listing = work / "chapters.ffconcat"
    listing.write_text(
        "ffconcat version 1.0\n" + "".join(f"file '{Path(path).name}'\n" for _, path in masters),
        encoding="utf-8",
    )
    meta = work / "chapters.ffmeta"
    meta.write_text(metadata_text(marks, title), encoding="utf-8")
    with atomic_path(target) as tmp:
        command = [
            ffmpeg,
            "-nostdin",
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "concat",
            "-safe",
            "0",
            "-i",
            str(listing),
            "-f",
            "ffmetadata",
            "-i",
            str(meta),
            "-map",
            "0:a",
            "-map_metadata",
            "1",
            "-map_chapters",
            "1",
            "-c:a",
            "aac",
            "-b:a",
            f"{M4B_BITRATE_KBPS}k",
            "-ac",
            "1",
            "-ar",
            "44100",
            "-movflags",
            "+faststart",
            "-brand",
            "M4B ",
            "-f",
            "mp4",
            str(tmp),
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            detail = done.stderr.strip().splitlines()[-1:] or ["no message"]
            raise RenderError(f"M4B encoding of {target.name} failed: {detail[0]}")
        write_mp4_tags(tmp, script, title, scratch, credit)
    return {
        "file": target.name,
        "duration_s": round(marks[-1]["end_s"], 3),
        "bitrate_kbps": M4B_BITRATE_KBPS,
        "chapters": [
            {**m, "start_s": round(m["start_s"], 3), "end_s": round(m["end_s"], 3)} for m in marks
        ],
    }


def write_mp4_tags(
    path: Path, script, title: str, scratch: bool, credit: str | None = None
) -> None:
    """Title, album, author (artist and album artist), narrator (composer), year, genre,
    copyright, a comment holding the SCRATCH banner when any take is a draft and `credit`
    (`drama_cli.mix.project_mix.credit_text`) when given, and the cover, with mutagen."""
    # lazy: scipy and mutagen (every command loads this module), 0.7 s at start-up
    from mutagen.mp4 import MP4, MP4Cover

    from drama_cli.mix.timeline import SCRATCH_BANNER

    book = script.book
    audio = MP4(str(path))
    tags = audio.tags if audio.tags is not None else audio.add_tags() or audio.tags
    tags["\xa9nam"] = [f"{title} [SCRATCH]" if scratch else title]
    tags["\xa9alb"] = [title]
    tags["\xa9gen"] = ["Audiobook"]
    if book is not None:
        for atom, value in (
            ("\xa9ART", book.author),
            ("aART", book.author),
            ("\xa9wrt", book.narrator),
            ("\xa9day", book.year),
            ("cprt", book.copyright),
        ):
            if value:
                tags[atom] = [value]
    comment = "; ".join(filter(None, [SCRATCH_BANNER if scratch else None, credit]))
    if comment:
        tags["\xa9cmt"] = [comment]
    cover = cover_path(script)
    if cover is not None:
        kind = MP4Cover.FORMAT_JPEG if _image_format(cover) == "jpeg" else MP4Cover.FORMAT_PNG
        tags["covr"] = [MP4Cover(cover.read_bytes(), imageformat=kind)]
    audio.save()
