"""`drama cast audition | lock | suggest`: a character's voice designed from a description,
auditioned and locked as its reference clip (`drama_cli.cast.audition`), and library voices
proposed for the characters without one (`drama_cli.cast.suggest`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from drama_cli.backends import registry  # called through the module: tests replace make_backend
from drama_cli.cast.cast_file import cast_file_of, script_library, write_voices
from drama_cli.cast.suggest import suggest
from drama_cli.commands import options as opt
from drama_cli.commands.help_style import TidyHelpGroup
from drama_cli.commands.output import notice
from drama_cli.errors import UsageError
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import LIBRARY_PREFIX, library_dir, list_voices

CHARACTER = typer.Argument(..., help="The cast member (a name of the cast; case ignored).")
LIBRARY = typer.Option(
    None,
    "--library",
    help="The voice library folder (default: $DRAMA_VOICE_LIBRARY, else voices/ in the "
    "user's data folder).",
)

cast_app = typer.Typer(
    help="Cast voices: audition a voice designed from a description and lock one take; "
    "propose library voices for the characters without one.",
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


@cast_app.command("suggest")
def suggest_command(
    script: str = opt.SCRIPT_FILE,
    cast: Path | None = opt.CAST,
    library: Path | None = LIBRARY,
    apply: bool = typer.Option(
        False, "--apply", help="Write the proposals into the cast (comments and order kept)."
    ),
    as_json: bool = opt.JSON,
) -> None:
    """Propose a library voice for every character without a voice: the one whose tags and
    description fit the character's gender, age and accent words best (the cast's 'gender:'
    and 'description:', the name's title), never a voice of another character in one of its
    scenes, the narrator's voice no one else's. Prints each proposal with its reasons; --apply
    writes them as 'voice: library:NAME'."""

    loaded = load_script(script, cast)
    cast_path = cast_file_of(loaded)
    folder = library_dir(library or script_library(cast_path))
    voices = list_voices(folder)
    if not voices:
        raise UsageError(f"the library {folder} has no voices: add some with 'drama voices add'")
    proposals = suggest(loaded, voices)
    chosen = {p.character: f"{LIBRARY_PREFIX}{p.voice}" for p in proposals if p.voice}
    if apply and chosen:
        write_voices(cast_path, chosen)
    if as_json:
        rows = [p.__dict__ | {"reasons": list(p.reasons)} for p in proposals]
        print(json.dumps({"library": str(folder), "applied": apply, "proposals": rows}, indent=2))
        return
    if not proposals:
        print("every character has a voice")
        return
    width = max(len("character"), *(len(p.character) for p in proposals))
    print(f"{'character':<{width}}  {'voice':<16} {'score':>3}  reasons")
    for p in proposals:
        why = ", ".join(p.reasons) or "nothing to match: the free voice used least"
        print(f"{p.character:<{width}}  {p.voice or '-':<16} {p.score:>3}  {why}")
    if apply:
        print(f"{len(chosen)} voice(s) written into {cast_path}")
    else:
        print(f"write them: drama cast suggest {script} --apply")
