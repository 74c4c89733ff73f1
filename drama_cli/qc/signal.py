"""Signal checks on a finished take: the render layer runs them once on every generation.

Pure numpy. Each check looks at float32 mono audio `[samples]` (any sample rate, given in Hz)
and returns a `CheckResult`; `check_take` runs them all into a `CheckReport`. The expected
duration of a line comes from `engine.text.expected_duration_s`.

Severity: a failure is either `unusable` (silence, runaway, non-finite samples: the take must
not reach a mix) or `degraded` (noise, clipping, far too short: usable as a last resort, flagged
for review).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from engine.text import expected_duration_s

UNUSABLE = "unusable"
DEGRADED = "degraded"

RUNAWAY_FACTOR = 5.0  # case M1: any take longer than 5x its estimate is flagged
SHORT_FACTOR = 0.15
SILENCE_FLOOR_DB = -35.0  # frames more than 35 dB below the take's peak frame count as silent
ABSOLUTE_SILENCE_DBFS = -60.0
MIN_ACTIVE_FRACTION = 0.2
NOISE_FLATNESS = 0.35
CLIP_LEVEL = 0.999
MAX_CLIPPED_FRACTION = 0.001
# Stop reasons meaning "hit the frame budget without end of speech": the engine's own
# `max_frames`, the render layer's `length`, and the names other backends use.
STOP_WITHOUT_EOS = frozenset({"max_frames", "length", "max_tokens", "budget", "max_new_tokens"})


@dataclass(frozen=True)
class CheckResult:
    """One check on one take.

    name: `silence`, `runaway`, `finite`, `noise`, `clipping` or `short`.
    passed: whether the take passed it. value / limit: the measured value and the limit it was
    held against (units in `unit`). severity: `unusable` or `degraded` (what a failure means).
    """

    name: str
    passed: bool
    value: float
    limit: float
    unit: str
    severity: str
    message: str = ""


@dataclass
class CheckReport:
    """All checks run on one take. `passed` is true when no check failed."""

    results: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        """The failed checks, in the order they ran."""
        return [r for r in self.results if not r.passed]

    @property
    def usable(self) -> bool:
        """True when no failed check is `unusable` (a degraded take may still be mixed)."""
        return all(r.severity != UNUSABLE for r in self.failures)

    @property
    def severity(self) -> str:
        """`ok`, `degraded` or `unusable`: the worst failure."""
        if self.passed:
            return "ok"
        return DEGRADED if self.usable else UNUSABLE

    def summary(self) -> str:
        """One line naming the failed checks with their messages, or `ok`."""
        if self.passed:
            return "ok"
        return "; ".join(f"{r.name}: {r.message}" for r in self.failures)

    def to_dict(self) -> dict:
        """JSON-ready form: `{"passed", "severity", "failures": [names], "checks": [...]}`."""
        return {
            "passed": self.passed,
            "severity": self.severity,
            "failures": [r.name for r in self.failures],
            "checks": [_clean(asdict(r)) for r in self.results],
        }

    @classmethod
    def from_dict(cls, data: dict) -> CheckReport:
        """Inverse of `to_dict` (as stored in a take record)."""
        return cls.from_results(data.get("checks", []))

    @classmethod
    def from_results(cls, results) -> CheckReport:
        """The report of stored check results (`to_dict()["checks"]`: one object each)."""
        return cls([CheckResult(**c) for c in results])


def _clean(record: dict) -> dict:
    for key in ("value", "limit"):
        value = float(record[key])
        record[key] = value if np.isfinite(value) else None
    return record


def _frame_rms(audio: np.ndarray, sample_rate: int, window_s: float = 0.02) -> np.ndarray:
    size = max(1, int(round(window_s * sample_rate)))
    count = len(audio) // size
    if count == 0:
        return (
            np.sqrt(np.mean(np.square(audio, dtype=np.float64), keepdims=True))
            if len(audio)
            else np.zeros(1)
        )
    frames = audio[: count * size].astype(np.float64).reshape(count, size)
    return np.sqrt(np.mean(frames * frames, axis=1))


def _db(value: float) -> float:
    return float(20.0 * np.log10(max(value, 1e-12)))


def check_finite(audio: np.ndarray) -> CheckResult:
    """Fails when any sample is NaN or infinite (a numerical fault upstream)."""
    bad = int(np.count_nonzero(~np.isfinite(audio)))
    return CheckResult(
        "finite",
        bad == 0,
        bad,
        0,
        "samples",
        UNUSABLE,
        "" if bad == 0 else f"{bad} non-finite samples",
    )


def check_silence(audio: np.ndarray, sample_rate: int) -> CheckResult:
    """Fails when speech energy is missing for most of the take.

    20 ms frames; a frame is active when its RMS is within 35 dB of the loudest frame and above
    -60 dBFS. The take fails when fewer than 20 % of its frames are active. value: the active
    fraction (0..1).
    """
    rms = _frame_rms(np.nan_to_num(audio), sample_rate)
    peak = float(rms.max()) if rms.size else 0.0
    floor = max(peak * 10 ** (SILENCE_FLOOR_DB / 20), 10 ** (ABSOLUTE_SILENCE_DBFS / 20))
    active = float(np.mean(rms > floor)) if rms.size else 0.0
    ok = active >= MIN_ACTIVE_FRACTION
    msg = (
        ""
        if ok
        else (
            f"only {active:.0%} of the take has speech energy"
            + (f" (loudest 20 ms at {_db(peak):.0f} dBFS)" if peak > 0 else " (digital silence)")
        )
    )
    return CheckResult("silence", ok, active, MIN_ACTIVE_FRACTION, "fraction", UNUSABLE, msg)


def check_runaway(duration_s: float, text: str, stop_reason: str | None = None) -> CheckResult:
    """Fails when generation hit its budget without end-of-speech, or ran far too long.

    Case M1: a take longer than 5x `expected_duration_s(text)` is flagged whatever the backend
    says; `stop_reason` in `STOP_WITHOUT_EOS` (max_frames, length, max_tokens, budget,
    max_new_tokens) is flagged too.
    value: duration / expected (ratio).
    """
    expected = expected_duration_s(text)
    ratio = duration_s / expected
    if stop_reason in STOP_WITHOUT_EOS:
        return CheckResult(
            "runaway",
            False,
            ratio,
            RUNAWAY_FACTOR,
            "ratio",
            UNUSABLE,
            f"stopped at the frame budget without end of speech ({duration_s:.1f} s)",
        )
    ok = ratio <= RUNAWAY_FACTOR
    msg = "" if ok else f"{duration_s:.1f} s is {ratio:.1f}x the expected {expected:.1f} s"
    return CheckResult("runaway", ok, ratio, RUNAWAY_FACTOR, "ratio", UNUSABLE, msg)


def check_short(duration_s: float, text: str) -> CheckResult:
    """Degraded when a take is under 15 % of its expected duration (words likely dropped)."""
    expected = expected_duration_s(text)
    ratio = duration_s / expected
    ok = ratio >= SHORT_FACTOR or expected < 2.0
    msg = "" if ok else f"{duration_s:.2f} s is far shorter than the expected {expected:.1f} s"
    return CheckResult("short", ok, ratio, SHORT_FACTOR, "ratio", DEGRADED, msg)


def spectral_flatness(audio: np.ndarray, sample_rate: int, window_s: float = 0.04) -> float:
    """Median spectral flatness (geometric / arithmetic mean of the power spectrum, 0..1) of
    the active frames: about 0.56 for white noise, well under 0.3 for voiced speech."""
    size = max(16, int(round(window_s * sample_rate)))
    count = len(audio) // size
    if count == 0:
        return 0.0
    frames = np.nan_to_num(audio[: count * size]).astype(np.float64).reshape(count, size)
    energy = np.mean(frames * frames, axis=1)
    active = energy > energy.max() * 10 ** (SILENCE_FLOOR_DB / 10)
    if not active.any() or energy.max() <= 0:
        return 0.0
    power = np.abs(np.fft.rfft(frames[active] * np.hanning(size), axis=1)) ** 2 + 1e-20
    flatness = np.exp(np.mean(np.log(power), axis=1)) / np.mean(power, axis=1)
    return float(np.median(flatness))


def check_noise(audio: np.ndarray, sample_rate: int) -> CheckResult:
    """Degraded when the take is noise-like: median spectral flatness above 0.35."""
    flatness = spectral_flatness(audio, sample_rate)
    ok = flatness <= NOISE_FLATNESS
    msg = "" if ok else f"sounds like noise (spectral flatness {flatness:.2f})"
    return CheckResult("noise", ok, flatness, NOISE_FLATNESS, "flatness", DEGRADED, msg)


def check_clipping(audio: np.ndarray) -> CheckResult:
    """Degraded when more than 0.1 % of samples sit at full scale (|x| >= 0.999)."""
    if len(audio) == 0:
        return CheckResult("clipping", True, 0.0, MAX_CLIPPED_FRACTION, "fraction", DEGRADED)
    clipped = float(np.mean(np.abs(np.nan_to_num(audio)) >= CLIP_LEVEL))
    ok = clipped <= MAX_CLIPPED_FRACTION
    msg = "" if ok else f"{clipped:.1%} of samples clipped"
    return CheckResult("clipping", ok, clipped, MAX_CLIPPED_FRACTION, "fraction", DEGRADED, msg)


def check_take(
    audio: np.ndarray, sample_rate: int, text: str, stop_reason: str | None = None
) -> CheckReport:
    """Run every signal check on one take.

    audio: float32 mono `[samples]`; sample_rate in Hz; text: the line as sent (tags allowed);
    stop_reason: the backend's (`eos`, `length`, ...; None when unknown).
    Raises ValueError when `audio` is not one-dimensional.
    """
    audio = np.asarray(audio)
    if audio.ndim != 1:
        raise ValueError(f"expected mono audio [samples], got shape {audio.shape}")
    duration_s = len(audio) / float(sample_rate)
    return CheckReport(
        [
            check_finite(audio),
            check_silence(audio, sample_rate),
            check_runaway(duration_s, text, stop_reason),
            check_short(duration_s, text),
            check_noise(audio, sample_rate),
            check_clipping(audio),
        ]
    )
