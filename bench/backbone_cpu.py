"""Backbone decode speed on CPU: this engine vs transformers' Qwen3_5MoeForCausalLM.

Both run the same `small` random checkpoint (transformers with the experts dequantised, since
it has no block-FP8 path on CPU), the same prompt rows and the same teacher-forced decode rows,
in one process, one thread. Prints decode rows per second of transformers, of this engine in
eager mode (bare: every routed expert dequantised and packed for oneDNN at each use, the path
past the CPU's dense-copy budget), eager as `Drama3.load` sets it up on the CPU (dense weights
packed once, experts kept once dequantised within `dense_copy_budget()`: what a CPU render
runs) and with its compiled decode step (`Backbone.compile_decode`), the ratios (target
≥ 2.0 compiled), and the loaded engine's memory against the sum of its tensor bytes (FP8
experts must stay one byte per weight). The three take turns `--rounds` times and each keeps
its fastest round, so a slow spell of a shared machine does not land on one alone. The first
compiled step compiles (about a minute on a loaded CPU, cached by torch afterwards); it is not
timed.

    python bench/backbone_cpu.py [--prompt-rows 128] [--decode-rows 48] [--dtype float32] [--rounds 3]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.backbone import Backbone  # noqa: E402
from engine.checkpoint import Checkpoint  # noqa: E402
from engine.generate import dense_copy_budget  # noqa: E402
from engine.layers.moe import DenseBudget  # noqa: E402
from engine.testing.oracles import transformers_backbone  # noqa: E402


def rss_bytes() -> int:
    """Resident memory of this process now (Linux /proc)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize()


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def prompt_rows(config, n_rows: int, seed: int = 0) -> torch.Tensor:
    """A reference-like prompt: a quarter text rows, then semantic rows. [n_rows, 11] int64."""
    gen = torch.Generator().manual_seed(seed)
    n_text = n_rows // 4
    rows = torch.zeros(n_rows, 11, dtype=torch.long)
    rows[:n_text, 0] = torch.randint(0, 500, (n_text,), generator=gen)
    codes = torch.randint(0, 4096, (n_rows - n_text, 10), generator=gen)
    rows[n_text:, 1:] = codes
    rows[n_text:, 0] = config.semantic_start_token_id + codes[:, 0]
    return rows


@torch.inference_mode()
def time_engine(backbone: Backbone, x: torch.Tensor, prompt: int) -> tuple[float, torch.Tensor]:
    """Seconds for the decode rows after a `prompt`-row prefill, and their logits.
    The first decode row is a warm-up (it compiles when compiling is on) and is not timed."""
    cache = backbone.new_cache(capacity=x.shape[0])
    backbone(x[:prompt], cache)
    logits = [backbone.main_logits(backbone(x[prompt : prompt + 1], cache))]
    start = time.perf_counter()
    logits += [
        backbone.main_logits(backbone(x[i : i + 1], cache)) for i in range(prompt + 1, x.shape[0])
    ]
    return time.perf_counter() - start, torch.cat(logits)


@torch.inference_mode()
def time_transformers(
    model, x: torch.Tensor, prompt: int, ids: torch.Tensor
) -> tuple[float, torch.Tensor]:
    out = model(inputs_embeds=x[None, :prompt], use_cache=True, logits_to_keep=1)
    out = model(
        inputs_embeds=x[None, prompt : prompt + 1],
        past_key_values=out.past_key_values,
        use_cache=True,
    )
    past = out.past_key_values
    logits = [out.logits[0, :, ids]]
    start = time.perf_counter()
    for i in range(prompt + 1, x.shape[0]):
        out = model(inputs_embeds=x[None, i : i + 1], past_key_values=past, use_cache=True)
        past = out.past_key_values
        logits.append(out.logits[0, :, ids])
    return time.perf_counter() - start, torch.cat(logits)


def tensor_bytes(module: torch.nn.Module) -> int:
    """Bytes of every buffer and parameter of a module (FP8 counts one byte per value)."""
    tensors = list(module.buffers()) + list(module.parameters())
    return sum(t.numel() * t.element_size() for t in tensors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--folder", type=Path, help="an existing `small` checkpoint (default: write one)"
    )
    parser.add_argument("--prompt-rows", type=int, default=128)
    parser.add_argument("--decode-rows", type=int, default=48)
    parser.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    parser.add_argument(
        "--rounds", type=int, default=3, help="turns of each side; the fastest counts"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    dtype = getattr(torch, args.dtype)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp) / "small"
        if args.folder is None:  # written in a child process so it does not count in our peak
            subprocess.run(
                [sys.executable, "-m", "engine.testing", "small", str(folder), "--seed", "0"],
                check=True,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
            )
        run(Checkpoint(folder), dtype, args.prompt_rows, args.decode_rows, args.rounds)


def fastest_rounds(sides: dict, rounds: int) -> dict:
    """Run every side's timing function in turn `rounds` times; per side, the (seconds, logits)
    of its fastest round."""
    fastest = {}
    for _ in range(rounds):
        for name, timed in sides.items():
            result = timed()
            if name not in fastest or result[0] < fastest[name][0]:
                fastest[name] = result
    return fastest


def run(checkpoint: Checkpoint, dtype: torch.dtype, prompt: int, decode: int, rounds: int) -> None:
    base = rss_bytes()
    backbone = Backbone.from_checkpoint(checkpoint, "cpu", dtype)
    loaded, peak = rss_bytes() - base, peak_rss_bytes() - base
    weights = tensor_bytes(backbone)
    fp8 = sum(b.numel() for b in backbone.buffers() if b.dtype == torch.float8_e4m3fn)
    x = backbone.embed_rows(prompt_rows(checkpoint.config, prompt + decode + 1))
    kept = Backbone.from_checkpoint(checkpoint, "cpu", dtype)
    kept.keep_dense_copies(DenseBudget(dense_copy_budget()))  # as Drama3.load on the CPU
    compiling = Backbone.from_checkpoint(checkpoint, "cpu", dtype)
    compiling.compile_decode()
    model = transformers_backbone(checkpoint, dtype, attention="sdpa")
    sides = {
        "eager": lambda: time_engine(backbone, x, prompt),
        "kept": lambda: time_engine(kept, x, prompt),
        "compiled": lambda: time_engine(compiling, x, prompt),
        "theirs": lambda: time_transformers(model, x, prompt, backbone.candidate_token_ids()),
    }
    fastest = fastest_rounds(sides, rounds)
    (eager_s, eager), (kept_s, kept_logits), (compiled_s, compiled), (theirs_s, theirs) = (
        fastest[k] for k in ("eager", "kept", "compiled", "theirs")
    )
    scale = theirs.float().abs().max().item()
    errors = [
        (ours - theirs.float()).abs().max().item() / scale
        for ours in (eager, kept_logits, compiled)
    ]

    print(
        f"preset small, {dtype}, 1 thread, prompt {prompt} rows, {decode} timed decode rows, "
        f"fastest of {rounds} rounds"
    )
    print(f"transformers      {decode / theirs_s:8.2f} rows/s")
    print(
        f"engine, eager     {decode / eager_s:8.2f} rows/s   ratio {theirs_s / eager_s:5.2f}x  (bare)"
    )
    print(
        f"engine, eager     {decode / kept_s:8.2f} rows/s   ratio {theirs_s / kept_s:5.2f}x  "
        f"(as loaded for a CPU render: packed weights, kept experts)"
    )
    print(
        f"engine, compiled  {decode / compiled_s:8.2f} rows/s   ratio {theirs_s / compiled_s:5.2f}x  (target >= 2.0)"
    )
    print(
        f"max logit difference / logit scale: eager {errors[0]:.1e}, as loaded {errors[1]:.1e}, "
        f"compiled {errors[2]:.1e}"
    )
    print(
        f"engine tensors {weights / 1e6:.1f} MB ({fp8 / 1e6:.1f} M FP8 expert weights at 1 byte); "
        f"RSS after load +{loaded / 1e6:.1f} MB, peak during load +{peak / 1e6:.1f} MB "
        f"({loaded / weights:.2f}x / {peak / weights:.2f}x the tensor bytes)"
    )


if __name__ == "__main__":
    main()
