"""`drama edit`: regenerate part of a take between its fixed audio before and after
(`drama_cli.edit.project_edit`). The planned span and notices go to stderr."""

from __future__ import annotations

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.output import notice
from drama_cli.commands.rendered import (
    exit_for_takes,
    load_rendered,
    print_result,
    project_backend,
    refuse_unvoiced,
    rendered_store,
    takes_lines,
)
from drama_cli.takes.store import check_new_takes


@opt.PROJECT_BACKEND.into("backend")
def edit_command(
    script: str = opt.SCRIPT_FILE,
    line: str = typer.Argument(..., help="Line id to edit."),
    insert: str | None = typer.Option(None, help="Words to insert (with --at or --after)."),
    at: float | None = typer.Option(None, help="Insert at this time in the take, seconds."),
    after: str | None = typer.Option(None, help="Insert after this word of the line."),
    replace: str | None = typer.Option(None, help="Words of the line to replace (with --with)."),
    with_: str | None = typer.Option(None, "--with", help="The replacement words."),
    text: str | None = typer.Option(None, help="The full new text of the line."),
    span: str | None = typer.Option(
        None, help="START:END to regenerate (seconds, or frames with --frames)."
    ),
    frames: bool = typer.Option(
        False, "--frames", help="--span is in codec frames (44,100/2048 per second)."
    ),
    from_take: int | None = opt.FROM_TAKE,
    takes: int = opt.NEW_TAKES,
    seed: int | None = opt.NEW_SEED,
    select: bool = opt.SELECT,
    keep: bool = opt.KEEP_STALE,
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the span and the words it covers, then stop."
    ),
    update_script: bool = typer.Option(
        False, "--update-script", help="Write the new text into the script (keeps a backup)."
    ),
    backend: dict = None,  # the PROJECT_BACKEND group's options: --engine, --model, --device, --gpu-memory
    out: str | None = opt.OUT,
    cast: str | None = opt.PROJECT_CAST,
    as_json: bool = opt.JSON,
) -> None:
    """Regenerate part of a take between its fixed audio before and after (infill)."""
    # lazy: scipy, 1 s at start-up
    from drama_cli.edit.project_edit import EditForm, edit_in_project, plan_in_project, plan_summary
    from drama_cli.edit.revise import find_line

    form = EditForm(
        insert=insert,
        at_s=at,
        after=after,
        replace_old=replace,
        replace_new=with_,
        text=text,
        span=span,
        frames=frames,
    )
    form.validate()
    check_new_takes(takes)
    loaded = load_rendered(script, cast, out)
    find_line(loaded, line)
    store = rendered_store(script, out)
    engine = project_backend(store, backend)
    refuse_unvoiced(engine, "infill")
    planned, source, audio, plan = plan_in_project(
        loaded, store, engine, line, form, from_take, keep=keep
    )
    if dry_run:
        print_result(
            plan_summary(planned, source, plan), as_json, _dry_run_lines(line, source, plan)
        )
        return
    notice(_span_line(line, source, plan))
    result = edit_in_project(
        loaded, store, engine, planned, source, audio, plan, takes, seed, select, update_script
    )
    _print_edit(result, f"{line}: edited take {source.number}: {plan.new_text}", as_json)


def _span_line(line: str, source, plan) -> str:
    """The span an edit regenerates, in seconds and frames, and the words it covers."""
    return (
        f"{line}: take {source.number}, span {plan.span.start_s:.3f}-{plan.span.end_s:.3f} s "
        f"(frames {plan.span.start_frame}-{plan.span.end_frame}), covering: "
        f"{' '.join(plan.covered_words) or '(no whole word)'}"
    )


def _dry_run_lines(line: str, source, plan) -> list[str]:
    """What `--dry-run` prints: the span, the old and new text, and what would be voiced again."""
    from drama_cli.edit.project_edit import (
        WHOLE_LINE_NOTE,  # lazy: numpy and soxr, 25 ms at start-up
    )

    whole = (
        [f"  note: {WHOLE_LINE_NOTE.replace('was voiced', 'would be voiced')}"]
        if plan.whole_line
        else [f"  voiced again: {plan.middle_text}"]
        if plan.middle_text
        else []
    )
    return [
        _span_line(line, source, plan),
        f"  old text: {plan.old_text}",
        f"  new text: {plan.new_text}",
        *whole,
    ]


def _print_edit(result: dict, head: str, as_json: bool) -> None:
    """The notes of an edit on stderr, its new takes on stdout; exits as `exit_for_takes` says."""
    for message in result["notes"]:
        notice(f"warning: {message}")
    lines = [head, *takes_lines(result)]
    if result.get("script_backup"):
        lines.append(f"  script updated; backup {result['script_backup']}")
    print_result(result, as_json, lines)
    exit_for_takes([result])


def register(app: typer.Typer) -> None:
    """Add `edit` to the app."""
    app.command("edit")(edit_command)
