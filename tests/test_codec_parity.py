"""Parity with the upstream codec (fish-speech 0.1.0), same random weights (docs/internals/codec.md §4).

Shrunken configs that keep hop 2048 and the 1 + 9 codebook layout; signals longer than the
128-frame quantizer window. Full-size parity is measured by `bench/codec_cpu.py`.
"""

from __future__ import annotations

import pytest
import torch

from engine.codec.codec import ENCODE_CHUNK_FRAMES, Codec
from engine.codec.config import CodecConfig, small_config, tiny_config
from engine.testing import codec_upstream as upstream
from engine.testing.codec import write_random_codec

if not upstream.available():
    pytest.skip(
        "fish-speech 0.1.0 / descript-audio-codec not installed (tests/oracles-no-deps.txt)",
        allow_module_level=True,
    )

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]

FRAMES = 150  # > 128, the quantizer window
MAX_FLIP_RATE = 0.005  # near-tie code flips allowed, as a fraction of all codes


def build_pair(folder, preset: str, config: CodecConfig, seed: int):
    path = write_random_codec(folder, preset, seed)
    oracle = upstream.build(config, encoder_positions=1024, quantizer_positions=512)
    upstream.load_weights(oracle, torch.load(path, weights_only=True))
    return Codec.load(path), oracle


@pytest.fixture(scope="module", params=[("tiny", tiny_config), ("small", small_config)])
def pair(request, tmp_path_factory):
    preset, make_config = request.param
    return build_pair(tmp_path_factory.mktemp(preset), preset, make_config(), seed=11)


def speechlike(frames: int, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    n = frames * 2048 - 300  # not a whole number of frames
    t = torch.arange(n) / 44_100
    tone = 0.3 * torch.sin(2 * torch.pi * (150 + 80 * torch.sin(2 * torch.pi * 0.7 * t)) * t)
    return tone + 0.05 * torch.randn(n, generator=gen)


def test_codes_match_upstream(pair):
    codec, oracle = pair
    audio = speechlike(FRAMES, seed=1)
    ours = codec.encode(audio)
    with torch.inference_mode():
        theirs, lengths = oracle.encode(audio[None, None])
    assert theirs.shape == (1, 10, FRAMES) and int(lengths[0]) == FRAMES
    flips = int((ours != theirs[0]).sum())
    assert flips <= MAX_FLIP_RATE * ours.numel(), f"{flips} of {ours.numel()} codes differ"


def test_decoded_audio_matches_upstream(pair):
    codec, oracle = pair
    codes = codec.encode(speechlike(FRAMES, seed=2))
    ours = codec.decode(codes)
    with torch.inference_mode():
        theirs, lengths = oracle.decode(codes[None], torch.tensor([FRAMES]))
    assert theirs.shape == (1, 1, FRAMES * 2048) and int(lengths[0]) == FRAMES * 2048
    torch.testing.assert_close(ours, theirs[0, 0], atol=1e-5, rtol=0)


def test_streamed_audio_matches_upstream(pair):
    codec, oracle = pair
    codes = torch.randint(0, 4096, (10, FRAMES), generator=torch.Generator().manual_seed(3))
    stream = codec.decode_stream()
    ours = torch.cat([stream.push(codes[:, i : i + 37]) for i in range(0, FRAMES, 37)])
    with torch.inference_mode():
        theirs, _ = oracle.decode(codes[None], torch.tensor([FRAMES]))  # upstream clamps too
    torch.testing.assert_close(ours, theirs[0, 0], atol=2e-5, rtol=0)


def test_chunked_encode_matches_upstream(pair):
    codec, oracle = pair
    audio = speechlike(FRAMES, seed=4)
    codec.encode_chunk_frames = 48  # chunks of 48 frames, as a long reference would use
    try:
        ours = codec.encode(audio)
    finally:
        codec.encode_chunk_frames = ENCODE_CHUNK_FRAMES
    with torch.inference_mode():
        theirs, _ = oracle.encode(audio[None, None])
    flips = int((ours != theirs[0]).sum())
    assert flips <= MAX_FLIP_RATE * ours.numel(), f"{flips} of {ours.numel()} codes differ"
