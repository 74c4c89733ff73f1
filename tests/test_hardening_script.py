"""Scripts that used to pass unnoticed or crash: nothing to render, deep nesting, an unclosed
quote, a Fountain cue swallowed by the dialogue before it, and Fountain on stdin without a cast."""

from __future__ import annotations

import io

import pytest

from drama_cli.cli import main

CAST = "cast:\n  HOLMES: {}\n  WATSON: {}\n"


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err


def test_fountain_with_only_a_title_page_is_nothing_to_render(tmp_path, capsys):
    script = tmp_path / "title.fountain"
    script.write_text("Title: A Scandal in Bohemia\nAuthor: A. Conan Doyle\n")
    (tmp_path / "title.cast.yaml").write_text(CAST)
    for verb in ("check", "render"):
        assert main([verb, str(script), "--engine", "scratch"] if verb == "render" else [verb, str(script)]) == 2
        err = one_error_line(capsys)
        assert f"{script}:1:1: nothing to render: the script has no lines" in err
    assert not (tmp_path / "title.drama").exists()


def test_fountain_with_only_action_and_no_narrator_says_why_nothing_is_spoken(tmp_path, capsys):
    script = tmp_path / "quiet.fountain"
    script.write_text("INT. BAKER STREET - NIGHT\n\nHolmes plays the violin.\n")
    (tmp_path / "quiet.cast.yaml").write_text(CAST)
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert "nothing to render" in err and "narrator" in err


def test_yaml_without_lines_is_nothing_to_render(tmp_path, capsys):
    script = tmp_path / "empty.yaml"
    script.write_text(CAST + "scenes: []\n")
    assert main(["check", str(script)]) == 2
    assert "nothing to render" in one_error_line(capsys)


def test_fountain_on_stdin_without_a_cast_asks_for_cast_not_a_stdin_file(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("INT. ROOM - DAY\n\nHOLMES\nCome in!\n"))
    assert main(["check", "-"]) == 2
    err = one_error_line(capsys)
    assert "<stdin>.cast.yaml" not in err and "stdin.cast.yaml" not in err
    assert "<stdin>:1:1: no cast file for this script (a script read from stdin needs --cast FILE)" in err


def test_fountain_on_stdin_with_a_cast_reads(tmp_path, monkeypatch, capsys):
    (tmp_path / "c.yaml").write_text(CAST)
    monkeypatch.setattr("sys.stdin", io.StringIO("INT. ROOM - DAY\n\nHOLMES\nCome in!\n"))
    assert main(["check", "-", "--cast", str(tmp_path / "c.yaml")]) == 0


def test_fountain_dialogue_line_that_is_a_cast_name_warns_about_a_missing_blank_line(tmp_path, capsys):
    script = tmp_path / "door.fountain"
    script.write_text("INT. BAKER STREET - NIGHT\n\nHOLMES\nCome in!\nWATSON\nThank you.\n\n"
                      "WATSON\nNO\nMORE!\n")
    (tmp_path / "door.cast.yaml").write_text(CAST)
    assert main(["check", str(script)]) == 0
    out = capsys.readouterr()
    warnings = [w for w in out.err.splitlines() if "blank line" in w]
    assert warnings == [f"warning: {script}:5:1: dialogue line 'WATSON' of HOLMES (line scene-1-1) is a cast "
                        f"member's name: Fountain reads it as dialogue; if it is WATSON's cue, put a blank "
                        f"line before it"]


def test_yaml_unclosed_quote_is_reported_where_it_opens(tmp_path, capsys):
    script = tmp_path / "quote.yaml"
    script.write_text("cast:\n  A: {}\nlines:\n  - A: \"Hello there\n  - A: Fine.\n")
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert err.splitlines()[0].startswith(f"{script}:4:8: unclosed quote")


@pytest.mark.parametrize("kind", ["brackets", "indent"])
def test_deeply_nested_yaml_is_bad_input_not_a_crash(tmp_path, capsys, kind):
    script = tmp_path / "deep.yaml"
    if kind == "brackets":
        script.write_text(CAST + "scenes: " + "[" * 5000 + "\n")
    else:
        script.write_text(CAST + "scenes:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(3000)))
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert f"{script}:" in err and "nested too deeply" in err


HOLMES_SCRIPT = """\
title: A Scandal in Bohemia
cast:
  HOLMES:
    voice: refs/holmes.wav
    transcript: You see, but you do not observe.
lines:
  - HOLMES: Come in!
"""


def test_make_refs_with_a_relative_folder_writes_the_clips(tmp_path, monkeypatch, capsys):
    import importlib.util
    from pathlib import Path

    import soundfile as sf

    module_path = Path(__file__).resolve().parents[1] / "scripts_examples" / "make_refs.py"
    spec = importlib.util.spec_from_file_location("make_refs", module_path)
    make_refs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_refs)
    (tmp_path / "holmes").mkdir()
    (tmp_path / "holmes" / "scandal.yaml").write_text(HOLMES_SCRIPT)
    monkeypatch.chdir(tmp_path)
    assert make_refs.main("holmes") == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote refs/holmes.wav: HOLMES, ")
    info = sf.info(str(tmp_path / "holmes" / "refs" / "holmes.wav"))
    assert info.samplerate == 44_100 and info.duration > 1.0
