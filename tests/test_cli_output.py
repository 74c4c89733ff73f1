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


def test_progress_bars_estimate_the_time_left_from_rendered_lines_only():
    now = [0.0]
    progress = RichProgress(clock=lambda: now[0])
    progress.start(6)
    left = progress._bar.columns[-1]
    for number in (1, 2):  # a resumed render: the finished lines are reused at once
        now[0] += 0.01
        progress.done(SimpleNamespace(line_id=f"s1-{number}", speaker="A", status="reused"))
        assert left.render(progress._bar.tasks[0]).plain == ""
    now[0] = 20.02
    progress.done(SimpleNamespace(line_id="s1-3", speaker="A", status="rendered"))
    assert left.render(progress._bar.tasks[0]).plain == "about 1 min left"
    progress.finish()


def test_a_scene_summary_names_the_mix_audio_file_when_no_wav_is_written(capsys):
    from drama_cli.commands.mix import print_scene
    from drama_cli.mix.export import mix_audio_file
    from drama_cli.mix.project_mix import SceneOutcome

    files = {"provenance": "p/s1/provenance.json", "mp3": "p/s1/mix.mp3", "flac": "p/s1/mix.flac"}
    print_scene(
        results_console(),
        SceneOutcome(
            "s1", files=files, duration_s=2.0, loudness={"preset": "none", "loudness": {}}
        ),
    )
    assert capsys.readouterr().out.startswith("scene s1: p/s1/mix.flac 2.0 s")
    assert (
        mix_audio_file({"provenance": "p/s1/provenance.json", "mp3": "p/s1/mix.mp3"})
        == "p/s1/mix.mp3"
    )
    assert mix_audio_file({"wav": "p/s1/mix.wav", "mp3": "p/s1/mix.mp3"}) == "p/s1/mix.wav"
    assert mix_audio_file({"provenance": "p/s1/provenance.json"}) is None


LONG_LINE = (
    "The tide came in over the flats at dusk. The gulls went quiet on the wall. "
    "Nobody on the pier said a word until the lamps were lit."
)


def test_a_line_cut_into_chunks_logs_each_chunks_start_and_finish(tmp_path, monkeypatch, capsys):
    from fakes import FakeBackend, write_script

    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    path = write_script(tmp_path, [LONG_LINE])
    assert main(["render", str(path), "--max-chars", "40", "--mode", "clone"]) == 0
    chunks = len(backend.requests)
    assert chunks == 4
    rows = [row for row in capsys.readouterr().err.splitlines() if "boathouse-1" in row]
    expected = []
    for number in range(1, chunks + 1):
        expected += [
            f"drama: boathouse-1 MARGOT: chunk {number}/{chunks} started",
            f"drama: boathouse-1 MARGOT: chunk {number}/{chunks} done",
        ]
    assert rows[:-1] == expected
    assert rows[-1].startswith("drama: [1/1] boathouse-1 MARGOT: rendered take 1")


def test_the_progress_bars_count_the_chunks_of_a_long_line():
    progress = RichProgress()
    progress.start(1)
    job = SimpleNamespace(line_id="s1-1", speaker="A")
    progress.chunk(job, 1, 3, False)
    progress.chunk(job, 1, 3, True)
    progress.chunk(job, 2, 3, False)
    chunks = progress._bar.tasks[1]
    assert (chunks.description, chunks.completed, chunks.total) == ("s1-1 chunk 2/3", 1, 3)
    progress.chunk(job, 2, 3, True)
    assert progress._bar.tasks[1].completed == 2
    progress.finish()
