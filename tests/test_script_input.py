"""Where a script comes from: stdin (binary, empty, Fountain with or without `--cast`), YAML in a
file of another suffix, and a `--cast` that is empty or a folder."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from fakes import CAST, fake_render, fountain_play, one_error_line

from drama_cli.cli import main


def _stdin(monkeypatch, data: bytes):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_binary_stdin_is_not_utf8_like_a_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "c.yaml").write_text("cast:\n  A: {}\n")
    _stdin(monkeypatch, b"INT. ROOM\n\n\xff\xfe\x00\x81 binary\n")
    assert main(["check", "-", "--cast", str(tmp_path / "c.yaml")]) == 2
    assert (
        capsys.readouterr().err.splitlines()[0]
        == "<stdin>:3:1: the script is not UTF-8 text (save the file as UTF-8)"
    )


def test_empty_stdin_says_the_script_is_empty(monkeypatch, capsys):
    _stdin(monkeypatch, b"  \n\n")
    assert main(["check", "-"]) == 2
    assert capsys.readouterr().err.splitlines()[0].startswith("<stdin>:1:1: the script is empty")


def test_fountain_on_stdin_without_a_cast_asks_for_cast_not_a_stdin_file(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("INT. ROOM - DAY\n\nHOLMES\nCome in!\n"))
    assert main(["check", "-"]) == 2
    err = one_error_line(capsys)
    assert "<stdin>.cast.yaml" not in err and "stdin.cast.yaml" not in err
    assert (
        "<stdin>:1:1: no cast file for this script (a script read from stdin needs --cast FILE)"
        in err
    )


def test_fountain_on_stdin_with_a_cast_reads(tmp_path, monkeypatch, capsys):
    (tmp_path / "c.yaml").write_text(CAST)
    monkeypatch.setattr("sys.stdin", io.StringIO("INT. ROOM - DAY\n\nHOLMES\nCome in!\n"))
    assert main(["check", "-", "--cast", str(tmp_path / "c.yaml")]) == 0


def test_yaml_in_a_txt_file_is_read_as_yaml(tmp_path):
    from drama_cli.script.load import load_script

    path = tmp_path / "s.txt"
    path.write_text("cast:\n  A: {}\nlines:\n  - A: Hello there.\n")
    script = load_script(path)
    assert script.format == "yaml" and [line.text for line in script.lines()] == ["Hello there."]


@pytest.mark.parametrize("verb", ["check", "render"])
def test_empty_cast_option_names_cast(tmp_path, capsys, verb):
    path = fountain_play(tmp_path, "INT. FLAT - DAY\n\nALGERNON\nHello.\n")
    assert main([verb, str(path), "--cast", ""]) == 2
    assert (
        capsys.readouterr().err.strip().splitlines()[-1]
        == "drama: --cast is empty: give the cast file (YAML)"
    )
    assert main([verb, str(path), "--cast", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err.strip().splitlines()[-1]
        == f"drama: --cast {tmp_path} is a folder: give the cast file (YAML)"
    )


def test_a_nul_byte_is_reported_at_its_own_column(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_bytes(b"cast:\n  A: {}\nscenes:\n  - id: s\n    lines:\n      - A: Hel\x00lo\n")
    assert main(["check", str(path)]) == 2
    assert (
        capsys.readouterr().err.splitlines()[0].startswith(f"{path}:6:15: the script is not text")
    )


def test_a_script_reached_by_a_link_finds_its_clips_and_cast_beside_the_file_it_points_to(tmp_path):
    import numpy as np
    import soundfile as sf

    from drama_cli.script.load import load_script

    real = tmp_path / "plays"
    (real / "refs").mkdir(parents=True)
    sf.write(real / "refs" / "a.wav", np.zeros(44_100, np.float32), 44_100)
    (real / "night.fountain").write_text("INT. ROOM\n\nA\nHello there.\n")
    (real / "night.cast.yaml").write_text(
        "cast:\n  A:\n    voice: refs/a.wav\n    transcript: Hi.\n"
    )
    link = tmp_path / "elsewhere" / "night.fountain"
    link.parent.mkdir()
    link.symlink_to(real / "night.fountain")
    script = load_script(str(link))
    clip = script.cast["A"].references[0]
    assert (Path(script.base_dir) / clip.path).resolve() == (real / "refs" / "a.wav").resolve()


def test_a_second_script_piped_into_the_same_folder_is_refused_without_out(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch)
    monkeypatch.chdir(tmp_path)
    first, second = (
        b"cast:\n  A: {}\nlines:\n  - A: One.\n",
        b"cast:\n  A: {}\nlines:\n  - A: Two.\n",
    )
    _stdin(monkeypatch, first)
    assert main(["render", "-"]) == 0
    _stdin(monkeypatch, first)
    assert main(["render", "-"]) == 0  # the same script again: its own project
    _stdin(monkeypatch, second)
    capsys.readouterr()
    assert main(["render", "-"]) == 2
    assert capsys.readouterr().err.strip() == (
        "drama: stdin.drama holds the project of another script read from stdin (or of an earlier "
        "version of this one); give --out FOLDER: a new folder for another script, --out "
        "stdin.drama to go on with this project"
    )
    _stdin(monkeypatch, second)
    assert main(["render", "-", "--out", "two.drama"]) == 0
