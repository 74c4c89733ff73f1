"""What the render, takes, mix and book commands read from their arguments: the script, with
its warnings printed, and the render settings."""

from __future__ import annotations

from pathlib import Path

from drama_cli.commands.output import notice
from drama_cli.errors import ScriptError
from drama_cli.takes.project import check_stdin_owner, open_project
from engine.files import file_sha256


def load_checked(script: str, cast: str | None):
    """The script, its warnings printed; a bad script raises its first problem, saying how many
    more `drama check` lists."""
    # lazy: yaml and the script reader, 80 ms at start-up
    from drama_cli.script.check import with_check_count
    from drama_cli.script.load import load_script

    try:
        loaded = load_script(script, cast=cast)
    except ScriptError as err:
        raise with_check_count(err, script, cast) from None
    for warning in loaded.warnings:
        notice(f"warning: {warning}")
    return loaded


def render_settings(scenes, lines, **fields):
    """RenderSettings for the ids given and other `RenderSettings` fields. Raises UsageError
    for a value out of range."""
    from drama_cli.takes.jobs import (
        RenderSettings,  # lazy: yaml and the script reader, 80 ms at start-up
    )

    settings = RenderSettings(scenes=tuple(scenes or ()), lines=tuple(lines or ()), **fields)
    settings.validate()
    return settings


def script_info(loaded, script: str, cast: str | None = None) -> dict:
    """What a render records of its script: source and title, the SHA-256 of the file (of
    the text, for a script read from stdin), and the `--cast` file it was given (an absolute path, so that
    `revise`, `edit` and `plot` find it again: `recorded_cast`)."""
    info = {"script": loaded.source, "title": loaded.title}
    info["script_sha256"] = file_sha256(Path(script)) if script != "-" else loaded.text_sha256
    if cast is not None:
        info["cast"] = str(Path(cast).resolve())
    return info


def recorded_cast(store) -> str | None:
    """The cast file a project's render was given with `--cast` (`script_info`), when it
    still exists; else None."""
    cast = store.project().get("cast")
    return cast if isinstance(cast, str) and Path(cast).is_file() else None


def render_project(script: str, out: str | None, loaded):
    """The project a render of `script` writes (made when missing); a script read from stdin
    without `--out` must be the one its project was made from (`check_stdin_owner`)."""
    store = open_project(script, out, create=True)
    if script == "-" and out is None:
        check_stdin_owner(store, loaded.text_sha256)
    return store
