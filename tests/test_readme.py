"""Every `drama` command the README's code blocks show works, in order, as a newcomer runs them:
in a fresh folder holding the bundled examples and the README's `tea.yaml`, on the scratch
engine (no model). The scratch engine's piper voice is replaced by a short tone so the whole
walk takes seconds; everything around it (parsing, compile, takes, checks, mixes, MP3) is real.
`drama model pull` is left out: it downloads the model; so is `drama studio`, a server that runs
until Ctrl-C (tests/test_studio_command.py starts one)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from fakes import voice

from drama_cli.cli import main
from engine.text import expected_duration_s

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LEFT_OUT = (
    "drama model pull",  # downloads the model: the walk goes on without it
    "drama studio",
)  # serves until Ctrl-C


def readme_blocks(kind: str) -> list[str]:
    """The README's fenced code blocks of `kind` (`bash`, `yaml`), in order."""
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def readme_commands() -> list[list[str]]:
    """Each `drama ...` command of the README's bash blocks, in order, as arguments after
    `drama` (comments dropped, `&&` chains split, `$(drama ...)` substitutions included)."""
    commands = []
    for block in readme_blocks("bash"):
        for row in block.splitlines():
            row = re.sub(r"\s+#.*$", "", row)
            for part in re.split(r"&&|\$\(|\)\"?", row):
                part = part.strip()
                if part.startswith("drama ") and not part.startswith(LEFT_OUT):
                    commands.append(shlex.split(part)[1:])
    return commands


def test_the_readme_shows_the_quick_start_and_tea_commands():
    verbs = [command[0] for command in readme_commands()]
    assert verbs == ["render", "render", "check", "compile", "render", "takes", "mix"]


@pytest.fixture
def newcomer(tmp_path, monkeypatch):
    """A fresh folder with the examples and the README's tea.yaml, no model anywhere, and a
    scratch voice that answers at once."""
    from drama_cli.backends.scratch import ScratchBackend

    shutil.copytree(
        ROOT / "scripts_examples",
        tmp_path / "scripts_examples",
        ignore=shutil.ignore_patterns("*.drama"),
    )
    (tmp_path / "tea.yaml").write_text(readme_blocks("yaml")[0], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DRAMA_MODEL", raising=False)
    monkeypatch.setattr("drama_cli.backends.registry._cached_model", lambda: None)
    monkeypatch.setattr(
        ScratchBackend,
        "synthesize",
        lambda self, text, voicing, seed=0: voice(0.4 * expected_duration_s(text)),
    )
    return tmp_path


@pytest.mark.slow  # a full render of the Fountain example and the offline tokenizer's load
def test_every_readme_command_works_in_order_on_the_scratch_engine(newcomer, capsys):
    for command in readme_commands():
        code = main(command)
        err = capsys.readouterr().err
        assert code == 0, (command, err)
        assert "Traceback" not in err
    assert (newcomer / "scripts_examples" / "earnest.drama" / "scene-1" / "mix.wav").is_file()
    assert (newcomer / "tea.drama" / "tea" / "mix.mp3").is_file()
