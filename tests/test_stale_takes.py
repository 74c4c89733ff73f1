"""Sidecars carry the words of the take that is heard, a selected take made for older text is
flagged stale by `drama takes`, `drama mix` and `drama render`, and when a removed line moves the
line ids the ids that hold the later lines' takes are named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fakes import (
    FakeBackend,
    FakeWithCodes,
    boathouse_script,
    fake_render,
    margot_scene,
    write_script,
)

from drama_cli.cli import main

OLD, NEW = "We leave at six.", "We leave at seven."


def sidecars(folder: Path) -> tuple[list[str], str, list[str]]:
    labels = [row.split("\t")[2] for row in (folder / "mix.labels.txt").read_text().splitlines()]
    sheet = json.loads((folder / "mix.cues.json").read_text())
    return labels, (folder / "mix.srt").read_text(), [c["text"] for c in sheet["cues"]]


@pytest.fixture
def changed(tmp_path, monkeypatch):
    """A rendered two-line scene whose first line's text has since changed in the script."""
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    path = write_script(tmp_path, [OLD, "Fine then."])
    assert main(["render", str(path)]) == 0
    write_script(tmp_path, [NEW, "Fine then."])
    backend.requests.clear()
    return path, tmp_path / "scene.drama" / "boathouse", backend


def test_mix_with_a_stale_take_keeps_its_own_words_and_exits_1(changed, capsys):
    path, folder, _ = changed
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-1" in err and "stale" in err and "older text" in err
    labels, srt, cue_texts = sidecars(folder)
    assert labels == [f"MARGOT: {OLD}", "DESMOND: Fine then."]
    assert f"MARGOT: {OLD}" in srt and NEW not in srt
    assert cue_texts == [OLD, "Fine then."]
    sheet = json.loads((folder / "mix.cues.json").read_text())
    assert sheet["stale_lines"] == ["boathouse-1"]


def test_takes_flags_a_selected_take_made_for_older_text(changed, capsys):
    path, _, _ = changed
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    rows = {row["line"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["boathouse-1"]["takes"][0]["stale"] is True
    assert rows["boathouse-1"]["takes"][0]["text"] == OLD
    assert rows["boathouse-2"]["takes"][0]["stale"] is False
    assert main(["takes", str(path)]) == 0
    assert "stale" in " ".join(capsys.readouterr().out.split())


def test_render_renders_a_stale_take_again_and_the_sidecars_follow(changed, capsys):
    path, folder, backend = changed
    capsys.readouterr()
    assert main(["render", str(path)]) == 0
    assert [r.line_id for r in backend.requests] == ["boathouse-1"]
    err = " ".join(capsys.readouterr().err.split())
    assert "line boathouse-1: take 1 was made for older text ('We leave at six.')" in err
    assert "rendering it again" in err
    labels, _, cue_texts = sidecars(folder)
    assert labels == [f"MARGOT: {NEW}", "DESMOND: Fine then."] and cue_texts[0] == NEW


def test_render_of_other_lines_reports_a_stale_take_it_keeps(changed, capsys):
    path, folder, backend = changed
    capsys.readouterr()
    assert main(["render", str(path), "--line", "boathouse-2", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["scenes"][0]["stale_takes"][0].startswith("line boathouse-1: take 1")
    assert backend.requests == []
    assert sidecars(folder)[0][0] == f"MARGOT: {OLD}"


def test_an_edit_with_select_puts_its_new_words_in_the_sidecars(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    fake = FakeWithCodes()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: fake)
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: None)
    path = tmp_path / "scene.yaml"
    path.write_text(boathouse_script("We never said goodbye."))
    assert main(["render", str(path)]) == 0
    assert (
        main(
            [
                "edit",
                str(path),
                "l1",
                "--text",
                "We hardly ever said goodbye.",
                "--span",
                "0.30:0.75",
                "--select",
            ]
        )
        == 0
    )
    folder = tmp_path / "scene.drama" / "s1"
    labels, srt, cue_texts = sidecars(folder)
    assert labels[0] == "MARGOT: We hardly ever said goodbye."
    assert cue_texts[0] == "We hardly ever said goodbye." and "We never said" not in srt
    assert main(["mix", str(path)]) == 0  # the edit was made from the script's line: not stale
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "l1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [t["stale"] for t in rows[0]["takes"]] == [False, False]


def test_render_line_and_mix_scene_follow_one_rule_for_lines_left_out(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars.", "Fine."])
    capsys.readouterr()
    assert main(["render", str(path), "--line", "boathouse-2"]) == 1
    err = capsys.readouterr().err
    assert (
        "2 line(s) left out of a mix or voiced by a take made for older text: "
        "boathouse-1, boathouse-3" in err
    )
    assert main(["mix", str(path), "--scene", "boathouse"]) == 1
    assert "2 line(s) left out of the mix: boathouse-1, boathouse-3" in capsys.readouterr().err
    assert main(["render", str(path)]) == 0
    assert main(["mix", str(path), "--scene", "boathouse"]) == 0


def test_render_keeps_a_stale_take_when_told_to_and_still_flags_it(changed, capsys):
    path, folder, backend = changed
    capsys.readouterr()
    assert main(["render", str(path), "--keep", "boathouse-1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert backend.requests == []
    kept = next(line for line in report["lines"] if line["line_id"] == "boathouse-1")
    assert kept["status"] == "reused" and "older text" in kept["message"]
    assert report["scenes"][0]["stale_lines"] == ["boathouse-1"] and report["left_out"] == []
    assert sidecars(folder)[0][0] == f"MARGOT: {OLD}"
    assert main(["render", str(path), "--keep", "nope"]) == 2


def test_a_take_made_with_numbers_as_written_is_not_stale_in_a_later_mix(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["Meet me at 6.", "Fine then."])
    assert main(["render", str(path), "--no-normalize"]) == 0
    assert main(["mix", str(path)]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    assert [row["takes"][0]["stale"] for row in json.loads(capsys.readouterr().out)] == [False] * 2


def test_a_take_recorded_without_its_number_setting_is_judged_by_its_words(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["Meet me at 6.", "Fine then."])
    assert main(["render", str(path)]) == 0
    record_path = tmp_path / "scene.drama" / "boathouse" / "boathouse-1" / "take-001.json"
    record = json.loads(record_path.read_text())
    del record["normalize"]  # as earlier releases wrote it
    record_path.write_text(json.dumps(record))
    assert main(["mix", str(path)]) == 0  # says "six": the line's words, numbers as words
    write_script(tmp_path, ["Meet me at 7.", "Fine then."])
    assert main(["mix", str(path)]) == 1


def test_removing_a_line_names_the_ids_that_hold_the_later_lines_takes(
    tmp_path, monkeypatch, capsys
):
    from fakes import fake_render

    fake_render(monkeypatch)
    path = margot_scene(
        tmp_path, ["We leave at six.", "Bring the oars.", "The river is high.", "Fine."]
    )
    assert main(["render", str(path)]) == 0
    margot_scene(tmp_path, ["We leave at six.", "The river is high.", "Fine."])  # line 2 removed
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1  # the moved lines' takes are stale: nothing changes
    err = capsys.readouterr().err
    assert (
        "line boathouse-2: takes under boathouse-3 were made for this text; the ids moved "
        "when a line was removed or added — give lines explicit ids"
    ) in err
    assert "line boathouse-3: takes under boathouse-4 were made for this text" in err
    assert "line boathouse-1: takes under" not in err
    assert main(["render", str(path)]) == 0  # a render adopts the takes made for the text exactly
    err = capsys.readouterr().err
    assert "note: line boathouse-2: adopted takes 1 of boathouse-3, made for this text" in err
    assert "note: line boathouse-3: adopted takes 1 of boathouse-4, made for this text" in err
    assert "rendered take" not in err


def test_a_repeated_line_is_not_taken_for_a_moved_one(tmp_path, monkeypatch, capsys):
    from fakes import fake_render

    fake_render(monkeypatch)
    path = margot_scene(tmp_path, ["Yes.", "We leave at six."])
    assert main(["render", str(path)]) == 0
    margot_scene(tmp_path, ["Yes.", "We leave at six.", "Yes."])  # a new line with the same words
    capsys.readouterr()
    assert main(["render", str(path)]) == 0
    assert "takes under" not in capsys.readouterr().err


def _boathouse(folder: Path, lines: list[tuple[str, str]]) -> Path:
    """`scene.yaml`: the boathouse scene with these (speaker, text) lines and automatic ids."""
    path = write_script(folder, [""])
    body = "".join(f'      - speaker: {who}\n        text: "{text}"\n' for who, text in lines)
    path.write_text(path.read_text().split("    lines:\n")[0] + "    lines:\n" + body)
    return path


def test_inserting_a_line_renders_only_the_new_line_and_the_moved_lines_keep_their_takes(
    tmp_path, monkeypatch, capsys
):
    from drama_cli.takes.store import TakeStore

    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    scene = [
        ("MARGOT", "We leave at six."),
        ("DESMOND", "Bring the oars."),
        ("MARGOT", "The river is high."),
        ("DESMOND", "Then we row hard."),
        ("MARGOT", "Fine."),
    ]
    path = _boathouse(tmp_path, scene)
    assert main(["render", str(path)]) == 0
    store = TakeStore(tmp_path / "scene.drama")
    before = {n: store.take("boathouse", f"boathouse-{n}", 1).audio() for n in (3, 4, 5)}
    _boathouse(tmp_path, scene[:2] + [("DESMOND", "And the life jackets.")] + scene[2:])
    backend.requests.clear()
    capsys.readouterr()
    assert main(["render", str(path)]) == 0  # history mode, the default
    assert [r.text for r in backend.requests] == ["<|speaker:1|> And the life jackets."]
    err = capsys.readouterr().err
    for old, new in ((3, 4), (4, 5), (5, 6)):
        assert f"note: line boathouse-{new}: adopted takes 1 of boathouse-{old}" in err
        take = store.selected_take("boathouse", f"boathouse-{new}")
        assert take.record.adopted_from.line == f"boathouse-{old}"
        assert take.record.adopted_from.take == 1
        assert np.array_equal(take.audio(), before[old])
    # the new line's take stays under its own id and is not copied to the line after it
    speakers = [t.record.speaker for t in store.takes("boathouse", "boathouse-4")]
    assert speakers == ["DESMOND", "MARGOT"]
