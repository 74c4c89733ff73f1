"""Loudness of a scene, measured in one streaming pass, and the gain that brings it to a preset
(the presets themselves: `drama_cli.mix.presets`).

Integrated loudness follows ITU-R BS.1770-4 exactly as pyloudnorm implements it (K-weighting
filters taken from `pyloudnorm.Meter`, 400 ms blocks with 75 % overlap, absolute gate at
−70 LUFS, relative gate at −10 LU), but fed block by block so that hours of audio never have
to be held at once; `tests/test_loudness.py` holds the two against each other. Audio shorter
than one gating block, and silence, get defined fallbacks instead of pyloudnorm's
ValueError and −inf: see `LoudnessMeter.report`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pyloudnorm
import scipy.ndimage
import scipy.signal
from numpy.lib.stride_tricks import sliding_window_view

from drama_cli.mix.presets import LoudnessPreset, get_preset
from engine.constants import SAMPLE_RATE

GATE_BLOCK_S = 0.4
GATE_STEP_S = 0.1
ABSOLUTE_GATE_LUFS = -70.0
RELATIVE_GATE_LU = -10.0
NOISE_WINDOW_S = 0.5
FLOOR_DB = -120.0  # reported instead of −inf for digital silence
DIGITAL_SILENCE_DB = -100.0  # a noise floor this low means gaps of pure digital silence
MAX_BOOST_DB = 24.0  # a scene that needs more than this is left quiet, not turned into hiss
TRUE_PEAK_OVERSAMPLING = 4
TRUE_PEAK_TAPS = 48  # 12 taps per phase, as in BS.1770-4 Annex 2
TRUE_PEAK_CHUNK = 512


@dataclass(frozen=True)
class LoudnessReport:
    """Measurements of one scene; every value is finite or None, never NaN or ±inf.

    integrated_lufs: BS.1770-4 gated loudness; the ungated K-weighted level for audio shorter
        than one 400 ms block; None when nothing is above the −70 LUFS absolute gate.
    rms_db: whole-signal RMS in dBFS (a full-scale sine reads −3.01), FLOOR_DB for silence.
    peak_dbfs: highest absolute sample value in dBFS, FLOOR_DB for silence.
    true_peak_dbtp: highest 4× oversampled peak in dBTP when measured, else None.
    noise_floor_db: RMS of the quietest 500 ms window in dBFS (ACX's noise floor), None when
        the audio is shorter than 500 ms.
    duration_s: length in seconds.
    """

    integrated_lufs: float | None
    rms_db: float
    peak_dbfs: float
    true_peak_dbtp: float | None
    noise_floor_db: float | None
    duration_s: float

    def to_dict(self) -> dict:
        """Plain JSON-ready dict, values rounded to 0.01 dB."""
        return {k: (round(v, 2) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def db_from_power(power: float) -> float:
    """10·log10 of a mean-square value, floored at FLOOR_DB (never −inf)."""
    return FLOOR_DB if power <= 10 ** (FLOOR_DB / 10) else 10.0 * math.log10(power)


def db_from_amplitude(amplitude: float) -> float:
    """20·log10 of an amplitude, floored at FLOOR_DB (never −inf)."""
    return db_from_power(float(amplitude) ** 2)


def _k_weighting_sos(rate: int) -> np.ndarray:
    """The two K-weighting biquads of pyloudnorm's BS.1770-4 meter, as second-order sections."""
    stages = pyloudnorm.Meter(rate)._filters.values()
    sos = [np.concatenate([stage.passband_gain * stage.b, stage.a]) for stage in stages]
    return np.array(sos, dtype=np.float64)


def _true_peak_phases() -> np.ndarray:
    """Polyphase interpolation filter `[4, 12]` for 4× true-peak measurement (BS.1770-4 Annex 2).

    A windowed-sinc low-pass at the original Nyquist frequency, gain 4 so every phase has unit
    DC gain; designed here with scipy rather than copied from the recommendation's table.
    """
    taps = scipy.signal.firwin(TRUE_PEAK_TAPS, 1.0 / TRUE_PEAK_OVERSAMPLING, window=("kaiser", 6.0))
    taps *= TRUE_PEAK_OVERSAMPLING
    return taps.reshape(-1, TRUE_PEAK_OVERSAMPLING).T.astype(np.float32)


_PHASES = _true_peak_phases()
_CORRELATION_TAPS = np.ascontiguousarray(_PHASES[:, ::-1].T)  # [12, 4] for windows @ taps
_TAP_GAIN_BOUND = float(np.abs(_PHASES).sum(axis=1).max())  # |interpolated| ≤ this · max|x|


def interpolated_magnitude(data: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """Largest |value| of the 4× oversampled signal next to each sample: `[n]` → `[n]` float32.

    Each 12-sample window yields 4 interpolated points near its middle; their largest
    magnitude is assigned to the two samples they lie between (ends stay 0). Only chunks that
    could exceed `floor` are computed: |interpolated| ≤ Σ|taps| · max|window| bounds the rest,
    which are left at 0 (so the result is exact wherever it matters for a peak above `floor`).
    """
    taps = _PHASES.shape[1]
    data = np.asarray(data, np.float32)
    out = np.zeros(data.size, np.float32)
    starts = data.size - taps + 1
    if starts <= 0:
        return out
    chunks = -(-starts // TRUE_PEAK_CHUNK)
    padded = np.zeros((chunks + 1) * TRUE_PEAK_CHUNK, np.float32)
    padded[: data.size] = data
    peaks = np.abs(padded).reshape(-1, TRUE_PEAK_CHUNK).max(axis=1)
    chosen = np.flatnonzero(np.maximum(peaks[:-1], peaks[1:]) * _TAP_GAIN_BOUND > floor)
    if chosen.size == 0:
        return out
    window_starts = chosen[:, None] * TRUE_PEAK_CHUNK + np.arange(TRUE_PEAK_CHUNK)  # [k, chunk]
    rows = padded[chosen[:, None] * TRUE_PEAK_CHUNK + np.arange(TRUE_PEAK_CHUNK + taps - 1)]
    # One matrix product computes every phase's convolution: windows [k, chunk, 12] @ [12, 4].
    values = np.abs(sliding_window_view(rows, taps, axis=1) @ _CORRELATION_TAPS).max(axis=2)
    valid = window_starts < starts
    index, values = window_starts[valid] + (taps // 2 - 1), values[valid]
    out[index] = values
    out[index + 1] = np.maximum(out[index + 1], values)
    return out


class LoudnessMeter:
    """Streaming meter: `feed` float32 mono blocks of any size in order, then `report()`.

    Memory is a few numbers per 100 ms of audio (about 30 MB for 10 hours).
    rate: sample rate in Hz. true_peak: also measure 4× oversampled peaks (costs some speed).
    """

    def __init__(self, rate: int = SAMPLE_RATE, true_peak: bool = False):
        self.rate = rate
        self.step_samples = int(round(GATE_STEP_S * rate))
        self._sos = _k_weighting_sos(rate)
        self._zi = np.zeros((self._sos.shape[0], 2))
        self._phases = _PHASES if true_peak else None
        self._tp_history = np.zeros(TRUE_PEAK_TAPS // TRUE_PEAK_OVERSAMPLING - 1, np.float32)
        self._true_peak = 0.0
        self._peak = 0.0
        self._samples = 0
        self._pending = np.zeros(0, np.float32)
        self._weighted_steps: list[np.ndarray] = []
        self._plain_steps: list[np.ndarray] = []

    def feed(self, block: np.ndarray) -> None:
        """Add the next `[samples]` float32 block."""
        if block.size == 0:
            return
        self._samples += block.size
        self._peak = max(self._peak, float(np.max(np.abs(block))))
        if self._phases is not None:
            self._feed_true_peak(block)
        data = np.concatenate([self._pending, block]) if self._pending.size else block
        whole = data.size - data.size % self.step_samples
        if whole:
            self._measure_steps(data[:whole])
        self._pending = np.array(data[whole:], dtype=np.float32)

    def _measure_steps(self, data: np.ndarray) -> None:
        weighted, self._zi = scipy.signal.sosfilt(self._sos, _guard_denormals(data), zi=self._zi)
        steps = data.size // self.step_samples
        self._weighted_steps.append(_sum_squares(weighted, steps))
        self._plain_steps.append(_sum_squares(data, steps))

    def _feed_true_peak(self, block: np.ndarray) -> None:
        """Track the largest 4× oversampled value, carrying 11 samples across blocks."""
        data = np.concatenate([self._tp_history, block.astype(np.float32, copy=False)])
        self._tp_history = data[-self._tp_history.size :]
        self._true_peak = max(self._true_peak, float(np.max(np.abs(block))))
        interpolated = interpolated_magnitude(data, floor=self._true_peak)
        self._true_peak = max(self._true_peak, float(interpolated.max()))

    def report(self) -> LoudnessReport:
        """The measurements so far; see `LoudnessReport` for the fallbacks."""
        weighted, plain = self._step_energies()
        total = self._samples
        mean_square = float(plain.sum()) / total if total else 0.0
        true_peak = None
        if self._phases is not None:
            true_peak = db_from_amplitude(max(self._true_peak, self._peak))
        return LoudnessReport(
            integrated_lufs=self._integrated(weighted),
            rms_db=db_from_power(mean_square),
            peak_dbfs=db_from_amplitude(self._peak),
            true_peak_dbtp=true_peak,
            noise_floor_db=self._noise_floor(plain),
            duration_s=total / self.rate,
        )

    def _step_energies(self) -> tuple[np.ndarray, np.ndarray]:
        """Sums of squares per 100 ms step (K-weighted, plain); the partial last step included."""
        weighted = list(self._weighted_steps)
        plain = list(self._plain_steps)
        if self._pending.size:
            tail, _ = scipy.signal.sosfilt(self._sos, self._pending, zi=self._zi)
            weighted.append(np.array([np.sum(np.square(tail, dtype=np.float64))]))
            plain.append(np.array([np.sum(np.square(self._pending, dtype=np.float64))]))
        if not weighted:
            return np.zeros(0), np.zeros(0)
        return np.concatenate(weighted), np.concatenate(plain)

    def _integrated(self, weighted_steps: np.ndarray) -> float | None:
        block_samples = int(round(GATE_BLOCK_S * self.rate))
        if self._samples == 0:
            return None
        if self._samples < block_samples:
            # Shorter than one gating block: pyloudnorm refuses; use the ungated level instead.
            return _gate_absolute(float(weighted_steps.sum()) / self._samples)
        duration = self._samples / self.rate
        count = int(np.round((duration - GATE_BLOCK_S) / GATE_STEP_S)) + 1
        per_block = round(GATE_BLOCK_S / GATE_STEP_S)
        padded = np.concatenate([weighted_steps, np.zeros(per_block)])
        sums = np.convolve(padded, np.ones(per_block), mode="valid")[:count]
        energies = sums / block_samples
        loudness = -0.691 + 10.0 * np.log10(np.maximum(energies, 1e-300))
        kept = energies[loudness >= ABSOLUTE_GATE_LUFS]
        if kept.size == 0:
            return None
        relative_gate = -0.691 + 10.0 * math.log10(float(kept.mean())) + RELATIVE_GATE_LU
        gated = energies[(loudness > relative_gate) & (loudness > ABSOLUTE_GATE_LUFS)]
        if gated.size == 0:
            return None
        return -0.691 + 10.0 * math.log10(float(gated.mean()))

    def _noise_floor(self, plain_steps: np.ndarray) -> float | None:
        per_window = round(NOISE_WINDOW_S / GATE_STEP_S)
        full_steps = self._samples // self.step_samples
        if full_steps < per_window:
            return None
        sums = np.convolve(plain_steps[:full_steps], np.ones(per_window), mode="valid")
        return db_from_power(float(sums.min()) / (per_window * self.step_samples))


def _guard_denormals(data: np.ndarray) -> np.ndarray:
    """`data` as float64 plus 1e-18 on every other sample (energy ~1e-36, far below any gate).

    In digital silence the filters' decaying state would otherwise sink into subnormal
    numbers, which the CPU handles many times slower; this keeps the state above them.
    """
    guarded = np.asarray(data, dtype=np.float64).copy()
    guarded[::2] += 1e-18
    return guarded


def _sum_squares(data: np.ndarray, steps: int) -> np.ndarray:
    """Per-step sums of squares of `data` `[steps * step]` → `[steps]` float64."""
    shaped = np.asarray(data, dtype=np.float64).reshape(steps, -1)
    return np.einsum("ij,ij->i", shaped, shaped)


def _gate_absolute(mean_square: float) -> float | None:
    if mean_square <= 0.0:
        return None
    loudness = -0.691 + 10.0 * math.log10(mean_square)
    return loudness if loudness >= ABSOLUTE_GATE_LUFS else None


def measure(
    samples: np.ndarray, rate: int = SAMPLE_RATE, true_peak: bool = False
) -> LoudnessReport:
    """Measure a whole `[samples]` float array at once (same rules as the streaming meter)."""
    meter = LoudnessMeter(rate, true_peak=true_peak)
    meter.feed(np.asarray(samples, dtype=np.float32))
    return meter.report()


def preset_level(preset: LoudnessPreset, report: LoudnessReport) -> float | None:
    """The level `preset` is judged by (LUFS or dB RMS), None when unmeasurable (silence)."""
    if preset.measure == "rms":
        return report.rms_db if report.rms_db > FLOOR_DB else None
    return report.integrated_lufs


def preset_gain_db(preset: LoudnessPreset, report: LoudnessReport) -> float:
    """The gain in dB that brings a scene measured as `report` to `preset`'s target.

    0 dB for `none`, for silence and for anything unmeasurable (so silence stays silence and
    the gain is never ±inf or NaN); boosts are capped at MAX_BOOST_DB. Peak control is the
    limiter's job, not this gain's.
    """
    level = preset_level(preset, report)
    if preset.target_db is None or level is None:
        return 0.0
    return min(preset.target_db - level, MAX_BOOST_DB)


def level_text(preset_name: str, loudness: dict) -> str:
    """The console summary of a mix's level in the preset's own terms, from a
    `LoudnessReport.to_dict()`: `acx` is judged on RMS, so it reads `RMS -20.0 dB, peak -3.2
    dBFS, noise floor -65.1 dB`; the LUFS presets give integrated loudness and true peak
    (`-23.0 LUFS, true peak -1.6 dBTP`); `none` gives LUFS and the sample peak."""

    def db(key: str) -> str:
        value = loudness.get(key)
        return "n/a" if value is None else f"{value:.1f}"

    preset = get_preset(preset_name)
    lufs = (
        "no loudness (silence)"
        if loudness.get("integrated_lufs") is None
        else f"{db('integrated_lufs')} LUFS"
    )
    if preset.measure == "rms":
        text = f"RMS {db('rms_db')} dB, peak {db('peak_dbfs')} dBFS"
        return text + f", noise floor {db('noise_floor_db')} dB"
    if preset.true_peak:
        return f"{lufs}, true peak {db('true_peak_dbtp')} dBTP"
    return f"{lufs}, peak {db('peak_dbfs')} dBFS"


def within_preset_range(preset: LoudnessPreset, report: LoudnessReport) -> bool:
    """True when the level `preset` is judged by lies within its accepted range (presets
    without a range: always)."""
    if preset.accept_db is None:
        return True
    level = preset_level(preset, report)
    return level is not None and preset.accept_db[0] <= level <= preset.accept_db[1]


def compliance_issues(preset: LoudnessPreset, report: LoudnessReport) -> list[str]:
    """Ways in which a processed scene misses `preset` (empty list: compliant)."""
    issues = []
    level = preset_level(preset, report)
    unit = "dB RMS" if preset.measure == "rms" else "LUFS"
    if level is not None and not within_preset_range(preset, report):
        low, high = preset.accept_db
        issues.append(f"level {level:.1f} {unit} outside {low:g}…{high:g} {unit}")
    peak = report.true_peak_dbtp if preset.true_peak else report.peak_dbfs
    if peak is not None and peak > preset.ceiling_db + 0.01:
        issues.append(f"peak {peak:.1f} dB above the {preset.ceiling_db:g} dB ceiling")
    floor = report.noise_floor_db
    if preset.noise_floor_max_db is not None and floor is not None:
        if floor > preset.noise_floor_max_db:
            issues.append(f"noise floor {floor:.1f} dB above {preset.noise_floor_max_db:g} dB")
        elif floor <= DIGITAL_SILENCE_DB:
            issues.append("gaps are digital silence; add room tone")
    return issues


class PeakLimiter:
    """Look-ahead peak limiter for a stream: no output sample exceeds `ceiling_db` dBFS.

    The gain each sample needs (`ceiling / |x|`, at most 1) is spread by a running minimum over
    ±`window` samples, then smoothed by a running mean of the same width. A mean of values that
    are all at or below a sample's own requirement cannot exceed it, so the ceiling holds
    exactly while gain changes ramp over `2 * window` samples instead of clicking. Output is
    delayed by `2 * window` samples internally; `process` plus a final `flush` return exactly
    as many samples as were put in.
    """

    def __init__(self, ceiling_db: float, window: int = 256, true_peak: bool = False):
        self.ceiling = 10.0 ** (ceiling_db / 20.0)
        self.window = window
        self.true_peak = true_peak
        # Interpolated values can exceed samples by at most this factor: below it, no work.
        self._headroom = _TAP_GAIN_BOUND if true_peak else 1.0
        self.min_gain = 1.0
        self._buffer = np.zeros(2 * window, np.float32)  # silence before the start
        self._pending = 0  # samples at the end of `_buffer` not yet returned

    def process(self, block: np.ndarray) -> np.ndarray:
        """Push `[n]` float32 samples; returns the samples whose look-ahead is complete."""
        context = 2 * self.window
        buffer = np.concatenate([self._buffer, np.asarray(block, np.float32)])
        pending = self._pending + len(block)
        ready = pending - context
        if ready <= 0:
            self._buffer, self._pending = buffer, pending
            return np.zeros(0, np.float32)
        start = buffer.size - pending
        out = buffer[start : start + ready]
        self._buffer = buffer[start + ready - context :]
        self._pending = context
        if float(np.max(np.abs(buffer))) * self._headroom <= self.ceiling:
            return out.copy()  # nothing to limit within reach: unity gain
        gain = self._gain(buffer)[start : start + ready]
        self.min_gain = min(self.min_gain, float(gain.min()))
        return np.clip(out * gain, -self.ceiling, self.ceiling)

    def flush(self) -> np.ndarray:
        """Return the delayed tail (the stream is treated as followed by silence)."""
        pending = self._pending
        out = self.process(np.zeros(2 * self.window, np.float32))
        self._pending = 0
        return out[:pending] if pending else out

    def _gain(self, buffer: np.ndarray) -> np.ndarray:
        magnitude = np.abs(buffer)
        if self.true_peak:
            magnitude = np.maximum(magnitude, interpolated_magnitude(buffer, floor=self.ceiling))
        needed = np.ones_like(magnitude)
        over = magnitude > self.ceiling
        needed[over] = self.ceiling / magnitude[over]
        size = 2 * self.window + 1
        spread = scipy.ndimage.minimum_filter1d(needed, size, mode="nearest")
        return scipy.ndimage.uniform_filter1d(spread, size, mode="nearest")

    @property
    def max_reduction_db(self) -> float:
        """The deepest gain reduction applied so far, in dB (0.0: never engaged)."""
        return -db_from_amplitude(self.min_gain) if self.min_gain < 1.0 else 0.0
