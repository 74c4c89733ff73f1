"""`drama revise`, `drama edit` and `drama plot`: thin commands over `drama_cli.edit`
and `drama_cli.plot`.

Results go to stdout (text, or JSON with `--json`); the planned span and notices to stderr.
"""

from __future__ import annotations

import json
import math
from typing import Optional

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.output import notice
from drama_cli.errors import UsageError
from drama_cli.takes.store import check_new_takes


def _load(script: str, cast: Optional[str] = None, out: Optional[str] = None):
    """The script, read with `cast`, else with the cast file its project was rendered with
    (`recorded_cast`), else with the one beside it."""
    from drama_cli.commands.inputs import recorded_cast
    from drama_cli.script.load import load_script
    from drama_cli.takes.project import open_project

    if script == "-":
        raise UsageError("revise, edit and plot need a script file (they read its project folder)")
    if cast is None:
        cast = recorded_cast(open_project(script, out))
    loaded = load_script(script, cast)
    for warning in loaded.warnings:
        notice(f"warning: {warning}")
    return loaded


def _store(script: str, out: Optional[str]):
    from drama_cli.takes.project import open_project

    store = open_project(script, out)
    if not store.project_path.exists():
        raise UsageError(f"{store.root} is not a rendered project; run drama render first")
    return store


def project_backend(store, flags: dict):
    """The backend of the `PROJECT_BACKEND` group's `flags`: the engine the project was
    rendered with, unless `--engine` says otherwise (with the licence notice of a render,
    `drama_cli.commands.licence.notice_before_render`)."""
    from drama_cli.backends.registry import AUTO, backend_names, make_backend
    from drama_cli.commands.licence import notice_before_render

    recorded = (store.project().get("engine") or {}).get("engine")
    name = flags["engine"] or (recorded if recorded in backend_names() else AUTO)
    backend = make_backend(**{**flags, "engine": name}, notice=notice)
    notice_before_render(store.root, backend.name, flags["model"], notice)
    return backend


SCRATCH_NOTE = ("warning: the scratch engine does not read notes: each new take is the line voiced "
                "again with another seed; render with drama3 to hear a note")


def _revising_backend(store, flags: dict):
    """The backend of a revision (`project_backend`); says first when it cannot read a note."""
    engine = project_backend(store, flags)
    if engine.scratch:
        notice(SCRATCH_NOTE)
    return engine


def _print(data: dict, as_json: bool, lines: list[str]) -> None:
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines))


def _takes_lines(summary: dict) -> list[str]:
    rows = []
    for take in summary.get("takes", []):
        flag = "  FLAGGED: long silence in the edit" if take.get("flagged") else ""
        rows.append(f"  take {take['take']}: {take['duration_s']:.2f} s, seed {take['seed']}  {take['file']}{flag}")
    if summary.get("selected"):
        from drama_cli.mix.export import mix_audio_file

        mix = summary.get("mix") or {}
        rows.append(f"  selected take {summary['selected']}; mix {mix_audio_file(mix.get('files') or {}) or 'rebuilt'}")
    return rows


def _exit_for_takes(summaries: list[dict]) -> None:
    """Print the failed checks of the new takes and exit 1 (all unusable) or 3 (degraded) as
    `drama render` does (`drama_cli.render.report.takes_exit_code`); return when one passed."""
    from drama_cli.render.report import takes_exit_code

    takes = [take for summary in summaries for take in summary.get("takes", [])]
    code = takes_exit_code(takes)
    if not code:
        return
    for summary in summaries:
        for take in summary.get("takes", []):
            if take.get("failures"):
                notice(f"{summary['line']} take {take['take']} ({take['status']}): "
                     f"{'; '.join(take['failures'])}")
    raise typer.Exit(code)


@opt.PROJECT_BACKEND.into("backend")
def revise_command(
    script: str = opt.SCRIPT_FILE,
    line: Optional[str] = typer.Argument(None, help="Line id to revise."),
    note: Optional[str] = typer.Option(None, help="Director's note, read against the earlier take."),
    from_take: Optional[int] = opt.FROM_TAKE,
    takes: int = opt.NEW_TAKES,
    seed: Optional[int] = opt.NEW_SEED,
    select: bool = opt.SELECT,
    keep: bool = opt.KEEP_STALE,
    from_script: bool = typer.Option(False, "--from-script", help="Apply the notes written in the script."),
    backend: dict = None,  # the PROJECT_BACKEND group's options: --engine, --model, --device, --gpu-memory
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.PROJECT_CAST,
    as_json: bool = opt.JSON,
) -> None:
    """Make a new take of a line read against its earlier takes and a director's note. Exits 1
    when every new take is unusable, 3 when the best is degraded (failed checks on stderr)."""
    from drama_cli.edit.revise import (
        clean_note,
        find_line,
        pending_script_notes,
        revise_from_script,
        revise_in_project,
    )

    check_new_takes(takes)
    loaded = _load(script, cast, out)
    if from_script:
        if line is not None or note is not None:
            raise UsageError("--from-script takes the notes from the script; give no LINE or --note")
        store = _store(script, out)
        pending = pending_script_notes(loaded, store)  # none: no engine to load
        done = revise_from_script(loaded, store, _revising_backend(store, backend), seed,
                                  pending=pending) if pending else []
        lines = [f"{d['line']}: take {d['takes'][0]['take']} from take {d['parent_take']} ({d['note']})" for d in done]
        _print({"revised": done}, as_json, lines or ["no new notes in the script"])
        _exit_for_takes(done)
        return
    if line is None or note is None:
        raise UsageError("give LINE and --note (or --from-script)")
    find_line(loaded, line)
    clean_note(note)
    store = _store(script, out)
    summary = revise_in_project(loaded, store, _revising_backend(store, backend), line, note,
                                takes, seed, from_take, select, keep)
    head = f"{summary['line']}: revised take {summary['parent_take']} with note {summary['note']!r}"
    _print(summary, as_json, [head, *_takes_lines(summary)])
    _exit_for_takes([summary])


@opt.PROJECT_BACKEND.into("backend")
def edit_command(
    script: str = opt.SCRIPT_FILE,
    line: str = typer.Argument(..., help="Line id to edit."),
    insert: Optional[str] = typer.Option(None, help="Words to insert (with --at or --after)."),
    at: Optional[float] = typer.Option(None, help="Insert at this time in the take, seconds."),
    after: Optional[str] = typer.Option(None, help="Insert after this word of the line."),
    replace: Optional[str] = typer.Option(None, help="Words of the line to replace (with --with)."),
    with_: Optional[str] = typer.Option(None, "--with", help="The replacement words."),
    text: Optional[str] = typer.Option(None, help="The full new text of the line."),
    span: Optional[str] = typer.Option(None, help="START:END to regenerate (seconds, or frames with --frames)."),
    frames: bool = typer.Option(False, "--frames", help="--span is in codec frames (44,100/2048 per second)."),
    from_take: Optional[int] = opt.FROM_TAKE,
    takes: int = opt.NEW_TAKES,
    seed: Optional[int] = opt.NEW_SEED,
    select: bool = opt.SELECT,
    keep: bool = opt.KEEP_STALE,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the span and the words it covers, then stop."),
    update_script: bool = typer.Option(False, "--update-script", help="Write the new text into the script (keeps a backup)."),
    backend: dict = None,  # the PROJECT_BACKEND group's options: --engine, --model, --device, --gpu-memory
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.PROJECT_CAST,
    as_json: bool = opt.JSON,
) -> None:
    """Regenerate part of a take between its fixed audio before and after (infill)."""
    from drama_cli.edit.project_edit import (
        WHOLE_LINE_NOTE,
        EditForm,
        edit_in_project,
        plan_in_project,
        plan_summary,
    )
    from drama_cli.edit.revise import find_line

    form = EditForm(insert=insert, at_s=at, after=after, replace_old=replace, replace_new=with_,
                    text=text, span=span, frames=frames)
    form.validate()
    if at is not None and not math.isfinite(at):
        raise UsageError(f"--at must be a finite number of seconds, not {at!r}")
    check_new_takes(takes)
    loaded = _load(script, cast, out)
    find_line(loaded, line)
    store = _store(script, out)
    engine = project_backend(store, backend)
    planned, source, audio, plan = plan_in_project(loaded, store, engine, line, form, from_take,
                                                   keep=keep)
    summary = plan_summary(planned, source, plan)
    span_line = (f"{line}: take {source.number}, span {plan.span.start_s:.3f}-{plan.span.end_s:.3f} s "
                 f"(frames {plan.span.start_frame}-{plan.span.end_frame}), covering: "
                 f"{' '.join(plan.covered_words) or '(no whole word)'}")
    if dry_run:
        whole = [f"  note: {WHOLE_LINE_NOTE.replace('was voiced', 'would be voiced')}"] if plan.whole_line else \
            [f"  voiced again: {plan.middle_text}"] if plan.middle_text else []
        _print(summary, as_json, [span_line, f"  old text: {plan.old_text}",
                                  f"  new text: {plan.new_text}", *whole])
        return
    notice(span_line)
    result = edit_in_project(loaded, store, engine, planned, source, audio, plan, takes, seed, select,
                             update_script)
    for message in result["notes"]:
        notice(f"warning: {message}")
    lines = [f"{line}: edited take {source.number}: {plan.new_text}", *_takes_lines(result)]
    if result.get("script_backup"):
        lines.append(f"  script updated; backup {result['script_backup']}")
    _print(result, as_json, lines)
    _exit_for_takes([result])


def plot_command(
    script: str = opt.SCRIPT_FILE,
    scene: Optional[str] = typer.Option(None, help="Scene id: plot its mix timeline."),
    line: Optional[str] = typer.Option(None, help="Line id: plot a take's waveform and spectrogram."),
    take: Optional[int] = typer.Option(None, help="Take number (default: the selected one)."),
    output: Optional[str] = typer.Option(None, "-o", "--image", help="Picture to write (default: <scene>.png / <line>.png)."),
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.PROJECT_CAST,
    as_json: bool = opt.JSON,
    old_output: Optional[str] = typer.Option(None, "--output", hidden=True),
) -> None:
    """Draw a scene's timeline or a take's waveform and spectrogram (PNG, SVG, PDF or JPG by
    the picture's extension)."""
    from drama_cli.plot import (
        check_image_path,
        save_figure,
        scene_blocks_figure,
        take_view_figure,
    )
    from drama_cli.takes.store import safe_name

    if old_output is not None:
        raise UsageError("--output is now --image (or -o): the picture to write; --out is the project folder")
    if (scene is None) == (line is None):
        raise UsageError("give exactly one of --scene ID or --line ID")
    if scene is not None and take is not None:
        raise UsageError("--take goes with --line")
    if output is not None:
        check_image_path(output)
    loaded = _load(script, cast, out)
    store = _store(script, out)
    if scene is not None:
        fig = scene_blocks_figure(loaded, store, scene)
        target = output or f"{safe_name(scene)}.png"  # an id may hold `/` or `..`
    else:
        fig = take_view_figure(loaded, store, line, take)
        target = output or f"{safe_name(line)}.png"
    written = save_figure(fig, target)
    if as_json:
        from pathlib import Path

        files = [{"path": str(written), "bytes": Path(written).stat().st_size}]
        print(json.dumps({"files": files}, indent=2))
    else:
        print(written)


def register(app: typer.Typer) -> None:
    """Add `revise`, `edit` and `plot` to the app."""
    app.command("revise")(revise_command)
    app.command("edit")(edit_command)
    app.command("plot")(plot_command)
