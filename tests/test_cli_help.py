"""`drama ... --help` reads like a tidy command line: arguments in capitals, flags without a
value type, help texts as written, one help text per shared option."""

from __future__ import annotations

import re

import pytest

from drama_cli.cli import main


def _help(capsys, monkeypatch, columns: int, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main([*args, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize(
    "args, usage",
    [
        (("render",), "Usage: drama render [OPTIONS] SCRIPT"),
        (("revise",), "Usage: drama revise [OPTIONS] SCRIPT [LINE]"),
        (("model", "info"), "Usage: drama model info [OPTIONS] PATH"),
        ((), "Usage: drama [OPTIONS] COMMAND [ARGS]..."),
    ],
)
def test_usage_names_arguments_in_capitals(capsys, monkeypatch, columns, args, usage):
    usage_line = next(
        row for row in _help(capsys, monkeypatch, columns, *args).splitlines() if "Usage:" in row
    )
    assert usage_line.strip() == usage


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", ["render", "mix", "book", "revise", "edit", "check", ""])
def test_flags_show_no_value_type(capsys, monkeypatch, columns, command):
    text = _help(capsys, monkeypatch, columns, *command.split())
    assert "<bool>" not in text
    assert "--help" in text


@pytest.mark.parametrize("command", ["render", "mix", "book", "takes", "import"])
def test_values_are_named_as_a_cli_names_them_not_as_python_types(capsys, monkeypatch, command):
    text = _help(capsys, monkeypatch, 200, command)
    assert not re.search(r"<(str|int|float|list\[\w+\]|path)>", text)
    rows = {
        row.split()[1]: row.split()[2]
        for row in text.splitlines()
        if row.lstrip("│ ").startswith("--") and len(row.split()) > 2
    }
    expected = {
        "render": {"--seed": "INTEGER", "--scene": "TEXT"},
        "mix": {"--gap": "NUMBER"},
        "book": {"--chapter": "INTEGER"},
        "takes": {"--select": "INTEGER"},
        "import": {"--narrator": "TEXT"},
    }[command]
    assert {flag: rows.get(flag) for flag in expected} == expected


def test_help_texts_are_shown_as_written(capsys, monkeypatch):
    text = " ".join(_help(capsys, monkeypatch, 200, "render").replace("│", " ").split())
    assert "pip install -e '.[cluster]'" in text
    assert "Cast file (YAML); default <script>.cast.yaml for Fountain." in text


def test_a_shared_option_reads_the_same_in_every_command(capsys, monkeypatch):
    def line(command: str, flag: str) -> str:
        rows = _help(capsys, monkeypatch, 200, command).replace("│", " ").splitlines()
        return " ".join(next(row for row in rows if row.split()[:1] == [flag]).split()[1:])

    for flag, commands in {
        "--model": ("render", "book", "revise", "edit"),
        "--gap": ("render", "mix"),
        "--cast": ("render", "check", "book"),
    }.items():
        assert len({line(command, flag) for command in commands}) == 1, flag


def test_an_option_of_two_values_names_each_value_as_click_does(capsys):
    from drama_cli.cli import main

    assert main(["takes", "--help"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "--adopt" in line)
    assert "TEXT TEXT" in row and "STR" not in row


@pytest.mark.parametrize("verb", ["render", "mix"])
def test_the_preset_and_format_help_list_every_entry_of_their_tables(capsys, monkeypatch, verb):
    from drama_cli.mix.export import EXPORT_FORMATS
    from drama_cli.mix.presets import PRESETS

    text = " ".join(_help(capsys, monkeypatch, 200, verb).split())
    assert f"Loudness preset: {', '.join(PRESETS)} " in text
    assert f"Mix format: {', '.join(EXPORT_FORMATS)} (repeatable)" in text


@pytest.mark.parametrize("verb, ids", [("mix", ["--scene", "s1"]), ("book", ["--chapter", "1"])])
def test_book_and_mix_refuse_a_stream_format_with_one_message(
    tmp_path, capsys, monkeypatch, verb, ids
):
    monkeypatch.setattr("sys.stdout.isatty", lambda: False)
    script = tmp_path / "s.yaml"
    script.write_text("title: t\n", encoding="utf-8")
    assert main([verb, str(script), *ids, "-o", "-", "--format", "mp3"]) == 2
    assert (
        "-o - writes WAV or FLAC: give at most one --format, wav or flac" in capsys.readouterr().err
    )
