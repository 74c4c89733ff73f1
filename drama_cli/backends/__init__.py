"""Backends that turn a compiled request into take audio, and the choice between them.

`--engine auto` picks `drama3` when a model folder is found (`--model PATH`, the `DRAMA_MODEL`
environment variable, or the huggingface_hub cache of `fishaudio/drama-3`), else `scratch`
with a one-line notice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from drama_cli.backends.base import Backend, Generation, GenerationRequest
from drama_cli.errors import UsageError

ENGINES = ("auto", "scratch", "drama3")
HF_REPO = "fishaudio/drama-3"
MODEL_ENV = "DRAMA_MODEL"

__all__ = ["Backend", "Generation", "GenerationRequest", "ENGINES", "find_model", "make_backend"]


def _cached_model() -> Path | None:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(HF_REPO, "config.json")
    except Exception:  # a broken cache must not stop a scratch render
        return None
    return Path(found).parent if isinstance(found, str) else None


def find_model(explicit: str | os.PathLike | None = None) -> Path | None:
    """The Drama 3 model folder to use, or None when there is none.

    Order: `explicit` (from `--model`), `$DRAMA_MODEL`, the huggingface_hub cache of
    `fishaudio/drama-3` (looked up offline; nothing is downloaded).
    Raises UsageError when `explicit` or `$DRAMA_MODEL` names a folder without `config.json`.
    """
    for source, value in (("--model", explicit), (MODEL_ENV, os.environ.get(MODEL_ENV))):
        if value:
            folder = Path(value).expanduser()
            if not (folder / "config.json").is_file():
                raise UsageError(f"{source} {folder}: not a Drama 3 model folder (no config.json)")
            return folder
    return _cached_model()


def make_backend(engine: str = "auto", model: str | os.PathLike | None = None,
                 notice: Callable[[str], None] = lambda message: None,
                 device: str | None = None) -> Backend:
    """Build the backend for `--engine` (`auto`, `scratch` or `drama3`).

    notice: receives one-line messages for the user (the auto fallback to scratch, the CPU
    warning of drama3). Raises UsageError for an unknown engine, or for `drama3` without a
    model folder.
    """
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    folder = None if engine == "scratch" else find_model(model)
    if engine == "auto":
        if folder is None:
            notice("no Drama 3 model found (--model, $DRAMA_MODEL or the Hugging Face cache); "
                   "rendering a scratch timing draft")
            engine = "scratch"
        else:
            engine = "drama3"
    if engine == "scratch":
        from drama_cli.backends.scratch import ScratchBackend

        return ScratchBackend()
    if folder is None:
        raise UsageError("--engine drama3 needs a model folder: pass --model PATH or set "
                         f"{MODEL_ENV}")
    from drama_cli.backends.drama3 import Drama3Backend

    return Drama3Backend(folder, device=device, notice=notice)
