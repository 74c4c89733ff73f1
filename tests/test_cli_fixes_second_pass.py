"""CLI fixes from a second new-user pass: `drama mix` exit codes and selections, one-line
errors for plot outputs and binary cast files, `revise` exit codes, `edit --replace` with a
span, room-tone level of a recorded bed."""

import json

import numpy as np
import pytest
import soundfile as sf

from drama_cli.cli import main

from test_render import write_script
from test_render_fixes import fake_render

SCENE = "boathouse"


def project(tmp_path):
    return tmp_path / "scene.drama" / SCENE


# 1. drama mix: lines left out, missing selected.json

def test_mix_exits_1_naming_a_line_left_out(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    selected = project(tmp_path) / "selected.json"
    lines = json.loads(selected.read_text())["lines"]
    del lines["boathouse-2"]
    selected.write_text(json.dumps({"scene_id": SCENE, "lines": lines}))
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    captured = capsys.readouterr()
    assert "left out" in captured.err and "boathouse-2" in captured.err
    assert "Traceback" not in captured.err


def test_mix_without_selection_file_selects_first_passing_takes(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    selected = project(tmp_path) / "selected.json"
    before = json.loads(selected.read_text())["lines"]
    selected.unlink()
    (project(tmp_path) / "mix.wav").unlink()
    capsys.readouterr()
    assert main(["mix", str(path)]) == 0
    after = json.loads(selected.read_text())["lines"]
    assert {k: v["take"] for k, v in after.items()} == {k: v["take"] for k, v in before.items()}
    assert (project(tmp_path) / "mix.wav").exists()


def test_mix_without_selection_file_ignores_takes_of_changed_text(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    (project(tmp_path) / "selected.json").unlink()
    write_script(tmp_path, ["We leave at six.", "Not fine at all."])
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-2" in err and "boathouse-1" not in err.split("left out of the mix:")[-1]
    after = json.loads((project(tmp_path) / "selected.json").read_text())["lines"]
    assert list(after) == ["boathouse-1"]
