"""The voice library: `drama voices add | list | show | remove`, its records, and a cast naming
`voice: library:NAME`."""

import json

import numpy as np
import pytest
import soundfile as sf
from fakes import one_error_line, voice

from drama_cli.cli import main
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import LIBRARY_ENV, read_voice, voice_names

SR = 44_100


@pytest.fixture
def clips(tmp_path):
    sf.write(tmp_path / "warm.wav", voice(2.5, 180.0), SR)
    nan = voice(1.0)
    nan[500] = np.nan
    sf.write(tmp_path / "nan.wav", nan, SR, subtype="FLOAT")
    sf.write(tmp_path / "long.wav", voice(61.0), SR)
    sf.write(tmp_path / "silent.wav", np.zeros(SR, np.float32), SR)
    return tmp_path


def add(clips, *args):
    return main(["voices", "add", *args, "--library", str(clips / "lib")])


def test_an_added_voice_records_its_clip_measures_and_consent(clips, capsys):
    code = add(
        clips,
        str(clips / "warm.wav"),
        "--name",
        "warm-1",
        "--transcript",
        "  Hello   there. ",
        "--tags",
        "female, 40s, warm, Female",
        "--consent-by",
        "Ann Actor",
        "--consent-on",
        "2026-01-02",
        "--json",
    )
    assert code == 0
    record = json.loads(capsys.readouterr().out)
    assert record["transcript"] == "Hello there." and record["transcript_from"] == "given"
    assert record["tags"] == ["female", "40s", "warm"]
    assert record["duration_s"] == 2.5
    assert -30 < record["loudness_lufs"] < -10
    assert record["source"] == "consent"
    assert record["consent"] == {"by": "Ann Actor", "on": "2026-01-02", "note": None}
    copied = clips / "lib" / "warm-1.wav"
    assert copied.read_bytes() == (clips / "warm.wav").read_bytes()
    assert len(record["sha256"]) == 64
    assert read_voice(clips / "lib", "warm-1").tags == ("female", "40s", "warm")


@pytest.mark.parametrize(
    ("clip", "name", "extra", "message"),
    [
        ("missing.wav", "x", [], "missing.wav: does not exist"),
        ("nan.wav", "x", [], "nan.wav: holds non-finite samples (NaN or infinity)"),
        ("long.wav", "x", [], "long.wav: is 61.0 s long; the engine takes at most 60 s"),
        ("silent.wav", "x", [], "silent.wav: is silent"),
        ("warm.wav", "bad name", [], "voice name 'bad name' is not usable"),
        ("warm.wav", "x", ["--source", "consent"], "--source consent needs --consent-by"),
        ("warm.wav", "x", ["--source", "famous"], "--source 'famous' is not one of"),
        ("warm.wav", "x", ["--consent-by", "A", "--consent-on", "soon"], "is not a date"),
    ],
)
def test_bad_input_to_voices_add_is_one_located_line_and_adds_nothing(
    clips, capsys, clip, name, extra, message
):
    assert add(clips, str(clips / clip), "--name", name, *extra) == 2
    assert message in one_error_line(capsys)
    assert voice_names(clips / "lib") == []


def test_a_duplicate_name_is_refused_and_the_first_voice_stays(clips, capsys):
    assert add(clips, str(clips / "warm.wav"), "--name", "warm-1", "--transcript", "One.") == 0
    capsys.readouterr()
    assert add(clips, str(clips / "warm.wav"), "--name", "warm-1", "--transcript", "Two.") == 2
    assert "already has a voice 'warm-1'" in one_error_line(capsys)
    assert read_voice(clips / "lib", "warm-1").transcript == "One."


def test_list_show_and_remove(clips, capsys):
    for name in ("b-voice", "a-voice"):
        assert add(clips, str(clips / "warm.wav"), "--name", name, "--source", "own") == 0
    capsys.readouterr()
    assert main(["voices", "list", "--library", str(clips / "lib"), "--json"]) == 0
    assert [v["name"] for v in json.loads(capsys.readouterr().out)] == ["a-voice", "b-voice"]
    assert main(["voices", "show", "a-voice", "--library", str(clips / "lib")]) == 0
    assert "source: own" in capsys.readouterr().out
    assert main(["voices", "remove", "a-voice", "--library", str(clips / "lib")]) == 0
    assert sorted(p.name for p in (clips / "lib").iterdir()) == ["b-voice.json", "b-voice.wav"]
    assert main(["voices", "show", "b-voic", "--library", str(clips / "lib")]) == 2
    assert "no voice 'b-voic' in the library" in (err := one_error_line(capsys))
    assert "did you mean b-voice?" in err


def test_a_cast_member_takes_a_library_voice_with_its_words_and_records(clips, capsys, monkeypatch):
    assert (
        add(
            clips,
            str(clips / "warm.wav"),
            "--name",
            "warm-1",
            "--transcript",
            "Hello there.",
            "--source",
            "designed",
        )
        == 0
    )
    monkeypatch.setenv(LIBRARY_ENV, str(clips / "lib"))
    script = clips / "play.yaml"
    script.write_text(
        "cast:\n  MARGOT:\n    voice: library:warm-1\n  DESMOND: {}\n"
        "lines:\n  - MARGOT: Good evening.\n  - DESMOND: Hello.\n",
        encoding="utf-8",
    )
    margot = load_script(script).cast["MARGOT"]
    assert margot.library_voice == "warm-1"
    assert margot.references[0].path == str((clips / "lib" / "warm-1.wav").resolve())
    assert margot.references[0].transcript == "Hello there."
    assert margot.voice_source.kind == "synthetic"
    assert margot.voice_source.note == "designed from a description"


def test_an_unknown_library_voice_is_an_error_at_its_place_in_the_cast(clips, capsys):
    script = clips / "play.yaml"
    script.write_text(
        "voice_library: lib\ncast:\n  MARGOT:\n    voice: library:nobody\n"
        "lines:\n  - MARGOT: Good evening.\n",
        encoding="utf-8",
    )
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert f"{script}:4:12: no voice 'nobody' in the library" in err


def test_voices_list_counts_one_voice_in_the_singular(clips, capsys):
    assert add(clips, str(clips / "warm.wav"), "--name", "solo", "--source", "own") == 0
    capsys.readouterr()
    assert main(["voices", "list", "--library", str(clips / "lib")]) == 0
    out = capsys.readouterr().out
    assert "1 voice in" in out and "1 voices" not in out
