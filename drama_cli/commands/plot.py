"""`drama plot`: draw a scene's timeline or a take's waveform and spectrogram (`drama_cli.plot`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.rendered import load_rendered, rendered_store
from drama_cli.errors import UsageError


def plot_command(
    script: str = opt.SCRIPT_FILE,
    scene: str | None = typer.Option(None, help="Scene id: plot its mix timeline."),
    line: str | None = typer.Option(None, help="Line id: plot a take's waveform and spectrogram."),
    take: int | None = typer.Option(None, help="Take number (default: the selected one)."),
    output: str | None = typer.Option(
        None, "-o", "--image", help="Picture to write (default: <scene>.png / <line>.png)."
    ),
    out: str | None = opt.OUT,
    cast: str | None = opt.PROJECT_CAST,
    as_json: bool = opt.JSON,
    old_output: str | None = typer.Option(None, "--output", hidden=True),
) -> None:
    """Draw a scene's timeline or a take's waveform and spectrogram (PNG, SVG, PDF or JPG by
    the picture's extension)."""
    from drama_cli.plot import check_image_path, draw_project  # lazy: matplotlib, 0.4 s at start-up

    if old_output is not None:
        raise UsageError(
            "--output is now --image (or -o): the picture to write; --out is the project folder"
        )
    if (scene is None) == (line is None):
        raise UsageError("give exactly one of --scene ID or --line ID")
    if scene is not None and take is not None:
        raise UsageError("--take goes with --line")
    if output is not None:
        check_image_path(output)
    written = draw_project(
        load_rendered(script, cast, out), rendered_store(script, out), scene, line, take, output
    )
    if as_json:
        print(
            json.dumps(
                {"files": [{"path": str(written), "bytes": Path(written).stat().st_size}]}, indent=2
            )
        )
    else:
        print(written)


def register(app: typer.Typer) -> None:
    """Add `plot` to the app."""
    app.command("plot")(plot_command)
