"""Benchmark: normalising one line of many numbers, as a table pasted into a script is.

Builds a line of N space-separated numbers (seeded: whole numbers of one to six digits, runs of
three-digit numbers, decimals, percentages, amounts and a few words between them), normalises it
in each language with `drama_cli.compile.normalise.normalise_text`, and prints the time per 1,000
numbers at each size and the ratio of the largest size's figure to the smallest's: about 1.0 when
the time grows linearly with the line, N / N0 when it grows with the square.

    python bench/number_speed.py                       # 500, 1,000, 2,000, 5,000 numbers
    python bench/number_speed.py --sizes 200 400 --languages en

The target: a line of 5,000 numbers in under a second on one core. `--profile` prints the 25
most expensive functions (cProfile, cumulative time) of the largest size instead.

Measured on a 2-core machine shared with other work. Before: 200 three-digit numbers in one
English line took 11.4 s, 2,000 never finished (each group of a run was tried as the start of
one number taking every group after it, and each candidate against every form). After (fastest
of 3 rounds, ms per 1,000 numbers at 500 / 1,000 / 2,000 / 5,000, ratio 5,000 to 500):

    en   22.6 / 22.0 / 22.0 / 22.4   ratio 0.99, 5,000 numbers in 0.11 s
    de   18.9 / 18.5 / 18.3 / 18.0   ratio 0.95
    fr   20.5 / 19.9 / 18.9 / 19.8   ratio 0.97
    es   18.4 / 17.7 / 20.1 / 19.1   ratio 1.04
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from drama_cli.compile.normalise import normalise_text

_WORDS = ("and", "or", "then", "total", "items", "rows")


def number_line(count: int, seed: int = 0) -> str:
    """A line of `count` numbers of mixed written forms, space separated, some words between."""
    rng = random.Random(seed)
    parts: list[str] = []
    while len(parts) < count:
        kind = rng.random()
        if kind < 0.35:  # a run of three-digit groups, as a table column prints them
            parts += [str(rng.randint(100, 999)) for _ in range(rng.randint(2, 120))]
        elif kind < 0.6:
            parts.append(str(rng.randint(0, 999_999)))
        elif kind < 0.7:
            parts.append(f"{rng.randint(0, 99)}.{rng.randint(0, 99)}")
        elif kind < 0.8:
            parts.append(f"{rng.randint(0, 100)}%")
        elif kind < 0.9:
            parts.append(f"${rng.randint(1, 9999)}")
        else:
            parts.append(f"{rng.choice(_WORDS)} {rng.randint(1, 12)}")
    return " ".join(parts[:count])


def timed(line: str, language: str, rounds: int) -> float:
    """The fastest of `rounds` normalisations of `line` in `language`, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        normalise_text(line, language)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 5000])
    parser.add_argument("--languages", nargs="+", default=["en", "de", "fr", "es"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.profile:
        line = number_line(max(args.sizes))
        profile = cProfile.Profile()
        profile.enable()
        for language in args.languages:
            normalise_text(line, language)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        return
    for language in args.languages:
        normalise_text(number_line(50), language)  # warm the caches
        per_thousand = []
        for size in args.sizes:
            seconds = timed(number_line(size), language, args.rounds)
            per_thousand.append(seconds * 1000 / size)
            print(
                f"{language}  {size:>6} numbers  {seconds:8.3f} s  "
                f"{per_thousand[-1] * 1000:8.1f} ms per 1,000",
                flush=True,
            )
        ratio = per_thousand[-1] / per_thousand[0]
        print(
            f"{language}  ratio of ms per 1,000 at {args.sizes[-1]} to {args.sizes[0]}: "
            f"{ratio:.2f} (1.0 is linear, {args.sizes[-1] / args.sizes[0]:.0f} quadratic)"
        )


if __name__ == "__main__":
    main()
