"""The codebook-MTP tower of Drama 3 (docs/internals/model.md §3.4-3.5).

The tower turns the backbone's final hidden state at row p into codebooks 1..9 of the next
frame. It is a stack of small causal transformer layers (shared "enrichment" layers, then one
layer per residual codebook) that run at every sequence position, each with its own KV cache
indexed by the same row positions as the backbone. Layer i of the residual stack embeds code i
of the next frame; its head predicts code i+1.

Build with `Tower.from_checkpoint`, like `engine.backbone.Backbone`. Weights arrive as
checkpoint tensors (`audio_decoder.*`, `audio_decoder_mtp_shared.*`, `audio_decoder_mtp.*`,
docs/internals/model.md §2.2). `wqkv` is expected with its query rows already re-ordered to per-head [query; gate]
blocks, as `engine.checkpoint.Checkpoint.load_tensor` loads it (the file layout [all queries |
all gates | K | V] is converted by `engine.checkpoint.interleave_query_and_gate`). Norms, the KV
cache and causal attention are the backbone's (`engine.layers`). The backbone's frame embedding
(docs/internals/model.md §3.1) is `engine.backbone.Backbone.embed_rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
import torch.nn.functional as F
from torch import nn

from engine.checkpoint import CODEBOOK_EMBEDDINGS, Checkpoint
from engine.config import AudioDecoderConfig
from engine.layers.kv_cache import KVCache
from engine.layers.norms import ZeroCentredRMSNorm
from engine.layers.rope import apply_interleaved_rope, rope_angles

# Checkpoint prefix -> module prefix inside `Tower` (docs/internals/model.md §2.2).
CHECKPOINT_PREFIXES = {
    "audio_decoder.codebook_embeddings.": "codebook_embeddings.",
    "audio_decoder_mtp_shared.layers.": "shared_layers.",
    "audio_decoder_mtp.layers.": "residual_layers.",
    "audio_decoder_mtp.heads.": "heads.",
}

SampleCodebook = Callable[[torch.Tensor, int], torch.Tensor]


def _norm(dim: int, eps: float) -> ZeroCentredRMSNorm:
    """A zero-centred RMSNorm `[dim]` whose weight comes from the checkpoint (zeros until then)."""
    return ZeroCentredRMSNorm(torch.zeros(dim), eps)


class TowerCache:
    """One `KVCache` per tower layer (shared layers first, then residual layers)."""

    def __init__(self, layers: int) -> None:
        self.layers = [KVCache() for _ in range(layers)]

    @property
    def length(self) -> int:
        """Rows held (the position the next row gets); equal across layers between calls."""
        return self.layers[0].length

    def clone(self) -> TowerCache:
        """An independent snapshot, e.g. of a cast's system block (prefix cache)."""
        copy = TowerCache(0)
        copy.layers = [layer.clone() for layer in self.layers]
        return copy


class TowerAttention(nn.Module):
    """Causal GQA with an output gate, per-head zero-centred q/k norms and interleaved partial
    RoPE (docs/internals/model.md §3.4 step 3): `n_head` query heads over `n_local_heads` kv heads of
    `head_dim` each. `wqkv` rows: per-head [query; gate] blocks, then K, then V."""

    def __init__(self, config: AudioDecoderConfig):
        super().__init__()
        self.config = config
        q_width, kv_width = config.n_head * config.head_dim, config.n_local_heads * config.head_dim
        self.wqkv = nn.Linear(config.dim, 2 * q_width + 2 * kv_width, bias=False)
        self.wo = nn.Linear(q_width, config.dim, bias=False)
        self.q_norm = _norm(config.head_dim, config.norm_eps)
        self.k_norm = _norm(config.head_dim, config.norm_eps)

    def project(
        self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor]
    ) -> tuple[torch.Tensor, ...]:
        """Queries, gates, keys and values of `x` `[B, T, dim]`: `[B, T, heads, head_dim]` each
        (kv heads for keys and values), q/k normalised and rotated by rope = (cos, sin) `[T,
        rotary_dim / 2]` float32 of the rows' positions."""
        config, (batch, steps, _) = self.config, x.shape
        q_width, kv_width = config.n_head * config.head_dim, config.n_local_heads * config.head_dim
        query_gate, keys, values = self.wqkv(x).split([2 * q_width, kv_width, kv_width], dim=-1)
        query, gate = query_gate.view(batch, steps, config.n_head, 2 * config.head_dim).chunk(
            2, dim=-1
        )
        query = apply_interleaved_rope(self.q_norm(query), *rope)
        keys = keys.view(batch, steps, config.n_local_heads, config.head_dim)
        keys = apply_interleaved_rope(self.k_norm(keys), *rope)
        return query, gate, keys, values.view(batch, steps, config.n_local_heads, config.head_dim)

    def attend(
        self, query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, cache: KVCache
    ) -> torch.Tensor:
        """Causal attention of the new rows over the cache plus themselves (stored in `cache`).
        Inputs as `project` returns them; output `[B, T, heads, head_dim]`."""
        out = cache.attend(
            query.transpose(1, 2),
            keys.transpose(1, 2),
            values.transpose(1, 2),
            self.config.head_dim**-0.5,
        )
        return out.transpose(1, 2)

    def output(self, attended: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
        """`wo(attended * sigmoid(gate))`: `[B, T, heads, head_dim]` twice -> `[B, T, dim]`."""
        out = attended * torch.sigmoid(gate)
        return self.wo(out.flatten(-2))


class TowerFeedForward(nn.Module):
    """SwiGLU: `w2(silu(w1 x) * w3 x)` with width `intermediate_size` (docs/internals/model.md §3.4 step 4)."""

    def __init__(self, config: AudioDecoderConfig):
        super().__init__()
        self.w1 = nn.Linear(config.dim, config.intermediate_size, bias=False)
        self.w3 = nn.Linear(config.dim, config.intermediate_size, bias=False)
        self.w2 = nn.Linear(config.intermediate_size, config.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: `[..., dim]` -> `[..., dim]`."""
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TowerBlock(nn.Module):
    """Pre-norm transformer block: attention then feed-forward, both residual. Split around
    the attention itself (`project`, `attention.attend`, `finish`) so that the fixed-shape parts
    of a one-row step can be compiled while the KV length grows."""

    def __init__(self, config: AudioDecoderConfig):
        super().__init__()
        self.attention_norm = _norm(config.dim, config.norm_eps)
        self.attention = TowerAttention(config)
        self.ffn_norm = _norm(config.dim, config.norm_eps)
        self.feed_forward = TowerFeedForward(config)

    def project(
        self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor]
    ) -> tuple[torch.Tensor, ...]:
        """`attention.project` of the normalised block input."""
        return self.attention.project(self.attention_norm(x), rope)

    def finish(self, x: torch.Tensor, attended: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
        """Both residual branches after attention: `[B, T, dim]`."""
        x = x + self.attention.output(attended, gate)
        return x + self.feed_forward(self.ffn_norm(x))


class TowerLayer(nn.Module):
    """One tower layer (docs/internals/model.md §3.4): mix a code embedding into the hidden state, run one block,
    normalise with `final_layernorm`.

    shared: a shared enrichment layer (its table is `semantic_embedding`) rather than a
    residual layer (`codebook_embedding`); the checkpoint names differ, the maths does not.
    """

    def __init__(self, config: AudioDecoderConfig, shared: bool):
        super().__init__()
        self.codebook_size = config.vocab_size
        table = nn.Embedding(config.vocab_size, config.dim)
        self.embedding_name = "semantic_embedding" if shared else "codebook_embedding"
        setattr(self, self.embedding_name, table)
        self.enorm = _norm(config.dim, config.norm_eps)
        self.hnorm = _norm(config.dim, config.norm_eps)
        self.eh_proj = nn.Linear(2 * config.dim, config.dim, bias=False)
        self.transformer_layer = TowerBlock(config)
        self.final_layernorm = _norm(config.dim, config.norm_eps)
        self._compiled: tuple | None = None

    @torch.compiler.nested_compile_region  # one compiled subgraph shared by the tower's layers
    def forward(
        self,
        hidden: torch.Tensor,
        codes: torch.Tensor,
        semantic: torch.Tensor,
        cache: KVCache,
        rope: tuple[torch.Tensor, torch.Tensor],
        extra: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """hidden `[B, T, dim]`; codes `[B, T]` int64 (clamped to the table); semantic `[B, T]`
        bool (the labelling row is audio; else the code embedding is zero); extra `[B, T, dim]`
        added to the code embedding before `enorm`; rope: (cos, sin) of the rows' positions.
        Returns the normalised output `[B, T, dim]`.
        """
        before, after = (
            self._compiled
            if hidden.shape[1] == 1 and self._compiled
            else (self._before_attention, self._after_attention)
        )
        mixed, query, gate, keys, values = before(hidden, codes, semantic, extra, *rope)
        attended = self.transformer_layer.attention.attend(query, keys, values, cache)
        return after(mixed, attended, gate)

    def _before_attention(
        self, hidden, codes, semantic, extra, cos, sin
    ) -> tuple[torch.Tensor, ...]:
        table = getattr(self, self.embedding_name)
        embedded = table(codes.clamp(0, self.codebook_size - 1))
        embedded = torch.where(semantic[..., None], embedded, torch.zeros_like(embedded))
        if extra is not None:
            embedded = embedded + extra
        mixed = self.eh_proj(torch.cat((self.enorm(embedded), self.hnorm(hidden)), dim=-1))
        return (mixed, *self.transformer_layer.project(mixed, (cos, sin)))

    def _after_attention(self, mixed, attended, gate) -> torch.Tensor:
        return self.final_layernorm(self.transformer_layer.finish(mixed, attended, gate))

    def compile_decode_step(self) -> None:
        """Compile the fixed-shape parts of one-row steps with torch.compile (the attention
        over the growing cache stays eager)."""
        self._compiled = (
            torch.compile(self._before_attention, dynamic=False),
            torch.compile(self._after_attention, dynamic=False),
        )


class Tower(nn.Module):
    """The codebook-MTP tower plus the shared codebook table (docs/internals/model.md §2.2, §3.1, §3.5).

    Frame rows are `[main, c0, ..., c9]` int64. A row is audio when its main token lies in the
    semantic band `[semantic_start, semantic_start + vocab_size)`.

    config: the validated `audio_decoder_config` (`Drama3Config.audio_decoder`, docs/internals/model.md
    §1.3), kept as `self.config`. vocab_size: codes per codebook (4096, also the semantic band
    size); `shared_enrichment_layers` shared layers, then `residual_layers` (num_codebooks - 1)
    residual layers and heads; codebooks 1..vq_backbone_codebooks (B) enter the backbone input,
    codebooks B+1..9 enter shared layer 0 as the "extra" sum; the first `rotary_dim` dims of each
    head (head_dim × rotary_percent) get interleaved RoPE.
    """

    def __init__(self, config: AudioDecoderConfig, semantic_start: int):
        super().__init__()
        self.config = config
        self.semantic_start = semantic_start
        self.codebook_embeddings = nn.Embedding(
            config.vocab_size * config.num_codebooks, config.dim
        )
        self.shared_layers = nn.ModuleList(
            TowerLayer(config, True) for _ in range(config.shared_enrichment_layers)
        )
        self.residual_layers = nn.ModuleList(
            TowerLayer(config, False) for _ in range(config.residual_layers)
        )
        self.heads = nn.ModuleList(
            nn.Linear(config.dim, config.vocab_size, bias=False)
            for _ in range(config.residual_layers)
        )

    # ---- weights -------------------------------------------------------------------------

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: Checkpoint,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.bfloat16,
        codebook_table: torch.Tensor | None = None,
    ) -> Tower:
        """Load the tower onto `device` in `dtype`, in eval mode without gradients; sizes from
        `checkpoint.config.audio_decoder`, wqkv re-ordered per head by the checkpoint's loader.

        codebook_table: the backbone's `audio_decoder.codebook_embeddings` `[10·4096, dim]`
        (`Backbone.codebook_embeddings`) to share instead of reading it again. Raises
        CheckpointError for an unreadable tensor and RuntimeError for a missing or misshapen one.
        """
        config = checkpoint.config
        with torch.device("meta"):  # every parameter is assigned from the checkpoint below
            tower = cls(config.audio_decoder, config.semantic_start_token_id)
        tensors = {
            name: checkpoint.load_tensor(name, device, dtype)
            for name in checkpoint.names()
            if name.startswith(tuple(CHECKPOINT_PREFIXES)) and name != CODEBOOK_EMBEDDINGS
        }
        tensors[CODEBOOK_EMBEDDINGS] = (
            codebook_table
            if codebook_table is not None
            else checkpoint.load_tensor(CODEBOOK_EMBEDDINGS, device, dtype)
        )
        tower.load_checkpoint_tensors(tensors)
        checkpoint.close()  # drop the shard mappings, as `Backbone.from_checkpoint` does
        return tower.eval().requires_grad_(False)

    def load_checkpoint_tensors(self, tensors: Mapping[str, torch.Tensor]) -> None:
        """Copy the tower's checkpoint tensors (full names, docs/internals/model.md §2.2) into the modules.

        The tensors become the parameters (no copy; a module built on the meta device works).
        Other names in `tensors` are ignored. Raises RuntimeError (from `load_state_dict`) when a
        tower tensor is missing or misshapen.
        """
        state = {}
        for name, value in tensors.items():
            for old, new in CHECKPOINT_PREFIXES.items():
                if name.startswith(old):
                    state[new + name[len(old) :]] = value
        self.load_state_dict(state, strict=True, assign=True)

    def compile_decode(self) -> None:
        """Compile one-row decode steps of every layer with torch.compile (first steps compile;
        results equal the eager path within float rounding)."""
        for layer in (*self.shared_layers, *self.residual_layers):
            layer.compile_decode_step()

    def new_cache(self) -> TowerCache:
        """An empty cache: one KV cache per layer."""
        return TowerCache(len(self.shared_layers) + len(self.residual_layers))

    # ---- embeddings ----------------------------------------------------------------------

    def is_semantic(self, tokens: torch.Tensor) -> torch.Tensor:
        """Bool mask of main tokens in the semantic band; same shape as `tokens`."""
        return (tokens >= self.semantic_start) & (
            tokens < self.semantic_start + self.config.vocab_size
        )

    def code_sum(self, rows: torch.Tensor, first: int, end: int) -> torch.Tensor:
        """Σ_{k=first}^{end-1} CB[k·vocab_size + c_k] for rows `[B, T, 11]` -> `[B, T, dim]`."""
        size = self.config.vocab_size
        codes = rows[..., 1 + first : 1 + end].clamp(0, size - 1)
        offsets = torch.arange(first, end, device=rows.device) * size
        return self.codebook_embeddings(codes + offsets).sum(dim=-2)

    def extra_input(self, rows: torch.Tensor) -> torch.Tensor:
        """The codes the backbone did not see (B+1..9) of the current rows, summed, zero on text
        rows: `[B, T, dim]`, added in shared layer 0 only (docs/internals/model.md §3.5)."""
        extra = self.code_sum(
            rows, 1 + self.config.vq_backbone_codebooks, self.config.num_codebooks
        )
        return torch.where(
            self.is_semantic(rows[..., 0])[..., None], extra, torch.zeros_like(extra)
        )

    # ---- running -------------------------------------------------------------------------

    def _rope(
        self, start: int, steps: int, device: torch.device
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(cos, sin) `[steps, rotary_dim / 2]` of positions start.., from a table that grows by
        doubling (every layer of a step shares it)."""
        table = getattr(self, "_rope_table", None)
        if table is None or table[0].shape[0] < start + steps or table[0].device != device:
            size = max(2 * (start + steps), 256)
            table = rope_angles(
                torch.arange(size, device=device), self.config.rotary_dim, self.config.rope_base
            )
            self._rope_table = table
        return table[0][start : start + steps], table[1][start : start + steps]

    def _enrich(
        self,
        hidden: torch.Tensor,
        c0: torch.Tensor,
        semantic: torch.Tensor,
        rows: torch.Tensor,
        cache: TowerCache,
        rope,
    ) -> torch.Tensor:
        extra = self.extra_input(rows).to(hidden.dtype)
        for index, layer in enumerate(self.shared_layers):
            hidden = layer(
                hidden, c0, semantic, cache.layers[index], rope, extra if index == 0 else None
            )
        return hidden

    def prefill(
        self,
        hidden: torch.Tensor,
        rows: torch.Tensor,
        next_rows: torch.Tensor,
        cache: TowerCache,
        with_logits: bool = False,
    ) -> torch.Tensor | None:
        """Teacher-forced pass over rows `[p, p + T)` with `p = cache.length` (docs/internals/model.md §3.5).

        hidden: `[B, T, dim]` backbone final-norm outputs of those rows; rows: `[B, T, 11]` the
        rows themselves (for the extra sum); next_rows: `[B, T, 11]` the rows that follow each
        (labels). Fills every layer's cache. Returns head logits `[B, T, num_codebooks - 1,
        vocab_size]` in float32 when `with_logits` (logits[..., i, :] predicts code i+1 of
        the next row), else None.
        """
        semantic = self.is_semantic(next_rows[..., 0])
        rope = self._rope(cache.length, hidden.shape[1], hidden.device)
        hidden = self._enrich(hidden, next_rows[..., 1], semantic, rows, cache, rope)
        offset, logits = len(self.shared_layers), []
        for index, layer in enumerate(self.residual_layers):
            hidden = layer(
                hidden, next_rows[..., 1 + index], semantic, cache.layers[offset + index], rope
            )
            if with_logits:
                logits.append(self.heads[index](hidden).float())
        return torch.stack(logits, dim=-2) if with_logits else None

    def decode_frame(
        self,
        hidden: torch.Tensor,
        row: torch.Tensor,
        main: torch.Tensor,
        cache: TowerCache,
        sample_codebook: SampleCodebook,
        position: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Sample codebooks 1..9 of the next frame at position `cache.length` (docs/internals/model.md §3.6 step 3).

        hidden: `[B, 1, dim]` backbone output of the current row; row: `[B, 1, 11]` the current
        row; main: `[B]` the sampled main token of the next row. sample_codebook(logits
        `[B, vocab_size]` float32, index i) returns code i+1 `[B]` int64 from head i.
        position: int64 device tensor `[1]` of the row's position, for caches whose layers are
        `engine.layers.kv_cache.StaticKVCache` (no host read), or `[B]`, one per stream, for
        `engine.layers.kv_cache.SlotKVCache` layers; default `cache.length`.
        Returns the codes `[B, num_codebooks]` int64 (c0 from `main`, clamped to the band).
        """
        c0 = (main - self.semantic_start).clamp(0, self.config.vocab_size - 1)
        semantic = self.is_semantic(main)[:, None]
        if position is None:
            rope = self._rope(cache.length, 1, hidden.device)
        else:
            # [B, 1, rotary_dim / 2]: one position per stream (B streams in a batch, one row each)
            rope = tuple(
                t[:, None]
                for t in rope_angles(position, self.config.rotary_dim, self.config.rope_base)
            )
        hidden = self._enrich(hidden, c0[:, None], semantic, row, cache, rope)
        codes, offset = [c0], len(self.shared_layers)
        for index, layer in enumerate(self.residual_layers):
            hidden = layer(hidden, codes[-1][:, None], semantic, cache.layers[offset + index], rope)
            codes.append(sample_codebook(self.heads[index](hidden[:, 0]).float(), index).long())
        return torch.stack(codes, dim=-1)
