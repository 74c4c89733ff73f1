"""The command line under faults and extremes: bounded --takes and take numbers whose names
sort in number order, file-system errors as one line with exit 2, and the help texts."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fakes import FakeBackend, fake_render, voice, write_script

from drama_cli.cli import main
from drama_cli.errors import RenderError, UsageError
from drama_cli.takes.store import (
    MAX_NEW_TAKES,
    MAX_TAKE_NUMBER,
    TakeStore,
    check_new_takes,
)


@pytest.mark.parametrize("verb", ["render", "revise", "edit"])
def test_takes_beyond_the_bound_is_bad_input_before_any_work(tmp_path, monkeypatch, capsys, verb):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    args = {"render": ["render", str(path)],
            "revise": ["revise", str(path), "boathouse-1", "--note", "softer"],
            "edit": ["edit", str(path), "boathouse-1", "--text", "We go at six.", "--span", "0.1:0.5"]}[verb]
    assert main(args + ["--takes", "1000000"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"drama: --takes must be between 1 and {MAX_NEW_TAKES}, got 1000000"
    assert fake.requests == []


def test_check_new_takes_bounds():
    check_new_takes(1)
    check_new_takes(MAX_NEW_TAKES)
    for bad in (0, -1, MAX_NEW_TAKES + 1):
        with pytest.raises(UsageError, match="--takes must be between 1"):
            check_new_takes(bad)


def test_take_names_sort_in_number_order_and_stop_at_the_last_number(tmp_path):
    store = TakeStore(tmp_path / "p")
    record = {"cache_key": "k"}
    first = store.add_take("s", "l", voice(0.2), record)
    assert first.wav_path.name == "take-001.wav"
    folder = first.wav_path.parent
    (folder / f"take-{MAX_TAKE_NUMBER - 1:03d}.json").write_text("{}")  # an invalid take holds 998
    last = store.add_take("s", "l", voice(0.2), record)
    assert last.number == MAX_TAKE_NUMBER and last.wav_path.name == "take-999.wav"
    names = sorted(p.name for p in folder.glob("take-*.wav"))
    assert names == ["take-001.wav", "take-999.wav"]
    with pytest.raises(RenderError, match="line 'l' has take 999, the last take number"):
        store.add_take("s", "l", voice(0.2), record)
    assert sorted(p.name for p in folder.glob("take-*.wav")) == names


def test_old_take_names_with_more_digits_still_load(tmp_path):
    store = TakeStore(tmp_path / "p")
    take = store.add_take("s", "l", voice(0.2), {"cache_key": "k"})
    folder = take.wav_path.parent
    for suffix in (".wav", ".json"):
        (folder / f"take-1000{suffix}").write_bytes((folder / f"take-001{suffix}").read_bytes())
    record = json.loads((folder / "take-1000.json").read_text())
    record["take"] = 1000
    (folder / "take-1000.json").write_text(json.dumps(record))
    assert [t.number for t in store.takes("s", "l")] == [1, 1000]
    assert np.array_equal(store.take("s", "l", 1000).audio(), take.audio())


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith(("drama: warning:", "drama: ["))]
    assert len(lines) == 1, err
    return lines[0]


def test_read_only_project_folder_is_one_line_exit_2_even_with_nothing_to_render(tmp_path, monkeypatch, capsys):
    import errno
    import os

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    real_open = os.open

    def read_only(file, flags, *args, **kwargs):
        if flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert main(["render", str(path)]) == 2
    err = _one_line(capsys)
    lock = tmp_path / "scene.drama" / ".drama.lock"
    assert err == (f"drama: cannot write {lock}: read-only file system "
                   f"(make the project folder writable, or give --out FOLDER)")


def test_full_disk_in_the_take_writer_keeps_finished_takes(tmp_path, monkeypatch, capsys):
    import errno

    import engine.files as files_module

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    real = files_module.stage_bytes
    written = []

    def fill_up(target, data):
        if target.suffix == ".wav":
            if written:
                raise OSError(errno.ENOSPC, "No space left on device", str(target))
            written.append(target)
        return real(target, data)

    monkeypatch.setattr(files_module, "stage_bytes", fill_up)
    assert main(["render", str(path)]) == 2
    err = _one_line(capsys)
    assert err.startswith("drama: cannot write ") and "boathouse-2" in err and "take-001.wav" in err
    assert err.endswith(": no space left on device (free some space and run the command again; "
                        "finished takes are kept)")
    store = TakeStore(tmp_path / "scene.drama")
    assert [t.number for t in store.takes("boathouse", "boathouse-1")] == [1]
    assert store.takes("boathouse", "boathouse-2") == []


def test_full_disk_in_the_mix_is_one_line_exit_2_and_takes_stay(tmp_path, monkeypatch, capsys):
    import soundfile as sf

    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])

    real_write = sf.SoundFile.write

    def fail(self, data):
        if "mix" not in str(self.name):
            return real_write(self, data)
        raise sf.LibsndfileError(2, prefix=f"Error writing {self.name!r}: ")  # SFE_SYSTEM

    monkeypatch.setattr(sf.SoundFile, "write", fail)
    assert main(["render", str(path)]) == 2
    err = _one_line(capsys)
    assert err.startswith("drama: audio file error: Error writing ") and "mix" in err
    assert "(is the disk full or the folder read-only? finished takes are kept)" in err
    store = TakeStore(tmp_path / "scene.drama")
    assert len(store.takes("boathouse", "boathouse-1")) == 1 and len(store.takes("boathouse", "boathouse-2")) == 1


@pytest.mark.parametrize("args, code, message", [
    (["render", "{script}", "--takes", "0"], 2, "--takes must be between 1 and 100, got 0"),
    (["render", "{script}", "--seed", "4294967296"], 2, "--seed must be between 0 and 2147483647, got 4294967296"),
    (["render", "{script}", "--seed", "-1"], 2, "--seed must be between 0 and 2147483647, got -1"),
    (["render", "{missing}"], 2, "cannot read script"),
    (["mix", "{script}"], 2, "is not a rendered project; run drama render first"),
    (["takes", "{script}", "--select", "2"], 2, "--select needs exactly one --line"),
    (["compile", "{script}", "--mode", "karaoke"], 2, "unknown mode 'karaoke'"),
    (["edit", "{script}", "boathouse-1", "--text", "x", "--span", "1:1"], 2, "bad span"),
    (["render", "{script}", "--bogus"], 2, "No such option: --bogus"),
])
def test_every_json_command_prints_a_json_error_object_on_failure(tmp_path, monkeypatch, capsys, args, code, message):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    if args[0] == "edit":
        assert main(["render", str(path)]) == 0
    capsys.readouterr()
    argv = [a.format(script=path, missing=tmp_path / "nope.yaml") for a in args]
    assert main(argv + ["--json"]) == code
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["ok"] is False and report["exit_code"] == code
    assert message in report["errors"][0]["message"]
    assert message in captured.err


def test_json_error_of_a_script_error_carries_its_position(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("cast:\n  A: {}\nlines:\n  - B: Hello.\n")
    assert main(["render", str(path), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["errors"][0] == {"file": str(path), "line": 4, "column": 5,
                                   "message": "unknown speaker 'B'",
                                   "hint": "add the name to the cast or as an alias"}


def test_json_results_are_not_followed_by_an_error_object(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend(answer=lambda request, n: (np.zeros(SR_SECOND, np.float32), "eos")))
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path), "--json", "--retries", "0"]) == 1
    report = json.loads(capsys.readouterr().out)  # one JSON document: the render report
    assert report["lines"][0]["status"] == "failed"


SR_SECOND = 44_100


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_says_what_was_kept_and_how_to_resume(tmp_path, monkeypatch, capsys, as_json):
    def interrupt_second(request, n):
        if n == 2:
            raise KeyboardInterrupt
        return voice(1.0), "eos"

    fake_render(monkeypatch, FakeBackend(answer=interrupt_second))
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), *(["--json"] if as_json else [])]) == 130
    captured = capsys.readouterr()
    kept = "every finished take is kept; run the same command again to continue where it stopped"
    assert captured.err.strip().splitlines()[-1] == f"drama: interrupted: {kept}"
    if as_json:  # the JSON error object, with what was kept
        assert json.loads(captured.out) == {"ok": False, "exit_code": 130, "kept": kept,
                                            "errors": [{"message": f"interrupted: {kept}"}]}
    store = TakeStore(tmp_path / "scene.drama")
    assert len(store.takes("boathouse", "boathouse-1")) == 1
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    assert main(["render", str(path)]) == 0
    assert len(fake.requests) == 1  # only the line that was not finished


def test_ctrl_c_in_a_command_that_writes_nothing_is_just_interrupted(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("drama_cli.script.check.check_script", interrupted)
    assert main(["check", "whatever.yaml"]) == 130
    assert capsys.readouterr().err.strip() == "drama: interrupted"


def _help(capsys, *args) -> str:
    capsys.readouterr()
    assert main([*args, "--help"]) == 0
    return " ".join(capsys.readouterr().out.replace("│", " ").split())


def test_plot_image_option_is_image_and_output_is_refused_clearly(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    for flag in ("-o", "--image"):
        picture = tmp_path / f"scene{flag.strip('-')}.png"
        assert main(["plot", str(path), "--scene", "boathouse", flag, str(picture)]) == 0
        assert picture.read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    assert main(["plot", str(path), "--scene", "boathouse", "--output", str(tmp_path / "x.png")]) == 2
    err = _one_line(capsys)
    assert err == ("drama: --output is now --image (or -o): the picture to write; --out is the "
                   "project folder")
    text = _help(capsys, "plot")
    assert "-o, --image" in text or "--image -o" in text
    assert "--output" not in text


def test_preset_help_states_its_default(capsys):
    for verb in ("render", "mix"):
        assert "default: the project's saved preset, else none" in _help(capsys, verb)


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


def test_output_to_a_pipe_keeps_full_ids_and_logs_one_line_per_finished_line(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    path = tmp_path / "long.yaml"
    path.write_text(LONG_IDS)
    assert main(["render", str(path)]) == 0
    captured = capsys.readouterr()
    for line_id in ("margot-announces-the-departure-time-to-everyone", "desmond-refuses-without-the-oars-of-course"):
        assert line_id in captured.out
    assert "the-boathouse-at-dawn-before-the-regatta" in captured.out
    log = [line for line in captured.err.splitlines() if line.startswith("drama: [")]
    assert len(log) == 2
    assert log[0].startswith("drama: [1/2] margot-announces-the-departure-time-to-everyone MARGOT: rendered take 1, ")
    assert log[1].startswith("drama: [2/2] desmond-refuses-without-the-oars-of-course DESMOND: rendered take 1, ")
    assert main(["takes", str(path)]) == 0
    assert "desmond-refuses-without-the-oars-of-course" in capsys.readouterr().out


def test_help_paragraphs_are_one_line_each_so_they_never_break_mid_sentence():
    import typer

    from drama_cli.commands import register_all

    app = typer.Typer()
    register_all(app)
    helps = {info.name: info.help for info in app.registered_commands}
    assert helps["compile"].split("\n\n")[1].startswith(
        "Audio rows are estimated from reference durations at 44,100/2048 frames per second; the "
        "total cost per line sums both.")
    for name, text in helps.items():
        assert text and all("\n" not in paragraph for paragraph in text.split("\n\n")), name


@pytest.mark.parametrize("args, message", [
    (["render", "{script}", "--batch", "abc"], "Invalid value for '--batch'"),
    (["render", "{script}", "--bogus"], "No such option: --bogus"),
    (["compile", "{script}", "--batch", "2"], "No such option: --batch"),
    (["render"], "Missing argument"),
])
def test_a_parser_error_is_one_line_naming_the_help(tmp_path, capsys, args, message):
    path = write_script(tmp_path, ["We leave at six."])
    assert main([a.format(script=path) for a in args]) == 2
    err = _one_line(capsys)
    command = "drama " + args[0]
    assert err.startswith(f"drama: {message}") and err.endswith(f"(see '{command} --help')"), err
