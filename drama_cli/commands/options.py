"""Command-line arguments and options that several commands share, declared once so that
their names and help read the same everywhere, and the option groups some commands take
together (`MIX`, `BACKEND`, `PROJECT_BACKEND`)."""

# ruff: noqa: UP045 (the option groups' types are read by typer at run time, as Optional[...])

from __future__ import annotations

from typing import Optional

import typer

from drama_cli.backends.registry import BackendChoice, engine_help, option_table
from drama_cli.commands.option_group import OptionGroup
from drama_cli.compile.modes import DEFAULT_MODE, mode_help
from drama_cli.mix.presets import PRESETS, get_preset
from drama_cli.qc.limits import DEFAULT_MIN_SIMILARITY
from drama_cli.script.mix_settings import MixSettings, flag_help

SCRIPT = typer.Argument(..., help="Script file (.yaml or .fountain), or - for stdin.")
# revise, edit and plot read the project folder beside the script, so they need a file.
SCRIPT_FILE = typer.Argument(..., help="Script file (.yaml or .fountain).")
OUT = typer.Option(None, help="Project folder (default: <script>.drama beside it).")
CAST = typer.Option(None, help="Cast file (YAML); default <script>.cast.yaml for Fountain.")
PROJECT_CAST = typer.Option(
    None,
    "--cast",
    help="Cast file (YAML); default: the one the project was rendered "
    "with, else <script>.cast.yaml for Fountain.",
)
JSON = typer.Option(False, "--json", help="Print the result as JSON.")
MIN_SIMILARITY = typer.Option(
    None,
    help=(
        "Lowest voice similarity (0..1) to the character's reference clips a take passes with"
        f" (default: the project's, else {DEFAULT_MIN_SIMILARITY}; kept with the project)."
    ),
)
MIN_QUALITY = typer.Option(
    None,
    help=(
        "Lowest naturalness (DNSMOS overall, 1..5) a take passes with (default: the project's,"
        " else shown only; 0: none; kept with the project)."
    ),
)
SCENES = typer.Option(None, "--scene", help="Scene id (repeatable).")
LINES = typer.Option(None, "--line", help="Line id (repeatable).")
MODE = typer.Option(DEFAULT_MODE, help=mode_help())
MAX_CHARS = typer.Option(
    300,
    "--max-chars",
    help="Chunk cap in characters: a longer line is cut "
    "into chunks voiced one after another (at least 40).",
)
NO_NORMALIZE = typer.Option(
    False, "--no-normalize", help="Send numbers and symbols as written (no number words)."
)

# The mix settings' help, units and ranges come from their table (`MIX_FIELDS`).
FORMATS = typer.Option(None, "--format", help=flag_help("formats"))
PRESET = typer.Option(None, help=f"Loudness preset: {', '.join(PRESETS)} {flag_help('preset')}")
GAP = typer.Option(None, help=flag_help("gap_s"))
ROOM_TONE = typer.Option(None, "--room-tone", help=flag_help("room_tone"))
HEAD = typer.Option(None, help=flag_help("head_s"))
TAIL = typer.Option(None, help=flag_help("tail_s"))
STEMS = typer.Option(None, "--stems/--no-stems", help=flag_help("stems"))
EXPORT_SESSION = typer.Option(None, "--export-session", help=flag_help("sessions"))

ENGINE = typer.Option("auto", help=engine_help())
# Commands that work on an existing project (revise, edit) and make new takes of one line.
ENGINE_OF_PROJECT = typer.Option(None, help=engine_help(" (default: the project's)"))
MODEL = typer.Option(None, help="Drama 3 model folder (else $DRAMA_MODEL or the HF cache).")
DEVICE = typer.Option(None, help="Torch device for drama3 (default: cuda if present).")
FROM_TAKE = typer.Option(
    None, "--from-take", help="Take to start from (default: the selected one)."
)
NEW_TAKES = typer.Option(1, help="New takes to make (one generation each).")


def _seed_in_range(seed: int | None) -> int | None:
    """Refuse a seed out of range while the arguments are parsed, before any model loads."""
    from drama_cli.takes.jobs import (
        check_seed,  # lazy: yaml and the script reader, 80 ms at start-up
    )

    return seed if seed is None else check_seed(seed)


NEW_SEED = typer.Option(
    None,
    callback=_seed_in_range,
    help="Seed of the first new take, 0 to 2^31-1 (the next takes add 1 each).",
)
BASE_SEED = typer.Option(
    0,
    callback=_seed_in_range,
    help="Base seed, 0 to 2^31-1; each line adds a stable offset and each take 1, "
    "so keep seeds far apart (1000, 2000).",
)
KEEP_STALE = typer.Option(
    False,
    "--keep",
    help="Work from the take even when the script's line changed since it was made (a stale take).",
)
SELECT = typer.Option(
    False, "--select", help="Select the first new take and rebuild the scene mix."
)

# The mix settings a command may override (render, mix); parsed by `mix_flags`.
MIX = OptionGroup(
    formats=(Optional[list[str]], FORMATS),
    preset=(Optional[str], PRESET),
    gap=(Optional[float], GAP),
    room_tone=(Optional[str], ROOM_TONE),
    head=(Optional[float], HEAD),
    tail=(Optional[float], TAIL),
    stems=(Optional[bool], STEMS),
    export_session=(Optional[list[str]], EXPORT_SESSION),
)


def backend_option_params() -> dict:
    """The command line's backend options: one per field of the registered backends' options
    records (`drama_cli.backends.registry.option_table`; a flag several backends share, once),
    as `OptionGroup` entries by field name. A switch is a bool flag (False: not given); any
    other option reads its `kind` and defaults to None (not given)."""
    params = {}
    for name, (flag, _default, _takers) in option_table().items():
        if flag.switch:
            params[name] = (bool, typer.Option(False, flag.flag, help=flag.help))
        else:
            params[name] = (Optional[flag.kind], typer.Option(None, flag.flag, help=flag.help))
    return params


def backend_choice(flags: dict, engine: str | None = None) -> BackendChoice:
    """The `BACKEND` or `PROJECT_BACKEND` group's `flags` as the `BackendChoice` they make:
    `engine` (default: `flags["engine"]`), `--model`, `--device` and the backend options given
    (a switch given sets the opposite of its default; an option not given is left out)."""
    given = {}
    for name, (flag, default, _takers) in option_table().items():
        value = flags.get(name)
        if flag.switch:
            if value:
                given[name] = not default
        elif value is not None:
            given[name] = value
    return BackendChoice(
        engine or flags["engine"] or "auto", flags.get("model"), flags.get("device"), given
    )


_PLACEMENT = {
    "model": (Optional[str], MODEL),
    "device": (Optional[str], DEVICE),
    **backend_option_params(),
}
# The engine, where its model goes and the backends' own options, as `backend_choice` reads
# them (render, book).
BACKEND = OptionGroup(engine=(str, ENGINE), **_PLACEMENT)
# The same for a project already rendered: the engine defaults to the project's (revise, edit).
PROJECT_BACKEND = OptionGroup(engine=(Optional[str], ENGINE_OF_PROJECT), **_PLACEMENT)


def mix_flags(
    formats=None,
    preset=None,
    gap=None,
    room_tone=None,
    head=None,
    tail=None,
    stems=None,
    export_session=None,
):
    """The `MIX` group as one `drama_cli.script.mix_settings.MixSettings` (None: not given).
    Raises UsageError for an unknown preset, a missing or unusable room-tone file or a value
    out of range (a gap, head or tail not in 0..60 s)."""
    from drama_cli.mix.options import cli_room_tone  # lazy: scipy, 0.9 s at start-up

    if preset is not None:
        get_preset(preset)  # an unknown preset is refused before any model is looked for
    return MixSettings(
        formats=tuple(formats or ()),
        preset=preset,
        gap_s=gap,
        head_s=head,
        tail_s=tail,
        room_tone=cli_room_tone(room_tone),
        stems=stems,
        sessions=tuple(name for name in export_session if name != "none")
        if export_session
        else None,
    ).checked()
