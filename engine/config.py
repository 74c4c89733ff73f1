"""Drama 3 model configuration: `config.json` read, validated against docs/internals/model.md §1, and exposed as
plain frozen dataclasses.

Every rule of docs/internals/model.md §1 is checked; a violation raises `CheckpointError` naming the offending key.
Values docs/internals/model.md marks unverified (vocabulary size, token ids, tower `intermediate_size`, RoPE
bases, …) are always read from the file; only the values docs/internals/model.md verifies as fixed are checked.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.constants import CODEBOOK_SIZE, NUM_CODEBOOKS
from engine.errors import CheckpointError

WEIGHT_BLOCK_SIZE = (128, 128)

_LINEAR = "linear_attention"
_FULL = "full_attention"

# Keys Fish adds to the text config; each must hold this value when present (docs/internals/model.md §1.2).
_FIXED_TEXT_SETTINGS = {
    "rotary_interleaved": False,
    "use_qk_norm": True,
    "attn_output_gate": True,
    "layernorm_zero_centered_gamma": True,
    "shared_expert_gate": True,
    "hidden_act": "silu",
}

# Tower keys that must be false, null or 0 (docs/internals/model.md §1.3).
_TOWER_OFF_KEYS = (
    "use_moe",
    "mtp_use_swa",
    "attention_qkv_bias",
    "attention_o_bias",
    "window_size",
    "window_attn_skip_freq",
    "window_rotary_base",
    "dropout",
)

_TEXT_INT_KEYS = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "num_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
    "vocab_size",
)

_TOWER_INT_KEYS = (
    "dim",
    "text_dim",
    "n_head",
    "n_local_heads",
    "head_dim",
    "n_layer",
    "shared_enrichment_layers",
    "num_codebooks",
    "vocab_size",
    "max_seq_len",
    "intermediate_size",
)


def _fail(key: str, message: str) -> CheckpointError:
    return CheckpointError(f"config.json: {key} {message}")


def _require_int(section: dict, prefix: str, key: str, minimum: int = 1) -> int:
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(f"{prefix}{key}", f"must be an integer, got {value!r}")
    if value < minimum:
        raise _fail(f"{prefix}{key}", f"must be at least {minimum}, got {value}")
    return value


def _require_float(section: dict, prefix: str, key: str, default: float | None = None) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _fail(f"{prefix}{key}", f"must be a positive number, got {value!r}")
    return float(value)


def _require_equal(
    section: dict, prefix: str, key: str, expected: Any, default: Any = None
) -> None:
    value = section.get(key, default)
    if value != expected:
        raise _fail(f"{prefix}{key}", f"must be {expected!r}, got {value!r}")


def read_json_object(path: Path, what: str) -> dict:
    """The JSON object in the file `path`; `what` names the file in errors ("config", "index").

    Raises CheckpointError ("<path>: missing (no such <what> file)", "<path>: not a readable
    JSON <what> (...)", "<path>: the <what> must be a JSON object").
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise CheckpointError(f"{path}: missing (no such {what} file)") from err
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"{path}: not a readable JSON {what} ({err})") from err
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: the {what} must be a JSON object")
    return data


@dataclass(frozen=True)
class TextConfig:
    """The Qwen3.5-MoE backbone settings (`text_config`, docs/internals/model.md §1.2)."""

    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    num_experts: int
    num_experts_per_tok: int
    moe_intermediate_size: int
    shared_expert_intermediate_size: int
    linear_num_key_heads: int
    linear_num_value_heads: int
    linear_key_head_dim: int
    linear_value_head_dim: int
    linear_conv_kernel_dim: int
    vocab_size: int
    rms_norm_eps: float
    rope_theta: float
    partial_rotary_factor: float
    layer_types: tuple[str, ...]
    max_position_embeddings: int | None

    @property
    def rotary_dim(self) -> int:
        """Number of rotated dims per attention head (head_dim × partial_rotary_factor)."""
        return int(self.head_dim * self.partial_rotary_factor)

    @property
    def linear_key_dim(self) -> int:
        """Channels of q (and of k) in a Gated DeltaNet layer: key heads × key head dim."""
        return self.linear_num_key_heads * self.linear_key_head_dim

    @property
    def linear_value_dim(self) -> int:
        """Channels of v (and of the gate z) in a Gated DeltaNet layer."""
        return self.linear_num_value_heads * self.linear_value_head_dim

    @property
    def linear_conv_dim(self) -> int:
        """Channels through the Gated DeltaNet causal conv1d: q, k and v together."""
        return 2 * self.linear_key_dim + self.linear_value_dim


@dataclass(frozen=True)
class AudioDecoderConfig:
    """The codebook-MTP tower settings (`audio_decoder_config`, docs/internals/model.md §1.3)."""

    dim: int
    n_head: int
    n_local_heads: int
    head_dim: int
    n_layer: int
    shared_enrichment_layers: int
    num_codebooks: int
    vocab_size: int
    max_seq_len: int
    intermediate_size: int
    norm_eps: float
    rope_base: float
    rotary_percent: float
    vq_backbone_codebooks: int
    vq_feature_placement: str

    @property
    def residual_layers(self) -> int:
        """Per-codebook layers (one per residual codebook 1..9): num_codebooks − 1."""
        return self.num_codebooks - 1

    @property
    def tower_layer_count(self) -> int:
        """All tower layers: shared enrichment layers plus residual layers (13 for Drama 3)."""
        return self.shared_enrichment_layers + self.residual_layers

    @property
    def rotary_dim(self) -> int:
        """Number of rotated dims per tower head (head_dim × rotary_percent; 64 of 256)."""
        return int(self.head_dim * self.rotary_percent)


@dataclass(frozen=True)
class Drama3Config:
    """A validated Drama 3 `config.json` (model_type `fish_omni`), docs/internals/model.md §1.

    Build with `Drama3Config.from_file(path)` or `from_dict(data)`; both raise `CheckpointError`
    naming the first key that breaks a rule of docs/internals/model.md §1.
    """

    text: TextConfig
    audio_decoder: AudioDecoderConfig
    semantic_start_token_id: int
    semantic_end_token_id: int
    eos_token_id: int
    weight_block_size: tuple[int, int]
    raw: dict[str, object]

    @classmethod
    def from_file(cls, path: str | Path) -> Drama3Config:
        """Read and validate `config.json` (or the one inside a model folder `path`).

        Raises CheckpointError when the file is missing, not JSON, or breaks a rule of docs/internals/model.md §1.
        """
        path = Path(path)
        if path.is_dir():
            path = path / "config.json"
        data = read_json_object(path, "config")
        try:
            return cls.from_dict(data)
        except CheckpointError as error:  # name the file, not only its key
            raise CheckpointError(str(error).replace("config.json:", f"{path}:", 1)) from None

    @classmethod
    def from_dict(cls, data: dict) -> Drama3Config:
        """Validate a parsed `config.json` object (docs/internals/model.md §1); raises CheckpointError."""
        _check_top_level(data)
        text = _parse_text_config(data["text_config"])
        tower = _parse_audio_decoder_config(data["audio_decoder_config"], text)
        start, end, eos = _parse_token_ids(data, text, tower)
        if "tower_layer_count" in data["text_config"]:
            _require_equal(
                data["text_config"], "text_config.", "tower_layer_count", tower.tower_layer_count
            )
        return cls(
            text=text,
            audio_decoder=tower,
            semantic_start_token_id=start,
            semantic_end_token_id=end,
            eos_token_id=eos,
            weight_block_size=WEIGHT_BLOCK_SIZE,
            raw=copy.deepcopy(data),
        )

    def to_dict(self) -> dict:
        """The config as read (a deep copy of the JSON object), ready for `json.dump`."""
        return copy.deepcopy(self.raw)

    @property
    def semantic_band(self) -> range:
        """Token ids of `<|semantic:0|>` … `<|semantic:4095|>` (inclusive band), docs/internals/model.md §1.4."""
        return range(self.semantic_start_token_id, self.semantic_end_token_id + 1)

    @property
    def num_layers(self) -> int:
        """Backbone decoder layers (40 for Drama 3)."""
        return self.text.num_hidden_layers

    def layer_is_full_attention(self, index: int) -> bool:
        """True when backbone layer `index` is gated full attention (docs/internals/model.md §1.2: (i+1) % 4 == 0)."""
        return self.text.layer_types[index] == _FULL

    @property
    def full_attention_layers(self) -> tuple[int, ...]:
        """Indices of the gated full-attention layers (3, 7, …, 39)."""
        return tuple(i for i in range(self.num_layers) if self.layer_is_full_attention(i))

    @property
    def linear_attention_layers(self) -> tuple[int, ...]:
        """Indices of the Gated DeltaNet layers."""
        return tuple(i for i in range(self.num_layers) if not self.layer_is_full_attention(i))

    def kv_bytes_per_frame(self, bytes_per_value: int = 2) -> int:
        """KV-cache bytes one frame row adds: (attention layers + tower layers) × K and V ×
        kv heads × head_dim × bytes (47,104 for Drama 3 in bf16), docs/internals/model.md §3.7."""
        backbone = (
            len(self.full_attention_layers) * self.text.num_key_value_heads * self.text.head_dim
        )
        tower = (
            self.audio_decoder.tower_layer_count
            * self.audio_decoder.n_local_heads
            * self.audio_decoder.head_dim
        )
        return 2 * (backbone + tower) * bytes_per_value

    def gdn_state_bytes(self, bytes_per_value: int = 2) -> int:
        """Bytes of Gated DeltaNet state per stream: conv states (kernel − 1 inputs per channel,
        activation dtype) plus fp32 recurrent states [value heads, key dim, value dim], docs/internals/model.md §3.7."""
        t = self.text
        conv = t.linear_conv_dim * (t.linear_conv_kernel_dim - 1) * bytes_per_value
        recurrent = t.linear_num_value_heads * t.linear_key_head_dim * t.linear_value_head_dim * 4
        return len(self.linear_attention_layers) * (conv + recurrent)

    @property
    def main_candidate_ids(self) -> tuple[int, ...]:
        """Token ids the main head can emit: EOS then the semantic band (4097 ids), docs/internals/model.md §3.3."""
        return (self.eos_token_id, *self.semantic_band)


def _check_top_level(data: dict) -> None:
    _require_equal(data, "", "model_type", "fish_omni")
    architectures = data.get("architectures", ["FishOmniModel"])
    if architectures != ["FishOmniModel"]:
        raise _fail("architectures", f"must be ['FishOmniModel'], got {architectures!r}")
    for key in ("text_config", "audio_decoder_config"):
        if not isinstance(data.get(key), dict):
            raise _fail(key, "must be an object")
    if data.get("audio_encoder_config") is not None:
        raise _fail("audio_encoder_config", "must be null or absent")
    _require_equal(data, "", "speech_template_version", "reference-bracket-v1")
    _require_equal(data, "", "fish_schema_version", 1, default=1)
    if data.get("extra_samplable_token_ids"):
        raise _fail("extra_samplable_token_ids", "must be empty (only EOS and semantic tokens)")
    if data.get("tie_word_embeddings", False) or data["text_config"].get(
        "tie_word_embeddings", False
    ):
        raise _fail("tie_word_embeddings", "must be false (lm_head is its own tensor)")
    _check_quantization(data.get("quantization_config"))


def _check_quantization(quant: Any) -> None:
    if not isinstance(quant, dict):
        raise _fail("quantization_config", "must be an object (block-FP8 experts expected)")
    _require_equal(quant, "quantization_config.", "quant_method", "bsgemm-moe")
    _require_equal(quant, "quantization_config.", "activation_scheme", "dynamic")
    block = quant.get("weight_block_size")
    if list(block or ()) != list(WEIGHT_BLOCK_SIZE):
        raise _fail("quantization_config.weight_block_size", f"must be [128, 128], got {block!r}")


def _parse_text_config(section: dict) -> TextConfig:
    prefix = "text_config."
    model_type = section.get("model_type")
    if model_type not in ("fish_omni_text", "qwen3_5_moe_text"):
        raise _fail(f"{prefix}model_type", f"must be 'fish_omni_text', got {model_type!r}")
    ints = {key: _require_int(section, prefix, key) for key in _TEXT_INT_KEYS}
    for key, expected in _FIXED_TEXT_SETTINGS.items():
        if key in section:
            _require_equal(section, prefix, key, expected)
    layer_types = _check_layer_types(section, ints["num_hidden_layers"])
    mlp_types = section.get("mlp_layer_types")
    if mlp_types is not None and list(mlp_types) != ["moe"] * ints["num_hidden_layers"]:
        raise _fail(f"{prefix}mlp_layer_types", "must be 'moe' for every layer")
    rope_theta, rotary_factor = _parse_rope(section)
    if ints["num_experts_per_tok"] > ints["num_experts"]:
        raise _fail(f"{prefix}num_experts_per_tok", "exceeds num_experts")
    for heads, groups in (
        ("num_attention_heads", "num_key_value_heads"),
        ("linear_num_value_heads", "linear_num_key_heads"),
    ):
        if ints[heads] % ints[groups]:
            raise _fail(f"{prefix}{heads}", f"must be a multiple of {groups}")
    max_positions = section.get("max_position_embeddings")
    return TextConfig(
        **ints,
        rms_norm_eps=_require_float(section, prefix, "rms_norm_eps", default=1e-6),
        rope_theta=rope_theta,
        partial_rotary_factor=rotary_factor,
        layer_types=layer_types,
        max_position_embeddings=int(max_positions) if max_positions is not None else None,
    )


def _check_layer_types(section: dict, num_layers: int) -> tuple[str, ...]:
    key = "text_config.layer_types"
    layer_types = section.get("layer_types")
    if not isinstance(layer_types, list) or len(layer_types) != num_layers:
        raise _fail(key, f"must list {num_layers} layer types")
    for index, kind in enumerate(layer_types):
        expected = _FULL if (index + 1) % 4 == 0 else _LINEAR
        if kind != expected:
            raise _fail(
                key,
                f"[{index}] must be {expected!r} (every 4th layer is full attention), got {kind!r}",
            )
    return tuple(layer_types)


def _parse_rope(section: dict) -> tuple[float, float]:
    prefix = "text_config."
    params = section.get("rope_parameters")
    if params is None:
        # Older exports keep the values at the top level of text_config.
        keys = ("rope_theta", "partial_rotary_factor")
        params = {"rope_type": "default", **{k: section[k] for k in keys if k in section}}
    if not isinstance(params, dict):
        raise _fail(f"{prefix}rope_parameters", "must be an object")
    _require_equal(params, f"{prefix}rope_parameters.", "rope_type", "default", default="default")
    if "mrope_section" in params:
        raise _fail(f"{prefix}rope_parameters.mrope_section", "must be absent (no M-RoPE)")
    theta = _require_float(params, f"{prefix}rope_parameters.", "rope_theta")
    factor = _require_float(
        params, f"{prefix}rope_parameters.", "partial_rotary_factor", default=1.0
    )
    for key, value in (("rope_theta", theta), ("partial_rotary_factor", factor)):
        if key in section and float(section[key]) != value:
            raise _fail(f"{prefix}{key}", f"must repeat rope_parameters.{key} ({value})")
    scaling = section.get("rope_scaling")
    if (
        scaling is not None
        and scaling.get("rope_type", scaling.get("type", "default")) != "default"
    ):
        raise _fail(f"{prefix}rope_scaling", "must be absent or repeat rope_parameters")
    if factor > 1.0:
        raise _fail(f"{prefix}rope_parameters.partial_rotary_factor", "must be at most 1")
    return theta, factor


def _parse_audio_decoder_config(section: dict, text: TextConfig) -> AudioDecoderConfig:
    prefix = "audio_decoder_config."
    _require_equal(section, prefix, "model_type", "fish_qwen3_audio_decoder")
    _require_equal(section, prefix, "decoder_type", "codebook_mtp_shared")
    ints = {key: _require_int(section, prefix, key) for key in _TOWER_INT_KEYS}
    pairs = (
        ("dim", text.hidden_size, "text_config.hidden_size"),
        ("text_dim", text.hidden_size, "text_config.hidden_size"),
        ("n_head", text.num_attention_heads, "text_config.num_attention_heads"),
        ("n_local_heads", text.num_key_value_heads, "text_config.num_key_value_heads"),
        ("head_dim", text.head_dim, "text_config.head_dim"),
        (
            "n_layer",
            ints["shared_enrichment_layers"],
            "audio_decoder_config.shared_enrichment_layers",
        ),
        ("num_codebooks", NUM_CODEBOOKS, "the codec's 10 codebooks"),
        ("vocab_size", CODEBOOK_SIZE, "the semantic band size"),
        ("max_seq_len", ints["num_codebooks"] + 1, "num_codebooks + 1"),
    )
    for key, expected, source in pairs:
        if ints[key] != expected:
            raise _fail(f"{prefix}{key}", f"is {ints[key]}, must equal {source} ({expected})")
    _require_equal(section, prefix, "attention_output_gate", True)
    _require_equal(section, prefix, "layernorm_zero_centered_gamma", True)
    _require_equal(section, prefix, "vq_feature_scope", "all_vq")
    for key in _TOWER_OFF_KEYS:
        if section.get(key):
            raise _fail(f"{prefix}{key}", f"must be false, null or 0, got {section[key]!r}")
    _check_mtp_spec(section.get("mtp_spec"))
    placement, backbone_codebooks = _parse_vq_placement(section)
    return AudioDecoderConfig(
        **{k: v for k, v in ints.items() if k != "text_dim"},
        norm_eps=_require_float(section, prefix, "norm_eps", default=1e-6),
        rope_base=_require_float(section, prefix, "rope_base", default=1e7),
        rotary_percent=_require_float(section, prefix, "rotary_percent", default=0.25),
        vq_backbone_codebooks=backbone_codebooks,
        vq_feature_placement=placement,
    )


def _check_mtp_spec(spec: Any) -> None:
    key = "audio_decoder_config.mtp_spec"
    if spec is None:
        return
    if not isinstance(spec, dict):
        raise _fail(key, "must be an object or null")
    variant = spec.get("attention_variant", "full_attention")
    if variant != "full_attention":
        raise _fail(f"{key}.attention_variant", f"must be 'full_attention', got {variant!r}")
    moe_keys = sorted(k for k in spec if "moe" in k.lower() or "expert" in k.lower())
    if moe_keys:
        raise _fail(key, f"must have no MoE keys, got {moe_keys}")


def _parse_vq_placement(section: dict) -> tuple[str, int]:
    prefix = "audio_decoder_config."
    placement = section.get("vq_feature_placement")
    count = section.get("vq_backbone_codebooks")
    if isinstance(count, bool) or not isinstance(count, int):
        raise _fail(f"{prefix}vq_backbone_codebooks", f"must be an integer, got {count!r}")
    if placement == "backbone_partial":
        if not 1 <= count <= NUM_CODEBOOKS - 1:
            raise _fail(
                f"{prefix}vq_backbone_codebooks", f"must be 1..9 for backbone_partial, got {count}"
            )
    elif placement == "mtp_shared_pre":
        if count != 0:
            raise _fail(
                f"{prefix}vq_backbone_codebooks", f"must be 0 for mtp_shared_pre, got {count}"
            )
    else:
        raise _fail(
            f"{prefix}vq_feature_placement",
            f"must be 'backbone_partial' or 'mtp_shared_pre', got {placement!r}",
        )
    return placement, count


def _parse_token_ids(
    data: dict, text: TextConfig, tower: AudioDecoderConfig
) -> tuple[int, int, int]:
    start = _require_int(data, "", "semantic_start_token_id", minimum=0)
    end = _require_int(data, "", "semantic_end_token_id", minimum=0)
    eos = _require_int(data, "", "eos_token_id", minimum=0)
    if end - start + 1 != tower.vocab_size:
        raise _fail(
            "semantic_end_token_id",
            f"spans {end - start + 1} ids from semantic_start_token_id, "
            f"must span audio_decoder_config.vocab_size ({tower.vocab_size})",
        )
    if start <= eos <= end:
        raise _fail("eos_token_id", f"({eos}) must lie outside the semantic band {start}..{end}")
    if text.vocab_size < end + 1:
        raise _fail(
            "text_config.vocab_size",
            f"({text.vocab_size}) must cover semantic_end_token_id ({end})",
        )
    if eos >= text.vocab_size:
        raise _fail(
            "eos_token_id", f"({eos}) must be below text_config.vocab_size ({text.vocab_size})"
        )
    return start, end, eos
