"""Mix settings from the command line and the script: range checks, and the layering of a
scene's settings (command-line flags over the scene over the script over `MixSettings`
defaults)."""

from __future__ import annotations

import math
from pathlib import Path

from drama_cli.errors import UsageError

MAX_PAD_S = 60.0
ROOM_TONE_DB_RANGE = (-120.0, 0.0)
_SECONDS = {"gap_s": "--gap", "head_s": "--head", "tail_s": "--tail"}


def check_number(name: str, value: float, low: float, high: float) -> float:
    """`value` when finite and within [low, high]; else UsageError naming `name` (a flag)."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"{name} must be a finite number, not {value!r}")
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low:g} and {high:g}, not {value:g}")
    return float(value)


def validate_mix_options(options: dict) -> None:
    """Raise UsageError for a gap, head or tail outside 0..60 s, a room-tone level outside
    -120..0 dBFS, or a room-tone file that cannot be used (`check_room_tone_file`; `"noise"`
    needs none)."""
    for key, flag in _SECONDS.items():
        if options.get(key) is not None:
            check_number(flag, options[key], 0.0, MAX_PAD_S)
    if options.get("room_tone_db") is not None:
        check_number("room tone level (dBFS)", options["room_tone_db"], *ROOM_TONE_DB_RANGE)
    tone = options.get("room_tone")
    if tone is not None and str(tone) != "noise":
        check_room_tone_file(tone)


def check_room_tone_file(path) -> None:
    """Raise UsageError naming a room-tone file that is missing, unreadable, empty or holds
    non-finite samples (`drama_cli.script.clips.inspect_clip`); any length is fine."""
    from drama_cli.script.clips import inspect_clip

    verdict = inspect_clip(path, None, silence=False)
    if verdict.error:
        raise UsageError(f"room tone file {path} {verdict.error} (give a WAV/FLAC file or 'noise')")


def cli_room_tone(value: str | None) -> str | None:
    """The `--room-tone` flag as stored: "noise", or the clip's absolute path (so a later
    `drama mix` from another folder finds it). Raises UsageError for a missing file."""
    if value is None or value == "noise":
        return value
    path = Path(value)
    if not path.is_file():
        raise UsageError(f"--room-tone {value}: no such file (give a WAV/FLAC file or 'noise')")
    check_room_tone_file(path.resolve())
    return str(path.resolve())


def script_mix_options(script, scene) -> dict:
    """The `MixSettings` fields the script gives for `scene` (the scene's own over the
    script's top level; `Script.mix` / `Scene.mix`), room-tone paths made relative to the
    script's folder. {} when the script gives none."""
    mix_for = getattr(script, "mix_for", None)
    options = mix_for(scene) if mix_for else getattr(scene, "mix", None)
    if options is None:
        return {}
    found = {key: getattr(options, key, None)
             for key in ("room_tone", "room_tone_db", "gap_s", "head_s", "tail_s")}
    found = {key: value for key, value in found.items() if value is not None}
    tone = found.get("room_tone")
    if tone is not None and tone != "noise" and not Path(tone).is_absolute():
        found["room_tone"] = str(Path(getattr(script, "base_dir", ".") or ".") / tone)
    return found


def layered_mix_options(script, scene, given: dict) -> dict:
    """`given` (command-line flags and the project's saved flags) over the script's settings
    for `scene` (`script_mix_options`); validated. script may be None (flags only)."""
    options = {**script_mix_options(script, scene), **given}
    validate_mix_options(options)
    return options
