"""Mix settings given for a command or kept with a project (`MixOverrides`, one frozen record,
checked once when it is made) and their layering for a scene: command-line flags over the
project's saved settings over the scene's over the script's over `MixSettings` defaults
(`layer_mix`)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

from drama_cli.errors import ScriptError, UsageError
from drama_cli.mix.session import check_session_format
from drama_cli.script.clips import audio_file_problem, inspect_clip

MAX_PAD_S = 60.0
ROOM_TONE_DB_RANGE = (-120.0, 0.0)
DEFAULT_FORMATS = ("wav",)  # when neither the command nor the project names a format
NO_ROOM_TONE = "none"  # `--room-tone none`: no bed, over a saved or scripted one
OPTION_FIELDS = ("preset", "gap_s", "head_s", "tail_s", "room_tone", "room_tone_db", "duck_db",
                 "duck_attack_s", "duck_release_s", "stems", "sessions")
SECONDS_FLAGS = {"gap_s": "--gap", "head_s": "--head", "tail_s": "--tail"}
DUCK_RANGES = {"duck_db": ("ducking depth (dB)", -60.0, 0.0),
               "duck_attack_s": ("ducking attack (s)", 0.0, 10.0),
               "duck_release_s": ("ducking release (s)", 0.0, 10.0)}


@dataclass(frozen=True)
class MixOverrides:
    """Mix settings given by one source; None (or no formats) where that source gives none.

    formats: export formats (`wav`, `flac`, `mp3`; normalised by `check_format`, each kept
    once, as sessions are). preset: loudness preset name.
    gap_s / head_s / tail_s: seconds, 0..60. room_tone: "noise", an absolute path of a
    room-tone clip, or NO_ROOM_TONE (none, over what a layer below gives: `settings_options`).
    room_tone_db: dBFS RMS, -120..0.
    duck_db: how far ducked beds go down under dialogue, -60..0 dB; duck_attack_s /
    duck_release_s: seconds, 0..10 (`drama_cli.mix.sounds`). stems: also write the mix's
    stems (`drama_cli.mix.stems`). sessions: DAW sessions to write (`otio`, `rpp`:
    `drama_cli.mix.session`); None: not given, () given empty.
    Raises UsageError when made with a value out of range or an unusable room-tone file
    (the file is inspected once per process while it is unchanged: `inspect_clip`).
    """

    formats: tuple[str, ...] = ()
    preset: str | None = None
    gap_s: float | None = None
    head_s: float | None = None
    tail_s: float | None = None
    room_tone: str | None = None
    room_tone_db: float | None = None
    duck_db: float | None = None
    duck_attack_s: float | None = None
    duck_release_s: float | None = None
    stems: bool | None = None
    sessions: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        from drama_cli.mix.export import check_format

        # each once, in the order first given (`--format FLAC --format flac` is one format)
        object.__setattr__(self, "formats", tuple(dict.fromkeys(check_format(name)
                                                                for name in self.formats or ())))
        if self.sessions is not None:
            object.__setattr__(self, "sessions", tuple(dict.fromkeys(check_session_format(name)
                                                                     for name in self.sessions)))
        for key in ("preset", "room_tone"):
            if getattr(self, key) is not None and not isinstance(getattr(self, key), str):
                raise UsageError(f"the {key.replace('_', ' ')} must be text, not "
                                 f"{getattr(self, key)!r}")
        for key, flag in SECONDS_FLAGS.items():
            if getattr(self, key) is not None:
                check_number(flag, getattr(self, key), 0.0, MAX_PAD_S)
        if self.room_tone_db is not None:
            check_number("room tone level (dBFS)", self.room_tone_db, *ROOM_TONE_DB_RANGE)
        for key, (name, low, high) in DUCK_RANGES.items():
            if getattr(self, key) is not None:
                check_number(name, getattr(self, key), low, high)
        if self.room_tone is not None and str(self.room_tone) not in ("noise", NO_ROOM_TONE):
            check_room_tone_file(self.room_tone)

    def options(self) -> dict:
        """The `MixSettings` fields this source gives (formats aside)."""
        return {key: getattr(self, key) for key in OPTION_FIELDS if getattr(self, key) is not None}

    def settings_options(self) -> dict:
        """`options` as `MixSettings` takes them: NO_ROOM_TONE is no room tone."""
        options = self.options()
        if options.get("room_tone") == NO_ROOM_TONE:
            del options["room_tone"]
        return options

    def over(self, under: MixOverrides) -> MixOverrides:
        """These settings with `under`'s filling what these do not give."""
        return dataclasses.replace(under, formats=self.formats or under.formats, **self.options())

    def to_record(self) -> dict:
        """The form a project keeps in `project.json` under "mix"."""
        return {"formats": list(self.formats), "options": self.options()}

    @classmethod
    def from_record(cls, record) -> MixOverrides:
        """The settings saved in `project.json` under "mix" (`to_record`); {} or None: none.
        Raises UsageError for saved values out of range."""
        record = record if isinstance(record, dict) else {}
        options = record.get("options") if isinstance(record.get("options"), dict) else {}
        return cls(formats=tuple(record.get("formats") or ()),
                   **{key: options[key] for key in OPTION_FIELDS if options.get(key) is not None})


def check_number(name: str, value: float, low: float, high: float) -> float:
    """`value` when finite and within [low, high]; else UsageError naming `name` (a flag)."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"{name} must be a finite number, not {value!r}")
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low:g} and {high:g}, not {value:g}")
    return float(value)


def check_room_tone_file(path) -> None:
    """Raise UsageError naming a room-tone file that is missing, unreadable, empty or holds
    non-finite samples (`drama_cli.script.clips.inspect_clip`); any length is fine."""
    verdict = inspect_clip(path, None, silence=False)
    if verdict.error:
        raise UsageError(f"room tone file {path} {verdict.error} (give a WAV/FLAC file, 'noise' or 'none')")


def cli_room_tone(value: str | None) -> str | None:
    """The `--room-tone` flag as stored: "noise", NO_ROOM_TONE, or the clip's absolute path (so
    a later `drama mix` from another folder finds it). Raises UsageError for a missing file."""
    if value is None or value in ("noise", NO_ROOM_TONE):
        return value
    path = Path(value)
    if not path.is_file():
        what = ("is a folder" if path.is_dir() else "is not a regular file" if path.exists()
                else "no such file")
        raise UsageError(f"--room-tone {value}: {what} (give a WAV/FLAC file, 'noise' or 'none')")
    return str(path.resolve())


def script_overrides(script, scene, room_tone: bool = True) -> MixOverrides:
    """The mix settings the script gives for `scene` (`Script.mix_for`: the scene's own over
    the script's top level), room-tone paths made relative to the script's folder; without
    `room_tone` (a layer above gives one) the script's room tone is left out, unchecked."""
    options = script.mix_for(scene) if script is not None else None
    if options is None:
        return MixOverrides()
    tone = options.room_tone if room_tone else None
    if tone is not None and tone != "noise" and not Path(tone).is_absolute():
        tone = str(Path(script.base_dir or ".") / tone)
    return MixOverrides(room_tone=tone, room_tone_db=options.room_tone_db, gap_s=options.gap_s,
                        head_s=options.head_s, tail_s=options.tail_s, duck_db=options.duck_db,
                        duck_attack_s=options.duck_attack_s,
                        duck_release_s=options.duck_release_s)


def scene_sounds(script, scene) -> tuple:
    """The scene's sounds (`Scene.sounds`) with their paths made absolute (relative ones are
    under the script's folder), as `MixSettings.sounds` takes them. Sounds are mix settings:
    no line's cache key holds them, so changing one never renders a take again. Raises
    ScriptError at the sound's place in the script when its file is missing or not audio."""
    base = Path(script.base_dir or ".") if script is not None else Path(".")
    sounds = tuple(dataclasses.replace(sound, path=str((base / sound.path).resolve()))
                   for sound in getattr(scene, "sounds", ()))
    for written, sound in zip(getattr(scene, "sounds", ()), sounds):
        problem = audio_file_problem(sound.path)
        if problem is not None:  # moved or replaced since `drama check`
            raise ScriptError(f"sound {written.path!r} {problem}", written.file_position or written.position,
                              "record it or fix the path, then mix again")
    return sounds


def check_mix_files(script, scenes, room_tones: bool = True) -> None:
    """Check the sounds (and with `room_tones`, the scripted room tones) the mixes of `scenes`
    use as `drama check` does (`scene_mix_errors`), so that a render stops before voicing any
    line when one is missing, not audio or holds non-finite samples. Raises ScriptError at the
    first one."""
    from drama_cli.script.check import scene_mix_errors

    errors = scene_mix_errors(script, scenes, room_tones)
    if errors:
        raise errors[0]


def layer_mix(flags: MixOverrides, project: MixOverrides | None = None, script=None,
              scene=None) -> MixOverrides:
    """The mix settings of `scene`: `flags` over the `project`'s saved settings over the
    scene's and the script's own (`script_overrides`); formats default to DEFAULT_FORMATS.
    What no layer gives stays None, so `MixSettings` defaults apply."""
    layered = flags.over(project or MixOverrides())
    if scene is not None:
        layered = layered.over(script_overrides(script, scene, room_tone=layered.room_tone is None))
    return dataclasses.replace(layered, formats=layered.formats or DEFAULT_FORMATS)
