"""`drama mix`: mix scenes again from their selected takes (`drama_cli.mix.project_mix`)."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import typer

from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked, render_settings
from drama_cli.commands.output import (
    audio_to_stdout,
    notice,
    refuse_audio_to_terminal,
    results_console,
    stdout_format,
)
from drama_cli.commands.rendered import rendered_store
from drama_cli.errors import CorruptSelection, LinesLeftOut, UsageError
from drama_cli.mix.export import mix_audio_file


@opt.MIX.into("mix")
def mix_command(
    script: str = opt.SCRIPT,
    scene: list[str] | None = opt.SCENES,
    out: str | None = opt.OUT,
    cast: str | None = opt.CAST,
    mix: dict = None,  # the MIX group's options: --format, --preset, --gap, --room-tone, --head, --tail
    output: str | None = typer.Option(
        None,
        "-o",
        "--output",
        help=(
            "'-': also write the one --scene's mix to stdout (WAV, or FLAC with --format flac);"
            " results then go to stderr."
        ),
    ),
    as_json: bool = opt.JSON,
) -> None:
    """Mix scenes again from their selected takes, without rendering (the render's mix
    settings unless given here). Exits 1 when a line is left out of a mix."""
    # lazy: scipy and the script reader, 1 s at start-up
    from drama_cli.mix.project_mix import remix
    from drama_cli.render.plan import pick_scenes

    streamed = _stdout_format(output, scene, mix["formats"])
    loaded = load_checked(script, cast)
    store = rendered_store(script, out)
    flags = opt.mix_flags(
        **{**mix, "formats": None} if streamed else mix
    )  # a stream's format is no setting
    scenes = remix(
        loaded, store, pick_scenes(loaded, render_settings(scene, None)), flags, streamed
    )
    if streamed and scenes and scenes[0].files.get(streamed):
        audio_to_stdout(Path(scenes[0].files[streamed]))
        _drop_unsaved(store, flags, scenes[0], streamed)
    _print_mixes(scenes, as_json, streamed)
    _exit_for_mixes(scenes)


def _print_mixes(scenes: list, as_json: bool, streamed: str | None) -> None:
    """Each scene's mix (`print_scene`), or JSON; on stderr when the mix itself went to stdout."""
    if as_json:
        print(
            json.dumps([dataclasses.asdict(s) for s in scenes], indent=2),
            file=sys.stderr if streamed else sys.stdout,
        )
    else:
        console = results_console(stderr=bool(streamed))
        for outcome in scenes:
            print_scene(console, outcome)


def _exit_for_mixes(scenes: list) -> None:
    """Raise CorruptSelection for a damaged take file, else LinesLeftOut when a line was left
    out of a mix (no take, a stale one or an unusable one)."""
    broken = [p for s in scenes for p in s.problems]
    if broken:
        raise CorruptSelection(broken)
    left_out = [line for s in scenes for line in s.missing]
    stale = [line for s in scenes for line in s.stale_lines]
    unusable = [line for s in scenes for line in s.unusable_lines]
    if left_out or stale or unusable:
        raise LinesLeftOut(left_out, stale, unusable)


def _drop_unsaved(store, flags, outcome, streamed: str) -> None:
    """Remove the streamed mix file once piped when the saved formats do not ask for it."""
    from drama_cli.mix.project_mix import project_mix  # lazy: scipy, 1 s at start-up

    if streamed not in project_mix(store, flags).formats:
        Path(outcome.files.pop(streamed)).unlink(missing_ok=True)


def _stdout_format(output: str | None, scenes, formats) -> str | None:
    """The format `-o -` streams (`wav` unless --format flac), None without `-o`. UsageError
    for another -o, for anything but exactly one --scene, or a format that is not wav or flac."""
    if output is None:
        return None
    if output != "-":
        raise UsageError("-o takes only '-' (stdout); mixes are written to the project folder")
    if len(scenes or ()) != 1:
        raise UsageError("-o - writes one scene: give exactly one --scene ID")
    streamed = stdout_format(formats)
    refuse_audio_to_terminal()
    return streamed


def print_scene(console, scene) -> None:
    """Print a scene's mix (`drama_cli.mix.project_mix.SceneOutcome`) on `console`: its files,
    length and level, or why it was skipped; corrupt, moved and stale notes go to stderr."""
    for problem in scene.problems:
        notice(f"scene {scene.scene_id}: {problem}; left out of the mix")
    for note in scene.moved:
        notice(f"scene {scene.scene_id}: note: {note}")
    if scene.skipped:
        console.print(f"scene {scene.scene_id}: mix skipped: {scene.skipped}")
        if scene.stale:
            notice(f"scene {scene.scene_id}: the old mix files are stale: {', '.join(scene.stale)}")
        return
    from drama_cli.mix.loudness import level_text  # lazy: scipy, 0.7 s at start-up
    from drama_cli.mix.sounds import NOT_IN_MIX  # lazy: soxr, 25 ms at start-up

    level = level_text(scene.loudness.get("preset", "none"), scene.loudness.get("loudness", {}))
    beds = scene.loudness.get("speech_to_bed_db")
    level += f", speech {beds:.1f} dB over the beds" if beds is not None else ""
    left_out = f"; left out: {', '.join(scene.missing)}" if scene.missing else ""
    console.print(
        f"scene {scene.scene_id}: {mix_audio_file(scene.files) or ''}"
        f" {scene.duration_s:.1f} s, {level}{left_out}"
    )
    names = scene.loudness.get("sounds_left_out", [])
    reasons = scene.loudness.get("sounds_left_out_reasons", [NOT_IN_MIX] * len(names))
    for name, why in zip(names, reasons):  # cue sheets from before the reasons: NOT_IN_MIX
        notice(f"scene {scene.scene_id}: sound {name} left out: {why}")
    if scene.engines_note:
        notice(f"scene {scene.scene_id}: note: {scene.engines_note}")
    for stale in scene.stale_takes:
        notice(f"scene {scene.scene_id}: stale: {stale}; render the line again")
    for unusable in scene.unusable_takes:
        notice(f"scene {scene.scene_id}: unusable: {unusable}; choose another take")
    for issue in scene.loudness.get("issues", []):
        console.print(f"scene {scene.scene_id}: mix issue: {issue}")


def register(app: typer.Typer) -> None:
    """Add `mix` to the app."""
    app.command("mix")(mix_command)
