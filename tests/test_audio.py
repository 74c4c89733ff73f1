"""Reference audio loading (cases A1, A4 of docs/internals/bug-cases.md) and the reference-code cache."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf
import torch

from drama_cli.backends import reference_audio as audio_module
from drama_cli.backends.reference_audio import ReferenceCache, load_audio, resample
from drama_cli.cli import main
from drama_cli.script.clips import inspect_clip
from engine.errors import AudioError
from engine.ffmpeg import ffmpeg_path

RATE = 44_100


def sine(seconds: float, rate: int, freq: float = 440.0, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


@pytest.mark.case("A1")
def test_a1_stereo_int16_reference_is_downmixed_in_float(tmp_path):
    """A1: 1.0 s 16-bit stereo, both channels -32760 for 0.5 s then a 440 Hz sine (16000)."""
    n = RATE
    channel = np.empty(n, dtype=np.int16)
    channel[: n // 2] = -32760
    channel[n // 2 :] = np.round(16000 * np.sin(2 * np.pi * 440 * np.arange(n - n // 2) / RATE))
    stereo = np.stack([channel, channel], axis=1)
    path = tmp_path / "stereo.wav"
    sf.write(path, stereo, RATE, subtype="PCM_16")

    mono = load_audio(path)

    assert mono.dtype == np.float32 and mono.shape == (44_100,)  # 1.000 s, not 2.0 s
    np.testing.assert_allclose(mono[: n // 2], -32760 / 32768, atol=1e-4)
    np.testing.assert_allclose(mono, channel / 32768, atol=1e-6)
    inputs = np.sign(channel.astype(np.float32))
    assert np.array_equal(np.sign(mono), inputs), "no sample changes sign in the downmix"


@pytest.mark.case("A4")
def test_a4a_24_bit_wav_at_48_khz_keeps_its_scale(tmp_path):
    """A4 (a): 48 kHz 24-bit PCM, 1 s sine at 1 kHz, peak -10 dBFS."""
    peak = 10 ** (-10 / 20)
    path = tmp_path / "24bit.wav"
    sf.write(path, sine(1.0, 48_000, 1000.0, peak), 48_000, subtype="PCM_24")
    assert sf.info(path).subtype == "PCM_24"

    mono = load_audio(path)

    assert mono.shape == (44_100,)
    measured = float(np.abs(mono).max())
    assert abs(measured - 0.3162) <= 0.001
    assert abs(20 * np.log10(measured) + 10.0) <= 0.05


@pytest.mark.case("A4")
def test_a4b_float_wav_values_are_kept_as_they_are(tmp_path):
    """A4 (b): a 32-bit float WAV with samples [1.5, -2.0, 0.5] loads as is (no clipping)."""
    path = tmp_path / "float.wav"
    sf.write(path, np.array([1.5, -2.0, 0.5], dtype=np.float32), RATE, subtype="FLOAT")
    assert sf.info(path).subtype == "FLOAT"
    np.testing.assert_array_equal(load_audio(path), np.array([1.5, -2.0, 0.5], dtype=np.float32))


@pytest.mark.parametrize(
    "fmt,subtype,atol",
    [
        ("WAV", "PCM_16", 1e-4),
        ("WAV", "PCM_24", 1e-6),
        ("WAV", "PCM_32", 1e-6),
        ("WAV", "FLOAT", 0.0),
        ("WAV", "DOUBLE", 1e-7),
        ("FLAC", "PCM_16", 1e-4),
        ("FLAC", "PCM_24", 1e-6),
    ],
)
def test_lossless_formats_read_to_the_same_samples(tmp_path, fmt, subtype, atol):
    signal = sine(0.25, RATE)
    path = tmp_path / f"clip.{fmt.lower()}"
    sf.write(path, signal, RATE, format=fmt, subtype=subtype)
    np.testing.assert_allclose(load_audio(path), signal, atol=atol, rtol=0)


def test_ogg_vorbis_is_read(tmp_path):
    signal = sine(0.5, RATE)
    path = tmp_path / "clip.ogg"
    sf.write(path, signal, RATE, format="OGG", subtype="VORBIS")
    loaded = load_audio(path)
    assert abs(loaded.shape[0] - signal.shape[0]) <= 64
    corr = np.corrcoef(loaded[2000:20000], signal[2000:20000])[0, 1]
    assert corr > 0.99


@pytest.mark.skipif(ffmpeg_path() is None, reason="no ffmpeg (system or imageio-ffmpeg)")
def test_mp3_goes_through_ffmpeg_to_the_same_result(tmp_path):
    wav = tmp_path / "clip.wav"
    mp3 = tmp_path / "clip.mp3"
    signal = sine(1.0, 22_050, amplitude=0.4)
    sf.write(wav, np.stack([signal, signal], 1), 22_050, subtype="PCM_16")
    subprocess.run(
        [ffmpeg_path(), "-nostdin", "-v", "error", "-i", str(wav), "-b:a", "192k", str(mp3)],
        check=True,
    )
    loaded = load_audio(mp3)
    reference = load_audio(wav)
    assert loaded.dtype == np.float32 and abs(loaded.shape[0] - 44_100) <= 3000  # encoder padding
    assert abs(float(np.abs(loaded).max()) - 0.4) < 0.03
    lag = int(np.argmax(np.correlate(loaded[:8000], reference[2000:4000], mode="valid"))) - 2000
    shifted = loaded[2000 + lag : 40_000 + lag]
    assert np.corrcoef(shifted, reference[2000:40_000])[0, 1] > 0.99


def test_other_rates_are_resampled_with_soxr(tmp_path):
    path = tmp_path / "16k.wav"
    sf.write(path, sine(1.0, 16_000, 440.0), 16_000, subtype="FLOAT")
    loaded = load_audio(path)
    assert loaded.shape == (44_100,)
    np.testing.assert_allclose(loaded[1000:-1000], sine(1.0, RATE, 440.0)[1000:-1000], atol=2e-3)


def test_resample_keeps_length_ratio_and_identity():
    x = sine(0.5, 24_000)
    assert np.array_equal(resample(x, 24_000, 24_000), x)
    assert resample(x, 24_000, RATE).shape == (22_050,)
    with pytest.raises(AudioError):
        resample(x, 0, RATE)


def test_clip_over_the_limit_is_refused_with_its_length(tmp_path):
    path = tmp_path / "long.wav"
    sf.write(path, np.zeros(int(2.5 * RATE), dtype=np.float32), RATE)
    with pytest.raises(AudioError, match=r"2\.5 s long, over the 2 s limit"):
        load_audio(path, max_seconds=2.0)
    assert load_audio(path, max_seconds=None).shape == (int(2.5 * RATE),)
    assert load_audio(path).shape == (int(2.5 * RATE),)


def test_missing_and_unreadable_files_name_the_file(tmp_path, monkeypatch):
    with pytest.raises(AudioError, match="nothere.wav"):
        load_audio(tmp_path / "nothere.wav")
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"RIFF nonsense " * 10)
    with pytest.raises(AudioError, match="junk.wav: unreadable"):
        load_audio(junk)
    monkeypatch.setattr(audio_module, "ffmpeg_path", lambda: None)
    with pytest.raises(AudioError, match="junk.wav: unreadable"):
        load_audio(junk)


class CountingCodec:
    """Stands in for a Codec: counts encodes; codes [10, ceil(n / 2048)] from the samples."""

    def __init__(self, tag: str = "a"):
        self.calls = 0
        self.config = type("Config", (), {"to_json": lambda self: tag})()
        self.weight = torch.ones(3)

    def state_dict(self):
        return {"w": self.weight}

    def encode(self, samples):
        self.calls += 1
        frames = -(-len(samples) // 2048)
        return torch.arange(10 * frames, dtype=torch.long).view(10, frames)


def test_reference_cache_encodes_each_clip_once_by_content(tmp_path):
    clip = tmp_path / "ref.wav"
    sf.write(clip, sine(0.5, RATE), RATE)
    copy = tmp_path / "same-audio-other-name.wav"
    shutil.copy(clip, copy)
    cache = ReferenceCache(tmp_path / "cache")
    codec = CountingCodec()

    first = cache.get_or_encode(clip, codec)
    second = cache.get_or_encode(copy, codec)
    again = ReferenceCache(tmp_path / "cache").get_or_encode(clip, codec)

    assert codec.calls == 1
    assert first.shape == (10, 11) and first.dtype == torch.int64
    assert torch.equal(first, second) and torch.equal(first, again)
    assert len(list((tmp_path / "cache").glob("*.npy"))) == 1
    assert not list((tmp_path / "cache").glob(".codes-*")), "no temporary files left"


def test_reference_cache_key_changes_with_audio_and_codec(tmp_path):
    clip = tmp_path / "ref.wav"
    sf.write(clip, sine(0.5, RATE), RATE)
    cache = ReferenceCache(tmp_path / "cache")
    key = cache.key(clip, CountingCodec("a"))
    assert cache.key(clip, CountingCodec("b")) != key
    sf.write(clip, sine(0.5, RATE, 300.0), RATE)
    assert cache.key(clip, CountingCodec("a")) != key


def test_damaged_cache_entry_is_encoded_again(tmp_path):
    clip = tmp_path / "ref.wav"
    sf.write(clip, sine(0.2, RATE), RATE)
    cache = ReferenceCache(tmp_path / "cache")
    codec = CountingCodec()
    cache.get_or_encode(clip, codec)
    entry = next((tmp_path / "cache").glob("*.npy"))
    entry.write_bytes(b"garbage")
    assert cache.get_or_encode(clip, codec).shape == (10, 5)
    assert codec.calls == 2


def test_reference_cache_with_a_real_codec(tmp_path):
    from engine.codec.codec import Codec
    from engine.testing.codec import write_random_codec

    codec = Codec.load(write_random_codec(tmp_path / "codec", "tiny", 0))
    clip = tmp_path / "ref.flac"
    sf.write(clip, sine(0.3, 48_000), 48_000, format="FLAC")
    codes = ReferenceCache(tmp_path / "cache").get_or_encode(clip, codec)
    assert torch.equal(codes, codec.encode(load_audio(clip)))
    assert codes.shape == (10, codec.frames_for(int(0.3 * RATE)))
    other = Codec.load(write_random_codec(tmp_path / "other", "tiny", 1))
    cache = ReferenceCache(tmp_path / "cache")
    assert cache.key(clip, other) != cache.key(clip, codec)
    assert cache.key(clip, Codec.load(tmp_path / "codec")) == cache.key(clip, codec)


@pytest.mark.skipif(ffmpeg_path() is None, reason="no ffmpeg (system or imageio-ffmpeg)")
def test_an_mp3_cut_short_is_refused_in_one_line_by_check_and_the_engine_alike(tmp_path, capfd):
    full, cut = tmp_path / "full.mp3", tmp_path / "cut.mp3"
    source = ["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-ar", "44100", "-ac", "1"]
    subprocess.run(
        [ffmpeg_path(), "-nostdin", "-v", "error", *source, "-b:a", "128k", str(full)], check=True
    )
    data = full.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.4)])  # the header still says 3.0 s
    script = tmp_path / "p.yaml"
    script.write_text(
        "cast:\n  A:\n    voice: cut.mp3\n    transcript: Hello.\nlines:\n  - A: Hi.\n"
    )
    capfd.readouterr()
    assert main(["check", str(script)]) == 2
    early = (
        "cut short: the MP3 ends early at 1.2 s (its header says 3.0 s); export or copy it again"
    )
    out, err = capfd.readouterr()
    assert f"{script}:3:12: reference clip 'cut.mp3' of A is {early}" in (out + err).splitlines()
    assert "Warning" not in out + err and "NaN" not in out + err  # no decoder's own lines
    with pytest.raises(AudioError) as info:
        load_audio(cut)
    assert str(info.value) == f"{cut}: {early}"
    assert inspect_clip(full).duration_s == pytest.approx(3.0, abs=0.05)
