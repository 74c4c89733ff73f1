"""`drama check` and `drama compile` on the command line."""

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile

from drama_cli import cli

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts_examples"


@pytest.fixture
def drama():
    """The `drama` command line."""
    return cli.main


@pytest.fixture
def examples(tmp_path):
    """The example scripts with 3-second silent reference clips in place of the recorded ones."""
    if not EXAMPLES.is_dir():
        pytest.skip("scripts_examples/ not found")
    for path in EXAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    (tmp_path / "refs").mkdir()
    for name in ("algernon", "lane", "jack", "narrator", "mrs-bennet", "mr-bennet"):
        soundfile.write(tmp_path / "refs" / f"{name}.wav", np.zeros(3 * 44100, np.float32), 44100)
    return tmp_path


def test_check_prints_cast_scenes_and_counts(drama, examples, capsys):
    assert drama(["check", str(examples / "earnest.fountain")]) == 0
    out = capsys.readouterr().out
    assert "ALGERNON" in out and "LANE" in out and "JACK" in out
    assert "scene-1" in out and "27 lines" in out


def test_check_json(drama, examples, capsys):
    assert drama(["check", str(examples / "chapter.yaml"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["narrator"] == "NARRATOR"
    assert [m["name"] for m in report["cast"]] == ["NARRATOR", "MRS BENNET", "MR BENNET"]
    assert report["scenes"][0]["lines"] == 18


def test_check_strict_tags_warns_and_still_passes(drama, examples, capsys):
    assert drama(["check", str(examples / "cigarette-case.yaml"), "--strict-tags"]) == 0
    err = capsys.readouterr().err
    assert "tag [exasperated] is not in the known vocabulary" in err


def test_check_missing_reference_is_a_located_error(drama, tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text("cast:\n  ANA:\n    voice: refs/none.wav\nlines:\n  - ANA: Hi.\n")
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:12: reference clip 'refs/none.wav' of ANA does not exist" in err
    assert drama(["check", str(path), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["errors"][0]["line"] == 3 and report["ok"] is False


def test_check_bad_script_exits_2_without_traceback(drama, tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text("lines:\n  - speaker: A\n    text: [sighs] no\n")
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3:") and "Traceback" not in err


def test_compile_shows_segments_tokens_and_rows(drama, examples, capsys):
    assert drama(["compile", str(examples / "earnest.fountain"), "--mode", "clone", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unit"] in ("tokens", "chars")
    first = report["lines"][0]
    assert first["id"] == "scene-1-1" and first["speakers"] == {"ALGERNON": 0}
    segments = first["conversations"][0]["segments"]
    audio = [s for s in segments if s["kind"] == "audio"]
    assert [s["rows"] for s in audio] == [65]  # 3 s at 44,100/2048 frames per second, rounded up
    assert {
        "kind": "text",
        "text": "<|speaker:0|> Did you hear what I was playing, Lane?",
        "count": segments[-3]["count"],
    } == segments[-3]
    assert first["total"] == sum(s.get("count", 0) + s.get("rows", 0) for s in segments)


def test_compile_counts_tokens_with_the_tokenizer(drama, tmp_path, capsys):
    pytest.importorskip("engine.tokenizer")
    path = tmp_path / "p.yaml"
    path.write_text(
        "lines:\n  - speaker: A\n    text: Promise me you won't tell her about the party tonight.\n"
        "cast:\n  A: {description: x}\n"
    )
    assert drama(["compile", str(path), "--mode", "clone", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    if report["unit"] != "tokens":
        pytest.skip(f"no tokenizer here: {report['counting']}")
    segment = [
        s
        for s in report["lines"][0]["conversations"][0]["segments"]
        if s.get("text", "").startswith("<|speaker:0|> Promise")
    ][0]
    assert segment["count"] == 13  # the launch article's count for this exact string


def test_compile_reads_stdin_and_filters_scenes(drama, examples, capsys, monkeypatch):
    monkeypatch.chdir(examples)
    monkeypatch.setattr("sys.stdin", io.StringIO((examples / "chapter.yaml").read_text()))
    assert drama(["compile", "-", "--scene", "chapter-1", "--mode", "scene"]) == 0
    out = capsys.readouterr().out
    assert "chapter-1-1" in out and "shared with chapter-1-1" in out


def test_compile_refuses_unknown_mode_and_scene(drama, examples, capsys):
    assert drama(["compile", str(examples / "cigarette-case.yaml"), "--mode", "karaoke"]) == 2
    assert "unknown mode" in capsys.readouterr().err
    assert drama(["compile", str(examples / "cigarette-case.yaml"), "--scene", "nope"]) == 2
    assert "cigarette-case" in capsys.readouterr().err
