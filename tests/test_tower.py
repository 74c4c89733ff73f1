"""The codebook-MTP tower (engine/tower.py) against docs/internals/model.md §3.4-3.5 and mlx-audio's port."""

import math

import mlx.core as mx
import numpy as np
import pytest
import torch
from mlx_audio.tts.models.fish_drama3.config import TowerConfig
from mlx_audio.tts.models.fish_drama3.convert import TOWER_NORMS, TOWER_PREFIXES
from mlx_audio.tts.models.fish_drama3.tower import Tower as MlxTower

from engine.checkpoint import interleave_query_and_gate
from engine.config import AudioDecoderConfig
from engine.tower import CHECKPOINT_PREFIXES, Tower

SEMANTIC_START = 50
CONFIG = {
    "dim": 64,
    "n_head": 4,
    "n_local_heads": 2,
    "head_dim": 32,
    "intermediate_size": 96,
    "vocab_size": 16,
    "num_codebooks": 4,
    "shared_enrichment_layers": 2,
    "vq_backbone_codebooks": 1,
    "norm_eps": 1e-6,
    "rope_base": 1e4,
    "rotary_percent": 0.25,
}


def geometry(config: dict) -> AudioDecoderConfig:
    """An `audio_decoder_config` with `config`'s sizes (n_layer, max_seq_len and the placement
    follow from them)."""
    return AudioDecoderConfig(
        **config,
        n_layer=config["shared_enrichment_layers"],
        max_seq_len=config["num_codebooks"] + 1,
        vq_feature_placement="backbone_partial",
    )


GEO = geometry(CONFIG)


def checkpoint_tensors(seed: int = 0) -> dict[str, torch.Tensor]:
    """Random tower tensors under their checkpoint names, wqkv in the file layout."""
    gen = torch.Generator().manual_seed(seed)
    to_file = {new: old for old, new in CHECKPOINT_PREFIXES.items()}
    out = {}
    for name, param in Tower(GEO, SEMANTIC_START).state_dict().items():
        if "embedding" in name:
            value = torch.randn(param.shape, generator=gen)
        elif name.endswith("norm.weight"):
            value = 0.3 * torch.randn(param.shape, generator=gen)
        else:
            value = torch.randn(param.shape, generator=gen) / math.sqrt(param.shape[-1])
        prefix = next(p for p in to_file if name.startswith(p))
        out[to_file[prefix] + name[len(prefix) :]] = value
    return out


def torch_tower(tensors: dict[str, torch.Tensor]) -> Tower:
    loaded = dict(tensors)
    for name, value in tensors.items():
        if name.endswith("wqkv.weight"):
            loaded[name] = interleave_query_and_gate(value, GEO.n_head, GEO.head_dim)
    tower = Tower(GEO, SEMANTIC_START)
    tower.load_checkpoint_tensors(loaded)
    return tower.eval()


def mlx_tower(tensors: dict[str, torch.Tensor]) -> MlxTower:
    """mlx-audio's tower with the same weights, renamed and shifted as its converter does."""
    tower = MlxTower(
        TowerConfig.from_dict(CONFIG), SEMANTIC_START, SEMANTIC_START + GEO.vocab_size - 1
    )
    weights = []
    for name, value in tensors.items():
        if name.startswith("audio_decoder_mtp.heads."):
            out = "codebook_heads." + name[len("audio_decoder_mtp.heads.") :]
        else:
            old = next(p for p in TOWER_PREFIXES if name.startswith(p))
            out = TOWER_PREFIXES[old].removeprefix("tower.") + name[len(old) :]
        array = mx.array(value.numpy())
        if TOWER_NORMS.search(out):
            array = array + 1.0
        weights.append((out, array))
    tower.load_weights(weights, strict=True)
    return tower


def random_rows(steps: int, seed: int, audio_from: int = 3) -> torch.Tensor:
    """Rows `[1, steps, 5]`: text rows first, then audio rows with random codes."""
    gen = torch.Generator().manual_seed(seed)
    rows = torch.zeros(1, steps, 1 + GEO.num_codebooks, dtype=torch.long)
    rows[0, :audio_from, 0] = torch.randint(0, SEMANTIC_START, (audio_from,), generator=gen)
    codes = torch.randint(0, GEO.vocab_size, (steps - audio_from, GEO.num_codebooks), generator=gen)
    rows[0, audio_from:, 1:] = codes
    rows[0, audio_from:, 0] = SEMANTIC_START + codes[:, 0]
    return rows


def teacher_logits(
    tower: Tower, hidden: torch.Tensor, rows: torch.Tensor, chunk: int
) -> torch.Tensor:
    cache, out = tower.new_cache(), []
    for begin in range(0, rows.shape[1] - 1, chunk):
        end = min(begin + chunk, rows.shape[1] - 1)
        out.append(
            tower.prefill(
                hidden[:, begin:end],
                rows[:, begin:end],
                rows[:, begin + 1 : end + 1],
                cache,
                with_logits=True,
            )
        )
    return torch.cat(out, dim=1)


def mlx_teacher_logits(tower: MlxTower, hidden: torch.Tensor, rows: torch.Tensor) -> np.ndarray:
    frames, next_frames = mx.array(rows[:, :-1].numpy()), mx.array(rows[:, 1:].numpy())
    caches, state = tower.make_cache(), mx.array(hidden[:, :-1].numpy())
    semantic = tower.is_semantic(next_frames[..., 0])
    state = tower._enrich(state, next_frames[..., 1], semantic, frames, caches)
    logits = []
    for index, (layer, head) in enumerate(zip(tower.residual_layers, tower.codebook_heads)):
        state = layer(
            state, next_frames[..., index + 1], semantic, caches[len(tower.shared_layers) + index]
        )
        logits.append(head(state))
    return np.array(mx.stack(logits, axis=-2))


@torch.no_grad()
def test_teacher_forced_head_logits_match_mlx_at_every_position():
    tensors = checkpoint_tensors()
    hidden = torch.randn(1, 24, GEO.dim, generator=torch.Generator().manual_seed(1))
    rows = random_rows(24, seed=2)
    ours = teacher_logits(torch_tower(tensors), hidden, rows, chunk=64).numpy()
    theirs = mlx_teacher_logits(mlx_tower(tensors), hidden, rows)
    assert ours.shape == (1, 23, GEO.residual_layers, GEO.vocab_size)
    assert np.abs(ours - theirs).max() < 1e-4
    assert np.abs(ours).max() > 0.1  # not trivially zero


@torch.no_grad()
def test_greedy_frames_match_mlx():
    tensors = checkpoint_tensors(seed=4)
    ours, theirs = torch_tower(tensors), mlx_tower(tensors)
    gen = torch.Generator().manual_seed(5)
    hidden = torch.randn(1, 16, GEO.dim, generator=gen)
    rows = random_rows(8, seed=6)
    cache, mlx_cache = ours.new_cache(), theirs.make_cache()
    ours.prefill(hidden[:, :7], rows[:, :7], rows[:, 1:8], cache)
    theirs.prefill(
        mx.array(hidden[:, :7].numpy()),
        mx.array(rows[:, :7].numpy()),
        mx.array(rows[:, 1:8].numpy()),
        mlx_cache,
    )
    row = rows[:, 7:8]
    for step in range(8):
        main = torch.tensor([SEMANTIC_START + (3 * step) % GEO.vocab_size])
        state = hidden[:, 7 + step : 8 + step]
        codes = ours.decode_frame(state, row, main, cache, lambda logits, i: logits.argmax(-1))
        c0 = mx.array((main - SEMANTIC_START).numpy())[:, None]
        expected = theirs.residual_codes(
            mx.array(state.numpy()),
            c0,
            mx.array([[True]]),
            mx.array(row.numpy()),
            mlx_cache,
            lambda logits: mx.argmax(logits[:, 0], axis=-1)[:, None],
        )
        expected = np.array(mx.concatenate(expected, axis=-1))[0]
        assert codes[0].tolist() == expected.tolist()
        row = torch.cat([main, codes[0]])[None, None]


@torch.no_grad()
def test_one_row_at_a_time_equals_one_pass():
    tower = torch_tower(checkpoint_tensors(seed=7))
    hidden = torch.randn(1, 33, GEO.dim, generator=torch.Generator().manual_seed(8))
    rows = random_rows(33, seed=9)
    full = teacher_logits(tower, hidden, rows, chunk=64)
    stepwise = teacher_logits(tower, hidden, rows, chunk=1)
    chunked = teacher_logits(tower, hidden, rows, chunk=5)
    assert torch.allclose(full, stepwise, atol=1e-5)
    assert torch.allclose(full, chunked, atol=1e-5)


@torch.no_grad()
def test_decode_frame_equals_teacher_forcing_with_the_sampled_codes():
    tower = torch_tower(checkpoint_tensors(seed=10))
    hidden = torch.randn(1, 12, GEO.dim, generator=torch.Generator().manual_seed(11))
    rows = random_rows(12, seed=12)
    cache = tower.new_cache()
    tower.prefill(hidden[:, :10], rows[:, :10], rows[:, 1:11], cache)
    seen = []

    def record(logits, index):
        seen.append(logits)
        return rows[0, 11, 2 + index].view(1)  # force the teacher code so the paths agree

    codes = tower.decode_frame(hidden[:, 10:11], rows[:, 10:11], rows[0, 11, :1], cache, record)
    assert codes[0].tolist() == rows[0, 11, 1:].tolist()
    reference = teacher_logits(tower, hidden[:, :12], rows, chunk=64)[0, 10]
    assert torch.allclose(torch.stack(seen, 1)[0], reference, atol=1e-5)


@torch.no_grad()
def test_extra_sum_uses_codes_past_the_backbone_of_audio_rows_only():
    tower = torch_tower(checkpoint_tensors(seed=13))
    hidden = torch.randn(1, 8, GEO.dim, generator=torch.Generator().manual_seed(14))
    rows = random_rows(8, seed=15, audio_from=4)
    cache = tower.new_cache()
    tower.prefill(hidden[:, :6], rows[:, :6], rows[:, 1:7], cache)

    def head_logits(row: torch.Tensor) -> torch.Tensor:
        seen = []
        tower.decode_frame(
            hidden[:, 6:7],
            row,
            rows[0, 7, :1],
            cache.clone(),
            lambda logits, i: seen.append(logits) or logits.argmax(-1),
        )
        return torch.stack(seen)

    def edited(column: int, text: bool = False) -> torch.Tensor:
        row = rows[:, 6:7].clone()
        row[0, 0, column] = (row[0, 0, column] + 1) % GEO.vocab_size
        if text:
            row[0, 0, 0] = 7
        return row

    base = head_logits(rows[:, 6:7])
    assert not torch.allclose(head_logits(edited(3)), base)  # code 2 enters shared layer 0
    assert torch.equal(
        head_logits(edited(2)), base
    )  # code 1 reaches the tower via the backbone only
    text_row = edited(3, text=True)
    assert torch.equal(
        head_logits(text_row),
        head_logits(torch.cat([text_row[..., :1], 0 * text_row[..., 1:]], -1)),
    )


def test_per_head_wqkv_interleaves_query_and_gate_rows():
    n_head, head_dim, kv = 2, 2, 4
    weight = torch.arange(2 * n_head * head_dim + 2 * kv, dtype=torch.float32)[:, None]
    out = interleave_query_and_gate(weight, n_head, head_dim)[:, 0].tolist()
    assert out == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]


def test_missing_tower_tensor_is_refused():
    tensors = checkpoint_tensors()
    tensors.pop("audio_decoder_mtp.heads.1.weight")
    with pytest.raises(RuntimeError, match="heads.1.weight"):
        Tower(GEO, SEMANTIC_START).load_checkpoint_tensors(tensors)


def test_geometry_reads_counts_from_the_config():
    geo = geometry({**CONFIG, "num_codebooks": 10, "shared_enrichment_layers": 4})
    tower = Tower(geo, SEMANTIC_START)
    assert (len(tower.shared_layers), len(tower.residual_layers), len(tower.heads)) == (4, 9, 9)
    assert geo.rotary_dim == 8
