"""`drama book`: render what is missing, then assemble the book (`drama_cli.book`)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked, script_info
from drama_cli.commands.output import (
    SCRATCH_LABEL,
    audio_to_stdout,
    notice,
    results_console,
)
from drama_cli.commands.progress import stderr_progress
from drama_cli.errors import DramaError, UsageError, error_report
from drama_cli.takes.project import check_stdin_owner, open_project


@opt.BACKEND.into("backend")
def book_command(
    script: str = opt.SCRIPT,
    chapter: Optional[List[int]] = typer.Option(None, "--chapter", help="Chapter number to assemble (repeatable; default: all)."),
    sample_from: Optional[str] = typer.Option(None, "--sample-from", help="Retail sample start: CHAPTER[:SECONDS] (default: the first chapter after the credits, from its start)."),
    sample_length: float = typer.Option(180.0, "--sample-length", help="Retail sample length, seconds (ACX: 60..300)."),
    sample: bool = typer.Option(True, "--sample/--no-sample", help="Also write the retail sample."),
    m4b: bool = typer.Option(True, "--m4b/--no-m4b", help="Also write <Title>.m4b with chapter marks."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="'-': write the one --chapter as audio to stdout instead of the book folder."),
    fmt: str = typer.Option("wav", "--format", help="Audio format for -o -: wav or flac."),
    backend: dict = None,  # the BACKEND group's options: --engine, --model, --device, --gpu-memory
    seed: int = opt.BASE_SEED,
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.CAST,
    as_json: bool = opt.JSON,
) -> None:
    """Render what is missing, then write <project>/book/: one ACX MP3 per chapter and the
    credits, a retail sample, <Title>.m4b and acx-report.json. Exits 1 when a file fails an
    ACX check (the message names the file and the rule)."""
    from drama_cli.book.assemble import (
        BookOptions,
        assemble_book,
        chapter_scenes,
        parse_sample_from,
        pick_chapters,
    )
    from drama_cli.book.m4b import cover_path
    from drama_cli.mix.export import require_encoder
    from drama_cli.mix.options import check_number

    if output not in (None, "-"):
        raise UsageError("-o takes only '-' (stdout); the book is written to <project>/book/")
    if fmt not in ("wav", "flac"):
        raise UsageError(f"--format for -o - must be wav or flac, got {fmt!r}")
    check_number("--sample-length", sample_length, 1.0, 600.0)
    options = BookOptions(chapters=tuple(chapter or ()), sample_from=parse_sample_from(sample_from),
                          sample_s=sample_length, sample=sample, m4b=m4b)
    loaded = load_checked(script, cast)
    chapters = pick_chapters(loaded, options.chapters)
    if output == "-" and len(chapters) != 1:
        raise UsageError("-o - writes one chapter: give exactly one --chapter N")
    if options.sample_from is not None:
        pick_chapters(loaded, [options.sample_from[0]])
    cover_path(loaded)  # a missing cover fails now, not after hours of rendering
    require_encoder("mp3")
    store = open_project(script, None if out is None else out, create=True)
    if script == "-" and out is None:
        check_stdin_owner(store, loaded.text_sha256)
    render_report = _render(loaded, script, store, chapter_scenes(loaded, chapters), backend, seed, cast)
    try:
        if render_report.exit_code == 1:
            from drama_cli.errors import TakesNeedReview

            raise TakesNeedReview(render_report)
        if output == "-":
            _chapter_to_stdout(loaded, store, chapters[0], fmt)
            return
        with store.lock():
            report = assemble_book(loaded, store, options, notice=notice)
    except DramaError as err:
        if as_json and getattr(err, "results_printed", False):  # nothing was printed: say why
            print(json.dumps(error_report(err, err.exit_code), indent=2, ensure_ascii=False))
        raise
    for note in report.notes:
        notice(f"note: {note}")
    if as_json:
        code = 1 if report.failures else render_report.exit_code
        print(json.dumps({"ok": code == 0, "exit_code": code} | report.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_book(report)
    if render_report.scratch and not as_json:
        notice(f"note: {SCRATCH_LABEL}")
    if report.failures:
        from drama_cli.errors import BookChecksFailed

        raise BookChecksFailed(report.failures)
    if render_report.exit_code:
        from drama_cli.errors import TakesNeedReview

        raise TakesNeedReview(render_report)


def _render(loaded, script: str, store, scenes, backend: dict, seed: int, cast: Optional[str] = None):
    """Render the lines of `scenes` that have no take yet (as `drama render`, without scene
    mixes) with the engine of the `BACKEND` group's values `backend`; `cast`: the `--cast` file,
    recorded with the project."""
    from drama_cli.backends.registry import make_backend
    from drama_cli.compile.conversations import check_references
    from drama_cli.render.scheduler import render_script
    from drama_cli.takes.jobs import RenderSettings

    check_references(loaded)
    settings = RenderSettings(scenes=scenes, seed=seed, mix=False)
    settings.validate()
    notice_once = say_once(notice)
    engine = make_backend(**backend, notice=notice_once)
    try:
        return render_script(loaded, store, engine, settings, stderr_progress(),
                             script_info(loaded, script, cast), notice=notice_once)
    finally:
        engine.close()


def say_once(notice):
    """`notice` that passes each distinct warning on once: a book renders many scenes, and a
    voice without a reference clip is the same news in every one."""
    said: set[str] = set()

    def say(message: str) -> None:
        if message.startswith("warning: "):
            if message in said:
                return
            said.add(message)
        notice(message)
    return say


def _chapter_to_stdout(loaded, store, chapter, fmt: str) -> None:
    """Mix one chapter as the book would and copy it to stdout (WAV or FLAC)."""
    from drama_cli.book.assemble import mix_chapter
    from drama_cli.mix.export import encode_flac

    work = Path(tempfile.mkdtemp(prefix="drama-book-"))
    try:
        with store.lock():
            master, _ = mix_chapter(loaded, store, chapter, work)
        if fmt == "flac":
            master = encode_flac(master, work / "chapter.flac")
        audio_to_stdout(master)
        notice(f"book: chapter {chapter.number} ({chapter.title}) written to stdout as {fmt}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _print_book(report) -> None:
    from rich.table import Table

    table = Table(title=f"drama book: {report.folder}", title_justify="left")
    for column in ("file", "seconds", "RMS dB", "speech RMS", "peak dBFS", "noise dB", "Hz",
                   "kbps", "head s", "tail s", "ACX"):
        table.add_column(column)
    for row in (f.to_dict() for f in report.files):
        failed = [name for name, ok in row["rules"].items() if not ok]
        speech = row["speech_rms_db"]
        table.add_row(row["file"], f"{row['duration_s']:.2f}", f"{row['rms_db']:.1f}",
                      "n/a" if speech is None else f"{speech:.1f}", f"{row['peak_dbfs']:.2f}",
                      "n/a" if row["noise_floor_db"] is None else f"{row['noise_floor_db']:.1f}",
                      str(row["sample_rate_hz"]), f"{row['bitrate_kbps']}{'' if row['cbr'] else ' VBR'}",
                      f"{row['head_s']:.2f}", f"{row['tail_s']:.2f}",
                      "pass" if not failed else "FAIL: " + ", ".join(failed))
    console = results_console()
    console.print(table)
    if report.m4b:
        marks = ", ".join(f"{c['start_s']:.1f} s {c['title']}" for c in report.m4b["chapters"])
        console.print(f"{report.m4b['file']}: {report.m4b['duration_s']:.1f} s, chapters: {marks}")
    for failure in report.failures:
        console.print(f"ACX: {failure}")


def import_command(
    manuscript: Path = typer.Argument(..., help="Manuscript: .txt, .md or .epub."),
    output: str = typer.Option(..., "-o", "--output", help="The YAML script to write, or - for stdout."),
    narrator: Optional[str] = typer.Option(None, help="The narrator's name, for the credits."),
    dialogue: bool = typer.Option(False, "--dialogue", help="Quoted speech becomes lines of its own, attributed by speech tags (\"said Holmes\")."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output file."),
    as_json: bool = opt.JSON,
) -> None:
    """Turn a manuscript into a YAML book script: chapters from headings, paragraphs as
    narrator lines (with --dialogue, quotes as lines of their speakers)."""
    from drama_cli.book.manuscript import read_manuscript, script_yaml
    from engine.files import write_text_atomic

    target = None if output == "-" else Path(output)
    if as_json and target is None:
        raise UsageError("--json needs -o FILE: with -o - stdout holds the script")
    if target is not None and target.exists() and not force:
        raise UsageError(f"{target} exists; pass --force to replace it")
    book = read_manuscript(manuscript)
    text = script_yaml(book, narrator, dialogue, manuscript.name)
    if target is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(target, text)
    lines = text.count("\n          - ")
    unattributed = text.count("\n          - UNATTRIBUTED: ")
    notice(f"import: {len(book.chapters)} chapter(s), {lines} line(s)"
         + (f", {unattributed} quote(s) without a speaker (UNATTRIBUTED)" if unattributed else "")
         + (f" written to {target}" if target else ""))
    if as_json:
        print(json.dumps({"ok": True, "exit_code": 0, "output": str(target), "chapters": len(book.chapters),
                          "lines": lines, "unattributed": unattributed}, indent=2, ensure_ascii=False))


def register(app: typer.Typer) -> None:
    """Add `book` and `import` to the app."""
    app.command("book")(book_command)
    app.command("import")(import_command)
