"""User text (names, ids, words) in what the commands print: as written, never rich markup or emoji."""

from __future__ import annotations

from types import SimpleNamespace

from fakes import fake_render

from drama_cli.cli import main
from drama_cli.commands.output import results_console
from drama_cli.commands.progress import RichProgress

MARKED_UP = """\
title: "[bold]Night :x:"
cast:
  "Bob [the builder]": {}
scenes:
  - id: "[red]s"
    lines:
      - {speaker: "Bob [the builder]", id: "[red]alert", text: "Hi there :x: ok."}
"""


def test_render_takes_and_mix_print_names_ids_and_words_as_written(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = tmp_path / "night.yaml"
    path.write_text(MARKED_UP, encoding="utf-8")
    for command in (["render", str(path)], ["takes", str(path)], ["mix", str(path)]):
        capsys.readouterr()
        assert main(command) == 0
        out = capsys.readouterr().out
        assert "[red]s" in out and "\u274c" not in out, command
    assert main(["render", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Bob [the builder]" in out and "[red]alert" in out and "Hi there :x: ok." in out


def test_the_results_console_prints_markup_and_emoji_codes_as_written():
    console = results_console()
    with console.capture() as captured:
        console.print("[red]alert :x: Bob [the builder]")
    assert captured.get().strip() == "[red]alert :x: Bob [the builder]"


def test_progress_bars_describe_the_line_as_written():
    progress = RichProgress()
    progress._task = progress._bar.add_task("lines", total=1)
    progress.line(SimpleNamespace(line_id="[red]alert", speaker="Bob [b] :x:"))
    task = progress._bar.tasks[0]
    assert progress._bar.columns[0].render(task).plain == "[red]alert Bob [b] :x:"
