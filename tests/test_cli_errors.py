"""How the command line fails: a JSON error object on every `--json` path, one line naming the
help for a parser error, Ctrl-C saying what was kept (and a second Ctrl-C ending the console
script quietly), and a reader that goes away ending the command quietly with 141."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fakes import FakeBackend, fake_render, single_error_line, voice, write_script

from drama_cli.cli import main
from drama_cli.takes.store import TakeStore


def _run_with_reader_gone(args, cwd, read=0):
    """Run `drama ARGS` in a new interpreter whose stdout reader goes away after `read` bytes;
    returns (exit code, stderr)."""
    import subprocess
    import sys

    code = "import sys; from drama_cli.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.read(read)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


@pytest.mark.parametrize(
    "lines, read", [(2, 0), (6000, 100)]
)  # buffered, and past the pipe's buffer
def test_a_closed_pipe_ends_quietly_with_141(tmp_path, lines, read):
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A: {}\nlines:\n" + "".join(f"  - A: Line {i}.\n" for i in range(lines))
    )
    code, err = _run_with_reader_gone(["check", str(path), "--json"], tmp_path, read)
    assert (code, err) == (141, "")


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["render", "{script}", "--takes", "0"], 2, "--takes must be between 1 and 100, got 0"),
        (
            ["render", "{script}", "--retries", "1000000"],
            2,
            "--retries must be between 0 and 100, got 1000000",
        ),
        (
            ["render", "{script}", "--seed", "4294967296"],
            2,
            "--seed must be between 0 and 2147483647, got 4294967296",
        ),
        (
            ["render", "{script}", "--seed", "-1"],
            2,
            "--seed must be between 0 and 2147483647, got -1",
        ),
        (["render", "{missing}"], 2, "cannot read script"),
        (["mix", "{script}"], 2, "is not a rendered project; run drama render first"),
        (["takes", "{script}", "--select", "2"], 2, "--select needs exactly one --line"),
        (["compile", "{script}", "--mode", "karaoke"], 2, "unknown mode 'karaoke'"),
        (["edit", "{script}", "boathouse-1", "--text", "x", "--span", "1:1"], 2, "bad span"),
        (["render", "{script}", "--bogus"], 2, "No such option: --bogus"),
    ],
)
def test_every_json_command_prints_a_json_error_object_on_failure(
    tmp_path, monkeypatch, capsys, args, code, message
):
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
    assert report["errors"][0] == {
        "file": str(path),
        "line": 4,
        "column": 5,
        "message": "unknown speaker 'B'",
        "hint": "add the name to the cast or as an alias",
    }


def test_json_results_are_not_followed_by_an_error_object(tmp_path, monkeypatch, capsys):
    fake_render(
        monkeypatch, FakeBackend(answer=lambda request, n: (np.zeros(SR_SECOND, np.float32), "eos"))
    )
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
        assert json.loads(captured.out) == {
            "ok": False,
            "exit_code": 130,
            "kept": kept,
            "errors": [{"message": f"interrupted: {kept}"}],
        }
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


def test_console_script_interrupted_lets_a_second_ctrl_c_end_it_quietly(monkeypatch):
    import signal

    import drama_cli.cli as cli

    handlers = []
    monkeypatch.setattr(cli, "_run", lambda args, debug, as_json: cli.EXIT_INTERRUPTED)
    monkeypatch.setattr(
        cli.signal, "signal", lambda signum, handler: handlers.append((signum, handler))
    )
    monkeypatch.setattr(cli.sys, "argv", ["drama", "render", "x.yaml"])
    assert cli.main() == cli.EXIT_INTERRUPTED
    assert handlers == [(signal.SIGINT, signal.SIG_DFL)]
    handlers.clear()
    assert cli.main(["render", "x.yaml"]) == cli.EXIT_INTERRUPTED  # called in-process: left alone
    assert handlers == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["render", "{script}", "--batch", "abc"], "Invalid value for '--batch'"),
        (["render", "{script}", "--bogus"], "No such option: --bogus"),
        (["compile", "{script}", "--batch", "2"], "No such option: --batch"),
        (["render"], "Missing argument"),
    ],
)
def test_a_parser_error_is_one_line_naming_the_help(tmp_path, capsys, args, message):
    path = write_script(tmp_path, ["We leave at six."])
    assert main([a.format(script=path) for a in args]) == 2
    err = single_error_line(capsys)
    command = "drama " + args[0]
    assert err.startswith(f"drama: {message}") and err.endswith(f"(see '{command} --help')"), err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--at", "1:2", "--select", "1", "--line", "boathouse-1"], "give one of --at, --prune"),
        (["--at", "1:2", "--prune"], "give one of --at, --prune"),
        (["--at", "1:2", "--line", "boathouse-1"], "--at finds its line by the book's time"),
    ],
)
def test_takes_at_with_another_action_is_refused_not_ignored(
    tmp_path, monkeypatch, capsys, flags, message
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    selected = (tmp_path / "scene.drama" / "boathouse" / "selected.json").read_text()
    capsys.readouterr()
    assert main(["takes", str(path), *flags]) == 2
    assert single_error_line(capsys).startswith(f"drama: {message}")
    assert (tmp_path / "scene.drama" / "boathouse" / "selected.json").read_text() == selected
