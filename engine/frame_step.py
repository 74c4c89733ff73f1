"""The static-shape frame step: one decoded frame as one function of fixed-size device tensors
(docs/internals/model.md §3.6, docs/internals/engine.md "The static frame step").

After prefill (`engine.generate.Drama3.start_state`), `StaticDecoder` copies the caches into
storage sized for the whole take: a `StaticKVCache` per attention layer of backbone and tower,
the Gated DeltaNet states as they are (fixed size already), the last row and hidden state, the
RAS window, a `CounterRace` for the draws and a buffer of every frame's row. `step()` then runs
one frame without reading anything back to the host: main-token logits and the RAS draw, the
tower's nine codebook draws, the new row written to the frame buffer, one backbone step, and
every position advanced in place. The host learns the main tokens afterwards (`frames`), on CUDA
through pinned buffers one frame late, so the device never waits for it.

Three ways to run the same step: eagerly (the reference, any device), compiled with
`torch.compile(fullgraph=True, dynamic=False)` (CPU or GPU), and on CUDA replayed as a CUDA
graph captured by hand around the compiled step (`capture`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from engine.layers.gated_deltanet import GDNState
from engine.layers.kv_cache import StaticKVCache
from engine.sampling import (
    NO_TOKEN,
    CounterRace,
    MainCandidates,
    SamplingParams,
    ras_window,
    sample_codebook,
    sample_main,
)

MIN_CAPACITY = 512  # rows; capacities are powers of two from here, so few shapes ever compile
CUDA_BATCH_FRAMES = 8  # frames copied to the host together on CUDA


def static_capacity(rows: int) -> int:
    """The static storage size for `rows` rows: the smallest power of two ≥ max(rows, 512)."""
    capacity = MIN_CAPACITY
    while capacity < rows:
        capacity *= 2
    return capacity


class StaticTowerCache:
    """The tower's caches for the static step: `layers`, one `StaticKVCache` per tower layer."""

    def __init__(self, layers: list[StaticKVCache]):
        self.layers = layers


@dataclass
class FrameRecord:
    """One decoded frame as the host sees it: `token` the main token id, `codes` `[10]` int64
    on the CPU (zeros unless the token is in the semantic band), `seconds` from the take's start
    until the host had it."""

    token: int
    codes: torch.Tensor
    seconds: float


class StaticDecoder:
    """Fixed-size device storage for takes of one shape and its one-frame step.

    model: a loaded `engine.generate.Drama3`; capacity: rows of every KV cache and of the frame
    buffer (prompt plus frames plus one, see `static_capacity`); params: the sampling settings
    (draws come from a `CounterRace`, so sampled codes differ from the eager loop's
    `torch.Generator` draws for the same seed; greedy codes do not); extra_ids: the layout's
    extra samplable ids; ignore_eos: EOS is never drawn. `load` puts a prefilled take into the
    storage; a captured graph keeps working across loads, since they copy into the same tensors.
    """

    def __init__(self, model, capacity: int, params: SamplingParams, extra_ids: tuple[int, ...],
                 ignore_eos: bool):
        device, config = model.device, model.config
        self.model, self.params, self.extra_ids, self.capacity = model, params, tuple(extra_ids), capacity
        self.max_frames = 0
        self.position = torch.zeros(1, dtype=torch.int64, device=device)
        self.tower_position = torch.zeros(1, dtype=torch.int64, device=device)
        self.visible = torch.zeros(capacity, dtype=torch.bool, device=device)
        self.tower_visible = torch.zeros(capacity, dtype=torch.bool, device=device)
        backbone, tower = model.backbone, model.tower
        self.backbone_states = [
            self._kv(layer.mixer.kv_heads, layer.mixer.head_dim, self.position, self.visible)
            if layer.full_attention else layer.mixer.new_state() for layer in backbone.layers]
        tower_config = tower.config
        self.tower_cache = StaticTowerCache([
            self._kv(tower_config.n_local_heads, tower_config.head_dim, self.tower_position, self.tower_visible)
            for _ in range(len(tower.shared_layers) + len(tower.residual_layers))])
        self.hidden = torch.zeros(1, 1, config.text.hidden_size, dtype=model.dtype, device=device)
        self.row = torch.zeros(1, 1, 11, dtype=torch.int64, device=device)
        self.recent = torch.full((max(params.ras_window, 1),), NO_TOKEN, dtype=torch.int64, device=device)
        self.race = CounterRace(0, device)
        self.frames = torch.zeros(capacity, 11, dtype=torch.int64, device=device)
        self.frame_index = torch.zeros(1, dtype=torch.int64, device=device)
        ids = backbone.candidate_token_ids(self.extra_ids)
        self.candidates = MainCandidates(ids, config.semantic_start_token_id, config.semantic_end_token_id,
                                         config.eos_token_id)
        self.blocked = (ids == config.eos_token_id) if ignore_eos else torch.zeros_like(ids, dtype=torch.bool)
        backbone.main_logits(self.hidden[0], self.extra_ids)  # loads the extra head rows now
        self._runner = None
        self._graph = None
        self._pinned: tuple[torch.Tensor, torch.Tensor] | None = None

    def _kv(self, heads: int, head_dim: int, position: torch.Tensor, visible: torch.Tensor) -> StaticKVCache:
        model = self.model
        shape = (1, heads, self.capacity, head_dim)
        return StaticKVCache(torch.zeros(shape, dtype=model.dtype, device=model.device),
                             torch.zeros(shape, dtype=model.dtype, device=model.device), position, visible)

    def load(self, state, prompt_main: torch.Tensor, seed: int, max_frames: int) -> None:
        """Copy a prefilled `DecodeState` (not modified) into the storage and start a take of at
        most `max_frames` frames. prompt_main: int64 `[N]` the prompt rows' main tokens (RAS
        window). Raises ValueError when the prompt and frames do not fit `capacity`."""
        if state.rows + max_frames + 1 > self.capacity:
            raise ValueError(f"{state.rows} prompt rows and {max_frames} frames do not fit {self.capacity} rows")
        self.max_frames = int(max_frames)
        rows = torch.arange(self.capacity, device=self.position.device)
        self.position.fill_(state.rows)
        self.tower_position.fill_(state.rows - 1)
        self.visible.copy_(rows <= state.rows)
        self.tower_visible.copy_(rows <= state.rows - 1)
        for target, source in zip((*self.backbone_states, *self.tower_cache.layers),
                                  (*state.backbone_cache.layers, *state.tower_cache.layers)):
            if isinstance(target, GDNState):
                target.conv.copy_(source.conv)
                target.recurrent.copy_(source.recurrent)
            else:
                target.keys[:, :, :source.length] = source.keys[:, :, :source.length]
                target.values[:, :, :source.length] = source.values[:, :, :source.length]
        self.hidden.copy_(state.last_hidden)
        self.row.copy_(state.last_row)
        self.recent.copy_(ras_window(prompt_main.to(self.recent.device), self.recent.shape[0]))
        fresh = CounterRace(int(seed), self.race.key.device)
        self.race.key.copy_(fresh.key)
        self.race.counter.zero_()
        self.frame_index.zero_()

    # ---- the step ------------------------------------------------------------------------

    def step(self) -> None:
        """Decode one frame on the device: `frames[frame_index]` becomes `[main, c0, …, c9]`,
        the caches, positions, RAS window and draw counter advance. No host reads; runs the
        compiled or captured form when `compile`/`capture` was called."""
        if self._graph is not None:
            self._graph.replay()
        elif self._runner is not None:
            self._runner(self)
        else:
            decode_frame(self)

    def mutable_tensors(self) -> list[torch.Tensor]:
        """Every tensor `step` writes (caches, states, positions, masks, row, window, counter,
        frame buffer): what a warm-up must restore before a graph is captured."""
        tensors = [self.position, self.tower_position, self.visible, self.tower_visible, self.hidden, self.row,
                   self.recent, self.race.counter, self.frames, self.frame_index]
        for layer in (*self.backbone_states, *self.tower_cache.layers):
            tensors += [layer.conv, layer.recurrent] if isinstance(layer, GDNState) else [layer.keys, layer.values]
        return tensors

    @property
    def mode(self) -> str | None:
        """None (eager), `compiled` or `graph`."""
        return "graph" if self._graph is not None else "compiled" if self._runner is not None else None

    def compile(self, fullgraph: bool = True, mode: str | None = None) -> None:
        """Run later steps through `torch.compile(decode_frame, dynamic=False)` (compiled on the
        first step; the same compiled code serves every take of the same capacity and settings)."""
        self._runner = compiled_frame_step(fullgraph, mode)

    def uncompile(self) -> None:
        """Back to the eager step (drops the compiled step and any captured graph)."""
        self._runner, self._graph = None, None

    def capture(self, warmup: int = 2) -> None:
        """CUDA only: compile (if not yet), run `warmup` steps to finish compiling and tuning,
        restore the state, and capture one step as a `torch.cuda.CUDAGraph` that `step` replays.
        Raises RuntimeError off CUDA."""
        if self.position.device.type != "cuda":
            raise RuntimeError("CUDA graphs need the model on a CUDA device")
        if self._runner is None:
            self.compile(fullgraph=False)
        self._graph = capture_step(lambda: self._runner(self), self.mutable_tensors(), warmup)

    # ---- the host side -------------------------------------------------------------------

    def run(self, started: float | None = None) -> Iterator[FrameRecord]:
        """Step up to `max_frames` times and yield each frame once the host has it (main token
        and codes). The caller stops early by not resuming (e.g. at EOS). On CUDA the main token
        of frame t is read after frame t+1 is queued (pinned buffer, one event per frame), and
        codes arrive in batches of 8 frames; on the CPU each frame is read when it is done."""
        started = time.perf_counter() if started is None else started
        if self.position.device.type != "cuda":
            for index in range(self.max_frames):
                self.step()
                row = self.frames[index]
                yield FrameRecord(int(self.frames.numpy()[index, 0]), row[1:].clone(),
                                  time.perf_counter() - started)
            return
        yield from self._run_cuda(started)

    def _run_cuda(self, started: float) -> Iterator[FrameRecord]:
        if self._pinned is None:  # allocated once per decoder: pinning memory is slow
            self._pinned = (torch.empty(self.capacity, 11, dtype=torch.int64, pin_memory=True),
                            torch.empty(self.capacity, dtype=torch.int64, pin_memory=True))
        host, tokens = self._pinned
        seen, events, sent, end = tokens.numpy(), [], 0, self.max_frames
        for index in range(self.max_frames):
            self.step()
            tokens[index:index + 1].copy_(self.frames[index, :1], non_blocking=True)
            events.append(torch.cuda.Event())
            events[-1].record()
            if index >= 1:  # frame index-1, one frame late: the device is busy with frame index
                events[index - 1].synchronize()
                if seen[index - 1] == self.model.eos_id:
                    end = index
                    break
            if index - sent >= CUDA_BATCH_FRAMES:
                yield from self._send(host, sent, index, started)
                sent = index
        yield from self._send(host, sent, end, started)

    def _send(self, host: torch.Tensor, begin: int, end: int, started: float) -> Iterator[FrameRecord]:
        """Copy frames `[begin, end)` to the pinned `host` buffer in one transfer and yield them."""
        if end <= begin:
            return
        host[begin:end].copy_(self.frames[begin:end], non_blocking=True)
        torch.cuda.current_stream().synchronize()
        rows = host.numpy()
        for index in range(begin, end):
            yield FrameRecord(int(rows[index, 0]), host[index, 1:].clone(), time.perf_counter() - started)


def decode_frame(step: StaticDecoder) -> None:
    """One frame of `step`'s take on the device (docs/internals/model.md §3.6), static shapes only.

    Main token from the last hidden state (EOS masked when asked), the RAS rule against the
    window, codebooks 1..9 from the tower at the previous row's position, the row
    `[main, c0, …, c9]` (zero codes off the semantic band) stored at `frame_index`, one backbone
    step at `position`, then every position, mask and the window advance in place.
    """
    model, params = step.model, step.params
    backbone, tower = model.backbone, model.tower
    logits = backbone.main_logits(step.hidden[0], step.extra_ids)[0].masked_fill(step.blocked, float("-inf"))
    main = sample_main(logits, step.recent, params, step.race, step.candidates).view(1)

    def sample(head_logits: torch.Tensor, index: int) -> torch.Tensor:
        return sample_codebook(head_logits, params, step.race)

    step.tower_visible.index_fill_(0, step.tower_position, True)
    codes = tower.decode_frame(step.hidden, step.row, main, step.tower_cache, sample, step.tower_position)[0]
    codes = torch.where(step.candidates.is_semantic(main), codes, torch.zeros_like(codes))
    row = torch.cat((main, codes))
    step.frames.index_copy_(0, step.frame_index, row[None])
    step.visible.index_fill_(0, step.position, True)
    hidden = backbone.run_layers(backbone.embed_rows(row[None], without_host_read=True), step.backbone_states,
                                 step.position)
    step.hidden.copy_(hidden[None])
    step.row.copy_(row[None, None])
    step.recent.copy_(torch.cat((step.recent[1:], main)))
    for counter in (step.position, step.tower_position, step.frame_index):
        counter.add_(1)


def capture_step(step, mutable: list[torch.Tensor], warmup: int = 2, pool=None) -> torch.cuda.CUDAGraph:
    """Capture one call of `step()` (a compiled step over fixed CUDA tensors) as a CUDA graph:
    `warmup` calls on a side stream finish compiling and tuning, every tensor in `mutable` (all
    the step writes) is restored, then one call is captured, so the state is as before and the
    graph's `replay()` runs the step. pool: a `torch.cuda.graph_pool_handle()` graphs share."""
    saved = [t.clone() for t in mutable]
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    try:
        with torch.cuda.stream(stream):
            for _ in range(warmup):
                step()
    finally:  # the state is as before even when a warm-up step fails
        torch.cuda.current_stream().wait_stream(stream)
        for target, value in zip(mutable, saved):
            target.copy_(value)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool):
        step()
    torch.cuda.synchronize()
    return graph


_COMPILED: dict[tuple, object] = {}


def compiled_frame_step(fullgraph: bool = True, mode: str | None = None):
    """`torch.compile(decode_frame, fullgraph=fullgraph, dynamic=False, mode=mode)`, made once
    per setting so takes share compiled code (a new capacity or new sampling settings compile
    again; torch caches compiled artefacts on disk between processes)."""
    key = (fullgraph, mode)
    if key not in _COMPILED:
        _COMPILED[key] = torch.compile(decode_frame, fullgraph=fullgraph, dynamic=False, mode=mode)
    return _COMPILED[key]


__all__ = ["StaticDecoder", "StaticTowerCache", "FrameRecord", "decode_frame", "compiled_frame_step",
           "capture_step", "static_capacity"]
