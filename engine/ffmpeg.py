"""Finding ffmpeg: the one on PATH (or its fork avconv), else the binary bundled in the
`imageio-ffmpeg` wheel; and decoding an audio file with it (MP3 is decoded by ffmpeg only,
wherever it is read: reference clips and `drama check` alike)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

# "Duration: 00:00:03.00" on ffmpeg's information about its input (N/A when unknown)
_DURATION = re.compile(r"Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)")
EARLY_END_S = 0.1  # decoded audio this much shorter than its header says (and 1 %) is cut short


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


def mp3_ffmpeg(path: str | Path) -> str | None:
    """The ffmpeg that decodes `path` when it is an MP3 and one is found (`ffmpeg_path`), else
    None (the file is read by soundfile)."""
    return ffmpeg_path() if Path(path).suffix.lower() == ".mp3" else None


def decode_to_wav(path: str | Path, ffmpeg: str, wav: str | Path) -> str | None:
    """Decode the audio file `path` with `ffmpeg` into `wav`, a 32-bit float WAV of the file's
    rate and channels. Returns why it cannot be used, as a phrase without the file's name:
    "unreadable audio (ffmpeg's reason)", or, when the samples end more than EARLY_END_S (and
    1 %) before the length the file's header gives, "cut short: the MP3 ends early at 1.2 s
    (...)"; None when `wav` holds all of it. Never raises for a bad file."""
    command = [ffmpeg, "-nostdin", "-hide_banner", "-y", "-i", str(path), "-vn"]
    command += ["-c:a", "pcm_f32le", "-f", "wav", str(wav)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0 or not Path(wav).exists():
        lines = result.stderr.strip().splitlines()
        return f"unreadable audio ({lines[-1].strip() if lines else 'ffmpeg failed'})"
    header = _DURATION.search(result.stderr)
    if header is None:
        return None
    hours, minutes, seconds = header.groups()
    expected_s = int(hours) * 3600 + int(minutes) * 60 + float(seconds)
    import soundfile  # lazy: soundfile and numpy, 0.18 s at start-up (`drama --help` finds ffmpeg)

    info = soundfile.info(str(wav))
    decoded_s = info.frames / info.samplerate
    if decoded_s < expected_s - max(EARLY_END_S, 0.01 * expected_s):
        kind = Path(path).suffix.lstrip(".").upper() or "file"
        return (
            f"cut short: the {kind} ends early at {decoded_s:.1f} s (its header says "
            f"{expected_s:.1f} s); export or copy it again"
        )
    return None
