"""`drama import`: turn a manuscript (.txt, .md, .epub) into a script (`drama_cli.manuscript.read`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.output import notice
from drama_cli.errors import UsageError
from engine.files import write_text_atomic


def import_command(
    manuscript: Path = typer.Argument(
        ..., help="Manuscript: .txt, .md or .epub (a novel or a play), or - for stdin."
    ),
    output: str = typer.Option(
        ..., "-o", "--output", help="The YAML script to write, or - for stdout."
    ),
    narrator: str | None = typer.Option(None, help="The narrator's name, for the credits."),
    title: str | None = typer.Option(
        None,
        "--title",
        help="The book's title (default: the manuscript's own, else its file name).",
    ),
    author: str | None = typer.Option(
        None, "--author", help="The book's author (default: the manuscript's own)."
    ),
    dialogue: bool = typer.Option(
        False,
        "--dialogue",
        help="Quoted speech becomes lines of its speakers, found by speech tags, pronouns, beats and turn-taking.",
    ),
    narrator_is: str | None = typer.Option(
        None,
        "--narrator-is",
        help="With --dialogue: the first-person narrator's name; 'said I' goes to this character.",
    ),
    min_confidence: float = typer.Option(
        0.0,
        "--min-confidence",
        help="With --dialogue: a quote whose speaker was found with less confidence (0..1) stays UNATTRIBUTED.",
    ),
    keep_tags: bool = typer.Option(
        True,
        "--keep-tags/--no-keep-tags",
        help="With --dialogue: speech tags ('he remarked') stay narration after the quote, or are left out.",
    ),
    directions: str = typer.Option(
        "narrate",
        "--directions",
        help="A play's stage directions: narrate (NARRATOR action lines) or drop.",
    ),
    chapter_level: int | None = typer.Option(
        None,
        "--chapter-level",
        help="Markdown: the heading level of chapters, 1 for # (default: # when there are several, else ##).",
    ),
    notes: str = typer.Option(
        "drop",
        "--notes",
        help="An EPUB's footnotes and endnotes: drop, or chapter-end to read them after their chapter.",
    ),
    to: str = typer.Option(
        "yaml",
        "--to",
        help="yaml, or fountain for a play: FILE.fountain and its cast file FILE.cast.yaml.",
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace an existing output file (never the manuscript itself)."
    ),
    as_json: bool = opt.JSON,
) -> None:
    """Turn a manuscript into a YAML book script: a play's speeches as lines of its cast, a
    novel's paragraphs as narrator lines (with --dialogue, quotes as lines of their speakers).
    Front and back matter are left out and reported."""
    from drama_cli.manuscript.read import (
        import_script,  # lazy: the EPUB and YAML readers, 100 ms at start-up
    )

    target = None if output == "-" else Path(output)
    targets = _targets(target, to, directions, manuscript, force, as_json)
    _check_reading(manuscript, dialogue, narrator_is, keep_tags, chapter_level, notes)
    if not 0.0 <= min_confidence <= 1.0:
        raise UsageError(f"--min-confidence must be 0..1, got {min_confidence:g}")
    if min_confidence and not dialogue:
        raise UsageError(
            "--min-confidence goes with --dialogue (quotes as lines of their speakers)"
        )
    imported = import_script(
        manuscript,
        to,
        narrator=narrator,
        title=title,
        author=author,
        dialogue=dialogue,
        narrator_is=narrator_is,
        keep_tags=keep_tags,
        directions=directions,
        chapter_level=chapter_level,
        notes=notes,
        notice=notice,
        min_confidence=min_confidence,
    )
    if target is None:
        sys.stdout.write(imported.yaml)
    for path, content in zip(targets, imported.texts):
        try:
            write_text_atomic(path, content)
        except OSError as err:
            raise UsageError(f"cannot write {path}: {err.strerror or err}") from None
    _print_import(imported.report, imported.chapters, target)
    if as_json:
        report = imported.report
        print(
            json.dumps(
                {
                    "ok": True,
                    "exit_code": 0,
                    "output": str(target),
                    "chapters": imported.chapters,
                    "lines": report.total("lines"),
                    "quotes": report.total("quotes"),
                    "unattributed": report.total("unattributed"),
                }
                | ({"attribution": report.attribution()} if report.total("quotes") else {})
                | report.to_dict(),
                indent=2,
                ensure_ascii=False,
            )
        )


def _targets(
    target: Path | None, to: str, directions: str, manuscript: Path, force: bool, as_json: bool
) -> list[Path]:
    """The files the import writes to `target` (None: stdout): the script, and for `--to
    fountain` its cast file, each checked (`_check_target`). Raises UsageError for an option
    of the output that does not fit (`--directions` is checked here, first, as ever)."""
    # lazy: the EPUB and YAML readers, 100 ms at start-up
    from drama_cli.manuscript.fountain_writer import cast_path_for
    from drama_cli.manuscript.play import DIRECTIONS
    from drama_cli.manuscript.read import SCRIPT_KINDS

    if as_json and target is None:
        raise UsageError("--json needs -o FILE: with -o - stdout holds the script")
    if directions not in DIRECTIONS:
        raise UsageError(f"--directions must be {' or '.join(DIRECTIONS)}, got {directions!r}")
    if to not in SCRIPT_KINDS:
        raise UsageError(f"--to must be {' or '.join(SCRIPT_KINDS)}, got {to!r}")
    if to == "fountain" and (target is None or target.suffix != ".fountain"):
        raise UsageError(
            "--to fountain writes a screenplay and its cast file: give -o FILE.fountain"
        )
    targets = (
        []
        if target is None
        else [target] + ([target.with_name(cast_path_for(target.name))] if to == "fountain" else [])
    )
    for path in targets:
        _check_target(path, manuscript, force)
    return targets


def _check_reading(
    manuscript: Path,
    dialogue: bool,
    narrator_is: str | None,
    keep_tags: bool,
    chapter_level: int | None,
    notes: str,
) -> None:
    """Raise UsageError for an option of the reading that is out of range or does not fit the
    manuscript's kind (a Markdown heading level for an EPUB, notes for a text file)."""
    from drama_cli.manuscript.epub_notes import NOTES  # lazy: the EPUB reader, 20 ms at start-up

    if chapter_level is not None and not 1 <= chapter_level <= 6:
        raise UsageError(f"--chapter-level must be 1..6, got {chapter_level}")
    if notes not in NOTES:
        raise UsageError(f"--notes must be {' or '.join(NOTES)}, got {notes!r}")
    for given, name in (
        (narrator_is is not None, "--narrator-is"),
        (not keep_tags, "--no-keep-tags"),
    ):
        if given and not dialogue:
            raise UsageError(f"{name} goes with --dialogue (quotes as lines of their speakers)")
    suffix = manuscript.suffix.lower()
    if chapter_level is not None and suffix in (".txt", ".epub"):
        raise UsageError(
            f"--chapter-level is for Markdown headings; {manuscript.name} is not Markdown"
        )
    if notes != "drop" and suffix in (".txt", ".md", ".markdown"):
        raise UsageError(
            f"--notes {notes} is for an EPUB's notes; {manuscript.name} is not an EPUB"
        )


def _check_target(target: Path, manuscript: Path, force: bool) -> None:
    """Refuse to write `target` over the manuscript, over a folder, or over a file without --force."""
    if _same_file(target, manuscript):
        raise UsageError(
            f"{target} is the manuscript being imported; write the script to another file"
        )
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


def _print_import(report, chapters: int, target: Path | None) -> None:
    """The import's counts on stderr: chapters, lines, quotes, what was left out."""
    lines, quotes, unattributed = (
        report.total("lines"),
        report.total("quotes"),
        report.total("unattributed"),
    )
    notice(
        f"import: {chapters} chapter(s), {lines} line(s)"
        + (
            f", {quotes} quote(s), {unattributed} without a speaker (UNATTRIBUTED)"
            if quotes
            else ""
        )
        + (f" written to {target}" if target else "")
    )
    if report.left_out:
        notice(
            "import: left out: "
            + ", ".join(f"{kind} ×{count}" for kind, count in sorted(report.left_out.items()))
        )
    if report.total("said I"):
        notice(
            f'import: {report.total("said I")} quote(s) tagged "I said" have no speaker; '
            "--narrator-is NAME gives them to the narrating character"
        )
    for row in report.attribution_lines():
        notice(f"import: {row}")


def register(app: typer.Typer) -> None:
    """Add `import` to the app."""
    app.command("import")(import_command)
