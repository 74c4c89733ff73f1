"""Random checkpoints: real layout, token ids from the written tokenizer, determinism, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer

from engine.checkpoint import Checkpoint, footprint
from engine.config import Drama3Config
from engine.layers.fp8 import fp8_to_float
from engine.testing.checkpoints import (
    GEOMETRY_KEYS,
    main,
    preset_config_dict,
    preset_geometry,
    quantize_fp8_blocks,
    write_checkpoint,
)
from engine.tokenizer import build_tiny_tokenizer

OWN_FILES = ("config.json", "tokenizer.json", "model.safetensors.index.json")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    return folder, write_checkpoint(folder, "tiny", seed=0)


def test_tiny_is_small_complete_and_uses_its_tokenizer_ids(tiny):
    folder, summary = tiny
    shards = sorted(folder.glob("model-*-of-*.safetensors"))
    assert len(shards) > 1 and summary["tensors"] == len(Checkpoint(folder).expected)
    assert sum(p.stat().st_size for p in shards) < 25e6
    Checkpoint(folder).verify()
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    config = Drama3Config.from_file(folder)
    assert config.semantic_start_token_id == tokenizer.token_to_id("<|semantic:0|>")
    assert config.semantic_end_token_id == tokenizer.token_to_id("<|semantic:4095|>")
    assert config.eos_token_id == tokenizer.token_to_id("<|im_end|>")
    assert config.text.vocab_size == tokenizer.get_vocab_size()
    assert config.layer_is_full_attention(3) and config.num_layers == 4


def test_codec_is_written_when_the_codec_package_provides_it(tiny):
    folder, summary = tiny
    try:
        import engine.testing.codec  # noqa: F401
    except ImportError:
        assert any("no codec.pth" in note for note in summary["notes"])
    else:
        assert (folder / "codec.pth").is_file() and "codec.pth" in summary["files"]


def test_same_seed_same_files_other_seed_other_weights(tiny, tmp_path):
    folder, _ = tiny
    write_checkpoint(tmp_path / "again", "tiny", seed=0, with_codec=False)
    write_checkpoint(tmp_path / "other", "tiny", seed=1, with_codec=False)
    names = [*OWN_FILES, *(p.name for p in folder.glob("model-*.safetensors"))]
    for name in names:
        assert (folder / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    shard = next(folder.glob("model-00001-*.safetensors")).name
    assert (folder / shard).read_bytes() != (tmp_path / "other" / shard).read_bytes()


def test_fp8_blocks_round_trip_within_fp8_precision():
    weight = torch.randn(200, 300)
    quantized, scale = quantize_fp8_blocks(weight, (128, 128))
    assert quantized.dtype == torch.float8_e4m3fn and scale.shape == (2, 3)
    blocks = scale.repeat_interleave(128, 0)[:200].repeat_interleave(128, 1)[:, :300]
    restored = quantized.float() * blocks
    assert (restored - weight).abs().max() <= 0.07 * weight.abs().max()
    assert quantized.float().abs().max() == 448.0
    assert torch.equal(fp8_to_float(quantized), quantized.float())


def test_small_and_full_configs_validate():
    small = Drama3Config.from_dict(preset_config_dict("small", build_tiny_tokenizer()))
    assert small.text.hidden_size == 512 and small.num_layers == 8
    assert small.audio_decoder.vocab_size == 4096 and small.audio_decoder.num_codebooks == 10
    full = Drama3Config.from_dict(preset_config_dict("full", build_tiny_tokenizer()))
    assert full.text.num_experts == 256 and full.audio_decoder.tower_layer_count == 13


def test_cli_config_only_writes_config_and_tokenizer(tmp_path, capsys):
    assert main(["tiny", str(tmp_path / "cfg"), "--config-only", "--seed", "4"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["seed"] == 4 and summary["tensors"] == 0
    assert sorted(p.name for p in (tmp_path / "cfg").iterdir()) == ["config.json", "tokenizer.json"]


def test_full_config_only_has_the_provisional_real_ids(tmp_path):
    # The offline Qwen3.5 tokenizer (252,288 ids) is built once and cached.
    result = subprocess.run(
        [sys.executable, "-m", "engine.testing", "full", str(tmp_path / "full"), "--config-only"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert result.returncode == 0, result.stderr
    config = Drama3Config.from_file(tmp_path / "full")
    assert (config.semantic_start_token_id, config.semantic_end_token_id) == (248_192, 252_287)
    assert config.eos_token_id == 248_046 and config.text.vocab_size == 252_288
    assert footprint(config)["kv_bytes_per_frame"] == 47_104


def test_unknown_preset_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown preset"):
        write_checkpoint(tmp_path, "huge")


WHOLE_BLOCKS = {
    "hidden_size": 128,
    "moe_intermediate_size": 128,
    "shared_expert_intermediate_size": 128,
}


def test_overrides_change_the_preset_sizes_and_the_written_tensors(tmp_path):
    summary = write_checkpoint(tmp_path, "tiny", seed=0, with_codec=False, overrides=WHOLE_BLOCKS)
    assert summary["overrides"] == WHOLE_BLOCKS
    checkpoint = Checkpoint(tmp_path)
    checkpoint.verify()
    config = checkpoint.config
    assert (config.text.hidden_size, config.text.moe_intermediate_size) == (128, 128)
    assert config.audio_decoder.dim == 128 and config.text.num_experts == 8  # the rest is tiny's
    expert = "model.language_model.layers.0.mlp.experts.0.gate_proj.weight"
    assert tuple(checkpoint.load_tensor(expert).shape) == (128, 128)
    assert tuple(checkpoint.load_tensor(expert + "_scale_inv").shape) == (1, 1)  # one whole block
    assert preset_geometry("tiny")["hidden_size"] == 64  # the preset itself is unchanged


def test_bad_overrides_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown geometry keys hidden"):
        write_checkpoint(tmp_path, "tiny", overrides={"hidden": 128})
    with pytest.raises(ValueError, match="positive integers: head_dim"):
        preset_geometry("tiny", {"head_dim": 0})
    assert set(WHOLE_BLOCKS) < set(GEOMETRY_KEYS)


def test_cli_set_overrides_a_size(tmp_path, capsys):
    assert main(["tiny", str(tmp_path / "cfg"), "--config-only", "--set", "hidden_size=96"]) == 0
    assert json.loads(capsys.readouterr().out)["overrides"] == {"hidden_size": 96}
    assert Drama3Config.from_file(tmp_path / "cfg").text.hidden_size == 96
    with pytest.raises(SystemExit) as exit_:
        main(["tiny", str(tmp_path / "bad"), "--set", "hidden_size"])
    assert exit_.value.code == 2
