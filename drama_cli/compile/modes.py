"""The compile modes: one `Mode` record each, in `MODES` (docs/guide/rendering.md, "Modes").

A mode says how `drama_cli.compile.conversations` turns the lines of a scene into engine conversations,
and so which engine layout (`engine.layouts.LAYOUTS`) it produces. `MODES` is in the order help
texts and error messages list the modes; exactly one mode is the default. Adding a mode is
adding one record here (plus its branch in the compiler).
"""

from __future__ import annotations

from dataclasses import dataclass

from drama_cli.errors import UsageError


@dataclass(frozen=True)
class Mode:
    """One compile mode.

    name: what `--mode` takes. layout: the engine layout its conversations use (`history` falls
        back to `clone` for a line with no earlier take to hear). description: one line for
        help texts. default: whether it is the mode used when none is given.
    """

    name: str
    layout: str
    description: str
    default: bool = False


MODES: dict[str, Mode] = {
    mode.name: mode
    for mode in (
        Mode("clone", "clone", "each line on its own"),
        Mode(
            "history",
            "history",
            "each line hears the scene's first line and the last two takes",
            default=True,
        ),
        Mode("scene", "scene", "the whole scene in one request per group of lines (provisional)"),
    )
}

DEFAULT_MODE = next(mode.name for mode in MODES.values() if mode.default)


def get_mode(name: str) -> Mode:
    """The record of mode `name`. Raises `UsageError` for an unknown mode."""
    if name not in MODES:
        raise UsageError(f"unknown mode {name!r}; expected one of {', '.join(MODES)}")
    return MODES[name]


def mode_help() -> str:
    """The `--mode` help text: every mode with its description (typer shows the default)."""
    return "; ".join(f"{mode.name}: {mode.description}" for mode in MODES.values()) + "."
