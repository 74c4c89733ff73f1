"""CPU speed of the full-size codec against upstream fish-speech 0.1.0, measured in one run.

Both codecs get the same random full-size weights (391 M parameters, written in the real
`codec.pth` layout). For a clip (default 10 s) it times encode and decode of each, best of
`--repeats` rounds that alternate the two, and prints upstream time / our time (goal >= 1.5). It also
checks full-size parity (code flips, waveform difference) and times the streaming decoder
for a few chunk sizes (real-time factor = decode time / audio duration; < 1 is faster than
real time). Slow: about two minutes on two threads. Run:

    OMP_NUM_THREADS=2 python bench/codec_cpu.py [--seconds 10] [--repeats 1] [--folder DIR]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
import warnings
from pathlib import Path

import torch

from engine.codec.codec import Codec
from engine.codec.config import CodecConfig
from engine.testing import codec_upstream as upstream
from engine.testing.codec import write_random_codec

SAMPLE_RATE = 44_100


def speechlike(seconds: float) -> torch.Tensor:
    """A deterministic voiced-sounding test signal `[n]` float32 (gliding tone, noise)."""
    n = int(seconds * SAMPLE_RATE)
    t = torch.arange(n) / SAMPLE_RATE
    pitch = 140 + 60 * torch.sin(2 * torch.pi * 0.5 * t)
    phase = 2 * torch.pi * torch.cumsum(pitch, 0) / SAMPLE_RATE
    envelope = 0.5 + 0.5 * torch.sin(2 * torch.pi * 3 * t).clamp(min=0)
    voice = sum(torch.sin(k * phase) / k for k in range(1, 6))
    noise = torch.randn(n, generator=torch.Generator().manual_seed(0))
    return (0.2 * envelope * voice + 0.01 * noise).float()


def best_times(runs: dict, repeats: int) -> tuple[dict, dict]:
    """Smallest (wall, CPU) seconds of each named call over `repeats` rounds, and its result.

    The calls alternate within each round, so a burst of load from other processes on a
    shared machine hits both sides alike. CPU time (all threads of this process) is kept
    too: the wall time also counts the time other processes held the cores.
    """
    times = {name: [] for name in runs}
    results = {}
    for _ in range(repeats):
        for name, run in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            results[name] = run()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    best = {
        name: (min(t[0] for t in pairs), min(t[1] for t in pairs)) for name, pairs in times.items()
    }
    return best, results


def report(name: str, ours: tuple[float, float], theirs: tuple[float, float]) -> None:
    print(
        f"{name}: wall ours {ours[0]:6.2f} s, upstream {theirs[0]:6.2f} s -> {theirs[0] / ours[0]:.2f}x faster;"
        f" CPU ours {ours[1]:6.2f} s, upstream {theirs[1]:6.2f} s -> {theirs[1] / ours[1]:.2f}x"
    )


def stream_time(codec: Codec, codes: torch.Tensor, chunk: int) -> tuple[float, torch.Tensor]:
    stream = codec.decode_stream()
    start = time.perf_counter()
    pieces = [stream.push(codes[:, i : i + chunk]) for i in range(0, codes.shape[1], chunk)]
    pieces.append(stream.flush())
    return time.perf_counter() - start, torch.cat(pieces)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--folder", type=Path, help="reuse (or create) the random codec here")
    parser.add_argument(
        "--chunks", type=int, nargs="*", default=[1, 8, 32], help="streaming chunk sizes in frames"
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if not upstream.available():
        raise SystemExit(
            "fish-speech 0.1.0 is not installed (pip install --no-deps -r tests/oracles-no-deps.txt)"
        )

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder or Path(scratch)
        if not (folder / "codec.pth").exists():
            print(f"writing a random full-size codec to {folder} ...", flush=True)
            write_random_codec(folder, "full", seed=0)
        run(folder, args)


def run(folder: Path, args: argparse.Namespace) -> None:
    print(
        f"threads: {torch.get_num_threads()}, clip: {args.seconds:g} s, best of {args.repeats}",
        flush=True,
    )
    ours = Codec.load(folder)
    frames = math.ceil(args.seconds * SAMPLE_RATE / 2048)
    # the RoPE tables only need to cover the clip; their size does not change the compute
    oracle = upstream.build(
        CodecConfig(),
        encoder_positions=max(1024, 4 * frames + 8),
        quantizer_positions=max(512, frames + 8),
    )
    upstream.load_weights(oracle, torch.load(folder / "codec.pth", mmap=True, weights_only=True))
    audio = speechlike(args.seconds)

    with torch.inference_mode():
        ours.encode(audio[:4096])  # first-call set-up out of the timings
        oracle.encode(audio[None, None, :4096])
        best, out = best_times(
            {
                "ours": lambda: ours.encode(audio),
                "upstream": lambda: oracle.encode(audio[None, None]),
            },
            args.repeats,
        )
        t_ours_enc, t_up_enc = best["ours"], best["upstream"]
        codes, (up_codes, _) = out["ours"], out["upstream"]
        lengths = torch.tensor([codes.shape[1]])
        ours.decode(codes[:, :2])
        oracle.decode(codes[None, :, :2], torch.tensor([2]))
        best, out = best_times(
            {
                "ours": lambda: ours.decode(codes),
                "upstream": lambda: oracle.decode(codes[None], lengths),
            },
            args.repeats,
        )
        t_ours_dec, t_up_dec = best["ours"], best["upstream"]
        wave, (up_wave, _) = out["ours"], out["upstream"]

    flips = int((up_codes[0] != codes).sum())
    diff = float((up_wave[0, 0] - wave).abs().max())
    report("encode", t_ours_enc, t_up_enc)
    report("decode", t_ours_dec, t_up_dec)
    print(
        f"parity (full size): {flips} of {codes.numel()} codes differ; decoded waveforms differ by "
        f"at most {diff:.2e}"
    )
    duration = codes.shape[1] * 2048 / SAMPLE_RATE
    print(f"one-shot decode real-time factor: {t_ours_dec[0] / duration:.3f}")
    for chunk in args.chunks:
        elapsed, streamed = stream_time(ours, codes, chunk)
        error = float((streamed - wave).abs().max())
        print(
            f"streaming decode, {chunk:3d}-frame chunks: real-time factor {elapsed / duration:.3f} "
            f"(max difference from one-shot {error:.1e})",
            flush=True,
        )


if __name__ == "__main__":
    main()
