"""The backends `--engine` can name, and the choice between them.

One `BackendEntry` per backend in `BACKENDS`: its name, a one-line description, where its class
lives (imported on first use: scratch needs piper, drama3 torch) and whether it is built from a
Drama 3 model folder. The class declares the backend's `capabilities` and builds it with
`from_options(BackendOptions)`. A new backend is one new module and one line in `BACKENDS`;
`--engine` choices and help come from here (`engine_names`, `engine_help`).

`--engine auto` picks `drama3` when a model folder is found (`--model PATH`, the `DRAMA_MODEL`
environment variable, or the huggingface_hub cache of `fishaudio/drama-3`), else `scratch`
with a one-line notice.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from drama_cli.errors import UsageError

if TYPE_CHECKING:  # the contract pulls in numpy; `--help` needs only the names here
    from drama_cli.backends.base import Backend, Capabilities

AUTO = "auto"
AUTO_WITH_MODEL = "drama3"  # what `auto` picks when a model folder is found
AUTO_WITHOUT_MODEL = "scratch"  # ... and when none is
HF_REPO = "fishaudio/drama-3"
MODEL_ENV = "DRAMA_MODEL"


@dataclass(frozen=True)
class BackendOptions:
    """What `make_backend` hands a backend's `from_options`: the model folder (for backends
    that need one), the torch device (None: the backend's default) and where one-line notices
    for the user go."""

    model_folder: Path | None = None
    device: str | None = None
    notice: Callable[[str], None] = field(default=lambda message: None)
    graph: bool = True  # drama3 on CUDA: decode with the captured frame step (False: --no-graph)
    gpu_memory: int | str | None = (
        None  # drama3: device budget in bytes, "auto", or None (--gpu-memory)
    )


@dataclass(frozen=True)
class BackendEntry:
    """One registered backend.

    name: the `--engine` value. description: one line for help texts. location:
    `module:Class`, imported on first use. needs_model: built from a Drama 3 model folder
    (`find_model`); without one, `make_backend` raises UsageError.
    """

    name: str
    description: str
    location: str
    needs_model: bool = False

    def backend_class(self) -> type:
        """The backend's class (imports its module)."""
        module, _, name = self.location.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def capabilities(self) -> Capabilities:
        """What the backend can do besides `generate` (declared by its class)."""
        return self.backend_class().capabilities

    def create(self, options: BackendOptions) -> Backend:
        """A new backend built from `options`."""
        return self.backend_class().from_options(options)


BACKENDS = (
    BackendEntry(
        "scratch",
        "CPU timing draft with piper-tts (no model needed)",
        "drama_cli.backends.scratch:ScratchBackend",
    ),
    BackendEntry(
        "drama3",
        "the Drama 3 model (CUDA GPU; CPU works but takes minutes per line)",
        "drama_cli.backends.drama3:Drama3Backend",
        needs_model=True,
    ),
)


def backend_entry(name: str) -> BackendEntry:
    """The registered backend called `name`. Raises UsageError for an unknown name."""
    for entry in BACKENDS:
        if entry.name == name:
            return entry
    raise UsageError(f"unknown engine {name!r}; choose one of {', '.join(engine_names())}")


def backend_names() -> tuple[str, ...]:
    """The registered backends' names, in order."""
    return tuple(entry.name for entry in BACKENDS)


def engine_names() -> tuple[str, ...]:
    """Every `--engine` value: `auto`, then the registered backends in order."""
    return (AUTO, *backend_names())


def engine_help(suffix: str = "") -> str:
    """The `--engine` help text: the choices as a list (`auto, scratch or drama3`), then
    `suffix` (e.g. ` (default: the project's)`), then a full stop."""
    names = engine_names()
    return f"{', '.join(names[:-1])} or {names[-1]}{suffix}."


def _cached_model() -> Path | None:
    try:
        # lazy: huggingface_hub, 0.2 s at start-up (and without it there is no cached model)
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
    Raises UsageError when `explicit` or `$DRAMA_MODEL` names a folder without `config.json`,
    and when `$DRAMA_MODEL` is set but empty (what `export DRAMA_MODEL="$(drama model pull)"`
    leaves when the download failed).
    """
    if not explicit and MODEL_ENV in os.environ and not os.environ[MODEL_ENV].strip():
        raise UsageError(
            f"{MODEL_ENV} is set but empty (a `drama model pull` that failed?): set it to the "
            f"model's folder, or unset it (unset {MODEL_ENV}) to use the Hugging Face cache"
        )
    for source, value in (("--model", explicit), (MODEL_ENV, os.environ.get(MODEL_ENV))):
        if value:
            folder = Path(value).expanduser()
            if not (folder / "config.json").is_file():
                raise UsageError(f"{source} {folder}: not a Drama 3 model folder (no config.json)")
            return folder
    return _cached_model()


def make_backend(
    engine: str = AUTO,
    model: str | os.PathLike | None = None,
    notice: Callable[[str], None] = lambda message: None,
    device: str | None = None,
    graph: bool = True,
    gpu_memory: str | None = None,
) -> Backend:
    """Build the backend for `--engine` (`auto` or a registered name).

    notice: receives one-line messages for the user (the auto fallback to scratch, the CPU
    warning of drama3, and each of `--model`, `--device`, `--gpu-memory` and `--no-graph` that an
    engine without weights ignores). Raises UsageError for an unknown engine, for a backend that needs
    a model folder when none is found, or for a `gpu_memory` that is not a size (`24GB`,
    `24GiB`, `500MB`) or `auto`. graph: False decodes drama3 eagerly on CUDA (`--no-graph`).
    """
    budget = parse_gpu_memory(gpu_memory)
    entry = None if engine == AUTO else backend_entry(engine)
    folder = find_model(model) if entry is None or entry.needs_model else None
    if entry is None:
        if folder is None:
            notice(
                "no Drama 3 model found (--model, $DRAMA_MODEL or the Hugging Face cache); "
                "rendering a scratch timing draft"
            )
        entry = backend_entry(AUTO_WITH_MODEL if folder is not None else AUTO_WITHOUT_MODEL)
    if entry.needs_model and folder is None:
        raise UsageError(
            f"--engine {entry.name} needs a model folder: pass --model PATH or set {MODEL_ENV}"
        )
    if not entry.needs_model:
        ignored = [
            option
            for option, given in (
                ("--model", model is not None),
                ("--device", device is not None),
                ("--gpu-memory", budget is not None),
                ("--no-graph", not graph),
            )
            if given
        ]
        for option in ignored:
            notice(
                f"{option} has no effect on the {entry.name} engine (it has no model weights to place)"
            )
    return entry.create(
        BackendOptions(folder if entry.needs_model else None, device, notice, graph, budget)
    )


def parse_gpu_memory(text: str | None) -> int | str | None:
    """`--gpu-memory` as the engine takes it: bytes, "auto", or None when not given. Raises
    UsageError for anything else."""
    if text is None or text.strip().lower() == "auto":
        return None if text is None else "auto"
    from engine.offload.sizes import parse_size  # lazy: torch, 1 s at start-up

    try:
        return parse_size(text)
    except ValueError as err:
        raise UsageError(f"--gpu-memory {err}") from None
