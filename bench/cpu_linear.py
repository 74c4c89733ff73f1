"""Float32 products on the CPU: `F.linear` (MKL's sgemm) against oneDNN over a packed weight
(engine/kernels/cpu_linear.py), per row count.

    python bench/cpu_linear.py [--rows 1,2,4,8,16] [--threads 1]

For each weight shape of the decode step (the tower's heads, feed-forward and projections, an
expert's stacked gate and up) and each row count, prints the microseconds of both products
(best of 5 repeats, cycling over 16 weights of that shape so none stays in cache between
calls) and the packed product's speed-up. Also checks the two agree within 1e-4.
"""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F

from engine.kernels.cpu_linear import pack, packed_linear, packing_works

SHAPES = ((4096, 512), (1024, 512), (512, 1024), (1280, 512), (512, 512))  # [out, in]
WEIGHTS = 16


def best_microseconds(product, repeats: int = 5, calls: int = 100) -> float:
    """The fastest of `repeats` runs of `calls` calls, in microseconds per call."""
    for _ in range(3):
        product()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            product()
        best = min(best, (time.perf_counter() - started) / calls * 1e6)
    return best


def cycling(rows: torch.Tensor, weights: list[torch.Tensor], through):
    """A product of `rows` with the next of `weights` at each call, by `through(rows, weight)`."""
    turn = [0]

    def product():
        turn[0] = (turn[0] + 1) % len(weights)
        return through(rows, weights[turn[0]])

    return product


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1,2,4,8,16")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if not packing_works():
        raise SystemExit(
            "this torch build cannot pack weights for oneDNN; every product uses F.linear"
        )
    print(f"{args.threads} torch threads; microseconds per product, F.linear vs packed")
    for out, inner in SHAPES:
        plain = [torch.randn(out, inner) for _ in range(WEIGHTS)]
        packed = [pack(weight) for weight in plain]
        for count in (int(n) for n in args.rows.split(",")):
            rows = torch.randn(count, inner)
            if not torch.allclose(
                packed_linear(rows, packed[0]), F.linear(rows, plain[0]), atol=1e-4, rtol=1e-4
            ):
                raise SystemExit(
                    f"packed and plain products disagree for [{count}, {inner}] x [{inner}, {out}]"
                )
            mkl = best_microseconds(cycling(rows, plain, F.linear))
            onednn = best_microseconds(cycling(rows, packed, packed_linear))
            print(
                f"[{count:2d}, {inner}] x [{inner}, {out}]: {mkl:8.1f} vs {onednn:8.1f}  {mkl / onednn:5.2f}x"
            )


if __name__ == "__main__":
    main()
