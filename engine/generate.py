"""Generation with Drama 3: load a model folder, prefill a prompt, decode frames
(docs/internals/model.md §3.5-3.6, §4.4).

`Drama3.load(folder)` reads the config, tokenizer, backbone and tower (the codec loads on first
use). `model.generate(conversation, params, seed)` builds the prompt rows, prefills them in
chunks, then decodes frames through the decode loop (`engine.batch.EngineBatch`, a batch of one):
main token from the backbone (EOS or a semantic token, plus any extra id the layout allows),
codebooks 1..9 from the tower, the new row fed back to the backbone. It stops at `<|im_end|>`,
at the frame budget or, when asked, at a separator.

Prefix cache: the system block (instruction and references) of a prompt is prefilled once and
its backbone and tower state snapshotted; later prompts with the same system rows start from a
copy. The full recompute runs the same chunks in the same order, so both give the same bits.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from engine.backbone import Backbone
from engine.batch import MODES, EngineBatch
from engine.checkpoint import Checkpoint
from engine.codec.codec import Codec
from engine.config import Drama3Config
from engine.constants import FRAMES_PER_SECOND
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.kernels.cpu_linear import pack_linears
from engine.layers.moe import DenseBudget
from engine.offload.offload import ExpertOffload, OffloadSettings
from engine.offload.plan import offload_settings
from engine.offload.sizes import host_available_bytes
from engine.prompt import Prompt, build_prompt
from engine.sampling import SamplingParams
from engine.take import Generation, PhaseClock, TakeRequest
from engine.text import expected_duration_s
from engine.tokenizer import Drama3Tokenizer
from engine.tower import Tower, TowerCache

PREFILL_CHUNK_ROWS = 256
DENSE_COPY_SHARE = (
    0.25  # of available host memory for a CPU model's dense copies (packed, dequantised)
)
DEFAULT_CONTEXT_ROWS = 16_384  # SGLang-Omni's served context (docs/internals/model.md §1.5)
BUDGET_FACTOR = 3.0  # frames allowed per expected frame of speech; >= 2 by contract
MIN_BUDGET_FRAMES = 64  # about 3 s: short lines still get room for breaths and pauses
PREFIX_CACHE_ENTRIES = 4
STOP_REASONS = ("eos", "max_frames", "separator")
DECODE_MODES = MODES  # eager, graph
KEPT_BATCHES = 2  # decode loops (slot storage, captured graphs) a model keeps for later takes


def dense_copy_budget() -> int:
    """Bytes of dense copies a CPU model keeps (packed weights, experts kept dequantised): a
    quarter of the host memory available at load (none when the system does not say)."""
    available = host_available_bytes()
    return 0 if available is None else int(available * DENSE_COPY_SHARE)


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
        return DecodeState(
            self.backbone_cache.clone(),
            self.tower_cache.clone(),
            self.rows,
            None if self.last_row is None else self.last_row.clone(),
            None if self.last_hidden is None else self.last_hidden.clone(),
        )


class Drama3:
    """A loaded Drama 3 model: config, tokenizer, backbone and tower on one device.

    Build with `Drama3.load(folder)`. Not thread-safe: one generation at a time. Every take
    decodes through `engine.batch.EngineBatch`: `generate` as a batch of one, many streams
    together as a batch of many (`batch`).
    """

    def __init__(
        self,
        config: Drama3Config,
        tokenizer: Drama3Tokenizer,
        backbone: Backbone,
        tower: Tower,
        folder: Path | None,
        device: torch.device,
        dtype: torch.dtype,
    ):
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
        self._batches: OrderedDict[int, EngineBatch] = OrderedDict()
        self.offload: ExpertOffload | None = None  # routed experts in host memory, when set

    # ---- loading ---------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        path: str | Path,
        device: str | torch.device | None = None,
        dtype: torch.dtype | None = None,
        gpu_memory: int | str | None = None,
        offload: OffloadSettings | None = None,
    ) -> Drama3:
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
    def from_checkpoint(
        cls,
        checkpoint: Checkpoint,
        tokenizer: Drama3Tokenizer,
        device: str | torch.device | None = None,
        dtype: torch.dtype | None = None,
        folder: Path | None = None,
        offload: OffloadSettings | None = None,
    ) -> Drama3:
        """Build from an opened checkpoint (or any object with its `config`, `names`,
        `load_tensor`, `tensors`, `load_rows` and `close`), e.g. random weights made on the device.
        Defaults and errors as `load`; without `folder` there is no codec. With `offload` the
        routed experts stay in host memory (`model.offload` counts the cache's hits and copies)
        and frames decode in mode `eager` (the MoE layers read the chosen experts on the host). On
        the CPU, the dense weights of tower and backbone
        get packed copies for oneDNN (`engine.kernels.cpu_linear`) and resident experts are kept
        once dequantised, all within one budget of `dense_copy_budget()` bytes."""
        device, dtype = default_device(device, dtype)
        experts = None if offload is None else ExpertOffload(checkpoint, offload, device)
        backbone = Backbone.from_checkpoint(checkpoint, device=device, dtype=dtype, offload=experts)
        tower = Tower.from_checkpoint(
            checkpoint, device=device, dtype=dtype, codebook_table=backbone.codebook_embeddings
        )
        model = cls(checkpoint.config, tokenizer, backbone, tower, folder, device, dtype)
        if device.type == "cpu":  # offloaded or not, so both give the same products
            budget = DenseBudget(dense_copy_budget())
            pack_linears(tower, budget.take)
            backbone.keep_dense_copies(budget, experts=experts is None)
        if experts is not None:
            model.offload, model.decode_mode = experts, "eager"
        return model

    @property
    def codec(self):
        """The S2 codec from `codec.pth` in the model folder, loaded on first use (float32)."""
        if self._codec is None:
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

    def request(
        self,
        conversation: Conversation,
        params: SamplingParams,
        seed: int,
        max_frames: int | None = None,
        stop_at_separator: bool = False,
        ignore_eos: bool = False,
    ) -> TakeRequest:
        """The `engine.take.TakeRequest` of one take (arguments as `generate`), what the decode
        loop serves. Raises EngineError as `generate` does."""
        return TakeRequest.build(
            self, conversation, params, seed, max_frames, stop_at_separator, ignore_eos
        )

    def stream(
        self,
        conversation: Conversation,
        params,
        seed: int,
        max_frames: int | None = None,
        stop_at_separator: bool = False,
        timed: bool = False,
        ignore_eos: bool = False,
    ) -> FrameStream:
        """Start a generation whose frames are yielded as the decode loop reads them.

        Iterate the returned `FrameStream` for codes `[10]` int64 per kept frame (a semantic:0
        frame is yielded one frame late, once it is known not to precede EOS); its `result` is
        the `Generation` afterwards. Arguments as `generate`.
        """
        request = self.request(
            conversation, params, seed, max_frames, stop_at_separator, ignore_eos
        )
        return FrameStream(self, request, timed)

    def stream_audio(
        self,
        conversation: Conversation,
        params,
        seed: int,
        chunk_frames: int = 8,
        max_frames: int | None = None,
    ) -> AudioStream:
        """Like `stream`, but yields decoded audio: float32 mono chunks of `chunk_frames` frames
        (`chunk_frames * 2048` samples at 44,100 Hz; the last chunk may be shorter), decoded by
        the codec's exact streaming decoder as frames arrive. `result.audio` holds the whole take.
        """
        return AudioStream(self, self.stream(conversation, params, seed, max_frames), chunk_frames)

    def generate(
        self,
        conversation: Conversation,
        params,
        seed: int,
        max_frames: int | None = None,
        stop_at_separator: bool = False,
        timed: bool = False,
        ignore_eos: bool = False,
    ) -> Generation:
        """Generate one take (docs/internals/model.md §3.6).

        params: `engine.sampling.SamplingParams`; seed: keys the take's counter-based draws
        (`engine.sampling.CounterRace`), the same in every decode mode and at any batch size;
        the same seed, prompt and device give the same codes. max_frames: frame budget (default
        `frame_budget`, never below 2x the expected duration, capped by the context).
        stop_at_separator: end at the first extra samplable token (stop reason `separator`).
        timed: fill `phase_s` with prefill and decode seconds (synchronises CUDA, so a little
        slower). ignore_eos: never sample
        EOS (benchmarks: run exactly `max_frames`).
        Raises EngineError for a prompt that leaves no room in the context.
        """
        stream = self.stream(
            conversation, params, seed, max_frames, stop_at_separator, timed, ignore_eos
        )
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
        """How the decode loop runs its step (docs/internals/engine.md "The decode loop"):

        * `eager`: the step as it is, on the live slots only (the CPU default, `--no-graph`);
        * `graph`: CUDA only, the step compiled and captured as a CUDA graph per padded batch
          size (the CUDA default; the first take of a size compiles, tens of seconds).

        Both draw the same counter-based noise, so a seed gives the same codes in either.
        Raises EngineError for an unknown mode, `graph` off CUDA, or `graph` with experts in
        host memory (`offload`).
        """
        if mode not in DECODE_MODES:
            raise EngineError(
                f"unknown decode mode {mode!r}; choose one of {', '.join(DECODE_MODES)}"
            )
        if mode == "graph" and self.device.type != "cuda":
            raise EngineError("decode mode 'graph' needs a CUDA device")
        if self.offload is not None and mode == "graph":
            raise EngineError(
                "decode mode 'graph' cannot read the expert cache's choices; "
                "with experts in host memory use 'eager'"
            )
        self.decode_mode = mode
        self._batches.clear()

    def batch(self, size: int = 1) -> EngineBatch:
        """The model's decode loop for up to `size` streams, empty, in the current decode mode.
        Loops are kept per size (the last KEPT_BATCHES), so a later take reuses the slot storage
        and the captured graphs."""
        batch = self._batches.get(size)
        if batch is None:
            batch = self._batches[size] = EngineBatch(self, size)
            while len(self._batches) > KEPT_BATCHES:
                self._batches.popitem(last=False)
        self._batches.move_to_end(size)
        batch.clear()
        return batch

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
            chunk = rows[begin : begin + PREFILL_CHUNK_ROWS]
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
        embedded = self.backbone.embed_rows(
            row[0], without_host_read=True
        )  # one row: no any() read
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

    def start_state_steps(
        self, rows: torch.Tensor, split: int
    ) -> Generator[int, None, DecodeState]:
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
    """Iterator over the kept frames of one take (codes `[10]` int64 on the CPU each), decoded
    by the model's decode loop as a batch of one. After iteration, `result` holds the
    `Generation`. Create with `Drama3.stream`."""

    def __init__(self, model: Drama3, request: TakeRequest, timed: bool):
        self.model, self.request, self.timed = model, request, timed
        self.max_frames = request.max_frames
        self.result: Generation | None = None

    def __iter__(self) -> Iterator[torch.Tensor]:
        batch = self.model.batch(1)
        batch.clock = PhaseClock(self.timed, self.model.device)  # this take's phases only
        frames: list[torch.Tensor] = []
        batch.submit(self.request, on_codes=frames.append)
        try:
            while self.result is None:
                for done in batch.step():
                    self.result = done.generation
                yield from frames
                frames.clear()
        finally:
            batch.clear()


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


# ---- helpers ---------------------------------------------------------------------------------


def conversation_text(conversation: Conversation) -> str:
    """The text the take should speak: the line, or the scene's lines joined."""
    return conversation.text or " ".join(conversation.lines)


def default_device(
    device: str | torch.device | None, dtype: torch.dtype | None
) -> tuple[torch.device, torch.dtype]:
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
        raise EngineError(
            f"the prompt ({prompt_rows} rows) leaves {max(room, 0)} frames of the "
            f"{context_rows}-row context; the line needs about {math.ceil(2 * expected_frames)}"
        )
    return min(room, max(MIN_BUDGET_FRAMES, math.ceil(BUDGET_FACTOR * expected_frames)))
