"""The layering of a scene's mix settings (`drama_cli.script.mix_settings.MixSettings`, one
record per source): command-line flags over the project's saved settings over the scene's over
the script's over the defaults (`layer_mix`), and the files they name (room tone, sounds)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from drama_cli.errors import ScriptError, UsageError
from drama_cli.script.check import scene_mix_errors
from drama_cli.script.clips import audio_file_problem
from drama_cli.script.mix_settings import DEFAULT_FORMATS, NO_ROOM_TONE, MixSettings


def cli_room_tone(value: str | None) -> str | None:
    """The `--room-tone` flag as stored: "noise", NO_ROOM_TONE, or the clip's absolute path (so
    a later `drama mix` from another folder finds it). Raises UsageError for a missing file."""
    if value is None or value in ("noise", NO_ROOM_TONE):
        return value
    path = Path(value)
    if not path.is_file():
        what = (
            "is a folder"
            if path.is_dir()
            else "is not a regular file"
            if path.exists()
            else "no such file"
        )
        raise UsageError(f"--room-tone {value}: {what} (give a WAV/FLAC file, 'noise' or 'none')")
    return str(path.resolve())


def script_settings(script, scene, room_tone: bool = True) -> MixSettings:
    """The mix settings the script gives for `scene` (`Script.mix_for`: the scene's own over
    the script's top level), room-tone paths made relative to the script's folder; without
    `room_tone` (a layer above gives one) the script's room tone is left out, unchecked.
    Raises UsageError for an unusable room-tone file (`MixSettings.checked`)."""
    options = script.mix_for(scene) if script is not None else None
    if options is None:
        return MixSettings()
    tone = options.room_tone if room_tone else None
    if tone is not None and tone != "noise" and not Path(tone).is_absolute():
        tone = str(Path(script.base_dir or ".") / tone)
    return dataclasses.replace(options, room_tone=tone, room_tone_position=None).checked()


def scene_sounds(script, scene) -> tuple:
    """The scene's sounds (`Scene.sounds`) with their paths made absolute (relative ones are
    under the script's folder), as `MixSettings.sounds` takes them. Sounds are mix settings:
    no line's cache key holds them, so changing one never renders a take again. Raises
    ScriptError at the sound's place in the script when its file is missing or not audio."""
    base = Path(script.base_dir or ".") if script is not None else Path(".")
    sounds = tuple(
        dataclasses.replace(sound, path=str((base / sound.path).resolve()))
        for sound in getattr(scene, "sounds", ())
    )
    for written, sound in zip(getattr(scene, "sounds", ()), sounds):
        problem = audio_file_problem(sound.path)
        if problem is not None:  # moved or replaced since `drama check`
            raise ScriptError(
                f"sound {written.path!r} {problem}",
                written.file_position or written.position,
                "record it or fix the path, then mix again",
            )
    return sounds


def check_mix_files(script, scenes, room_tones: bool = True) -> None:
    """Check the sounds (and with `room_tones`, the scripted room tones) the mixes of `scenes`
    use as `drama check` does (`scene_mix_errors`), so that a render stops before voicing any
    line when one is missing, not audio or holds non-finite samples. Raises ScriptError at the
    first one."""
    errors = scene_mix_errors(script, scenes, room_tones)
    if errors:
        raise errors[0]


def layer_mix(
    flags: MixSettings, project: MixSettings | None = None, script=None, scene=None
) -> MixSettings:
    """The mix settings of `scene`: `flags` over the `project`'s saved settings over the
    scene's and the script's own (`script_settings`); formats default to DEFAULT_FORMATS.
    What no layer gives stays None, so the defaults apply (`MixSettings.resolved`)."""
    layered = flags.over(project)
    if scene is not None:
        layered = layered.over(script_settings(script, scene, room_tone=layered.room_tone is None))
    return dataclasses.replace(layered, formats=layered.formats or DEFAULT_FORMATS)
