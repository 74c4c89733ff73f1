"""A short placeholder for a non-verbal cue (`[sighs]`, `[breath]`) in scratch drafts.

Scratch cannot voice a sigh; it lays down 0.8 s of quiet, band-limited breath noise with an
inhale-exhale envelope, so the cue keeps its place and length in the timing draft and the take
passes the signal checks (enough active frames, not white-noise flat, no clipping).
"""

from __future__ import annotations

import numpy as np

from engine.constants import SAMPLE_RATE

BREATH_S = 0.8
BREATH_PEAK = 0.2
_BAND_HZ = (400.0, 1200.0)  # narrow band: breath colour, spectral flatness well under 0.35


def breath_placeholder(seed: int = 0, seconds: float = BREATH_S) -> np.ndarray:
    """Quiet shaped breath noise: float32 mono `[round(seconds * 44100)]` at 44,100 Hz,
    peak BREATH_PEAK (about -14 dBFS). Same seed, same samples."""
    from scipy.signal import (
        butter,
        sosfilt,
    )  # lazy: scipy, 0.8 s at start-up (`--help` lists scratch's options)

    count = int(round(seconds * SAMPLE_RATE))
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(count + SAMPLE_RATE // 10)
    sos = butter(4, _BAND_HZ, btype="bandpass", fs=SAMPLE_RATE, output="sos")
    shaped = sosfilt(sos, noise)[-count:]  # drop the filter's start-up
    position = np.linspace(0.0, 1.0, count)
    envelope = np.sin(np.pi * position) ** 0.5  # swells and fades, mostly near full level
    audio = shaped * envelope
    peak = float(np.max(np.abs(audio))) if count else 0.0
    if peak > 0:
        audio *= BREATH_PEAK / peak
    return audio.astype(np.float32)
