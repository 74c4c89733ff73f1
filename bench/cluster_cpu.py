"""Benchmark: a scratch render of a 4-scene script on a local Ray cluster, by 1 worker and by
2 workers, measured in one run.

Starts one local Ray instance (`--cpus` slots), then for each worker count starts the
workers, lets each voice one line (the voice loads outside the timing), renders the script
into a fresh project folder (no mix) and prints the wall-clock seconds. Then the ratio of the
two, and Ray's overhead per unit in milliseconds: the time from sending a unit to having its
result on the driver, less the time the worker's backend spent on it, averaged over units.

    python bench/cluster_cpu.py
    python bench/cluster_cpu.py --lines 6 --cpus 2
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from drama_cli.backends.base import GenerationRequest
from drama_cli.backends.cluster.backend import ClusterBackend, make_cluster_backend
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings
from drama_cli.takes.store import TakeStore
from engine.conversation import Conversation

SENTENCES = (
    "We leave at six, before the tide turns.",
    "Not without the oars, we don't.",
    "Then find them, and be quick about it.",
    "The boat is leaking again.",
    "Patch it with the old sail.",
    "We have no old sail, and you know it.",
)


def write_script(folder: Path, scenes: int, lines: int) -> Path:
    """A script of `scenes` scenes of `lines` lines each, two speakers taking turns."""
    body = ["cast:", "  MARGOT: {}", "  DESMOND: {}", "scenes:"]
    for scene in range(scenes):
        body.append(f"  - id: scene-{scene + 1}\n    lines:")
        for line in range(lines):
            speaker = "MARGOT" if line % 2 == 0 else "DESMOND"
            body.append(f"      - {speaker}: {SENTENCES[(scene + line) % len(SENTENCES)]}")
    path = folder / "bench.yaml"
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


def warm(backend: ClusterBackend) -> None:
    """One short line on every worker, so each has its voice loaded."""
    batch = backend.open_batch(len(backend.pool.slots))
    for _ in backend.pool.slots:
        batch.submit(
            GenerationRequest(
                "warm",
                "warm",
                "MARGOT",
                "<|speaker:0|> Ready.",
                Conversation("clone", text="<|speaker:0|> Ready."),
            )
        )
    while batch.active():
        batch.next_done()
    batch.close()
    for slot in backend.pool.slots:
        slot.units, slot.busy_s, slot.wall_s = 0, 0.0, 0.0


def render_with(workers: int, path: Path, folder: Path) -> tuple[float, float, int, float]:
    """(wall seconds of the render, Ray's overhead per unit in ms, units, seconds a worker's
    backend spent on a unit on average) with `workers`."""
    backend = make_cluster_backend(f"local:{workers}", "scratch")
    try:
        warm(backend)
        started = time.perf_counter()
        report = render_script(
            load_script(str(path)), TakeStore(folder), backend, RenderSettings(mix=False)
        )
        seconds = time.perf_counter() - started
    finally:
        backend.close()
    assert report.exit_code == 0, report.to_dict()
    stats = backend.worker_stats()
    units = sum(s["units"] for s in stats)
    overhead_ms = 1000 * sum(s["wall_s"] - s["busy_s"] for s in stats) / max(units, 1)
    return seconds, overhead_ms, units, sum(s["busy_s"] for s in stats) / max(units, 1)


def main() -> None:
    import ray

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=4, help="lines per scene (4 scenes)")
    parser.add_argument("--cpus", type=int, default=2, help="CPU slots of the local Ray instance")
    args = parser.parse_args()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = write_script(Path(tmp), 4, args.lines)
            one = render_with(1, path, Path(tmp) / "one.drama")
            two = render_with(2, path, Path(tmp) / "two.drama")
    finally:
        ray.shutdown()
    print(
        f"4 scenes x {args.lines} lines, scratch engine, local Ray of {args.cpus} CPU slots; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    for name, run in (("1 worker: ", one), ("2 workers:", two)):
        print(
            f"{name} {run[0]:.2f} s ({run[2]} units, {run[3]:.3f} s of engine time per unit, "
            f"Ray overhead {run[1]:.1f} ms per unit)"
        )
    print(f"speed-up: {one[0] / two[0]:.2f}x")


if __name__ == "__main__":
    main()
