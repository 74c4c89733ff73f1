"""Checks on the audio files a script points at: reference clips and room-tone clips."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_REFERENCE_S = 60.0  # the reference encoder's cap (docs/model.md, reference audio)


@dataclass
class ClipVerdict:
    """What is wrong with one audio file.

    error: why it cannot be used ("does not exist", "is a directory", "is not readable audio",
        "is 75.0 s long ..."), or None. warning: a usable but suspicious clip ("is silent"), or None.
    duration_s: its length in seconds when readable.
    """

    error: str | None = None
    warning: str | None = None
    duration_s: float | None = None


def inspect_clip(path: str | Path, max_s: float | None = MAX_REFERENCE_S, silence: bool = True) -> ClipVerdict:
    """Look at the audio file `path`: exists, is a file, is readable audio (soundfile), is at most
    `max_s` seconds long (None: any length), and (with `silence`) holds a non-zero sample.

    Reads the header for the duration and, for a clip within the limit, its samples (float32, in
    blocks of 65,536 frames) for the silence check. Never raises for a bad file: returns a verdict.
    """
    import soundfile

    path = Path(path)
    if path.is_dir():
        return ClipVerdict(error="is a directory, not an audio file")
    if not path.exists():
        return ClipVerdict(error="does not exist")
    try:
        info = soundfile.info(str(path))
    except (RuntimeError, OSError, ValueError):
        return ClipVerdict(error="is not readable audio")
    duration_s = info.frames / info.samplerate if info.samplerate else 0.0
    if max_s is not None and duration_s > max_s:
        return ClipVerdict(error=f"is {duration_s:.1f} s long; the engine takes at most {max_s:g} s",
                           duration_s=duration_s)
    if silence and _is_silent(path):
        return ClipVerdict(warning="is silent (every sample is zero)", duration_s=duration_s)
    return ClipVerdict(duration_s=duration_s)


def _is_silent(path: Path) -> bool:
    import numpy as np
    import soundfile

    try:
        for block in soundfile.blocks(str(path), blocksize=65536, dtype="float32", always_2d=True):
            if np.any(block != 0):
                return False
    except (RuntimeError, OSError, ValueError):
        return False
    return True
