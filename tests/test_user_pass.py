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
