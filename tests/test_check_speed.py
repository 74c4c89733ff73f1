"""Reading a long script stays linear and compiling one scene compiles only that scene
(`bench/check_speed.py` measures the times; these tests count the work instead)."""

from __future__ import annotations

import pytest
import yaml

import drama_cli.compile.conversations as compile_scene_module
import drama_cli.script.direction as direction
import drama_cli.script.fountain as fountain
import drama_cli.script.yaml_reader as yaml_reader
import drama_cli.script.yaml_scenes as yaml_scenes
from drama_cli.cli import main
from drama_cli.errors import ScriptError
from drama_cli.script.direction import clean_markup
from drama_cli.script.document import Line
from drama_cli.script.fountain import read_fountain
from drama_cli.script.yaml_format import read_yaml

LINES = 1_500


class CountingLine(Line):
    """A Line that counts how often its kind is read (the line numbering reads it)."""

    reads = 0

    @property
    def kind(self):
        CountingLine.reads += 1
        return self.__dict__["kind"]

    @kind.setter
    def kind(self, value):
        self.__dict__["kind"] = value


def long_yaml(lines: int = LINES, scenes: int = 1) -> str:
    body = "".join(
        f"  - id: s{n}\n    lines:\n"
        + "".join(
            f'      - {"HOLMES" if k % 2 else "WATSON"}: "Line {k} of scene {n}, [sighs] quite so."\n'
            for k in range(lines)
        )
        for n in range(1, scenes + 1)
    )
    return "cast:\n  HOLMES: {}\n  WATSON: {}\nscenes:\n" + body


@pytest.fixture
def counting_lines(monkeypatch):
    CountingLine.reads = 0
    monkeypatch.setattr(yaml_scenes, "Line", CountingLine)
    monkeypatch.setattr(fountain, "Line", CountingLine)
    return CountingLine


def test_numbering_the_lines_of_a_long_yaml_scene_is_linear(counting_lines):
    script = read_yaml(long_yaml())
    lines = script.scenes[0].lines
    assert [line.id for line in lines[:2]] + [lines[-1].id] == ["s1-1", "s1-2", f"s1-{LINES}"]
    assert (
        counting_lines.reads <= 2 * LINES
    )  # each line's kind read about once, not once per later line


def test_numbering_the_lines_of_a_long_fountain_scene_is_linear(counting_lines):
    source = "INT. BAKER STREET - NIGHT\n\n" + "".join(
        f"{'HOLMES' if k % 2 else 'WATSON'}\nLine {k}, quite so.\n\n" for k in range(LINES)
    )
    script = read_fountain(source, "long.fountain")
    lines = script.scenes[0].lines
    assert lines[0].id.endswith("-1") and lines[-1].id.endswith(f"-{LINES}")
    assert len(lines) == LINES
    assert counting_lines.reads <= 2 * LINES


def test_a_readable_script_is_read_by_libyaml_alone(monkeypatch):
    if getattr(yaml, "CSafeLoader", None) is None:
        pytest.skip("PyYAML without libyaml")
    loaders = []
    real = yaml.compose

    def compose(source, Loader):
        loaders.append(Loader)
        return real(source, Loader=Loader)

    monkeypatch.setattr(yaml_reader.yaml, "compose", compose)
    script = read_yaml(long_yaml(20, scenes=2))
    assert [s.id for s in script.scenes] == ["s1", "s2"] and len(script.scenes[1].lines) == 20
    assert loaders == [yaml.CSafeLoader]
    loaders.clear()
    with pytest.raises(ScriptError) as refused:
        read_yaml('cast:\n  HOLMES: {}\nlines:\n  - HOLMES: "unclosed\n', "bad.yaml")
    assert "bad.yaml:4:13: unclosed quote" in str(refused.value)  # located by the Python reader
    assert loaders == [yaml.CSafeLoader, yaml.SafeLoader]


def test_ascii_text_skips_the_emoji_scan_and_emoji_are_still_removed(monkeypatch):
    calls = []
    real = direction._is_emoji
    monkeypatch.setattr(direction, "_is_emoji", lambda char: calls.append(char) or real(char))
    assert clean_markup("**Quite** so,  Watson.") == "Quite so, Watson."
    assert calls == []
    assert clean_markup("Quite so \U0001f600 Watson.") == "Quite so Watson."
    assert len(calls) == len("Quite so \U0001f600 Watson.")


def test_a_tab_in_the_indentation_is_still_found_on_its_line(tmp_path, capsys):
    script = tmp_path / "tabs.yaml"
    script.write_text("cast:\n  HOLMES: {}\nlines:\n  \t- HOLMES: Quite so.\n\t\n")
    assert main(["check", str(script)]) == 2
    assert f"{script}:4:3: tab in indentation" in capsys.readouterr().err


def test_compiling_one_scene_compiles_no_other_scene(tmp_path, monkeypatch, capsys):
    script = tmp_path / "long.yaml"
    script.write_text(long_yaml(5, scenes=30))
    compiled = []
    real = compile_scene_module.compile_scene

    def spy(script_, scene, *args, **kwargs):
        compiled.append(scene.id)
        return real(script_, scene, *args, **kwargs)

    monkeypatch.setattr(compile_scene_module, "compile_scene", spy)
    assert main(["compile", str(script), "--scene", "s17", "--mode", "clone", "--json"]) == 0
    assert compiled == ["s17"]
    assert "s17-5" in capsys.readouterr().out


TRICKY = {
    "comment": "cast:\n  A: {}\nlines:\n  - speaker: A\n    text: #1 fan\n  - A: Fine.\n",
    "bom": "\ufeffcast:\n  A: {}\nlines:\n  - speaker: A\n    text: [sighs] Well, [laughs] yes.\n",
    "flow": "cast:\n  A: {aliases: [B, é]}\nlines:\n  - speaker: A\n    text: [é, two]\n",
    "blocks": "cast:\n  A: {}\nlines:\n  - speaker: A\n    text: |\n      One\n      two\n"
    "  - speaker: B\n    text: >-\n      Three\n      four\n    note: ''\n",
    "crlf": "cast:\r\n  A: {}\r\nlines:\r\n  - A: \"Quoted \U0001d11e words\"\r\n  - A: 'single'\r\n",
    "anchor": "cast:\n  A: &a {description: x}\n  B: *a\nlines:\n  - A: Hi.\n  - B: Ho.\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_libyaml_and_the_python_reader_read_a_script_alike(name, monkeypatch):
    def read():
        try:
            script = read_yaml(TRICKY[name], f"{name}.yaml")
        except ScriptError as err:
            return str(err)
        return (
            [
                (line.id, line.speaker, line.text, line.notes, line.position, line.spans)
                for line in script.lines()
            ],
            [(w.message, w.position) for w in script.warnings],
            {n: (m.aliases, m.description, m.position) for n, m in script.cast.items()},
        )

    fast = read()
    monkeypatch.setattr(yaml_reader.yaml, "CSafeLoader", None, raising=False)
    assert read() == fast
