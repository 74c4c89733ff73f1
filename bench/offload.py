"""Expert offload: hit rate, bytes copied per frame and frames per second under device budgets.

    python bench/offload.py [--preset small] [--frames 48]              # CPU, simulated budgets
    python bench/offload.py --device cuda --model DIR --gpu-memory 24GB  # a GPU, a real budget

CPU (one thread; seconds are the process's CPU time, so other work on the machine does not
count): writes a random checkpoint of the preset (seed 0), then decodes the same take with every
routed expert resident and with caches of 100 %, 50 % and 25 % of each layer's experts (at
least the experts of one token), for the LRU and LFU policies. The "device" pool is a separate
CPU tensor pool, so the figures measure the slot bookkeeping and copies, not PCIe. Random
weights route close to uniformly, which is the worst case for any cache: a real model's
routing is skewed and repeats from frame to frame.

CUDA: loads `--model` (e.g. a full random checkpoint from `python -m engine.testing full DIR
--device cuda`) with the budget `--gpu-memory`, and, when it fits, with every expert resident;
prints frames per second, copied MB/s and the ratio to full residency.

Per row: policy, share of experts cached, slots per layer, hit rate, MB copied per decoded
frame and per second, frames per second of decode (the prefill left out: the difference of a
take of N and one of N/4 frames), the ratio to full residency, and whether the codes equal
full residency's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import fields
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.conversation import Conversation  # noqa: E402
from engine.generate import Drama3  # noqa: E402
from engine.offload.cache import POLICIES, CacheCounters  # noqa: E402
from engine.offload.offload import OffloadSettings  # noqa: E402
from engine.offload.sizes import parse_size  # noqa: E402
from engine.sampling import SamplingParams  # noqa: E402
from engine.testing.checkpoints import write_checkpoint  # noqa: E402

LINE = "<|speaker:0|> Hi there, how are you? This is a longer line to give the decoder some room."
SHARES = (1.0, 0.5, 0.25)
CLOCK = {"cpu": time.process_time, "cuda": time.perf_counter}  # CPU: one thread's CPU seconds


def take(model: Drama3, frames: int) -> dict:
    """One take of `frames` frames with fresh counters: seconds, codes and the cache's counts."""
    if model.offload is not None:
        model.offload.reset_counters()
    clock = CLOCK[model.device.type]
    start = clock()
    result = model.generate(
        Conversation(layout="clone", text=LINE),
        SamplingParams(),
        seed=3,
        max_frames=frames,
        ignore_eos=True,
    )
    seconds = clock() - start
    return {
        "seconds": seconds,
        "codes": result.codes,
        "frames": result.frames,
        "counts": model.offload.counters() if model.offload is not None else CacheCounters(),
    }


def decode(model: Drama3, frames: int) -> dict:
    """Decode cost per frame: a warm-up take (prefill, prefix cache, expert cache filled), then
    takes of `frames` // 4 and `frames` frames; their difference leaves out the prefill. Returns
    frames per second, counts over the extra frames, the long take's codes."""
    take(model, 2)
    short, long = take(model, max(1, frames // 4)), take(model, frames)
    extra = long["frames"] - short["frames"]
    counts = CacheCounters(
        *(
            getattr(long["counts"], f.name) - getattr(short["counts"], f.name)
            for f in fields(CacheCounters)
        )
    )
    return {
        "fps": extra / (long["seconds"] - short["seconds"]),
        "seconds": long["seconds"] - short["seconds"],
        "frames": extra,
        "counts": counts if model.offload is not None else None,
        "codes": long["codes"],
    }


def row(label: str, slots: int, experts: int, run: dict, full: dict | None) -> str:
    counts = run["counts"]
    hit = f"{counts.hit_rate:6.1%}" if counts else "   –  "
    copied = counts.bytes_copied / run["frames"] / 1e6 if counts else 0.0
    rate = counts.bytes_copied / run["seconds"] / 1e6 if counts else 0.0
    ratio = f"{run['fps'] / full['fps']:.2f}" if full else "–"
    same = "yes" if full is None or torch.equal(run["codes"], full["codes"]) else "NO"
    return (
        f"{label:<14} {slots:>4}/{experts:<4} {hit}  {copied:9.2f} MB  {rate:9.2f} MB/s  "
        f"{run['fps']:7.2f} fps  x{ratio:<5} {same}"
    )


def cpu(preset: str, frames: int, prefetch: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        write_checkpoint(folder, preset, seed=0, with_codec=False)
        full_model = Drama3.load(folder, device="cpu")
        text = full_model.config.text
        experts, top_k = text.num_experts, text.num_experts_per_tok
        full = decode(full_model, frames)
        del full_model
        print(
            f"{preset} preset on the CPU, {frames} frames, {experts} experts per layer, {top_k} per token; "
            "random weights route about uniformly (the worst case)"
        )
        print(
            f"{'config':<14} {'slots':>9} {'hits':>6}  {'copied/frame':>12}  {'copy rate':>14}  "
            f"{'decode':>11}  ratio  same codes"
        )
        print(row("all resident", experts, experts, full, None))
        for policy in POLICIES:
            for share in SHARES:
                slots = max(top_k, round(experts * share))
                model = Drama3.load(
                    folder, device="cpu", offload=OffloadSettings(slots, policy, prefetch)
                )
                print(row(f"{policy} {share:.0%}", slots, experts, decode(model, frames), full))
                del model


def cuda(folder: str, budget: str, frames: int) -> None:
    limited = Drama3.load(folder, device="cuda", gpu_memory=parse_size(budget))
    experts = limited.config.text.num_experts
    run = decode(limited, frames)
    slots = limited.offload.slots if limited.offload is not None else experts
    del limited
    torch.cuda.empty_cache()
    try:
        full = decode(Drama3.load(folder, device="cuda"), frames)
    except Exception as err:  # the model may not fit without offload: report the budget run alone
        print(f"full residency: {type(err).__name__}: {str(err).splitlines()[0]}")
        full = None
    print(f"{folder} on {torch.cuda.get_device_name()}, --gpu-memory {budget}, {frames} frames")
    if full is not None:
        print(row("all resident", experts, experts, full, None))
    print(row(f"budget {budget}", slots, experts, run, full))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="small", choices=("tiny", "small"))
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument(
        "--prefetch", action="store_true", help="predict and prefetch the next layer's experts"
    )
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--model", help="model folder for --device cuda")
    parser.add_argument("--gpu-memory", default="24GB", help="budget for --device cuda")
    args = parser.parse_args(argv)
    torch.set_grad_enabled(False)
    if args.device == "cuda":
        if not args.model:
            parser.error("--device cuda needs --model DIR")
        cuda(args.model, args.gpu_memory, args.frames)
    else:
        torch.set_num_threads(1)  # frames per second of one thread's CPU time
        cpu(args.preset, args.frames, args.prefetch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
