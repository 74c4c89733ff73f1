"""`drama cast audition | lock`: a character's voice designed from a description, auditioned
and locked as its reference clip (the work: `drama_cli.cast.audition`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from drama_cli.backends import registry  # called through the module: tests replace make_backend
from drama_cli.commands import options as opt
from drama_cli.commands.help_style import TidyHelpGroup
from drama_cli.commands.output import notice
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import library_dir

CHARACTER = typer.Argument(..., help="The cast member (a name of the cast; case ignored).")
LIBRARY = typer.Option(
    None,
    "--library",
    help="The voice library folder (default: $DRAMA_VOICE_LIBRARY, else voices/ in the "
    "user's data folder).",
)

cast_app = typer.Typer(
    help="Cast voices: audition a voice designed from a description and lock one take.",
    no_args_is_help=True,
    cls=TidyHelpGroup,
)


def register(app: typer.Typer) -> None:
    """Add the `cast` command group to the app."""
    app.add_typer(cast_app, name="cast")


@cast_app.command("audition")
def audition_command(
    script: str = opt.SCRIPT_FILE,
    character: str = CHARACTER,
    line: str | None = typer.Option(
        None, "--line", help="The line to audition (default: the character's longest plain line)."
    ),
    candidates: int = typer.Option(4, "--candidates", help="How many takes to make (1..16)."),
    cast: Path | None = opt.CAST,
    engine: str = opt.ENGINE,
    model: str | None = opt.MODEL,
    device: str | None = opt.DEVICE,
    as_json: bool = opt.JSON,
) -> None:
    """Render candidate takes of one line of a character whose cast entry has 'design:' and no
    clip: each with the description as its style prefix, no reference and its own seed, into
    <script>.auditions/<character>/take-K.wav. Lock one with 'drama cast lock'."""
    # lazy: the audition renders audio (numpy, soundfile, the backend)
    from drama_cli.cast.audition import audition, audition_folder, cast_member

    loaded = load_script(script, cast)
    member = cast_member(loaded, character)
    folder = audition_folder(script, member.name)
    backend = registry.make_backend(engine, model, notice=notice, device=device)
    try:
        takes = audition(loaded, member.name, backend, folder, candidates, line)
    finally:
        backend.close()
    if as_json:
        print(json.dumps({"folder": str(folder), "takes": [t.__dict__ for t in takes]}, indent=2))
        return
    print(f"{member.name}: {len(takes)} takes of line {takes[0].line_id} in {folder}")
    for take in takes:
        print(f"  take {take.take}: {take.file} {take.duration_s:.1f} s (seed {take.seed})")
    print(f"lock one: drama cast lock {script} {member.name} --take K")


@cast_app.command("lock")
def lock_command(
    script: str = opt.SCRIPT_FILE,
    character: str = CHARACTER,
    take: int = typer.Option(..., "--take", help="The audition take to keep (its number)."),
    cast: Path | None = opt.CAST,
    library: Path | None = LIBRARY,
) -> None:
    """Make an audition take the character's reference clip: copied to refs/ beside the cast,
    added to the voice library as a designed voice, and written into the cast entry (voice,
    transcript, voice_source synthetic; comments and order kept). Every later line of the
    character clones it; lines rendered before become stale."""
    # lazy: the library measures the clip (numpy, soundfile, torch)
    from drama_cli.cast.audition import audition_folder, cast_member, lock

    loaded = load_script(script, cast)
    member = cast_member(loaded, character)
    locked = lock(
        loaded, member.name, take, audition_folder(script, member.name), library_dir(library)
    )
    print(
        f"{member.name} now clones {locked.clip} (take {take}), written into {locked.cast_file}; "
        f"in the library as {locked.voice.name}"
    )
