"""The compile modes table: each mode produces an engine layout, one mode is the default, and
the compiler, the render settings and the commands all read the same table."""

import pytest

from drama_cli.compile.modes import DEFAULT_MODE, MODES, get_mode, mode_help
from drama_cli.errors import UsageError
from engine.layouts import LAYOUTS


def test_every_mode_produces_a_layout_of_the_engine():
    assert list(MODES) == ["clone", "history", "scene"]
    for name, mode in MODES.items():
        assert mode.name == name
        assert mode.layout in LAYOUTS, name
        assert mode.description and "\n" not in mode.description


def test_history_is_the_one_default():
    assert [mode.name for mode in MODES.values() if mode.default] == ["history"]
    assert DEFAULT_MODE == "history"


def test_an_unknown_mode_is_a_usage_error():
    with pytest.raises(UsageError) as raised:
        get_mode("karaoke")
    assert str(raised.value) == "unknown mode 'karaoke'; expected one of clone, history, scene"


def test_the_help_text_lists_every_mode():
    text = mode_help()
    assert all(f"{mode.name}: {mode.description}" in text for mode in MODES.values())


def test_render_settings_refuse_an_unknown_mode():
    from drama_cli.takes.jobs import RenderSettings

    assert RenderSettings().mode == DEFAULT_MODE
    with pytest.raises(UsageError, match="unknown mode 'opera'"):
        RenderSettings(mode="opera").validate()


def test_a_conversation_the_engine_refuses_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    """An unknown layout is an EngineError, which the CLI prints as one line with exit 2."""
    from drama_cli import cli
    from drama_cli.compile.modes import Mode

    monkeypatch.setitem(MODES, "clone", Mode("clone", "karaoke", "a layout the engine lacks"))
    script = tmp_path / "p.yaml"
    script.write_text("cast:\n  ANA: a.wav\nlines:\n  - speaker: ANA\n    text: Hello.\n")
    assert cli.main(["compile", str(script), "--mode", "clone"]) == 2
    assert capsys.readouterr().err == (
        "drama: unknown layout 'karaoke'; expected one of "
        "clone, history, revise, scene, infill, stream\n"
    )
