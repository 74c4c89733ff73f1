"""The drama3 backend: the embedded Drama 3 engine (`engine.generate.Drama3`).

The model folder comes from `--model`, `$DRAMA_MODEL` or the huggingface_hub cache (see
`drama_cli.backends.registry.find_model`). The device is CUDA when present, else the CPU, with a warning:
the full model on a CPU takes minutes per line. Reference clips and earlier takes given only as
files are encoded with the model's codec through a content-hashed `ReferenceCache`, so each clip
is encoded once. Torch is imported inside the functions that need it: `drama model verify` and
`drama model accept-license` load this module for its folder checks alone. The engine's stop reasons
reach take records in the render layer's words
(`ENGINE_STOP_REASONS`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from platformdirs import user_cache_dir

from drama_cli.backends.base import (
    LAYOUT_NAMES,
    BackendDefaults,
    Capabilities,
    FrameCallback,
    Generation,
    GenerationRequest,
    StreamBatch,
    backend_option,
    every_few_frames,
)
from drama_cli.backends.drama3_batch import EngineStreamBatch
from drama_cli.errors import UsageError
from engine import AudioClip, CheckpointError, Conversation, EngineError
from engine.config import Drama3Config

if TYPE_CHECKING:
    from drama_cli.backends.registry import BackendOptions

CPU_WARNING = (
    "rendering Drama 3 on the CPU: the full model is impractical there (minutes per "
    "line); use a CUDA GPU, or --engine scratch for a timing draft"
)
REVISION_FILES = ("config.json", "model.safetensors.index.json", "tokenizer.json")
# The engine's stop reasons (`engine.generate.STOP_REASONS`) in the render layer's vocabulary
# (`drama_cli.qc.take_checks.STOP_REASONS`): take records say `length` for the frame budget.
ENGINE_STOP_REASONS = {"eos": "eos", "max_frames": "length", "separator": "separator"}
# The engine's draw scheme: every take draws from the counter-based race keyed by its seed
# (`engine.sampling.CounterRace`). Earlier releases drew one-stream CPU takes from a
# `torch.Generator`, so the same `--seed` gave other codes; their identity has no `draws`.
DRAWS = "counter-v1"
CUDA_BATCH_STREAMS = 16  # `drama render --batch` default on a CUDA device
GRAPH_NOTICE = (
    "compiling the CUDA-graph decode step on the first take (a minute or so; "
    "compiled code is cached for later renders; --no-graph to skip)"
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


@dataclasses.dataclass(frozen=True)
class Drama3Options:
    """The drama3 backend's own options (`Drama3Backend.options_type`).

    graph: on CUDA, decode with the captured frame step (False: `--no-graph`, eagerly).
    gpu_memory: the device memory budget in bytes, "auto" (what the GPU has free), or None (the
        whole model on the device); routed experts that do not fit stay in host memory.
    """

    graph: bool = backend_option(
        True,
        "--no-graph",
        "On CUDA, decode drama3 frames eagerly instead of replaying the captured frame step.",
        switch=True,
    )
    gpu_memory: int | str | None = backend_option(
        None,
        "--gpu-memory",
        "Device memory drama3 may use, e.g. 24GB, 24GiB or auto (what the GPU has free);"
        " routed experts that do not fit stay in host memory.",
        parse=parse_gpu_memory,
        cluster=False,
    )


def check_fit(folder: Path, device: str | None, gpu_memory: int | str | None) -> None:
    """Refuse, before anything loads, a model that does not fit the device: without a budget
    when the GPU's free memory cannot hold every expert, with one when it cannot hold one
    token's experts per layer. Raises UsageError with the sizes and the `--gpu-memory` to use."""
    from engine import ModelDoesNotFit  # lazy: torch, 1 s at start-up
    from engine.generate import default_device
    from engine.offload.plan import offload_settings

    try:
        resolved, dtype = default_device(device, None)
    except RuntimeError:
        raise UsageError(
            f"--device {device}: not a torch device (e.g. cuda, cuda:1 or cpu)"
        ) from None
    if resolved.type != "cuda" and gpu_memory is None:
        return
    try:
        offload_settings(Drama3Config.from_file(folder), folder, resolved, dtype, gpu_memory)
    except ModelDoesNotFit as err:
        raise UsageError(str(err)) from None
    except (AssertionError, RuntimeError) as err:  # torch without CUDA, or no such GPU
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise UsageError(f"--device {resolved}: {first}") from None


def _load_model(folder: Path, device: str, gpu_memory: int | str | None):
    """The model of `folder`, its shards checked first (`check_model_folder`). Raises
    UsageError when it does not fit or the folder is damaged: one error for the whole command,
    not a failure of every line."""
    from engine import Drama3, ModelDoesNotFit  # lazy: torch, 1 s at start-up

    try:
        check_model_folder(folder)
        return Drama3.load(folder, device=device, gpu_memory=gpu_memory)
    except ModelDoesNotFit as err:
        raise UsageError(str(err)) from None
    except CheckpointError as err:
        raise UsageError(
            f"{err} (drama model verify {folder} lists every problem; "
            f"download the model again with drama model pull)"
        ) from None


def missing_model_files(folder: Path) -> list[str]:
    """The files the engine reads from a model folder that `folder` lacks, in the order it reads
    them: `config.json`, the shard index, `tokenizer.json` and `codec.pth` (which turns every
    take's codes into audio); the shards the index names are `check_model_folder`'s."""
    from engine.checkpoint import INDEX_FILE  # lazy: torch, 1 s at start-up
    from engine.codec.loading import CHECKPOINT_FILE

    return [
        name
        for name in ("config.json", INDEX_FILE, "tokenizer.json", CHECKPOINT_FILE)
        if not (Path(folder) / name).is_file()
    ]


def check_model_folder(folder: Path) -> None:
    """Check that every file the engine reads is there (`missing_model_files`), then read every
    shard's header once and compare it with the config (`Checkpoint.verify`). Raises
    CheckpointError for a missing file, or a missing, unreadable or mismatched shard."""
    from engine import Checkpoint  # lazy: torch, 1 s at start-up

    missing = missing_model_files(folder)
    if missing:
        raise CheckpointError(f"{folder}: the model folder has no {', '.join(missing)}")

    checkpoint = Checkpoint(folder)
    try:
        checkpoint.verify()
    finally:
        checkpoint.close()


def stop_reason(engine_reason: str) -> str:
    """The render layer's name for the engine's stop reason (`max_frames` -> `length`)."""
    return ENGINE_STOP_REASONS.get(engine_reason, engine_reason)


def model_revision(folder: Path) -> str:
    """The model's revision: the huggingface_hub snapshot name when `folder` is one, else a
    short SHA-256 of its config, shard index and tokenizer files (what identifies the weights
    without reading them)."""
    if folder.parent.name == "snapshots":
        return folder.name
    digest = hashlib.sha256()
    for name in REVISION_FILES:
        path = folder / name
        if path.is_file():
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_cache_dir() -> Path:
    """Where encoded reference codes are kept: the user's cache folder, `drama/reference-codes`."""
    return Path(user_cache_dir("drama")) / "reference-codes"


class BatchCapabilities:
    """`Drama3Backend.capabilities`: scene layout, codes, infill and frame progress; on an
    instance whose device is CUDA `batch_streams` is CUDA_BATCH_STREAMS (the engine's batch),
    else 1 (one stream at a time, as before; also what the class itself declares)."""

    def __get__(self, backend, owner) -> Capabilities:
        streams = CUDA_BATCH_STREAMS if backend is not None and backend.on_cuda() else 1
        return Capabilities(
            scene_layout=True,
            codes=True,
            infill=True,
            streaming_frames=True,
            batch_streams=streams,
            layouts=LAYOUT_NAMES,
            codes_in=True,
            drama3_model=True,
            local_gpu=True,
        )


class Drama3Backend(BackendDefaults):
    """Takes from the embedded Drama 3 engine, with codes. Loads the model on first use."""

    name = "drama3"
    scratch = False
    capabilities = BatchCapabilities()
    options_type = Drama3Options

    def on_cuda(self) -> bool:
        """Whether the model runs (or will run) on a CUDA device."""
        if self.device is not None:
            return str(self.device).startswith("cuda")
        import torch  # lazy: torch, 1 s at start-up

        return torch.cuda.is_available()

    def __init__(
        self,
        folder: str | Path,
        device: str | None = None,
        notice: Callable[[str], None] = lambda message: None,
        cache_dir: str | Path | None = None,
        graph: bool = True,
        gpu_memory: int | str | None = None,
    ):
        self.folder = Path(folder)
        self.graph = graph
        self.device = device
        self.gpu_memory = gpu_memory
        self.options = Drama3Options(graph=graph, gpu_memory=gpu_memory)
        check_fit(self.folder, device, gpu_memory)
        self.notice = notice
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._model = None
        self._references = None
        self._revision = model_revision(self.folder)

    @classmethod
    def from_options(cls, options: BackendOptions) -> Drama3Backend:
        """The backend `--engine drama3` gets (`drama_cli.backends.registry.BackendOptions`:
        the model folder found, the device, the notice callback, its `Drama3Options`)."""
        own = options.own if options.own is not None else Drama3Options()
        return cls(
            options.model_folder,
            device=options.device,
            notice=options.notice,
            graph=own.graph,
            gpu_memory=own.gpu_memory,
        )

    def identity(self) -> dict:
        """Engine name, model revision and the draw scheme (part of every cache key; the
        folder's name is not, so a moved model folder renders nothing again). `draws` names the
        engine's sampling noise: takes from a release whose draws differed for the same seed
        carry another identity, so they are never taken for this engine's."""
        return {"engine": "drama3", "revision": self._revision, "draws": DRAWS}

    def _load(self):
        if self._model is None:
            # lazy: torch and the reference cache, 1 s at start-up
            import torch

            from drama_cli.backends.reference_audio import ReferenceCache

            device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
            if device == "cpu":
                self.notice(CPU_WARNING)
            self._model = _load_model(self.folder, device, self.gpu_memory)
            if self._model.offload is not None:
                self.notice(
                    f"keeping {self._model.offload.slots} of {self._model.config.text.num_experts} routed "
                    "experts per layer on the device (--gpu-memory), the rest in host memory"
                )
            elif self._model.device.type == "cuda":
                if self.graph:
                    self.notice(GRAPH_NOTICE)
                else:
                    self._model.set_decode_mode("eager")
            self._references = ReferenceCache(self.cache_dir or default_cache_dir())
        return self._model

    @property
    def model(self):
        """The loaded `engine.generate.Drama3` (loaded on first access)."""
        return self._load()

    @property
    def codec(self):
        """The model's S2 codec (`engine.codec`; loaded with the model on first access).
        Raises CheckpointError when the model folder has no `codec.pth`."""
        return self.model.codec

    def encode_audio(self, audio: np.ndarray) -> np.ndarray:
        """Float32 mono `[samples]` at 44,100 Hz -> codes `[10, T]` int64 with the model's codec."""
        codes = self.codec.encode(np.asarray(audio, np.float32))
        return codes.cpu().numpy().astype(np.int64)

    def decode_codes(self, codes: np.ndarray) -> np.ndarray:
        """Codes `[10, T]` -> float32 mono `[T * 2048]` at 44,100 Hz with the model's codec."""
        import torch  # lazy: torch, 1 s at start-up

        return self.model.decode(torch.as_tensor(np.asarray(codes, np.int64)))

    def _codes_of(self, clip: AudioClip | None) -> AudioClip | None:
        if clip is None or clip.codes is not None:
            return clip
        if not clip.path:
            raise EngineError("an audio clip in the prompt has neither codes nor a file")
        codes = self._references.get_or_encode(clip.path, self._model.codec)
        return dataclasses.replace(clip, codes=codes.cpu().numpy().astype(np.int64))

    def encode_clips(self, conversation: Conversation) -> Conversation:
        """The conversation with codes `[10, T]` filled in for every clip given only as a file
        (references, context takes, infill prefix and suffix). Raises AudioError for a file
        that cannot be read."""
        self._load()
        references = tuple(
            dataclasses.replace(r, clip=self._codes_of(r.clip)) for r in conversation.references
        )
        context = tuple(
            dataclasses.replace(e, clip=self._codes_of(e.clip)) for e in conversation.context
        )
        return dataclasses.replace(
            conversation,
            references=references,
            context=context,
            prefix=self._codes_of(conversation.prefix),
            suffix=self._codes_of(conversation.suffix),
        )

    def engine_request(self, request: GenerationRequest):
        """The request as the engine takes it: (its conversation with every clip encoded,
        its `engine.sampling.SamplingParams`). Raises EngineError for an unreadable clip or
        sampling settings out of range."""
        from engine import SamplingParams  # lazy: torch, 1 s at start-up

        return self.encode_clips(request.conversation), SamplingParams.from_dict(
            dict(request.sampling)
        )

    def _stream(self, model, request: GenerationRequest, on_frames: FrameCallback | None):
        """Generate the request's codes with the loaded `model` (its decode loop, a batch of
        one), reporting progress every FRAME_REPORT_EVERY frames (`every_few_frames`); returns
        the engine's `Generation`."""
        conversation, params = self.engine_request(request)
        stream = model.stream(conversation, params, request.seed)
        report = every_few_frames(on_frames)
        for count, _frame in enumerate(stream, start=1):
            if report is not None:
                report(count, stream.max_frames)
        return stream.result

    def generate(
        self, request: GenerationRequest, on_frames: FrameCallback | None = None
    ) -> Generation:
        """One take: generate codes and decode them.

        `request.sampling` holds `engine.sampling.SamplingParams` fields (empty: defaults).
        on_frames(frames, budget): progress every 8 frames. Stop reason `length` when the frame
        budget ended the take. Raises EngineError for a prompt the engine refuses, AudioError
        for unreadable clips.
        """
        model = self._load()
        started = time.perf_counter()
        return self.take(self._stream(model, request, on_frames), started)

    def take(self, result, started: float) -> Generation:
        """The backend `Generation` of an engine `engine.generate.Generation`: codes decoded to
        audio, the stop reason in the render layer's words, the facts for the take record
        (`seconds` counted from `started`, a `time.perf_counter` value)."""
        model = self.model
        codes = result.codes.cpu().numpy().astype(np.int64)
        audio = model.decode(result.codes) if codes.shape[1] else np.zeros(0, np.float32)
        stop = stop_reason(result.stop_reason)
        info = {
            "engine": "drama3",
            "model_folder": self.folder.name,
            "frames": int(codes.shape[1]),
            "prompt_rows": int(result.prompt_rows),
            "device": str(model.device),
            "seconds": round(time.perf_counter() - started, 3),
            "engine_stop_reason": result.stop_reason,
        }
        return Generation(np.asarray(audio, np.float32), codes, stop, info)

    def open_batch(self, size: int) -> StreamBatch:
        """`size` streams decoded together by the engine's decode loop (`engine.batch.EngineBatch`,
        through `drama_cli.backends.drama3_batch.EngineStreamBatch`), whatever the size."""
        return EngineStreamBatch(self, max(size, 1))

    def generate_scene(
        self, request: GenerationRequest, texts: list[str], on_frames: FrameCallback | None = None
    ) -> list[Generation] | None:
        """`scene` layout: voice a group of lines in one generation and split the codes at the
        `<|audio_separator|>` frames into one take per line (`docs/internals/layouts.md`, provisional).

        texts: the group's speaker-tagged lines, in order. Every line but the last stops at
        `separator`; the last one as the generation did. Returns None when the output does
        not hold exactly one separator between consecutive lines (the render then falls back
        to history mode). Raises EngineError when the tokenizer has no separator token.
        """
        import torch  # lazy: torch, 1 s at start-up

        model = self._load()
        started = time.perf_counter()
        result = self._stream(model, request, on_frames)
        codes = result.codes.cpu().numpy().astype(np.int64)
        cuts = [f for f in result.separator_frames if f < codes.shape[1]]  # none after the end
        if len(cuts) != len(texts) - 1:
            return None
        bounds = [0, *cuts, codes.shape[1]]
        generations = []
        for number, (start, end) in enumerate(zip(bounds, bounds[1:])):
            piece = codes[:, start:end]
            audio = (
                model.decode(torch.as_tensor(piece)) if piece.shape[1] else np.zeros(0, np.float32)
            )
            last = number == len(texts) - 1
            stop = stop_reason(result.stop_reason) if last else "separator"
            info = {
                "engine": "drama3",
                "frames": int(piece.shape[1]),
                "scene_part": number,
                "prompt_rows": int(result.prompt_rows),
                "device": str(model.device),
                "seconds": round(time.perf_counter() - started, 3),
            }
            generations.append(Generation(np.asarray(audio, np.float32), piece, stop, info))
        return generations

    def close(self) -> None:
        """Drop the model (and free its device memory)."""
        self._model = None
