"""The mlx backend: the Drama 3 model run by mlx-audio's port (`--engine mlx`), for Apple silicon
(Metal) and, through mlx's CPU build, Linux.

What runs where: mlx-audio builds the prompt (`Model.build_frames(references, history,
target)`, its public history-turn builder) and decodes it frame by frame; the frames' codes
`[10, T]` come back to this module, which turns them into audio with the model folder's own
codec (`engine.codec`, the same `codec.pth` the drama3 backend decodes with). So a take from
this backend carries codes, they decode alike on every backend, and reference clips given as
files are encoded once by the content-hashed `ReferenceCache` shared with drama3.

The model folder is the Drama 3 release (`drama model pull`, `--model`, `$DRAMA_MODEL`):
its weights are converted once with mlx-audio's converter into the user's cache folder
(`drama/mlx-models/<revision>`), with a notice. A folder mlx-audio already converted
(`model_type` `fish_drama3`) is loaded as it is; it still needs `codec.pth` beside it.

mlx-audio 0.6.2 has no public call that decodes a prompt built by `build_frames` and returns
the frames' codes: its public `generate(text, ref_audio, ref_text, ...)` takes reference audio
only (no codes, no history turns) and yields audio only. `decode_frames` below is the one place
that reaches past the public API, to `Model._frames(frames, system_rows, voice, max_frames,
temperature, top_k, top_p)`; `voice` is any object with a `prefix` attribute (the cached
system block), and the repetition-aware draw and the codebook heads' top-k are the module
constants `RAS_*` and `CODEBOOK_TOP_K`, set for the duration of one take.

mlx and mlx-audio are optional (the `mlx` extra): this module imports them on first use, and
without them `--engine mlx` stops with one line naming the extra.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from platformdirs import user_cache_dir

from drama_cli.backends.base import (
    BackendDefaults,
    Capabilities,
    FrameCallback,
    Generation,
    GenerationRequest,
    every_few_frames,
)
from drama_cli.backends.drama3 import default_cache_dir, model_revision
from drama_cli.errors import UsageError
from engine import AudioClip, Conversation, EngineError
from engine.layouts import split_leading_tag

if TYPE_CHECKING:
    from drama_cli.backends.registry import BackendOptions

# ---- what this backend is (its capabilities are built from these) ----

NAME = "mlx"
EXTRA = "mlx"
MISSING_EXTRA = (
    f"--engine {NAME} needs mlx-audio and mlx: pip install 'drama[{EXTRA}]' "
    "(Apple silicon; mlx's CPU build on Linux)"
)
LAYOUTS = ("clone", "history")  # the layouts it voices; any other is refused
RUNS_DRAMA3_MODEL = True  # licence credit, notice and consent checks apply
NEEDS_NETWORK = False
MULTI_SPEAKER = True  # references and turns may carry any <|speaker:k|> tag
MLX_MODEL_TYPE = "fish_drama3"  # the `model_type` of a folder mlx-audio's converter wrote
PREFIXES_KEPT = 4  # system blocks (reference prefills) kept between takes
# The engine's `SamplingParams` fields and the mlx-audio module constant that plays each part in
# its decode loop (the main token's temperature, top_k and top_p are arguments of the loop).
MODULE_SETTINGS = {
    "codebook_top_k": "CODEBOOK_TOP_K",
    "ras_temperature": "RAS_TEMPERATURE",
    "ras_top_k": "RAS_TOP_K",
    "ras_top_p": "RAS_TOP_P",
}
CONVERT_NOTICE = (
    "converting the Drama 3 weights for mlx once (into {target}); later renders load the copy"
)


def import_mlx() -> SimpleNamespace:
    """mlx and the parts of mlx-audio this backend uses (`core`, `nn`, `drama3` (the port's
    model module), `ModelConfig`, `convert`, `load_weights`, `apply_quantization`, `version`).
    Raises UsageError naming the `mlx` extra when they are not installed."""
    try:
        # optional: mlx-audio (the mlx extra)
        import mlx.core as core
        import mlx.nn as nn
        from mlx_audio.tts.models.fish_drama3 import ModelConfig, drama3
        from mlx_audio.tts.models.fish_drama3.convert import convert
        from mlx_audio.utils import apply_quantization, load_weights
        from mlx_audio.version import __version__
    except ImportError:
        raise UsageError(MISSING_EXTRA) from None
    return SimpleNamespace(
        core=core,
        nn=nn,
        drama3=drama3,
        ModelConfig=ModelConfig,
        convert=convert,
        load_weights=load_weights,
        apply_quantization=apply_quantization,
        version=__version__,
    )


def is_mlx_folder(folder: Path) -> bool:
    """Whether `folder` holds weights mlx-audio's converter wrote (else: the Drama 3 release)."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return config.get("model_type") == MLX_MODEL_TYPE and "quantization_config" not in config


def converted_folder(folder: Path, mlx, notice: Callable[[str], None]) -> Path:
    """The folder mlx-audio loads for the model in `folder`: `folder` itself when it is already
    converted, else its converted copy in the user's cache (written once, atomically: into a
    temporary folder renamed when complete). Raises UsageError when the conversion fails."""
    if is_mlx_folder(folder):
        return folder
    target = Path(user_cache_dir("drama")) / "mlx-models" / model_revision(folder)
    if (target / "config.json").is_file():
        return target
    notice(CONVERT_NOTICE.format(target=target))
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        mlx.convert(folder, partial, codec=False)
    except (ValueError, KeyError, OSError) as err:
        shutil.rmtree(partial, ignore_errors=True)
        raise UsageError(f"{folder}: mlx-audio could not convert the model ({err})") from None
    try:
        partial.rename(target)
    except OSError:  # another render converted it first
        shutil.rmtree(partial, ignore_errors=True)
    return target


def load_mlx_model(folder: Path, mlx):
    """mlx-audio's Drama 3 model from a converted `folder`, with its tokenizer and without its
    own codec (takes are decoded with the engine's). On the CPU the weights are float32 (as the
    engine's CPU path), on a GPU as stored. Raises UsageError for weights that do not load."""
    # lazy: tokenizers' Rust extension, needed only when the model loads
    from tokenizers import Tokenizer

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    model = mlx.drama3.Model(mlx.ModelConfig.from_dict(config))
    try:
        weights = model.sanitize(mlx.load_weights(folder))
        mlx.apply_quantization(model, config, weights)
        model.load_weights(list(weights.items()), strict=True)
    except (ValueError, FileNotFoundError) as err:
        raise UsageError(f"{folder}: mlx-audio could not load the weights ({err})") from None
    if mlx.core.default_device() == mlx.core.cpu:
        model.set_dtype(mlx.core.float32)
    model.eval()
    model.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return model


def tagged_transcript(speaker: int, transcript: str | None) -> str:
    """A reference transcript that opens with its speaker's tag (`<|speaker:k|> text`), as the
    engine's layouts write it. Raises EngineError when it opens with another speaker's tag."""
    tag = f"<|speaker:{speaker}|>"
    if transcript is None:
        return tag
    found, rest = split_leading_tag(transcript)
    if not found:
        return f"{tag} {transcript}"
    if found != tag:
        raise EngineError(f"a reference transcript starts with {found} but is speaker {speaker}")
    return found + rest


@contextlib.contextmanager
def module_settings(module, values: dict[str, object]) -> Iterator[None]:
    """Set mlx-audio's module constants `values` (name -> value) for one take, then restore."""
    before = {name: getattr(module, name) for name in values}
    try:
        for name, value in values.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(module, name, value)


class MlxBackend(BackendDefaults):
    """Takes from mlx-audio's Drama 3 port, with codes. Loads the model on first use.

    Voices the `clone` and `history` layouts (LAYOUTS); one stream at a time (`SerialBatch`).
    `request.sampling` holds `engine.sampling.SamplingParams` fields; `ras_window` must stay
    mlx-audio's (16).
    """

    name = NAME
    scratch = False
    capabilities = Capabilities(
        codes=True,
        codes_in=True,
        streaming_frames=True,
        batch_streams=1,
        layouts=frozenset(LAYOUTS),
        multi_speaker=MULTI_SPEAKER,
        drama3_model=RUNS_DRAMA3_MODEL,
        network=NEEDS_NETWORK,
    )

    def __init__(
        self,
        folder: str | Path,
        notice: Callable[[str], None] = lambda message: None,
        cache_dir: str | Path | None = None,
    ):
        self.folder = Path(folder)
        self.notice = notice
        self.mlx = import_mlx()
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._revision = model_revision(self.folder)
        self._model = None
        self._codec = None
        self._references = None
        self._prefixes: OrderedDict[str, SimpleNamespace] = OrderedDict()

    @classmethod
    def from_options(cls, options: BackendOptions) -> MlxBackend:
        """The backend `--engine mlx` gets: the model folder found and the notice callback
        (`drama_cli.backends.registry.BackendOptions`). Raises UsageError when mlx-audio is not
        installed."""
        return cls(options.model_folder, notice=options.notice)

    def identity(self) -> dict:
        """Engine name, model revision and mlx-audio's version (part of every cache key)."""
        return {"engine": NAME, "revision": self._revision, "mlx_audio": self.mlx.version}

    # ---- loading ------------------------------------------------------------------------

    def _load(self):
        if self._model is None:
            # lazy: torch (the codec) and the reference cache, 1 s at start-up
            from drama_cli.backends.reference_audio import ReferenceCache
            from engine.codec.codec import Codec

            self._model = load_mlx_model(
                converted_folder(self.folder, self.mlx, self.notice), self.mlx
            )
            self._codec = Codec.load(self.folder)
            self._references = ReferenceCache(self.cache_dir or default_cache_dir())
        return self._model

    @property
    def codec(self):
        """The model folder's codec (`engine.codec.codec.Codec`, loaded with the model)."""
        self._load()
        return self._codec

    def encode_audio(self, audio: np.ndarray) -> np.ndarray:
        """Float32 mono `[samples]` at 44,100 Hz -> codes `[10, T]` int64 with the model's codec."""
        return self.codec.encode(np.asarray(audio, np.float32)).cpu().numpy().astype(np.int64)

    def decode_codes(self, codes: np.ndarray) -> np.ndarray:
        """Codes `[10, T]` -> float32 mono `[T * 2048]` at 44,100 Hz with the model's codec."""
        codes = np.asarray(codes, np.int64)
        if codes.shape[1] == 0:
            return np.zeros(0, np.float32)
        return self.codec.decode(codes).cpu().numpy().astype(np.float32)

    # ---- the prompt ---------------------------------------------------------------------

    def _codes(self, clip: AudioClip, where: str):
        """Codes `[10, T]` of `clip` as an mx int32 array (encoded once when given as a file)."""
        if clip.codes is not None:
            codes = np.asarray(clip.codes, np.int64)
        elif clip.path:
            codes = self._references.get_or_encode(clip.path, self._codec).cpu().numpy()
        else:
            raise EngineError(f"{where}: the audio clip has neither codes nor a file")
        return self.mlx.core.array(codes.astype(np.int32))

    def frames(self, conversation: Conversation):
        """The prompt of `conversation` through mlx-audio's `build_frames`: (rows `[N, 11]` as
        an mx int32 array, the rows of the system block). Raises EngineError for a layout other
        than LAYOUTS, character descriptions, or text or codes mlx-audio refuses."""
        if conversation.layout not in LAYOUTS:
            raise EngineError(
                f"the {NAME} engine voices the {' and '.join(LAYOUTS)} layouts, "
                f"not {conversation.layout}"
            )
        if conversation.descriptions:
            raise EngineError(f"the {NAME} engine takes no character descriptions")
        self._load()
        references = [
            (
                tagged_transcript(r.speaker, r.transcript),
                self._codes(r.clip, f"reference {n}"),
            )
            for n, r in enumerate(conversation.references, 1)
        ]
        history = []
        if conversation.layout == "history":
            history = [
                (turn.text, self._codes(turn.clip, f"context turn {n}"))
                for n, turn in enumerate(conversation.context, 1)
            ]
        try:
            return self._model.build_frames(references, history, conversation.text)
        except ValueError as err:
            raise EngineError(str(err)) from None

    def _prefix(self, rows, system_rows: int) -> SimpleNamespace:
        """The holder of the system block's cached prefill for these prompt rows (mlx-audio
        fills its `prefix` on first use); the few most recent are kept."""
        key = hashlib.sha256(np.asarray(rows[:system_rows]).tobytes()).hexdigest()
        holder = self._prefixes.pop(key, None) or SimpleNamespace(prefix=None)
        self._prefixes[key] = holder
        while len(self._prefixes) > PREFIXES_KEPT:
            self._prefixes.popitem(last=False)
        return holder

    # ---- decoding -----------------------------------------------------------------------

    def decode_frames(
        self, rows, system_rows: int, max_frames: int, sampling: dict, seed: int
    ) -> Iterator[np.ndarray]:
        """Codes `[10]` int64 of each generated frame of the prompt `rows`, until EOS or
        `max_frames` frames, drawn with the seed `seed` and the `engine.sampling.SamplingParams`
        fields in `sampling`. The one call past mlx-audio's public API (see the module's
        docstring). Raises EngineError for settings mlx-audio cannot follow."""
        # lazy: torch, 1 s at start-up
        from engine import SamplingParams

        params = SamplingParams.from_dict(dict(sampling))
        module = self.mlx.drama3
        if params.ras_window != module.RAS_WINDOW:
            raise EngineError(
                f"the {NAME} engine looks back on {module.RAS_WINDOW} main tokens for repetition "
                f"(ras_window {params.ras_window} asked)"
            )
        constants = {name: getattr(params, field) for field, name in MODULE_SETTINGS.items()}
        self.mlx.core.random.seed(seed)
        holder = self._prefix(rows, system_rows)
        with module_settings(module, constants):
            stream = self._model._frames(
                rows,
                system_rows,
                holder,
                max_frames,
                params.temperature,
                params.top_k,
                params.top_p,
            )
            for frame in stream:
                yield np.array(frame).astype(np.int64)

    def frame_budget(self, conversation: Conversation, prompt_rows: int) -> int:
        """The frames a take may run to: the engine's rule (`engine.generate.default_frame_budget`)
        over the model's context. Raises EngineError when the prompt leaves too little room."""
        # lazy: torch, 1 s at start-up
        from engine.generate import DEFAULT_CONTEXT_ROWS, conversation_text, default_frame_budget

        positions = self._model.config.text_config.get("max_position_embeddings")
        context_rows = min(positions or DEFAULT_CONTEXT_ROWS, DEFAULT_CONTEXT_ROWS)
        return default_frame_budget(conversation_text(conversation), prompt_rows, context_rows)

    def generate(
        self, request: GenerationRequest, on_frames: FrameCallback | None = None
    ) -> Generation:
        """One take: the prompt built and decoded by mlx-audio, the codes decoded with the
        model's codec.

        on_frames(frames, budget): progress every 8 frames. Stop reason `length` when the frame
        budget ended the take, else `eos`. Raises EngineError for a layout other than clone or
        history, a prompt mlx-audio refuses or sampling settings it cannot follow; AudioError
        for an unreadable clip.
        """
        started = time.perf_counter()
        rows, system_rows = self.frames(request.conversation)
        budget = self.frame_budget(request.conversation, int(rows.shape[0]))
        report = every_few_frames(on_frames)
        frames = []
        for frame in self.decode_frames(rows, system_rows, budget, request.sampling, request.seed):
            frames.append(frame)
            if report is not None:
                report(len(frames), budget)
        codes = np.stack(frames, axis=1) if frames else np.zeros((10, 0), np.int64)
        info = {
            "engine": NAME,
            "model_folder": self.folder.name,
            "frames": int(codes.shape[1]),
            "prompt_rows": int(rows.shape[0]),
            "device": str(self.mlx.core.default_device()),
            "mlx_audio": self.mlx.version,
            "seconds": round(time.perf_counter() - started, 3),
        }
        stop = "length" if codes.shape[1] >= budget else "eos"
        return Generation(self.decode_codes(codes), codes, stop, info)

    def close(self) -> None:
        """Drop the model, the codec and the cached prefills."""
        self._model = self._codec = None
        self._prefixes.clear()
