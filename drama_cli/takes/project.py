"""The project folder of a script: where it is, whether it can hold a project, and whether it
belongs to this script (two scripts with one stem, `earnest.fountain` and `earnest.yaml`, would
otherwise share `earnest.drama/`)."""

from __future__ import annotations

import shlex
from pathlib import Path

from drama_cli.errors import UsageError
from drama_cli.takes.store import TakeStore


def default_out(script: str) -> Path:
    """`<script stem>.drama` beside the script; `./stdin.drama` when reading stdin."""
    if script == "-":
        return Path("stdin.drama")
    path = Path(script)
    return path.with_name(f"{path.stem}.drama")


def command_text(verb: str, script: str, root: Path, *args: str) -> str:
    """The `drama VERB SCRIPT ARGS` command line that works on the project folder `root`
    (with `--out` when it is not `default_out(script)`), quoted so that a shell runs it as
    written: hints name it for the user to copy."""
    out = [] if Path(root) == default_out(script) else ["--out", str(root)]
    return shlex.join(["drama", verb, script, *args, *out])


def open_project(script: str, out: str | None, create: bool = False) -> TakeStore:
    """The TakeStore of `script`'s project (`out`, else `default_out(script)`).

    create: make the folder when missing (render). Raises UsageError (exit 2), naming the path,
    when the folder is a file or cannot be created, or when its `project.json` records a
    different script (suggesting `--out`).
    """
    if out is not None and not out.strip():
        raise UsageError(
            f"--out is empty: give the project folder, or omit --out to use {default_out(script)}"
        )
    root = Path(out) if out is not None else default_out(script)
    if root.exists() and not root.is_dir():
        raise UsageError(f"project folder {root} is an existing file; give --out a folder")
    if create:
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(f"cannot create project folder {root}: {err.strerror or err}") from err
    store = TakeStore(root)
    check_owner(store, script)
    return store


def check_stdin_owner(store: TakeStore, text_sha256: str) -> None:
    """Raise UsageError when the default stdin project (`./stdin.drama`) holds the render of
    another text read from stdin than the one whose SHA-256 is `text_sha256`: two scripts piped
    in one folder would otherwise share their takes. An explicit `--out` is never checked."""
    recorded = store.project()
    if recorded.get("script") in ("<stdin>", "-") and recorded.get("script_sha256") not in (
        None,
        text_sha256,
    ):
        raise UsageError(
            f"{store.root} holds the project of another script read from stdin (or of "
            "an earlier version of this one); give --out FOLDER: a new folder for "
            f"another script, --out {store.root} to go on with this project"
        )


def check_owner(store: TakeStore, script: str) -> None:
    """Raise UsageError when `store`'s `project.json` records another script than `script`.

    Scripts are told apart by file name (the recorded path is relative to where the render
    ran); stdin (`-`) matches any project it was given with --out.
    """
    recorded = store.project().get("script")
    if not recorded or recorded == "-" or script == "-":
        return
    if Path(recorded).name != Path(script).name:
        raise UsageError(
            f"{store.root} holds the project of {recorded}, not {script}; "
            f"give this script its own folder with --out"
        )
