"""docs/reference/cli.md is made from the commands themselves (`drama cli-reference`): the
committed file matches them, lists every visible command and option, and does not depend on
the terminal."""

from __future__ import annotations

from pathlib import Path

from drama_cli.cli import main
from drama_cli.commands.reference import REGENERATE

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "cli.md"


def _reference(capsys) -> str:
    capsys.readouterr()
    assert main(["cli-reference"]) == 0
    return capsys.readouterr().out


def test_the_committed_cli_reference_is_up_to_date(capsys):
    committed = REFERENCE.read_text(encoding="utf-8")
    assert _reference(capsys) == committed, (
        f"docs/reference/cli.md is stale; regenerate it with: {REGENERATE}"
    )


def test_the_reference_has_every_visible_command_and_option(capsys):
    text = _reference(capsys)
    for command in ("drama render", "drama takes", "drama mix", "drama book", "drama model info"):
        assert f"## `{command}`" in text
    assert "```\ndrama render [OPTIONS] SCRIPT\n```" in text
    assert (
        "| `--gap` | `NUMBER` | Default pause between lines in the mix, seconds (0..60). |  |"
        in text
    )
    assert "| `--sample` / `--no-sample` |  | Also write the retail sample. | `--sample` |" in text
    assert "cli-reference`\n" not in text  # the hidden command has no section
    assert "| `--output` |" not in text.split("## `drama plot`")[1].split("## ")[0]  # hidden option


def test_the_reference_is_the_same_on_any_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = _reference(capsys)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert _reference(capsys) == narrow
    assert "\x1b[" not in narrow
