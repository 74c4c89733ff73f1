"""What `drama revise`, `drama edit` and `drama plot` share: the script and its rendered
project, the project's engine, and how their results are printed.

Results go to stdout (text, or JSON with `--json`); notices to stderr.
"""

from __future__ import annotations

import dataclasses
import json

import typer

from drama_cli.backends import registry  # called through the module: tests replace make_backend
from drama_cli.commands import options as opt
from drama_cli.commands.inputs import recorded_cast
from drama_cli.commands.licence import notice_before_render
from drama_cli.commands.output import notice
from drama_cli.errors import UsageError
from drama_cli.mix.export import mix_audio_file
from drama_cli.render.plan import layout_for_backend
from drama_cli.takes.project import open_project


def load_rendered(script: str, cast: str | None = None, out: str | None = None):
    """The script, read with `cast`, else with the cast file its project was rendered with
    (`recorded_cast`), else with the one beside it."""
    from drama_cli.script.load import (
        load_script,  # lazy: yaml and the script reader, 80 ms at start-up
    )

    if script == "-":
        raise UsageError("revise, edit and plot need a script file (they read its project folder)")
    if cast is None:
        cast = recorded_cast(open_project(script, out))
    loaded = load_script(script, cast)
    for warning in loaded.warnings:
        notice(f"warning: {warning}")
    return loaded


def rendered_store(script: str, out: str | None):
    """The script's project; UsageError when it was never rendered."""
    store = open_project(script, out)
    if not store.project_path.exists():
        raise UsageError(f"{store.root} is not a rendered project; run drama render first")
    return store


def project_backend(store, flags: dict):
    """The backend of the `PROJECT_BACKEND` group's `flags`: the engine the project was
    rendered with, unless `--engine` says otherwise, with the backend options saved with the
    project (`project.json`, "engine_options") under those given now when it is that engine
    (with the licence notice of a render,
    `drama_cli.commands.licence.notice_before_render`)."""
    project = store.project()
    recorded = (project.get("engine") or {}).get("engine")
    name = flags["engine"] or (recorded if recorded in registry.backend_names() else registry.AUTO)
    choice = opt.backend_choice(flags, name)
    if name == recorded:
        saved = project.get("engine_options") or {}
        choice = dataclasses.replace(choice, options={**saved, **choice.options})
    backend = registry.make_backend(choice, notice=notice)
    notice_before_render(store.root, backend, flags["model"], notice)
    return backend


# Layouts a backend on this machine may lack and still serve its own way: without infill it
# speaks the new words alone and they are spliced in.
LOCAL_SUBSTITUTES = frozenset({"infill"})


def refuse_unvoiced(backend, layout: str) -> None:
    """Refuse, in one line before any work, a revision (`layout` `revise`) or an edit
    (`infill`) on a backend whose `capabilities.layouts` lack that layout: a revision on any
    such backend (nothing stands in for reading a note against the earlier take), an edit on
    one that needs the network (a server is sent only what its wire format carries). A backend
    on this machine without infill keeps its own way (`LOCAL_SUBSTITUTES`). Raises UsageError
    naming the engine and what it cannot do."""
    if backend.capabilities.network or layout not in LOCAL_SUBSTITUTES:
        layout_for_backend(backend.capabilities, backend.name, layout)


def print_result(data: dict, as_json: bool, lines: list[str]) -> None:
    """`data` as JSON with `--json`, else the text `lines`."""
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines))


def takes_lines(summary: dict) -> list[str]:
    """One text line per new take of a revise or edit `summary`, then the selection and mix."""
    rows = []
    for take in summary.get("takes", []):
        flag = "  FLAGGED: long silence in the edit" if take.get("flagged") else ""
        rows.append(
            f"  take {take['take']}: {take['duration_s']:.2f} s, seed {take['seed']}  {take['file']}{flag}"
        )
    if summary.get("selected"):
        mix = summary.get("mix") or {}
        rows.append(
            f"  selected take {summary['selected']}; mix {mix_audio_file(mix.get('files') or {}) or 'rebuilt'}"
        )
    return rows


def exit_for_takes(summaries: list[dict]) -> None:
    """Print the failed checks of the new takes and exit 1 (all unusable) or 3 (degraded) as
    `drama render` does (`drama_cli.render.report.takes_exit_code`); return when one passed."""
    from drama_cli.render.report import takes_exit_code  # lazy: scipy, 1 s at start-up

    takes = [take for summary in summaries for take in summary.get("takes", [])]
    code = takes_exit_code(takes)
    if not code:
        return
    for summary in summaries:
        for take in summary.get("takes", []):
            if take.get("failures"):
                notice(
                    f"{summary['line']} take {take['take']} ({take['status']}): "
                    f"{'; '.join(take['failures'])}"
                )
    raise typer.Exit(code)
