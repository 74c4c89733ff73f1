"""The GPU check: one command that tells, on a CUDA machine, whether the engine's kernels, its
captured decode step and its speed are what docs/internals/engine.md says, in under 8 minutes.

    python bench/gpu_check.py --json gpu-check.json          # a CUDA machine (an H200)
    python bench/gpu_check.py --smoke --json smoke.json      # the same code on the CPU, tiny preset

Sections (one table, one row per figure, with its goal where there is one):
  1 kernels   every Triton kernel compiled on the device against torch on the same inputs:
              FP8 decode experts at 1/5/16 rows, grouped prefill at 17/64/200 rows in float32
              and bfloat16, the Gated DeltaNet step; max error (`engine.testing.kernels`).
  2 graphs    the decode step captured at every padded batch size up to 64: greedy codes of
              the captured step equal the eager step's, stream by stream, on the tiny preset;
              and on the full preset at batch 1 for 32 frames.
  3 speed     the full-size model, random weights in the real layout built on the device (no
              file): batch-1 frames/s, time to first audio (8 frames) for a 500-row prompt
              prefilled from scratch, kernels per frame (torch.profiler), peak GPU memory.
  4 streams   aggregate frames/s and real-time factor per stream at 8, 32 and 64 streams.
  5 offload   section 3's figures at batch 1 with routed experts in host memory under a
              24 GB device budget (`--gpu-memory 24GB`), and the expert cache's hit rate.

Goals: >= 300 frames/s at batch 1 (Fish's engine: 271 on an H200), first audio < 80 ms
(SGLang-Omni: 88.9 ms), real-time factor per stream <= 0.4 at 64 streams (SGLang-Omni: 0.801),
<= 1,200 kernels per frame; kernel errors within the interpreter tests' tolerances.

The JSON file is rewritten after every section, so a run cut short keeps what it measured.
Sections run while the time budget (`--budget-s`) lasts; the rest are listed as skipped, and
`--only 4,5` runs just those. `--smoke` runs every section on the CPU with the tiny preset and
small sizes (Triton kernels only under TRITON_INTERPRET=1; graph capture through a stand-in
that replays the step, `engine.testing.graphs`), so the script cannot rot without a GPU.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.batch import EngineBatch  # noqa: E402
from engine.clip import AudioClip  # noqa: E402
from engine.config import Drama3Config  # noqa: E402
from engine.constants import FRAMES_PER_SECOND  # noqa: E402
from engine.conversation import Conversation, Reference  # noqa: E402
from engine.files import write_text_atomic  # noqa: E402
from engine.offload.offload import OffloadSettings  # noqa: E402
from engine.offload.plan import offload_settings  # noqa: E402
from engine.sampling import SamplingParams  # noqa: E402
from engine.testing import kernels  # noqa: E402
from engine.testing.checkpoints import preset_config_dict  # noqa: E402
from engine.testing.graphs import replay_capture  # noqa: E402
from engine.testing.random_model import random_model  # noqa: E402

GOAL_FRAMES_PER_S = 300.0
GOAL_FIRST_AUDIO_MS = 80.0
GOAL_RTF_AT_64 = 0.4
GOAL_KERNELS_PER_FRAME = 1200
FIRST_AUDIO_FRAMES = 8  # the first chunk the streaming codec decoder turns into audio
GREEDY = SamplingParams(temperature=0.0, ras_window=0)
LINES = (
    "The harbour lights came on one by one, and still nobody spoke a word.",
    "Pass me the rope, quickly, before the tide turns!",
    "I never said I would stay.",
    "Seven bells, and the fog is thicker than ever.",
)


@dataclass(frozen=True)
class Plan:
    """What one run measures: the device, presets and sizes of every section."""

    device: str
    preset: str = "full"  # the model of sections 3-5 and of section 2's second part
    kernel_preset: str = "full"
    graph_sizes: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
    graph_frames: int = 16
    full_graph_frames: int = 32
    prompt_rows: int = 500
    speed_frames: int = 256
    stream_sizes: tuple[int, ...] = (8, 32, 64)
    stream_frames: int = 128
    gpu_memory: int | None = 24 * 10**9  # None: a simulated cache of half the experts (CPU)
    budget_s: float = 450.0


SMOKE = dict(
    device="cpu",
    preset="tiny",
    kernel_preset="tiny",
    graph_sizes=(1, 2, 4),
    graph_frames=4,
    full_graph_frames=4,
    prompt_rows=150,
    speed_frames=6,
    stream_sizes=(2, 4),
    stream_frames=4,
    gpu_memory=None,
    budget_s=3600.0,
)


@dataclass
class Report:
    """The table: rows of (section, item, value, unit, goal, met), written as JSON to `path`."""

    plan: Plan
    path: Path | None
    rows: list[dict] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def add(
        self,
        section: str,
        item: str,
        value,
        unit: str = "",
        goal: str = "",
        met: bool | None = None,
    ) -> None:
        self.rows.append(
            {
                "section": section,
                "item": item,
                "value": value,
                "unit": unit,
                "goal": goal,
                "met": met,
            }
        )

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def save(self) -> None:
        if self.path is not None:
            data = {
                "plan": asdict(self.plan),
                "elapsed_s": round(self.elapsed(), 1),
                "rows": self.rows,
                "device_name": device_name(self.plan.device),
            }
            write_text_atomic(self.path, json.dumps(data, indent=1) + "\n")

    def table(self) -> str:
        lines = [f"{'section':9} {'item':58} {'value':>12} {'unit':10} goal"]
        for row in self.rows:
            value = row["value"]
            shown = f"{value:.4g}" if isinstance(value, float) else str(value)
            verdict = {True: "met", False: "NOT MET", None: ""}[row["met"]]
            lines.append(
                f"{row['section']:9} {row['item'][:58]:58} {shown:>12} {row['unit']:10} "
                f"{row['goal']} {verdict}".rstrip()
            )
        return "\n".join(lines)


def device_name(device: str) -> str:
    return torch.cuda.get_device_name() if device.startswith("cuda") else "cpu"


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


# ---- 1 kernels ------------------------------------------------------------------------------


def kernel_section(report: Report) -> None:
    """Every Triton kernel against torch on layer 0 of the kernel preset, on the device."""
    plan, section = report.plan, "1 kernels"
    if plan.device == "cpu" and os.environ.get("TRITON_INTERPRET") != "1":
        report.add(section, "skipped: Triton runs on the CPU only under TRITON_INTERPRET=1", None)
        return
    fp32, bf16 = f"<= {kernels.TOLERANCE:g}", f"<= {kernels.BF16_TOLERANCE:g}"
    experts = kernels.expert_errors(plan.kernel_preset, plan.device)
    for rows in kernels.EXPERT_ROWS:
        error = experts[f"rows_{rows}"]
        report.add(
            section,
            f"FP8 decode experts, {rows} rows, float32: max error",
            error,
            "",
            fp32,
            error <= kernels.TOLERANCE,
        )
    prefill = kernels.prefill_errors(plan.kernel_preset, plan.device)
    for rows in kernels.PREFILL_ROWS:
        for kind, limit, goal in (
            ("", kernels.TOLERANCE, fp32),
            ("bf16_", kernels.BF16_TOLERANCE, bf16),
        ):
            error = prefill[f"{kind}rows_{rows}"]
            dtype = "bfloat16" if kind else "float32"
            report.add(
                section,
                f"grouped FP8 prefill, {rows} rows, {dtype}: max error",
                error,
                "",
                goal,
                error <= limit,
            )
    delta = kernels.gated_delta_errors(plan.kernel_preset, device=plan.device)
    for part in ("output", "state"):
        report.add(
            section,
            f"Gated DeltaNet step, {part}: max error",
            delta[part],
            "",
            fp32,
            delta[part] <= kernels.TOLERANCE,
        )
    if plan.device.startswith("cuda"):
        for path, ms in prefill_times(plan.kernel_preset, plan.device).items():
            report.add(
                section, f"prefill experts, {PREFILL_CHUNK_ROWS} rows bf16, {path}", ms, "ms"
            )


PREFILL_CHUNK_ROWS = 256


def prefill_times(preset: str, device: str, repeats: int = 10) -> dict[str, float]:
    """Milliseconds per call of layer 0's routed experts on one prefill chunk of bfloat16 rows:
    the grouped FP8 kernels against the dequantising torch path."""
    moe = kernels.preset_moe(preset, device)
    x = kernels.random_rows(PREFILL_CHUNK_ROWS, moe.router.shape[1], 5, device).bfloat16()
    weights, ids = moe.route(x.float())
    weights = weights.bfloat16()
    times = {}
    for name, path in (
        ("grouped kernels", moe._grouped_rows),
        ("dequantising torch path", moe._many_rows),
    ):
        path(x, weights, ids)  # warm-up: autotuning, allocator
        synchronize(device)
        started = time.perf_counter()
        for _ in range(repeats):
            path(x, weights, ids)
        synchronize(device)
        times[name] = (time.perf_counter() - started) * 1000 / repeats
    return times


# ---- 2 graphs -------------------------------------------------------------------------------


def loop_of(model, size: int, mode: str) -> EngineBatch:
    """The decode loop of `size` slots in `mode`; graph mode off CUDA runs the step uncompiled
    at padded sizes and captures it through the replaying stand-in."""
    if mode == "eager" or model.device.type == "cuda":
        return EngineBatch(model, size, mode=mode)
    batch = EngineBatch(model, size, mode="eager")
    batch.compile(backend=None, capture_with=replay_capture)
    return batch


def greedy_codes(model, size: int, mode: str, frames: int) -> list[torch.Tensor]:
    """Codes of `size` streams (different lines) decoded together, EOS masked, in `mode`."""
    batch = loop_of(model, size, mode)
    tickets = {}
    for stream in range(size):
        text = f"<|speaker:0|> {LINES[stream % len(LINES)]} ({stream})"
        request = model.request(
            Conversation(layout="clone", text=text),
            GREEDY,
            stream,
            max_frames=frames,
            ignore_eos=True,
        )
        tickets[batch.submit(request)] = stream
    codes: list = [None] * size
    for done in batch.run():
        codes[tickets[done.ticket]] = done.generation.codes.cpu()
    return codes


def parity_row(report: Report, model, size: int, frames: int, preset: str) -> None:
    eager, captured = (greedy_codes(model, size, mode, frames) for mode in ("eager", "graph"))
    equal = sum(torch.equal(a, b) for a, b in zip(eager, captured))
    report.add(
        "2 graphs",
        f"{preset}, {size} streams x {frames} frames: captured = eager greedy codes",
        f"{equal}/{size}",
        "streams",
        "all equal",
        equal == size,
    )


def graph_section(report: Report, deadline: Callable[[], bool]) -> None:
    """Captured against eager greedy codes at every padded size on the tiny preset."""
    plan = report.plan
    model = random_model("tiny", plan.device)
    for size in plan.graph_sizes:
        if deadline():
            report.add("2 graphs", f"tiny, {size} streams: skipped, out of time", None)
            continue
        parity_row(report, model, size, plan.graph_frames, "tiny")


# ---- 3 speed --------------------------------------------------------------------------------


def prompt_of_rows(model, rows: int) -> Conversation:
    """A clone conversation whose prompt has exactly `rows` rows (reference clip sized to fit).
    Raises SystemExit when the text alone is longer."""

    def build(frames: int) -> Conversation:
        rng = np.random.default_rng(0)
        codes = np.concatenate(
            [rng.integers(0, 4096, (1, frames)), rng.integers(0, 1024, (9, frames))]
        )
        reference = Reference(
            0, "A reference sentence spoken slowly.", AudioClip(codes=codes.astype(np.int64))
        )
        return Conversation(
            layout="clone", references=(reference,), text=f"<|speaker:0|> {LINES[0]}"
        )

    frames = 8 + rows - len(model.build_prompt(build(8)).rows)
    if frames < 1:
        raise SystemExit(f"a prompt of {rows} rows is shorter than the prompt's text rows")
    return build(frames)


def kernels_per_frame(model, convo: Conversation, params: SamplingParams) -> float | None:
    """GPU kernels per decoded frame seen by torch.profiler (inside replayed CUDA graphs too):
    a 24-frame take minus an 8-frame take, over 16 (the prefix cache keeps both prefills the
    same). None off CUDA."""
    if model.device.type != "cuda":
        return None
    from torch.profiler import ProfilerActivity, profile

    counts = {}
    for frames in (8, 24):
        model.generate(convo, params, seed=3, max_frames=frames, ignore_eos=True)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            model.generate(convo, params, seed=3, max_frames=frames, ignore_eos=True)
            torch.cuda.synchronize()
        counts[frames] = sum(
            1
            for e in prof.events()
            if e.device_type.name == "CUDA"
            and "memcpy" not in e.name.lower()
            and "memset" not in e.name.lower()
        )
    return (counts[24] - counts[8]) / 16


def speed_rows(report: Report, section: str, model, label: str) -> Conversation:
    """Batch-1 frames/s and time to first audio of a prompt prefilled from scratch; returns the
    prompt's conversation for the section's other figures."""
    plan, params = report.plan, SamplingParams()
    convo = prompt_of_rows(model, plan.prompt_rows)
    model.generate(
        convo, params, seed=0, max_frames=plan.speed_frames, ignore_eos=True
    )  # compile, capture
    model.clear_prefix_cache()
    take = model.generate(convo, params, seed=1, max_frames=plan.speed_frames, ignore_eos=True)
    times = take.frame_times_s
    rate = (len(times) - 1) / (times[-1] - times[0])
    report.add(
        section,
        f"{label}: decode at batch 1",
        rate,
        "frames/s",
        f">= {GOAL_FRAMES_PER_S:.0f}",
        rate >= GOAL_FRAMES_PER_S,
    )
    first = times[min(FIRST_AUDIO_FRAMES, len(times)) - 1] * 1000
    report.add(
        section,
        f"{label}: first audio, {take.prompt_rows}-row prompt from scratch",
        first,
        "ms",
        f"< {GOAL_FIRST_AUDIO_MS:.0f}",
        first < GOAL_FIRST_AUDIO_MS,
    )
    return convo


def speed_section(report: Report, model) -> None:
    """Section 3 on the full-size model in its default decode mode (graph on CUDA)."""
    section = "3 speed"
    convo = speed_rows(report, section, model, f"{report.plan.preset}, {model.decode_mode}")
    count = kernels_per_frame(model, convo, SamplingParams())
    if count is None:
        report.add(
            section,
            "kernels per frame: needs CUDA (bench/frame_step.py counts them on the CPU)",
            None,
        )
    else:
        report.add(
            section,
            "kernels per frame (torch.profiler)",
            count,
            "kernels",
            f"<= {GOAL_KERNELS_PER_FRAME}",
            count <= GOAL_KERNELS_PER_FRAME,
        )
    if model.device.type == "cuda":
        report.add(section, "peak GPU memory", torch.cuda.max_memory_allocated() / 2**30, "GiB")


# ---- 4 streams ------------------------------------------------------------------------------


def streams_section(report: Report, model, deadline: Callable[[], bool]) -> None:
    """For each size B: B streams of the 500-row prompt (seeds of their own, EOS masked) through
    one decode loop; aggregate frames/s over the wall time (prefills included, the reference
    block from the prefix cache) and real-time factor per stream (wall s / audio s)."""
    plan, section = report.plan, "4 streams"
    convo = prompt_of_rows(model, plan.prompt_rows)
    for size in plan.stream_sizes:
        if deadline():
            report.add(section, f"{size} streams: skipped, out of time", None)
            continue
        batch = EngineBatch(model, size)
        for seed in range(size):  # warm-up: compiles and captures this size, fills the prefix cache
            batch.submit(
                model.request(convo, SamplingParams(), seed, max_frames=4, ignore_eos=True)
            )
        list(batch.run())
        synchronize(plan.device)
        started = time.perf_counter()
        for seed in range(size):
            batch.submit(
                model.request(
                    convo,
                    SamplingParams(),
                    100 + seed,
                    max_frames=plan.stream_frames,
                    ignore_eos=True,
                )
            )
        decoded = sum(done.generation.frames for done in batch.run())
        synchronize(plan.device)
        wall = time.perf_counter() - started
        rtf = wall / (plan.stream_frames / FRAMES_PER_SECOND)
        report.add(section, f"{size} streams: aggregate decode", decoded / wall, "frames/s")
        at_64 = size == 64
        report.add(
            section,
            f"{size} streams: real-time factor per stream",
            rtf,
            "",
            f"<= {GOAL_RTF_AT_64}" if at_64 else "",
            (rtf <= GOAL_RTF_AT_64) if at_64 else None,
        )


# ---- 5 offload ------------------------------------------------------------------------------


def offload_model(plan: Plan):
    """The section's model: experts in host memory under `plan.gpu_memory` on CUDA; on the CPU
    a simulated cache of half of each layer's experts."""
    config = Drama3Config.from_dict(preset_config_dict(plan.preset))
    if plan.gpu_memory is None:
        text = config.text
        settings = OffloadSettings(max(text.num_experts // 2, text.num_experts_per_tok), "lru")
    else:
        settings = offload_settings(
            config, None, torch.device(plan.device), torch.bfloat16, plan.gpu_memory
        )
    return random_model(plan.preset, plan.device, offload=settings)


def offload_section(report: Report) -> None:
    plan, section = report.plan, "5 offload"
    if plan.device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    model = offload_model(plan)
    if model.offload is None:
        report.add(section, "the whole model fits the budget: nothing offloaded", None)
        return
    budget = f"{plan.gpu_memory / 1e9:.0f} GB" if plan.gpu_memory else "half the experts"
    speed_rows(report, section, model, f"{plan.preset}, experts in host memory ({budget})")
    counts = model.offload.counters()
    lookups = counts.hits + counts.misses
    report.add(
        section,
        f"expert cache hit rate ({model.offload.slots} slots per layer)",
        counts.hits / lookups if lookups else None,
        "share",
    )
    if plan.device.startswith("cuda"):
        report.add(
            section,
            "peak GPU memory",
            torch.cuda.max_memory_allocated() / 2**30,
            "GiB",
            f"<= {plan.gpu_memory / 2**30:.1f}",
            torch.cuda.max_memory_allocated() <= plan.gpu_memory,
        )


# ---- the run --------------------------------------------------------------------------------


def run(plan: Plan, only: set[str], path: Path | None) -> Report:
    """Run the sections in `only` (all when empty) within `plan.budget_s`; returns the report."""
    report = Report(plan, path)

    def deadline() -> bool:
        return report.elapsed() > plan.budget_s

    def section(name: str, body: Callable[[], None]) -> None:
        if only and name[0] not in only:
            return
        if deadline():
            report.add(name, "skipped, out of time", None)
        else:
            started = report.elapsed()
            body()
            report.add(name, "wall time of this part", report.elapsed() - started, "s")
        report.save()

    section("1 kernels", lambda: kernel_section(report))
    section("2 graphs", lambda: graph_section(report, deadline))
    if not only or only & {"2", "3", "4"}:
        started = report.elapsed()
        model = random_model(plan.preset, plan.device)
        if model.device.type == "cuda":
            model.set_decode_mode("graph")
        report.add(
            "3 speed",
            f"set-up: {plan.preset} built on {plan.device}",
            report.elapsed() - started,
            "s",
        )
        section(
            "2 graphs", lambda: parity_row(report, model, 1, plan.full_graph_frames, plan.preset)
        )
        section("3 speed", lambda: speed_section(report, model))
        section("4 streams", lambda: streams_section(report, model, deadline))
        del model  # section 5 builds the model again with its experts in host memory
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    section("5 offload", lambda: offload_section(report))
    report.rows.sort(
        key=lambda row: row["section"][0]
    )  # table in section order, whatever ran first
    report.save()
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--json", type=Path, help="write the table as JSON here (rewritten after each section)"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="the CPU, tiny preset, small sizes: seconds"
    )
    parser.add_argument("--only", default="", help="sections to run, e.g. 4,5 (default all)")
    parser.add_argument(
        "--budget-s",
        type=float,
        help="start no section after this many seconds (default 450; --smoke 3600)",
    )
    args = parser.parse_args(argv)
    if not args.smoke and not torch.cuda.is_available():
        print(
            "gpu_check: no CUDA device here; run with --smoke for the CPU version", file=sys.stderr
        )
        return 2
    plan = Plan(**SMOKE) if args.smoke else Plan("cuda")
    if args.budget_s is not None:
        plan = replace(plan, budget_s=args.budget_s)
    if args.smoke:  # tiny products: one thread is fastest, and spins on no other process's cores
        torch.set_num_threads(1)
    torch.manual_seed(0)
    report = run(plan, {s.strip() for s in args.only.split(",") if s.strip()}, args.json)
    print(f"GPU check on {device_name(plan.device)} ({report.elapsed():.0f} s)")
    print(report.table())
    missed = [row for row in report.rows if row["met"] is False]
    print(f"{len(missed)} goal(s) not met" if missed else "every goal checked here was met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
