"""The Qwen3.5-MoE backbone: row embedding, incremental decoding, main logits, and parity with
transformers' Qwen3_5MoeForCausalLM on the same tiny random checkpoint."""

from __future__ import annotations

import math

import pytest
import torch

from engine.backbone import Backbone
from engine.checkpoint import BACKBONE_PREFIX, Checkpoint
from engine.testing.checkpoints import write_checkpoint
from engine.testing.oracles import transformers_backbone


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Checkpoint:
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=3, with_codec=False)
    return Checkpoint(folder)


@pytest.fixture(scope="module")
def backbone(checkpoint) -> Backbone:
    return Backbone.from_checkpoint(checkpoint, "cpu", torch.float32)


def frame_rows(config, n_text: int, n_audio: int, seed: int = 0) -> torch.Tensor:
    """n_text text rows then n_audio semantic rows, as [N, 11] int64."""
    gen = torch.Generator().manual_seed(seed)
    rows = torch.zeros(n_text + n_audio, 11, dtype=torch.long)
    rows[:n_text, 0] = torch.randint(0, 500, (n_text,), generator=gen)
    codes = torch.randint(0, 4096, (n_audio, 10), generator=gen)
    rows[n_text:, 1:] = codes
    rows[n_text:, 0] = config.semantic_start_token_id + codes[:, 0]
    return rows


def test_embed_rows_follows_spec_formula(backbone, checkpoint):
    config = checkpoint.config
    rows = frame_rows(config, 2, 2)
    rows[3, 2] = 5000  # out of range: clamped to 4095
    table = checkpoint.load_tensor(f"{BACKBONE_PREFIX}embed_tokens.weight", dtype=torch.float32)
    codebooks = checkpoint.load_tensor(
        "audio_decoder.codebook_embeddings.weight", dtype=torch.float32
    )
    got = backbone.embed_rows(rows)
    assert torch.equal(got[0], table[rows[0, 0]])
    expected = (table[rows[2, 0]] + codebooks[4096 + rows[2, 2]]) / math.sqrt(2)
    assert torch.allclose(got[2], expected, atol=1e-6)
    assert torch.allclose(
        got[3], (table[rows[3, 0]] + codebooks[4096 + 4095]) / math.sqrt(2), atol=1e-6
    )
    others = rows.clone()
    others[:, 3:] = (others[:, 3:] + 1) % 4096  # codes 2..9 reach the tower, not the backbone input
    others[:2, 1:] = 7  # text rows ignore their code columns
    assert torch.equal(backbone.embed_rows(others), got)


@torch.inference_mode()
def test_prefill_then_decode_equals_full_forward(backbone):
    x = backbone.embed_rows(frame_rows(backbone.config, 30, 45, seed=1))
    full = backbone(x, backbone.new_cache())
    cache = backbone.new_cache(capacity=8)  # forces the KV storage to grow
    steps = [backbone(x[:67], cache)] + [backbone(x[i : i + 1], cache) for i in range(67, 75)]
    assert cache.length == 75
    assert torch.allclose(torch.cat(steps), full, atol=1e-4)


@torch.inference_mode()
def test_cache_clone_is_independent(backbone):
    x = backbone.embed_rows(frame_rows(backbone.config, 10, 10, seed=2))
    cache = backbone.new_cache()
    backbone(x[:18], cache)
    copy = cache.clone()
    first = backbone(x[18:19], cache)
    backbone(x[19:20], cache)
    again = backbone(x[18:19], copy)
    assert copy.length == 19 and cache.length == 20
    assert torch.allclose(first, again, atol=1e-6)


@torch.inference_mode()
def test_main_logits_columns_are_eos_band_then_extras(backbone, checkpoint):
    config = checkpoint.config
    hidden = backbone(backbone.embed_rows(frame_rows(config, 4, 0)), backbone.new_cache())
    head = checkpoint.load_tensor("lm_head.weight", dtype=torch.float32)
    extra = (7, 3)
    logits = backbone.main_logits(hidden, extra)
    ids = backbone.candidate_token_ids(extra)
    assert logits.shape == (4, 4097 + 2)
    assert ids[0] == config.eos_token_id and ids[1] == config.semantic_start_token_id
    assert ids[4096] == config.semantic_end_token_id and ids[-2:].tolist() == [7, 3]
    assert torch.allclose(logits, hidden @ head[ids].t(), atol=1e-5)


# ---- parity with transformers -------------------------------------------------------------


@torch.inference_mode()
def test_logits_match_transformers_for_prefill_and_decode(backbone, checkpoint):
    pytest.importorskip("transformers")
    model = transformers_backbone(checkpoint)
    x = backbone.embed_rows(frame_rows(checkpoint.config, 24, 56, seed=4))  # 80 rows
    ids = backbone.candidate_token_ids()

    ours = [backbone.main_logits(backbone(x[:64], cache := backbone.new_cache()))]
    ours += [backbone.main_logits(backbone(x[i : i + 1], cache)) for i in range(64, 80)]
    ours = torch.cat(ours)

    out = model(inputs_embeds=x[None, :64], use_cache=True)
    theirs, past = [out.logits[0]], out.past_key_values
    for i in range(64, 80):
        out = model(inputs_embeds=x[None, i : i + 1], past_key_values=past, use_cache=True)
        theirs.append(out.logits[0])
        past = out.past_key_values
    theirs = torch.cat(theirs)[:, ids]

    scale = theirs.abs().max()
    assert scale > 0.5  # logits are not degenerate
    assert (ours - theirs).abs().max() <= 1e-4 * scale
