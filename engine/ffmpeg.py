"""Finding ffmpeg: the one on PATH (or its fork avconv), else the binary bundled in the
`imageio-ffmpeg` wheel."""

from __future__ import annotations

import shutil


def ffmpeg_candidates() -> list[str]:
    """Executables that may serve as ffmpeg, best first: `ffmpeg` and `avconv` on PATH, then
    imageio-ffmpeg's bundled binary; those that are missing are left out."""
    found = [shutil.which("ffmpeg"), shutil.which("avconv"), _bundled_ffmpeg()]
    return [exe for exe in found if exe]


def ffmpeg_path() -> str | None:
    """The first of `ffmpeg_candidates`, or None when there is none."""
    return next(iter(ffmpeg_candidates()), None)


def _bundled_ffmpeg() -> str | None:
    try:
        import imageio_ffmpeg  # optional: imageio-ffmpeg (without it, an ffmpeg found elsewhere)
    except ImportError:
        return None
    try:
        return imageio_ffmpeg.get_ffmpeg_exe()
    except (RuntimeError, OSError):
        return None
