"""Drama 3 checkpoint files: the tensors a config implies (docs/internals/model.md §2), strict checks of a model
folder against them, and lazy, memory-mapped loading of single tensors.

A model folder holds `config.json`, `tokenizer.json`, `model.safetensors.index.json` and the
shards it names (`model-0000k-of-0000n.safetensors`), plus `codec.pth`. Routed experts are
`float8_e4m3fn` with one fp32 `weight_scale_inv` per 128×128 block; every other tensor is bf16
(`A_log`/`dt_bias` may also be fp32). Loading keeps FP8 experts in FP8; `engine.layers.fp8`
dequantises the blocks of the selected experts when they are used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import safe_open

from engine.config import Drama3Config, read_json_object
from engine.errors import CheckpointError

INDEX_FILE = "model.safetensors.index.json"
BACKBONE_PREFIX = "model.language_model."
CODEBOOK_EMBEDDINGS = "audio_decoder.codebook_embeddings.weight"  # shared by backbone and tower
FP8 = torch.float8_e4m3fn
_BF16 = (torch.bfloat16,)
_FP32 = (torch.float32,)

_SAFETENSORS_DTYPES = {
    "BF16": torch.bfloat16,
    "F16": torch.float16,
    "F32": torch.float32,
    "F64": torch.float64,
    "F8_E4M3": torch.float8_e4m3fn,
    "F8_E5M2": torch.float8_e5m2,
    "I64": torch.int64,
    "I32": torch.int32,
    "I8": torch.int8,
    "U8": torch.uint8,
    "BOOL": torch.bool,
}


@dataclass(frozen=True)
class TensorSpec:
    """What one checkpoint tensor must look like: its shape and the dtypes allowed for it."""

    shape: tuple[int, ...]
    dtypes: tuple[torch.dtype, ...]

    @property
    def numel(self) -> int:
        """Number of elements."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Bytes in the first allowed dtype (the one the release uses)."""
        return self.numel * self.dtypes[0].itemsize


def expert_scale_shape(rows: int, cols: int, block: tuple[int, int]) -> tuple[int, int]:
    """Shape of `weight_scale_inv` for an FP8 weight [rows, cols]: one scale per block
    (ceil(rows / block_rows), ceil(cols / block_cols)); [4, 16] for a 512×2048 gate_proj."""
    return (math.ceil(rows / block[0]), math.ceil(cols / block[1]))


def expected_tensors(config: Drama3Config) -> dict[str, TensorSpec]:
    """Every tensor name the checkpoint must hold, with shape and dtypes (docs/internals/model.md §2.1 and §2.2).

    Ordered backbone first (embedding, layers 0..L−1, final norm, lm_head), then the tower.
    """
    specs = _backbone_tensors(config)
    specs.update(_tower_tensors(config))
    return specs


def _backbone_tensors(config: Drama3Config) -> dict[str, TensorSpec]:
    t = config.text
    d = t.hidden_size
    p = BACKBONE_PREFIX
    specs = {f"{p}embed_tokens.weight": TensorSpec((t.vocab_size, d), _BF16)}
    for layer in range(t.num_hidden_layers):
        lp = f"{p}layers.{layer}."
        specs[f"{lp}input_layernorm.weight"] = TensorSpec((d,), _BF16)
        mixer = _attention_tensors if config.layer_is_full_attention(layer) else _gdn_tensors
        specs.update(mixer(config, lp))
        specs[f"{lp}post_attention_layernorm.weight"] = TensorSpec((d,), _BF16)
        specs.update(_moe_tensors(config, f"{lp}mlp."))
    specs[f"{p}norm.weight"] = TensorSpec((d,), _BF16)
    specs["lm_head.weight"] = TensorSpec((t.vocab_size, d), _BF16)
    return specs


def _attention_tensors(config: Drama3Config, prefix: str) -> dict[str, TensorSpec]:
    t = config.text
    d, hd = t.hidden_size, t.head_dim
    p = f"{prefix}self_attn."
    return {
        f"{p}q_proj.weight": TensorSpec((2 * t.num_attention_heads * hd, d), _BF16),
        f"{p}k_proj.weight": TensorSpec((t.num_key_value_heads * hd, d), _BF16),
        f"{p}v_proj.weight": TensorSpec((t.num_key_value_heads * hd, d), _BF16),
        f"{p}o_proj.weight": TensorSpec((d, t.num_attention_heads * hd), _BF16),
        f"{p}q_norm.weight": TensorSpec((hd,), _BF16),
        f"{p}k_norm.weight": TensorSpec((hd,), _BF16),
    }


def _gdn_tensors(config: Drama3Config, prefix: str) -> dict[str, TensorSpec]:
    t = config.text
    d, heads = t.hidden_size, t.linear_num_value_heads
    p = f"{prefix}linear_attn."
    either = (torch.bfloat16, torch.float32)
    return {
        f"{p}in_proj_qkv.weight": TensorSpec((t.linear_conv_dim, d), _BF16),
        f"{p}in_proj_z.weight": TensorSpec((t.linear_value_dim, d), _BF16),
        f"{p}in_proj_b.weight": TensorSpec((heads, d), _BF16),
        f"{p}in_proj_a.weight": TensorSpec((heads, d), _BF16),
        f"{p}conv1d.weight": TensorSpec((t.linear_conv_dim, 1, t.linear_conv_kernel_dim), _BF16),
        f"{p}dt_bias": TensorSpec((heads,), either),
        f"{p}A_log": TensorSpec((heads,), (torch.float32, torch.bfloat16)),
        f"{p}norm.weight": TensorSpec((t.linear_value_head_dim,), _BF16),
        f"{p}out_proj.weight": TensorSpec((d, t.linear_value_dim), _BF16),
    }


def _moe_tensors(config: Drama3Config, prefix: str) -> dict[str, TensorSpec]:
    t = config.text
    d, inter, shared = t.hidden_size, t.moe_intermediate_size, t.shared_expert_intermediate_size
    specs = {f"{prefix}gate.weight": TensorSpec((t.num_experts, d), _BF16)}
    shapes = {"gate_proj": (inter, d), "up_proj": (inter, d), "down_proj": (d, inter)}
    for expert in range(t.num_experts):
        for proj, shape in shapes.items():
            ep = f"{prefix}experts.{expert}.{proj}."
            specs[f"{ep}weight"] = TensorSpec(shape, (FP8,))
            specs[f"{ep}weight_scale_inv"] = TensorSpec(
                expert_scale_shape(*shape, config.weight_block_size), _FP32
            )
    sp = f"{prefix}shared_expert."
    specs[f"{sp}gate_proj.weight"] = TensorSpec((shared, d), _BF16)
    specs[f"{sp}up_proj.weight"] = TensorSpec((shared, d), _BF16)
    specs[f"{sp}down_proj.weight"] = TensorSpec((d, shared), _BF16)
    specs[f"{prefix}shared_expert_gate.weight"] = TensorSpec((1, d), _BF16)
    return specs


def _tower_tensors(config: Drama3Config) -> dict[str, TensorSpec]:
    a = config.audio_decoder
    d, band = a.dim, a.vocab_size
    specs = {CODEBOOK_EMBEDDINGS: TensorSpec((a.num_codebooks * band, d), _BF16)}
    for layer in range(a.shared_enrichment_layers):
        prefix = f"audio_decoder_mtp_shared.layers.{layer}."
        specs.update(_tower_layer_tensors(config, prefix, "semantic_embedding"))
    for layer in range(a.residual_layers):
        prefix = f"audio_decoder_mtp.layers.{layer}."
        specs.update(_tower_layer_tensors(config, prefix, "codebook_embedding"))
    for head in range(a.residual_layers):
        specs[f"audio_decoder_mtp.heads.{head}.weight"] = TensorSpec((band, d), _BF16)
    return specs


def _tower_layer_tensors(
    config: Drama3Config, prefix: str, embedding: str
) -> dict[str, TensorSpec]:
    a = config.audio_decoder
    d, hd, inter = a.dim, a.head_dim, a.intermediate_size
    qkv_rows = 2 * a.n_head * hd + 2 * a.n_local_heads * hd
    tp = f"{prefix}transformer_layer."
    return {
        f"{prefix}{embedding}.weight": TensorSpec((a.vocab_size, d), _BF16),
        f"{prefix}enorm.weight": TensorSpec((d,), _BF16),
        f"{prefix}hnorm.weight": TensorSpec((d,), _BF16),
        f"{prefix}eh_proj.weight": TensorSpec((d, 2 * d), _BF16),
        f"{tp}attention_norm.weight": TensorSpec((d,), _BF16),
        f"{tp}attention.wqkv.weight": TensorSpec((qkv_rows, d), _BF16),
        f"{tp}attention.wo.weight": TensorSpec((d, a.n_head * hd), _BF16),
        f"{tp}attention.q_norm.weight": TensorSpec((hd,), _BF16),
        f"{tp}attention.k_norm.weight": TensorSpec((hd,), _BF16),
        f"{tp}ffn_norm.weight": TensorSpec((d,), _BF16),
        f"{tp}feed_forward.w1.weight": TensorSpec((inter, d), _BF16),
        f"{tp}feed_forward.w3.weight": TensorSpec((inter, d), _BF16),
        f"{tp}feed_forward.w2.weight": TensorSpec((d, inter), _BF16),
        f"{prefix}final_layernorm.weight": TensorSpec((d,), _BF16),
    }


def is_routed_expert(name: str) -> bool:
    """True for the FP8 routed-expert weights and their scales (`…mlp.experts.E.*`)."""
    return ".mlp.experts." in name


def interleave_query_and_gate(wqkv: torch.Tensor, n_head: int, head_dim: int) -> torch.Tensor:
    """Re-order tower `wqkv` rows from the file's [all Q | all gates | K | V] block layout to
    per-head [q_0; g_0; q_1; g_1; …; K; V] (docs/internals/model.md §2.2), the backbone `q_proj` convention.

    wqkv: [2·n_head·head_dim + 2·kv_heads·head_dim, dim]; returns the same shape and dtype.
    """
    q_rows = n_head * head_dim
    query = wqkv[:q_rows].reshape(n_head, head_dim, -1)
    gate = wqkv[q_rows : 2 * q_rows].reshape(n_head, head_dim, -1)
    paired = torch.stack((query, gate), dim=1).reshape(2 * q_rows, -1)
    return torch.cat((paired, wqkv[2 * q_rows :]), dim=0)


class Checkpoint:
    """A Drama 3 model folder opened lazily: config, index, memory-mapped shards.

    Nothing is read from the shards until a tensor is asked for. Use `verify()` for the strict
    name/shape/dtype check; `load_tensor` / `tensors` to read weights onto a device.
    """

    def __init__(self, folder: str | Path, config: Drama3Config | None = None):
        """Open `folder`. Raises CheckpointError when the config or index is missing or bad."""
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CheckpointError(f"{self.folder}: not a model folder")
        self.config = config or Drama3Config.from_file(self.folder / "config.json")
        self.weight_map = _read_index(self.folder)
        self.expected = expected_tensors(self.config)
        self._handles: dict[str, object] = {}

    def names(self) -> list[str]:
        """All tensor names the index lists, in index order."""
        return list(self.weight_map)

    def verify(self) -> None:
        """Check every shard exists and holds exactly the tensors the index and config imply,
        with the shapes and dtypes of docs/internals/model.md §2. Reads only the shard headers.

        Raises CheckpointError listing missing shards, and missing, unexpected and
        mis-shaped (or mis-typed) tensors by name.
        """
        problems = _compare(self.expected, self._stored_specs())
        if problems:
            raise CheckpointError(
                f"{self.folder}: checkpoint does not match its config: " + "; ".join(problems)
            )

    def load_tensor(
        self, name: str, device: str | torch.device = "cpu", dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """Read one tensor onto `device`.

        `dtype` converts floating weights, except FP8 expert weights and their fp32 scales, which
        always keep their stored dtype. Tower `…attention.wqkv.weight` comes back with rows
        re-ordered to per-head [q; gate] (see `interleave_query_and_gate`).
        Raises CheckpointError for an unknown name or an unreadable shard.
        """
        tensor = self._handle(self._shard_of(name)).get_tensor(name)
        if name.endswith("attention.wqkv.weight") and name.startswith("audio_decoder"):
            a = self.config.audio_decoder
            tensor = interleave_query_and_gate(tensor, a.n_head, a.head_dim)
        if dtype is not None and not is_routed_expert(name) and tensor.is_floating_point():
            tensor = tensor.to(dtype)
        return tensor.to(device)

    def load_rows(
        self,
        name: str,
        rows: list[int],
        device: str | torch.device = "cpu",
        dtype: torch.dtype | None = None,
    ) -> torch.Tensor:
        """Rows `rows` (in that order) of a 2-D tensor, read without loading the rest:
        [len(rows), cols] on `device` in `dtype` (e.g. the 4097 used rows of `lm_head.weight`).
        Raises CheckpointError for an unknown name or a row out of range."""
        view = self._handle(self._shard_of(name)).get_slice(name)
        height = view.get_shape()[0]
        if any(not 0 <= r < height for r in rows):
            raise CheckpointError(f"{self.folder}: a row of {name} is outside 0..{height - 1}")
        pieces, start = [], 0
        for i in range(1, len(rows) + 1):  # one read per run of consecutive rows
            if i == len(rows) or rows[i] != rows[i - 1] + 1:
                pieces.append(view[rows[start] : rows[i - 1] + 1])
                start = i
        tensor = torch.cat(pieces) if pieces else torch.empty(0)
        if dtype is not None and tensor.is_floating_point():
            tensor = tensor.to(dtype)
        return tensor.to(device)

    def tensors(
        self, prefix: str, device: str | torch.device = "cpu", dtype: torch.dtype | None = None
    ) -> dict[str, torch.Tensor]:
        """All tensors whose name starts with `prefix`, keyed by the rest of the name, loaded as
        `load_tensor` does (e.g. `tensors("audio_decoder_mtp.heads.")` → {"0.weight": …})."""
        return {
            name[len(prefix) :]: self.load_tensor(name, device, dtype)
            for name in self.weight_map
            if name.startswith(prefix)
        }

    def close(self) -> None:
        """Release the memory-mapped shards; later reads reopen them as needed."""
        self._handles.clear()

    def _shard_of(self, name: str) -> str:
        try:
            return self.weight_map[name]
        except KeyError:
            raise CheckpointError(
                f"{self.folder}: no tensor named {name!r} in {INDEX_FILE}"
            ) from None

    def _handle(self, shard: str):
        if shard not in self._handles:
            path = self.folder / shard
            try:
                self._handles[shard] = safe_open(str(path), framework="pt", device="cpu")
            except Exception as err:  # safetensors raises its own error types, not OSError
                raise CheckpointError(f"{path}: cannot open shard ({err})") from err
        return self._handles[shard]

    def _stored_specs(self) -> dict[str, TensorSpec | str]:
        """Name → stored spec read from shard headers, or a problem string for that name."""
        stored: dict[str, TensorSpec | str] = {}
        by_shard: dict[str, list[str]] = {}
        for name, shard in self.weight_map.items():
            by_shard.setdefault(shard, []).append(name)
        for shard, names in by_shard.items():
            if not (self.folder / shard).is_file():
                stored.update({n: f"shard {shard} is missing" for n in names})
                continue
            handle = self._handle(shard)
            present = set(handle.keys())
            for name in names:
                if name not in present:
                    stored[name] = f"not in shard {shard}"
                    continue
                view = handle.get_slice(name)
                dtype = _SAFETENSORS_DTYPES.get(view.get_dtype())
                stored[name] = TensorSpec(tuple(view.get_shape()), (dtype,))
        return stored


def _read_index(folder: Path) -> dict[str, str]:
    path = folder / INDEX_FILE
    weight_map = read_json_object(path, "sharded safetensors index").get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map:
        raise CheckpointError(f"{path}: weight_map must be a non-empty object")
    return weight_map


def _compare(expected: dict[str, TensorSpec], stored: dict[str, TensorSpec | str]) -> list[str]:
    missing = [n for n in expected if n not in stored]
    unexpected = [n for n in stored if n not in expected]
    unreadable = [f"{n} ({s})" for n, s in stored.items() if isinstance(s, str)]
    wrong = []
    for name, spec in expected.items():
        got = stored.get(name)
        if isinstance(got, TensorSpec) and (
            got.shape != spec.shape or got.dtypes[0] not in spec.dtypes
        ):
            wrong.append(
                f"{name} (is {list(got.shape)} {_dtype_name(got.dtypes[0])}, "
                f"expected {list(spec.shape)} {_dtype_name(spec.dtypes[0])})"
            )
    problems = []
    for label, names in (
        ("missing", missing),
        ("unexpected", unexpected),
        ("unreadable", unreadable),
        ("mis-shaped", wrong),
    ):
        if names:
            problems.append(f"{len(names)} {label}: {_first(names)}")
    return problems


def _first(names: list[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", … ({len(names) - limit} more)" if len(names) > limit else "")


def _dtype_name(dtype: torch.dtype | None) -> str:
    return str(dtype).replace("torch.", "") if dtype is not None else "unknown dtype"


def footprint(config: Drama3Config, bytes_per_value: int = 2) -> dict[str, int]:
    """Size figures of a config, from the tensors it implies (docs/internals/model.md §2, §3.7).

    Returns counts of parameters (`params_total`, `params_active`, split into backbone and
    tower), `weight_bytes_total` (as stored), `weight_bytes_per_frame` (bytes of weights read to
    produce one frame: embedding rows, the top-k experts with their scales, the 4097 used
    lm_head rows, the tower), `kv_bytes_per_frame` and `gdn_state_bytes` (per stream), for
    activations of `bytes_per_value` bytes (2 = bf16).
    """
    active_backbone = active_tower = bytes_per_frame = total_bytes = total = 0
    for name, spec in expected_tensors(config).items():
        share = _active_share(config, name, spec)
        if not name.endswith("weight_scale_inv"):
            total += spec.numel
        total_bytes += spec.nbytes
        bytes_per_frame += int(spec.nbytes * share)
        if name.startswith(("audio_decoder.", "audio_decoder_mtp")):
            active_tower += int(spec.numel * share)
        elif not name.endswith("weight_scale_inv"):
            active_backbone += int(spec.numel * share)
    return {
        "params_total": total,
        "params_active": active_backbone + active_tower,
        "params_active_backbone": active_backbone,
        "params_active_tower": active_tower,
        "weight_bytes_total": total_bytes,
        "weight_bytes_per_frame": bytes_per_frame,
        "kv_bytes_per_frame": config.kv_bytes_per_frame(bytes_per_value),
        "gdn_state_bytes": config.gdn_state_bytes(bytes_per_value),
    }


def _active_share(config: Drama3Config, name: str, spec: TensorSpec) -> float:
    """Fraction of a tensor read per frame: one row of an embedding table, k of E experts,
    the candidate rows of lm_head, everything else whole."""
    if is_routed_expert(name):
        return config.text.num_experts_per_tok / config.text.num_experts
    if name == "lm_head.weight":
        return len(config.main_candidate_ids) / spec.shape[0]
    if name.endswith(
        ("embed_tokens.weight", "semantic_embedding.weight", "codebook_embedding.weight")
    ):
        return 1 / spec.shape[0]
    if name == "audio_decoder.codebook_embeddings.weight":
        return config.audio_decoder.num_codebooks / spec.shape[0]
    return 1.0
