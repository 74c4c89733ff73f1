"""Splicing an edited take: the source's samples before the span, the generated middle, and the
source's samples after it, joined with 5-20 ms crossfades, so that audio outside
[start - 20 ms, end + 20 ms] is sample-identical to the source take (case M6); and the check for
a new long pause inside the middle.

Audio is float32 mono `[samples]` at 44,100 Hz.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from drama_cli.edit.plan import FrameSpan
from drama_cli.errors import RenderError
from engine.constants import SAMPLE_RATE

FADE_S = 0.010


MIN_FADE_S = 0.005


MAX_FADE_S = 0.020


GUARD_S = 0.020  # audio further than this outside the span is never touched


SILENCE_FLAG_S = 0.400  # case M6: a longer new pause inside the middle flags the edit


SILENCE_WINDOW_S = 0.010


SILENCE_BELOW_PEAK_DB = 40.0


SILENCE_FLOOR = 1e-4  # about -80 dBFS: absolute floor for "silent" windows


@dataclass(frozen=True)
class Generated:
    """What a backend produced for an infill: `audio` float32 `[samples]` in which
    `[middle_start, middle_end)` is the new middle. Samples before/after the middle, when
    present, are the decoder's continuation of the prefix/suffix (decoded with the same codes
    as context) and are used only inside the crossfades."""

    audio: np.ndarray
    middle_start: int
    middle_end: int
    codes: np.ndarray | None = None  # the middle's codes [10, M] when known


@dataclass(frozen=True)
class SpliceResult:
    """A spliced take: `audio` float32 `[samples]`; the new middle at
    `[middle_start, middle_end)` of it; the crossfade lengths in samples (0 where there is no
    join: the span touches the take's start or end); the longest silent run inside the middle
    (seconds) and whether it flags the edit (> 400 ms and longer than the source span's own)."""

    audio: np.ndarray
    middle_start: int
    middle_end: int
    head_fade: int
    tail_fade: int
    longest_silence_s: float
    flagged: bool


def _linear(n: int) -> tuple[np.ndarray, np.ndarray]:
    ramp = (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)
    return 1.0 - ramp, ramp


def _equal_power(n: int) -> tuple[np.ndarray, np.ndarray]:
    ramp = (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)
    return np.cos(0.5 * np.pi * ramp), np.sin(0.5 * np.pi * ramp)


def _fade(out_from: np.ndarray, in_to: np.ndarray, curve: Callable) -> np.ndarray:
    down, up = curve(len(out_from))
    return (out_from * down + in_to * up).astype(np.float32)


def splice(
    source: np.ndarray, span: FrameSpan, generated: Generated, fade_s: float = FADE_S
) -> SpliceResult:
    """Join the source take's samples before the span, the generated middle and the source's
    samples after the span.

    Each join is a crossfade of `fade_s` (clamped to 5-20 ms). Where the backend decoded the
    middle with the prefix/suffix as context (samples around the middle in `generated`), the
    fade runs just outside the span between two continuations of the same audio (linear);
    otherwise it runs just inside the span between the source and the middle (equal power,
    the two are unrelated). Either way audio outside [start - 20 ms, end + 20 ms] is
    sample-identical to the source (positions after the span shift by the change in length).
    Raises RenderError on an empty middle or a middle range outside `generated.audio`.
    """
    fade = int(round(min(max(fade_s, MIN_FADE_S), MAX_FADE_S) * SAMPLE_RATE))
    src = np.asarray(source, dtype=np.float32)
    gen = np.asarray(generated.audio, dtype=np.float32)
    ms, me = generated.middle_start, generated.middle_end
    if not 0 <= ms < me <= len(gen):
        raise RenderError(f"infill produced no usable middle ({ms}:{me} of {len(gen)} samples)")
    a, b = span.start_sample, span.end_sample
    middle = gen[ms:me].copy()
    head_fade = tail_fade = 0
    head = src[:a]
    if a > 0:
        if ms >= fade and a >= fade:  # fade before the span, into the decoder's continuation
            head_fade = fade
            head = np.concatenate(
                [src[: a - fade], _fade(src[a - fade : a], gen[ms - fade : ms], _linear)]
            )
        else:  # fade inside the span from the old audio into the middle
            head_fade = min(fade, b - a, len(middle) // 2)
            middle[:head_fade] = _fade(src[a : a + head_fade], middle[:head_fade], _equal_power)
    tail = src[b:]
    if b < len(src):
        if len(gen) - me >= fade and len(src) - b >= fade:
            tail_fade = fade
            tail = np.concatenate(
                [_fade(gen[me : me + fade], src[b : b + fade], _linear), src[b + fade :]]
            )
        else:
            tail_fade = min(fade, b - a - head_fade, len(middle) - head_fade)
            tail_fade = max(tail_fade, 0)
            if tail_fade:
                middle[-tail_fade:] = _fade(
                    middle[-tail_fade:], src[b - tail_fade : b], _equal_power
                )
    audio = np.concatenate([head, middle, tail]).astype(np.float32)
    longest = longest_silence_s(middle, src)
    flagged = longest > SILENCE_FLAG_S and longest > longest_silence_s(src[a:b], src) + 0.05
    return SpliceResult(
        audio, len(head), len(head) + len(middle), head_fade, tail_fade, longest, flagged
    )


def longest_silence_s(audio: np.ndarray, reference: np.ndarray | None = None) -> float:
    """The longest run of silent 10 ms windows in `audio`, in seconds. A window is silent when
    its RMS is more than 40 dB below the loudest window of `reference` (default: `audio`)
    or below about -80 dBFS."""
    win = int(SILENCE_WINDOW_S * SAMPLE_RATE)
    ref = audio if reference is None else reference

    def window_rms(x: np.ndarray) -> np.ndarray:
        n = len(x) // win
        if n == 0:
            return np.zeros(0)
        frames = np.asarray(x[: n * win], dtype=np.float64).reshape(n, win)
        return np.sqrt(np.mean(frames**2, axis=1))

    ref_rms = window_rms(ref)
    peak = float(ref_rms.max()) if len(ref_rms) else 0.0
    threshold = max(SILENCE_FLOOR, peak * 10 ** (-SILENCE_BELOW_PEAK_DB / 20))
    silent = window_rms(audio) < threshold
    best = run = 0
    for flag in silent:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best * win / SAMPLE_RATE
