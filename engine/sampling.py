"""Sampling of one frame's tokens: the main token with RAS, and the codebook heads (docs/internals/model.md §3.6).

The primitive: logits / max(T, 1e-5); probabilities over **all** candidates; top-p measured on that
full distribution; ranks ≥ top-k dropped; rank 0 always kept; one draw from the renormalised kept
set. The main token keeps the token whose cumulative probability crosses top-p (so EOS stays
reachable); the codebook heads drop it. Draws are an exponential race (argmax of p / E, E ~ Exp(1))
on a caller-owned `torch.Generator`, so the same seed, inputs and device give the same tokens.

RAS (repetition-aware sampling): every main-token step draws twice, with the request's settings and
with 1.0 / top-k 30 / top-p 0.95; when the first draw is a semantic token already among the last 16
main tokens of the sequence (prompt rows included), the second draw is used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields

import torch

from engine.errors import EngineError

MIN_TEMPERATURE = (
    1e-5  # temperature 0 is clamped here: effectively greedy (docs/internals/model.md §1.5)
)
CODEBOOK_TOP_K = (
    30  # codebook heads never sample beyond the 30 best codes (docs/internals/model.md §1.5)
)
NO_TOKEN = -1  # padding of the RAS window
RAS_WINDOW = 16  # main tokens looked back on by RAS (docs/internals/model.md §3.6)


@dataclass(frozen=True)
class SamplingParams:
    """Sampling settings of one take (docs/internals/model.md §1.5 and §3.6; defaults of the reference server).

    temperature: ≥ 0; 0 means greedy (clamped to 1e-5).
    top_p: in (0, 1].
    top_k: None (no cap, the default for the main token) or ≥ 1.
    codebook_top_k: cap on the codebook heads' top-k; heads use min(top_k, codebook_top_k).
    ras_window: main tokens looked back on for repetition (0 turns RAS off).
    ras_temperature, ras_top_k, ras_top_p: the settings of the RAS retry draw.
    Invalid values raise `EngineError`.
    """

    temperature: float = 1.0
    top_p: float = 0.9
    top_k: int | None = None
    codebook_top_k: int = CODEBOOK_TOP_K
    ras_window: int = RAS_WINDOW
    ras_temperature: float = 1.0
    ras_top_k: int = 30
    ras_top_p: float = 0.95

    def __post_init__(self) -> None:
        for name in ("temperature", "ras_temperature"):
            _check_temperature(name, getattr(self, name))
        for name in ("top_p", "ras_top_p"):
            _check_top_p(name, getattr(self, name))
        if self.top_k is not None:
            _check_count("top_k", self.top_k, minimum=1)
        _check_count("codebook_top_k", self.codebook_top_k, minimum=1)
        _check_count("ras_top_k", self.ras_top_k, minimum=1)
        _check_count("ras_window", self.ras_window, minimum=0)

    @property
    def codebook_k(self) -> int:
        """Top-k of the codebook heads: min(top_k, codebook_top_k)."""
        return self.codebook_top_k if self.top_k is None else min(self.top_k, self.codebook_top_k)

    def to_dict(self) -> dict:
        """Plain values for a take's metadata."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> SamplingParams:
        """Inverse of `to_dict`; unknown keys raise `EngineError`."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise EngineError(f"unknown sampling settings: {', '.join(unknown)}")
        return cls(**values)


def _check_temperature(name: str, value) -> None:
    if not _is_number(value) or not math.isfinite(value) or value < 0:
        raise EngineError(f"{name} must be a finite number ≥ 0; got {value!r}")


def _check_top_p(name: str, value) -> None:
    if not _is_number(value) or not 0 < value <= 1:
        raise EngineError(f"{name} must lie in (0, 1]; got {value!r}")


def _check_count(name: str, value, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise EngineError(f"{name} must be an integer ≥ {minimum}; got {value!r}")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def make_generator(seed: int, device: torch.device | str = "cpu") -> torch.Generator:
    """A fresh generator for one take, on the device the logits live on.
    Raises `EngineError` unless 0 ≤ seed < 2**63."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise EngineError(f"seed must be an integer in [0, 2**63); got {seed!r}")
    generator = torch.Generator(device=torch.device(device))
    generator.manual_seed(seed)
    return generator


_MASK32 = 0xFFFFFFFF
_HASH_MULTIPLIER = 0x45D9F3B  # below 2^27: every product of a 32-bit value fits in int64
_INDEX_MULTIPLIER = 0x9E3779B1  # 2^32 / golden ratio, spreads element indices


def _mix32(x: torch.Tensor) -> torch.Tensor:
    """A 32-bit integer hash (xor-shift-multiply rounds) of int64 values in [0, 2^32)."""
    x = x ^ (x >> 16)
    x = (x * _HASH_MULTIPLIER) & _MASK32
    x = x ^ (x >> 16)
    x = (x * _HASH_MULTIPLIER) & _MASK32
    return x ^ (x >> 16)


class CounterRace:
    """Exp(1) variates for the exponential race from a hash of (seed, draw counter, element),
    computed on the device with integer operations only.

    It replaces a `torch.Generator` where a frame must run without host reads, under
    torch.compile or inside a CUDA graph (docs/internals/sampling.md, "Counter-based draws"): the state is
    an int64 counter tensor `[1]` on the device, advanced in place by one per call of
    `exponential`, so a replayed graph draws fresh values every frame. The same seed and the same
    sequence of calls give the same variates in eager mode and compiled; the stream differs from
    a `torch.Generator`'s with the same seed. Raises `EngineError` unless 0 ≤ seed < 2**63.
    """

    def __init__(self, seed: int, device: torch.device | str = "cpu"):
        make_generator(seed)  # validates the seed
        self.key = torch.tensor([seed & _MASK32, seed >> 32], dtype=torch.int64, device=device)
        self.counter = torch.zeros(1, dtype=torch.int64, device=device)

    def exponential(self, like: torch.Tensor) -> torch.Tensor:
        """Exp(1) variates shaped and typed like `like` (float32 `[..., k]`), independent across
        elements and calls; advances the counter."""
        self.counter.add_(1)
        noise = _race_noise(self.counter[None], self.key[None], like.numel())
        return noise.view(like.shape).to(like.dtype)


def _race_noise(counters: torch.Tensor, key: torch.Tensor, width: int) -> torch.Tensor:
    """Exp(1) float32 `[B, n, width]` for draw counters int64 `[B, n]` and keys int64 `[B, 2]`:
    element i of draw (b, j) is a hash of (key b, counter b j, i), the same whether the draws are
    made one call at a time or n at once."""
    stream = _mix32(((counters * _INDEX_MULTIPLIER) & _MASK32) ^ key[:, :1]) ^ key[:, 1:]
    index = torch.arange(width, device=counters.device, dtype=torch.int64)
    bits = _mix32(stream[..., None] ^ ((index * _INDEX_MULTIPLIER) & _MASK32))
    uniform = ((bits >> 8).to(torch.float32) + 0.5) * 2.0**-24  # in (0, 1), never 0 or 1
    return -torch.log(uniform)


class SlotRace(CounterRace):
    """The counter-based draws of B independent streams at once, one slot each: key int64
    `[B, 2]` (each stream's seed, as `CounterRace` splits it) and counter `[B, 1]` (views of a
    batch's storage). Row b of `exponential(like [B, k])` equals what a `CounterRace` with
    slot b's seed and counter draws for `like[b:b+1]`, so a stream's draws never depend on the
    other rows."""

    def __init__(self, key: torch.Tensor, counter: torch.Tensor):
        self.key, self.counter = key, counter

    @staticmethod
    def key_of(seed: int) -> list[int]:
        """The two 32-bit halves of `seed` (row of `key`). Raises `EngineError` unless 0 ≤ seed < 2**63."""
        make_generator(seed)
        return [seed & _MASK32, seed >> 32]

    def exponential(self, like: torch.Tensor) -> torch.Tensor:
        """Exp(1) variates shaped and typed like `like` `[B, k]` float32; advances every counter."""
        self.counter.add_(1)
        return _race_noise(self.counter, self.key, like.shape[-1])[:, 0].to(like.dtype)

    def planned(self, widths: Sequence[int]) -> PlannedDraws:
        """The next `len(widths)` draws of every slot computed at once, draw j `[B, widths[j]]`:
        the same variates as that many `exponential` calls of those widths (one hash per width
        instead of one per draw, so a frame's sampling runs a few dozen operations, not hundreds).
        Advances every counter by `len(widths)`."""
        steps = torch.arange(1, len(widths) + 1, device=self.counter.device, dtype=torch.int64)
        counters = self.counter + steps
        self.counter.add_(len(widths))
        draws: list[torch.Tensor | None] = [None] * len(widths)
        for width in sorted(set(widths)):
            picked = [j for j, w in enumerate(widths) if w == width]
            index = torch.tensor(picked, device=counters.device)
            noise = _race_noise(counters.index_select(1, index), self.key, width)
            for column, j in enumerate(picked):
                draws[j] = noise[:, column]
        return PlannedDraws(draws)


class PlannedDraws:
    """Draws made ahead by `SlotRace.planned`, handed out in order by `exponential(like)` in
    place of a race: each call returns the next draw, which must be `like`'s width. Raises
    `EngineError` when more draws are asked for than were planned or a width differs (the
    plan and the frame's sampling disagree)."""

    def __init__(self, draws: list[torch.Tensor]):
        self.draws, self.next = draws, 0

    def exponential(self, like: torch.Tensor) -> torch.Tensor:
        """The next planned draw `[B, k]` in `like`'s dtype."""
        if self.next >= len(self.draws) or self.draws[self.next].shape[-1] != like.shape[-1]:
            raise EngineError(
                f"draw {self.next} of width {like.shape[-1]} was not planned "
                f"({[d.shape[-1] for d in self.draws]})"
            )
        draw = self.draws[self.next]
        self.next += 1
        return draw.to(like.dtype)


def candidate_count(vocab: int, top_k: int | None) -> int:
    """How many candidates the sampling primitive ranks over a vocabulary: min(top_k, vocab), or
    the whole vocabulary without top_k (the width of its draw)."""
    return vocab if top_k is None else min(top_k, vocab)


# ---- the primitive -------------------------------------------------------------------------


def _ranked(
    logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float, keep_crossing: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(probs [B, k], ids [B, k], kept [B, k]) of the k best candidates in rank order.
    probs are measured on the full distribution of `logits` [B, V]."""
    scaled = logits.float() / max(temperature, MIN_TEMPERATURE)
    # At low temperature every logit carries a huge offset; remove it before the exponentials.
    scaled = scaled - scaled.amax(dim=-1, keepdim=True)
    vocab = scaled.shape[-1]
    k = candidate_count(vocab, top_k)
    if k == vocab:
        values, ids = torch.sort(scaled, dim=-1, descending=True, stable=True)
    else:
        values, ids = torch.topk(scaled, k, dim=-1, sorted=True)
    probs = torch.exp(values - torch.logsumexp(scaled, dim=-1, keepdim=True))
    passed = torch.cumsum(probs, dim=-1)
    if keep_crossing:  # exclusive cumulative sum: the token that crosses top_p stays
        passed = torch.cat([torch.zeros_like(passed[..., :1]), passed[..., :-1]], dim=-1)
    rank = torch.arange(k, device=logits.device)
    kept = (passed <= top_p) | (rank == 0)
    return probs, ids, kept


def kept_mask(
    logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float, keep_crossing: bool
) -> torch.Tensor:
    """Which candidates the primitive may draw: bool `[..., V]` for logits `[..., V]` (docs/internals/model.md §3.6)."""
    flat = logits.reshape(-1, logits.shape[-1])
    _, ids, kept = _ranked(flat, temperature, top_k, top_p, keep_crossing)
    mask = torch.zeros_like(flat, dtype=torch.bool)
    mask.scatter_(-1, ids, kept)
    return mask.reshape(logits.shape)


def sample_top_k_top_p(
    logits: torch.Tensor,
    temperature: float,
    top_k: int | None,
    top_p: float,
    keep_crossing: bool,
    generator: torch.Generator | CounterRace | PlannedDraws | None,
) -> torch.Tensor:
    """One index per row of logits `[..., V]` → int64 `[...]`, drawn from the kept set of
    the primitive (docs/internals/model.md §3.6) in proportion to the renormalised probabilities.
    generator: a `torch.Generator` (or None: torch's default one) or a `CounterRace`."""
    flat = logits.reshape(-1, logits.shape[-1])
    probs, ids, kept = _ranked(flat, temperature, top_k, top_p, keep_crossing)
    if isinstance(generator, (CounterRace, PlannedDraws)):
        race = generator.exponential(probs)
    else:
        race = torch.empty_like(probs).exponential_(1.0, generator=generator)
    score = torch.where(kept, probs / race.clamp_min(torch.finfo(probs.dtype).tiny), -1.0)
    choice = score.argmax(dim=-1, keepdim=True)
    return ids.gather(-1, choice).reshape(logits.shape[:-1])


# ---- main token and codebooks ----------------------------------------------------------------


@dataclass(frozen=True)
class MainCandidates:
    """The tokens a frame's main token may be, in the order of the main-token logits.

    ids: int64 `[C]`: `<|im_end|>`, then the semantic band `<|semantic:0|>`..`<|semantic:n-1|>`
        (index = code + 1), then any extra ids a layout allows (e.g. `<|audio_separator|>` for
        `scene`); the order of `Drama3Config.main_candidate_ids` plus extras. Main-token logits
        are `lm_head(H)[..., ids]` (docs/internals/model.md §3.3).
    semantic_start, semantic_end: the band's first and last id (inclusive).
    eos_id: the id of `<|im_end|>`.
    """

    ids: torch.Tensor
    semantic_start: int
    semantic_end: int
    eos_id: int

    @classmethod
    def build(
        cls,
        semantic_start: int,
        semantic_end: int,
        eos_id: int,
        extra_ids=(),
        device: torch.device | str = "cpu",
    ) -> MainCandidates:
        """Candidates `{eos} ∪ {semantic band} ∪ extra_ids`. Raises `EngineError` when an extra
        id is EOS, in the band, or repeated."""
        extra = [int(i) for i in extra_ids]
        for token_id in extra:
            if token_id == eos_id or semantic_start <= token_id <= semantic_end:
                raise EngineError(f"extra samplable id {token_id} is already a candidate")
        if len(set(extra)) != len(extra):
            raise EngineError(f"extra samplable ids repeat: {extra}")
        band = torch.arange(semantic_start, semantic_end + 1, dtype=torch.int64)
        eos = torch.tensor([eos_id], dtype=torch.int64)
        ids = torch.cat([eos, band, torch.tensor(extra, dtype=torch.int64)]).to(device)
        return cls(ids, semantic_start, semantic_end, eos_id)

    @classmethod
    def from_tokenizer(
        cls, tokenizer, extra_ids=(), device: torch.device | str = "cpu"
    ) -> MainCandidates:
        """Candidates of a `Drama3Tokenizer` (ids looked up there), plus `extra_ids`."""
        return cls.build(
            tokenizer.semantic_start, tokenizer.semantic_end, tokenizer.eos_id, extra_ids, device
        )

    def is_semantic(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Bool mask of ids in the semantic band, same shape as `token_ids`."""
        return (token_ids >= self.semantic_start) & (token_ids <= self.semantic_end)


def ras_window(main_tokens: torch.Tensor, window: int = RAS_WINDOW) -> torch.Tensor:
    """The last `window` main tokens of a sequence `[..., N]` (prompt rows included), left-padded
    with -1 to `[..., window]`: the `recent_main` argument of `sample_main`."""
    recent = main_tokens[..., max(main_tokens.shape[-1] - window, 0) :]
    padding = window - recent.shape[-1]
    if padding == 0:
        return recent.long()
    pad = torch.full(
        (*recent.shape[:-1], padding), NO_TOKEN, dtype=torch.int64, device=recent.device
    )
    return torch.cat([pad, recent.long()], dim=-1)


def sample_main(
    logits: torch.Tensor,
    recent_main: torch.Tensor,
    params: SamplingParams,
    generator: torch.Generator | CounterRace | PlannedDraws | None,
    candidates: MainCandidates,
) -> torch.Tensor:
    """The main token of the next frame (docs/internals/model.md §3.6 step 1), as token ids int64 `[...]`.

    logits: `[..., C]` raw main-token logits ordered as `candidates.ids`.
    recent_main: int64 `[..., W]` the last main tokens (see `ras_window`; -1 pads).
    Both draws always run, first the request's and then the RAS retry, so the generator advances
    the same way whichever is used. Raises `EngineError` on a logits/candidates size mismatch.
    """
    if logits.shape[-1] != candidates.ids.shape[0]:
        raise EngineError(
            f"main-token logits have {logits.shape[-1]} entries; "
            f"the candidates are {candidates.ids.shape[0]}"
        )
    ids = candidates.ids.to(logits.device)
    first = _lookup(
        ids,
        sample_top_k_top_p(logits, params.temperature, params.top_k, params.top_p, True, generator),
    )
    retry = _lookup(
        ids,
        sample_top_k_top_p(
            logits, params.ras_temperature, params.ras_top_k, params.ras_top_p, True, generator
        ),
    )
    if params.ras_window == 0:
        return first
    recent = recent_main[..., max(recent_main.shape[-1] - params.ras_window, 0) :]
    repeated = (recent.to(first.device) == first.unsqueeze(-1)).any(dim=-1)
    return torch.where(repeated & candidates.is_semantic(first), retry, first)


def _lookup(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """table `[C]` at index (int64, any shape): a gather, so no value is read by the host."""
    return table.gather(0, index.reshape(-1)).reshape(index.shape)


def sample_codebook(
    logits: torch.Tensor,
    params: SamplingParams,
    generator: torch.Generator | CounterRace | PlannedDraws | None,
) -> torch.Tensor:
    """One code per row of a codebook head's logits `[..., 4096]` → int64 `[...]`: the request's
    temperature and top-p, top-k min(top_k, 30), the crossing token dropped (docs/internals/model.md §3.6 step 3)."""
    return sample_top_k_top_p(
        logits, params.temperature, params.codebook_k, params.top_p, False, generator
    )
