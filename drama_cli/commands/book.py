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
    refuse_audio_to_terminal,
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
    fmt: Optional[str] = typer.Option(None, "--format", help="Audio format for -o -: wav (default) or flac."),
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
        check_sample_options,
        parse_sample_from,
        pick_chapters,
    )
    from drama_cli.book.m4b import cover_path
    from drama_cli.mix.export import require_encoder

    if output not in (None, "-"):
        raise UsageError("-o takes only '-' (stdout); the book is written to <project>/book/")
    if fmt is not None and output != "-":
        raise UsageError("--format is the format of -o -; the book folder holds MP3 chapters and an M4B")
    fmt = fmt or "wav"
    if fmt not in ("wav", "flac"):
        raise UsageError(f"--format for -o - must be wav or flac, got {fmt!r}")
    if output == "-":
        if as_json:
            raise UsageError("--json reports the book folder; with -o - stdout holds the chapter's audio")
        refuse_audio_to_terminal()
    options = BookOptions(chapters=tuple(chapter or ()), sample_from=parse_sample_from(sample_from),
                          sample_s=sample_length, sample=sample, m4b=m4b,
                          licence_notice=_licence_notice(backend["model"]))
    loaded = load_checked(script, cast)
    chapters = pick_chapters(loaded, options.chapters)
    if output == "-" and len(chapters) != 1:
        raise UsageError("-o - writes one chapter: give exactly one --chapter N")
    check_sample_options(loaded, options.sample_from, options.sample_s)
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


def _licence_notice(model: Optional[str]) -> Optional[str]:
    """The notice text of the model's licence from the model folder `--model` (or the usual
    places) names, for NOTICE.txt; None when there is no folder or no notice in it."""
    from drama_cli.backends.registry import find_model
    from drama_cli.backends.model_licence import read_folder_licence

    folder = find_model(model)
    return read_folder_licence(folder).notice_text if folder is not None else None


def _render(loaded, script: str, store, scenes, backend: dict, seed: int, cast: Optional[str] = None):
    """Render the lines of `scenes` that have no take yet (as `drama render`, without scene
    mixes) with the engine of the `BACKEND` group's values `backend`; `cast`: the `--cast` file,
    recorded with the project."""
    from drama_cli.backends.registry import make_backend
    from drama_cli.commands.licence import notice_before_render
    from drama_cli.compile.conversations import check_references
    from drama_cli.mix.options import check_mix_files
    from drama_cli.render.plan import pick_scenes
    from drama_cli.render.scheduler import render_script
    from drama_cli.takes.jobs import RenderSettings

    check_references(loaded)
    settings = RenderSettings(scenes=scenes, seed=seed, mix=False)
    settings.validate()
    check_mix_files(loaded, pick_scenes(loaded, settings))
    notice_once = say_once(notice)
    engine = make_backend(**backend, notice=notice_once)
    notice_before_render(store.root, engine.name, backend["model"], notice_once)
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
    manuscript: Path = typer.Argument(..., help="Manuscript: .txt, .md or .epub (a novel or a play), or - for stdin."),
    output: str = typer.Option(..., "-o", "--output", help="The YAML script to write, or - for stdout."),
    narrator: Optional[str] = typer.Option(None, help="The narrator's name, for the credits."),
    title: Optional[str] = typer.Option(None, "--title", help="The book's title (default: the manuscript's own, else its file name)."),
    author: Optional[str] = typer.Option(None, "--author", help="The book's author (default: the manuscript's own)."),
    dialogue: bool = typer.Option(False, "--dialogue", help="Quoted speech becomes lines of its speakers, found by speech tags, pronouns, beats and turn-taking."),
    narrator_is: Optional[str] = typer.Option(None, "--narrator-is", help="With --dialogue: the first-person narrator's name; 'said I' goes to this character."),
    keep_tags: bool = typer.Option(True, "--keep-tags/--no-keep-tags", help="With --dialogue: speech tags ('he remarked') stay narration after the quote, or are left out."),
    directions: str = typer.Option("narrate", "--directions", help="A play's stage directions: narrate (NARRATOR action lines) or drop."),
    chapter_level: Optional[int] = typer.Option(None, "--chapter-level", help="Markdown: the heading level of chapters, 1 for # (default: # when there are several, else ##)."),
    notes: str = typer.Option("drop", "--notes", help="An EPUB's footnotes and endnotes: drop, or chapter-end to read them after their chapter."),
    to: str = typer.Option("yaml", "--to", help="yaml, or fountain for a play: FILE.fountain and its cast file FILE.cast.yaml."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output file (never the manuscript itself)."),
    as_json: bool = opt.JSON,
) -> None:
    """Turn a manuscript into a YAML book script: a play's speeches as lines of its cast, a
    novel's paragraphs as narrator lines (with --dialogue, quotes as lines of their speakers).
    Front and back matter are left out and reported."""
    from drama_cli.manuscript.attribution import AttributionOptions
    from drama_cli.manuscript.epub_notes import NOTES
    from drama_cli.manuscript.fountain_writer import cast_path_for, cast_yaml, fountain_text
    from drama_cli.manuscript.play import DIRECTIONS
    from drama_cli.manuscript.read import read_manuscript
    from drama_cli.manuscript.writer import script_yaml
    from drama_cli.script.resolve import name_key
    from engine.files import write_text_atomic

    target = None if output == "-" else Path(output)
    if as_json and target is None:
        raise UsageError("--json needs -o FILE: with -o - stdout holds the script")
    if directions not in DIRECTIONS:
        raise UsageError(f"--directions must be narrate or drop, got {directions!r}")
    if to not in ("yaml", "fountain"):
        raise UsageError(f"--to must be yaml or fountain, got {to!r}")
    if to == "fountain" and (target is None or target.suffix != ".fountain"):
        raise UsageError("--to fountain writes a screenplay and its cast file: give -o FILE.fountain")
    targets = [] if target is None else [target] + ([target.with_name(cast_path_for(target.name))] if to == "fountain" else [])
    for path in targets:
        _check_target(path, manuscript, force)
    if chapter_level is not None and not 1 <= chapter_level <= 6:
        raise UsageError(f"--chapter-level must be 1..6, got {chapter_level}")
    if notes not in NOTES:
        raise UsageError(f"--notes must be drop or chapter-end, got {notes!r}")
    for given, name in ((narrator_is is not None, "--narrator-is"), (not keep_tags, "--no-keep-tags")):
        if given and not dialogue:
            raise UsageError(f"{name} goes with --dialogue (quotes as lines of their speakers)")
    suffix = manuscript.suffix.lower()
    if chapter_level is not None and suffix in (".txt", ".epub"):
        raise UsageError(f"--chapter-level is for Markdown headings; {manuscript.name} is not Markdown")
    if notes != "drop" and suffix in (".txt", ".md", ".markdown"):
        raise UsageError(f"--notes {notes} is for an EPUB's notes; {manuscript.name} is not an EPUB")
    book = read_manuscript(manuscript, directions, chapter_level, notes)
    source = "stdin" if str(manuscript) == "-" else manuscript.name
    if directions == "drop" and not book.is_play:
        raise UsageError(f"--directions drop is for a play's stage directions; {source} is read as a novel")
    book.title = " ".join(title.split()) if title and title.strip() else book.title
    if book.title == "stdin" and source == "stdin":
        notice("import: the manuscript names no title, so the book is titled stdin; give --title")
    book.author = " ".join(author.split()) if author and author.strip() else book.author
    options = AttributionOptions(narrator_is=name_key(narrator_is) if narrator_is else None, keep_tags=keep_tags)
    text, report = script_yaml(book, narrator, dialogue, source, options)
    if to == "fountain":
        if not book.is_play:
            raise UsageError(f"--to fountain writes plays; {source} is read as a novel (write YAML)")
        texts = [fountain_text(book, source), cast_yaml(book)]
    else:
        texts = [text]
    if target is None:
        sys.stdout.write(text)
    for path, content in zip(targets, texts):
        try:
            write_text_atomic(path, content)
        except OSError as err:
            raise UsageError(f"cannot write {path}: {err.strerror or err}") from None
    _print_import(report, len(book.chapters), target)
    if as_json:
        print(json.dumps({"ok": True, "exit_code": 0, "output": str(target), "chapters": len(book.chapters),
                          "lines": report.total("lines"), "quotes": report.total("quotes"),
                          "unattributed": report.total("unattributed")} | report.to_dict(),
                         indent=2, ensure_ascii=False))


def _check_target(target: Path, manuscript: Path, force: bool) -> None:
    """Refuse to write `target` over the manuscript, over a folder, or over a file without --force."""
    if _same_file(target, manuscript):
        raise UsageError(f"{target} is the manuscript being imported; write the script to another file")
    if target.is_dir():
        raise UsageError(f"{target} is a folder; -o names the script file to write")
    if target.exists() and not force:
        raise UsageError(f"{target} exists; pass --force to replace it")


def _same_file(target: Path, source: Path) -> bool:
    """True when writing `target` would replace `source` (the same file, also through a link)."""
    try:
        return target.resolve() == source.resolve() or (target.exists() and target.samefile(source))
    except OSError:
        return False


def _print_import(report, chapters: int, target: Optional[Path]) -> None:
    lines, quotes, unattributed = report.total("lines"), report.total("quotes"), report.total("unattributed")
    notice(f"import: {chapters} chapter(s), {lines} line(s)"
           + (f", {quotes} quote(s), {unattributed} without a speaker (UNATTRIBUTED)" if quotes else "")
           + (f" written to {target}" if target else ""))
    if report.left_out:
        notice("import: left out: " + ", ".join(f"{kind} ×{count}" for kind, count in sorted(report.left_out.items())))
    if report.total("said I"):
        notice(f"import: {report.total('said I')} quote(s) tagged \"I said\" have no speaker; "
               "--narrator-is NAME gives them to the narrating character")


def register(app: typer.Typer) -> None:
    """Add `book` and `import` to the app."""
    app.command("book")(book_command)
    app.command("import")(import_command)
