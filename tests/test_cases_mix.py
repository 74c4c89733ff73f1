"""Public bug cases A2, A4 (export side), A5 and A7 from docs/internals/bug-cases.md."""

from __future__ import annotations

import math
import os
import struct
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from drama_cli.errors import RenderError
from drama_cli.mix import export
from drama_cli.mix.loudness import get_preset, measure, preset_gain_db
from drama_cli.mix.timeline import (
    MixEntry,
    MixSettings,
    mix_scene,
    read_take,
    write_mix,
)

RATE = 44_100
BARE = dict(head_s=0.0, tail_s=0.0, gap_s=0.0)


def entry(path: Path, line: str, **kwargs) -> MixEntry:
    return MixEntry(line, "ANNA", "Line.", path, 1, **kwargs)


def pcm16_samples(path: Path) -> np.ndarray:
    assert sf.info(str(path)).subtype == "PCM_16"
    return sf.read(str(path), dtype="int16")[0]


# A2: mixing overlaps: no int16 wrap-around, no clipping at each step.


def test_a2a_int16_overlap_clips_once_never_wraps(tmp_path):
    loud = np.full(RATE // 2, 30000, np.int16)
    x = tmp_path / "x.wav"
    y = tmp_path / "y.wav"
    sf.write(x, loud, RATE, subtype="PCM_16")
    sf.write(y, loud, RATE, subtype="PCM_16")
    settings = MixSettings(wav_subtype="PCM_16", **BARE)
    result = mix_scene([entry(x, "l1"), entry(y, "l2", overlaps_previous=True)], settings, tmp_path)
    out = pcm16_samples(result.audio_path)
    assert out.size == RATE // 2
    assert out.min() >= 0  # int16 wrap would give −5536
    assert out.max() <= 32767 and np.all(out[1000:-1000] > 30000)


def test_a2b_float_gains_sum_before_the_single_limit(tmp_path):
    x = tmp_path / "x.wav"
    y = tmp_path / "y.wav"
    sf.write(x, np.full(RATE // 2, 0.9, np.float32), RATE, subtype="FLOAT")
    sf.write(y, np.full(RATE // 2, -0.9, np.float32), RATE, subtype="FLOAT")
    entries = [entry(x, "l1", gain_db=20 * math.log10(2.0)), entry(y, "l2", overlaps_previous=True)]
    result = mix_scene(entries, MixSettings(wav_subtype="FLOAT", **BARE), tmp_path)
    out = result.samples()
    np.testing.assert_allclose(out, 0.9, atol=1e-3)  # per-step saturation would give 0.1
    assert result.limiter_reduction_db == 0.0


# A4: 24-bit and float WAV scaling; float above 1.0 never wraps on 16-bit export.


def test_a4a_24_bit_48k_take_reads_at_true_scale(tmp_path):
    t = np.arange(48_000) / 48_000
    path = tmp_path / "ref24.wav"
    sf.write(path, 0.31623 * np.sin(2 * np.pi * 1000 * t), 48_000, subtype="PCM_24")
    audio = read_take(path)
    assert audio.size == RATE
    assert np.max(np.abs(audio[100:-100])) == pytest.approx(0.3162, abs=0.001)
    assert 20 * math.log10(np.max(np.abs(audio[100:-100]))) == pytest.approx(-10.0, abs=0.05)


def test_a4b_float_beyond_full_scale_is_kept_then_limited_on_16_bit(tmp_path):
    path = tmp_path / "hot.wav"
    sf.write(path, np.array([1.5, -2.0, 0.5], np.float32), RATE, subtype="FLOAT")
    np.testing.assert_array_equal(read_take(path), [1.5, -2.0, 0.5])  # loaded as is

    result = mix_scene(
        [entry(path, "l1")], MixSettings(wav_subtype="PCM_16", **BARE), tmp_path / "w"
    )
    written = pcm16_samples(result.audio_path)
    assert written[0] > 0 and written[1] < 0  # 1.5 never wraps to −16386
    assert sf.info(str(result.audio_path)).subtype == "PCM_16"

    kept = mix_scene([entry(path, "l1")], MixSettings(wav_subtype="FLOAT", **BARE), tmp_path / "f")
    assert sf.info(str(kept.audio_path)).subtype == "FLOAT"  # header says FLOAT was kept

    raw = export.write_wav(tmp_path / "direct.wav", np.array([1.5, -2.0, 0.5]), RATE, "PCM_16")
    data = raw.read_bytes()
    assert struct.unpack("<3h", data[data.index(b"data") + 8 :][:6])[0] == 32767


# A5: loudness normalisation on short and silent takes.


def tone(seconds: float) -> np.ndarray:
    t = np.arange(int(round(seconds * RATE))) / RATE
    return (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def test_a5_gains_are_finite_and_silence_stays_silent():
    r128 = get_preset("r128")
    short, silent, long = (
        measure(tone(0.30)),
        measure(np.zeros(RATE, np.float32)),
        measure(tone(3.0)),
    )
    short_gain, silent_gain, long_gain = (preset_gain_db(r128, r) for r in (short, silent, long))
    assert math.isfinite(short_gain) and silent_gain == 0.0
    assert abs(short_gain - long_gain) < 3.0
    assert short.integrated_lufs == pytest.approx(long.integrated_lufs, abs=3.0)


@pytest.mark.parametrize("preset", ["r128", "acx", "podcast"])
def test_a5_scene_mixes_of_short_and_silent_takes(tmp_path, preset):
    clips = {"short": tone(0.30), "silent": np.zeros(RATE, np.float32), "long": tone(3.0)}
    results = {}
    for name, audio in clips.items():
        path = tmp_path / f"{name}.wav"
        sf.write(path, audio, RATE, subtype="FLOAT")
        settings = MixSettings(preset=preset, wav_subtype="FLOAT", **BARE)
        results[name] = mix_scene([entry(path, name)], settings, tmp_path / name)
    for result in results.values():
        out = result.samples()
        assert np.all(np.isfinite(out)) and math.isfinite(result.gain_db)
    assert results["silent"].gain_db == 0.0
    assert not np.any(results["silent"].samples())
    assert abs(results["short"].gain_db - results["long"].gain_db) < 3.0
    short_level = measure(results["short"].samples()).integrated_lufs
    long_level = measure(results["long"].samples()).integrated_lufs
    assert abs(short_level - long_level) < 3.0


# A7: MP3 without an encoder: fail before rendering, never an empty or WAV-content .mp3.


@pytest.fixture
def no_encoder(tmp_path, monkeypatch):
    """A PATH without ffmpeg/avconv/lame and no importable imageio-ffmpeg."""
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)


def test_a7_require_encoder_fails_early_with_advice(no_encoder):
    with pytest.raises(RenderError) as raised:
        export.require_encoder("mp3")
    message = str(raised.value)
    assert "ffmpeg" in message and "--format wav" in message and "\n" not in message
    assert raised.value.exit_code != 0
    assert export.require_encoder("wav") is None
    with pytest.raises(RenderError, match="ffmpeg"):
        export.require_encoder(".mp3")  # a format named with its dot


def test_a7_write_mix_leaves_no_mp3_and_keeps_the_render(tmp_path, no_encoder):
    take = tmp_path / "take-001.wav"
    sf.write(take, tone(0.5), RATE)
    result = mix_scene([entry(take, "l1")], MixSettings(), tmp_path / "work")
    with pytest.raises(RenderError, match="mp3"):
        write_mix(result, tmp_path / "scene", ("wav", "mp3"))
    assert not (tmp_path / "scene" / "mix.mp3").exists()
    assert take.exists() and result.audio_path.exists()  # nothing rendered is lost


@pytest.mark.parametrize("behaviour", ["copies-wav", "writes-nothing"])
def test_a7_bad_encoder_output_is_never_kept(tmp_path, monkeypatch, behaviour):
    fake = tmp_path / "bin" / "ffmpeg"
    fake.parent.mkdir()
    action = 'cp "$in" "$out"' if behaviour == "copies-wav" else ': > "$out"'
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$2" = "-encoders" ]; then echo " A..... libmp3lame"; exit 0; fi\n'
        'while [ $# -gt 1 ]; do [ "$1" = "-i" ] && in="$2"; shift; done; out="$1"\n'
        f"{action}\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent) + os.pathsep + os.environ["PATH"])
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    export._encodes_mp3.cache_clear()
    wav = export.write_wav(tmp_path / "mix-src.wav", tone(0.2), RATE, "PCM_16")
    with pytest.raises(RenderError, match="no valid MP3"):
        export.encode_mp3(wav, tmp_path / "out" / "mix.mp3")
    assert not (tmp_path / "out" / "mix.mp3").exists()
    assert not [p for p in (tmp_path / "out").iterdir()]


def test_a7_bundled_encoder_writes_a_real_mp3(tmp_path):
    if export.find_mp3_encoder() is None:
        pytest.skip("no MP3 encoder available on this machine")
    take = tmp_path / "take-001.wav"
    sf.write(take, tone(1.0), RATE)
    result = mix_scene([entry(take, "l1")], MixSettings(), tmp_path / "work")
    paths = write_mix(result, tmp_path / "scene", ("mp3",))
    data = paths["mp3"].read_bytes()
    assert len(data) > 1000 and export.is_mp3(paths["mp3"]) and not data.startswith(b"RIFF")
