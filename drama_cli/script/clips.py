"""Checks on the audio files a script points at: reference clips, room-tone clips and sounds."""

from __future__ import annotations

import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from engine.constants import HOP_SAMPLES, SAMPLE_RATE
from engine.ffmpeg import decode_to_wav, mp3_ffmpeg

MAX_REFERENCE_S = 60.0  # the reference encoder's cap (docs/internals/model.md, reference audio)
SOUND_RATES = (8_000, 192_000)  # sample rates a sound may have (resampled to 44,100 Hz)
MIN_LOOP_S = 0.05  # a shorter loop is a buzz, not a bed
MIN_REFERENCE_S = HOP_SAMPLES / SAMPLE_RATE  # one codec frame: a shorter clip encodes to no codes
REAL_RATES = (1_000, 768_000)  # every sample rate audio is recorded at; a header outside is broken
SILENT_PEAK = (
    2.0**-15
)  # one 16-bit step: a clip no louder is silence (anti-phase stereo leaves one)


@dataclass
class ClipVerdict:
    """What is wrong with one audio file.

    error: why it cannot be used ("does not exist", "is a directory", "is not readable audio",
        "is 75.0 s long ..."), or None. warning: a usable but suspicious clip ("is silent"), or None.
    duration_s: its length in seconds when readable. sample_rate: its rate in Hz when readable.
    """

    error: str | None = None
    warning: str | None = None
    duration_s: float | None = None
    sample_rate: int | None = None


def inspect_clip(
    path: str | Path,
    max_s: float | None = MAX_REFERENCE_S,
    silence: bool = True,
    min_s: float = 0.0,
) -> ClipVerdict:
    """Look at the audio file `path`: exists, is a file, is readable audio (soundfile), holds at
    least one sample, every sample finite (no NaN or infinity), is at most `max_s` seconds long
    (None: any length) and at least `min_s` (MIN_REFERENCE_S for a reference clip), and (with
    `silence`) holds a sample louder than `SILENT_PEAK` once its channels are mixed to mono (their
    mean, as the engine and the mixer read it: anti-phase stereo is silent).

    Reads the header for the duration and, for a clip within the limit, its samples (float32, in
    blocks of 65,536 frames). An MP3 is read as the engine reads it (`engine.ffmpeg.mp3_ffmpeg`):
    decoded by ffmpeg, once per process while the file is unchanged, and refused when it ends
    before the length its header gives ("is cut short: the MP3 ends early at 1.2 s ..."). Never raises for a
    bad file: returns a verdict.
    """
    path = Path(path)
    ffmpeg = mp3_ffmpeg(path)
    if ffmpeg is None:
        return _inspect_samples(path, max_s, silence, min_s)
    problem = _file_problem(path)
    if problem is not None:
        return ClipVerdict(error=problem)
    signature = _signature(path)
    key = (signature, max_s, silence, min_s)
    if signature is None or key not in _MP3_VERDICTS:
        with tempfile.TemporaryDirectory() as scratch:
            wav = Path(scratch) / "decoded.wav"
            problem = decode_to_wav(path, ffmpeg, wav)
            verdict = (
                ClipVerdict(error=f"is {problem}")
                if problem is not None
                else _inspect_samples(wav, max_s, silence, min_s)
            )
            _SCANNED.pop(_signature(wav), None)  # the decoded copy is gone once read
        if signature is None:
            return verdict
        _MP3_VERDICTS[key] = verdict
    found = _MP3_VERDICTS[key]
    return ClipVerdict(found.error, found.warning, found.duration_s, found.sample_rate)


_MP3_VERDICTS: dict[tuple, ClipVerdict] = {}


def _inspect_samples(source: Path, max_s: float | None, silence: bool, min_s: float) -> ClipVerdict:
    """`inspect_clip` of the audio file `source` (the file the script names, or an MP3's decoded
    copy), read by soundfile."""
    import soundfile  # lazy: soundfile and numpy, 0.18 s at start-up

    problem = audio_file_problem(source)
    if problem is not None:
        return ClipVerdict(error=problem)
    info = soundfile.info(str(source))
    duration_s = info.frames / info.samplerate
    if max_s is not None and duration_s > max_s:
        return ClipVerdict(
            error=f"is {duration_s:.1f} s long; the engine takes at most {max_s:g} s",
            duration_s=duration_s,
        )
    scan = _scan_samples(source)
    if scan is None:
        return ClipVerdict(error="is not readable audio")
    samples, finite, silent = scan
    if not samples:
        return ClipVerdict(error="holds no audio samples", duration_s=duration_s)
    if not finite:
        return ClipVerdict(
            error="holds non-finite samples (NaN or infinity)", duration_s=duration_s
        )
    if duration_s < min_s:
        return ClipVerdict(
            error=f"is {duration_s:.3f} s long; the engine needs at least {min_s:.3f} s "
            f"(one codec frame)",
            duration_s=duration_s,
        )
    if silence and silent:
        why = (
            "no sample louder than one 16-bit step"
            if info.channels == 1
            else "its channels cancel once mixed to mono, as the engine and the mixer hear it"
        )
        return ClipVerdict(
            warning=f"is silent ({why})", duration_s=duration_s, sample_rate=info.samplerate
        )
    return ClipVerdict(duration_s=duration_s, sample_rate=info.samplerate)


def audio_file_problem(path: str | Path) -> str | None:
    """What keeps `path` from being read as audio, from its header alone ("does not exist", "is
    a directory, not an audio file", "is not a regular file ...", "is not readable audio", a
    sample rate outside REAL_RATES), or None. Never raises, and never opens anything but a
    regular file: a named pipe would block the reader until something writes to it."""
    import soundfile  # lazy: soundfile and numpy, 0.18 s at start-up

    path = Path(path)
    problem = _file_problem(path)
    if problem is not None:
        return problem
    try:
        rate = soundfile.info(str(path)).samplerate
    except (RuntimeError, OSError, ValueError):
        return "is not readable audio"
    low, high = REAL_RATES
    if not low <= rate <= high:
        return f"has a sample rate of {rate} Hz in its header, which is not a real rate ({low:,}..{high:,} Hz)"
    return None


def _file_problem(path: Path) -> str | None:
    """Why `path` is not a regular file to read audio from, or None (`audio_file_problem`)."""
    if path.is_dir():
        return "is a directory, not an audio file"
    try:
        mode = path.stat().st_mode
    except OSError:
        return "does not exist"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a named pipe, socket or device), not an audio file"
    return None


def _signature(path: Path) -> tuple | None:
    """What tells one state of a file from another (path, size, modification time, inode);
    None when it cannot be read."""
    try:
        stat_ = path.stat()
    except OSError:
        return None
    return (str(path.resolve()), stat_.st_size, stat_.st_mtime_ns, stat_.st_ino)


def inspect_sound(path: str | Path, loop: bool) -> ClipVerdict:
    """`inspect_clip` of a scene's sound (any length), and its sample rate within SOUND_RATES;
    a looped sound must last at least MIN_LOOP_S. Never raises for a bad file."""
    verdict = inspect_clip(path, None)
    if verdict.error or verdict.sample_rate is None:
        return verdict
    low, high = SOUND_RATES
    if not low <= verdict.sample_rate <= high:
        verdict.error = f"has a sample rate of {verdict.sample_rate} Hz; use {low}..{high} Hz"
    elif loop and verdict.duration_s < MIN_LOOP_S:
        verdict.error = (
            f"is {verdict.duration_s * 1000:.0f} ms long, too short to loop "
            f"(at least {MIN_LOOP_S * 1000:.0f} ms)"
        )
    return verdict


def _scan_samples(path: Path) -> tuple[int, bool, bool] | None:
    """(sample frames, all samples finite, all samples zero once the channels are mixed to
    mono by their mean) of an audio file; None when its
    samples cannot be read. A file is read once per process while its size, modification time
    and inode stay the same: a command that checks the same clip at several steps (the flags,
    the project's settings, each scene) reads it once."""
    signature = _signature(path)
    if signature is None:
        return None
    if signature not in _SCANNED:
        _SCANNED[signature] = _read_samples(path)
    return _SCANNED[signature]


_SCANNED: dict[tuple, tuple[int, bool, bool] | None] = {}


def _read_samples(path: Path) -> tuple[int, bool, bool] | None:
    # lazy: soundfile and numpy, 0.18 s at start-up
    import numpy as np
    import soundfile

    frames, finite, silent = 0, True, True
    try:
        for block in soundfile.blocks(str(path), blocksize=65536, dtype="float32", always_2d=True):
            frames += block.shape[0]
            finite = finite and bool(np.isfinite(block).all())
            silent = silent and not np.any(
                np.abs(block.mean(axis=1)) > SILENT_PEAK
            )  # as mixed to mono
    except (RuntimeError, OSError, ValueError):
        return None
    return frames, finite, silent
