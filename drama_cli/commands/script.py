"""`drama check` and `drama compile`: read a script, validate it, show what will be sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from drama_cli.commands import options as opt
from drama_cli.compile.modes import get_mode
from drama_cli.errors import (
    EXIT_BAD_INPUT,
    CheckFailed,
    ScriptError,
    ScriptErrors,
    SourcePosition,
    UsageError,
    error_report,
)


def register(app: typer.Typer) -> None:
    """Add `check` and `compile` to the app."""
    app.command("check")(check)
    app.command("compile")(compile_)


def check(script: str = opt.SCRIPT, cast: Optional[str] = opt.CAST,
          strict_tags: Annotated[bool, typer.Option("--strict-tags", help="Warn about tags outside the known vocabulary (never drops them).")] = False,
          words: Annotated[bool, typer.Option("--words", help="List the words of English lines that neither the pronouncing dictionary nor the lexicon knows, with counts and where each is first written.")] = False,
          numbers: Annotated[bool, typer.Option("--numbers", help="List every number expression and abbreviation with where it is written, what will be said, and what is left as written.")] = False,
          engine: Annotated[str, typer.Option("--engine", help="The engine the script is checked for: drama3 (also auto) clones the cast's reference clips, so a speaking cast member with a clip and neither consent: nor voice_source: is a warning; scratch skips that check.")] = "drama3",
          strict_consent: Annotated[bool, typer.Option("--strict-consent", help="Make a missing consent: or voice_source: an error (exit 2) instead of a warning.")] = False,
          as_json: bool = opt.JSON) -> None:
    """Parse, resolve and validate a script; print cast, scenes, line counts and warnings.

    Exit 0 when the script is usable, 2 with `file:line:col: message` lines when it is not.
    """
    from drama_cli.backends.registry import backend_entry
    from drama_cli.compile.normalise import normalised_pieces, number_expressions, script_token_errors
    from drama_cli.script.check import check_script
    from drama_cli.script.problems import all_errors

    clones = engine == "auto" or backend_entry(engine).needs_model  # an engine with weights clones the clips
    try:
        report = check_script(script, cast, strict_tags=strict_tags, words=words, pieces=normalised_pieces,
                              expressions=number_expressions, numbers=numbers, clones=clones,
                              strict_consent=strict_consent, sent=script_token_errors)
    except ScriptError as err:
        _fail(all_errors(err), as_json)
    report.errors += _cover_errors(report.script)
    if report.errors:
        _fail(report.errors, as_json)
    if as_json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        _print_check(report)


def _cover_errors(script) -> list[ScriptError]:
    """The error `drama book` would stop at for the book's cover (missing, or not a JPEG or
    PNG: `drama_cli.book.m4b.cover_path`), located at the book block; [] when it is fine."""
    from drama_cli.book.m4b import cover_path

    try:
        cover_path(script)
    except UsageError as err:
        return [ScriptError(str(err), script.book.position or SourcePosition(script.source, 1, 1))]
    return []


def _fail(errors: list[ScriptError], as_json: bool) -> None:
    if as_json:
        report = error_report(ScriptErrors(errors), EXIT_BAD_INPUT)
        print(json.dumps(report, indent=2, ensure_ascii=False))
    for err in errors:
        print(str(err), file=sys.stderr)
    raise CheckFailed(f"{len(errors)} error{'s' if len(errors) != 1 else ''} in {errors[0].position.file}")


def _print_check(report) -> None:
    from drama_cli.book.notice import voice_line

    script = report.script
    print(f"{script.source}: {script.format} script" + (f" \"{script.title}\"" if script.title else ""))
    print("cast:")
    for member in script.cast.values():
        index = "auto" if member.speaker_index is None else str(member.speaker_index)
        refs = ", ".join(clip.path for clip in member.references) or "no reference"
        voice = f"  ({voice_line(member)})" if member.voice_record() else ""
        print(f"  {member.name:<16} speaker {index:<4} {refs}{voice}")
    if script.narrator:
        print(f"narrator: {script.narrator}")
    print("scenes:")
    for scene in script.scenes:
        voices = ", ".join(dict.fromkeys(n for line in scene.lines for n in line.speakers()))
        print(f"  {scene.id:<16} {len(scene.lines):>3} lines  {scene.title}  [{voices}]")
    if script.book is not None:
        print("book chapters:")
        for chapter in script.chapters:
            print(f"  {chapter.number:02d} {chapter.title}  ({', '.join(chapter.scenes)})")
        for line in (line for scene in script.scenes for line in scene.lines if line.generated):
            print(f"  generated {line.id}: {line.speaker}: {line.text}")
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if report.unknown_words is not None:
        print(f"words not in the pronouncing dictionary nor the lexicon: {len(report.unknown_words)}")
        for word in report.unknown_words:
            print(f"  {word.word:<20} {word.count:>4}  {word.position or ''}")
    if report.numbers is not None:
        _print_numbers(report.numbers)
    total = sum(len(scene.lines) for scene in script.scenes)
    print(f"ok: {len(script.scenes)} scenes, {total} lines, {len(report.warnings)} warnings")


def _print_numbers(rows) -> None:
    left = sum(1 for row in rows if row.said is None)
    print(f"number expressions: {len(rows)}, {left} left as written")
    for row in rows:
        said = f"left as written ({row.why})" if row.said is None else row.said
        print(f"  {row.position or row.line}: {row.written} → {said}")


def compile_(script: str = opt.SCRIPT, cast: Optional[str] = opt.CAST,
             scene: Annotated[Optional[str], typer.Option("--scene", help="Only this scene id.")] = None,
             mode: str = opt.MODE,
             max_chars: int = opt.MAX_CHARS,
             model: Annotated[Optional[Path], typer.Option("--model", help="Model folder whose tokenizer.json counts tokens.")] = None,
             out: Annotated[Optional[str], typer.Option("--out", help="Project folder whose takes history mode shows as context (default: <script>.drama beside it).")] = None,
             no_normalize: bool = opt.NO_NORMALIZE,
             as_json: bool = opt.JSON) -> None:
    """Show each conversation as it will be sent, with tokens per segment and audio rows.

    Audio rows are estimated from reference durations at 44,100/2048 frames per second; the
    total cost per line sums both. In history mode each line also carries the selected takes
    of earlier lines in the project folder as context, counted in its rows.
    """
    from drama_cli.compile.cost import compile_report
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
    report = compile_report(loaded, mode, scene, max_chars=max_chars, model_folder=model,
                            takes=takes, no_takes=no_takes)
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    _print_compile(report)


def _project_takes(script: str, out: Optional[str]):
    """(take lookup, None) for the script's rendered project, or (None, why there is none)."""
    from drama_cli.takes.project import open_project
    from drama_cli.takes.scene_selection import context_clip

    store = open_project(script, out)
    if not store.project_path.exists():
        return None, (f"no rendered project at {store.root}: a first render gives each line the "
                      f"takes made for the lines before it in that run")
    return (lambda scene_id, line: context_clip(store, scene_id, line.id)), None


def _print_compile(report: dict) -> None:
    print(f"mode {report['mode']}; counting {report['counting']}")
    for line in report["lines"]:
        speakers = ", ".join(f"{name}={k}" for name, k in line["speakers"].items())
        text_part = line["total"] - line["total_rows"]
        print(f"\n{line['id']}  {line['speaker']}  [{speakers}]  prompt {line['total']} rows: "
              f"{text_part} {report['unit']} + {line['total_rows']} audio")
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
                print(f"  conversation {n} ({conversation['layout']}): shared with {conversation['shared_with']}")
                continue
            print(f"  conversation {n} ({conversation['layout']}): {conversation['text_count']} {report['unit']}"
                  f" + {conversation['rows']} audio rows")
            for segment in conversation["segments"]:
                if segment["kind"] == "audio":
                    print(f"    {segment['rows']:>6} rows  audio {segment['source']}")
                else:
                    print(f"    {segment['count']:>6} {report['unit']:<6} {json.dumps(segment['text'], ensure_ascii=False)}")
    totals = report["totals"]
    context = f" (of them {totals['context_rows']} context rows from earlier takes)" if report["mode"] == "history" else ""
    print(f"\ntotal: {totals['lines']} lines, {totals['text']} {report['unit']} + {totals['rows']} audio rows{context}")
