"""Streaming loudness meter against pyloudnorm, fallbacks, true peak, presets and the limiter;
the level a render reports per preset, and a preset's gain held across one-line rebuilds."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf
from fakes import (
    FakeBackend,
    boathouse_script,
    fake_render,
    help_text,
    margot_scene,
    mix_segments,
    voice,
    write_script,
)

from drama_cli.cli import main
from drama_cli.errors import UsageError
from drama_cli.mix.loudness import (
    FLOOR_DB,
    MAX_BOOST_DB,
    LoudnessMeter,
    PeakLimiter,
    compliance_issues,
    measure,
    preset_gain_db,
)
from drama_cli.mix.presets import get_preset

RATE = 44_100


def modulated_noise(seconds: float, seed: int = 0) -> np.ndarray:
    """Noise with a slow level swing, so the relative gate has something to remove."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    envelope = 0.02 + 0.3 * np.abs(np.sin(np.arange(n) / 9000.0))
    return (rng.standard_normal(n) * envelope).astype(np.float32)


def tone(seconds: float, freq: float = 220.0, amplitude: float = 0.3, phase: float = 0.0):
    t = np.arange(int(round(seconds * RATE))) / RATE
    return (amplitude * np.sin(2 * np.pi * freq * t + phase)).astype(np.float32)


@pytest.mark.parametrize("seconds", [0.4, 0.47, 1.234, 3.0, 6.05])
def test_streaming_meter_matches_pyloudnorm(seconds):
    audio = modulated_noise(seconds)
    expected = pyloudnorm.Meter(RATE).integrated_loudness(audio.astype(np.float64))
    meter = LoudnessMeter(RATE)
    for start in range(0, audio.size, 7919):  # a block size unrelated to the 100 ms steps
        meter.feed(audio[start : start + 7919])
    assert meter.report().integrated_lufs == pytest.approx(expected, abs=1e-6)


def test_gating_drops_silence_like_pyloudnorm():
    audio = np.concatenate([tone(2.0, amplitude=0.5), np.zeros(3 * RATE, np.float32), tone(1.0)])
    expected = pyloudnorm.Meter(RATE).integrated_loudness(audio.astype(np.float64))
    assert measure(audio).integrated_lufs == pytest.approx(expected, abs=1e-6)


def test_short_audio_falls_back_to_ungated_level():
    short = measure(tone(0.30))
    long = measure(tone(3.0))
    assert short.integrated_lufs is not None and math.isfinite(short.integrated_lufs)
    assert short.integrated_lufs == pytest.approx(long.integrated_lufs, abs=0.5)


def test_silence_is_unmeasurable_not_infinite():
    report = measure(np.zeros(RATE, np.float32))
    assert report.integrated_lufs is None
    assert report.rms_db == FLOOR_DB and report.peak_dbfs == FLOOR_DB
    assert preset_gain_db(get_preset("r128"), report) == 0.0
    assert preset_gain_db(get_preset("acx"), report) == 0.0


def test_empty_input_reports_without_error():
    report = LoudnessMeter(RATE, true_peak=True).report()
    assert report.duration_s == 0.0 and report.integrated_lufs is None


def test_rms_peak_and_noise_floor():
    quiet = np.random.default_rng(1).standard_normal(RATE).astype(np.float32) * 0.001  # −60 dB
    audio = np.concatenate([tone(2.0, amplitude=0.5), quiet])
    report = measure(audio)
    assert report.peak_dbfs == pytest.approx(20 * math.log10(0.5), abs=0.01)
    expected_rms = 10 * math.log10((0.125 * 2 + 1e-6) / 3)
    assert report.rms_db == pytest.approx(expected_rms, abs=0.05)
    assert report.noise_floor_db == pytest.approx(-60.0, abs=0.5)


def test_true_peak_finds_peaks_between_samples():
    # A quarter-rate sine sampled 45° off its crests: samples reach only 0.5·cos(45°).
    audio = tone(1.0, freq=RATE / 4, amplitude=0.5, phase=math.pi / 4)
    report = measure(audio, true_peak=True)
    assert report.peak_dbfs == pytest.approx(20 * math.log10(0.5 * math.cos(math.pi / 4)), abs=0.05)
    assert report.true_peak_dbtp == pytest.approx(20 * math.log10(0.5), abs=0.2)


def test_true_peak_streaming_equals_one_shot():
    audio = modulated_noise(4.0, seed=3)
    meter = LoudnessMeter(RATE, true_peak=True)
    for start in range(0, audio.size, 10_007):
        meter.feed(audio[start : start + 10_007])
    whole = measure(audio, true_peak=True)
    assert meter.report().true_peak_dbtp == pytest.approx(whole.true_peak_dbtp, abs=1e-4)


def test_preset_gains():
    report = measure(tone(3.0))
    lufs = report.integrated_lufs
    assert preset_gain_db(get_preset("r128"), report) == pytest.approx(-23.0 - lufs)
    assert preset_gain_db(get_preset("podcast"), report) == pytest.approx(-16.0 - lufs)
    assert preset_gain_db(get_preset("acx"), report) == pytest.approx(-20.0 - report.rms_db)
    assert preset_gain_db(get_preset("none"), report) == 0.0
    whisper = measure(tone(3.0, amplitude=0.003))  # about −54 LUFS
    assert preset_gain_db(get_preset("podcast"), whisper) == MAX_BOOST_DB


def test_compliance_issues_name_what_is_wrong():
    acx = get_preset("acx")
    loud = measure(tone(3.0, amplitude=0.99))
    issues = compliance_issues(acx, loud)
    assert any("outside" in issue for issue in issues)
    assert any("ceiling" in issue for issue in issues)
    ok = measure(np.concatenate([tone(3.0, amplitude=0.14), np.full(RATE, 1e-4, np.float32)]))
    assert compliance_issues(acx, ok) == []


def test_unknown_preset_is_a_usage_error():
    with pytest.raises(UsageError, match="acx"):
        get_preset("loud")


def run_limiter(limiter: PeakLimiter, audio: np.ndarray, block: int) -> np.ndarray:
    pieces = [limiter.process(audio[i : i + block]) for i in range(0, audio.size, block)]
    return np.concatenate(pieces + [limiter.flush()])


@pytest.mark.parametrize("block", [100, 1000, 44_100])
def test_limiter_holds_the_ceiling_and_keeps_length(block):
    audio = tone(2.0, amplitude=0.4)
    audio[30_000:30_050] = 1.7  # an over
    audio[61_000] = -2.5
    limiter = PeakLimiter(ceiling_db=-3.0, window=256)
    out = run_limiter(limiter, audio, block)
    ceiling = 10 ** (-3.0 / 20)
    assert out.size == audio.size
    assert np.max(np.abs(out)) <= ceiling + 1e-6
    assert limiter.max_reduction_db == pytest.approx(20 * math.log10(2.5 / ceiling), abs=0.01)
    # Far from the overs the signal passes unchanged (no pumping of the whole block).
    np.testing.assert_array_equal(out[:29_000], audio[:29_000])
    np.testing.assert_array_equal(out[62_000:], audio[62_000:])


def test_limiter_result_does_not_depend_on_block_size():
    audio = modulated_noise(1.5, seed=5) * 4
    first = run_limiter(PeakLimiter(-1.0), audio, 333)
    second = run_limiter(PeakLimiter(-1.0), audio, 20_000)
    np.testing.assert_allclose(first, second, atol=1e-6)


def test_an_unknown_preset_is_refused_before_the_model_is_looked_for(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    def no_backend(*args, **kwargs):
        raise AssertionError("the backend was made before the preset was checked")

    monkeypatch.setattr(registry, "make_backend", no_backend)
    path = margot_scene(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--preset", "loud"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "drama: unknown loudness preset 'loud' (known: acx, acx-mp3, r128, podcast, none)"
    )
    assert not (tmp_path / "scene.drama").exists()


def test_every_preset_the_error_lists_is_in_the_mixing_guide():
    from drama_cli.mix.presets import PRESETS

    guide = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "mixing.md").read_text(
        encoding="utf-8"
    )
    assert all(f"  | `{name}` |" in guide for name in PRESETS)


def test_preset_help_states_its_default(capsys):
    for verb in ("render", "mix"):
        assert "default: the project's saved preset, else none" in help_text(capsys, verb)


def scene_line(out: str) -> str:
    """The scene's summary line of a render's output (rich wraps it on narrow consoles)."""
    flat = " ".join(out.split())
    return flat[flat.index("scene boathouse:") :]


def test_the_acx_summary_reports_rms_and_noise_floor(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "acx", "--room-tone", "noise"]) == 0
    line = scene_line(capsys.readouterr().out)
    found = re.search(r"RMS (-\d+\.\d) dB, peak (-\d+\.\d) dBFS, noise floor (-\d+\.\d) dB", line)
    assert found, line
    rms, peak, floor = map(float, found.groups())
    assert -23.0 <= rms <= -18.0 and peak <= -3.0 and floor <= -60.0
    assert "LUFS" not in line
    audio, _ = sf.read(str(tmp_path / "scene.drama" / "boathouse" / "mix.wav"))
    assert 20 * np.log10(np.sqrt(np.mean(audio**2))) == pytest.approx(rms, abs=0.06)


def test_the_r128_summary_reports_lufs_and_true_peak(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "r128"]) == 0
    line = scene_line(capsys.readouterr().out)
    assert re.search(r"-2[234]\.\d LUFS, true peak -\d+\.\d dBTP", line), line


# A preset's gain is kept across one-line rebuilds while the scene stays within the preset.


def preset_project(tmp_path: Path, preset: str, backend):
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.load import load_script
    from drama_cli.script.mix_settings import MixSettings
    from drama_cli.takes.jobs import RenderSettings
    from drama_cli.takes.store import TakeStore

    path = tmp_path / "scene.yaml"
    path.write_text(boathouse_script(), encoding="utf-8")
    store = TakeStore(tmp_path / "scene.drama")
    render_script(
        load_script(str(path)), store, backend, RenderSettings(), mix=MixSettings(preset=preset)
    )
    return path, store


def cue_sheet(store) -> dict:
    return json.loads((store.scene_dir("s1") / "mix.cues.json").read_text())


@pytest.mark.parametrize("preset", ["r128", "acx", "podcast"])
def test_with_a_preset_a_one_line_rebuild_leaves_the_other_lines_as_they_were(tmp_path, preset):
    from drama_cli.edit.revise import revise_in_project
    from drama_cli.script.load import load_script

    backend = FakeBackend()
    path, store = preset_project(tmp_path, preset, backend)
    before, gain = mix_segments(store), cue_sheet(store)["gain_db"]
    revise_in_project(load_script(str(path)), store, backend, "l2", "louder", select=True)
    after, sheet = mix_segments(store), cue_sheet(store)
    for line in ("l1", "l3"):
        np.testing.assert_array_equal(after[line][1], before[line][1])
    assert not np.array_equal(after["l2"][1][:1000], before["l2"][1][:1000])
    assert sheet["gain_held"] is True and sheet["gain_db"] == gain
    assert sheet["issues"] == [] or all("level" not in issue for issue in sheet["issues"])


def test_a_rebuild_that_would_leave_the_preset_range_normalises_the_scene_again(tmp_path):
    from drama_cli.edit.revise import revise_in_project
    from drama_cli.script.load import load_script

    def answer(request, call):
        loud = (
            0.9
            if request.conversation is not None and request.conversation.layout == "revise"
            else 0.05
        )
        return voice(max(0.6, len(request.text) / 15), 150, loud), "eos"

    backend = FakeBackend(answer=answer)
    path, store = preset_project(tmp_path, "r128", backend)
    gain = cue_sheet(store)["gain_db"]
    revise_in_project(load_script(str(path)), store, backend, "l2", "louder", select=True)
    sheet = cue_sheet(store)
    assert sheet["gain_held"] is False and sheet["gain_db"] < gain - 3
    assert -24.0 <= sheet["loudness"]["integrated_lufs"] <= -22.0


@pytest.mark.case("A5")
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
