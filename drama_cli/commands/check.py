"""`drama check`: read a script, validate it, print its cast, scenes and warnings."""

from __future__ import annotations

import json
import sys

import typer

from drama_cli.backends.registry import AUTO, backend_entry, engine_help
from drama_cli.book.m4b import cover_path
from drama_cli.book.notice import voice_line
from drama_cli.commands import options as opt
from drama_cli.errors import (
    EXIT_BAD_INPUT,
    CheckFailed,
    ScriptError,
    ScriptErrors,
    SourcePosition,
    UsageError,
    error_report,
)
from drama_cli.script.problems import all_errors


def check(
    script: str = opt.SCRIPT,
    cast: str | None = opt.CAST,
    strict_tags: bool = typer.Option(
        False,
        "--strict-tags",
        help="Warn about tags outside the known vocabulary (never drops them).",
    ),
    words: bool = typer.Option(
        False,
        "--words",
        help=(
            "List the words of English lines that neither the pronouncing dictionary nor the"
            " lexicon knows, with counts and where each is first written."
        ),
    ),
    numbers: bool = typer.Option(
        False,
        "--numbers",
        help=(
            "List every number expression and abbreviation with where it is written, what will"
            " be said, and what is left as written."
        ),
    ),
    engine: str = typer.Option(
        "auto",
        "--engine",
        help=(
            f"The engine the script is checked for ({engine_help()[:-1]}): one that runs the Drama"
            " 3 model (and auto) clones the cast's reference clips, so a speaking cast member with"
            " a clip and neither consent: nor voice_source: is a warning; the others skip that"
            " check."
        ),
    ),
    strict_consent: bool = typer.Option(
        False,
        "--strict-consent",
        help="Make a missing consent: or voice_source: an error (exit 2) instead of a warning.",
    ),
    as_json: bool = opt.JSON,
) -> None:
    """Parse, resolve and validate a script; print cast, scenes, line counts and warnings.

    Exit 0 when the script is usable, 2 with `file:line:col: message` lines when it is not.
    """
    # lazy: yaml and the script reader, 80 ms at start-up
    from drama_cli.compile.normalise import (
        normalised_pieces,
        number_expressions,
        script_token_errors,
    )
    from drama_cli.script.check import check_script

    # an engine that runs the Drama 3 model clones the clips; auto may pick one
    clones = engine == AUTO or backend_entry(engine).capabilities.drama3_model
    try:
        report = check_script(
            script,
            cast,
            strict_tags=strict_tags,
            words=words,
            pieces=normalised_pieces,
            expressions=number_expressions,
            numbers=numbers,
            clones=clones,
            strict_consent=strict_consent,
            sent=script_token_errors,
        )
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
    raise CheckFailed(
        f"{len(errors)} error{'s' if len(errors) != 1 else ''} in {errors[0].position.file}"
    )


def _print_check(report) -> None:
    script = report.script
    print(
        f"{script.source}: {script.format} script" + (f' "{script.title}"' if script.title else "")
    )
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
        print(
            f"words not in the pronouncing dictionary nor the lexicon: {len(report.unknown_words)}"
        )
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


def register(app: typer.Typer) -> None:
    """Add `check` to the app."""
    app.command("check")(check)
