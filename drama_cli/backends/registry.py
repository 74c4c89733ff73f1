"""The backends `--engine` can name, and the choice between them.

One `BackendEntry` per backend in `BACKENDS`: its name, a one-line description, where its class
lives (imported on first use) and whether it is built from a Drama 3 model folder. The class
declares the backend's `capabilities`, its options record (`options_type`, fields made with
`drama_cli.backends.base.backend_option`) and builds it with `from_options(BackendOptions)`.
A new backend is one new module and one line in `BACKENDS`; `--engine` choices and help come
from here (`engine_names`, `engine_help`), and the command line's backend options from the
options records (`option_table`). Only the lines of `BACKENDS` name a backend.

A backend's settings travel as one `BackendChoice` (engine, `--model`, `--device`, the backend
options given) from the command line to `build_backend`, here or on a cluster worker.

`--engine auto` picks the first backend built from a model folder when one is found
(`--model PATH`, the `DRAMA_MODEL` environment variable, or the huggingface_hub cache of
`fishaudio/drama-3`), else the first that needs neither a model nor the network, with a
one-line notice (`auto_entry`).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from drama_cli.backends.base import OptionFlag, option_flags
from drama_cli.errors import UsageError

if TYPE_CHECKING:
    from drama_cli.backends.base import Backend, Capabilities

AUTO = "auto"
HF_REPO = "fishaudio/drama-3"
MODEL_ENV = "DRAMA_MODEL"


@dataclass(frozen=True)
class BackendChoice:
    """Which backend to build and with what, as plain data: the one record that carries a
    backend's settings from the command line through the render and the cluster pool to each
    worker (it pickles), and is saved with the project without its secrets (there are none in
    it: a key is only ever named by the environment variable that holds it).

    engine: `auto` or a registered name. model, device: the common `--model` and `--device`
    (None: not given). options: the backend options given, by field name of the backends'
    options records (`option_table`): the text given on the command line (parsed by the chosen
    backend's `OptionFlag.parse` when it is built), or for a switch the value it sets.
    """

    engine: str = AUTO
    model: str | None = None
    device: str | None = None
    options: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class BackendOptions:
    """What `make_backend` hands a backend's `from_options`: the model folder (for backends
    that need one), the torch device (None: the backend's default), where one-line notices
    for the user go, and `own`: the backend's own options record (an instance of its class's
    `options_type`, every field at its default unless given)."""

    model_folder: Path | None = None
    device: str | None = None
    notice: Callable[[str], None] = field(default=lambda message: None)
    own: object = None


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

    @property
    def options_type(self) -> type:
        """The backend's options record type (declared by its class: `options_type`)."""
        return self.backend_class().options_type

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
    BackendEntry(
        "mlx",
        "the Drama 3 model through mlx-audio (Apple silicon; the mlx extra)",
        "drama_cli.backends.mlx:MlxBackend",
        needs_model=True,
    ),
    BackendEntry(
        "sglang",
        "Drama 3 on an SGLang-Omni server (--server URL)",
        "drama_cli.backends.sglang:SglangBackend",
    ),
    BackendEntry(
        "vllm",
        "Drama 3 on a vLLM-Omni server (--server URL)",
        "drama_cli.backends.vllm:VllmBackend",
    ),
    BackendEntry(
        "llama",
        "Drama 3 on llama.cpp's llama-server (--server URL)",
        "drama_cli.backends.llama:LlamaBackend",
    ),
    BackendEntry(
        "fish",
        "Drama 3 on Fish Audio's API (key in $FISH_API_KEY)",
        "drama_cli.backends.fish:FishBackend",
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


def auto_entry(model_found: bool) -> BackendEntry:
    """What `--engine auto` picks: when a model folder is found, the first registered backend
    that is built from one and runs on this machine (no network); else the first that needs
    neither a model folder nor the network."""
    for entry in BACKENDS:
        if entry.needs_model == model_found and not entry.capabilities.network:
            return entry
    raise LookupError("no registered backend fits --engine auto")  # a registry without one


def option_table() -> dict[str, tuple[OptionFlag, object, tuple[str, ...]]]:
    """Every backend option of the registered backends, by field name: (its `OptionFlag`, its
    default, the names of the backends that take it), in registry and declaration order. A
    flag several backends declare is one entry. Raises TypeError when two backends declare the
    same field or flag differently (the command line could not offer it once)."""
    table: dict[str, tuple[OptionFlag, object, tuple[str, ...]]] = {}
    flags: dict[str, str] = {}
    for entry in BACKENDS:
        for name, (flag, default) in option_flags(entry.options_type).items():
            if flags.setdefault(flag.flag, name) != name:
                raise TypeError(
                    f"{flag.flag} is declared as two fields: {flags[flag.flag]}, {name}"
                )
            if name in table:
                known, known_default, takers = table[name]
                if (known, known_default) != (flag, default):
                    raise TypeError(
                        f"{flag.flag} is declared differently by {takers[0]} and {entry.name}"
                    )
                table[name] = (known, known_default, (*takers, entry.name))
            else:
                table[name] = (flag, default, (entry.name,))
    return table


def given_options(values: dict[str, object]) -> dict[str, object]:
    """The backend options actually given among `values` (field values by field name, as
    `option_table` names them; a switch's value is the one it sets): those neither None nor the
    option's default. Raises UsageError for a name no backend declares."""
    table = option_table()
    given = {}
    for name, value in values.items():
        if name not in table:
            raise UsageError(f"no engine takes an option {name!r}")
        _, default, _ = table[name]
        if value is not None and value != default:
            given[name] = value
    return given


def make_backend(
    engine: str | BackendChoice = AUTO,
    model: str | os.PathLike | None = None,
    notice: Callable[[str], None] = lambda message: None,
    device: str | None = None,
    **options: object,
) -> Backend:
    """Build the backend for `--engine` (`auto` or a registered name) with `--model`,
    `--device` and the backend options `options` (by field name, e.g. `gpu_memory="24GB"`,
    `graph=False`; None or the default: not given), or the one a `BackendChoice` names (then
    the other arguments but `notice` are ignored). See `build_backend`; the commands call this
    function (tests replace it)."""
    if isinstance(engine, BackendChoice):
        return build_backend(engine, notice)
    return build_backend(
        BackendChoice(
            engine, None if model is None else str(model), device, given_options(options)
        ),
        notice,
    )


def build_backend(
    choice: BackendChoice, notice: Callable[[str], None] = lambda message: None
) -> Backend:
    """Build the backend `choice` names.

    notice: receives one-line messages for the user (the auto fallback to scratch, a backend's
    own notices, and each of `--model`, `--device` and the backend options given that the
    engine `auto` picked does not take). Raises UsageError (one line) for an unknown engine,
    for a backend that needs a model folder when none is found, for a backend option the
    engine named by `--engine` does not take (naming both), or for a bad option value.
    """
    entry = None if choice.engine == AUTO else backend_entry(choice.engine)
    folder = find_model(choice.model) if entry is None or entry.needs_model else None
    if entry is None:
        if folder is None:
            notice(
                "no Drama 3 model found (--model, $DRAMA_MODEL or the Hugging Face cache); "
                "rendering a scratch timing draft"
            )
        entry = auto_entry(folder is not None)
    if entry.needs_model and folder is None:
        raise UsageError(
            f"--engine {entry.name} needs a model folder: pass --model PATH or set {MODEL_ENV}"
        )
    own = own_options(entry, choice, notice)
    if not entry.needs_model:
        for option, given in (("--model", choice.model), ("--device", choice.device)):
            if given is not None:
                notice(
                    f"{option} has no effect on the {entry.name} engine "
                    "(it has no model weights to place)"
                )
    return entry.create(
        BackendOptions(folder if entry.needs_model else None, choice.device, notice, own)
    )


def own_options(
    entry: BackendEntry, choice: BackendChoice, notice: Callable[[str], None]
) -> object:
    """The options record of `entry`'s backend from the options `choice` gives: each parsed
    with its `OptionFlag.parse`; one the backend does not take is refused (UsageError naming
    the flag and the engine) when `--engine` named it, and said to have no effect when `auto`
    picked it."""
    own_flags = option_flags(entry.options_type)
    table = option_table()
    values = {}
    for name, value in choice.options.items():
        if name not in own_flags:
            flag, _, takers = table[name]
            if choice.engine == AUTO:
                notice(f"{flag.flag} has no effect on the {entry.name} engine")
                continue
            raise UsageError(
                f"{flag.flag} is not an option of the {entry.name} engine "
                f"(it is an option of {', '.join(takers)})"
            )
        flag, _ = own_flags[name]
        values[name] = flag.parse(value) if flag.parse and isinstance(value, str) else value
    return entry.options_type(**values)


def persisted_options(backend: Backend) -> dict[str, object]:
    """The options of a built backend to save with the project (`project.json`,
    "engine_options"): every field of its options record (`backend.options`) whose
    `OptionFlag.persist` is True and whose value is not its default."""
    own = backend.options
    if not is_dataclass(own):
        return {}
    saved = {}
    for name, (flag, default) in option_flags(type(own)).items():
        value = getattr(own, name)
        if flag.persist and value != default:
            saved[name] = value
    return saved
