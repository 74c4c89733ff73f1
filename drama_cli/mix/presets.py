"""The loudness presets a mix is normalised to, one record each (`PRESETS`): what help
texts, the check of `--preset` and the mixer read. No signal code here, so that the command
line can list them without loading it."""

from __future__ import annotations

from dataclasses import dataclass

from drama_cli.errors import UsageError


@dataclass(frozen=True)
class LoudnessPreset:
    """A delivery target.

    name: its key in `PRESETS`.
    measure: `lufs` (integrated loudness) or `rms` (whole-file RMS in dBFS, ACX's measure).
    target_db: the level the scene is brought to (LUFS or dB RMS); None: no gain change.
    accept_db: (low, high) range the level must land in to comply.
    ceiling_db: the highest allowed peak (dBFS, or dBTP when `true_peak`).
    true_peak: whether `ceiling_db` applies to 4× oversampled (true) peaks.
    noise_floor_max_db: the highest allowed noise floor (ACX: −60 dB RMS), or None.
    """

    name: str
    measure: str
    target_db: float | None
    accept_db: tuple[float, float] | None
    ceiling_db: float
    true_peak: bool
    noise_floor_max_db: float | None = None

    @property
    def limiter_ceiling_db(self) -> float:
        """Limiter ceiling: a little under the preset's, for the limiter's approximations."""
        return self.ceiling_db - (0.5 if self.true_peak else 0.05)


PRESETS = {
    # ACX audiobook submission: RMS −23…−18 dB, peaks ≤ −3 dBFS, noise floor ≤ −60 dB.
    "acx": LoudnessPreset("acx", "rms", -20.0, (-23.0, -18.0), -3.0, False, -60.0),
    # The same, for a master that becomes an MP3: true peaks are limited (0.5 dB under −3),
    # so the peaks of the decoded MP3, which overshoot the master's samples, stay ≤ −3 dBFS.
    "acx-mp3": LoudnessPreset("acx-mp3", "rms", -20.0, (-23.0, -18.0), -3.0, True, -60.0),
    # EBU R 128: −23 LUFS integrated (±1 LU for live, we accept ±1), true peak ≤ −1 dBTP.
    "r128": LoudnessPreset("r128", "lufs", -23.0, (-24.0, -22.0), -1.0, True),
    # Common podcast delivery: −16 LUFS, true peak ≤ −1 dBTP.
    "podcast": LoudnessPreset("podcast", "lufs", -16.0, (-17.0, -15.0), -1.0, True),
    # No loudness change; the limiter only catches overs above full scale.
    "none": LoudnessPreset("none", "lufs", None, None, 0.0, False),
}


def get_preset(name: str) -> LoudnessPreset:
    """The preset called `name`; raises UsageError naming the known presets otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise UsageError(f"unknown loudness preset {name!r} (known: {known})") from None
