"""Aggregate frames per second of the engine's batch of streams on the CPU (engine/batch.py).

    python bench/batch_cpu.py [--preset small] [--streams 16] [--sizes 1,4,8,16] [--threads 1] [--rounds 2]

Writes a random checkpoint of the preset into a temporary folder and voices the same 16 streams
at each batch size: clone prompts sharing one reference clip (the cast's prefix, cached after
the warm-up) with lines of different lengths, frame budgets from 64 frames (the engine's
smallest default budget) to 160 with EOS masked so every size decodes the same frames, default
sampling with a seed per stream. Prints
per size the wall seconds, the aggregate frames per second (all frames of all streams over the
wall time, prefills included) and the ratio to batch 1, plus the one-stream loop
(`Drama3.generate`) for reference. Goal: batch 8 at least 3x batch 1. It also says how many
streams' codes equal those at the first size (sampled draws may part where batched float
rounding tips a near tie, see docs/internals/engine.md). The sizes run in turn `--rounds` times and each
keeps its fastest round, so a slow spell of a shared machine does not land on one size alone.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import torch

from engine.batch import EngineBatch
from engine.clip import AudioClip
from engine.conversation import Conversation, Reference
from engine.generate import Drama3
from engine.sampling import SamplingParams
from engine.testing.checkpoints import write_checkpoint

WORDS = (
    "the harbour lights came on one by one and still nobody spoke a word about the boat "
    "that had not come back since the storm"
).split()


def streams(count: int) -> list[tuple[Conversation, int, int]]:
    """(conversation, seed, frame budget) of `count` streams of different prompt and take lengths."""
    rng = np.random.default_rng(3)
    codes = np.concatenate(
        [rng.integers(0, 4096, (1, 120)), rng.integers(0, 1024, (9, 120))]
    ).astype(np.int64)
    reference = Reference(0, "A short reference sentence.", AudioClip(codes=codes))
    found = []
    for index in range(count):
        text = " ".join(WORDS[: 3 + (index * 5) % len(WORDS)])
        found.append(
            (
                Conversation(
                    layout="clone", references=(reference,), text=f"<|speaker:0|> {text}."
                ),
                100 + index,
                64 + (index * 29) % 97,
            )
        )
    return found


def run_batch(model: Drama3, work, size: int) -> tuple[float, int, dict]:
    """Wall seconds, frames decoded and codes per stream of voicing `work` with a batch of `size`."""
    batch, tickets = EngineBatch(model, size), {}
    started = time.perf_counter()
    for index, (conversation, seed, frames) in enumerate(work):
        tickets[
            batch.submit(
                model.request(
                    conversation, SamplingParams(), seed, max_frames=frames, ignore_eos=True
                )
            )
        ] = index
    codes = {tickets[done.ticket]: done.generation.codes for done in batch.run()}
    return time.perf_counter() - started, sum(c.shape[1] for c in codes.values()), codes


def run_loop(model: Drama3, work) -> tuple[float, int]:
    """Wall seconds and frames of voicing `work` one stream at a time with `Drama3.generate`."""
    started, frames = time.perf_counter(), 0
    for conversation, seed, budget in work:
        frames += model.generate(
            conversation, SamplingParams(), seed, max_frames=budget, ignore_eos=True
        ).frames
    return time.perf_counter() - started, frames


def batch_arguments(description: str, rounds: int) -> argparse.ArgumentParser:
    """The options both batch benches take: --preset, --sizes, --threads and --rounds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--sizes", default="1,4,8,16")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=rounds,
        help="runs of every size, taken in turn; the fastest counts",
    )
    return parser


@contextmanager
def preset_model(args: argparse.Namespace) -> Iterator[tuple[Drama3, list[int]]]:
    """Set the torch threads, write a random checkpoint of the preset into a temporary folder
    and yield the model loaded on the CPU with the batch sizes asked for."""
    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as folder:
        write_checkpoint(Path(folder), args.preset, seed=0, with_codec=False)
        yield Drama3.load(folder, device="cpu"), [int(size) for size in args.sizes.split(",")]


def main() -> None:
    parser = batch_arguments(__doc__.splitlines()[0], rounds=2)
    parser.add_argument("--streams", type=int, default=16)
    args = parser.parse_args()
    with preset_model(args) as (model, sizes):
        work = streams(args.streams)
        run_batch(model, work[:2], 2)  # warm-up: the shared reference block enters the prefix cache
        print(
            f"preset {args.preset}, {args.streams} streams, {torch.get_num_threads()} torch threads"
        )
        loop_s, loop_frames = run_loop(model, work)
        print(
            f"one-stream loop (generate): {loop_frames} frames in {loop_s:.2f} s, {loop_frames / loop_s:.1f} frames/s"
        )
        best: dict[int, tuple[float, int, dict]] = {}
        for _ in range(max(args.rounds, 1)):
            for size in sizes:
                run = run_batch(model, work, size)
                if size not in best or run[0] < best[size][0]:
                    best[size] = run
        base_rate, reference = best[sizes[0]][1] / best[sizes[0]][0], best[sizes[0]][2]
        for size in sizes:
            seconds, frames, codes = best[size]
            rate = frames / seconds
            same = sum(torch.equal(codes[i], reference[i]) for i in reference)
            print(
                f"batch {size:3d}: {frames} frames in {seconds:7.2f} s, {rate:7.1f} frames/s, "
                f"{rate / base_rate:5.2f}x batch {sizes[0]}, codes equal in {same}/{len(reference)} streams"
            )


if __name__ == "__main__":
    main()
