"""`drama qc`: run the checks on a project's takes without rendering and write the exception
report (`drama_cli.qc.project_qc`, `drama_cli.qc.report`)."""

from __future__ import annotations

import json
import sys

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked, render_settings
from drama_cli.commands.output import notice, results_console
from drama_cli.errors import UsageError
from drama_cli.qc.limits import check_qc_limits, project_qc_limits, save_qc_limits
from drama_cli.takes.project import open_project


def qc_command(
    script: str = opt.SCRIPT,
    chapter: list[int] | None = typer.Option(
        None, "--chapter", help="Chapter number to check (repeatable; default: all)."
    ),
    scene: list[str] | None = opt.SCENES,
    checks: str | None = typer.Option(
        None,
        "--checks",
        help="Checks to run, comma-separated: signal, words, voice, quality (default: all).",
    ),
    min_similarity: float | None = opt.MIN_SIMILARITY,
    min_quality: float | None = opt.MIN_QUALITY,
    asr_threshold: float = typer.Option(
        0.25, help="Highest word error rate the words check accepts."
    ),
    workers: int | None = typer.Option(
        None, help="Worker processes, one core each (default: the CPU cores)."
    ),
    studio_url: str = typer.Option(
        "http://127.0.0.1:8765/",
        help="The studio's address the report links into (drama studio --port 8765).",
    ),
    out: str | None = opt.OUT,
    cast: str | None = opt.CAST,
    as_json: bool = opt.JSON,
) -> None:
    """Check the selected takes (signal, words, voice, quality) and write qc-report.html and
    qc-report.csv into the project folder: one row per line that needs attention."""
    # lazy: numpy, soundfile and the script reader, 0.3 s at start-up
    from drama_cli.qc.project_qc import QcLimits, parse_checks, run_qc
    from drama_cli.qc.report import report_json, write_report
    from drama_cli.render.plan import pick_scenes

    names = parse_checks(checks)
    check_qc_limits(min_similarity, min_quality)
    if not 0.0 <= asr_threshold <= 1.0:
        raise UsageError(f"--asr-threshold must be within 0..1, not {asr_threshold}")
    if workers is not None and not 1 <= workers <= 256:
        raise UsageError(f"--workers must be within 1..256, not {workers}")
    loaded = load_checked(script, cast)
    store = open_project(script, out)
    min_similarity, min_quality = project_qc_limits(store, min_similarity, min_quality)
    scenes = pick_scenes(loaded, render_settings(scene, None))
    if chapter:
        scenes = [s for s in scenes if s.id in chapter_scene_ids(loaded, chapter)]
    limits = QcLimits(min_similarity, min_quality, asr_threshold)
    run = run_qc(loaded, store, scenes, names, limits, workers, on_done=qc_progress())
    title = f"QC: {loaded.title or store.root.name}"
    page, table = write_report(run, store.root, title)
    save_qc_limits(store, min_similarity, min_quality)  # given once, kept with the project
    if as_json:
        print(json.dumps({**report_json(run), "html": str(page), "csv": str(table)}, indent=2))
        return
    _print_run(run)
    notice(f"report: {page} and {table.name}")


def chapter_scene_ids(script, numbers: list[int]) -> set[str]:
    """The scene ids of chapters `numbers`. Raises UsageError for a script without chapters or
    an unknown number."""
    known = {chapter.number: chapter for chapter in script.chapters}
    if not known:
        raise UsageError("--chapter needs a book script (one with chapters:)")
    missing = [n for n in numbers if n not in known]
    if missing:
        raise UsageError(f"no chapter {missing[0]} (chapters: {', '.join(map(str, known))})")
    return {scene for n in numbers for scene in known[n].scenes}


def qc_progress():
    """A progress callback: one line on stderr every tenth of the measurements."""
    shown = {"step": -1}

    def on_done(done: int, total: int) -> None:
        step = done * 10 // total
        if step != shown["step"] or done == total:
            shown["step"] = step
            print(f"qc: {done}/{total} measurements", file=sys.stderr, flush=True)

    return on_done


def _print_run(run) -> None:
    """The lines that need attention as a table, then the counts and the speed."""
    from rich import box  # lazy: rich's tables, 14 ms at start-up
    from rich.table import Table

    table = Table(title="drama qc", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    for column in ("severity", "line", "speaker", "voice", "MOS", "WER", "reason"):
        table.add_column(column, overflow="fold")
    for line in run.attention:
        row = line.to_dict()
        table.add_row(
            row["severity"],
            row["line"],
            row["speaker"],
            "" if row["similarity"] is None else f"{row['similarity']:.2f}",
            "" if row["mos"] is None else f"{row['mos']:.2f}",
            "" if row["wer"] is None else f"{row['wer']:.2f}",
            row["reason"],
        )
    console = results_console()
    console.print(table)
    rate = run.measured / run.seconds if run.seconds and run.measured else 0.0
    console.print(
        f"{len(run.attention)} of {len(run.lines)} lines need attention; {run.measured} "
        f"measurements made ({rate:.1f}/s on {run.workers} workers), {run.cached} reused"
    )


def register(app: typer.Typer) -> None:
    """Register `drama qc`."""
    app.command("qc")(qc_command)
