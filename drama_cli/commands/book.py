"""`drama book`: render what is missing, then assemble the book (`drama_cli.book`)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import typer

from drama_cli.backends import registry  # called through the module: tests replace make_backend
from drama_cli.backends.model_licence import read_folder_licence
from drama_cli.book.m4b import cover_path
from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked, render_project, script_info
from drama_cli.commands.licence import notice_before_render
from drama_cli.commands.output import (
    SCRATCH_LABEL,
    STDOUT_FORMATS,
    audio_to_stdout,
    notice,
    refuse_audio_to_terminal,
    results_console,
    stdout_format,
)
from drama_cli.commands.progress import stderr_progress
from drama_cli.errors import BookChecksFailed, DramaError, TakesNeedReview, UsageError, error_report
from drama_cli.mix.export import encode_flac, require_encoder


@opt.BACKEND.into("backend")
def book_command(
    script: str = opt.SCRIPT,
    chapter: list[int] | None = typer.Option(
        None, "--chapter", help="Chapter number to assemble (repeatable; default: all)."
    ),
    sample_from: str | None = typer.Option(
        None,
        "--sample-from",
        help="Retail sample start: CHAPTER[:SECONDS] (default: the first chapter after the credits, from its start).",
    ),
    sample_length: float = typer.Option(
        180.0, "--sample-length", help="Retail sample length, seconds (ACX: 60..300)."
    ),
    sample: bool = typer.Option(True, "--sample/--no-sample", help="Also write the retail sample."),
    m4b: bool = typer.Option(
        True, "--m4b/--no-m4b", help="Also write <Title>.m4b with chapter marks."
    ),
    output: str | None = typer.Option(
        None,
        "-o",
        "--output",
        help="'-': write the one --chapter as audio to stdout instead of the book folder.",
    ),
    formats: list[str] | None = typer.Option(
        None,
        "--format",
        help=f"Audio format for -o -: {STDOUT_FORMATS[0]} (default) or {', '.join(STDOUT_FORMATS[1:])}.",
    ),
    backend: dict = None,  # the BACKEND group's options: --engine, --model, --device, --gpu-memory
    seed: int = opt.BASE_SEED,
    out: str | None = opt.OUT,
    cast: str | None = opt.CAST,
    qc: bool = typer.Option(
        False,
        "--qc/--no-qc",
        help=(
            "Also check the chapters' takes (signal, voice, quality: the qc extra) with the"
            " project's limits and write qc-report.html and qc-report.csv into the book folder:"
            " one row per line that needs attention, with its chapter."
        ),
    ),
    as_json: bool = opt.JSON,
) -> None:
    """Render what is missing, then write <project>/book/: one ACX MP3 per chapter and the
    credits, a retail sample, <Title>.m4b and acx-report.json (with --qc, the QC exception
    report). Exits 1 when a file fails an ACX check (the message names the file and the
    rule)."""
    from drama_cli.book.assemble import (  # lazy: scipy, 1 s at start-up
        BookOptions,
        chapter_scenes,
        parse_sample_from,
    )

    streamed = _stream_format(output, formats, as_json)
    options = BookOptions(
        chapters=tuple(chapter or ()),
        sample_from=parse_sample_from(sample_from),
        sample_s=sample_length,
        sample=sample,
        m4b=m4b,
        licence_notice=_licence_notice(backend["model"]),
    )
    loaded = load_checked(script, cast)
    chapters = _checked_chapters(loaded, options, streamed)
    if qc and not streamed:
        from drama_cli.qc.project_qc import require_checks  # lazy: numpy and soundfile

        require_checks(BOOK_CHECKS)  # a missing extra stops the book now, not after the render
    store = render_project(script, out, loaded)
    render_report = _render(
        loaded, script, store, chapter_scenes(loaded, chapters), backend, seed, cast
    )
    report = _deliver(
        loaded,
        store,
        options,
        render_report,
        (chapters[0], streamed) if streamed else None,
        as_json,
    )
    if report is not None:
        found = _book_qc(loaded, store, chapters, report.folder) if qc else None
        _report_book(report, render_report, as_json, found)


BOOK_CHECKS = ("signal", "voice", "quality")  # words needs a Whisper model folder: `drama qc`


def _book_qc(loaded, store, chapters, folder: Path) -> dict:
    """Run `BOOK_CHECKS` on the selected takes of `chapters` with the project's limits and
    write the book's exception report (`qc-report.html`, `qc-report.csv`) into `folder`: one
    report with a chapter column, rows chapter by chapter. Its summary for the book's report."""
    # lazy: numpy, soundfile and the checks' models
    from drama_cli.commands.qc import qc_progress
    from drama_cli.qc.limits import project_qc_limits
    from drama_cli.qc.project_qc import QcLimits, run_qc
    from drama_cli.qc.report import write_report

    by_scene = {scene: (c.number, c.title) for c in chapters for scene in c.scenes}
    scenes = [scene for scene in loaded.scenes if scene.id in by_scene]
    limits = QcLimits(*project_qc_limits(store))
    run = run_qc(loaded, store, scenes, BOOK_CHECKS, limits, on_done=qc_progress())
    title = f"QC: {loaded.title or store.root.name}"
    page, table = write_report(run, folder, title, chapters=by_scene)
    notice(f"qc: {len(run.attention)} of {len(run.lines)} lines need attention; report: {page}")
    return {
        "lines": len(run.lines),
        "attention": len(run.attention),
        "html": str(page),
        "csv": str(table),
    }


def _stream_format(output: str | None, formats: list[str] | None, as_json: bool) -> str | None:
    """The format `-o -` streams the chapter in, None without `-o`. Raises UsageError for
    another `-o`, a `--format` without `-o -` or one it cannot stream, `--json` with `-o -`,
    and audio bound for a terminal."""
    if output not in (None, "-"):
        raise UsageError("-o takes only '-' (stdout); the book is written to <project>/book/")
    if formats and output != "-":
        raise UsageError(
            "--format is the format of -o -; the book folder holds MP3 chapters and an M4B"
        )
    if output is None:
        return None
    streamed = stdout_format(formats)
    if as_json:
        raise UsageError(
            "--json reports the book folder; with -o - stdout holds the chapter's audio"
        )
    refuse_audio_to_terminal()
    return streamed


def _checked_chapters(loaded, options, streamed: str | None) -> list:
    """The chapters to assemble, once everything that would stop the book after hours of
    rendering is known to be fine: one chapter for `-o -`, the sample, the cover, an MP3 encoder."""
    from drama_cli.book.assemble import (  # lazy: scipy, 1 s at start-up
        check_sample_options,
        pick_chapters,
    )

    chapters = pick_chapters(loaded, options.chapters)
    if streamed and len(chapters) != 1:
        raise UsageError("-o - writes one chapter: give exactly one --chapter N")
    check_sample_options(loaded, options.sample_from, options.sample_s)
    cover_path(loaded)  # a missing cover fails now, not after hours of rendering
    require_encoder("mp3")
    return chapters


def _deliver(loaded, store, options, render_report, stream: tuple | None, as_json: bool):
    """Assemble the book (its `BookReport`), or with `stream` (chapter, format) copy that one
    chapter to stdout (None). Raises TakesNeedReview when a line has no usable take."""
    from drama_cli.book.assemble import assemble_book  # lazy: scipy, 1 s at start-up

    try:
        if render_report.exit_code == 1:
            raise TakesNeedReview(render_report)
        if stream is not None:
            _chapter_to_stdout(loaded, store, *stream)
            return None
        with store.lock():
            return assemble_book(loaded, store, options, notice=notice)
    except DramaError as err:
        if as_json and getattr(err, "results_printed", False):  # nothing was printed: say why
            print(json.dumps(error_report(err, err.exit_code), indent=2, ensure_ascii=False))
        raise


def _report_book(report, render_report, as_json: bool, qc: dict | None = None) -> None:
    """Print the book's report (a table, or JSON, with `qc`: the QC report's summary, when
    one was made); raise BookChecksFailed when a file failed an ACX check, else
    TakesNeedReview when the render left lines degraded."""
    for note in report.notes:
        notice(f"note: {note}")
    if as_json:
        code = 1 if report.failures else render_report.exit_code
        print(
            json.dumps(
                {"ok": code == 0, "exit_code": code}
                | report.to_dict()
                | ({"qc": qc} if qc is not None else {}),
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        _print_book(report)
    if render_report.scratch and not as_json:
        notice(f"note: {SCRATCH_LABEL}")
    if report.failures:
        raise BookChecksFailed(report.failures)
    if render_report.exit_code:
        raise TakesNeedReview(render_report)


def _licence_notice(model: str | None) -> str | None:
    """The notice text of the model's licence from the model folder `--model` (or the usual
    places) names, for NOTICE.txt; None when there is no folder or no notice in it."""
    folder = registry.find_model(model)
    return read_folder_licence(folder).notice_text if folder is not None else None


def _render(loaded, script: str, store, scenes, backend: dict, seed: int, cast: str | None = None):
    """Render the lines of `scenes` that have no take yet (as `drama render`, without scene
    mixes) with the engine of the `BACKEND` group's values `backend`; `cast`: the `--cast` file,
    recorded with the project."""
    # lazy: scipy and the script reader, 1 s at start-up
    from drama_cli.compile.conversations import check_references
    from drama_cli.mix.options import check_mix_files
    from drama_cli.qc.limits import project_qc_limits, qc_record
    from drama_cli.render.plan import pick_scenes
    from drama_cli.render.scheduler import render_script
    from drama_cli.takes.jobs import RenderSettings

    check_references(loaded)
    settings = RenderSettings(scenes=scenes, seed=seed, mix=False)
    settings.validate()
    check_mix_files(loaded, pick_scenes(loaded, settings))
    info = script_info(loaded, script, cast)
    kept = qc_record(*project_qc_limits(store))  # the project's QC limits stay with it
    if kept:
        info["qc"] = kept
    notice_once = say_once(notice)
    engine = registry.make_backend(opt.backend_choice(backend), notice=notice_once)
    notice_before_render(store.root, engine, backend["model"], notice_once)
    try:
        return render_script(
            loaded,
            store,
            engine,
            settings,
            stderr_progress(),
            info,
            notice=notice_once,
        )
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
    from drama_cli.book.assemble import mix_chapter  # lazy: scipy, 1 s at start-up

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
    """The table of the book's files and their ACX checks, the M4B's chapter marks, the failures."""
    from rich.table import Table  # lazy: 14 ms at start-up, for the commands that print tables

    table = Table(title=f"drama book: {report.folder}", title_justify="left")
    for column in (
        "file",
        "seconds",
        "RMS dB",
        "speech RMS",
        "peak dBFS",
        "noise dB",
        "Hz",
        "kbps",
        "head s",
        "tail s",
        "ACX",
    ):
        table.add_column(column)
    for row in (f.to_dict() for f in report.files):
        failed = [name for name, ok in row["rules"].items() if not ok]
        speech = row["speech_rms_db"]
        table.add_row(
            row["file"],
            f"{row['duration_s']:.2f}",
            f"{row['rms_db']:.1f}",
            "n/a" if speech is None else f"{speech:.1f}",
            f"{row['peak_dbfs']:.2f}",
            "n/a" if row["noise_floor_db"] is None else f"{row['noise_floor_db']:.1f}",
            str(row["sample_rate_hz"]),
            f"{row['bitrate_kbps']}{'' if row['cbr'] else ' VBR'}",
            f"{row['head_s']:.2f}",
            f"{row['tail_s']:.2f}",
            "pass" if not failed else "FAIL: " + ", ".join(failed),
        )
    console = results_console()
    console.print(table)
    if report.m4b and not report.m4b.get("stale"):  # a stale one is named in the notes
        marks = ", ".join(f"{c['start_s']:.1f} s {c['title']}" for c in report.m4b["chapters"])
        console.print(f"{report.m4b['file']}: {report.m4b['duration_s']:.1f} s, chapters: {marks}")
    for failure in report.failures:
        console.print(f"ACX: {failure}")


def register(app: typer.Typer) -> None:
    """Add `book` to the app."""
    app.command("book")(book_command)
