"""`drama takes`: list the takes of lines, or select one (`drama_cli.takes.selection`)."""

from __future__ import annotations

import json

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked, render_settings
from drama_cli.commands.output import notice, results_console
from drama_cli.errors import UsageError
from drama_cli.mix.provenance import PROVENANCE_NAME, entry_at
from drama_cli.script.document import BOOK_FOLDER
from drama_cli.takes.project import command_text, open_project


def takes_command(
    script: str = opt.SCRIPT,
    scene: list[str] | None = opt.SCENES,
    line: list[str] | None = opt.LINES,
    select: int | None = typer.Option(None, help="Select take N for the one --line given."),
    at: str | None = typer.Option(
        None,
        "--at",
        help="CHAPTER:SECONDS of the assembled book: the line heard "
        "there, its take, engine, model revision, seed and voice "
        "source (from the book's provenance.json).",
    ),
    prune: bool = typer.Option(
        False,
        "--prune",
        help="Remove unusable takes (failed checks or damaged "
        "files) that are neither selected nor the source of another take.",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="With --prune: list what would be removed, remove nothing."
    ),
    adopt: tuple[str, str] | None = typer.Option(
        None,
        "--adopt",
        help="OLD NEW: copy the takes kept under "
        "line id OLD (ids shift when a line is removed or added) to line NEW.",
    ),
    out: str | None = opt.OUT,
    cast: str | None = opt.CAST,
    as_json: bool = opt.JSON,
) -> None:
    """List the takes of lines, select one, or remove the unusable ones no take needs."""
    # lazy: yaml and the script reader, 80 ms at start-up
    from drama_cli.render.plan import pick_scenes
    from drama_cli.takes.selection import list_takes

    if dry_run and not prune:
        raise UsageError("--dry-run goes with --prune")
    adopting = bool(adopt and all(adopt))
    if sum((at is not None, prune, select is not None, adopting)) > 1:
        raise UsageError("give one of --at, --prune, --select and --adopt")
    if at is not None and (scene or line):
        raise UsageError(
            "--at finds its line by the book's time: give it without --scene and --line"
        )
    loaded = load_checked(script, cast)
    store = open_project(script, out)
    if at is not None:
        _print_at(store, at, as_json)
        return
    settings = render_settings(scene, line)
    if prune:
        _prune(store, pick_scenes(loaded, settings), settings.lines, dry_run, as_json)
        return
    if adopting:
        settings = _adopt(script, loaded, store, *adopt, scene)
    if select is not None:
        _select(script, loaded, store, settings.lines, select)
    listing = with_loudness(
        list_takes(loaded, store, pick_scenes(loaded, settings), settings.lines)
    )
    if as_json:
        print(json.dumps(listing, indent=2))
        return
    _print_takes(listing)


def _adopt(script: str, loaded, store, old: str, new: str, scenes):
    """`--adopt OLD NEW`: copy the takes of line id `old` to `new` and say so; the settings
    that list the takes of `new` in `scenes`."""
    from drama_cli.takes.adopt import (
        adopt_takes,  # lazy: yaml and the script reader, 80 ms at start-up
    )

    copies = adopt_takes(loaded, store, old, new)
    if not copies:
        notice(f"line {new}: nothing new to adopt; every take of {old} was adopted before")
    else:
        notice(
            f"line {new}: adopted takes {', '.join(f'{was} as {now}' for was, now in copies.items())} "
            f"of {old}; run {command_text('mix', script, store.root)} to hear them in the scene's mix"
        )
    return render_settings(scenes, [new])


def _select(script: str, loaded, store, line_ids: tuple, number: int) -> None:
    """`--select N`: select take `number` of the one line of `line_ids` and say so."""
    from drama_cli.takes.selection import (
        select_take,  # lazy: yaml and the script reader, 80 ms at start-up
    )

    if len(line_ids) != 1:
        raise UsageError("--select needs exactly one --line")
    tell_selected(script, store, line_ids[0], select_take(loaded, store, line_ids[0], number))


def _print_at(store, at: str, as_json: bool) -> None:
    """Print the provenance entry of the book's line at `CHAPTER:SECONDS`. Raises UsageError
    for a malformed position, a project without an assembled book, or a time no line covers."""
    chapter, _, seconds = at.partition(":")
    try:
        number, time_s = int(chapter), float(seconds)
    except ValueError:
        raise UsageError(f"--at {at!r}: write CHAPTER:SECONDS, e.g. 3:125.5") from None
    path = store.root / BOOK_FOLDER / PROVENANCE_NAME
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise UsageError(
            f"{path}: no readable provenance; assemble the book first (drama book)"
        ) from None
    entry = entry_at(record, number, time_s)
    if entry is None:
        raise UsageError(f"--at {at}: no line of the book sounds there")
    if as_json:
        print(json.dumps(entry, indent=2, ensure_ascii=False))
        return
    voice = entry.get("voice") or {}
    source = (
        voice.get("consent") or voice.get("voice_source") or "no consent or voice source recorded"
    )
    print(
        f"chapter {number} ({entry['file']}) at {time_s:g} s: line {entry['line']}, {entry['speaker']}, "
        f"take {entry['take']} ({entry['engine']}, model revision {entry['model_revision']}, seed {entry['seed']}); "
        f"voice: {source}"
    )


def with_loudness(listing: list[dict]) -> list[dict]:
    """`listing` with each valid take's integrated loudness (`loudness_lufs`, LUFS, None when
    nothing is above the gate) and sample peak (`peak_dbfs`) measured from its file."""
    # lazy: scipy, 1 s at start-up
    from drama_cli.mix.loudness import measure
    from drama_cli.mix.timeline import read_take

    for row in listing:
        for take in row["takes"]:
            if "file" in take:
                report = measure(read_take(take["file"]))
                take["loudness_lufs"] = (
                    None if report.integrated_lufs is None else round(report.integrated_lufs, 1)
                )
                take["peak_dbfs"] = round(report.peak_dbfs, 1)
    return listing


def _prune(store, scenes: list, line_ids, dry_run: bool, as_json: bool) -> None:
    """Remove (or with `dry_run` only list) the takes `--prune` removes; one line per take."""
    from drama_cli.takes.prune import prunable_takes, prune_takes  # lazy: yaml, 70 ms at start-up

    found = prunable_takes(store, scenes, line_ids)
    if not dry_run:
        prune_takes(store, found)
    if as_json:
        print(
            json.dumps(
                {
                    "ok": True,
                    "exit_code": 0,
                    "dry_run": dry_run,
                    "removed": [] if dry_run else [vars(t) for t in found],
                    "would_remove": [vars(t) for t in found] if dry_run else [],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    verb = "would remove" if dry_run else "removed"
    for take in found:
        print(f"{verb} {take.line_id} take {take.number} ({take.reason}): {', '.join(take.files)}")
    print(
        f"{len(found)} take(s) {'would be removed' if dry_run else 'removed'}"
        + ("; run again without --dry-run to remove them" if dry_run and found else "")
    )


def tell_selected(script: str, store, line_id: str, take) -> None:
    """Say on stderr that take `take` of `line_id` is selected and that `drama mix` of the
    project `store` puts it in the scene's mix; warn first when its checks failed (a mix with
    it exits 1)."""
    if take.status == "unusable":
        notice(
            f"warning: take {take.number} of line {line_id} failed its checks ({take.failures_text}); "
            f"a mix with it exits 1"
        )
    notice(
        f"selected take {take.number} of line {line_id}; run {command_text('mix', script, store.root)} to put it "
        f"in the scene's mix"
    )


def _print_takes(listing: list[dict]) -> None:
    """One row per take: its number (`*` when selected), length, the take it came from, its
    loudness, its words, the note or edit that made it, its status and checks (stale when made
    for older text) and its file; a line without takes shows the script's words. The scene and the engine go in the
    title when they are the same for every row, else in columns; the seeds are left out on a
    terminal narrower than 120 columns (`--json` has them)."""
    from rich import box  # lazy: rich's tables, 14 ms at start-up
    from rich.table import Table

    console = results_console()
    scenes = {row["scene"] for row in listing}
    engines = {t.get("engine", "") for row in listing for t in row["takes"] if "engine" in t}
    shared = {"scene": scenes, "engine": engines}
    title = "; ".join(
        f"{name} {next(iter(values))}" for name, values in shared.items() if len(values) == 1
    )
    table = Table(
        title=f"takes ({title})" if title else "takes",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    short = ["scene"] if len(scenes) > 1 else []
    short += ["line", "take", "s", "from"] + (["seed"] if console.width >= 120 else [])
    short += ["engine"] if len(engines) > 1 else []
    for column in short:
        table.add_column(
            column, no_wrap=True, justify="right" if column in ("s", "seed") else "left"
        )
    table.add_column("LUFS", no_wrap=True, justify="right")
    for column in ("words", "note / edit", "checks", "file"):
        table.add_column(column, overflow="fold")
    for row in listing:
        for take in row["takes"]:
            problem = take.get("problem") or ", ".join(take.get("failures", []))
            checks = f"{take.get('status', '')}: {problem}" if problem else take.get("status", "")
            if take.get("stale"):
                checks = f"stale (made for older text); {checks}"
            if take.get("wer") is not None:
                checks += f"; WER {take['wer']:.2f}"
            parent = take.get("parent_take")
            values = {
                "scene": row["scene"],
                "line": row["line"],
                "take": f"{take['take']}{' *' if take.get('selected') else ''}",
                "s": f"{take.get('duration_s', 0):.2f}",
                "from": "-" if parent is None else str(parent),
                "seed": str(take.get("seed", "")),
                "engine": take.get("engine", ""),
            }
            lufs = take.get("loudness_lufs")
            table.add_row(
                *[values[c] for c in short],
                "-" if lufs is None else f"{lufs:.1f}",
                take.get("text", ""),
                _take_change(take),
                checks,
                take.get("file", ""),
            )
        if not row["takes"]:
            values = {"scene": row["scene"], "line": row["line"], "take": "-"}
            table.add_row(
                *[values.get(c, "") for c in short], "", row.get("text", ""), "", "not rendered", ""
            )
    console.print(table)


def _take_change(take: dict) -> str:
    """What made a take from its parent: `edit 0.30-0.75 s over 'never' -> 'hardly ever'` (the
    span, the words it covered and, when known, the words said over it; or the whole line voiced
    again), `note: softer`, or `-` for a first take."""
    edit = take.get("edit")
    if edit:
        if edit.get("whole_line"):
            change = f"edit: whole line voiced again as {edit.get('new_text')!r}"
        else:
            start, end = edit.get("span_s") or (0.0, 0.0)
            change = (
                f"edit {start:.2f}-{end:.2f} s over {' '.join(edit.get('covered_words') or [])!r}"
            )
            if edit.get("middle_text"):
                change += f" -> {edit['middle_text']!r}"
        return change + ("; long silence in the splice" if edit.get("flagged") else "")
    return f"note: {take['note']}" if take.get("note") else "-"


def register(app: typer.Typer) -> None:
    """Add `takes` to the app."""
    app.command("takes")(takes_command)
