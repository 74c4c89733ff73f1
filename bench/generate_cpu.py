"""Frames per second of full generation on the CPU, with the time split prefill / decode, against
mlx-audio's Drama 3 port on the same random checkpoint in the same run.

    python bench/generate_cpu.py [--preset small] [--frames 64] [--reference-frames 200] [--rounds 3]

Writes a random checkpoint of the preset (engine.testing.checkpoints) into a temporary folder, generates
one take with a reference clip (the system block is prefilled once as a warm-up, so the timed
run reuses the prefix cache like a second line of a scene), and prints frames/s, time to first
frame and the phase split (prefill, decode). The oracle runs mlx-audio's decode loop on `mlx[cpu]` over the same
prompt rows and frame count; the printed ratio is ours / oracle (above 1: we are faster).
The two sides take turns for `--rounds` rounds and the best round of each is compared, so a busy
minute on a shared machine slows both alike instead of one side only. Figures, with the code from
before the one decode loop measured in the same runs: docs/internals/engine.md, "Measured on the CPU".
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from engine.clip import AudioClip
from engine.conversation import Conversation, Reference
from engine.generate import Drama3
from engine.sampling import SamplingParams
from engine.testing.checkpoints import write_checkpoint

LINE = "<|speaker:0|> The harbour lights came on one by one, and still nobody spoke."


def reference_clip(frames: int, seed: int) -> AudioClip:
    """Random codes `[10, frames]` (codebook 0 < 4096, residual < 1024)."""
    rng = np.random.default_rng(seed)
    codes = np.concatenate([rng.integers(0, 4096, (1, frames)), rng.integers(0, 1024, (9, frames))])
    return AudioClip(codes=codes.astype(np.int64))


def conversation(reference_frames: int) -> Conversation:
    """A clone prompt: one reference clip with its transcript, one line."""
    reference = Reference(0, "A short reference sentence.", reference_clip(reference_frames, 1))
    return Conversation(layout="clone", references=(reference,), text=LINE)


def prepare_ours(
    folder: Path, convo: Conversation, frames: int, threads: int, compile_decode: bool
):
    """Load the engine, warm it up (prefix cache, compile) and return a function timing one take."""
    torch.set_num_threads(threads)
    model = Drama3.load(folder, device="cpu")
    if compile_decode:
        model.compile_decode()
    params = SamplingParams()
    model.generate(
        convo, params, seed=0, max_frames=2, ignore_eos=True
    )  # warm-up: prefix cache, compile
    prompt = model.build_prompt(convo)

    def one_take() -> dict:
        started = time.perf_counter()
        take = model.generate(convo, params, seed=1, max_frames=frames, timed=True, ignore_eos=True)
        total = time.perf_counter() - started
        times = take.frame_times_s
        return {
            "frames": take.frames,
            "seconds": total,
            "ttff_s": times[0],
            "decode_rate": (len(times) - 1) / (times[-1] - times[0]),
            "phase_s": take.phase_s,
            "prompt_rows": take.prompt_rows,
            "rows": prompt.rows,
            "system_rows": prompt.system_rows,
        }

    return one_take


def prepare_oracle(folder: Path, rows: np.ndarray, system_rows: int, frames: int):
    """mlx-audio's `_frames` loop over the same rows, warmed up (prefix cache); returns a function
    timing one run. EOS is masked by never stopping early."""
    import mlx.core as mx
    from mlx_audio.tts.models.fish_drama3 import Model, ModelConfig
    from mlx_audio.tts.models.fish_drama3.convert import convert
    from mlx_audio.tts.models.fish_drama3.drama3 import _Voice

    converted = folder.parent / "mlx"
    convert(folder, converted, codec=False)
    model = Model(ModelConfig.from_dict(json.loads((converted / "config.json").read_text())))
    weights = {}
    for shard in converted.glob("*.safetensors"):
        weights.update(mx.load(str(shard)))
    model.load_weights(list(weights.items()), strict=True)
    model.set_dtype(mx.float32)
    prompt, voice = mx.array(rows.astype(np.int32)), _Voice([])
    list(model._frames(prompt, system_rows, voice, 2, 1.0, None, 0.9))  # warm-up, prefix cache

    def one_run() -> dict:
        started = time.perf_counter()
        produced = sum(1 for _ in model._frames(prompt, system_rows, voice, frames, 1.0, None, 0.9))
        return {"frames": produced, "seconds": time.perf_counter() - started}

    return one_run


def rate(run: dict) -> float:
    return run["frames"] / run["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="small", choices=("tiny", "small"))
    parser.add_argument("--frames", type=int, default=64)
    parser.add_argument("--reference-frames", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="takes of each side, interleaved; the best round of each is compared",
    )
    parser.add_argument("--no-oracle", action="store_true")
    parser.add_argument(
        "--compile", action="store_true", help="torch.compile the one-row decode steps"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / args.preset
        write_checkpoint(folder, args.preset, seed=0)
        convo = conversation(args.reference_frames)
        ours_take = prepare_ours(folder, convo, args.frames, args.threads, args.compile)
        ours = [ours_take()]
        if args.no_oracle or args.preset == "tiny":
            ours += [ours_take() for _ in range(args.rounds - 1)]
            report_ours(ours)
            print("oracle skipped (mlx-audio's converter needs expert sizes in whole 128 blocks)")
            return
        oracle_run = prepare_oracle(folder, ours[0]["rows"], ours[0]["system_rows"], args.frames)
        oracle = [oracle_run()]
        for _ in range(args.rounds - 1):  # interleaved, so a busy minute slows both sides alike
            ours.append(ours_take())
            oracle.append(oracle_run())
        report_ours(ours)
        best = max(rate(run) for run in oracle)
        print(
            f"mlx-audio (mlx[cpu]): best {best:.2f} frames/s over {oracle[0]['frames']} frames; rounds "
            + ", ".join(f"{rate(run):.2f}" for run in oracle)
        )
        print(
            "ratio engine / mlx-audio per round: "
            + ", ".join(f"{rate(a) / rate(b):.2f}" for a, b in zip(ours, oracle))
        )
        print(
            f"ratio engine / mlx-audio (best round of each, overall frames/s, prefill included in both): "
            f"{max(rate(run) for run in ours) / best:.2f}"
        )


def report_ours(runs: list[dict]) -> None:
    first = max(runs, key=rate)
    print(
        f"prompt {first['prompt_rows']} rows ({first['system_rows']} cached system rows), "
        f"{first['frames']} frames, {len(runs)} rounds"
    )
    print(
        f"engine: best {rate(first):.2f} frames/s overall (prefill included), {first['decode_rate']:.2f} "
        f"frames/s decoding, time to first frame {first['ttff_s'] * 1000:.0f} ms; rounds "
        + ", ".join(f"{rate(run):.2f}" for run in runs)
    )
    split = first["phase_s"]
    decode = sum(v for k, v in split.items() if k != "prefill") or 1.0
    print(
        f"  prefill {split.get('prefill', 0.0):.2f} s; decode split: "
        + ", ".join(
            f"{k} {v:.2f} s ({100 * v / decode:.0f} %)"
            for k, v in sorted(split.items())
            if k != "prefill"
        )
    )


if __name__ == "__main__":
    main()
