"""Per-frame sampling cost on CPU: `engine.sampling` against mlx-audio's Drama 3 sampler.

One frame = the main token (two draws over 4,097 candidates: the request's and the RAS retry)
plus nine codebook draws over 4,096 logits each. Prints milliseconds per frame for both and the
ratio, measured in the same run. Also times the offline tokenizer: first build and cached load.

    OMP_NUM_THREADS=1 python bench/sampling_cpu.py [--frames 300]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import torch

from engine.sampling import (
    MainCandidates,
    SamplingParams,
    make_generator,
    ras_window,
    sample_codebook,
    sample_main,
)


def engine_ms_per_frame(main_logits, head_logits) -> float:
    params = SamplingParams()
    candidates = MainCandidates.build(248192, 252287, 248046)
    generator = make_generator(0)
    recent = ras_window(torch.full((16,), 248200))
    start = time.perf_counter()
    for main, heads in zip(main_logits, head_logits):
        sample_main(main, recent, params, generator, candidates)
        for head in heads:
            sample_codebook(head[None], params, generator)
    return (time.perf_counter() - start) * 1000 / len(main_logits)


def mlx_ms_per_frame(main_logits, head_logits) -> float | None:
    try:
        import mlx.core as mx
        from mlx_audio.tts.models.fish_drama3.drama3 import sample_top_k_top_p
    except ImportError:
        return None
    mains = [mx.array(m.numpy()[None]) for m in main_logits]
    heads = [[mx.array(h.numpy()[None]) for h in hs] for hs in head_logits]
    start = time.perf_counter()
    for main, frame_heads in zip(mains, heads):
        drawn = [
            sample_top_k_top_p(main, 1.0, None, 0.9, keep_crossing=True),
            sample_top_k_top_p(main, 1.0, 30, 0.95, keep_crossing=True),
        ]
        drawn += [sample_top_k_top_p(h, 1.0, 30, 0.9) for h in frame_heads]
        mx.eval(*drawn)
    return (time.perf_counter() - start) * 1000 / len(mains)


def tokenizer_seconds() -> tuple[float, float]:
    from engine.tokenizer import build_offline_tokenizer

    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        build_offline_tokenizer(cache)
        built = time.perf_counter() - start
        start = time.perf_counter()
        build_offline_tokenizer(cache)
        return built, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--skip-tokenizer", action="store_true")
    args = parser.parse_args()
    rng = torch.Generator().manual_seed(0)
    main_logits = [torch.randn(4097, generator=rng) * 3 for _ in range(args.frames)]
    head_logits = [torch.randn(9, 4096, generator=rng) * 3 for _ in range(args.frames)]
    engine_ms_per_frame(main_logits[:20], head_logits[:20])  # warm-up
    ours = engine_ms_per_frame(main_logits, head_logits)
    print(
        f"engine.sampling      {ours:7.3f} ms/frame ({1000 / ours:7.1f} frames/s of sampling alone)"
    )
    theirs = mlx_ms_per_frame(main_logits, head_logits)
    if theirs is None:
        print("mlx-audio not installed: no oracle timing")
    else:
        print(f"mlx-audio (mlx cpu)  {theirs:7.3f} ms/frame; engine / mlx = {ours / theirs:.2f}")
    if not args.skip_tokenizer:
        built, loaded = tokenizer_seconds()
        print(f"offline tokenizer    first build {built:.2f} s, cached load {loaded:.2f} s")


if __name__ == "__main__":
    main()
