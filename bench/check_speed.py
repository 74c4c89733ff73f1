"""Benchmark: `drama check` and `drama compile --scene` on a long script.

Writes a temporary YAML script of about 50,000 lines (5.5 MB: a cast of eight with aliases,
descriptions and reference clips, 200-line scenes of dialogue and narration with point tags,
scoped tags, style prefixes, notes and pauses), then measures wall time, CPU time and peak
resident memory (`resource.getrusage`) of checking it and of compiling one scene in clone mode,
each in a fresh interpreter. `--profile` prints the 40 most expensive functions (cProfile,
cumulative time) of each instead.

    python bench/check_speed.py                     # 50,000 lines
    python bench/check_speed.py --lines 5000 --profile

Measured on a 2-core machine shared with other work (49,992 lines, 5.5 MB; wall time under
load, CPU time of the process, peak resident memory):

                        before                       after
    check               24.3 s (11.2 s CPU), 203 MB   4.9 s (2.5 s CPU), 166 MB
    compile one scene   24.5 s (12.3 s CPU), 533 MB   6.2 s (3.6 s CPU), 498 MB

Of compile's memory about 390 MB is the offline tokenizer (a ten-line script's compile peaks at
390 MB; its check at 51 MB). What made it slow: PyYAML's pure-Python reader (libyaml now reads,
the Python reader only locates errors), numbering each line by counting the lines before it
(quadratic in a scene's length), a per-character emoji scan and markdown pattern run on every
text span, and a per-character loop over every line's text.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

CAST = {
    "HOLMES": ("Sherlock Holmes, a consulting detective", ["SHERLOCK", "MR HOLMES"]),
    "WATSON": ("Dr John Watson, his friend and chronicler", ["JOHN", "DOCTOR"]),
    "KING": ("the King of Bohemia, masked", ["COUNT VON KRAMM", "WILHELM"]),
    "IRENE": ("Irene Adler, the woman", ["ADLER", "MISS ADLER"]),
    "NORTON": ("Godfrey Norton, a lawyer", ["GODFREY"]),
    "MRS HUDSON": ("the landlady", ["HUDSON"]),
    "CABMAN": ("a London cabman", []),
    "NARRATOR": ("the storyteller", []),
}
WORDS = (
    "the a of and to in that it was he his I you not my with as had at for which have be "
    "on is this but by from all her one so no there were said what up they been who we "
    "would man could when door room Baker Street photograph letter King Majesty Bohemia "
    "Irene Adler church lodge window smoke rocket cab evening night shall remarkable "
    "singular indeed quite observe deduce Watson Holmes"
).split()
POINT_TAGS = ("[sighs]", "[laughs]", "[pause]", "[clears throat]", "[whispering]", "[excited]")
SCOPED = ("whisper", "reading", "shout")
NOTES = ("dry", "amused", "urgent", "weary", "cold", "warm")


def sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + rng.choice(".?!")


def dialogue(rng: random.Random) -> str:
    """One line of speech with the tag forms a real script uses."""
    text = sentence(rng, rng.randint(14, 30))
    roll = rng.random()
    if roll < 0.2:
        text = f"{rng.choice(POINT_TAGS)} {text}"
    elif roll < 0.3:
        tag = rng.choice(SCOPED)
        text = f"{text} <{tag}>{sentence(rng, 4)}</{tag}>"
    elif roll < 0.35:
        text = f"(excited) {text}"
    return text.replace('"', "'")


def write_script(folder: Path, lines: int, seed: int = 7) -> Path:
    """A YAML script of about `lines` lines in `folder` (with its reference clips)."""
    rng = random.Random(seed)
    refs = folder / "refs"
    refs.mkdir()
    t = np.arange(44_100 * 3) / 44_100
    out = ["title: A Scandal in Bohemia (benchmark)", "narrator: NARRATOR", "cast:"]
    for n, (name, (description, aliases)) in enumerate(CAST.items()):
        clip = refs / f"{n}.wav"
        sf.write(clip, (0.2 * np.sin(2 * np.pi * (110 + 20 * n) * t)).astype(np.float32), 44_100)
        out += [
            f"  {name}:",
            f"    voice: refs/{n}.wav",
            "    transcript: I have seldom heard him mention her under any other name.",
            f"    description: {description}",
        ]
        if aliases:
            out.append(f"    aliases: [{', '.join(aliases)}]")
    out.append("scenes:")
    speakers = [name for name in CAST if name != "NARRATOR"]
    aliases = [a for _, names in CAST.values() for a in names]
    scene = 0
    while len(out) < lines:
        scene += 1
        out += [f"  - id: scene-{scene}", f"    title: Part {scene}", "    lines:"]
        for _ in range(200):
            roll = rng.random()
            if roll < 0.15:
                out.append(f"      - action: {sentence(rng, rng.randint(10, 18))}")
            elif roll < 0.22:
                speaker = rng.choice(speakers + aliases[:4])
                out += [
                    f"      - speaker: {speaker}",
                    f'        text: "{dialogue(rng)}"',
                    f"        note: {rng.choice(NOTES)}",
                    "        pause_after: 0.6",
                ]
            else:
                out.append(f'      - {rng.choice(speakers)}: "{dialogue(rng)}"')
    path = folder / "bohemia.yaml"
    path.write_text(
        "\n".join(out[:lines]).rsplit("\n      - speaker", 1)[0] + "\n", encoding="utf-8"
    )
    return path


MEASURE = """
import contextlib, cProfile, io, json, pstats, resource, sys, time
from drama_cli.cli import main
args, profile = json.loads(sys.argv[1]), sys.argv[2] == "1"
if profile:
    with contextlib.redirect_stdout(io.StringIO()):
        cProfile.run("main(args)", sys.argv[3])
    pstats.Stats(sys.argv[3]).sort_stats("cumulative").print_stats(40)
else:
    start, cpu = time.perf_counter(), time.process_time()
    code = main(args)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"code": code, "seconds": seconds, "cpu_s": cpu, "peak_mb": peak / 1e6}), file=sys.stderr)
"""


def measure(args: list[str], profile: bool, folder: Path) -> dict | None:
    """Run `drama ARGS` in a fresh interpreter; its time and peak memory (or print a profile)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            MEASURE,
            json.dumps(args),
            "1" if profile else "0",
            str(folder / "profile.out"),
        ],
        stdout=subprocess.PIPE if not profile else None,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    if profile:
        return None
    return json.loads(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = write_script(folder, options.lines)
        text = path.read_text(encoding="utf-8")
        print(f"script: {text.count(chr(10)):,} lines, {len(text.encode()) / 1e6:.1f} MB")
        runs = {
            "check": ["check", str(path)],
            "compile one scene": ["compile", str(path), "--scene", "scene-3", "--mode", "clone"],
        }
        for name, args in runs.items():
            if options.profile:
                print(f"== {name}")
            found = measure(args, options.profile, folder)
            if found is not None:
                print(
                    f"{name}: {found['seconds']:.1f} s ({found['cpu_s']:.1f} s of CPU), "
                    f"peak {found['peak_mb']:.0f} MB "
                    f"(exit {found['code']})"
                )


if __name__ == "__main__":
    main()
