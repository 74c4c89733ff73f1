"""Defects a new user met: bad numbers and positions reported in one line, JSON on every path,
broken pipes, input sniffing, lone cues and `drama check` listing every problem."""

from __future__ import annotations

import json

import pytest
from fakes import FakeBackend, fake_render, write_script

from drama_cli.cli import main


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("as_json", [False, True])
def test_edit_at_not_finite_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, value, as_json):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    extra = ["--json"] if as_json else []
    code = main(["edit", str(path), "boathouse-1", "--insert", "really", "--at", value, *extra])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.strip() == f"drama: --at must be a finite number of seconds, not {float(value)!r}"
    if as_json:
        report = json.loads(captured.out)
        assert report["ok"] is False and report["exit_code"] == 2
        assert report["errors"][0]["message"].startswith("--at must be a finite number")
    assert fake.requests == []


def _fountain(tmp_path, body, cast="cast:\n  ALGERNON: a.wav\n  JACK: j.wav\n"):
    (tmp_path / "play.cast.yaml").write_text(cast)
    path = tmp_path / "play.fountain"
    path.write_text(body)
    return path


def test_unknown_fountain_cue_is_reported_at_the_cue(tmp_path, capsys):
    path = _fountain(tmp_path, "INT. FLAT - DAY\n\n  ALGERNOM\nDid you hear?\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:3: unknown speaker 'ALGERNOM'" in err


def test_unknown_switch_is_reported_at_its_column(tmp_path, capsys):
    path = _fountain(tmp_path, "INT. FLAT - DAY\n\nALGERNON\nDid you hear? {NOBODY} said he.\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4:15: unknown speaker 'NOBODY'" in err


def test_unknown_yaml_switch_is_reported_at_its_column(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text("cast:\n  A: a.wav\nlines:\n  - A: Hello {NOBODY} there.\n")
    assert main(["check", str(path)]) == 2
    assert f"{path}:4:14: unknown speaker 'NOBODY'" in capsys.readouterr().err
