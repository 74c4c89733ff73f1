"""Parity with mlx-audio's Drama 3 port (mlx-audio 0.6.2 on mlx[cpu]), the independent check of
backbone + tower + frame embedding + decode loop.

One tiny random checkpoint is written with `engine.testing.checkpoints`, converted with mlx-audio's own
converter, and both models run on the same prompt rows: teacher-forced main-token logits at every
position and every codebook head's logits at every position, then 8 greedily decoded frames.
mlx-audio's converter dequantizes FP8 experts in whole 128x128 blocks only, so the tiny preset's
hidden size and expert widths are raised to 128 for this test (every other size stays tiny).
"""

import json

import numpy as np
import pytest
import torch

mx = pytest.importorskip("mlx.core")

from mlx_audio.tts.models.fish_drama3 import Model, ModelConfig
from mlx_audio.tts.models.fish_drama3 import drama3 as mlx_drama3
from mlx_audio.tts.models.fish_drama3.convert import convert

from engine.clip import AudioClip
from engine.conversation import Conversation, Reference
from engine.generate import Drama3
from engine.sampling import SamplingParams
from engine.testing.checkpoints import round_block_scales, write_checkpoint

# Max abs logit error, both sides in float32 (logits are O(5)); measured 4e-5 (main) and 3e-4
# (heads, 13 layers deep). A wrong formula shows up as errors of order 1.
MAIN_ATOL = 5e-4
HEAD_ATOL = 2e-3


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parity")
    # Experts of whole 128x128 FP8 blocks, the only shape mlx-audio's converter dequantises.
    whole_blocks = {
        "hidden_size": 128,
        "moe_intermediate_size": 128,
        "shared_expert_intermediate_size": 128,
    }
    write_checkpoint(folder / "src", "tiny", seed=0, overrides=whole_blocks)
    round_block_scales(folder / "src")
    convert(folder / "src", folder / "mlx", codec=False)
    oracle = Model(ModelConfig.from_dict(json.loads((folder / "mlx" / "config.json").read_text())))
    weights = {}
    for shard in (folder / "mlx").glob("*.safetensors"):
        weights.update(mx.load(str(shard)))
    oracle.load_weights(list(weights.items()), strict=True)
    oracle.set_dtype(mx.float32)
    return Drama3.load(folder / "src", device="cpu", dtype=torch.float32), oracle


def conversation() -> Conversation:
    rng = np.random.default_rng(0)
    codes = np.concatenate([rng.integers(0, 4096, (1, 16)), rng.integers(0, 1024, (9, 16))])
    reference = Reference(0, "A short reference.", AudioClip(codes=codes.astype(np.int64)))
    return Conversation(layout="clone", references=(reference,), text="<|speaker:0|> Hello there.")


def teacher_rows(model: Drama3) -> tuple[torch.Tensor, int]:
    """Prompt rows plus 12 audio rows of random codes (teacher-forced continuation)."""
    prompt = model.build_prompt(conversation())
    gen = torch.Generator().manual_seed(1)
    codes = torch.randint(0, 1024, (12, 10), generator=gen)
    audio = torch.cat((model.semantic_start + codes[:, :1], codes), dim=1)
    return torch.cat((torch.as_tensor(prompt.rows), audio)), len(prompt.rows)


def oracle_head_logits(oracle, hidden, rows: np.ndarray) -> np.ndarray:
    """mlx-audio's tower over rows with teacher forcing: head logits [T-1, 9, 4096]."""
    tower, caches = oracle.tower, oracle.tower.make_cache()
    frames, labels = mx.array(rows[None, :-1]), mx.array(rows[None, 1:])
    semantic = tower.is_semantic(labels[..., 0])
    state = tower._enrich(hidden[:, :-1], labels[..., 1], semantic, frames, caches)
    logits = []
    for index, (layer, head) in enumerate(zip(tower.residual_layers, tower.codebook_heads)):
        state = layer(
            state, labels[..., index + 1], semantic, caches[len(tower.shared_layers) + index]
        )
        logits.append(head(state))
    return np.array(mx.stack(logits, axis=-2))[0]


@torch.no_grad()
def test_teacher_forced_logits_match_at_every_position(models):
    model, oracle = models
    rows, prompt_rows = teacher_rows(model)
    hidden = model.backbone(model.backbone.embed_rows(rows), model.backbone.new_cache())
    ours_main = model.backbone.main_logits(hidden).numpy()
    ours_heads = model.tower.prefill(
        hidden[None, :-1],
        rows[None, :-1],
        rows[None, 1:],
        model.tower.new_cache(),
        with_logits=True,
    )[0].numpy()

    rows_mx = rows.numpy().astype(np.int32)
    oracle_hidden = oracle.backbone.model(
        None,
        cache=oracle.backbone.make_cache(),
        input_embeddings=oracle._embed(mx.array(rows_mx[None])),
    )
    band_then_eos = np.array(oracle.semantic_head(oracle_hidden))[0]
    theirs_main = np.concatenate((band_then_eos[:, -1:], band_then_eos[:, :-1]), axis=1)
    theirs_heads = oracle_head_logits(oracle, oracle_hidden, rows_mx)

    assert ours_main.shape == (rows.shape[0], 4097)
    assert np.abs(ours_main - theirs_main).max() < MAIN_ATOL
    audio = np.arange(prompt_rows - 1, rows.shape[0] - 1)  # positions whose next row is audio
    assert ours_heads.shape == (rows.shape[0] - 1, 9, 4096)
    error = np.abs(ours_heads - theirs_heads)
    assert error[audio].max() < HEAD_ATOL
    assert error.max() < HEAD_ATOL
    assert np.abs(theirs_heads).max() > 1.0  # the comparison is not between near-zero values


def test_greedy_decode_gives_identical_codes(models, monkeypatch):
    model, oracle = models
    prompt = model.build_prompt(conversation())
    model.clear_prefix_cache()
    ours = model.generate(
        conversation(), SamplingParams(temperature=0.0, ras_top_k=1), seed=0, max_frames=8
    )
    # The RAS retry draw becomes greedy too, so repetitions cannot make the two diverge.
    monkeypatch.setattr(mlx_drama3, "RAS_TOP_K", 1)
    frames = oracle._frames(
        mx.array(prompt.rows.astype(np.int32)),
        prompt.system_rows,
        mlx_drama3._Voice([]),
        8,
        0.0,
        None,
        0.9,
    )
    theirs = np.stack([np.array(frame) for frame in frames], axis=1)
    assert ours.codes.shape[1] == theirs.shape[1] == 8
    assert ours.codes.numpy().tolist() == theirs.tolist()
