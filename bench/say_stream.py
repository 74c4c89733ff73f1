"""Time to first audio of `drama say --stream` against waiting for the whole text.

Text arrives on a pipe one sentence at a time, `--every` seconds apart (a writer thread, as a
slow upstream program would write it). Streamed, `say_stream` voices each sentence as it
arrives; the baseline reads the pipe to its end and then voices the whole text with
`Sayer.say`, as `drama say -` does. Both runs use the same engine in one process (the scratch
engine by default: no model needed), and the time to first audio is the time from the first
byte written to the first audio sample reaching the output. Rounds alternate between the two,
and each side keeps its fastest round.

    python bench/say_stream.py [--sentences 6] [--every 0.5] [--rounds 2] [--engine scratch]
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path

from drama_cli.backends.registry import BackendChoice, make_backend
from drama_cli.render.say import AudioSink, Sayer, SaySettings, Voice, say_stream

ROOT = Path(__file__).resolve().parent.parent
LANE = ROOT / "scripts_examples" / "refs" / "lane.wav"
LANE_SAYS = "The carriage will be ready at half past four, sir."
SENTENCE = "Sentence number {n} of the chapter arrives while the one before it is voiced."


class FirstWrite:
    """A binary output that notes when its first audio (after a 44-byte header) arrives."""

    def __init__(self):
        self.size, self.first_audio = 0, None

    def write(self, data: bytes) -> int:
        self.size += len(data)
        if self.first_audio is None and self.size > 44:
            self.first_audio = time.perf_counter()
        return len(data)

    def flush(self) -> None:
        pass


def slow_text(sentences: int, every_s: float):
    """A pipe's reading end, a writer thread filling it a sentence every `every_s` seconds,
    and the time it wrote its first byte (a list filled by the thread)."""
    read, write = os.pipe()
    started = []

    def writer() -> None:
        for n in range(1, sentences + 1):
            if n > 1:
                time.sleep(every_s)
            if not started:
                started.append(time.perf_counter())
            os.write(write, (SENTENCE.format(n=n) + "\n").encode())
        os.close(write)

    threading.Thread(target=writer, daemon=True).start()
    return os.fdopen(read, "rb"), started


def one_run(backend, streamed: bool, sentences: int, every_s: float) -> tuple[float, float]:
    """(seconds to first audio, seconds to the end) of one run."""
    out = FirstWrite()
    sayer = Sayer(
        backend,
        Voice(clip=str(LANE), transcript=LANE_SAYS),
        AudioSink(out, "wav"),
        SaySettings(lookahead_wait_s=0.1),
    )
    source, started = slow_text(sentences, every_s)
    if streamed:
        say_stream(sayer, source, threading.Event())
    else:
        sayer.say(source.read().decode())
    end = time.perf_counter()
    return out.first_audio - started[0], end - started[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=6)
    parser.add_argument("--every", type=float, default=0.5, help="seconds between sentences")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--engine", default="scratch")
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    backend = make_backend(BackendChoice(args.engine, args.model, None, {}))
    one_run(backend, True, 1, 0.0)  # load the voice before timing
    best = {True: (float("inf"), 0.0), False: (float("inf"), 0.0)}
    for _ in range(args.rounds):
        for streamed in (True, False):
            first, total = one_run(backend, streamed, args.sentences, args.every)
            best[streamed] = min(best[streamed], (first, total))
    backend.close()
    print(
        f"{args.sentences} sentences, one every {args.every:g} s, engine {args.engine}, "
        f"best of {args.rounds}"
    )
    for streamed, label in ((True, "streamed (--stream)"), (False, "whole text first")):
        first, total = best[streamed]
        print(f"  {label:20s} first audio {first:6.2f} s   done {total:6.2f} s")
    print(f"  first audio {best[False][0] / best[True][0]:.1f}x sooner streamed")


if __name__ == "__main__":
    main()
