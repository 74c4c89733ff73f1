"""`drama voices add | list | show | remove`: the voice library a cast names as
`voice: library:NAME` (records: `drama_cli.script.voice_library`; adding: `drama_cli.cast.library`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.help_style import TidyHelpGroup
from drama_cli.commands.output import results_console
from drama_cli.script.voice_library import (
    LIBRARY_SOURCES,
    LibraryVoice,
    library_dir,
    list_voices,
    read_voice,
    remove_voice,
)

LIBRARY = typer.Option(
    None,
    "--library",
    help="The voice library folder (default: $DRAMA_VOICE_LIBRARY, else voices/ in the "
    "user's data folder).",
)
NAME = typer.Argument(..., help="The voice's name in the library.")

voices_app = typer.Typer(
    help="The voice library: reference voices a cast names as 'voice: library:NAME'.",
    no_args_is_help=True,
    cls=TidyHelpGroup,
)


def register(app: typer.Typer) -> None:
    """Add the `voices` command group to the app."""
    app.add_typer(voices_app, name="voices")


@voices_app.command("add")
def add(
    clip: Path = typer.Argument(..., help="The reference clip (at most 60 s of one voice)."),
    name: str = typer.Option(..., "--name", help="The voice's name (letters, digits, - and _)."),
    transcript: str | None = typer.Option(
        None,
        "--transcript",
        help="The clip's exact words (default: speech recognition when the asr extra is "
        "installed, else none).",
    ),
    tags: str | None = typer.Option(
        None, "--tags", help='Comma-separated words: "female, 40s, warm, Received Pronunciation".'
    ),
    language: str | None = typer.Option(None, "--language", help="The clip's language label."),
    source: str | None = typer.Option(
        None, "--source", help=f"Where the voice comes from: {', '.join(LIBRARY_SOURCES)}."
    ),
    consent_by: str | None = typer.Option(
        None, "--consent-by", help="Who consented to the use of their voice (--source consent)."
    ),
    consent_on: str | None = typer.Option(
        None, "--consent-on", help="When, as YYYY-MM-DD (--source consent)."
    ),
    note: str | None = typer.Option(None, "--note", help="Free text about the source."),
    library: Path | None = LIBRARY,
    as_json: bool = opt.JSON,
) -> None:
    """Add a clip to the library: checked as 'drama check' checks reference clips, copied,
    measured (duration, loudness, peak, content hash) and recorded with its transcript, tags
    and source. A voice of an identifiable person needs --source consent with --consent-by
    and --consent-on before Drama 3 clones it."""
    # lazy: the clip's reading and loudness meter load numpy, soxr and torch
    from drama_cli.cast.library import add_voice, parse_tags, source_record, speech_recognition

    folder = library_dir(library)
    kind, consent = source_record(source, consent_by, consent_on, note)
    voice = add_voice(
        folder,
        clip,
        name,
        transcript=transcript,
        tags=parse_tags(tags),
        language=language,
        source=kind,
        note=note,
        consent=consent,
        transcriber=None if transcript else speech_recognition(),
    )
    if as_json:
        print(json.dumps(voice.to_json(), indent=2, ensure_ascii=False))
        return
    print(f"added {voice.name} to {folder}: {describe(voice)}")
    if voice.transcript is None:
        print(
            f"{voice.name} has no transcript: give --transcript, or install the asr extra "
            "(a clip without its words is sent without text)"
        )


def describe(voice: LibraryVoice) -> str:
    """One line about a voice: duration, loudness, source and tags."""
    loudness = f"{voice.loudness_lufs:.1f} LUFS" if voice.loudness_lufs is not None else "quiet"
    parts = [f"{voice.duration_s:.1f} s", loudness, voice.source or "source not recorded"]
    if voice.tags:
        parts.append(", ".join(voice.tags))
    return "; ".join(parts)


@voices_app.command("list")
def list_command(library: Path | None = LIBRARY, as_json: bool = opt.JSON) -> None:
    """List the library's voices: name, duration, loudness, source, tags and transcript."""
    voices = list_voices(library_dir(library))
    if as_json:
        print(json.dumps([v.to_json() for v in voices], indent=2, ensure_ascii=False))
        return
    from rich.table import Table  # lazy: rich's tables, for this listing only

    table = Table("voice", "s", "LUFS", "source", "tags", "transcript")
    for voice in voices:
        table.add_row(
            voice.name,
            f"{voice.duration_s:.1f}",
            f"{voice.loudness_lufs:.1f}" if voice.loudness_lufs is not None else "",
            voice.source or "",
            ", ".join(voice.tags),
            voice.transcript or "",
        )
    results_console().print(table)
    print(f"{len(voices)} voice{'' if len(voices) == 1 else 's'} in {library_dir(library)}")


@voices_app.command("show")
def show(name: str = NAME, library: Path | None = LIBRARY, as_json: bool = opt.JSON) -> None:
    """Print one voice's record (with --json as JSON)."""
    folder = library_dir(library)
    voice = read_voice(folder, name)
    if as_json:
        print(json.dumps(voice.to_json(), indent=2, ensure_ascii=False))
        return
    for key, value in voice.to_json().items():
        if value not in (None, [], ""):
            print(f"{key}: {', '.join(value) if isinstance(value, list) else value}")
    print(f"file: {folder / voice.clip}")


@voices_app.command("remove")
def remove(name: str = NAME, library: Path | None = LIBRARY) -> None:
    """Remove a voice (its record and its clip) from the library. Casts that name it stop
    reading until they name another."""
    voice = remove_voice(library_dir(library), name)
    print(f"removed {voice.name}")
