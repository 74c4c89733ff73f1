"""Scene mixing: timeline, reading takes of any format, room tone, presets, streaming blocks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from drama_cli.errors import UsageError
from drama_cli.mix import timeline as mix
from drama_cli.mix.loudness import measure
from drama_cli.mix.timeline import (
    MixEntry,
    MixSettings,
    mix_scene,
    plan_timeline,
    read_take,
    write_mix,
)
from engine.errors import AudioError

RATE = 44_100
EXACT = dict(head_s=0.0, tail_s=0.0, wav_subtype="FLOAT")


def tone(seconds: float, freq: float = 220.0, amplitude: float = 0.3, rate: int = RATE):
    t = np.arange(int(round(seconds * rate))) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def write(path: Path, audio: np.ndarray, rate: int = RATE, subtype: str = "FLOAT") -> Path:
    sf.write(path, audio, rate, subtype=subtype)
    return path


def entry(path: Path, line: str = "l1", **kwargs) -> MixEntry:
    return MixEntry(
        line,
        kwargs.pop("speaker", "ANNA"),
        kwargs.pop("text", "Hello."),
        path,
        kwargs.pop("take", 1),
        **kwargs,
    )


def test_timeline_gaps_pauses_and_padding(tmp_path):
    a = write(tmp_path / "a.wav", tone(1.0))
    b = write(tmp_path / "b.wav", tone(0.5))
    c = write(tmp_path / "c.wav", tone(0.25))
    settings = MixSettings(gap_s=0.2, head_s=0.1, tail_s=0.3)
    entries = [entry(a, "l1"), entry(b, "l2", pause_after_s=1.0), entry(c, "l3")]
    cues, total = plan_timeline(entries, settings)
    starts = [cue.start_sample for cue in cues]
    assert starts == [4410, 4410 + 44100 + 8820, 4410 + 44100 + 8820 + 22050 + 44100]
    assert [cue.end_sample - cue.start_sample for cue in cues] == [44100, 22050, 11025]
    assert total == cues[-1].end_sample + 13230  # tail only, not the last gap


def test_dual_dialogue_and_negative_pause_overlap(tmp_path):
    a = write(tmp_path / "a.wav", tone(1.0))
    b = write(tmp_path / "b.wav", tone(0.5))
    entries = [
        entry(a, "l1", pause_after_s=-0.25),
        entry(b, "l2"),
        entry(a, "l3", overlaps_previous=True),
    ]
    cues, total = plan_timeline(entries, MixSettings(gap_s=0.5, head_s=0, tail_s=0))
    assert cues[1].start_sample == 44100 - 11025  # cuts into l1's last quarter second
    assert cues[2].start_sample == cues[1].start_sample  # starts with l2
    assert total == cues[2].end_sample


def test_mix_places_each_take_sample_exactly(tmp_path):
    a_audio, b_audio = tone(0.5, 300), tone(0.3, 500, 0.2)
    a = write(tmp_path / "a.wav", a_audio)
    b = write(tmp_path / "b.wav", b_audio)
    result = mix_scene(
        [entry(a, "l1"), entry(b, "l2")], MixSettings(gap_s=0.1, **EXACT), tmp_path / "w"
    )
    out = result.samples()
    assert out.size == result.total_samples == 22050 + 4410 + 13230
    np.testing.assert_array_equal(out[:22050], a_audio)
    assert not np.any(out[22050:26460])  # no room tone asked: a true gap
    np.testing.assert_array_equal(out[26460:], b_audio)


def test_takes_crossing_block_boundaries_mix_exactly(tmp_path, monkeypatch):
    monkeypatch.setattr(mix, "BLOCK_SAMPLES", 10_000)
    audio = tone(1.3, 180)
    path = write(tmp_path / "long.wav", audio)
    settings = MixSettings(gap_s=0.0, **EXACT)
    out = mix_scene([entry(path, "l1"), entry(path, "l2")], settings, tmp_path / "w").samples()
    np.testing.assert_array_equal(out, np.concatenate([audio, audio]))


def test_reads_takes_of_any_rate_width_and_channels(tmp_path):
    mono = tone(1.0, 1000, 0.5, rate=22_050)
    path16 = write(tmp_path / "low.wav", mono, 22_050, "PCM_16")
    audio = read_take(path16)
    assert audio.dtype == np.float32 and audio.size == RATE
    spectrum = np.abs(np.fft.rfft(audio[4410:-4410]))
    assert np.argmax(spectrum) * RATE / (audio.size - 8820) == pytest.approx(1000, abs=2)
    stereo = np.stack([tone(0.5, 440, 0.8), -tone(0.5, 440, 0.4)], axis=1)
    path_st = write(tmp_path / "st.flac", stereo, RATE, "PCM_24")
    np.testing.assert_allclose(read_take(path_st), tone(0.5, 440, 0.2), atol=1e-5)


@pytest.mark.parametrize(
    ("name", "fmt", "subtype"), [("t.mp3", "MP3", "MPEG_LAYER_III"), ("t.ogg", "OGG", "VORBIS")]
)
def test_reads_compressed_takes(tmp_path, name, fmt, subtype):
    if fmt not in sf.available_formats():
        pytest.skip(f"libsndfile without {fmt}")
    path = tmp_path / name
    sf.write(path, tone(1.0, 440, 0.5, rate=48_000), 48_000, format=fmt, subtype=subtype)
    result = mix_scene([entry(path)], MixSettings(**EXACT), tmp_path / "w")
    out = result.samples()
    assert abs(out.size - RATE) < 2500  # codec padding at most
    assert np.sqrt(np.mean(out[4410:-4410] ** 2)) == pytest.approx(0.5 / np.sqrt(2), rel=0.1)


def test_room_tone_fills_gaps_at_its_level(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.5))
    settings = MixSettings(gap_s=1.0, head_s=1.0, tail_s=1.0, room_tone="noise", room_tone_db=-60.0)
    result = mix_scene([entry(a), entry(a, "l2")], settings, tmp_path / "w")
    head = result.samples()[:RATE]
    rms_db = 10 * math.log10(np.mean(head.astype(np.float64) ** 2))
    assert rms_db == pytest.approx(-60.0, abs=0.5)
    assert np.count_nonzero(head == 0) < 50  # never digital silence


def test_room_tone_file_is_looped(tmp_path):
    bed = write(tmp_path / "bed.wav", tone(0.1, 100, 0.01))
    a = write(tmp_path / "a.wav", tone(0.2))
    settings = MixSettings(gap_s=0, head_s=0.35, tail_s=0, room_tone=bed, room_tone_db=-50.0,
                           wav_subtype="FLOAT")
    out = mix_scene([entry(a)], settings, tmp_path / "w").samples()
    loop = tone(0.1, 100, 0.01)
    scaled = loop * (10 ** (-50 / 20) / np.sqrt(np.mean(loop.astype(np.float64) ** 2)))
    np.testing.assert_allclose(out[: 3 * 4410], np.tile(scaled, 3), atol=1e-7)


@pytest.mark.parametrize(
    ("preset", "measure_kind", "target", "ceiling"),
    [("r128", "lufs", -23.0, -1.0), ("podcast", "lufs", -16.0, -1.0), ("acx", "rms", -20.0, -3.0)],
)
def test_presets_reach_target_under_ceiling(tmp_path, preset, measure_kind, target, ceiling):
    rng = np.random.default_rng(4)
    speechy = tone(2.0, 150, 0.05) * (1 + np.sin(np.arange(2 * RATE) / 3000.0)) + rng.normal(
        0, 0.01, 2 * RATE
    )
    speechy[20_000:20_020] = 0.5  # a sharp transient the gain will push over the ceiling
    path = write(tmp_path / "a.wav", speechy.astype(np.float32))
    settings = MixSettings(preset=preset, room_tone="noise")
    result = mix_scene([entry(path), entry(path, "l2")], settings, tmp_path / "w")
    after = measure(result.samples(), true_peak=True)
    level = after.integrated_lufs if measure_kind == "lufs" else after.rms_db
    assert level == pytest.approx(target, abs=0.5)
    peak = after.true_peak_dbtp if preset != "acx" else after.peak_dbfs
    assert peak <= ceiling + 0.05
    assert result.limiter_reduction_db > 0
    assert result.loudness.integrated_lufs == pytest.approx(after.integrated_lufs, abs=0.05)
    assert result.gain_db == pytest.approx(
        target
        - (result.measured.integrated_lufs if measure_kind == "lufs" else result.measured.rms_db)
    )
    assert result.issues == []


def test_level_lost_to_heavy_limiting_is_made_up(tmp_path):
    # Dense full-scale clicks over a quiet tone: the limiter must cut them by many dB, which
    # alone would leave the scene well under the podcast target.
    audio = tone(3.0, 150, 0.1)
    for start in range(0, audio.size - 200, 2205):
        audio[start : start + 200] += np.hanning(200).astype(np.float32) * 0.9
    path = write(tmp_path / "clicks.wav", audio)
    result = mix_scene([entry(path)], MixSettings(preset="podcast", **EXACT), tmp_path / "w")
    after = measure(result.samples(), true_peak=True)
    assert result.limiter_reduction_db > 3.0
    assert after.integrated_lufs == pytest.approx(-16.0, abs=0.5)
    assert after.true_peak_dbtp <= -1.0
    assert result.issues == []


def test_preset_none_leaves_levels_alone(tmp_path):
    audio = tone(1.0, 220, 0.25)
    path = write(tmp_path / "a.wav", audio)
    result = mix_scene([entry(path)], MixSettings(**EXACT), tmp_path / "w")
    assert result.gain_db == 0.0 and result.limiter_reduction_db == 0.0
    np.testing.assert_array_equal(result.samples(), audio)


def test_default_export_is_24_bit_with_all_sidecars(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.5))
    b = write(tmp_path / "b.wav", tone(0.25, 330))
    entries = [
        entry(a, "s1-l1", speaker="ANNA", text="Where\twere you?", take=3),
        entry(b, "s1-l2", speaker="BEN", text="Out.", take=1),
    ]
    result = mix_scene(entries, MixSettings(metadata={"engine": "scratch"}), tmp_path / "work")
    paths = write_mix(result, tmp_path / "scene", ("wav", "flac"))
    assert sorted(paths) == ["cues", "flac", "labels", "srt", "wav"]
    assert sf.info(str(paths["wav"])).subtype == "PCM_24"
    assert sf.info(str(paths["flac"])).frames == result.total_samples
    assert result.audio_path == paths["wav"]
    labels = paths["labels"].read_text().splitlines()
    assert labels == ["0.500000\t1.000000\tANNA: Where were you?", "1.500000\t1.750000\tBEN: Out."]
    assert "00:00:01,500 --> 00:00:01,750\nBEN: Out." in paths["srt"].read_text()
    sheet = json.loads(paths["cues"].read_text())
    assert sheet["engine"] == "scratch" and sheet["preset"] == "none"
    assert sheet["cues"][0] == {
        "line": "s1-l1",
        "speaker": "ANNA",
        "take": 3,
        "start_s": 0.5,
        "end_s": 1.0,
        "text": "Where\twere you?",
        "take_file": "a.wav",
        "take_path": "../a.wav",
    }
    assert not list((tmp_path / "scene").glob(".*"))  # no temporary files left behind
    assert sf.SoundFile(str(paths["wav"])).comment == "engine=scratch"  # labelled in the file


def test_temporary_render_folder_is_cleaned_up(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.3))
    result = mix_scene([entry(a)], MixSettings())
    temp_dir = result.temp_dir
    assert temp_dir is not None and result.audio_path.parent == temp_dir
    paths = write_mix(result, tmp_path / "scene")
    assert not temp_dir.exists() and paths["wav"].exists()


def test_export_without_wav_leaves_no_rendering_behind(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.3))
    result = mix_scene([entry(a)], MixSettings(), tmp_path / "scene")
    paths = write_mix(result, tmp_path / "scene", ("flac",))
    assert sorted(p.name for p in (tmp_path / "scene").iterdir()) == [
        "mix.cues.json",
        "mix.flac",
        "mix.labels.txt",
        "mix.srt",
    ]
    assert result.audio_path == paths["flac"] and result.samples().size == result.total_samples


def test_acx_flags_digital_silence_between_lines(tmp_path):
    a = write(tmp_path / "a.wav", tone(1.0, 200, 0.1))
    silent = mix_scene(
        [entry(a), entry(a, "l2")], MixSettings(preset="acx", gap_s=1.0), tmp_path / "s"
    )
    assert any("digital silence" in issue for issue in silent.issues)
    bed = MixSettings(preset="acx", gap_s=1.0, room_tone="noise")
    assert mix_scene([entry(a), entry(a, "l2")], bed, tmp_path / "b").issues == []


def test_bad_input_gives_clear_errors(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.2))
    with pytest.raises(UsageError, match="nothing to mix"):
        mix_scene([], MixSettings())
    with pytest.raises(UsageError, match="preset"):
        mix_scene([entry(a)], MixSettings(preset="loud"))
    with pytest.raises(UsageError, match="format"):
        mix_scene([entry(a)], MixSettings(formats=("ogg",)))
    with pytest.raises(UsageError, match="finite"):
        mix_scene([entry(a, pause_after_s=float("nan"))], MixSettings())
    with pytest.raises(AudioError, match="missing.wav"):
        mix_scene([entry(tmp_path / "missing.wav")], MixSettings())
    (tmp_path / "junk.wav").write_bytes(b"RIFF....not audio")
    with pytest.raises(AudioError, match="junk.wav"):
        mix_scene([entry(tmp_path / "junk.wav")], MixSettings())
