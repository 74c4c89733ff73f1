"""Reference audio in: any file -> float32 mono at 44,100 Hz, and a cache of its codec codes.

Reading (docs/internals/model.md §4.5, docs/internals/codec.md §3.2, cases A1 and A4): soundfile reads WAV
(16/24/32-bit integer and float), FLAC, OGG and the other libsndfile formats, scaled to
float by the file's own bit depth. MP3, and anything soundfile cannot read, goes through
ffmpeg (`engine.ffmpeg`: the system one or imageio-ffmpeg's) into a float WAV read the same way. Channels
are averaged in float (never in int16); float values are kept as they are (no clipping);
other rates are resampled with soxr.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr
import torch

from engine import AudioError
from engine.constants import NUM_CODEBOOKS, SAMPLE_RATE
from engine.ffmpeg import decode_to_wav, ffmpeg_path, mp3_ffmpeg
from engine.files import atomic_path, file_sha256

DEFAULT_MAX_SECONDS = 60.0
_CACHE_VERSION = "ref-v1"


def load_audio(path: str | Path, max_seconds: float | None = DEFAULT_MAX_SECONDS) -> np.ndarray:
    """Read an audio file as mono float32 samples `[n]` at 44,100 Hz.

    max_seconds: refuse longer clips (None: no limit). Raises AudioError naming the file
    when it is missing or unreadable, and giving the clip's length and the limit when it
    is too long.
    """
    path = Path(path)
    if not path.is_file():
        raise AudioError(f"{path}: audio file not found")
    samples, rate = _read(path, max_seconds)
    _check_length(path, samples.shape[0] / rate, max_seconds)
    mono = samples.mean(axis=1, dtype=np.float64).astype(np.float32)
    return resample(mono, rate, SAMPLE_RATE)


def resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """Resample float mono `samples [n]` from `from_rate` to `to_rate` Hz with soxr (HQ).

    Returns float32 `[round(n * to_rate / from_rate)]`; the input itself when the rates match.
    Raises AudioError for a non-positive rate.
    """
    if from_rate <= 0 or to_rate <= 0:
        raise AudioError(f"sample rates must be positive, got {from_rate} -> {to_rate}")
    samples = np.asarray(samples, dtype=np.float32)
    if from_rate == to_rate or samples.size == 0:
        return samples
    return soxr.resample(samples, from_rate, to_rate, quality="HQ").astype(np.float32, copy=False)


def _read(path: Path, max_seconds: float | None) -> tuple[np.ndarray, int]:
    """Samples `[n, channels]` float32 and the file's rate."""
    if mp3 := mp3_ffmpeg(path):
        return _read_with_ffmpeg(path, mp3, max_seconds)
    ffmpeg = ffmpeg_path()
    try:
        return _read_with_soundfile(path, path, max_seconds)
    except sf.LibsndfileError as exc:
        if ffmpeg:
            return _read_with_ffmpeg(path, ffmpeg, max_seconds)
        raise AudioError(f"{path}: unreadable audio ({exc}); installing ffmpeg may help") from exc


def _read_with_soundfile(
    source: Path, shown: Path, max_seconds: float | None
) -> tuple[np.ndarray, int]:
    with sf.SoundFile(source) as handle:
        if handle.frames > 0:  # a known length: refuse before reading the samples
            _check_length(shown, handle.frames / handle.samplerate, max_seconds)
        samples = handle.read(dtype="float32", always_2d=True)
        return samples, handle.samplerate


def _read_with_ffmpeg(path: Path, ffmpeg: str, max_seconds: float | None) -> tuple[np.ndarray, int]:
    """Decode with ffmpeg into a 32-bit float WAV (rate and channels kept; `decode_to_wav`:
    refused when it ends early), then soundfile."""
    with tempfile.TemporaryDirectory() as scratch:
        wav = Path(scratch) / "decoded.wav"
        problem = decode_to_wav(path, ffmpeg, wav)
        if problem is not None:
            raise AudioError(f"{path}: {problem}")
        try:
            return _read_with_soundfile(wav, path, max_seconds)
        except sf.LibsndfileError as exc:
            raise AudioError(f"{path}: unreadable audio ({exc})") from exc


def _check_length(path: Path, seconds: float, max_seconds: float | None) -> None:
    if max_seconds is not None and seconds > max_seconds:
        raise AudioError(
            f"{path}: clip is {seconds:.1f} s long, over the {max_seconds:g} s limit "
            "for reference audio; trim it"
        )


class ReferenceCache:
    """Codec codes of reference clips, stored as `<folder>/<key>.npy` (int64 `[10, T]`).

    The key hashes the audio file's bytes, the codec's fingerprint and the loading rules,
    so a clip is encoded once per project however it is named, and again only when the
    file or the codec changes. Writes are atomic (temporary file, then rename).
    """

    def __init__(self, folder: str | Path, max_seconds: float | None = DEFAULT_MAX_SECONDS):
        self.folder = Path(folder)
        self.max_seconds = max_seconds

    def key(self, path: str | Path, codec) -> str:
        """The cache key of clip `path` under `codec` (hex sha256)."""
        digest = hashlib.sha256(_CACHE_VERSION.encode())
        digest.update(file_sha256(Path(path)).encode())
        digest.update(codec_fingerprint(codec).encode())
        return digest.hexdigest()

    def get_or_encode(self, path: str | Path, codec) -> torch.Tensor:
        """Codes `[10, T]` int64 of the clip at `path`: from the cache, else encoded and stored.

        Raises AudioError when the clip cannot be read or is over `max_seconds`.
        """
        if not Path(path).is_file():
            raise AudioError(f"{path}: audio file not found")
        entry = self.folder / f"{self.key(path, codec)}.npy"
        cached = _read_codes(entry)
        if cached is not None:
            return cached
        codes = codec.encode(load_audio(path, self.max_seconds))
        self._store(entry, codes.cpu().numpy().astype(np.int64))
        return codes

    def _store(self, entry: Path, codes: np.ndarray) -> None:
        with atomic_path(entry) as temp, open(temp, "wb") as out:
            np.save(out, codes)


def codec_fingerprint(codec) -> str:
    """A short identity of a codec: its config and the first and last values of each weight
    tensor, hashed (computed once per codec object)."""
    cached = getattr(codec, "_fingerprint", None)
    if cached:
        return cached
    digest = hashlib.sha256(codec.config.to_json().encode())
    for name, tensor in codec.state_dict().items():
        flat = tensor.detach().reshape(-1)
        sample = torch.cat([flat[:512], flat[-512:]]).float().cpu().numpy()
        digest.update(name.encode())
        digest.update(sample.tobytes())
    codec._fingerprint = digest.hexdigest()[:16]
    return codec._fingerprint


def _read_codes(entry: Path) -> torch.Tensor | None:
    """Cached codes, or None when absent or damaged (then they are encoded again)."""
    if not entry.exists():
        return None
    try:
        codes = np.load(entry, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if codes.ndim != 2 or codes.shape[0] != NUM_CODEBOOKS or codes.dtype != np.int64:
        return None
    return torch.from_numpy(codes)
