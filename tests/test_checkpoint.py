"""Checkpoint: expected names and shapes (docs/internals/model.md §2), strict verification, lazy loading."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from engine.checkpoint import (
    INDEX_FILE,
    Checkpoint,
    expected_tensors,
    footprint,
    interleave_query_and_gate,
)
from engine.config import Drama3Config
from engine.errors import CheckpointError
from engine.testing.checkpoints import preset_config_dict, write_checkpoint
from engine.tokenizer import build_tiny_tokenizer

L = "model.language_model.layers."


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=1, with_codec=False)
    return folder


@pytest.fixture
def copy_of_tiny(tiny_folder, tmp_path):
    target = tmp_path / "model"
    shutil.copytree(tiny_folder, target)
    return target


@pytest.fixture(scope="module")
def full_config():
    return Drama3Config.from_dict(preset_config_dict("full", build_tiny_tokenizer()))


def test_full_config_implies_the_spec_shapes(full_config):
    specs = expected_tensors(full_config)
    shape = {name: spec.shape for name, spec in specs.items()}
    dtype = {name: spec.dtypes[0] for name, spec in specs.items()}
    assert shape[f"{L}0.linear_attn.in_proj_qkv.weight"] == (8192, 2048)
    assert shape[f"{L}0.linear_attn.in_proj_z.weight"] == (4096, 2048)
    assert shape[f"{L}0.linear_attn.conv1d.weight"] == (8192, 1, 4)
    assert shape[f"{L}0.linear_attn.norm.weight"] == (128,)
    assert shape[f"{L}0.linear_attn.out_proj.weight"] == (2048, 4096)
    assert shape[f"{L}3.self_attn.q_proj.weight"] == (8192, 2048)
    assert shape[f"{L}3.self_attn.k_proj.weight"] == (512, 2048)
    assert shape[f"{L}3.self_attn.o_proj.weight"] == (2048, 4096)
    assert f"{L}3.linear_attn.in_proj_qkv.weight" not in shape
    assert shape[f"{L}39.mlp.gate.weight"] == (256, 2048)
    assert shape[f"{L}5.mlp.experts.255.gate_proj.weight"] == (512, 2048)
    assert dtype[f"{L}5.mlp.experts.255.gate_proj.weight"] == torch.float8_e4m3fn
    assert shape[f"{L}5.mlp.experts.0.gate_proj.weight_scale_inv"] == (4, 16)
    assert shape[f"{L}5.mlp.experts.0.down_proj.weight_scale_inv"] == (16, 4)
    assert dtype[f"{L}5.mlp.experts.0.down_proj.weight_scale_inv"] == torch.float32
    assert shape[f"{L}5.mlp.shared_expert_gate.weight"] == (1, 2048)
    assert shape["audio_decoder.codebook_embeddings.weight"] == (40960, 2048)
    tower = "audio_decoder_mtp_shared.layers.3."
    assert shape[f"{tower}semantic_embedding.weight"] == (4096, 2048)
    assert shape[f"{tower}eh_proj.weight"] == (2048, 4096)
    assert shape[f"{tower}transformer_layer.attention.wqkv.weight"] == (9216, 2048)
    assert shape["audio_decoder_mtp.layers.8.codebook_embedding.weight"] == (4096, 2048)
    assert shape["audio_decoder_mtp.heads.8.weight"] == (4096, 2048)
    assert "audio_decoder_mtp.heads.9.weight" not in shape
    assert dtype["lm_head.weight"] == torch.bfloat16
    assert len([n for n in specs if n.endswith("final_layernorm.weight")]) == 13


def test_full_footprint_is_about_35b_total_and_3b_active(full_config):
    figures = footprint(full_config)
    assert 34e9 < figures["params_total"] < 37e9
    assert 2.5e9 < figures["params_active"] < 3.6e9
    assert figures["kv_bytes_per_frame"] == 47_104


def test_written_tiny_checkpoint_verifies(tiny_folder):
    checkpoint = Checkpoint(tiny_folder)
    checkpoint.verify()
    assert set(checkpoint.names()) == set(checkpoint.expected)


def _rewrite_shard(folder, name, edit):
    """Apply `edit(tensors)` to the shard holding tensor `name`; returns that shard's file name."""
    index = json.loads((folder / INDEX_FILE).read_text())
    shard = index["weight_map"][name]
    tensors = load_file(str(folder / shard))
    edit(tensors)
    save_file(tensors, str(folder / shard), metadata={"format": "pt"})
    return shard


def _verify_error(folder) -> str:
    with pytest.raises(CheckpointError) as info:
        Checkpoint(folder).verify()
    return str(info.value)


def test_verify_lists_missing_unexpected_and_misshaped_by_name(copy_of_tiny):
    qkv = f"{L}0.linear_attn.in_proj_qkv.weight"
    expert = f"{L}1.mlp.experts.2.up_proj.weight"
    norm = f"{L}2.input_layernorm.weight"

    def edit(tensors):
        tensors[qkv] = tensors[qkv][:-1].clone()

    _rewrite_shard(copy_of_tiny, qkv, edit)
    _rewrite_shard(copy_of_tiny, expert, lambda t: t.update({expert: t[expert].to(torch.bfloat16)}))
    index = json.loads((copy_of_tiny / INDEX_FILE).read_text())
    shard = index["weight_map"].pop(norm)
    index["weight_map"]["model.language_model.mtp.fc.weight"] = shard
    (copy_of_tiny / INDEX_FILE).write_text(json.dumps(index))
    message = _verify_error(copy_of_tiny)
    assert f"1 missing: {norm}" in message
    assert "1 unexpected: model.language_model.mtp.fc.weight" in message
    assert f"{qkv} (is [127, 64] bfloat16, expected [128, 64] bfloat16)" in message
    assert f"{expert} (is [32, 64] bfloat16, expected [32, 64] float8_e4m3fn)" in message


def test_verify_reports_missing_shards_and_tensors_absent_from_their_shard(copy_of_tiny):
    index = json.loads((copy_of_tiny / INDEX_FILE).read_text())
    last_shard = sorted(set(index["weight_map"].values()))[-1]
    (copy_of_tiny / last_shard).unlink()
    name = f"{L}0.input_layernorm.weight"
    _rewrite_shard(copy_of_tiny, name, lambda t: t.pop(name))
    message = _verify_error(copy_of_tiny)
    assert f"shard {last_shard} is missing" in message
    assert f"{name} (not in shard" in message


def test_missing_index_is_a_checkpoint_error(copy_of_tiny):
    (copy_of_tiny / INDEX_FILE).unlink()
    with pytest.raises(CheckpointError, match="index.json: missing"):
        Checkpoint(copy_of_tiny)


def test_load_keeps_fp8_experts_and_converts_dense_weights(tiny_folder):
    checkpoint = Checkpoint(tiny_folder)
    weight = checkpoint.load_tensor(f"{L}0.mlp.experts.0.gate_proj.weight", dtype=torch.float32)
    scale = checkpoint.load_tensor(
        f"{L}0.mlp.experts.0.gate_proj.weight_scale_inv", dtype=torch.bfloat16
    )
    dense = checkpoint.load_tensor(f"{L}0.mlp.shared_expert.up_proj.weight", dtype=torch.float32)
    assert weight.dtype == torch.float8_e4m3fn and scale.dtype == torch.float32
    assert dense.dtype == torch.float32
    assert checkpoint.load_tensor(f"{L}0.mlp.gate.weight").dtype == torch.bfloat16
    with pytest.raises(CheckpointError, match="no tensor named"):
        checkpoint.load_tensor("lm_head.bias")


def test_tower_wqkv_is_reordered_to_per_head_query_gate(tiny_folder):
    checkpoint = Checkpoint(tiny_folder)
    name = "audio_decoder_mtp.layers.0.transformer_layer.attention.wqkv.weight"
    with safe_open(str(tiny_folder / checkpoint.weight_map[name]), "pt") as handle:
        raw = handle.get_tensor(name)
    loaded = checkpoint.load_tensor(name)
    heads, hd = 4, 32  # tiny: 4 query heads of 32 dims, 2 kv heads
    for h in range(heads):
        assert torch.equal(
            loaded[2 * h * hd : (2 * h + 1) * hd], raw[h * hd : (h + 1) * hd]
        )  # query h
        gate = raw[heads * hd + h * hd : heads * hd + (h + 1) * hd]
        assert torch.equal(loaded[(2 * h + 1) * hd : (2 * h + 2) * hd], gate)
    assert torch.equal(loaded[2 * heads * hd :], raw[2 * heads * hd :])  # K and V unchanged
    backbone_q = f"{L}3.self_attn.q_proj.weight"
    with safe_open(str(tiny_folder / checkpoint.weight_map[backbone_q]), "pt") as handle:
        assert torch.equal(checkpoint.load_tensor(backbone_q), handle.get_tensor(backbone_q))


def test_interleave_query_and_gate_on_labelled_rows():
    rows = torch.arange(2 * 3 * 2 + 2 * 1 * 2).float()[:, None]  # 3 heads of 2 dims, 1 kv head
    out = interleave_query_and_gate(rows, n_head=3, head_dim=2)[:, 0].tolist()
    assert out == [0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, 12, 13, 14, 15]


def test_load_rows_and_tensors_by_prefix(tiny_folder):
    checkpoint = Checkpoint(tiny_folder)
    head = checkpoint.load_tensor("lm_head.weight")
    rows = [5, 4000, 4001, 4002, 17]
    assert torch.equal(checkpoint.load_rows("lm_head.weight", rows), head[rows])
    with pytest.raises(CheckpointError, match="outside"):
        checkpoint.load_rows("lm_head.weight", [head.shape[0]])
    heads = checkpoint.tensors("audio_decoder_mtp.heads.", dtype=torch.float32)
    assert sorted(heads) == sorted(f"{i}.weight" for i in range(9))
    assert heads["0.weight"].shape == (4096, 64) and heads["0.weight"].dtype == torch.float32
