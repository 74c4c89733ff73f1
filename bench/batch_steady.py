"""Frames per second of the engine's batch with every slot live (engine/batch.py), on the CPU.

    python bench/batch_steady.py [--preset small] [--sizes 1,4,8,16] [--steps 8] [--rounds 3] [--threads 1]

`bench/batch_cpu.py` times a whole workload, prefills and the tail where fewer streams than
slots are left included. This bench times the steady state a long render spends most of its
time in: for each size it fills a batch with that many streams of the same 16-stream workload
(frame budgets long enough that none ends), then times `--steps` decode steps with every slot
live. Sizes run in turn `--rounds` times, each restarting from the same state and keeping its
fastest round. Prints per size the milliseconds per step, the aggregate frames per second and
the ratio to the first size.
"""

from __future__ import annotations

import time

import torch
from batch_cpu import (  # this folder is on the path when the script runs
    batch_arguments,
    preset_model,
    streams,
)

from engine.batch import EngineBatch
from engine.generate import Drama3
from engine.sampling import SamplingParams


def filled(model: Drama3, size: int, steps: int) -> EngineBatch:
    """A batch whose `size` slots are all live, with room for `steps` more frames each."""
    batch = EngineBatch(model, size)
    for conversation, seed, _ in streams(size):
        batch.submit(
            model.request(
                conversation, SamplingParams(), seed, max_frames=4 * steps + 64, ignore_eos=True
            )
        )
    while len(batch.live) < size:
        batch.step()
    return batch


def timed_steps(batch: EngineBatch, saved: list[torch.Tensor], steps: int) -> float:
    """Seconds per step of `steps` steps from the `saved` state (restored first)."""
    for tensor, value in zip(batch.storage.tensors(), saved):
        tensor.copy_(value)
    frames = [stream.frames for stream in batch.live]
    started = time.perf_counter()
    for _ in range(steps):
        batch.step()
    seconds = (time.perf_counter() - started) / steps
    for stream, count in zip(batch.live, frames):
        stream.frames = count
    return seconds


def main() -> None:
    parser = batch_arguments(__doc__.splitlines()[0], rounds=3)
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    with preset_model(args) as (model, sizes):
        batches = {size: filled(model, size, args.steps) for size in sizes}
        saved = {
            size: [t.clone() for t in batch.storage.tensors()] for size, batch in batches.items()
        }
        print(
            f"preset {args.preset}, every slot live, {args.steps} steps, {torch.get_num_threads()} torch threads"
        )
        best = {size: float("inf") for size in sizes}
        for _ in range(max(args.rounds, 1)):
            for size in sizes:
                best[size] = min(best[size], timed_steps(batches[size], saved[size], args.steps))
        base = sizes[0] / best[sizes[0]]
        for size in sizes:
            rate = size / best[size]
            print(
                f"batch {size:3d}: {best[size] * 1000:7.1f} ms per step, {rate:6.1f} frames/s, "
                f"{rate / base:5.2f}x batch {sizes[0]}"
            )


if __name__ == "__main__":
    main()
