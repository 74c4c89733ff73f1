"""Benchmark: a scratch render of `scripts_examples/chapter.yaml` in clone mode with a batch of
streams against one stream at a time, measured in one run.

Renders the chapter twice into fresh project folders (no mix), first with `--batch 1` and then
with `--batch N` (each after the voice is loaded), and prints the wall-clock seconds of each,
the ratio, and whether the two renders made the same takes (the samples of every take).

    python bench/batch_render.py              # --batch 4 against --batch 1
    python bench/batch_render.py --batch 2 --repeat 3

The scratch engine voices a batch with a pool of threads, one piper (ONNX) inference per
stream; how much that gains depends on the cores free (onnxruntime already spreads one
inference over several threads).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from pathlib import Path

from drama_cli.backends.scratch import ScratchBackend
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings
from drama_cli.takes.store import TakeStore

CHAPTER = Path(__file__).resolve().parents[1] / "scripts_examples" / "chapter.yaml"


def render_once(script, folder: Path, batch: int) -> tuple[float, dict]:
    """Seconds to render the script with `batch` streams, and each line's take samples hash."""
    backend = ScratchBackend()
    backend.render_text("Ready.", "NARRATOR")  # load the voice outside the timing
    store = TakeStore(folder)
    started = time.perf_counter()
    report = render_script(
        script, store, backend, RenderSettings(mode="clone", batch=batch, mix=False)
    )
    seconds = time.perf_counter() - started
    takes = {
        (line.scene_id, line.line_id): hashlib.sha256(
            store.selected_take(line.scene_id, line.line_id).audio().tobytes()
        ).hexdigest()
        for line in report.lines
    }
    return seconds, takes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=4, help="streams of the batched render")
    parser.add_argument("--repeat", type=int, default=1, help="renders of each kind (best kept)")
    args = parser.parse_args()
    script = load_script(str(CHAPTER))
    lines = sum(len(scene.lines) for scene in script.scenes)
    best = {1: float("inf"), args.batch: float("inf")}
    made = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.repeat):
            for batch in (1, args.batch):
                seconds, takes = render_once(script, Path(tmp) / f"b{batch}-{run}", batch)
                best[batch] = min(best[batch], seconds)
                made.setdefault(batch, takes)
    print(
        f"scratch render of {CHAPTER.name}, clone mode, {lines} lines, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"--batch 1: {best[1]:.2f} s")
    print(f"--batch {args.batch}: {best[args.batch]:.2f} s")
    print(f"ratio (batch 1 time / batch {args.batch} time): {best[1] / best[args.batch]:.2f}x")
    print(f"same takes: {made[1] == made[args.batch]}")


if __name__ == "__main__":
    main()
