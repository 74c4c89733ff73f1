"""Render, mix and edit fixes found by a new user: cue-only lines, project folders, option
validation, mix settings from the script, exit codes, labels of scratch mixes."""

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from drama_cli.backends.base import Generation
from drama_cli.backends.breath import breath_placeholder
from drama_cli.cli import main
from drama_cli.render_line import join_chunks
from engine.checks import check_take

from test_render import FakeBackend, write_script

CUE_SCRIPT = """\
title: Cue
cast:
  A: {}
  B: {}
scenes:
  - id: s1
    lines:
      - A: Hello there, my friend.
      - B: "[sighs]"
"""


def cue_script(folder: Path) -> Path:
    path = folder / "cue.yaml"
    path.write_text(CUE_SCRIPT, encoding="utf-8")
    return path


def fake_render(monkeypatch, backend=None):
    import drama_cli.backends as backends

    monkeypatch.setattr(backends, "make_backend", lambda *a, **k: backend or FakeBackend())


# 1. cue-only lines

def test_breath_placeholder_passes_the_signal_checks():
    audio = breath_placeholder(7)
    assert audio.dtype == np.float32 and audio.shape == (35_280,)
    assert float(np.abs(audio).max()) == pytest.approx(0.2, abs=1e-6)
    report = check_take(audio, 44_100, "<|speaker:1|> [sighs]", "eos")
    assert report.passed, report
    assert np.array_equal(audio, breath_placeholder(7))


def test_joining_zero_chunks_gives_a_failing_empty_take():
    joined = join_chunks([], "[sighs]")
    assert isinstance(joined, Generation) and joined.audio.size == 0
    assert not joined.checks.passed


def test_scratch_renders_a_cue_only_line_as_a_placeholder(tmp_path, capsys):
    path = cue_script(tmp_path)
    out = tmp_path / "cue.drama"
    assert main(["render", str(path), "--engine", "scratch", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sigh = next(line for line in report["lines"] if line["line_id"] == "s1-2")
    assert sigh["status"] == "rendered" and sigh["duration_s"] == pytest.approx(0.8, abs=0.01)
    assert (out / "s1" / "mix.wav").exists()


# 2. project folders

def test_out_that_is_a_file_or_cannot_be_made_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    taken = tmp_path / "taken"
    taken.write_text("x")
    assert main(["render", str(path), "--out", str(taken)]) == 2
    assert str(taken) in capsys.readouterr().err
    blocked = taken / "below"  # a folder under a file cannot exist
    assert main(["render", str(path), "--out", str(blocked)]) == 2
    err = capsys.readouterr().err
    assert str(blocked) in err and "Traceback" not in err


def test_two_scripts_with_one_stem_do_not_share_a_project(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    first = write_script(tmp_path, ["We leave at six."], name="earnest.yaml")
    second = write_script(tmp_path, ["Fine then."], name="earnest.yml")
    assert main(["render", str(first)]) == 0
    project = tmp_path / "earnest.drama" / "project.json"
    before = project.read_text()
    capsys.readouterr()
    assert main(["render", str(second)]) == 2
    err = capsys.readouterr().err
    assert "earnest.yaml" in err and "--out" in err
    assert project.read_text() == before
    assert main(["mix", str(second)]) == 2
    assert main(["render", str(second), "--out", str(tmp_path / "other.drama")]) == 0
