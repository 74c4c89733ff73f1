"""The Qwen3.5-MoE backbone of Drama 3 with its caches (docs/internals/model.md §3.1–3.3, §3.7).

Usage (one stream):

    ckpt = Checkpoint(folder)
    backbone = Backbone.from_checkpoint(ckpt, device="cpu", dtype=torch.float32)
    cache = backbone.new_cache()
    hidden = backbone(backbone.embed_rows(rows), cache)   # prefill, rows: [N, 11]
    logits = backbone.main_logits(hidden[-1:])            # [1, 4097]: eos, then the band
    hidden = backbone(backbone.embed_rows(next_row), cache)  # one-row decode, and so on

Prefill of N rows followed by one-row steps gives the same hidden states as one forward over
all rows (the test suite checks this).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from engine.checkpoint import (
    BACKBONE_PREFIX,
    CODEBOOK_EMBEDDINGS,
    Checkpoint,
    is_routed_expert,
)
from engine.config import Drama3Config
from engine.layers.attention import GatedAttention
from engine.layers.gated_deltanet import GatedDeltaNet, GDNState
from engine.layers.kv_cache import KVCache
from engine.layers.moe import DenseBudget, FP8Experts, SparseMoE
from engine.layers.norms import ZeroCentredRMSNorm
from engine.layers.rope import rope_angles


@dataclass
class BackboneCache:
    """Per-stream state of the backbone: one entry per layer, a `KVCache` for gated attention
    layers and a `GDNState` (conv + fp32 recurrent state) for Gated DeltaNet layers.

    `length`: rows consumed so far; the next row sits at position `length`.
    """

    layers: list[KVCache | GDNState]
    length: int = 0

    def clone(self) -> BackboneCache:
        """An independent deep copy (e.g. to reuse a prefilled reference prefix)."""
        return BackboneCache([layer.clone() for layer in self.layers], self.length)


class DecoderLayer(nn.Module):
    """x + mixer(norm(x)), then + MoE(norm(x)) (docs/internals/model.md §3.2)."""

    def __init__(
        self,
        mixer: nn.Module,
        moe: SparseMoE,
        input_norm: ZeroCentredRMSNorm,
        post_norm: ZeroCentredRMSNorm,
        full_attention: bool,
    ):
        super().__init__()
        self.mixer, self.moe = mixer, moe
        self.input_norm, self.post_norm = input_norm, post_norm
        self.full_attention = full_attention
        self._compiled_step = None

    def forward(self, x: torch.Tensor, rope, state) -> torch.Tensor:
        """x `[N, D]` of the rows at the cache's positions; rope (cos, sin) `[N, rotary_dim / 2]`
        float32; state: this layer's `KVCache` or `GDNState`, advanced in place. Returns `[N, D]`."""
        if x.shape[0] == 1 and self._compiled_step is not None:
            return self._compiled_step(x, rope, state)
        return self._forward(x, rope, state)

    @torch.compiler.nested_compile_region
    def _forward(self, x: torch.Tensor, rope, state) -> torch.Tensor:
        # A nested compile region: under torch.compile every layer of the same kind reuses one
        # compiled subgraph, so compiling 40 layers costs what compiling one of each kind does.
        x = x + self._mix(x, rope, state)
        return self._feed_forward(x)

    def _mix(self, x: torch.Tensor, rope, state) -> torch.Tensor:
        normed = self.input_norm(x)
        return self.mixer(normed, rope, state) if self.full_attention else self.mixer(normed, state)

    def _feed_forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.moe(self.post_norm(x))

    def compile_decode_step(self) -> None:
        """Use torch.compile for one-row steps: the whole layer for Gated DeltaNet layers
        (static shapes), the MoE half for attention layers (their KV length grows)."""
        if self.full_attention:
            feed_forward = torch.compile(self._feed_forward, dynamic=False)
            self._compiled_step = lambda x, rope, state: feed_forward(x + self._mix(x, rope, state))
        else:
            self._compiled_step = torch.compile(self._forward, dynamic=False)


class Backbone(nn.Module):
    """The Drama 3 text model: input embedding of frame rows, 40 decoder layers (Gated DeltaNet
    ×3 then gated attention, repeated), final zero-centred norm, main-token logits.

    Build with `Backbone.from_checkpoint`. Attributes others may read:
      config: the `Drama3Config`;
      codebook_embeddings: `audio_decoder.codebook_embeddings` [10·4096, D] (shared with the tower);
      dtype, device: of the activations and dense weights.
    """

    def __init__(
        self,
        config: Drama3Config,
        embed_tokens: torch.Tensor,
        codebook_embeddings: torch.Tensor,
        layers: list[DecoderLayer],
        final_norm: ZeroCentredRMSNorm,
        head_rows: torch.Tensor,
        checkpoint: Checkpoint | None = None,
    ):
        super().__init__()
        self.config = config
        self.register_buffer("embed_tokens", embed_tokens)
        self.register_buffer("codebook_embeddings", codebook_embeddings)
        self.layers = nn.ModuleList(layers)
        self.norm = final_norm
        self.register_buffer("head_rows", head_rows)
        self.register_buffer(
            "candidate_ids", torch.tensor(config.main_candidate_ids, device=head_rows.device)
        )
        self._checkpoint = checkpoint
        self._extra_rows: dict[int, torch.Tensor] = {}

    @property
    def dtype(self) -> torch.dtype:
        """Activation dtype (that of the dense weights)."""
        return self.embed_tokens.dtype

    @property
    def device(self) -> torch.device:
        """Device of the weights and caches."""
        return self.embed_tokens.device

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: Checkpoint,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.bfloat16,
        offload=None,
    ) -> Backbone:
        """Load the backbone (and the shared codebook table) onto `device` in `dtype`.

        Routed experts stay float8_e4m3fn with fp32 scales: on `device`, or with `offload` (an
        `engine.offload.ExpertOffload`) in host memory behind a per-layer device cache. lm_head
        keeps only the rows of `config.main_candidate_ids` (EOS then the semantic band). Raises
        CheckpointError when a tensor is missing or unreadable (call `checkpoint.verify()`
        first for a full report).
        """
        config = checkpoint.config

        def load(name: str) -> torch.Tensor:
            return checkpoint.load_tensor(name, device, dtype)

        layers = [
            _load_layer(checkpoint, config, i, device, dtype, offload)
            for i in range(config.num_layers)
        ]
        if offload is not None:
            offload.link([layer.moe for layer in layers])
        final_norm = ZeroCentredRMSNorm(
            load(f"{BACKBONE_PREFIX}norm.weight"), config.text.rms_norm_eps
        )
        head_rows = checkpoint.load_rows(
            "lm_head.weight", list(config.main_candidate_ids), device, dtype
        )
        checkpoint.close()  # drop the shard mappings: their pages would otherwise stay resident
        return cls(
            config,
            load(f"{BACKBONE_PREFIX}embed_tokens.weight"),
            load(CODEBOOK_EMBEDDINGS),
            layers,
            final_norm,
            head_rows,
            checkpoint,
        )

    def keep_dense_experts(self, budget: DenseBudget | None) -> None:
        """Let every resident routed-expert stack keep experts once dequantised, within one
        shared `budget` (None: dequantise at every use). Stacks behind an offload cache are
        left as they are."""
        for layer in self.layers:
            if isinstance(layer.moe.experts, FP8Experts):
                layer.moe.experts.keep_dense(budget)

    def keep_dense_copies(self, budget: DenseBudget, experts: bool = True) -> None:
        """What a CPU model keeps within `budget` (docs/internals/engine.md "Dense products on
        the CPU"): every layer's wide dense weights packed for oneDNN, then, with `experts`,
        the resident routed experts once dequantised."""
        self.pack_weights(budget.take)
        if experts:
            self.keep_dense_experts(budget)

    def pack_weights(self, take) -> int:
        """Give every layer's wide dense weights packed copies for oneDNN while `take(bytes)`
        grants their bytes (`engine.kernels.cpu_linear.PackedWeights`); returns how many."""
        return sum(
            part.pack_weights(take) for layer in self.layers for part in (layer.mixer, layer.moe)
        )

    def compile_decode(self) -> None:
        """Compile one-row decode steps with torch.compile (static shapes; CPU or GPU).

        The first step after this call compiles (tens of seconds on CPU, cached on disk by
        torch afterwards); prefill of several rows stays eager. Results equal the eager path
        within float rounding.
        """
        for layer in self.layers:
            layer.compile_decode_step()

    def new_cache(self, capacity: int = 256) -> BackboneCache:
        """Empty caches for one stream (KV storage for `capacity` rows, grown on demand)."""
        states = [
            layer.mixer.new_cache(capacity) if layer.full_attention else layer.mixer.new_state()
            for layer in self.layers
        ]
        return BackboneCache(states)

    def embed_rows(self, rows: torch.Tensor, without_host_read: bool = False) -> torch.Tensor:
        """Backbone input of frame rows (docs/internals/model.md §3.1).

        rows: [N, 11] int64 `[main, c0, …, c9]`. Text rows → E_tok[main]; semantic rows
        (semantic_start ≤ main ≤ semantic_end) → (E_tok[main] + Σ_{k=1..B} CB[k·4096 + c_k]) /
        √(1 + B), B = vq_backbone_codebooks, codes clamped to 0..4095. Returns [N, D] in `dtype`.
        without_host_read: always compute the audio sum instead of first asking the device
        whether any row is audio (a static decode step must not read values back).
        """
        rows = rows.to(self.device)
        main = rows[:, 0]
        embedded = self.embed_tokens[main].float()
        band = self.config.audio_decoder.vocab_size
        count = self.config.audio_decoder.vq_backbone_codebooks
        semantic = (main >= self.config.semantic_start_token_id) & (
            main <= self.config.semantic_end_token_id
        )
        if count and (without_host_read or bool(semantic.any())):
            codes = rows[:, 2 : 2 + count].clamp(0, band - 1)
            offsets = torch.arange(1, count + 1, device=self.device) * band
            audio = (
                embedded + self.codebook_embeddings[codes + offsets].float().sum(1)
            ) / math.sqrt(1 + count)
            embedded = torch.where(semantic[:, None], audio, embedded)
        return embedded.to(self.dtype)

    def forward(self, x: torch.Tensor, cache: BackboneCache) -> torch.Tensor:
        """Run N new rows through all layers after the `cache.length` rows already seen.

        x: [N, D] (from `embed_rows`); positions are cache.length … cache.length + N − 1. Updates
        `cache` in place. Returns the final-normed hidden states H [N, D] (input to lm_head and
        the tower).
        """
        positions = torch.arange(cache.length, cache.length + x.shape[0], device=self.device)
        hidden = self.run_layers(x, cache.layers, positions)
        cache.length += x.shape[0]
        return hidden

    def run_layers(self, x: torch.Tensor, states: list, positions: torch.Tensor) -> torch.Tensor:
        """All layers and the final norm over rows `x` `[N, D]` at `positions` (int64 `[N]` on
        the device), advancing `states` (one `KVCache`, `StaticKVCache` or `GDNState` per
        layer) in place. Returns the final-normed hidden states `[N, D]`."""
        rope = rope_angles(positions, self.config.text.rotary_dim, self.config.text.rope_theta)
        for layer, state in zip(self.layers, states):
            x = layer(x, rope, state)
        return self.norm(x)

    def main_logits(self, hidden: torch.Tensor, extra_ids: tuple[int, ...] = ()) -> torch.Tensor:
        """Main-token logits over the candidates (docs/internals/model.md §3.3): column 0 is EOS, columns 1..4096
        the semantic band (`<|semantic:0|>` …), then one column per id of `extra_ids`, in order.

        hidden: [N, D]. Returns [N, 4097 + len(extra_ids)] fp32 raw logits (no temperature).
        Raises CheckpointError for an extra id outside the vocabulary.
        """
        weight = self.head_rows
        if extra_ids:
            weight = torch.cat((weight, self._head_rows_for(extra_ids)))
        return (hidden.to(weight.dtype) @ weight.t()).float()

    def candidate_token_ids(self, extra_ids: tuple[int, ...] = ()) -> torch.Tensor:
        """Token id of each `main_logits` column: [4097 + len(extra_ids)] int64."""
        extra = torch.tensor(list(extra_ids), dtype=torch.long, device=self.device)
        return torch.cat((self.candidate_ids, extra))

    def _head_rows_for(self, ids: tuple[int, ...]) -> torch.Tensor:
        missing = [i for i in ids if i not in self._extra_rows]
        if missing:
            rows = self._checkpoint.load_rows("lm_head.weight", missing, self.device, self.dtype)
            self._extra_rows.update(zip(missing, rows))
        return torch.stack([self._extra_rows[i] for i in ids])


def _load_layer(
    checkpoint: Checkpoint, config: Drama3Config, index: int, device, dtype, offload=None
) -> DecoderLayer:
    t = config.text
    prefix = f"{BACKBONE_PREFIX}layers.{index}."
    full = config.layer_is_full_attention(index)
    if full:
        weights = checkpoint.tensors(f"{prefix}self_attn.", device, dtype)
        mixer = GatedAttention(
            weights, t.num_attention_heads, t.num_key_value_heads, t.head_dim, t.rms_norm_eps
        )
    else:
        weights = checkpoint.tensors(f"{prefix}linear_attn.", device, dtype)
        mixer = GatedDeltaNet(
            weights,
            t.linear_num_key_heads,
            t.linear_key_head_dim,
            t.linear_num_value_heads,
            t.linear_value_head_dim,
            t.rms_norm_eps,
        )
    moe = SparseMoE(
        _moe_weights(checkpoint, f"{prefix}mlp.", device, dtype, offload is None),
        t.num_experts,
        t.num_experts_per_tok,
        config.weight_block_size,
        experts=None if offload is None else offload.cache(index),
    )
    norms = [
        ZeroCentredRMSNorm(
            checkpoint.load_tensor(f"{prefix}{n}.weight", device, dtype), t.rms_norm_eps
        )
        for n in ("input_layernorm", "post_attention_layernorm")
    ]
    return DecoderLayer(mixer, moe, *norms, full_attention=full)


def _moe_weights(
    checkpoint: Checkpoint, prefix: str, device, dtype, routed: bool
) -> dict[str, torch.Tensor]:
    """The tensors under `prefix` (one layer's `…mlp.`), without the routed experts unless `routed`."""
    if routed:
        return checkpoint.tensors(prefix, device, dtype)
    return {
        name[len(prefix) :]: checkpoint.load_tensor(name, device, dtype)
        for name in checkpoint.names()
        if name.startswith(prefix) and not is_routed_expert(name)
    }


__all__ = ["Backbone", "BackboneCache", "KVCache", "GDNState"]
