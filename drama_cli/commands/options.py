"""Command-line options that several commands share, declared once so that their names and
help read the same everywhere."""

from __future__ import annotations

import typer

from drama_cli.backends.registry import engine_help

OUT = typer.Option(None, help="Project folder (default: <script>.drama beside it).")
CAST = typer.Option(None, help="Cast file (YAML) to use.")
JSON = typer.Option(False, "--json", help="Print the result as JSON.")
FORMATS = typer.Option(None, "--format", help="Mix format: wav, flac, mp3 (repeatable).")
PRESET = typer.Option(None, help="Loudness preset: none, acx, acx-mp3, r128, podcast (default: the "
                                  "project's saved preset, else none).")
SCENES = typer.Option(None, "--scene", help="Scene id (repeatable).")
GAP = typer.Option(None, help="Default pause between lines in the mix, seconds (0..60).")
ROOM_TONE = typer.Option(None, "--room-tone",
                         help="Bed under the mix: 'noise' or a room-tone file (WAV/FLAC).")
HEAD = typer.Option(None, help="Silence before the first line of a scene mix, seconds (0..60).")
TAIL = typer.Option(None, help="Silence after the last line of a scene mix, seconds (0..60).")

# Commands that work on an existing project (revise, edit) and make new takes of one line.
ENGINE_OF_PROJECT = typer.Option(None, help=engine_help(" (default: the project's)"))
MODEL = typer.Option(None, help="Drama 3 model folder.")
DEVICE = typer.Option(None, help="Torch device for drama3.")
GPU_MEMORY = typer.Option(None, "--gpu-memory", help="Device memory drama3 may use, e.g. 24GB, 24GiB or auto "
                          "(what the GPU has free); routed experts that do not fit stay in host memory.")
FROM_TAKE = typer.Option(None, "--from-take", help="Take to start from (default: the selected one).")
NEW_TAKES = typer.Option(1, help="New takes to make (one generation each).")
NEW_SEED = typer.Option(None, help="Seed of the first new take.")
BASE_SEED = typer.Option(0, help="Base seed, 0 to 2^31-1; each line adds a stable offset and each take 1, "
                                 "so keep seeds far apart (1000, 2000).")
SELECT = typer.Option(False, "--select", help="Select the first new take and rebuild the scene mix.")
