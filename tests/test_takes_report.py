"""What `drama render` says about the takes it made, and what `drama takes` shows of each take:
its words, note, parent, edit and whether it was made for older text."""

from __future__ import annotations

import json
import re

from fakes import FakeBackend, fake_render, write_script

from drama_cli.cli import main


def test_render_with_more_takes_counts_and_names_the_takes_it_made(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    assert main(["render", str(path), "--takes", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["new_takes"] == {"boathouse-1": [2, 3], "boathouse-2": [2, 3]}
    assert report["counts"]["new_takes"] == 4 and report["backend_calls"] == 4
    assert "new_takes" not in report["lines"][0]  # the report's `new_takes` names them
    assert main(["render", str(path), "--takes", "4"]) == 0
    captured = capsys.readouterr()
    out = " ".join(captured.out.split())
    assert "2 new takes (boathouse-1: take 4; boathouse-2: take 4)" in out
    rows = {
        row.split()[0]: re.split(r"\s{2,}", row.strip())
        for row in captured.out.splitlines()
        if row.startswith("boathouse-")
    }
    assert rows["boathouse-1"][:5] == [
        "boathouse-1",
        "MARGOT",
        "rendered",
        "1",
        "4",
    ]  # take 1 selected, 4 new
    assert "drama: [1/2] boathouse-1 MARGOT: rendered take 1, 1.00 s (new takes 4)" in captured.err
    assert main(["render", str(path), "--takes", "4"]) == 0
    assert "no new takes" in " ".join(capsys.readouterr().out.split())


def test_takes_shows_words_parent_note_edit_and_staleness(short_project, capsys):
    path, _ = short_project
    assert main(["revise", str(path), "s1-2", "--note", "softer"]) == 0
    assert (
        main(
            [
                "edit",
                str(path),
                "s1-2",
                "--text",
                "We hardly ever said goodbye.",
                "--span",
                "0.3:0.75",
            ]
        )
        == 0
    )
    path.write_text(path.read_text().replace("Indeed I do.", "Indeed I did."))
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    rows = {row["line"]: row for row in json.loads(capsys.readouterr().out)}
    (first,) = rows["s1-1"]["takes"]
    assert (first["text"], first["stale"], first["parent_take"], first["edit"]) == (
        "Indeed I do.",
        True,
        None,
        None,
    )
    assert rows["s1-1"]["text"] == "Indeed I did."
    original, revised, edited = rows["s1-2"]["takes"]
    assert (original["note"], original["parent_take"]) == (None, None)
    assert (revised["note"], revised["parent_take"], revised["text"]) == (
        "softer",
        1,
        "We never said goodbye.",
    )
    assert edited["parent_take"] == 1 and edited["text"] == "We hardly ever said goodbye."
    assert edited["edit"]["old_text"] == "We never said goodbye."
    assert edited["edit"]["new_text"] == "We hardly ever said goodbye."
    assert edited["edit"]["whole_line"] is False
    assert [t["stale"] for t in rows["s1-2"]["takes"]] == [False, False, False]
    assert main(["takes", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].strip() == "takes (scene s1; engine fake)"
    table = [
        re.split(r"\s{2,}", row.strip())
        for row in out.splitlines()
        if row.strip().startswith("s1-")
    ]
    header = re.split(r"\s{2,}", next(r for r in out.splitlines() if "words" in r).strip())
    assert header == [
        "line",
        "take",
        "s",
        "from",
        "seed",
        "LUFS",
        "words",
        "note / edit",
        "checks",
        "file",
    ]
    by_take = {(row[0], row[1]): dict(zip(header, row)) for row in table}
    assert by_take["s1-1", "1 *"] == {
        **by_take["s1-1", "1 *"],
        "from": "-",
        "words": "Indeed I do.",
        "note / edit": "-",
        "checks": "stale (made for older text); ok",
    }
    assert (
        by_take["s1-2", "2"]["from"] == "1"
        and by_take["s1-2", "2"]["note / edit"] == "note: softer"
    )
    assert by_take["s1-2", "2"]["words"] == "We never said goodbye."
    start, end = edited["edit"]["span_s"]
    assert edited["edit"]["covered_words"] == ["never"] and 0.2 < start < 0.3 < 0.75 < end < 0.9
    assert by_take["s1-2", "3"]["words"] == "We hardly ever said goodbye."
    assert by_take["s1-2", "3"]["note / edit"] == f"edit {start:.2f}-{end:.2f} s over 'never'"
    assert by_take["s1-2", "3"]["from"] == "1" and by_take["s1-2", "1 *"]["from"] == "-"


def test_a_take_of_a_line_with_numbers_is_not_stale_until_its_words_change(
    tmp_path, monkeypatch, capsys
):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    path = write_script(tmp_path, ["Meet me at 6 by gate 4.", "[sighs] Fine then."])
    assert main(["render", str(path)]) == 0
    assert "six" in backend.requests[0].text  # the compiler says numbers as words
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    assert [row["takes"][0]["stale"] for row in json.loads(capsys.readouterr().out)] == [
        False,
        False,
    ]
    assert main(["mix", str(path)]) == 0
    write_script(tmp_path, ["Meet me at 7 by gate 4.", "[laughs] Fine then."])
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    assert [row["takes"][0]["stale"] for row in json.loads(capsys.readouterr().out)] == [True, True]
    assert main(["mix", str(path)]) == 1


LONG_IDS = """\
title: Long ids
cast:
  MARGOT: {}
  DESMOND: {}
scenes:
  - id: the-boathouse-at-dawn-before-the-regatta
    lines:
      - id: margot-announces-the-departure-time-to-everyone
        speaker: MARGOT
        text: We leave at six.
      - id: desmond-refuses-without-the-oars-of-course
        speaker: DESMOND
        text: Not without the oars.
"""


def test_output_to_a_pipe_keeps_full_ids_and_logs_one_line_per_finished_line(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch, FakeBackend())
    path = tmp_path / "long.yaml"
    path.write_text(LONG_IDS)
    assert main(["render", str(path)]) == 0
    captured = capsys.readouterr()
    for line_id in (
        "margot-announces-the-departure-time-to-everyone",
        "desmond-refuses-without-the-oars-of-course",
    ):
        assert line_id in captured.out
    assert "the-boathouse-at-dawn-before-the-regatta" in captured.out
    log = [line for line in captured.err.splitlines() if line.startswith("drama: [")]
    assert len(log) == 2
    assert log[0].startswith(
        "drama: [1/2] margot-announces-the-departure-time-to-everyone MARGOT: rendered take 1, "
    )
    assert log[1].startswith(
        "drama: [2/2] desmond-refuses-without-the-oars-of-course DESMOND: rendered take 1, "
    )
    assert main(["takes", str(path)]) == 0
    assert "desmond-refuses-without-the-oars-of-course" in capsys.readouterr().out


def test_results_print_paths_and_ids_as_written_not_as_markup(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    folder = tmp_path / "[bold]draft"
    folder.mkdir()
    path = write_script(folder, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"project {folder / 'scene.drama'}" in out
    assert f"{folder / 'scene.drama' / 'boathouse' / 'mix.wav'}" in out


def test_takes_lists_each_takes_file_and_loudness(tmp_path, monkeypatch, capsys):
    import soundfile as sf
    from fakes import fake_render, write_script

    from drama_cli.mix.loudness import measure

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    take = json.loads(capsys.readouterr().out)[0]["takes"][0]
    wav = tmp_path / "scene.drama" / "boathouse" / "boathouse-1" / "take-001.wav"
    assert take["file"] == str(wav)
    expected = measure(sf.read(wav, dtype="float32")[0])
    assert take["loudness_lufs"] == round(expected.integrated_lufs, 1) and take[
        "peak_dbfs"
    ] == round(expected.peak_dbfs, 1)
    assert main(["takes", str(path)]) == 0
    out = capsys.readouterr().out
    assert str(wav) in out.replace("\n", "") and f"{take['loudness_lufs']:.1f}" in out


def test_prune_removes_only_unusable_takes_nothing_selects_or_derives_from(
    tmp_path, monkeypatch, capsys
):
    from fakes import FakeBackend, fake_render, voice, write_script

    def runaway(request, call):  # calls 1 and 2 of the first line run away, the third passes
        return voice(6.5 if call in (1, 2) else 1.0), "eos"

    fake_render(monkeypatch, FakeBackend(answer=runaway))
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--retries", "2"]) == 0
    folder = tmp_path / "scene.drama" / "boathouse" / "boathouse-1"
    (folder / "take-004.json").write_text("[]")  # a damaged take
    (folder / "take-004.wav").write_bytes(b"RIFF")
    capsys.readouterr()
    assert main(["takes", str(path), "--prune", "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("would remove boathouse-1 take 1 (unusable: runaway")
    assert out[1].startswith("would remove boathouse-1 take 2 (unusable: runaway")
    assert out[2] == (
        f"would remove boathouse-1 take 4 (invalid: audio file truncated or not a WAV): "
        f"{folder / 'take-004.json'}, {folder / 'take-004.wav'}"
    )
    assert out[3] == "3 take(s) would be removed; run again without --dry-run to remove them"
    assert main(["takes", str(path), "--prune", "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["exit_code"], report["dry_run"], report["removed"]) == (
        True,
        0,
        True,
        [],
    )
    assert [t["number"] for t in report["would_remove"]] == [1, 2, 4]
    assert sorted(p.name for p in folder.iterdir()) == [
        f"take-00{n}.{kind}" for n in (1, 2, 3, 4) for kind in ("json", "wav")
    ]
    assert main(["takes", str(path), "--prune"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["take-003.json", "take-003.wav"]
    assert main(["mix", str(path)]) == 0


def test_on_an_80_column_terminal_the_render_table_shows_ids_and_status_whole(
    tmp_path, monkeypatch, capsys
):
    import sys

    fake_render(monkeypatch, FakeBackend())
    path = tmp_path / "long.yaml"
    path.write_text(LONG_IDS)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["render", str(path)]) == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)  # a terminal gets styles
    rows = [row for row in out.split("\nlines: ")[0].splitlines() if row.strip()]
    header = next(row for row in rows if row.startswith("line"))
    assert max(len(row) for row in rows) <= 80 and "…" not in out
    cut = header.index("speaker")
    ids, statuses = [], []
    for row in rows[rows.index(header) + 2 :]:
        if row[cut:].split()[:1] in (["MARGOT"], ["DESMOND"]):  # a line's first row
            ids.append(row[:cut].strip())
            statuses.append(row[cut:].split()[1])
        else:  # the folded rest of its id
            ids[-1] += row[:cut].strip()
    assert ids == [
        "margot-announces-the-departure-time-to-everyone",
        "desmond-refuses-without-the-oars-of-course",
    ]
    assert statuses == ["rendered", "rendered"]


def test_the_progress_log_counts_each_lines_retries_and_estimates_the_time_left(capsys):
    from types import SimpleNamespace

    from drama_cli.commands.progress import LineLog, time_left

    now = [100.0]
    log = LineLog(clock=lambda: now[0])
    log.start(4)
    job = SimpleNamespace(line_id="s1-1", speaker="A")
    for attempt in (0, 1, 2):
        log.attempt(job, 0, attempt, 7)
    now[0] = 130.0
    log.done(
        SimpleNamespace(
            line_id="s1-1",
            speaker="A",
            status="rendered",
            take=3,
            duration_s=2.0,
            new_takes=[1, 2, 3],
            message="",
        )
    )
    now[0] = 160.0
    log.done(
        SimpleNamespace(
            line_id="s1-2",
            speaker="B",
            status="rendered",
            take=1,
            duration_s=1.0,
            new_takes=[1],
            message="",
        )
    )
    assert capsys.readouterr().err.splitlines() == [
        "drama: [1/4] s1-1 A: rendered take 3, 2.00 s; 2 retries; about 1 min 30 s left",
        "drama: [2/4] s1-2 B: rendered take 1, 1.00 s; about 1 min left",
    ]
    assert time_left(3 * 3725.0, 3, 1) == "about 1 h 2 min left"
    assert time_left(10.0, 0, 4) == time_left(10.0, 4, 0) == ""


def test_the_progress_log_estimates_the_time_left_from_rendered_lines_only(capsys):
    from types import SimpleNamespace

    from drama_cli.commands.progress import LineLog

    now = [0.0]
    log = LineLog(clock=lambda: now[0])
    log.start(6)
    for number in (1, 2):  # a resumed render: the finished lines are reused at once
        now[0] += 0.01
        log.done(
            SimpleNamespace(
                line_id=f"s1-{number}",
                speaker="A",
                status="reused",
                take=1,
                duration_s=2.0,
                new_takes=[],
                message="",
            )
        )
    now[0] = 20.02
    log.done(
        SimpleNamespace(
            line_id="s1-3",
            speaker="A",
            status="rendered",
            take=1,
            duration_s=2.0,
            new_takes=[1],
            message="",
        )
    )
    assert capsys.readouterr().err.splitlines() == [
        "drama: [1/6] s1-1 A: reused take 1, 2.00 s",
        "drama: [2/6] s1-2 A: reused take 1, 2.00 s",
        "drama: [3/6] s1-3 A: rendered take 1, 2.00 s; about 1 min left",
    ]


def test_render_takes_the_chunk_cap_compile_shows(tmp_path, monkeypatch, capsys):
    from fakes import fake_render, write_script

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    words = "We leave at six and not a minute later, for the tide turns at seven and the oars are heavy."
    path = write_script(tmp_path, [words])
    capsys.readouterr()
    assert main(["compile", str(path), "--max-chars", "50", "--json"]) == 0
    chunks = len(json.loads(capsys.readouterr().out)["lines"][0]["chunks"])
    assert chunks == 3
    assert main(["render", str(path), "--max-chars", "50"]) == 0
    assert len(fake.requests) == chunks
    assert json.loads((tmp_path / "scene.drama" / "project.json").read_text())["max_chars"] == 50
    assert main(["render", str(path), "--max-chars", "39"]) == 2
    assert "--max-chars must be at least 40 characters, got 39" in capsys.readouterr().err


def test_adopt_gives_a_line_the_takes_its_old_id_kept_so_render_keeps_them(
    tmp_path, monkeypatch, capsys
):
    from fakes import fake_render, write_script

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine then.", "Not without the oars."])
    assert main(["render", str(path)]) == 0
    path.write_text(
        path.read_text().replace(  # line 2 removed: the id of line 3 shifts
            '      - speaker: DESMOND\n        text: "Fine then."\n', ""
        )
    )
    fake.requests.clear()
    capsys.readouterr()
    assert main(["takes", str(path), "--adopt", "boathouse-3", "boathouse-2", "--json"]) == 0
    captured = capsys.readouterr()
    assert "line boathouse-2: adopted takes 1 as 2 of boathouse-3" in captured.err
    (row,) = json.loads(captured.out)
    assert [(t["take"], t["selected"], t["stale"], t["text"]) for t in row["takes"]] == [
        (1, False, True, "Fine then."),
        (2, True, False, "Not without the oars."),
    ]
    assert main(["render", str(path)]) == 0
    assert fake.requests == []


def test_a_render_adopts_the_takes_of_a_moved_id_when_they_say_the_line_exactly(
    tmp_path, monkeypatch, capsys
):
    from fakes import fake_render, write_script

    from drama_cli.takes.store import TakeStore

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine then.", "Not without the oars."])
    assert main(["render", str(path)]) == 0
    path.write_text(
        path.read_text().replace('      - speaker: DESMOND\n        text: "Fine then."\n', "")
    )
    fake.requests.clear()
    capsys.readouterr()
    assert main(["render", str(path)]) == 0
    assert fake.requests == []
    assert (
        "drama: note: line boathouse-2: adopted takes 1 of boathouse-3, made for this text (the ids "
        "moved when a line was removed or added)"
    ) in capsys.readouterr().err.splitlines()
    take = TakeStore(tmp_path / "scene.drama").selected_take("boathouse", "boathouse-2")
    assert take.number == 2 and take.record.to_json()["adopted_from"] == {
        "line": "boathouse-3",
        "take": 1,
    }


def test_adopt_refuses_another_speaker_and_copies_nothing_twice(tmp_path, monkeypatch, capsys):
    from fakes import fake_render, write_script

    from drama_cli.takes.store import TakeStore

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then.", "Not without the oars."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--adopt", "boathouse-2", "boathouse-3"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "drama: line boathouse-2: its takes are spoken by DESMOND, line boathouse-3 by MARGOT; "
        "takes are adopted only for the same speaker"
    ]
    assert main(["takes", str(path), "--adopt", "boathouse-1", "boathouse-3"]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--adopt", "boathouse-1", "boathouse-3"]) == 0
    assert (
        "drama: line boathouse-3: nothing new to adopt; every take of boathouse-1 was adopted before"
        in capsys.readouterr().err.splitlines()
    )
    numbers = [
        t.number for t in TakeStore(tmp_path / "scene.drama").scan("boathouse", "boathouse-3").valid
    ]
    assert numbers == [1, 2]


def test_a_render_renders_anew_a_moved_line_whose_old_id_holds_another_speakers_takes(
    tmp_path, monkeypatch, capsys
):
    from fakes import fake_render, write_script

    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine then.", "Not without the oars."])
    assert main(["render", str(path)]) == 0
    margot = '      - speaker: MARGOT\n        text: "Not without the oars."\n'
    path.write_text(path.read_text().replace(margot, margot.replace("MARGOT", "DESMOND")))
    assert main(["render", str(path)]) == 0  # boathouse-3 take 2: DESMOND's
    path.write_text(path.read_text().replace(margot.replace("MARGOT", "DESMOND"), margot))
    assert main(["takes", str(path), "--line", "boathouse-3", "--select", "1"]) == 0
    path.write_text(
        path.read_text().replace('      - speaker: DESMOND\n        text: "Fine then."\n', "")
    )
    fake.requests.clear()
    assert main(["render", str(path)]) == 0
    assert len(fake.requests) == 1  # the moved line, rendered anew rather than adopting
