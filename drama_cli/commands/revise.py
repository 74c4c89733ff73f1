"""`drama revise`: a new take of a line read against its earlier takes and a director's note
(`drama_cli.edit.revise`)."""

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
from drama_cli.errors import UsageError
from drama_cli.takes.store import check_new_takes

SCRATCH_NOTE = (
    "warning: the scratch engine does not read notes: each new take is the line voiced "
    "again with another seed; render with drama3 to hear a note"
)


def _revising_backend(store, flags: dict):
    """The backend of a revision (`project_backend`); says first when it cannot read a note."""
    engine = project_backend(store, flags)
    refuse_unvoiced(engine, "revise")
    if engine.scratch:
        notice(SCRATCH_NOTE)
    return engine


@opt.PROJECT_BACKEND.into("backend")
def revise_command(
    script: str = opt.SCRIPT_FILE,
    line: str | None = typer.Argument(None, help="Line id to revise."),
    note: str | None = typer.Option(None, help="Director's note, read against the earlier take."),
    from_take: int | None = opt.FROM_TAKE,
    takes: int = opt.NEW_TAKES,
    seed: int | None = opt.NEW_SEED,
    select: bool = opt.SELECT,
    keep: bool = opt.KEEP_STALE,
    from_script: bool = typer.Option(
        False, "--from-script", help="Apply the notes written in the script."
    ),
    backend: dict = None,  # the PROJECT_BACKEND group's options: --engine, --model, --device, --gpu-memory
    out: str | None = opt.OUT,
    cast: str | None = opt.PROJECT_CAST,
    as_json: bool = opt.JSON,
) -> None:
    """Make a new take of a line read against its earlier takes and a director's note. Exits 1
    when every new take is unusable, 3 when the best is degraded (failed checks on stderr)."""
    from drama_cli.edit.revise import (  # lazy: scipy, 1 s at start-up
        clean_note,
        find_line,
        revise_in_project,
    )

    check_new_takes(takes)
    loaded = load_rendered(script, cast, out)
    if from_script:
        if line is not None or note is not None:
            raise UsageError(
                "--from-script takes the notes from the script; give no LINE or --note"
            )
        _revise_from_script(loaded, rendered_store(script, out), backend, seed, as_json)
        return
    if line is None or note is None:
        raise UsageError("give LINE and --note (or --from-script)")
    find_line(loaded, line)
    clean_note(note)
    store = rendered_store(script, out)
    summary = revise_in_project(
        loaded,
        store,
        _revising_backend(store, backend),
        line,
        note,
        takes,
        seed,
        from_take,
        select,
        keep,
    )
    head = f"{summary['line']}: revised take {summary['parent_take']} with note {summary['note']!r}"
    print_result(summary, as_json, [head, *takes_lines(summary)])
    exit_for_takes([summary])


def _revise_from_script(loaded, store, backend: dict, seed: int | None, as_json: bool) -> None:
    """`--from-script`: a new take of each line whose note in the script is new; no engine
    loads when there is none."""
    from drama_cli.edit.revise import (  # lazy: scipy, 1 s at start-up
        pending_script_notes,
        revise_from_script,
    )

    pending = pending_script_notes(loaded, store)
    done = (
        revise_from_script(loaded, store, _revising_backend(store, backend), seed, pending=pending)
        if pending
        else []
    )
    lines = [
        f"{d['line']}: take {d['takes'][0]['take']} from take {d['parent_take']} ({d['note']})"
        for d in done
    ]
    print_result({"revised": done}, as_json, lines or ["no new notes in the script"])
    exit_for_takes(done)


def register(app: typer.Typer) -> None:
    """Add `revise` to the app."""
    app.command("revise")(revise_command)
