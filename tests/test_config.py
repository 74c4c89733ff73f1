"""Drama3Config: docs/internals/model.md §1 rules, values read from the file, derived figures."""

from __future__ import annotations

import copy
import json

import pytest

from engine.config import Drama3Config
from engine.errors import CheckpointError
from engine.testing.checkpoints import preset_config_dict
from engine.tokenizer import build_tiny_tokenizer


@pytest.fixture(scope="module")
def tiny_dict() -> dict:
    return preset_config_dict("tiny", build_tiny_tokenizer())


@pytest.fixture(scope="module")
def full_shapes_dict() -> dict:
    # Real geometry with the tiny vocabulary: enough for every figure except token ids.
    return preset_config_dict("full", build_tiny_tokenizer())


def test_tiny_config_parses_with_tokenizer_ids(tiny_dict):
    tokenizer = build_tiny_tokenizer()
    config = Drama3Config.from_dict(tiny_dict)
    assert config.semantic_start_token_id == tokenizer.token_to_id("<|semantic:0|>")
    assert config.semantic_end_token_id == tokenizer.token_to_id("<|semantic:4095|>")
    assert config.eos_token_id == tokenizer.token_to_id("<|im_end|>")
    assert len(config.semantic_band) == 4096
    assert config.main_candidate_ids[0] == config.eos_token_id
    assert config.main_candidate_ids[1:] == tuple(config.semantic_band)


def test_layer_pattern_helpers(full_shapes_dict):
    config = Drama3Config.from_dict(full_shapes_dict)
    assert config.full_attention_layers == tuple(range(3, 40, 4))
    assert len(config.linear_attention_layers) == 30
    assert config.layer_is_full_attention(39) and not config.layer_is_full_attention(0)
    assert config.text.rotary_dim == 64 and config.audio_decoder.rotary_dim == 64
    assert config.audio_decoder.tower_layer_count == 13


def test_kv_bytes_per_frame_is_exactly_47104_in_bf16(full_shapes_dict):
    config = Drama3Config.from_dict(full_shapes_dict)
    assert config.kv_bytes_per_frame(2) == (10 + 13) * 2 * 2 * 256 * 2 == 47_104
    # 30 GDN layers × (conv 8192×3 bf16 + recurrent 32×128×128 fp32)
    assert config.gdn_state_bytes(2) == 30 * (8192 * 3 * 2 + 32 * 128 * 128 * 4)


def test_unverified_values_are_read_from_the_file(tiny_dict):
    data = copy.deepcopy(tiny_dict)
    data["audio_decoder_config"]["intermediate_size"] = 77
    data["audio_decoder_config"]["rope_base"] = 5e5
    data["text_config"]["rope_parameters"]["rope_theta"] = 2.5e6
    data["text_config"]["rms_norm_eps"] = 1e-5
    config = Drama3Config.from_dict(data)
    assert config.audio_decoder.intermediate_size == 77
    assert config.audio_decoder.rope_base == 5e5
    assert config.text.rope_theta == 2.5e6
    assert config.text.rms_norm_eps == 1e-5


def test_to_dict_round_trips(tiny_dict, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(tiny_dict))
    config = Drama3Config.from_file(tmp_path)
    assert config.to_dict() == tiny_dict
    assert Drama3Config.from_dict(config.to_dict()) == config


def _set(path: str, value):
    def mutate(data: dict) -> None:
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is _DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


_DELETE = object()

VIOLATIONS = [
    ("model_type", "qwen3", "model_type"),
    ("text_config.layer_types.3", "linear_attention", "text_config.layer_types"),
    ("text_config.layer_types.0", "full_attention", "text_config.layer_types"),
    ("text_config.mlp_layer_types.1", "dense", "text_config.mlp_layer_types"),
    ("text_config.hidden_size", _DELETE, "text_config.hidden_size"),
    ("text_config.rotary_interleaved", True, "text_config.rotary_interleaved"),
    (
        "text_config.layernorm_zero_centered_gamma",
        False,
        "text_config.layernorm_zero_centered_gamma",
    ),
    ("text_config.rope_parameters.rope_type", "yarn", "rope_parameters.rope_type"),
    ("text_config.rope_parameters.mrope_section", [11, 11, 10], "mrope_section"),
    ("text_config.rope_theta", 1.0, "text_config.rope_theta"),
    ("text_config.tower_layer_count", 12, "text_config.tower_layer_count"),
    ("audio_decoder_config.dim", 32, "audio_decoder_config.dim"),
    ("audio_decoder_config.text_dim", 32, "audio_decoder_config.text_dim"),
    ("audio_decoder_config.n_head", 8, "audio_decoder_config.n_head"),
    ("audio_decoder_config.n_local_heads", 4, "audio_decoder_config.n_local_heads"),
    ("audio_decoder_config.head_dim", 64, "audio_decoder_config.head_dim"),
    ("audio_decoder_config.n_layer", 3, "audio_decoder_config.n_layer"),
    ("audio_decoder_config.vocab_size", 1024, "audio_decoder_config.vocab_size"),
    ("audio_decoder_config.num_codebooks", 8, "audio_decoder_config.num_codebooks"),
    ("audio_decoder_config.max_seq_len", 12, "audio_decoder_config.max_seq_len"),
    ("audio_decoder_config.decoder_type", "plain", "audio_decoder_config.decoder_type"),
    (
        "audio_decoder_config.attention_output_gate",
        False,
        "audio_decoder_config.attention_output_gate",
    ),
    ("audio_decoder_config.use_moe", True, "audio_decoder_config.use_moe"),
    ("audio_decoder_config.window_size", 128, "audio_decoder_config.window_size"),
    ("audio_decoder_config.vq_feature_scope", "semantic", "audio_decoder_config.vq_feature_scope"),
    ("audio_decoder_config.vq_backbone_codebooks", 0, "audio_decoder_config.vq_backbone_codebooks"),
    (
        "audio_decoder_config.vq_feature_placement",
        "elsewhere",
        "audio_decoder_config.vq_feature_placement",
    ),
    (
        "audio_decoder_config.mtp_spec",
        {"attention_variant": "sliding_window"},
        "mtp_spec.attention_variant",
    ),
    ("audio_decoder_config.intermediate_size", _DELETE, "audio_decoder_config.intermediate_size"),
    ("audio_encoder_config", {"model_type": "whisper"}, "audio_encoder_config"),
    ("speech_template_version", "v2", "speech_template_version"),
    ("fish_schema_version", 2, "fish_schema_version"),
    ("extra_samplable_token_ids", [17], "extra_samplable_token_ids"),
    ("tie_word_embeddings", True, "tie_word_embeddings"),
    ("quantization_config.quant_method", "fp8", "quantization_config.quant_method"),
    ("quantization_config.activation_scheme", "static", "quantization_config.activation_scheme"),
    ("quantization_config.weight_block_size", [64, 64], "quantization_config.weight_block_size"),
    ("quantization_config", _DELETE, "quantization_config"),
    ("semantic_end_token_id", 4700, "semantic_end_token_id"),
    ("eos_token_id", 700, "eos_token_id"),
    ("text_config.vocab_size", 4000, "text_config.vocab_size"),
]


@pytest.mark.parametrize("path, value, key", VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_each_rule_names_the_offending_key(tiny_dict, path, value, key):
    data = copy.deepcopy(tiny_dict)
    _set(path, value)(data)
    with pytest.raises(CheckpointError, match=key.replace(".", r"\.")):
        Drama3Config.from_dict(data)


def test_mtp_shared_pre_placement_needs_zero_backbone_codebooks(tiny_dict):
    data = copy.deepcopy(tiny_dict)
    data["audio_decoder_config"].update(
        vq_feature_placement="mtp_shared_pre", vq_backbone_codebooks=0
    )
    assert Drama3Config.from_dict(data).audio_decoder.vq_backbone_codebooks == 0


def test_unreadable_files_raise_checkpoint_error(tmp_path):
    with pytest.raises(CheckpointError, match="no such config"):
        Drama3Config.from_file(tmp_path / "config.json")
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not a readable JSON"):
        Drama3Config.from_file(tmp_path)
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(CheckpointError, match="the config must be a JSON object"):
        Drama3Config.from_file(tmp_path)


def test_codec_config_files_share_the_json_errors(tmp_path):
    from engine.codec.config import CONFIG_FILE, CodecConfig

    assert CodecConfig.for_folder(tmp_path) == CodecConfig()  # no file: the released codec
    (tmp_path / CONFIG_FILE).write_text("{oops")
    with pytest.raises(CheckpointError, match="not a readable JSON codec config"):
        CodecConfig.for_folder(tmp_path)
    (tmp_path / CONFIG_FILE).write_text('"text"')
    with pytest.raises(CheckpointError, match="the codec config must be a JSON object"):
        CodecConfig.for_folder(tmp_path)


def test_a_config_file_of_the_wrong_content_is_named_by_its_path(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    with pytest.raises(CheckpointError) as info:
        Drama3Config.from_file(folder)
    assert str(info.value) == f"{folder / 'config.json'}: model_type must be 'fish_omni', got None"
