"""`drama check` / `drama compile` on the problems a new user hits: empty scoped tags, cue-only
lines, bad chunk caps, reference clips, several errors at once, pauses and mix options."""

from pathlib import Path

import numpy as np
import pytest
import soundfile

from drama_cli import cli
from drama_cli.commands import script as script_commands
from drama_cli.compile import compile_scene
from drama_cli.errors import ScriptError
from drama_cli.script.chunking import MIN_MAX_CHARS, split_text
from drama_cli.script.load import load_script


@pytest.fixture
def drama(monkeypatch):
    """`drama` with the script commands only."""
    monkeypatch.setattr(cli, "_register_commands", lambda: script_commands.register(cli.app))
    return cli.main


def write(tmp_path: Path, text: str, name: str = "play.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def tone(path: Path, seconds: float, amplitude: float = 0.1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * 8000)) / 8000
    soundfile.write(path, (amplitude * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 8000)


CAST = "cast:\n  A: {}\n  B: {}\n"


def test_empty_scoped_tag_is_an_error_at_its_column(drama, tmp_path, capsys):
    path = write(tmp_path, CAST + 'lines:\n  - A: Hi.\n  - speaker: B\n    text: "<whisper></whisper>"\n')
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:7:12: scoped tag <whisper> has nothing inside" in err


def test_nested_empty_scoped_tag_is_refused_but_a_cue_inside_is_fine(tmp_path):
    with pytest.raises(ScriptError, match="<soft> has nothing inside") as info:
        load_script(write(tmp_path, CAST + 'lines:\n  - A: "<angry>Out! <soft> </soft></angry>"\n'))
    assert (info.value.position.line, info.value.position.column) == (5, 21)
    script = load_script(write(tmp_path, CAST + 'lines:\n  - A: "<whisper>[sighs]</whisper>"\n'))
    assert [s.kind for s in script.lines()[0].spans] == ["open", "style", "close"]


def test_cue_only_lines_check_and_compile_to_a_real_prompt(drama, tmp_path, capsys):
    path = write(tmp_path, CAST + 'lines:\n  - A: [sighs]\n  - speaker: B\n    text: "[sighs]"\n'
                 '    note: tired\n  - B: "[laughs] {A} Hello"\n')
    assert drama(["check", str(path)]) == 0
    script = load_script(path)
    plans = compile_scene(script, "scene-1", "clone")
    assert [p.chunks for p in plans] == [["<|speaker:0|> [sighs]"], ["<|speaker:1|> [tired] [sighs]"],
                                         ["<|speaker:1|> [laughs] <|speaker:0|> Hello."]]
    assert all(p.conversations[0].text == p.chunks[0] for p in plans)
    capsys.readouterr()
    assert drama(["compile", str(path), "--mode", "clone"]) == 0
    out = capsys.readouterr().out
    assert "prompt 0 rows" not in out and '"<|speaker:0|> [sighs]"' in out


@pytest.mark.parametrize("cap", ["0", "-5", "39"])
def test_compile_refuses_a_chunk_cap_below_the_minimum(drama, tmp_path, capsys, cap):
    path = write(tmp_path, CAST + "lines:\n  - A: Hello there.\n")
    assert drama(["compile", str(path), "--max-chars", cap]) == 2
    assert f"--max-chars must be at least {MIN_MAX_CHARS}" in capsys.readouterr().err


@pytest.mark.parametrize("cap", [0, -1, 39])
def test_split_text_raises_on_a_cap_below_the_minimum(cap):
    with pytest.raises(ValueError, match="below the minimum"):
        split_text("<|speaker:0|> " + "word " * 50, max_chars=cap)
    assert len(split_text("<|speaker:0|> " + "word " * 50, max_chars=MIN_MAX_CHARS)) == 7
