"""`drama compile --mode history` shows the context each line carries from earlier takes (or says
why there is none) and counts it in the totals."""

from __future__ import annotations

import json
import math

from fakes import FakeBackend, fake_render, write_script

from drama_cli.cli import main
from drama_cli.takes.store import TakeStore
from engine.constants import FRAMES_PER_SECOND

TEXTS = ["We leave at six.", "Not without the oars.", "Then find the oars.", "Fine."]


def compile_json(capsys, args):
    capsys.readouterr()
    assert main(["compile", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_history_without_a_project_says_why_there_is_no_context(tmp_path, capsys):
    path = write_script(tmp_path, TEXTS)
    report = compile_json(capsys, [str(path), "--mode", "history"])
    first, second = report["lines"][:2]
    assert first["context"] == [] and first["context_note"] == "the scene's first line: nothing before it"
    assert second["context"] == [] and second["context_note"].startswith(
        f"no rendered project at {tmp_path / 'scene.drama'}")
    assert report["totals"]["context_rows"] == 0
    capsys.readouterr()
    assert main(["compile", str(path), "--mode", "history"]) == 0
    out = capsys.readouterr().out
    assert "  context: none (no rendered project at" in out


def test_history_after_a_render_shows_the_context_rows_and_counts_them(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, TEXTS)
    assert main(["render", str(path)]) == 0
    store = TakeStore(tmp_path / "scene.drama")
    rows = {i: math.ceil(store.selected_take("boathouse", f"boathouse-{i}").duration_s * FRAMES_PER_SECOND)
            for i in (1, 2, 3)}
    clone = compile_json(capsys, [str(path), "--mode", "clone"])
    report = compile_json(capsys, [str(path), "--mode", "history"])
    line4 = report["lines"][3]
    assert line4["context"] == [{"line": "boathouse-1", "rows": rows[1]},
                                {"line": "boathouse-2", "rows": rows[2]},
                                {"line": "boathouse-3", "rows": rows[3]}]
    assert line4["context_rows"] == rows[1] + rows[2] + rows[3]
    assert line4["conversations"][0]["layout"] == "history"
    assert line4["total_rows"] == clone["lines"][3]["total_rows"] + line4["context_rows"]
    assert report["lines"][1]["context"] == [{"line": "boathouse-1", "rows": rows[1]}]
    expected_context = rows[1] + (rows[1] + rows[2]) + (rows[1] + rows[2] + rows[3])
    assert report["totals"]["context_rows"] == expected_context
    assert report["totals"]["rows"] == clone["totals"]["rows"] + expected_context
    capsys.readouterr()
    assert main(["compile", str(path), "--mode", "history"]) == 0
    out = capsys.readouterr().out
    assert (f"  context: boathouse-1 ({rows[1]} rows), boathouse-2 ({rows[2]} rows), "
            f"boathouse-3 ({rows[3]} rows)") in out
    assert f"of them {expected_context} context rows from earlier takes" in out.splitlines()[-1]
