"""What one decoded frame costs in dispatched operations, host synchronisations and kernels,
for the decode loop at batch 1 (engine/batch.py) and for its step alone (engine/step.py), on the CPU.

    python bench/frame_step.py --preset tiny --set num_hidden_layers=40 [--frames 64]

Writes a random checkpoint of the preset (sizes changed by `--set KEY=INT`) into a temporary
folder and prints:
  * `eager ops per frame` and `host syncs per frame (loop)`: aten operations and host
    synchronisations per frame of `Drama3.generate` (counted by
    `engine.testing.dispatch.OpCounter`, difference between a 12- and a 4-frame take);
  * the same for the step alone run eagerly (`eager ops per frame (step)`);
  * `graph breaks`: of `torch._dynamo.explain` over the step;
  * `recompiles over N frames`: graphs compiled after the first while the compiled step decodes
    `--frames` frames of growing context (`torch.compile(fullgraph=True, dynamic=False)`);
  * `host syncs per frame (captured)`: scalar reads and data-dependent sizes in Inductor's code;
  * `kernels per frame (captured)`: Inductor's generated kernels plus extern calls (matmuls and
    other library calls) run by one step, nested subgraphs counted once per call;
  * whether the compiled step's greedy codes equal the eager step's and the loop's.
Inductor's first compile takes minutes on a small CPU (cached by torch on disk afterwards).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.batch import EngineBatch  # noqa: E402
from engine.conversation import Conversation  # noqa: E402
from engine.generate import Drama3  # noqa: E402
from engine.sampling import SamplingParams  # noqa: E402
from engine.step import SlotStack, decode_step  # noqa: E402
from engine.testing.checkpoints import write_checkpoint  # noqa: E402
from engine.testing.dispatch import OpCounter  # noqa: E402

LINE = "<|speaker:0|> Hi there, how are you?"
GREEDY = SamplingParams(temperature=0.0, ras_window=0)
KERNEL_CALL = re.compile(
    r"(?:^|= )(cpp_fused_\w+|triton_\w+\.run|extern_kernels\.\w+|torch\.ops\.[\w.]+|"
    r"aten\.[\w.]+)\("
)
SUBGRAPH_CALL = re.compile(r"= (\w*subgraph_\d+)\(")
SYNC_CALL = re.compile(r"\.item\(\)|_local_scalar_dense|aten\.nonzero|\.tolist\(\)")
FUNCTION = re.compile(r"^(?:    )?def (\w+)\(")


def kernels_per_call(code: str) -> tuple[int, int]:
    """(kernels, host syncs) one call of Inductor's generated module runs: kernel and extern
    calls of `call`, plus those of each nested subgraph function once per call of it."""
    bodies: dict[str, list[str]] = {}
    current = None
    for line in code.splitlines():
        match = FUNCTION.match(line)
        if match:
            current = match.group(1)
            bodies[current] = []
        elif current is not None:
            bodies[current].append(line.strip())

    def count(name: str, seen: tuple[str, ...] = ()) -> tuple[int, int]:
        kernels = syncs = 0
        for line in bodies.get(name, []):
            if line.startswith("#"):
                continue
            kernels += bool(KERNEL_CALL.search(line))
            syncs += bool(SYNC_CALL.search(line))
            sub = SUBGRAPH_CALL.search(line)
            if sub and sub.group(1) in bodies and sub.group(1) not in seen:
                k, s = count(sub.group(1), (*seen, name))
                kernels, syncs = kernels + k, syncs + s
        return kernels, syncs

    return count("call")


def per_frame(model: Drama3, conversation: Conversation) -> tuple[float, float]:
    """(ops, syncs) per frame of `model.generate`: a 12-frame take minus a 4-frame take, over 8."""
    counted = {}
    for frames in (4, 12):
        with OpCounter() as ops:
            model.generate(conversation, GREEDY, seed=0, max_frames=frames, ignore_eos=True)
        counted[frames] = (ops.total, ops.syncs)
    return tuple((counted[12][i] - counted[4][i]) / 8 for i in range(2))


def loaded_stack(model: Drama3, conversation: Conversation, frames: int) -> SlotStack:
    """One stream joined to a loop of one: the stack of its next step, attending over the whole
    slot (the static shape a compiled step needs)."""
    batch = EngineBatch(model, 1, mode="eager")
    batch.submit(model.request(conversation, GREEDY, 0, frames, ignore_eos=True))
    batch._prefill()
    stack = batch.storage.stack(1)
    stack.attend_within(None)
    return stack


def step_rows(stack: SlotStack, steps: int, step=decode_step) -> torch.Tensor:
    """Run `steps` steps of `stack`; the rows they made `[steps, 11]`."""
    rows = []
    for _ in range(steps):
        step(stack)
        rows.append(stack.row[0].clone())
    return torch.stack(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="tiny", choices=("tiny", "small"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=INT")
    parser.add_argument("--frames", type=int, default=64)
    args = parser.parse_args()
    overrides = {k: int(v) for k, v in (item.split("=", 1) for item in args.set)}
    started = time.perf_counter()
    folder = tempfile.mkdtemp(prefix="frame-step-")
    write_checkpoint(folder, args.preset, seed=0, with_codec=False, overrides=overrides)
    model = Drama3.load(folder, device="cpu")
    conversation = Conversation(layout="clone", references=(), text=LINE)
    config = model.config
    print(
        f"{args.preset} preset {overrides or ''}: {config.num_layers} backbone layers, "
        f"{len(model.tower.shared_layers) + len(model.tower.residual_layers)} tower layers"
    )
    model.generate(
        conversation, GREEDY, seed=0, max_frames=2, ignore_eos=True
    )  # warm-up, prefix cache

    with torch.no_grad():
        ops, syncs = per_frame(model, conversation)
        print(f"eager ops per frame: {ops:.0f}")
        print(f"host syncs per frame (loop): {syncs:.0f}")
        loop = model.generate(conversation, GREEDY, seed=0, max_frames=args.frames, ignore_eos=True)

        reference = loaded_stack(model, conversation, args.frames)
        with OpCounter() as counted:
            rows = step_rows(reference, 8)
        print(f"eager ops per frame (step): {counted.total / 8:.0f}")
        print(f"host syncs per frame (step, eager): {counted.syncs / 8:.0f}")
        expected = torch.cat((rows, step_rows(reference, args.frames - 8)))

        explained = torch._dynamo.explain(decode_step)(
            loaded_stack(model, conversation, args.frames)
        )
        print(f"graph breaks: {explained.graph_break_count}")

        from torch._dynamo.utils import counters
        from torch._inductor.utils import run_and_get_code

        torch._dynamo.reset()
        counters.clear()
        stack = loaded_stack(model, conversation, args.frames)
        step = torch.compile(decode_step, fullgraph=True, dynamic=False)
        compile_started = time.perf_counter()
        _, code = run_and_get_code(step, stack)
        compile_s = time.perf_counter() - compile_started
        first = stack.row[0].clone()
        first_graphs = counters["stats"]["unique_graphs"]
        timed = time.perf_counter()
        compiled = torch.cat((first[None], step_rows(stack, args.frames - 1, step)))
        step_ms = 1000 * (time.perf_counter() - timed) / max(args.frames - 1, 1)
        print(
            f"recompiles over {args.frames} frames: {counters['stats']['unique_graphs'] - first_graphs}"
        )
        kernels, code_syncs = kernels_per_call(code[-1])
        print(f"host syncs per frame (captured): {code_syncs}")
        print(f"kernels per frame (captured): {kernels}")
        same_step = torch.equal(compiled, expected)
        same_loop = torch.equal(compiled[:, 1:].t(), loop.codes)
        print(f"greedy codes equal: compiled vs eager step {same_step}, vs the loop {same_loop}")
        print(f"compile {compile_s:.0f} s; compiled step {step_ms:.1f} ms per frame on the CPU")
    print(f"total wall time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
