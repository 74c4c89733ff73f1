"""What the render, takes, mix and book commands read from their arguments: the script, with
its warnings printed, and the render settings."""

from __future__ import annotations

from typing import Optional

from drama_cli.commands.output import notice
from drama_cli.compile.modes import DEFAULT_MODE
from drama_cli.errors import ScriptError


def load_checked(script: str, cast: Optional[str]):
    """The script, its warnings printed; a bad script raises its first problem, saying how many
    more `drama check` lists."""
    from drama_cli.script.check import with_check_count
    from drama_cli.script.load import load_script

    try:
        loaded = load_script(script, cast=cast)
    except ScriptError as err:
        raise with_check_count(err, script, cast) from None
    for warning in loaded.warnings:
        notice(f"warning: {warning}")
    return loaded


def render_settings(scene, line, mode=DEFAULT_MODE, takes=1, seed=0, retries=2, formats=None,
                    preset=None, gap=None, mix=True, room_tone=None, head=None, tail=None, batch=None):
    """RenderSettings from the command line; mix options only for the flags given.
    Raises UsageError for a value out of range (a gap, head or tail not in 0..60 s, ...)."""
    from drama_cli.mix.loudness import get_preset
    from drama_cli.mix.options import cli_room_tone
    from drama_cli.render.plan import RenderSettings

    options = {}
    if preset is not None:
        get_preset(preset)  # an unknown preset is refused before any model is looked for
        options["preset"] = preset
    given = {"gap_s": gap, "head_s": head, "tail_s": tail, "room_tone": cli_room_tone(room_tone)}
    options.update({key: value for key, value in given.items() if value is not None})
    settings = RenderSettings(scenes=tuple(scene or ()), lines=tuple(line or ()), mode=mode,
                              takes=takes, seed=seed, retries=retries,
                              formats=tuple(formats or ()), mix=mix, mix_options=options,
                              batch=batch)
    settings.validate()
    return settings
