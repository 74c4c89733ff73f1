"""The mix settings: one frozen record (`MixSettings`) and one table of its settings
(`MIX_FIELDS`: each one's default, range or allowed values, unit and help), which the script
reader, the mix and the command line all read.

A script's `mix:` keys are read here, in the script stage; the mix layers and uses the
same record (`drama_cli.mix.options.layer_mix`, `drama_cli.mix.timeline.mix_scene`)."""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field

from drama_cli.errors import SourcePosition, UsageError
from drama_cli.script.clips import inspect_clip

NO_ROOM_TONE = "none"  # `--room-tone none`: no bed, over a saved or scripted one


@dataclass(frozen=True)
class MixField:
    """One mix setting of `MixSettings`.

    name: the record's field. key: the script key that sets it (None: a script cannot).
    label: how errors name it (the command-line flag where there is one). default: its value
    when no layer gives one. low / high: the range of a number (inclusive), in `unit`;
    allowed: the names it may hold (empty: any). help: the command-line help, without the
    unit and range (`flag_help` adds them)."""

    name: str
    key: str | None
    label: str
    default: object
    unit: str = ""
    low: float | None = None
    high: float | None = None
    allowed: tuple[str, ...] = ()
    help: str = ""


MIX_FIELDS = {
    setting.name: setting
    for setting in (
        MixField(
            "formats",
            None,
            "--format",
            ("wav",),
            allowed=("wav", "flac", "mp3"),
            help="Mix format: wav, flac, mp3 (repeatable).",
        ),
        MixField(
            "preset",
            None,
            "--preset",
            "none",
            help="(default: the project's saved preset, else none).",
        ),
        MixField(
            "room_tone",
            "room_tone",
            "--room-tone",
            None,
            help="Bed under the mix: 'noise', a room-tone file (WAV/FLAC), or 'none' (no bed, "
            "over a saved or scripted one).",
        ),
        MixField(
            "room_tone_db",
            "room_tone_db",
            "room tone level (dBFS)",
            -65.0,
            "dBFS RMS",
            -120.0,
            0.0,
            help="Level of the room tone",
        ),
        MixField(
            "gap_s",
            "gap",
            "--gap",
            0.5,
            "seconds",
            0.0,
            60.0,
            help="Default pause between lines in the mix",
        ),
        MixField(
            "head_s",
            "head",
            "--head",
            0.5,
            "seconds",
            0.0,
            60.0,
            help="Silence before the first line of a scene mix",
        ),
        MixField(
            "tail_s",
            "tail",
            "--tail",
            1.0,
            "seconds",
            0.0,
            60.0,
            help="Silence after the last line of a scene mix",
        ),
        MixField(
            "duck_db",
            "duck_db",
            "ducking depth (dB)",
            -12.0,
            "dB",
            -60.0,
            0.0,
            help="How far ducked beds go down under dialogue",
        ),
        MixField(
            "duck_attack_s",
            "duck_attack",
            "ducking attack (s)",
            0.05,
            "seconds",
            0.0,
            10.0,
            help="How fast ducked beds go down",
        ),
        MixField(
            "duck_release_s",
            "duck_release",
            "ducking release (s)",
            0.4,
            "seconds",
            0.0,
            10.0,
            help="How fast ducked beds come back up",
        ),
        MixField(
            "stems",
            None,
            "--stems",
            False,
            help="Also write mix.stem-*.wav beside each mix: one per character, effects, music "
            "and room tone, summing to the mix (kept with the project).",
        ),
        MixField(
            "sessions",
            None,
            "--export-session",
            (),
            allowed=("otio", "rpp"),
            help="Also write a DAW session beside each mix: otio (OpenTimelineIO) or rpp "
            "(REAPER) (repeatable; kept with the project; none: stop writing them).",
        ),
    )
}
# The settings a layer gives besides formats, in the order a project keeps them and a
# script's keys are listed.
OPTION_FIELDS = tuple(name for name in MIX_FIELDS if name != "formats")
# The settings a script may give (its keys: `MixField.key`).
SCRIPT_FIELDS = tuple(setting for setting in MIX_FIELDS.values() if setting.key is not None)
DEFAULT_FORMATS = MIX_FIELDS["formats"].default  # when no layer names a format


@dataclass(frozen=True)
class MixSettings:
    """How a scene is mixed and exported, or the part of that one source gives.

    Layers: each source (the script's top level, a scene, the project's saved settings, the
    command line) gives a record with only what it sets; None (for formats: empty) is unset.
    `over` merges them, the upper winning field by field: command-line flags over the project
    over the scene over the script (`drama_cli.mix.options.layer_mix`); `resolved` fills what
    no layer gives from `MIX_FIELDS`' defaults, as the mix does before it mixes.

    The settings a source gives (ranges, units and defaults in MIX_FIELDS):
    formats: export formats (`wav`, `flac`, `mp3`; normalised by `check_format`, each kept
    once, as sessions are). preset: loudness preset (`drama_cli.mix.presets.PRESETS`).
    gap_s: default pause between lines (a line's own pause wins). head_s / tail_s: silence
    before the first and after the last line. room_tone: "noise" (generated low-level noise),
    the path of a room-tone clip (as written in a script, relative to `Script.base_dir`; else
    absolute), or NO_ROOM_TONE (none, over what a layer below gives: `settings_options`); None
    when resolved: digital silence. room_tone_db: its level, dBFS RMS (a clip is looped under
    the scene and scaled to it; the bed is added after the loudness gain, so it keeps it). duck_db /
    duck_attack_s / duck_release_s: how far and how fast ducked beds go down under dialogue
    (`drama_cli.mix.sounds.DuckEnvelope`). stems: also write the mix's stems
    (`drama_cli.mix.stems`). sessions: DAW sessions to write (`otio`, `rpp`:
    `drama_cli.mix.session`); None: not given, () given empty.
    room_tone_position: where a script writes `room_tone` (for errors about the clip); it
    goes with the room tone in a merge.

    Set by the mix for one run, never layered: wav_subtype: `PCM_24`, `PCM_16`, `PCM_32` or
    `FLOAT`. mp3_bitrate_kbps: MP3 bit rate. seed: seed of the generated room tone. metadata:
    extra fields for the JSON cue sheet (for example `{"engine": "scratch"}`). hold_gain_db:
    the preset gain of the scene's last mix, applied again unchanged while the result's level
    stays within the preset's accepted range, so a rebuild after one line changed leaves the
    other lines' samples as they were; None: normalise. target_db: the level to reach in the
    preset's measure instead of the preset's target (a book aims a short file lower, so that
    its speech meets ACX's level). sounds: the scene's effects and beds
    (`drama_cli.script.document.Sound`, paths absolute), summed with the voices before the
    loudness pass. scene_sounds: for a mix of several scenes (a book chapter), each scene's
    sounds on its own clock (`drama_cli.mix.sounds.SceneSounds`).

    Raises UsageError when made with a number out of its range, an unknown format or session
    format, or a preset or room tone that is not text. A room-tone file is inspected by
    `checked`, not here: a script's path is relative to its folder.
    """

    formats: tuple[str, ...] = ()
    preset: str | None = None
    gap_s: float | None = None
    head_s: float | None = None
    tail_s: float | None = None
    room_tone: str | os.PathLike | None = None
    room_tone_db: float | None = None
    duck_db: float | None = None
    duck_attack_s: float | None = None
    duck_release_s: float | None = None
    stems: bool | None = None
    sessions: tuple[str, ...] | None = None
    room_tone_position: SourcePosition | None = None
    wav_subtype: str = "PCM_24"
    mp3_bitrate_kbps: int = 192
    seed: int = 0
    metadata: dict[str, object] = field(default_factory=dict)
    hold_gain_db: float | None = None
    target_db: float | None = None
    # a scene's `document.Sound`s (document.py imports this module) and the mix stage's
    # `SceneSounds`, one per scene
    sounds: tuple[object, ...] = ()
    scene_sounds: tuple[object, ...] = ()

    def __post_init__(self) -> None:
        # each once, in the order first given (`--format FLAC --format flac` is one format)
        object.__setattr__(
            self, "formats", tuple(dict.fromkeys(check_format(name) for name in self.formats or ()))
        )
        if self.sessions is not None:
            object.__setattr__(
                self,
                "sessions",
                tuple(dict.fromkeys(check_session_format(name) for name in self.sessions)),
            )
        for key in ("preset", "room_tone"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise UsageError(f"the {key.replace('_', ' ')} must be text, not {value!r}")
        for setting in MIX_FIELDS.values():
            if setting.low is not None and getattr(self, setting.name) is not None:
                check_number(setting.label, getattr(self, setting.name), setting.low, setting.high)

    def options(self) -> dict:
        """The settings this source gives (OPTION_FIELDS: formats aside)."""
        return {key: getattr(self, key) for key in OPTION_FIELDS if getattr(self, key) is not None}

    def settings_options(self) -> dict:
        """`options` as the mix takes them: NO_ROOM_TONE is no room tone."""
        options = self.options()
        if options.get("room_tone") == NO_ROOM_TONE:
            del options["room_tone"]
        return options

    def over(self, under: MixSettings | None) -> MixSettings:
        """These settings with `under`'s filling what these do not give (None: nothing under);
        the room tone's position goes with the room tone."""
        if under is None:
            return self
        tone_from = self if self.room_tone is not None else under
        return dataclasses.replace(
            under,
            formats=self.formats or under.formats,
            **self.options(),
            room_tone_position=tone_from.room_tone_position,
        )

    def resolved(self) -> MixSettings:
        """These settings with what no layer gave taken from MIX_FIELDS' defaults."""
        unset = {
            name: setting.default
            for name, setting in MIX_FIELDS.items()
            if getattr(self, name) is None or getattr(self, name) == ()
        }
        return dataclasses.replace(self, **unset) if unset else self

    def checked(self) -> MixSettings:
        """These settings, once their room-tone file (when they name one) is found usable:
        raises UsageError for one that is missing, unreadable, empty or holds non-finite
        samples (`inspect_clip`, once per process while the file is unchanged); any length and
        level is fine."""
        if self.room_tone is not None and str(self.room_tone) not in ("noise", NO_ROOM_TONE):
            verdict = inspect_clip(self.room_tone, None, silence=False)
            if verdict.error:
                raise UsageError(
                    f"room tone file {self.room_tone} {verdict.error} (give a WAV/FLAC "
                    f"file, 'noise' or 'none')"
                )
        return self

    def to_record(self) -> dict:
        """The form a project keeps in `project.json` under "mix"."""
        return {"formats": list(self.formats), "options": self.options()}

    @classmethod
    def from_record(cls, record) -> MixSettings:
        """The settings saved in `project.json` under "mix" (`to_record`); {} or None: none.
        Raises UsageError for saved values out of range or an unusable room-tone file."""
        record = record if isinstance(record, dict) else {}
        options = record.get("options") if isinstance(record.get("options"), dict) else {}
        return cls(
            formats=tuple(record.get("formats") or ()),
            **{key: options[key] for key in OPTION_FIELDS if options.get(key) is not None},
        ).checked()


def check_number(name: str, value: float, low: float, high: float) -> float:
    """`value` when finite and within [low, high]; else UsageError naming `name` (a flag)."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"{name} must be a finite number, not {value!r}")
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low:g} and {high:g}, not {value:g}")
    return float(value)


def check_format(fmt: str) -> str:
    """Normalise an export format name (`wav`, `.FLAC`, ...); UsageError for unknown ones."""
    allowed = MIX_FIELDS["formats"].allowed
    name = fmt.lower().lstrip(".")
    if name not in allowed:
        raise UsageError(f"unsupported audio format {fmt!r} (supported: {', '.join(allowed)})")
    return name


def check_session_format(name: str) -> str:
    """`name` when it is a session format (`MIX_FIELDS["sessions"].allowed`); else UsageError."""
    allowed = MIX_FIELDS["sessions"].allowed
    if name not in allowed:
        raise UsageError(f"unknown session format {name!r}: use {' or '.join(allowed)}")
    return name


def flag_help(name: str) -> str:
    """The command-line help of the setting `name`: its help, with its unit and range for a
    number ("Silence ..., seconds (0..60).")."""
    setting = MIX_FIELDS[name]
    if setting.low is None:
        return setting.help
    return f"{setting.help}, {setting.unit} ({setting.low:g}..{setting.high:g})."


MIX_DEFAULTS = MixSettings().resolved()  # every setting at its default
