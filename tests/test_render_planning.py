"""History-mode planning compiles each line once, against only its context lines' takes, and
says once why a line has no context."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from fakes import FakeBackend, fake_render, voice, write_script

from drama_cli.cli import main
from drama_cli.compile.conversations import SceneCompiler
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings, ScenePlanner

LINES = 2_000


class SelectedTake:
    """A usable selected take as `context_clip` reads it."""

    status = "ok"
    duration_s = 1.0
    wav_path = Path("take-001.wav")

    def codes(self):
        return None


class CountingStore:
    """A take store where every line has a selected take; counts the lookups."""

    def __init__(self) -> None:
        self.reads = 0

    def selected_take(self, scene_id: str, line_id: str) -> SelectedTake:
        self.reads += 1
        return SelectedTake()

    def selections(self, scene_id: str) -> dict:
        return {}


def long_scene(tmp_path: Path, count: int):
    rows = "\n".join(
        f"      - {{id: l{i}, speaker: {'ANNA' if i % 2 else 'BEN'}, "
        f"text: This is line number {i} of a long scene.}}"
        for i in range(count)
    )
    path = tmp_path / "long.yaml"
    path.write_text(f"cast:\n  ANNA: {{}}\n  BEN: {{}}\nscenes:\n  - id: s\n    lines:\n{rows}\n")
    script = load_script(str(path))
    return script, script.scenes[0]


def test_history_planning_reads_only_context_takes(tmp_path):
    script, scene = long_scene(tmp_path, 300)
    store = CountingStore()
    planner = ScenePlanner(script, scene, RenderSettings(mode="history"), store)
    jobs = [planner.job(i) for i in range(len(scene.lines))]
    # each line looks up at most the scene's first line and the two lines before it
    assert store.reads <= 3 * len(scene.lines)
    assert jobs[0].chunks[0].layout == "clone"
    last = jobs[-1].chunks[0]
    assert last.layout == "history"
    # the compiler sends numbers as words
    assert [e.text.split("> ", 1)[1] for e in last.context] == [
        "This is line number zero of a long scene.",
        "This is line number two hundred and ninety-seven of a long scene.",
        "This is line number two hundred and ninety-eight of a long scene.",
    ]


def test_planning_a_2000_line_scene_in_history_mode_is_linear(tmp_path, monkeypatch):
    # counts work rather than time: before the planner compiled incrementally, every line
    # recompiled the whole scene (about 2,000,000 line compilations for 2,000 lines)
    calls = {"spoken": 0, "render": 0}
    for name in calls:
        original = getattr(SceneCompiler, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(SceneCompiler, name, counted)
    script, scene = long_scene(tmp_path, LINES)
    store = CountingStore()
    planner = ScenePlanner(script, scene, RenderSettings(mode="history"), store)
    for i in range(LINES):
        planner.job(i)
    assert 0 < calls["render"] <= 5 * LINES  # about 4 a line: itself and its context
    assert 0 < calls["spoken"] <= 10 * LINES
    assert store.reads <= 3 * LINES


def test_history_mode_says_once_why_a_line_has_no_context(tmp_path, monkeypatch, capsys):

    silent_first = lambda request, n: (  # noqa: E731
        (np.zeros(44_100, np.float32), "eos") if n == 1 else (voice(1.0), "eos")
    )
    fake_render(monkeypatch, FakeBackend(answer=silent_first))
    path = write_script(tmp_path, ["We leave at six.", "Fine then.", "Go now."])
    assert main(["render", str(path), "--retries", "0"]) == 1
    err = capsys.readouterr().err
    assert err.count("voiced without earlier lines as context (clone)") == 1
    assert "line boathouse-2" in err
