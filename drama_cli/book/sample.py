"""The retail sample: its start checked against the mixed chapter, and the cut from the
chapter master."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.errors import UsageError

SAMPLE_FADE_S = 1.0  # fade at the end of the retail sample


def check_sample_start(master: Path, chapter, start_s: float) -> None:
    """UsageError when `start_s` (seconds) lies at or after the end of the mixed `chapter`
    whose master WAV is `master`; the message names `--sample-from` and the chapter's length."""
    info = sf.info(str(master))
    length_s = info.frames / info.samplerate
    if int(round(start_s * info.samplerate)) >= info.frames:
        raise UsageError(
            f"--sample-from {spelled_sample_from((chapter.number, start_s))}: chapter "
            f"{chapter.number} ({chapter.title}) lasts {length_s:.1f} s; give a start "
            "before its end (every rendered take is kept for the next run)"
        )


def cut_sample(master: Path, start_s: float, length_s: float, work_dir: Path) -> Path:
    """Cut the retail sample `[start_s, start_s + length_s)` (seconds) from a chapter master
    (clamped to its end) into a WAV under `work_dir`, its last second faded out. The start
    must lie within the chapter: `check_sample_start` first."""
    info = sf.info(str(master))
    start = int(round(start_s * info.samplerate))
    stop = min(info.frames, start + int(round(length_s * info.samplerate)))
    audio, rate = sf.read(str(master), start=start, stop=stop, dtype="float32")
    fade = min(audio.size, int(SAMPLE_FADE_S * rate))
    if fade:
        audio[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    cut = work_dir / "sample.wav"
    sf.write(str(cut), audio, rate, subtype="PCM_24")
    return cut


def spelled_sample_from(sample_from: tuple[int, float]) -> str:
    """(chapter, start s) as the option is written: `2` or `2:30`."""
    number, start_s = sample_from
    return f"{number}:{start_s:g}" if start_s else str(number)
