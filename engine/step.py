"""The decode step: one frame for each of the streams held in fixed slot storage, one slot or
many, with static shapes and no host reads (docs/internals/engine.md "The step").

`SlotStorage` holds `slots` streams of at most `capacity` rows each: per attention layer of
backbone and tower keys and values `[slots, kv_heads, capacity, head_dim]`, per Gated DeltaNet
layer conv and recurrent states `[slots, ...]`, and per slot its positions, visibility masks,
last row and hidden state, RAS window and draw key and counter. Streams sit in slots
`[0, n)`; `stack(P)` gives views of the first P slots (P: n, or n padded to a fixed size), and
`decode_step` runs one frame over them. Slots past the live streams are padding: they
compute but never advance.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.layers.gated_deltanet import GDNState, SlotGDNState
from engine.layers.kv_cache import SlotKVCache
from engine.sampling import (
    NO_TOKEN,
    MainCandidates,
    SamplingParams,
    SlotRace,
    candidate_count,
    ras_window,
    sample_codebook,
    sample_main,
)

MIN_CAPACITY = 512  # rows; capacities are powers of two from here, so few shapes ever compile


def static_capacity(rows: int) -> int:
    """The slot size for `rows` rows: the smallest power of two ≥ max(rows, 512)."""
    capacity = MIN_CAPACITY
    while capacity < rows:
        capacity *= 2
    return capacity


@dataclass(frozen=True)
class BatchSettings:
    """What every stream of a batch shares: sampling settings, the layout's extra samplable ids
    and whether EOS is masked (`ignore_eos`)."""

    params: SamplingParams
    extra_ids: tuple[int, ...] = ()
    ignore_eos: bool = False


class SlotStack:
    """Views of the first P slots of a `SlotStorage` (P ≥ 1), what `decode_step` reads and
    writes: caches, positions `[P]`, masks `[P, capacity]`, hidden `[P, D]`, row `[P, 11]`,
    RAS window `[P, W]`, `race` and `live` int64 `[P]` (1 for a live stream, 0 for padding)."""

    def __init__(self, storage: SlotStorage, size: int):
        s = storage
        self.storage, self.model, self.size = s, s.model, size
        self.position, self.tower_position = s.position[:size], s.tower_position[:size]
        self.visible, self.tower_visible = s.visible[:size], s.tower_visible[:size]
        self.backbone_states = [
            SlotGDNState(a[:size], b[:size])
            if kind == "gdn"
            else SlotKVCache(a[:size], b[:size], self.position, self.visible, streams_axis=2)
            for kind, a, b in s.backbone
        ]
        self.tower_cache = _TowerSlots(
            [
                SlotKVCache(k[:size], v[:size], self.tower_position, self.tower_visible, 0)
                for k, v in s.tower
            ]
        )
        self.hidden, self.row, self.recent = s.hidden[:size], s.row[:size], s.recent[:size]
        self.race = SlotRace(s.key[:size], s.counter[:size])
        self.live = s.live[:size]
        self.settings: BatchSettings = s.settings
        self.candidates, self.blocked, self.draw_widths = s.candidates, s.blocked, s.draw_widths

    def attend_within(self, span: int | None) -> None:
        """Let every attention layer attend over rows `[0, span)` only (None: the whole
        capacity, as a compiled step needs). span must pass every live slot's position."""
        for cache in (*self.backbone_states, *self.tower_cache.layers):
            if isinstance(cache, SlotKVCache):
                cache.span = span


class _TowerSlots:
    """The tower's caches in a stack: `layers`, one `SlotKVCache` per tower layer."""

    def __init__(self, layers: list[SlotKVCache]):
        self.layers = layers


class SlotStorage:
    """Fixed storage for `slots` streams of up to `capacity` rows each, on the model's device
    in its dtype (see the module docstring). `load` puts a prefilled stream into a slot, `move`
    compacts, `grown` copies the live slots into larger storage. Each slot draws from the
    counter-based race keyed by its stream's seed (`SlotRace`): no host work, so the step
    compiles and captures."""

    def __init__(self, model, slots: int, capacity: int, settings: BatchSettings):
        self.model, self.slots, self.capacity = model, slots, capacity
        device, dtype = model.device, model.dtype

        def zeros(*shape, kind=dtype):
            return torch.zeros(*shape, dtype=kind, device=device)

        self.position, self.tower_position, self.live = (
            zeros(slots, kind=torch.int64) for _ in range(3)
        )
        self.visible, self.tower_visible = (
            zeros(slots, capacity, kind=torch.bool) for _ in range(2)
        )
        self.backbone = []
        for layer in model.backbone.layers:
            if layer.full_attention:
                shape = (slots, layer.mixer.kv_heads, capacity, layer.mixer.head_dim)
                self.backbone.append(("kv", zeros(*shape), zeros(*shape)))
            else:
                state = layer.mixer.new_state()
                self.backbone.append(
                    (
                        "gdn",
                        zeros(slots, *state.conv.shape),
                        zeros(slots, *state.recurrent.shape, kind=torch.float32),
                    )
                )
        tower = model.tower.config
        shape = (slots, tower.n_local_heads, capacity, tower.head_dim)
        self.tower = [(zeros(*shape), zeros(*shape)) for _ in range(tower.tower_layer_count)]
        self.hidden, self.row = (
            zeros(slots, model.config.text.hidden_size),
            zeros(slots, 11, kind=torch.int64),
        )
        self.key, self.counter = (
            zeros(slots, 2, kind=torch.int64),
            zeros(slots, 1, kind=torch.int64),
        )
        self.settings = settings
        self.configure(settings)
        self._stacks: dict[int, SlotStack] = {}

    def configure(self, settings: BatchSettings) -> None:
        """Use `settings` for the next steps (only between streams: the RAS window is resized)."""
        model, config = self.model, self.model.config
        self.settings = settings
        width = max(settings.params.ras_window, 1)
        self.recent = torch.full(
            (self.slots, width), NO_TOKEN, dtype=torch.int64, device=model.device
        )
        ids = model.backbone.candidate_token_ids(settings.extra_ids)
        self.candidates = MainCandidates(
            ids, config.semantic_start_token_id, config.semantic_end_token_id, config.eos_token_id
        )
        self.blocked = (
            (ids == config.eos_token_id)
            if settings.ignore_eos
            else torch.zeros_like(ids, dtype=torch.bool)
        )
        model.backbone.main_logits(
            self.hidden[:1], settings.extra_ids
        )  # loads the extra head rows now
        self.draw_widths = frame_draw_widths(settings.params, len(ids), model.tower.config)
        self._stacks = {}

    def stack(self, size: int) -> SlotStack:
        """Views of slots `[0, size)` (made once per size)."""
        if size not in self._stacks:
            self._stacks[size] = SlotStack(self, size)
        return self._stacks[size]

    def tensors(self) -> list[torch.Tensor]:
        """Every per-slot tensor (slot on dim 0)."""
        tensors = [
            self.position,
            self.tower_position,
            self.live,
            self.visible,
            self.tower_visible,
            self.hidden,
            self.row,
            self.recent,
            self.key,
            self.counter,
        ]
        for entry in (*self.backbone, *self.tower):
            tensors += list(entry[-2:])
        return tensors

    def load(self, slot: int, state, prompt_main: torch.Tensor, seed: int) -> None:
        """Copy a prefilled `engine.generate.DecodeState` (not modified) into `slot` and make it
        live. prompt_main: int64 `[N]` the prompt's main tokens (RAS window). Raises ValueError
        when the prompt does not fit `capacity`."""
        if state.rows >= self.capacity:
            raise ValueError(f"{state.rows} prompt rows do not fit slots of {self.capacity} rows")
        rows = torch.arange(self.capacity, device=self.position.device)
        self.position[slot], self.tower_position[slot] = state.rows, state.rows - 1
        self.visible[slot] = rows <= state.rows
        self.tower_visible[slot] = rows <= state.rows - 1
        sources = (*state.backbone_cache.layers, *state.tower_cache.layers)
        for (*_, first, second), source in zip((*self.backbone, *self.tower), sources):
            if isinstance(source, GDNState):
                first[slot], second[slot] = source.conv, source.recurrent
            else:
                first[slot, :, : source.length] = source.keys[0, :, : source.length]
                second[slot, :, : source.length] = source.values[0, :, : source.length]
        self.hidden[slot] = state.last_hidden[0, 0]
        self.row[slot] = state.last_row[0, 0]
        self.recent[slot] = ras_window(prompt_main.to(self.recent.device), self.recent.shape[1])
        self.key[slot] = torch.tensor(SlotRace.key_of(int(seed)), device=self.key.device)
        self.counter[slot] = 0
        self.live[slot] = 1

    def free(self, slot: int) -> None:
        """Make `slot` padding (it stops advancing)."""
        self.live[slot] = 0

    def move(self, source: int, target: int) -> None:
        """Copy slot `source` (a whole stream) into slot `target`."""
        for tensor in self.tensors():
            tensor[target] = tensor[source]

    def grown(self, slots: int, capacity: int, live: int) -> SlotStorage:
        """New storage of `slots` × `capacity` (capacity ≥ this one's) holding copies of slots
        `[0, live)`. Raises ValueError when `live` streams do not fit `slots`."""
        if live > slots or capacity < self.capacity:
            raise ValueError(
                f"{live} streams of {self.capacity} rows do not fit {slots} × {capacity}"
            )
        bigger = SlotStorage(self.model, slots, capacity, self.settings)
        for old, new in zip(self.tensors(), bigger.tensors()):
            new[(slice(0, live), *(slice(0, n) for n in old.shape[1:]))] = old[:live]
        return bigger


def frame_draw_widths(params: SamplingParams, candidates: int, tower) -> list[int]:
    """The widths of one frame's draws in the order the step makes them: the main token's
    request and RAS retry over `candidates` main candidates, then one per residual codebook head
    (`tower`: the tower's config)."""
    return [
        candidate_count(candidates, params.top_k),
        candidate_count(candidates, params.ras_top_k),
        *[candidate_count(tower.vocab_size, params.codebook_k)] * tower.residual_layers,
    ]


def decode_step(stack: SlotStack) -> None:
    """One frame for every slot of `stack` on the device (docs/internals/model.md §3.6), static shapes, no
    host reads: main tokens with RAS, codebooks 1..9 from the tower at each slot's tower
    position, rows `[main, c0, …, c9]` (zero codes off the semantic band) left in `stack.row`,
    one backbone step per slot at its position; live slots advance, padding slots do not."""
    model, params = stack.model, stack.settings.params
    backbone, tower = model.backbone, model.tower
    logits = backbone.main_logits(stack.hidden, stack.settings.extra_ids).masked_fill(
        stack.blocked, float("-inf")
    )
    draws = stack.race.planned(stack.draw_widths)
    main = sample_main(logits, stack.recent, params, draws, stack.candidates)

    def sample(head_logits: torch.Tensor, index: int) -> torch.Tensor:
        return sample_codebook(head_logits, params, draws)

    stack.tower_visible.scatter_(1, stack.tower_position[:, None], True)
    codes = tower.decode_frame(
        stack.hidden[:, None],
        stack.row[:, None],
        main,
        stack.tower_cache,
        sample,
        stack.tower_position,
    )
    codes = torch.where(stack.candidates.is_semantic(main)[:, None], codes, torch.zeros_like(codes))
    row = torch.cat((main[:, None], codes), dim=1)
    stack.visible.scatter_(1, stack.position[:, None], True)
    hidden = backbone.run_layers(
        backbone.embed_rows(row, without_host_read=True), stack.backbone_states, stack.position
    )
    stack.hidden.copy_(hidden)
    stack.row.copy_(row)
    stack.recent.copy_(torch.cat((stack.recent[:, 1:], main[:, None]), dim=1))
    stack.position.add_(stack.live)
    stack.tower_position.add_(stack.live)


__all__ = ["BatchSettings", "SlotStack", "SlotStorage", "decode_step", "static_capacity"]
