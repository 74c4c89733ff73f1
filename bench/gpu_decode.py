"""Decode speed of the `full` preset (real Drama 3 shapes) on one GPU, batch 1.

    python bench/gpu_decode.py                      # on an H200: full preset, CUDA, bf16
    python bench/gpu_decode.py --preset tiny --device cpu --frames 8 --prompt-rows 120

Random weights in the real layout are made directly on the device (routed experts block-FP8 with
fp32 scales, everything else bf16), which takes seconds instead of writing and reading ~36 GB.
A clone prompt with a reference clip sized to `--prompt-rows` rows is prefilled from scratch
(prefix cache cleared), then `--frames` frames are decoded with EOS masked so the count is exact.
On CUDA the frames are decoded by the decode loop in graph mode (the step captured per padded
batch size, `engine.graphs`; `--no-graph`: the same step run eagerly). Prints time to first frame (prefill + first frame), time to the first 8 frames
(first audio chunk; goal < 80 ms), decode frames/s and the ratios against the anchors: 271 frames/s
(Fish's engine), 166.7 frames/s (SGLang-Omni, model card); goal >= 300; kernels per frame from
torch.profiler and GPU memory. On CUDA it also times the routed experts of layer 0 for one
256-row prefill chunk through the grouped FP8 kernels (`engine.kernels.fp8_grouped`) against
the dequantise-the-selected-experts path, with their largest difference. `--batch 1,8,32,64`
then voices that many streams of the same prompt together through the engine's batch
(`engine.batch`) and prints the aggregate frames/s and the real-time factor per stream (goal:
RTF ≤ 0.4 at 64 streams, twice SGLang-Omni's aggregate at RTF 0.801).
One script, meant to finish well under 8 minutes including set-up.
"""

from __future__ import annotations

import argparse
import time
import zlib

import numpy as np
import torch

from engine.checkpoint import expected_tensors, is_routed_expert
from engine.clip import AudioClip
from engine.config import Drama3Config
from engine.conversation import Conversation, Reference
from engine.generate import Drama3
from engine.sampling import SamplingParams
from engine.testing.checkpoints import FP8_MAX, preset_config_dict, preset_tokenizer
from engine.tokenizer import Drama3Tokenizer

ANCHORS = {"Fish's engine": 271.0, "SGLang-Omni (model card)": 166.7}
GOAL_FRAMES_PER_S = 300.0
GOAL_FIRST_AUDIO_MS = 80.0
GOAL_RTF_AT_64 = 0.4  # per stream with 64 streams: twice SGLang-Omni's aggregate (RTF 0.801)
FIRST_AUDIO_FRAMES = 8  # the first chunk the streaming codec decoder turns into audio
LINE = "<|speaker:0|> The harbour lights came on one by one, and still nobody spoke a word."


class RandomCheckpoint:
    """A checkpoint whose tensors are drawn on demand on the device, with the names, shapes and
    dtypes `engine.checkpoint.expected_tensors` gives for the config (the loader's interface)."""

    def __init__(self, config: Drama3Config, device: torch.device, seed: int = 0):
        self.config, self.device, self.seed = config, device, seed
        self.specs = expected_tensors(config)

    def names(self) -> list[str]:
        return list(self.specs)

    def close(self) -> None:
        """Nothing to release (the loader's interface)."""

    def _generator(self, name: str) -> torch.Generator:
        return torch.Generator(self.device).manual_seed(self.seed * 1_000_003 + zlib.crc32(name.encode()))

    def load_tensor(self, name: str, device=None, dtype: torch.dtype | None = None) -> torch.Tensor:
        spec, gen = self.specs[name], self._generator(name.removesuffix("_scale_inv"))
        if is_routed_expert(name):
            weight, scale = self._fp8_expert(name, gen)
            return scale if name.endswith("weight_scale_inv") else weight
        value = _random_by_role(name, spec.shape, gen, self.device)
        return value.to(dtype or spec.dtypes[0])

    def tensors(self, prefix: str, device=None, dtype: torch.dtype | None = None) -> dict[str, torch.Tensor]:
        return {n[len(prefix):]: self.load_tensor(n, device, dtype) for n in self.specs if n.startswith(prefix)}

    def load_rows(self, name: str, rows: list[int], device=None, dtype: torch.dtype | None = None) -> torch.Tensor:
        cols = self.specs[name].shape[1]
        value = torch.randn(len(rows), cols, generator=self._generator(name), device=self.device) * cols ** -0.5
        return value.to(dtype or torch.bfloat16)

    def _fp8_expert(self, name: str, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        text, block = self.config.text, self.config.weight_block_size
        rows, cols = ((text.hidden_size, text.moe_intermediate_size) if ".down_proj." in name
                      else (text.moe_intermediate_size, text.hidden_size))
        weight = torch.randn(rows, cols, generator=gen, device=self.device) * cols ** -0.5
        grid = (-(-rows // block[0]), -(-cols // block[1]))
        padded = torch.zeros(grid[0] * block[0], grid[1] * block[1], device=self.device)
        padded[:rows, :cols] = weight
        blocks = padded.view(grid[0], block[0], grid[1], block[1])
        scale = blocks.abs().amax(dim=(1, 3)).clamp_min(1e-12) / FP8_MAX
        quantized = (blocks / scale[:, None, :, None]).view(padded.shape)[:rows, :cols]
        return quantized.to(torch.float8_e4m3fn).contiguous(), scale.float()


def _random_by_role(name: str, shape, gen: torch.Generator, device: torch.device) -> torch.Tensor:
    """Values that keep activations O(1): the same roles as `engine.testing.checkpoints.random_tensor`."""
    normal = torch.randn(shape, generator=gen, device=device)
    if name.endswith("linear_attn.norm.weight"):
        return 1.0 + 0.1 * normal
    if name.endswith("norm.weight"):
        return 0.1 * normal
    if name.endswith("A_log"):
        return torch.empty(shape, device=device).uniform_(1.0, 16.0, generator=gen).log()
    if name.endswith("dt_bias"):
        return 0.5 * normal
    if "embed" in name:
        return normal
    return normal * shape[-1] ** -0.5


def prompt_of_rows(model: Drama3, rows: int) -> Conversation:
    """A clone conversation whose prompt has exactly `rows` rows (reference clip sized to fit)."""
    def build(frames: int) -> Conversation:
        rng = np.random.default_rng(0)
        codes = np.concatenate([rng.integers(0, 4096, (1, frames)), rng.integers(0, 1024, (9, frames))])
        reference = Reference(0, "A reference sentence spoken slowly.", AudioClip(codes=codes.astype(np.int64)))
        return Conversation(layout="clone", references=(reference,), text=LINE)

    frames = 8
    frames += rows - len(model.build_prompt(build(frames)).rows)
    if frames < 1:
        raise SystemExit(f"--prompt-rows {rows} is shorter than the prompt's text rows")
    return build(frames)


def kernels_per_frame(model: Drama3, convo: Conversation, params: SamplingParams) -> float:
    """GPU kernels per decoded frame seen by torch.profiler (CUDA activity; inside a replayed
    CUDA graph too): a 24-frame take minus an 8-frame take, over 16 (the prefix cache keeps the
    prefill of both the same)."""
    from torch.profiler import ProfilerActivity, profile

    counts = {}
    for frames in (8, 24):
        model.generate(convo, params, seed=3, max_frames=frames, ignore_eos=True)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            model.generate(convo, params, seed=3, max_frames=frames, ignore_eos=True)
            torch.cuda.synchronize()
        counts[frames] = sum(1 for e in prof.events() if e.device_type.name == "CUDA"
                             and "memcpy" not in e.name.lower() and "memset" not in e.name.lower())
    return (counts[24] - counts[8]) / 16


PREFILL_CHUNK_ROWS = 256


def prefill_experts(model: Drama3, rows: int = PREFILL_CHUNK_ROWS, repeats: int = 10) -> str:
    """Layer 0's routed experts for `rows` random rows: ms per call through the grouped FP8
    kernels and through the dequantising torch path, and their max |difference| against the
    largest output magnitude."""
    moe = model.backbone.layers[0].moe
    x = torch.randn(rows, moe.router.shape[1], device=model.device, generator=torch.Generator(model.device)
                    .manual_seed(5)).to(model.dtype)
    weights, ids = moe.route(x)

    def timed(path) -> tuple[torch.Tensor, float]:
        out = path(x, weights, ids)  # warm-up: autotuning, allocator
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(repeats):
            path(x, weights, ids)
        torch.cuda.synchronize()
        return out, (time.perf_counter() - start) * 1000 / repeats

    grouped, grouped_ms = timed(moe._grouped_rows)
    dequantised, dequantised_ms = timed(moe._many_rows)
    error = (grouped.float() - dequantised.float()).abs().max().item()
    return (f"prefill routed experts, layer 0, {rows} rows: grouped FP8 kernels {grouped_ms:.2f} ms, "
            f"dequantising path {dequantised_ms:.2f} ms; max difference {error:.3g} "
            f"(outputs up to {dequantised.float().abs().max().item():.3g})")


def batch_rates(model: Drama3, convo: Conversation, frames: int, sizes: list[int], compiled: bool) -> None:
    """For each size B: B streams of `convo` (seeds of their own, EOS masked, `frames` frames
    each) through the engine's batch (`engine.batch.EngineBatch`, counter-based draws, each
    step compiled per padded size when `compiled`); prints the aggregate frames/s over the
    wall time (prefills included: the reference block comes from the prefix cache) and the
    real-time factor per stream (wall seconds over its audio's seconds)."""
    from engine.batch import EngineBatch
    from engine.constants import FRAMES_PER_SECOND

    cuda = model.device.type == "cuda"
    for size in sizes:
        batch = EngineBatch(model, size)
        if compiled:
            batch.compile(fullgraph=False)
        for seed in range(size):  # warm-up: compiles this size, fills the prefix cache
            batch.submit(model.request(convo, SamplingParams(), seed, max_frames=4, ignore_eos=True))
        list(batch.run())
        if cuda:
            torch.cuda.synchronize()
        started = time.perf_counter()
        for seed in range(size):
            batch.submit(model.request(convo, SamplingParams(), 100 + seed, max_frames=frames, ignore_eos=True))
        decoded = sum(done.generation.frames for done in batch.run())
        if cuda:
            torch.cuda.synchronize()
        wall = time.perf_counter() - started
        rtf = wall / (frames / FRAMES_PER_SECOND)
        print(f"batch {size:3d}: {decoded} frames in {wall:.2f} s, aggregate {decoded / wall:.1f} frames/s, "
              f"RTF per stream {rtf:.3f} (goal at 64 streams: <= {GOAL_RTF_AT_64})")


def build_model(preset: str, device: torch.device, dtype: torch.dtype) -> Drama3:
    tokenizer = preset_tokenizer(preset)
    config = Drama3Config.from_dict(preset_config_dict(preset, tokenizer))
    return Drama3.from_checkpoint(RandomCheckpoint(config, device), Drama3Tokenizer(tokenizer), device, dtype)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="full", choices=("tiny", "small", "full"))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--prompt-rows", type=int, default=500)
    parser.add_argument("--frames", type=int, default=256)
    parser.add_argument("--split", action="store_true", help="also run once with the phase split (syncs)")
    parser.add_argument("--compile", action="store_true", help="torch.compile the one-row decode steps")
    parser.add_argument("--no-graph", action="store_true",
                        help="run the decode step eagerly instead of replaying its captured graphs")
    parser.add_argument("--batch", default="",
                        help="batch sizes for the engine's batch of streams, e.g. 1,8,32,64 (aggregate frames/s, "
                             "RTF per stream)")
    parser.add_argument("--batch-compile", action="store_true",
                        help="torch.compile the batched step (one graph per padded size)")
    args = parser.parse_args()
    device = torch.device(args.device)
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    started = time.perf_counter()
    model = build_model(args.preset, device, dtype)
    convo = prompt_of_rows(model, args.prompt_rows)
    if args.compile:
        model.compile_decode()
    mode = "eager" if args.no_graph or device.type != "cuda" else "graph"
    model.set_decode_mode(mode)
    print(f"set-up: {time.perf_counter() - started:.1f} s ({args.preset} preset on {device}, {dtype}, "
          f"decode mode {mode})")
    if device.type == "cuda":
        print(f"GPU memory after load: {torch.cuda.memory_allocated() / 2**30:.1f} GiB")

    params = SamplingParams()
    warm = time.perf_counter()
    # warm-up: kernels, allocator, and in graph mode the compile and capture of this shape
    model.generate(convo, params, seed=0, max_frames=args.frames, ignore_eos=True)
    print(f"warm-up take (compile and capture in graph mode): {time.perf_counter() - warm:.1f} s")
    model.clear_prefix_cache()
    take = model.generate(convo, params, seed=1, max_frames=args.frames, ignore_eos=True)
    times = take.frame_times_s
    decode_rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else float("nan")
    print(f"prompt {take.prompt_rows} rows, {take.frames} frames decoded at batch 1")
    print(f"time to first frame: {times[0] * 1000:.1f} ms (prefill from scratch + first frame)")
    print(f"decode: {decode_rate:.1f} frames/s ({1000 / decode_rate:.2f} ms per frame); "
          f"overall {take.frames / times[-1]:.1f} frames/s")
    for name, anchor in ANCHORS.items():
        print(f"  vs {name} {anchor} frames/s: {decode_rate / anchor:.2f}x")
    print(f"  goal {GOAL_FRAMES_PER_S:.0f} frames/s: {'met' if decode_rate >= GOAL_FRAMES_PER_S else 'not met'}")
    if len(times) >= FIRST_AUDIO_FRAMES:
        first_audio = times[FIRST_AUDIO_FRAMES - 1] * 1000
        print(f"time to first audio ({FIRST_AUDIO_FRAMES} frames, prefill from scratch): {first_audio:.1f} ms "
              f"(goal < {GOAL_FIRST_AUDIO_MS:.0f} ms: {'met' if first_audio < GOAL_FIRST_AUDIO_MS else 'not met'})")
    if device.type == "cuda":
        print(f"kernels per frame (torch.profiler): {kernels_per_frame(model, convo, params):.0f}")
        print(prefill_experts(model))
        print(f"GPU memory: {torch.cuda.memory_allocated() / 2**30:.1f} GiB now, "
              f"{torch.cuda.max_memory_allocated() / 2**30:.1f} GiB peak")
    if args.batch:
        batch_rates(model, convo, args.frames, [int(size) for size in args.batch.split(",")], args.batch_compile)
    if args.split:
        timed = model.generate(convo, params, seed=2, max_frames=min(args.frames, 64), ignore_eos=True, timed=True)
        decode = {k: v for k, v in timed.phase_s.items() if k != "prefill"}
        total = sum(decode.values()) or 1.0
        print("decode split (synchronised): " + ", ".join(
            f"{k} {1000 * v / timed.frames:.2f} ms/frame ({100 * v / total:.0f} %)"
            for k, v in sorted(decode.items())))
    print(f"total wall time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
