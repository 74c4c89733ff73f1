"""The voice-match check and the naturalness estimate on real audio: the bundled reference clips
against scratch takes of the same voice and of other voices, a noisy take, the thresholds, the
take record fields and the choice of the best-matching take."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from drama_cli.backends.scratch import ScratchBackend
from drama_cli.errors import UsageError
from drama_cli.qc.limits import DEFAULT_MIN_SIMILARITY, check_qc_limits
from drama_cli.qc.quality import naturalness, quality_result, quality_take_check
from drama_cli.qc.voice import (
    ReferenceVoices,
    embed,
    similarity,
    voice_clips,
    voice_result,
    voice_take_check,
)
from drama_cli.script.load import load_script
from drama_cli.takes.record import record_problem
from drama_cli.takes.selection import best_take
from drama_cli.takes.store import Take
from drama_cli.takes.take_record import TakeRecord

pytest.importorskip("resemblyzer")
pytest.importorskip("speechmos")

EXAMPLES = Path(__file__).resolve().parent.parent / "scripts_examples"
LINE = "I have no notion of it, my dear, and I shall not go to the ball tonight."


@pytest.fixture(scope="module")
def pride():
    return load_script(str(EXAMPLES / "pride-book.yaml"))


@pytest.fixture(scope="module")
def voices(pride):
    return ReferenceVoices(voice_clips(pride))


@pytest.fixture(scope="module")
def scratch():
    return ScratchBackend()


def test_takes_of_a_characters_voice_match_its_clip_and_a_distant_voice_does_not(voices, scratch):
    narrator_take = embed(scratch.render_text(LINE, "NARRATOR", seed=3))
    mrs_take = embed(scratch.render_text(LINE, "MRS BENNET", seed=3))
    same = similarity(narrator_take, voices.voice("NARRATOR"))
    same_mrs = similarity(mrs_take, voices.voice("MRS BENNET"))
    other = similarity(narrator_take, voices.voice("MRS BENNET"))
    other_mrs = similarity(mrs_take, voices.voice("NARRATOR"))
    # the narrator and Mrs Bennet are five semitones apart in the scratch voice
    assert same > 0.85 and same_mrs > 0.85, (same, same_mrs)
    assert other < 0.65 and other_mrs < 0.65, (other, other_mrs)
    assert min(same, same_mrs) - max(other, other_mrs) > 0.2
    assert other < DEFAULT_MIN_SIMILARITY < same


def test_the_voice_take_check_fails_another_voice_as_degraded_and_records_the_score(pride, scratch):
    check = voice_take_check(pride, 0.8)
    ok, ok_fields = check(LINE, scratch.render_text(LINE, "MR BENNET", seed=1), "MR BENNET")
    wrong, fields = check(LINE, scratch.render_text(LINE, "MRS BENNET", seed=1), "MR BENNET")
    assert ok.passed and ok.name == "voice" and ok_fields["voice"]["similarity"] >= 0.8
    assert not wrong.passed and wrong.severity == "degraded"
    assert fields["voice"]["similarity"] < 0.8 and fields["voice"]["threshold"] == 0.8
    assert wrong.message.startswith("similarity 0.")


def test_silence_and_a_character_without_clips_are_not_measured_and_pass():
    assert embed(np.zeros(44_100, np.float32)) is None
    result = voice_result(None, 0.8)
    assert result.passed and result.message == "not measured"
    assert ReferenceVoices({}).voice("STRANGER") is None


def test_a_noisy_take_scores_lower_naturalness_than_the_clean_one():
    clean, rate = sf.read(EXAMPLES / "refs" / "narrator.wav", dtype="float32")
    noise = np.random.default_rng(0).standard_normal(clean.size).astype(np.float32)
    noisy = clean + noise * np.sqrt(np.mean(clean**2) / 10)  # 10 dB SNR
    clean_scores, noisy_scores = naturalness(clean, rate), naturalness(noisy, rate)
    assert 3.0 < clean_scores["ovrl"] < 4.0, clean_scores
    assert noisy_scores["ovrl"] < clean_scores["ovrl"] - 0.8, noisy_scores
    assert noisy_scores["bak"] < clean_scores["bak"] - 1.5


def test_naturalness_is_shown_only_until_the_producer_sets_a_floor():
    scores = {"ovrl": 2.1, "sig": 3.4, "bak": 2.0, "p808": 2.5}
    assert quality_result(scores, None).passed
    floored = quality_result(scores, 3.0)
    assert not floored.passed and floored.severity == "degraded"
    assert floored.message == "naturalness 2.10 under 3.00"
    result, fields = quality_take_check()(LINE, np.zeros(100, np.float32), "NARRATOR")
    assert result.passed and fields["quality"]["ovrl"] is None


def test_limits_outside_their_range_are_refused():
    with pytest.raises(UsageError, match="--min-similarity must be within 0..1"):
        check_qc_limits(1.5, None)
    with pytest.raises(UsageError, match="--min-quality must be within 1..5"):
        check_qc_limits(0.8, 0.5)


def _take(number: int, status: str, similarity_score: float | None, slot: int = 0) -> Take:
    data = {
        "take": number,
        "samples": 10,
        "duration_s": 1.0,
        "wav_sha256": "x",
        "slot": slot,
        "checks": {"passed": status == "ok", "severity": status},
    }
    if similarity_score is not None:
        data["voice"] = {"similarity": similarity_score, "threshold": 0.8}
    return Take(number, Path("."), TakeRecord.from_json(data))


def test_the_passing_take_with_the_best_voice_match_is_chosen_with_its_reason():
    takes = [_take(1, "ok", 0.83), _take(2, "ok", 0.91, slot=1), _take(3, "degraded", 0.95, 2)]
    chosen, status, reason = best_take(takes)
    assert chosen.number == 2 and status == "ok"
    assert reason == "passed every check; best voice match (0.91)"


def test_a_take_that_misses_the_voice_is_never_chosen_over_one_that_matches():
    chosen, status, reason = best_take([_take(1, "degraded", 0.6), _take(2, "ok", 0.82, 1)])
    assert chosen.number == 2 and status == "ok"
    fallback, status, reason = best_take([_take(1, "unusable", None), _take(2, "degraded", 0.6)])
    assert fallback.number == 2 and status == "degraded" and reason.startswith("no take passed")


def test_takes_without_voice_scores_keep_render_order():
    chosen, _, reason = best_take([_take(1, "ok", None), _take(2, "ok", None, 1)])
    assert chosen.number == 1 and reason == "passed every check"


def test_old_records_read_without_scores_and_bad_scores_are_refused():
    old = TakeRecord.from_json({"take": 1, "samples": 1, "duration_s": 0.1, "wav_sha256": "a"})
    assert old.voice is None and old.quality is None
    bad = {"take": 1, "samples": 1, "duration_s": 0.1, "wav_sha256": "a", "voice": {}}
    bad["voice"]["similarity"] = "high"
    assert record_problem(bad) == (
        "the record's voice.similarity is a string, not a whole number or a number or null"
    )
    scored = {**bad, "voice": {"similarity": 0.9}, "quality": {"ovrl": 3.2, "floor": None}}
    record = TakeRecord.from_json(scored)
    assert record.voice.similarity == 0.9 and record.quality.ovrl == 3.2
