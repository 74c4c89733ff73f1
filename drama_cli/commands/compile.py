"""`drama compile`: show each conversation as it will be sent, with its tokens and audio rows."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from drama_cli.commands import options as opt
from drama_cli.compile.cost import compile_report
from drama_cli.compile.modes import get_mode
from drama_cli.errors import UsageError
from drama_cli.takes.project import open_project


def compile_(
    script: str = opt.SCRIPT,
    cast: str | None = opt.CAST,
    scene: str | None = typer.Option(None, "--scene", help="Only this scene id."),
    mode: str = opt.MODE,
    max_chars: int = opt.MAX_CHARS,
    model: Path | None = typer.Option(
        None, "--model", help="Model folder whose tokenizer.json counts tokens."
    ),
    out: str | None = typer.Option(
        None,
        "--out",
        help="Project folder whose takes history mode shows as context (default: <script>.drama beside it).",
    ),
    no_normalize: bool = opt.NO_NORMALIZE,
    as_json: bool = opt.JSON,
) -> None:
    """Show each conversation as it will be sent, with tokens per segment and audio rows.

    Audio rows are estimated from reference durations at 44,100/2048 frames per second; the
    total cost per line sums both. In history mode each line also carries the selected takes
    of earlier lines in the project folder as context, counted in its rows.
    """
    # lazy: yaml and the script reader, 80 ms at start-up
    from drama_cli.script.load import load_script
    from drama_cli.takes.jobs import check_max_chars

    get_mode(mode)
    check_max_chars(max_chars)
    loaded = load_script(script, cast)
    loaded.normalize = loaded.normalize and not no_normalize
    if scene is not None and scene not in {s.id for s in loaded.scenes}:
        known = ", ".join(s.id for s in loaded.scenes)
        raise UsageError(f"no scene {scene!r} in {loaded.source}; scenes: {known}")
    takes, no_takes = _project_takes(script, out) if mode == "history" else (None, None)
    report = compile_report(
        loaded, mode, scene, max_chars=max_chars, model_folder=model, takes=takes, no_takes=no_takes
    )
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    _print_compile(report)


def _project_takes(script: str, out: str | None):
    """(take lookup, None) for the script's rendered project, or (None, why there is none)."""
    from drama_cli.takes.scene_selection import context_clip  # lazy: yaml, 70 ms at start-up

    store = open_project(script, out)
    if not store.project_path.exists():
        return None, (
            f"no rendered project at {store.root}: a first render gives each line the "
            f"takes made for the lines before it in that run"
        )
    return (lambda scene_id, line: context_clip(store, scene_id, line.id)), None


def _print_compile(report: dict) -> None:
    print(f"mode {report['mode']}; counting {report['counting']}")
    for line in report["lines"]:
        speakers = ", ".join(f"{name}={k}" for name, k in line["speakers"].items())
        text_part = line["total"] - line["total_rows"]
        print(
            f"\n{line['id']}  {line['speaker']}  [{speakers}]  prompt {line['total']} rows: "
            f"{text_part} {report['unit']} + {line['total_rows']} audio"
        )
        for warning in line["warnings"]:
            print(f"  warning: {warning}")
        if line.get("lexicon"):
            print(f"  lexicon: {'; '.join(line['lexicon'])}")
        if line.get("numbers"):
            print(f"  numbers: {'; '.join(line['numbers'])}")
        if "context" in line:
            heard = ", ".join(f"{c['line']} ({c['rows']} rows)" for c in line["context"])
            print(f"  context: {heard or 'none (' + line['context_note'] + ')'}")
        for n, conversation in enumerate(line["conversations"], 1):
            if conversation.get("shared_with"):
                print(
                    f"  conversation {n} ({conversation['layout']}): shared with {conversation['shared_with']}"
                )
                continue
            print(
                f"  conversation {n} ({conversation['layout']}): {conversation['text_count']} {report['unit']}"
                f" + {conversation['rows']} audio rows"
            )
            for segment in conversation["segments"]:
                if segment["kind"] == "audio":
                    print(f"    {segment['rows']:>6} rows  audio {segment['source']}")
                else:
                    print(
                        f"    {segment['count']:>6} {report['unit']:<6} "
                        f"{json.dumps(segment['text'], ensure_ascii=False)}"
                    )
    totals = report["totals"]
    context = (
        f" (of them {totals['context_rows']} context rows from earlier takes)"
        if report["mode"] == "history"
        else ""
    )
    print(
        f"\ntotal: {totals['lines']} lines, {totals['text']} {report['unit']} + {totals['rows']} audio rows{context}"
    )


def register(app: typer.Typer) -> None:
    """Add `compile` to the app."""
    app.command("compile")(compile_)
