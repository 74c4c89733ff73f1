"""A sound file read for the mix as float32 mono at 44,100 Hz, a block at a time
(`SoundStream`), so a long bed (a chapter-long ambience recording) costs a block of memory,
not its length.

A file of at most WHOLE_FILE_S seconds is read whole once (a short loop is read again and
again). A longer file at 44,100 Hz is read from disk where it is asked for; one at another rate
is resampled with soxr as a stream, in order, started again when a loop comes back to its start.
Channels are averaged and integer files scaled by their width, as `timeline.read_take` does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import soundfile as sf
import soxr

from engine.constants import SAMPLE_RATE
from engine.errors import AudioError

WHOLE_FILE_S = 30.0
READ_FRAMES = 65_536  # frames read from a file at a time while resampling


class SoundStream:
    """Samples of one sound file at 44,100 Hz: `size` samples, `read(offset, count)`.

    read_whole: reads a whole file as float32 mono at 44,100 Hz (`timeline.read_take`), for
    short files. Raises AudioError for an unreadable or empty file, and from `read` for
    non-finite samples.
    """

    def __init__(self, path: str, read_whole: Callable[[str], np.ndarray]):
        self.path = path
        try:
            info = sf.info(path)
        except (sf.LibsndfileError, RuntimeError, OSError) as err:
            raise AudioError(f"cannot read sound {path}: {err}") from err
        self.rate = info.samplerate
        self.size = samples_at_mix_rate(info)
        self.whole = read_whole(path) if self.size <= WHOLE_FILE_S * SAMPLE_RATE else None
        if self.whole is not None:
            self.size = self.whole.size
        if self.size == 0:
            raise AudioError(
                f"sound {path} holds no samples (`drama check` lists the script's sounds)"
            )
        self.handle: sf.SoundFile | None = None
        self.resampler = None
        self.buffer = np.zeros(0, np.float32)  # resampled samples from `buffer_start` on
        self.buffer_start = 0
        self.finished = False  # the resampler has been given the file's last frames

    def read(self, offset: int, count: int) -> np.ndarray:
        """float32 `[count]` samples `[offset, offset + count)`, 0 <= offset, offset + count <=
        size (zeros where resampling gives a sample or two fewer than `size`)."""
        if self.whole is not None:
            block = self.whole[offset : offset + count]
        elif self.rate == SAMPLE_RATE:
            self._open().seek(offset)
            block = mono(self.handle.read(count, dtype="float32", always_2d=True))
        else:
            block = self._resampled(offset, count)
        if not np.isfinite(block).all():
            raise AudioError(
                f"sound {self.path} holds non-finite samples "
                "(`drama check` lists the script's sounds)"
            )
        return block

    def close(self) -> None:
        """Close the file (reading again opens it again)."""
        if self.handle is not None:
            self.handle.close()
            self.handle = None

    def _open(self) -> sf.SoundFile:
        if self.handle is None:
            self.handle = sf.SoundFile(self.path)
        return self.handle

    def _resampled(self, offset: int, count: int) -> np.ndarray:
        if self.resampler is None or offset < self.buffer_start:  # first read, or a loop again
            self._open().seek(0)
            self.resampler = soxr.ResampleStream(
                self.rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ"
            )
            self.buffer, self.buffer_start, self.finished = np.zeros(0, np.float32), 0, False
        while self.buffer_start + self.buffer.size < offset + count and not self.finished:
            frames = self.handle.read(READ_FRAMES, dtype="float32", always_2d=True)
            self.finished = frames.shape[0] < READ_FRAMES
            out = self.resampler.resample_chunk(mono(frames), last=self.finished)
            self.buffer = np.concatenate([self.buffer, out.astype(np.float32, copy=False)])
            skip = min(self.buffer.size, max(0, offset - self.buffer_start))
            self.buffer, self.buffer_start = self.buffer[skip:], self.buffer_start + skip
        lo = offset - self.buffer_start
        block = np.zeros(count, np.float32)
        available = self.buffer[lo : lo + count]
        block[: available.size] = available
        return block


def mono(frames: np.ndarray) -> np.ndarray:
    """float32 `[frames, channels]` -> `[frames]`: channels averaged in float (no integer overflow)."""
    return frames.mean(axis=1, dtype=np.float32) if frames.shape[1] > 1 else frames[:, 0]


def samples_at_mix_rate(info) -> int:
    """Length in samples at 44,100 Hz of a file whose header is `info` (`soundfile.info`)."""
    return round(info.frames * SAMPLE_RATE / info.samplerate)
