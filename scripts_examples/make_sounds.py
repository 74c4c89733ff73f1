"""Write the sounds of the example scene `storm.yaml`, synthesised from seeded noise and tones.

Nothing is recorded or downloaded: rain is filtered noise, the door slam and the thunder are
noise bursts with a decay, the clock is a train of short ticks and the sting is a decaying
chord. The same seed always writes the same files (22,050 Hz 16-bit mono FLAC; the mix
resamples them). Existing files are overwritten.

    python scripts_examples/make_sounds.py [FOLDER]     # default: scripts_examples/sounds
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import soundfile as sf

RATE = 22_050
SEED = 7


def smoothed(noise: np.ndarray, width: int) -> np.ndarray:
    """`noise` through a moving average of `width` samples (a gentle low-pass)."""
    return np.convolve(noise, np.ones(width) / width, mode="same")


def decay(seconds: float, time_constant_s: float) -> np.ndarray:
    return np.exp(-np.arange(int(seconds * RATE)) / (time_constant_s * RATE))


def rain(rng: np.random.Generator) -> np.ndarray:
    """Two seconds of steady rain that loops without a click (its ends cross-faded)."""
    noise = rng.standard_normal(int(2.2 * RATE))
    hiss = noise - smoothed(noise, 8)  # keep the highs
    fade = int(0.2 * RATE)
    body = hiss[: int(2.0 * RATE)].copy()
    ramp = np.linspace(0.0, 1.0, fade)
    body[:fade] = body[:fade] * ramp + hiss[-fade:] * (1 - ramp)
    return 0.08 * body / np.abs(body).max()


def door_slam(rng: np.random.Generator) -> np.ndarray:
    thud = smoothed(rng.standard_normal(int(0.6 * RATE)), 40) * decay(0.6, 0.08)
    return 0.9 * thud / np.abs(thud).max()


def thunder(rng: np.random.Generator) -> np.ndarray:
    rumble = smoothed(rng.standard_normal(int(3.0 * RATE)), 200)
    swell = np.minimum(1.0, np.arange(rumble.size) / (0.3 * RATE)) * decay(3.0, 0.9)
    rumble *= swell
    return 0.8 * rumble / np.abs(rumble).max()


def clock(rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(int(2.0 * RATE))
    tick = rng.standard_normal(int(0.01 * RATE)) * decay(0.01, 0.002)
    for second in (0.0, 0.5, 1.0, 1.5):
        start = int(second * RATE)
        out[start : start + tick.size] += tick
    return 0.5 * out / np.abs(out).max()


def sting(rng: np.random.Generator) -> np.ndarray:
    t = np.arange(int(2.0 * RATE)) / RATE
    chord = sum(np.sin(2 * np.pi * f * t) for f in (220.0, 261.63, 329.63, 440.0))
    return 0.5 * chord * decay(2.0, 0.6) / 4


SOUNDS = {
    "rain.flac": rain,
    "door-slam.flac": door_slam,
    "thunder.flac": thunder,
    "clock.flac": clock,
    "sting.flac": sting,
}


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    for name, make in SOUNDS.items():
        sf.write(str(folder / name), make(rng).astype(np.float32), RATE, subtype="PCM_16")
        print(folder / name)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "sounds")
