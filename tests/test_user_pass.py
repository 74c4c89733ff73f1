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


def _fountain(tmp_path, body, cast="cast:\n  ALGERNON: {}\n  JACK: {}\n"):
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


def test_check_json_failure_has_the_exit_code(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("cast:\n  A: a.wav\nlines:\n  - B: hi\n")
    assert main(["check", str(path), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["exit_code"] == 2
    assert [(e["line"], e["column"]) for e in report["errors"]] == [(2, 6), (4, 5)]  # the clip, then B


def test_check_json_warnings_are_located_like_errors(tmp_path, capsys):
    path = _fountain(tmp_path, "INT. FLAT - DAY\n\nALGERNON\nHello.\nJACK\nHi.\n")
    assert main(["check", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["exit_code"] == 0
    cue_like = [w for w in report["warnings"] if "'JACK'" in w["message"]]
    assert cue_like == [{"message": cue_like[0]["message"], "file": str(path), "line": 5, "column": 1,
                         "position": f"{path}:5:1"}]


def test_import_takes_json(tmp_path, capsys):
    manuscript = tmp_path / "novel.md"
    manuscript.write_text("# Chapter One\n\nIt was dark.\n\nIt was late.\n")
    out = tmp_path / "novel.yaml"
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"ok": True, "exit_code": 0, "output": str(out), "chapters": 1, "lines": 2,
                      "unattributed": 0}
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 2  # exists: refused
    failure = json.loads(capsys.readouterr().out)
    assert failure["ok"] is False and failure["exit_code"] == 2 and "--force" in failure["errors"][0]["message"]


def test_book_json_has_ok_and_exit_code(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    path = tmp_path / "door.yaml"
    path.write_text("title: Door\nnarrator: N\nbook:\n  author: Ada Finch\n  opening_credits: none\n"
                    "  closing_credits: none\ncast:\n  N: {}\nchapters:\n  - title: The Door\n"
                    "    scenes:\n      - lines: [N: The door was open.]\n", encoding="utf-8")
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["book", str(path), "--no-sample", "--no-m4b", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["exit_code"] == 0 and report["passed"] is True


def _run_with_reader_gone(args, cwd, read=0):
    """Run `drama ARGS` in a new interpreter whose stdout reader goes away after `read` bytes;
    returns (exit code, stderr)."""
    import subprocess
    import sys

    code = "import sys; from drama_cli.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.read(read)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=120), err


@pytest.mark.parametrize("lines, read", [(2, 0), (6000, 100)])  # buffered, and past the pipe's buffer
def test_a_closed_pipe_ends_quietly_with_141(tmp_path, lines, read):
    path = tmp_path / "play.yaml"
    path.write_text("cast:\n  A: {}\nlines:\n" + "".join(f"  - A: Line {i}.\n" for i in range(lines)))
    code, err = _run_with_reader_gone(["check", str(path), "--json"], tmp_path, read)
    assert (code, err) == (141, "")


def _stdin(monkeypatch, data: bytes):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_binary_stdin_is_not_utf8_like_a_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "c.yaml").write_text("cast:\n  A: {}\n")
    _stdin(monkeypatch, b"INT. ROOM\n\n\xff\xfe\x00\x81 binary\n")
    assert main(["check", "-", "--cast", str(tmp_path / "c.yaml")]) == 2
    assert capsys.readouterr().err.splitlines()[0] == "<stdin>:3:1: the script is not UTF-8 text (save the file as UTF-8)"


def test_empty_stdin_says_the_script_is_empty(monkeypatch, capsys):
    _stdin(monkeypatch, b"  \n\n")
    assert main(["check", "-"]) == 2
    assert capsys.readouterr().err.splitlines()[0].startswith("<stdin>:1:1: the script is empty")


def test_yaml_in_a_txt_file_is_read_as_yaml(tmp_path):
    from drama_cli.script.load import load_script

    path = tmp_path / "s.txt"
    path.write_text("cast:\n  A: {}\nlines:\n  - A: Hello there.\n")
    script = load_script(path)
    assert script.format == "yaml" and [line.text for line in script.lines()] == ["Hello there."]


@pytest.mark.parametrize("verb", ["check", "render"])
def test_empty_cast_option_names_cast(tmp_path, capsys, verb):
    path = _fountain(tmp_path, "INT. FLAT - DAY\n\nALGERNON\nHello.\n")
    assert main([verb, str(path), "--cast", ""]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == "drama: --cast is empty: give the cast file (YAML)"
    assert main([verb, str(path), "--cast", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"drama: --cast {tmp_path} is a folder: give the cast file (YAML)"


@pytest.mark.parametrize("after", ["\n[[check the cut]]\n", "\n", ""])
def test_a_lone_cue_is_warned_about_and_not_narrated(tmp_path, after):
    from drama_cli.script.load import load_script

    path = _fountain(tmp_path, "INT. BAKER STREET - DAY\n\nWATSON\nWho is it?\n\nHolmes looks up.\n\nHOLMES" + after,
                     cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n  WATSON: {}\n")
    script = load_script(path)
    assert [(line.speaker, line.text) for line in script.lines()] == [
        ("WATSON", "Who is it?"), ("NARRATOR", "Holmes looks up.")]
    lone = [w for w in script.warnings if "has no dialogue" in w.message]
    assert [(str(w.position), w.message) for w in lone] == [
        (f"{path}:8:1", "character cue 'HOLMES' (HOLMES) has no dialogue after it, so nothing is spoken "
                        "for it: write the speech on the line after the cue, or remove the cue")]


def test_a_capitalised_action_line_that_names_no_one_is_still_narrated(tmp_path):
    from drama_cli.script.load import load_script

    path = _fountain(tmp_path, "INT. HALL - NIGHT\n\nBANG!\n\n!HOLMES\n",
                     cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n")
    script = load_script(path)
    assert [line.text for line in script.lines()] == ["BANG!", "HOLMES"]  # forced action stays action
    assert not [w for w in script.warnings if "has no dialogue" in w.message]


BAD_CAST_AND_LINES = """cast:
  A: {{voice: refs/a.wav{index}}}
  B: refs/missing.wav
lines:
  - Z: hi
  - A: "<|im_end|> and <whisper></whisper>"
"""


def _bad_script(tmp_path, index=""):
    import numpy as np
    import soundfile as sf

    (tmp_path / "refs").mkdir()
    sf.write(tmp_path / "refs" / "a.wav", 0.1 * np.sin(np.arange(44_100) / 10.0), 44_100)
    path = tmp_path / "play.yaml"
    path.write_text(BAD_CAST_AND_LINES.format(index=index))
    return path


@pytest.mark.parametrize("index", [", speaker: 99", ""])
def test_check_lists_cast_clip_and_every_tag_problem(tmp_path, capsys, index):
    path = _bad_script(tmp_path, index)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    expected = ([f"{path}:2:35: speaker index must be 0..15, got 99"] if index else []) + [
        f"{path}:3:6: reference clip 'refs/missing.wav' of B does not exist",
        f"{path}:5:5: unknown speaker 'Z'",
        f"{path}:6:9: structural model token '<|im_end|>' is not allowed in script text",
        f"{path}:6:24: scoped tag <whisper> has nothing inside"]
    assert [line.split(" (")[0] for line in err[:-1]] == expected
    assert err[-1] == f"drama: {len(expected)} errors in {path}"


def test_every_model_token_of_a_line_is_listed_once():
    from drama_cli.errors import ScriptErrors
    from drama_cli.script.direction import parse_directions

    with pytest.raises(ScriptErrors) as info:
        parse_directions("a <|im_end|> b <|speaker:1|> c <| d <speaker:2> <b></b> e {X}")
    assert [(e.position.column, e.message.split(" is ")[0]) for e in info.value.errors] == [
        (3, "structural model token '<|im_end|>'"), (16, "model token '<|speaker:1|>'"),
        (32, "'<|' starts a model token and"), (37, "'<speaker:2>'"), (49, "scoped tag <b> has nothing inside"),
        (59, "speaker switch {X} has nothing to say after it")]


def test_render_of_a_bad_script_says_how_many_more_check_lists(tmp_path, capsys):
    path = _bad_script(tmp_path, ", speaker: 99")
    assert main(["render", str(path), "--engine", "scratch"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"drama: {path}:2:35: speaker index must be 0..15, got 99 (and 4 more problems: `drama check` "
        f"lists them all)")
    path.write_text("cast:\n  A: refs/a.wav\n  B: refs/missing.wav\n  C: refs/missing2.wav\nlines:\n"
                    "  - A: hi\n  - B: x\n  - C: y\n")
    assert main(["render", str(path), "--engine", "scratch"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        "; and 1 more problem: `drama check` lists them all)")
