"""The S2 codec on tiny random checkpoints: shapes, causality, streaming, clamping, loading."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine.codec.codec import Codec
from engine.codec.config import CodecConfig
from engine.codec.transformer import windowed_attention
from engine.codec.weight_norm import checkpoint_shapes
from engine.errors import AudioError, CheckpointError, EngineError
from engine.testing.codec import write_random_codec

KEY_TABLE = Path(__file__).resolve().parent / "data" / "codec-state-dict-keys.tsv"
HOP = 2048


@pytest.fixture(scope="module")
def codec_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("codec")
    write_random_codec(folder, "tiny", seed=3)
    return folder


@pytest.fixture(scope="module")
def codec(codec_dir) -> Codec:
    return Codec.load(codec_dir)


def noise(n: int, seed: int = 0) -> torch.Tensor:
    return 0.3 * torch.randn(n, generator=torch.Generator().manual_seed(seed))


# shapes and lengths (docs/internals/codec.md §2.1, §2.2)


@pytest.mark.parametrize("n", [1, 2047, 2048, 2049, 5 * HOP, 5 * HOP + 1000])
def test_code_and_audio_lengths_follow_the_padding_rule(codec, n):
    codes = codec.encode(noise(n))
    frames = math.ceil(n / HOP)
    assert codes.shape == (10, frames) and codes.dtype == torch.int64
    assert codec.frames_for(n) == frames
    assert int(codes[0].max()) < 4096 and int(codes[1:].max()) < 1024 and int(codes.min()) >= 0
    audio = codec.decode(codes)
    assert audio.shape == (frames * HOP,) and audio.dtype == torch.float32
    assert float(audio.abs().max()) < 1.0


def test_numpy_input_equals_tensor_input(codec):
    audio = noise(3 * HOP)
    assert torch.equal(codec.encode(audio.numpy()), codec.encode(audio))


def test_empty_clip_gives_no_frames(codec):
    assert codec.encode(np.zeros(0, dtype=np.float32)).shape == (10, 0)
    assert codec.decode(torch.zeros(10, 0, dtype=torch.long)).shape == (0,)


def test_codes_depend_on_the_audio(codec):
    assert not torch.equal(codec.encode(noise(4 * HOP, 1)), codec.encode(noise(4 * HOP, 2)))


# causality (docs/internals/codec.md §2.3)


def test_prefix_of_audio_encodes_to_prefix_of_codes(codec):
    audio = noise(40 * HOP + 555)
    full = codec.encode(audio)
    for frames in (1, 17, 33):
        assert torch.equal(codec.encode(audio[: frames * HOP]), full[:, :frames])


def test_prefix_of_codes_decodes_to_prefix_of_audio(codec):
    codes = codec.encode(noise(40 * HOP))
    full = codec.decode(codes)
    for frames in (1, 13, 39):
        torch.testing.assert_close(
            codec.decode(codes[:, :frames]), full[: frames * HOP], atol=1e-5, rtol=0
        )


@pytest.mark.parametrize("chunk_frames", [7, 40])
def test_long_clips_encode_in_chunks_like_one_pass(codec_dir, chunk_frames):
    chunked = Codec.load(codec_dir)
    chunked.encode_chunk_frames = chunk_frames
    audio = noise(100 * HOP - 123, 4)
    whole = Codec.load(codec_dir).encode(audio)
    codes = chunked.encode(audio)
    assert codes.shape == whole.shape == (10, 100)
    assert int((codes != whole).sum()) <= 5  # float rounding may flip a near-tie code
    assert torch.equal(chunked.encode(audio[: 50 * HOP]), codes[:, :50])


# streaming (docs/internals/codec.md §2.3)


@pytest.mark.parametrize("chunks", [[1] * 12, [3, 1, 8], [12], [5, 7]])
def test_stream_equals_one_shot_decode(codec, chunks):
    codes = torch.randint(0, 4096, (10, sum(chunks)), generator=torch.Generator().manual_seed(5))
    whole = codec.decode(codes)
    stream = codec.decode_stream()
    pieces, start = [], 0
    for size in chunks:
        piece = stream.push(codes[:, start : start + size])
        assert piece.shape == (size * HOP,)
        pieces.append(piece)
        start += size
    pieces.append(stream.flush())
    torch.testing.assert_close(torch.cat(pieces), whole, atol=2e-5, rtol=0)


def test_stream_past_the_attention_window_equals_one_shot(codec):
    frames = codec.config.quantizer_window + 40
    codes = codec.encode(noise(frames * HOP, 7))
    whole = codec.decode(codes)
    stream = codec.decode_stream()
    pieces = [stream.push(codes[:, i : i + 50]) for i in range(0, frames, 50)]
    torch.testing.assert_close(torch.cat(pieces), whole, atol=2e-5, rtol=0)


def test_push_after_flush_is_refused(codec):
    stream = codec.decode_stream()
    stream.push(torch.zeros(10, 2, dtype=torch.long))
    assert stream.flush().numel() == 0
    with pytest.raises(EngineError, match="flushed"):
        stream.push(torch.zeros(10, 1, dtype=torch.long))


# windowed attention


@pytest.mark.parametrize(
    "length,window,cached", [(10, 4, 0), (37, 8, 0), (9, 16, 0), (20, 6, 5), (3, 6, 5)]
)
def test_windowed_attention_equals_dense_masked_attention(length, window, cached):
    gen = torch.Generator().manual_seed(length)
    q = torch.randn(2, 3, length, 8, generator=gen)
    k = torch.randn(2, 3, length + cached, 8, generator=gen)
    v = torch.randn(2, 3, length + cached, 8, generator=gen)
    q_pos = torch.arange(cached, cached + length)[:, None]
    k_pos = torch.arange(length + cached)[None, :]
    mask = (k_pos <= q_pos) & (k_pos > q_pos - window)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(windowed_attention(q, k, v, window), expected, atol=1e-5, rtol=1e-5)


# decode input rules (docs/internals/codec.md §2.2)


def test_residual_codes_are_clamped_to_1023_and_semantic_to_4095(codec):
    codes = torch.randint(0, 1024, (10, 6), generator=torch.Generator().manual_seed(9))
    high = codes.clone()
    high[1:, 2] = 4000
    high[0, 3] = 9999
    clamped = codes.clone()
    clamped[1:, 2] = 1023
    clamped[0, 3] = 4095
    before = high.clone()
    assert torch.equal(codec.decode(high), codec.decode(clamped))
    assert torch.equal(high, before), "the caller's codes must not change"


def test_fewer_codebooks_decode(codec):
    assert codec.decode(torch.zeros(1, 3, dtype=torch.long)).shape == (3 * HOP,)


@pytest.mark.parametrize(
    "codes",
    [
        torch.zeros(11, 2, dtype=torch.long),
        torch.zeros(10, dtype=torch.long),
        torch.full((10, 2), -1),
        torch.zeros(10, 2),
    ],
)
def test_bad_codes_are_refused(codec, codes):
    with pytest.raises(EngineError):
        codec.decode(codes)


@pytest.mark.parametrize("audio", [torch.zeros(2, 100), torch.tensor([0.0, float("nan")])])
def test_bad_audio_is_refused(codec, audio):
    with pytest.raises(AudioError):
        codec.encode(audio)


# checkpoint layout and loading (docs/internals/codec.md §1.6, §1.7, §3.1)


def test_full_size_key_names_and_shapes_match_the_real_checkpoint():
    rows = [
        line.split("\t") for line in KEY_TABLE.read_text().splitlines() if not line.startswith("#")
    ]
    learnable = {
        key: tuple(ast.literal_eval(shape))
        for key, shape, _, note in rows
        if note.strip() == "learnable"
    }
    with torch.device("meta"):
        model = Codec(CodecConfig())
    assert len(rows) == 541 and len(learnable) == 535
    assert checkpoint_shapes(model) == learnable
    assert sum(math.prod(s) for s in learnable.values()) == 391_430_530


def test_random_checkpoint_has_real_styles_and_buffers(codec_dir):
    state = torch.load(codec_dir / "codec.pth", weights_only=True)
    assert "encoder.block.0.conv.parametrizations.weight.original1" in state
    assert "quantizer.quantizer.quantizers.8.in_proj.weight_g" in state
    assert sum(k.endswith((".freqs_cis", ".causal_mask")) for k in state) == 6
    assert len(state) == 415


def test_same_seed_same_weights_other_seed_other_weights(tmp_path):
    a = torch.load(write_random_codec(tmp_path / "a", "tiny", 1), weights_only=True)
    b = torch.load(write_random_codec(tmp_path / "b", "tiny", 1), weights_only=True)
    c = torch.load(write_random_codec(tmp_path / "c", "tiny", 2), weights_only=True)
    key = "decoder.model.0.conv.bias"
    assert torch.equal(a[key], b[key]) and not torch.equal(a[key], c[key])
    with pytest.raises(ValueError, match="preset"):
        write_random_codec(tmp_path / "d", "huge", 0)


def _rewrite(codec_dir: Path, target: Path, edit) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    state = torch.load(codec_dir / "codec.pth", weights_only=True)
    torch.save(edit(state), target / "codec.pth")
    (target / "codec_config.json").write_text((codec_dir / "codec_config.json").read_text())
    return target


def _legacy_style(state: dict) -> dict:
    renamed = {}
    for key, value in state.items():
        key = key.replace(".parametrizations.weight.original0", ".weight_g")
        renamed[key.replace(".parametrizations.weight.original1", ".weight_v")] = value
    return renamed


@pytest.mark.parametrize(
    "edit",
    [
        _legacy_style,
        lambda s: {"generator." + k: v for k, v in s.items()},
        lambda s: {"state_dict": s},
        lambda s: {k: v for k, v in s.items() if not k.endswith((".freqs_cis", ".causal_mask"))},
    ],
    ids=["legacy-weight-norm", "generator-prefix", "state-dict-wrapper", "no-buffers"],
)
def test_accepted_checkpoint_forms_load_the_same_weights(codec_dir, codec, tmp_path, edit):
    other = Codec.load(_rewrite(codec_dir, tmp_path, edit))
    codes = torch.randint(0, 1024, (10, 4), generator=torch.Generator().manual_seed(0))
    assert torch.equal(other.decode(codes), codec.decode(codes))


def test_missing_unexpected_and_misshapen_keys_are_all_listed(codec_dir, tmp_path):
    def edit(state):
        del state["decoder.model.0.conv.bias"]
        state["decoder.extra.weight"] = torch.zeros(1)
        state["quantizer.pre_module.norm.weight"] = torch.zeros(3)
        return state

    with pytest.raises(CheckpointError) as error:
        Codec.load(_rewrite(codec_dir, tmp_path, edit))
    message = str(error.value)
    assert "1 missing: decoder.model.0.conv.bias" in message
    assert "1 unexpected: decoder.extra.weight" in message
    assert "quantizer.pre_module.norm.weight (3,) (expected (64,))" in message


def test_shrunken_codec_without_its_config_is_refused(codec_dir, tmp_path):
    (tmp_path / "codec.pth").write_bytes((codec_dir / "codec.pth").read_bytes())
    with pytest.raises(CheckpointError, match="codec_config.json"):
        Codec.load(tmp_path / "codec.pth")


def test_missing_and_corrupt_files_are_checkpoint_errors(tmp_path):
    with pytest.raises(CheckpointError, match="not found"):
        Codec.load(tmp_path)
    (tmp_path / "codec.pth").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable"):
        Codec.load(tmp_path)


def test_bfloat16_codec_runs(codec_dir):
    codec = Codec.load(codec_dir, dtype=torch.bfloat16)
    codes = codec.encode(noise(2 * HOP))
    assert codes.shape == (10, 2)
    assert codec.decode(codes).dtype == torch.float32


def test_codec_loaded_under_inference_mode_works(codec_dir, codec):
    codes = torch.randint(0, 1024, (10, 3), generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        frozen = Codec.load(codec_dir)
        assert torch.equal(frozen.decode(codes), codec.decode(codes))
