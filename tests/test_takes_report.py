"""What `drama render` says about the takes it made, and what `drama takes` shows of each take:
its words, note, parent, edit and whether it was made for older text."""

from __future__ import annotations

import json

from fakes import FakeBackend, fake_render, write_script

from drama_cli.cli import main


def test_render_with_more_takes_counts_and_names_the_takes_it_made(tmp_path, monkeypatch,
                                                                   capsys):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    assert main(["render", str(path), "--takes", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["new_takes"] == {"boathouse-1": [2, 3], "boathouse-2": [2, 3]}
    assert report["counts"]["new_takes"] == 4 and report["backend_calls"] == 4
    assert main(["render", str(path), "--takes", "4"]) == 0
    captured = capsys.readouterr()
    out = " ".join(captured.out.split())
    assert "2 new takes (boathouse-1: take 4; boathouse-2: take 4)" in out
    rows = {row.split("│")[2].strip(): [c.strip() for c in row.split("│")[1:-1]]
            for row in captured.out.splitlines() if "│ boathouse-" in row}
    assert rows["boathouse-1"][4:6] == ["1", "4"]  # selected take 1, new take 4
    assert "drama: [1/2] boathouse-1 MARGOT: rendered take 1, 1.00 s (new takes 4)" in captured.err
    assert main(["render", str(path), "--takes", "4"]) == 0
    assert "no new takes" in " ".join(capsys.readouterr().out.split())
