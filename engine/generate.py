"""Generation with Drama 3: load a model folder, prefill a prompt, decode frames (docs/internals/model.md §3.5-3.6, §4.4).

`Drama3.load(folder)` reads the config, tokenizer, backbone and tower (the codec loads on first
use). `model.generate(conversation, params, seed)` builds the prompt rows, prefills them in
chunks, then runs the one-frame loop: main token from the backbone (EOS or a semantic token,
plus any extra id the layout allows), codebooks 1..9 from the tower, the new row fed back to
the backbone. It stops at `<|im_end|>` or at the frame budget.

Prefix cache: the system block (instruction and references) of a prompt is prefilled once and
its backbone and tower state snapshotted; later prompts with the same system rows start from a
copy. The full recompute runs the same chunks in the same order, so both give the same bits.
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from collections import OrderedDict
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from engine.backbone import Backbone
from engine.checkpoint import Checkpoint
from engine.config import Drama3Config
from engine.constants import FRAMES_PER_SECOND
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.frame_rules import FrameRules
from engine.frame_step import FrameRecord, StaticDecoder, static_capacity
from engine.kernels.cpu_linear import pack_linears
from engine.layers.moe import DenseBudget
from engine.offload import ExpertOffload, OffloadSettings
from engine.offload.plan import offload_settings
from engine.offload.sizes import host_available_bytes
from engine.prompt import Prompt, build_prompt
from engine.sampling import (
    CounterRace,
    MainCandidates,
    SamplingParams,
    ras_window,
    sample_codebook,
    sample_main,
)
from engine.text import expected_duration_s
from engine.tokenizer import Drama3Tokenizer
from engine.tower import Tower, TowerCache

PREFILL_CHUNK_ROWS = 256
DENSE_COPY_SHARE = 0.25  # of available host memory for a CPU model's dense copies (packed, dequantised)
DEFAULT_CONTEXT_ROWS = 16_384  # SGLang-Omni's served context (docs/internals/model.md §1.5)
BUDGET_FACTOR = 3.0  # frames allowed per expected frame of speech; >= 2 by contract
MIN_BUDGET_FRAMES = 64  # about 3 s: short lines still get room for breaths and pauses
PREFIX_CACHE_ENTRIES = 4
STOP_REASONS = ("eos", "max_frames", "separator")
DECODE_MODES = ("eager", "static", "compiled", "graph")
STATIC_DECODERS = 2  # static decoders (storage, compiled step, CUDA graph) kept per model


def dense_copy_budget() -> int:
    """Bytes of dense copies a CPU model keeps (packed weights, experts kept dequantised): a
    quarter of the host memory available at load (none when the system does not say)."""
    available = host_available_bytes()
    return 0 if available is None else int(available * DENSE_COPY_SHARE)


@dataclass
class Generation:
    """One generated take.

    codes: `[10, T]` int64 codec codes (codebook 0 semantic, 1-9 residual), the EOS frame and
    a trailing `<|semantic:0|>` frame before EOS removed. stop_reason: `eos`, `max_frames` or
    `separator`. frame_times_s: for each kept frame, seconds from the call's start until it was
    sampled (the first entry is the time to first frame). prompt_rows: rows in the prompt.
    separator_frames: frame indices at which the model emitted an extra samplable token (e.g.
    `<|audio_separator|>` in the `scene` layout; those rows carry no audio). phase_s: seconds
    spent in prefill / backbone / tower / sampling (filled when timing was asked for).
    layout_version: the prompt layout's version string (`engine.layouts.Layout.version`).
    audio: float32 mono `[T * 2048]` at 44,100 Hz once decoded, else None.
    """

    codes: torch.Tensor
    stop_reason: str
    frame_times_s: list[float]
    prompt_rows: int
    seed: int
    params: SamplingParams
    separator_frames: list[int] = field(default_factory=list)
    layout_version: str = ""
    phase_s: dict[str, float] = field(default_factory=dict)
    audio: np.ndarray | None = None

    @property
    def frames(self) -> int:
        """Number of codec frames T."""
        return int(self.codes.shape[1])

    @property
    def duration_s(self) -> float:
        """Duration of the decoded take in seconds (T frames at 44,100 / 2048 per second)."""
        return self.frames / FRAMES_PER_SECOND


@dataclass
class DecodeState:
    """Everything the next step needs: backbone cache (KV and Gated DeltaNet states), tower
    cache covering rows `[0, rows - 1)`, and the last row fed to the backbone with its final
    hidden state `[1, 1, dim]`."""

    backbone_cache: object
    tower_cache: TowerCache
    rows: int = 0
    last_row: torch.Tensor | None = None
    last_hidden: torch.Tensor | None = None

    def clone(self) -> DecodeState:
        """An independent deep copy (what the prefix cache stores and hands out)."""
        return DecodeState(self.backbone_cache.clone(), self.tower_cache.clone(), self.rows,
                           None if self.last_row is None else self.last_row.clone(),
                           None if self.last_hidden is None else self.last_hidden.clone())


class PhaseClock:
    """Accumulates wall seconds per phase; synchronises CUDA first so GPU time is attributed."""

    def __init__(self, enabled: bool, device: torch.device):
        self.enabled = enabled
        self.sync = enabled and device.type == "cuda"
        self.seconds: dict[str, float] = {}
        self._phase: str | None = None
        self._start = 0.0

    def switch(self, phase: str | None) -> None:
        """End the running phase (if any) and start `phase` (None: stop timing)."""
        if not self.enabled:
            return
        if self.sync:
            torch.cuda.synchronize()
        now = time.perf_counter()
        if self._phase is not None:
            self.seconds[self._phase] = self.seconds.get(self._phase, 0.0) + now - self._start
        self._phase, self._start = phase, now


class Drama3:
    """A loaded Drama 3 model: config, tokenizer, backbone and tower on one device.

    Build with `Drama3.load(folder)`. Not thread-safe: one generation at a time; many streams
    decode together through `engine.batch.EngineBatch`.
    """

    def __init__(self, config: Drama3Config, tokenizer: Drama3Tokenizer, backbone: Backbone, tower: Tower,
                 folder: Path | None, device: torch.device, dtype: torch.dtype):
        self.config = config
        self.tokenizer = tokenizer
        self.backbone = backbone
        self.tower = tower
        self.folder = folder
        self.device = device
        self.dtype = dtype
        self._codec = None
        self._prefixes: OrderedDict[str, DecodeState] = OrderedDict()
        self.use_prefix_cache = True
        self.eos_id = config.eos_token_id
        self.semantic_start = config.semantic_start_token_id
        max_positions = config.text.max_position_embeddings or DEFAULT_CONTEXT_ROWS
        self.context_rows = min(max_positions, DEFAULT_CONTEXT_ROWS)
        self.decode_mode = "graph" if device.type == "cuda" else "eager"
        self._decoders: OrderedDict[tuple, StaticDecoder] = OrderedDict()
        self.offload: ExpertOffload | None = None  # routed experts in host memory, when set

    # ---- loading ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, device: str | torch.device | None = None,
             dtype: torch.dtype | None = None, gpu_memory: int | str | None = None,
             offload: OffloadSettings | None = None) -> Drama3:
        """Load a model folder (config.json, tokenizer.json, safetensors shards; codec.pth later).

        device: default CUDA when available, else CPU. dtype: default bfloat16 on CUDA, float32
        on CPU (applies to non-expert weights and activations). gpu_memory: device memory the
        model may use, in bytes, or "auto" (what the device has free); routed experts the plan
        (`engine.offload.plan`) cannot keep on the device stay in host memory behind a per-layer
        cache. None keeps every expert on the device. offload: explicit cache settings instead
        of a plan (e.g. a simulated budget on the CPU). Raises CheckpointError when the folder,
        config, tokenizer or tensors do not match docs/internals/model.md §1-2; ModelDoesNotFit when the
        model does not fit the budget, or without one the device's free memory.
        """
        folder = Path(path)
        config = Drama3Config.from_file(folder)
        checkpoint = Checkpoint(folder, config)
        checkpoint.verify()
        device, dtype = default_device(device, dtype)
        if offload is None:
            offload = offload_settings(config, folder, device, dtype, gpu_memory)
        tokenizer = Drama3Tokenizer.from_folder(folder)
        return cls.from_checkpoint(checkpoint, tokenizer, device, dtype, folder, offload)

    @classmethod
    def from_checkpoint(cls, checkpoint: Checkpoint, tokenizer: Drama3Tokenizer,
                        device: str | torch.device | None = None, dtype: torch.dtype | None = None,
                        folder: Path | None = None, offload: OffloadSettings | None = None) -> Drama3:
        """Build from an opened checkpoint (or any object with its `config`, `names`,
        `load_tensor`, `tensors`, `load_rows` and `close`), e.g. random weights made on the device.
        Defaults and errors as `load`; without `folder` there is no codec. With `offload` the
        routed experts stay in host memory (`model.offload` counts the cache's hits and copies)
        and frames decode in mode `eager`. On the CPU, the dense weights of tower and backbone
        get packed copies for oneDNN (`engine.kernels.cpu_linear`) and resident experts are kept
        once dequantised, all within one budget of `dense_copy_budget()` bytes."""
        device, dtype = default_device(device, dtype)
        experts = None if offload is None else ExpertOffload(checkpoint, offload, device)
        backbone = Backbone.from_checkpoint(checkpoint, device=device, dtype=dtype, offload=experts)
        tower = Tower.from_checkpoint(checkpoint, device=device, dtype=dtype,
                                      codebook_table=backbone.codebook_embeddings)
        model = cls(checkpoint.config, tokenizer, backbone, tower, folder, device, dtype)
        if device.type == "cpu":  # offloaded or not, so both give the same products
            budget = DenseBudget(dense_copy_budget())
            pack_linears(tower, budget.take)
            backbone.pack_weights(budget.take)
            if experts is None:
                backbone.keep_dense_experts(budget)
        if experts is not None:
            model.offload, model.decode_mode = experts, "eager"
        return model

    @property
    def codec(self):
        """The S2 codec from `codec.pth` in the model folder, loaded on first use (float32)."""
        if self._codec is None:
            from engine.codec import Codec

            if self.folder is None:
                raise EngineError("this model was built without a folder, so it has no codec.pth")
            self._codec = Codec.load(self.folder, device=self.device)
        return self._codec

    # ---- public API ------------------------------------------------------------------------

    def build_prompt(self, conversation: Conversation) -> Prompt:
        """The `engine.prompt.Prompt` of `conversation` (rows `[N, 11]`, system_rows, extra_ids).
        Raises EngineError for refused text or a malformed conversation."""
        return build_prompt(conversation, self.tokenizer)

    def frame_budget(self, conversation: Conversation, prompt_rows: int) -> int:
        """Default maximum frames for a conversation (see `default_frame_budget`)."""
        return default_frame_budget(conversation_text(conversation), prompt_rows, self.context_rows)

    def stream(self, conversation: Conversation, params, seed: int, max_frames: int | None = None,
               stop_at_separator: bool = False, timed: bool = False,
               ignore_eos: bool = False) -> FrameStream:
        """Start a generation whose frames are yielded as they are sampled.

        Iterate the returned `FrameStream` for codes `[10]` int64 per frame (a semantic:0 frame
        is yielded one step late, once it is known not to precede EOS); its `result` is the
        `Generation` afterwards. Arguments as `generate`.
        """
        return FrameStream(self, conversation, params, seed, max_frames, stop_at_separator, timed,
                           ignore_eos)

    def stream_audio(self, conversation: Conversation, params, seed: int, chunk_frames: int = 8,
                     max_frames: int | None = None) -> AudioStream:
        """Like `stream`, but yields decoded audio: float32 mono chunks of `chunk_frames` frames
        (`chunk_frames * 2048` samples at 44,100 Hz; the last chunk may be shorter), decoded by
        the codec's exact streaming decoder as frames arrive. `result.audio` holds the whole take.
        """
        return AudioStream(self, self.stream(conversation, params, seed, max_frames), chunk_frames)

    def generate(self, conversation: Conversation, params, seed: int, max_frames: int | None = None,
                 stop_at_separator: bool = False, timed: bool = False,
                 ignore_eos: bool = False) -> Generation:
        """Generate one take (docs/internals/model.md §3.6).

        params: `engine.sampling.SamplingParams`; seed: seeds the take's `torch.Generator`, or
        its `engine.sampling.CounterRace` in the static decode modes (`set_decode_mode`); the same
        seed, prompt, device and mode give the same codes. max_frames: frame budget (default
        `frame_budget`, never below 2x the expected duration, capped by the context).
        stop_at_separator: end at the first extra samplable token (stop reason `separator`).
        timed: fill `phase_s` (synchronises CUDA, so a little slower). ignore_eos: never sample
        EOS (benchmarks: run exactly `max_frames`).
        Raises EngineError for a prompt that leaves no room in the context.
        """
        stream = self.stream(conversation, params, seed, max_frames, stop_at_separator, timed,
                             ignore_eos)
        for _ in stream:
            pass
        return stream.result

    def decode(self, codes: torch.Tensor) -> np.ndarray:
        """Codes `[10, T]` -> float32 mono audio `[T * 2048]` at 44,100 Hz (codec clamps codes)."""
        return self.codec.decode(codes.cpu()).numpy().astype(np.float32)

    def compile_decode(self) -> None:
        """Compile the one-row decode steps of backbone and tower with torch.compile (CPU or
        GPU). The first frames after this call compile (tens of seconds); results equal the eager
        path within float rounding, so codes may differ from eager ones for the same seed."""
        self.backbone.compile_decode()
        self.tower.compile_decode()

    def set_decode_mode(self, mode: str) -> None:
        """How frames are decoded (docs/internals/engine.md "The static frame step"):

        * `eager`: the reference loop, reading each main token on the host (the CPU default);
        * `static`: the static frame step (`engine.frame_step`) run eagerly;
        * `compiled`: the static step through `torch.compile(fullgraph=True, dynamic=False)`;
        * `graph`: CUDA only, the compiled step captured as a CUDA graph and replayed per frame
          (the CUDA default; the first take of a shape compiles, tens of seconds).

        The static modes draw from a `engine.sampling.CounterRace`, so sampled codes differ from
        `eager` for the same seed (greedy codes agree). Raises EngineError for an unknown mode,
        `graph` off CUDA, or `compiled`/`graph` with experts in host memory (`offload`).
        """
        if mode not in DECODE_MODES:
            raise EngineError(f"unknown decode mode {mode!r}; choose one of {', '.join(DECODE_MODES)}")
        if mode == "graph" and self.device.type != "cuda":
            raise EngineError("decode mode 'graph' needs a CUDA device")
        if self.offload is not None and mode in ("compiled", "graph"):
            raise EngineError(f"decode mode {mode!r} cannot read the expert cache's choices; "
                              "with experts in host memory use 'eager' or 'static'")
        self.decode_mode = mode
        self._decoders.clear()

    def static_decoder(self, state: DecodeState, prompt_main: torch.Tensor, params: SamplingParams, seed: int,
                       extra_ids: tuple[int, ...], ignore_eos: bool, max_frames: int) -> StaticDecoder:
        """A `StaticDecoder` loaded with `state` (prompt main tokens `[N]`), compiled or captured
        as `decode_mode` says. Decoders are kept per (capacity, settings), so a later take of the
        same shape reuses the compiled step and the captured graph. When compiling or capturing
        fails, a RuntimeWarning says why and the model switches to decode mode `static`."""
        capacity = static_capacity(state.rows + max_frames + 1)
        key = (capacity, params, tuple(extra_ids), ignore_eos)
        decoder = self._decoders.get(key)
        if decoder is None:
            decoder = StaticDecoder(self, capacity, params, extra_ids, ignore_eos)
            self._decoders[key] = decoder
            while len(self._decoders) > STATIC_DECODERS:
                self._decoders.popitem(last=False)
        self._decoders.move_to_end(key)
        decoder.load(state, prompt_main, seed, max_frames)
        if self.decode_mode == "compiled" and decoder.mode is None:
            decoder.compile()
        elif self.decode_mode == "graph" and decoder.mode != "graph":
            try:
                decoder.capture()
            except Exception as error:  # a GPU or torch build the capture has not met: keep decoding
                warnings.warn(f"capturing the frame step failed ({type(error).__name__}: {error}); "
                              "decoding with the uncompiled static step from now on", RuntimeWarning)
                self.decode_mode = "static"
                decoder.uncompile()
            decoder.load(state, prompt_main, seed, max_frames)
        return decoder

    def clear_prefix_cache(self) -> None:
        """Forget every snapshotted system block."""
        self._prefixes.clear()

    # ---- prefill and decode ----------------------------------------------------------------

    def new_state(self) -> DecodeState:
        """Empty caches for one sequence."""
        return DecodeState(self.backbone.new_cache(), self.tower.new_cache())

    @torch.no_grad()
    def prefill(self, state: DecodeState, rows: torch.Tensor) -> None:
        """Feed rows `[n, 11]` (the rows after `state.rows`) through backbone and tower, in
        chunks of 256 rows. The tower lags one row: row p is labelled by row p+1, so the last
        row waits in `state` for the next chunk or the first decode step (docs/internals/model.md §3.5)."""
        for _ in self.prefill_steps(state, rows):
            pass

    def prefill_steps(self, state: DecodeState, rows: torch.Tensor) -> Iterator[int]:
        """`prefill` one chunk of at most 256 rows per resumption, so a caller may interleave
        other work between chunks (the same maths in the same order): yields the next chunk's
        row count before running it."""
        for begin in range(0, rows.shape[0], PREFILL_CHUNK_ROWS):
            chunk = rows[begin:begin + PREFILL_CHUNK_ROWS]
            yield chunk.shape[0]
            with torch.no_grad():
                self._prefill_chunk(state, chunk)

    def _prefill_chunk(self, state: DecodeState, chunk: torch.Tensor) -> None:
        hidden = self.backbone(self.backbone.embed_rows(chunk), state.backbone_cache)[None]
        chunk = chunk[None]
        if state.last_row is None:
            tower_hidden, tower_rows, labels = hidden[:, :-1], chunk[:, :-1], chunk[:, 1:]
        else:
            tower_hidden = torch.cat((state.last_hidden, hidden[:, :-1]), dim=1)
            tower_rows, labels = torch.cat((state.last_row, chunk[:, :-1]), dim=1), chunk
        if labels.shape[1]:
            self.tower.prefill(tower_hidden, tower_rows, labels, state.tower_cache)
        state.last_hidden, state.last_row = hidden[:, -1:], chunk[:, -1:]
        state.rows += chunk.shape[1]

    def step(self, state: DecodeState, row: torch.Tensor) -> None:
        """Feed one decoded row `[1, 1, 11]` to the backbone (the tower already holds its
        predecessor); `state.last_hidden` becomes its hidden state."""
        embedded = self.backbone.embed_rows(row[0], without_host_read=True)  # one row: no any() read
        state.last_hidden = self.backbone(embedded, state.backbone_cache)[None]
        state.last_row = row
        state.rows += 1

    def start_state(self, rows: torch.Tensor, split: int) -> DecodeState:
        """A state holding the whole prompt `rows` `[N, 11]` whose first `split` rows are the
        system block: those come from the prefix cache when possible (else they are prefilled
        and snapshotted), then the rest is prefilled."""
        steps = self.start_state_steps(rows, split)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return done.value

    def start_state_steps(self, rows: torch.Tensor, split: int) -> Generator[int, None, DecodeState]:
        """`start_state` one prefill chunk per resumption: yields the next chunk's row count
        (`prefill_steps`) before running it and returns the state (`StopIteration.value`). The
        prefix cache is shared by every caller of the model."""
        key = hashlib.sha256(rows[:split].cpu().numpy().tobytes()).hexdigest()
        cached = self._prefixes.get(key) if self.use_prefix_cache else None
        if cached is None:
            state = self.new_state()
            yield from self.prefill_steps(state, rows[:split])
            if self.use_prefix_cache:
                self._prefixes[key] = state.clone()
                while len(self._prefixes) > PREFIX_CACHE_ENTRIES:
                    self._prefixes.popitem(last=False)
        else:
            self._prefixes.move_to_end(key)
            state = cached.clone()
        yield from self.prefill_steps(state, rows[split:])
        return state


class FrameStream:
    """Iterator over the frames of one generation (codes `[10]` int64 on the CPU each).

    After iteration, `result` holds the `Generation`. Create with `Drama3.stream`.
    """

    def __init__(self, model: Drama3, conversation: Conversation, params, seed: int,
                 max_frames: int | None, stop_at_separator: bool, timed: bool, ignore_eos: bool):
        self.model, self.params, self.seed = model, params, seed
        prompt = model.build_prompt(conversation)
        self.rows = torch.as_tensor(prompt.rows, dtype=torch.long, device=model.device)
        self.system_rows = prompt.system_rows
        self.layout_version = prompt.version
        if max_frames is None:
            self.max_frames = model.frame_budget(conversation, self.rows.shape[0])
        else:
            self.max_frames = int(max_frames)
        if self.max_frames < 1 or self.rows.shape[0] + self.max_frames > model.context_rows:
            raise EngineError(f"max_frames {self.max_frames} with a {self.rows.shape[0]}-row prompt "
                              f"does not fit the {model.context_rows}-row context")
        self.extra_ids = tuple(prompt.extra_ids)
        self.stop_at_separator, self.timed, self.ignore_eos = stop_at_separator, timed, ignore_eos
        self.result: Generation | None = None

    def __iter__(self) -> Iterator[torch.Tensor]:
        with torch.no_grad():
            yield from self._run()

    def _run(self) -> Iterator[torch.Tensor]:
        model, started = self.model, time.perf_counter()
        clock = PhaseClock(self.timed, model.device)
        clock.switch("prefill")
        state = model.start_state(self.rows, self.system_rows)
        if model.decode_mode == "eager":
            records = self._eager_frames(state, started, clock)
        else:
            records = self._static_frames(state, started, clock)
        rules = FrameRules(model.eos_id, model.semantic_start, model.tower.config.vocab_size,
                          self.stop_at_separator)
        for record in records:
            yield from rules.push(record.token, record.codes, record.seconds)
            if rules.reason is not None:
                break
        records.close()
        yield from rules.end()
        clock.switch(None)
        self.result = self.generation(rules, clock.seconds)

    def generation(self, rules: FrameRules, phase_s: dict[str, float]) -> Generation:
        """The `Generation` of this stream once `rules` (its frames' `FrameRules`) has ended."""
        return Generation(rules.codes(self.model.tower.config.num_codebooks), rules.reason, rules.times,
                          int(self.rows.shape[0]), self.seed, self.params, separator_frames=rules.separators,
                          layout_version=self.layout_version, phase_s=phase_s)

    def _eager_frames(self, state: DecodeState, started: float, clock: PhaseClock) -> Iterator[FrameRecord]:
        """The reference loop: each frame's main token is read by the host (EOS ends the take
        before the tower runs), then the tower, then one backbone step once the caller resumes."""
        model = self.model
        sampler = _Sampler(model, self.params, self.seed, self.rows, self.extra_ids, self.ignore_eos)
        band = range(model.semantic_start, model.semantic_start + model.tower.config.vocab_size)
        for _ in range(self.max_frames):
            clock.switch("sampling")
            main = sampler.main(state.last_hidden)
            token = int(main)
            if token == model.eos_id:
                yield FrameRecord(token, None, time.perf_counter() - started)
                return
            clock.switch("tower")
            codes = model.tower.decode_frame(state.last_hidden, state.last_row, main.view(1),
                                             state.tower_cache, sampler.codebook_callback(clock))[0]
            if token not in band:
                codes = torch.zeros_like(codes)
            yield FrameRecord(token, codes, time.perf_counter() - started)
            clock.switch("backbone")
            model.step(state, torch.cat((main.view(1), codes))[None, None])
            sampler.push(main)

    def _static_frames(self, state: DecodeState, started: float, clock: PhaseClock) -> Iterator[FrameRecord]:
        """The static frame step (`engine.frame_step.StaticDecoder`), compiled or captured as
        `model.decode_mode` says; timed as one `decode` phase."""
        decoder = self.model.static_decoder(state, self.rows[:, 0], self.params, self.seed, self.extra_ids,
                                            self.ignore_eos, self.max_frames)
        clock.switch("decode")
        yield from decoder.run(started)


class AudioStream:
    """Iterator over decoded audio chunks of one generation; see `Drama3.stream_audio`."""

    def __init__(self, model: Drama3, frames: FrameStream, chunk_frames: int):
        if chunk_frames < 1:
            raise EngineError(f"chunk_frames must be at least 1, got {chunk_frames}")
        self.model, self.frames, self.chunk_frames = model, frames, chunk_frames
        self.result: Generation | None = None

    def __iter__(self) -> Iterator[np.ndarray]:
        decoder, pending, pieces = self.model.codec.decode_stream(), [], []
        for frame in self.frames:
            pending.append(frame)
            if len(pending) == self.chunk_frames:
                pieces.append(decoder.push(torch.stack(pending, dim=1)).numpy())
                pending = []
                yield pieces[-1]
        if pending:
            pieces.append(decoder.push(torch.stack(pending, dim=1)).numpy())
            yield pieces[-1]
        decoder.flush()
        self.result = self.frames.result
        self.result.audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)


class _Sampler:
    """The take's counter-based draws (`CounterRace`, keyed by its seed), its RAS window of
    main tokens, and the sampling calls."""

    def __init__(self, model: Drama3, params: SamplingParams, seed: int, rows: torch.Tensor,
                 extra_ids: tuple[int, ...], ignore_eos: bool):
        self.model, self.params, self.extra_ids = model, params, extra_ids
        self.generator = CounterRace(int(seed), model.device)
        config = model.config
        ids = model.backbone.candidate_token_ids(extra_ids)
        self.candidates = MainCandidates(ids, config.semantic_start_token_id, config.semantic_end_token_id,
                                         config.eos_token_id)
        self.blocked = (ids == config.eos_token_id) if ignore_eos else None
        self.recent = ras_window(rows[:, 0], max(params.ras_window, 1))

    def main(self, hidden: torch.Tensor) -> torch.Tensor:
        """The next main token id (0-d int64 tensor) from the backbone hidden `[1, 1, dim]`."""
        logits = self.model.backbone.main_logits(hidden[0], self.extra_ids)[0]
        if self.blocked is not None:
            logits = logits.masked_fill(self.blocked, float("-inf"))
        return sample_main(logits, self.recent, self.params, self.generator, self.candidates)

    def codebook_callback(self, clock: PhaseClock):
        """The tower's callback: head logits `[1, 4096]` -> code `[1]`, timed as sampling."""
        def sample(logits: torch.Tensor, index: int) -> torch.Tensor:
            clock.switch("sampling")
            code = sample_codebook(logits, self.params, self.generator)
            clock.switch("tower")
            return code
        return sample

    def push(self, main: torch.Tensor) -> None:
        """Record a sampled main token in the RAS window."""
        self.recent = torch.cat((self.recent[1:], main.view(1).to(self.recent.device)))


# ---- helpers ---------------------------------------------------------------------------------

def conversation_text(conversation: Conversation) -> str:
    """The text the take should speak: the line, or the scene's lines joined."""
    return conversation.text or " ".join(conversation.lines)


def default_device(device: str | torch.device | None,
                   dtype: torch.dtype | None) -> tuple[torch.device, torch.dtype]:
    """(device, dtype) with the defaults filled in: CUDA when available, else the CPU; bfloat16
    on CUDA, float32 elsewhere."""
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    return device, dtype or (torch.bfloat16 if device.type == "cuda" else torch.float32)


def default_frame_budget(text: str, prompt_rows: int, context_rows: int) -> int:
    """Frames allowed for speaking `text`: 3x its expected duration (`engine.text.expected_duration_s`)
    in frames, at least 64 frames, capped by the room left in the context.

    Raises EngineError when the room left is under 2x the expected frames (the take would be
    cut short), so nothing is silently truncated.
    """
    expected_frames = expected_duration_s(text) * FRAMES_PER_SECOND
    room = context_rows - prompt_rows
    if room < math.ceil(2 * expected_frames):
        raise EngineError(f"the prompt ({prompt_rows} rows) leaves {max(room, 0)} frames of the "
                          f"{context_rows}-row context; the line needs about {math.ceil(2 * expected_frames)}")
    return min(room, max(MIN_BUDGET_FRAMES, math.ceil(BUDGET_FACTOR * expected_frames)))
