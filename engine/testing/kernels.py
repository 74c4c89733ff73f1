"""The decode kernels against their torch references on the same inputs
(docs/internals/engine.md, "Kernels"): on CPU tensors under the Triton interpreter, or compiled
on a CUDA device (`bench/gpu_check.py`; every function takes `device`).

Triton decides at import time whether kernels are interpreted, so on the CPU this runs in a
process started with `TRITON_INTERPRET=1`: `python -m engine.testing.kernels [PRESET ...]` prints
one JSON object of maximum absolute errors per preset (routed FP8 experts for 1, 5 and 16 rows
through the decode kernels and for 17, 64 and 200 rows through the grouped prefill kernels, in
float32 and in bfloat16; the Gated DeltaNet decode step's output and state through
flash-linear-attention's fused recurrent kernel; elements changed when the expert kernels read
an expert cache instead of the resident stack). Exits with status 2 when the interpreter is off.
"""

from __future__ import annotations

import functools
import json
import os
import sys

import torch

from engine.checkpoint import BACKBONE_PREFIX, expected_tensors, is_routed_expert
from engine.config import Drama3Config
from engine.kernels.fp8_experts import fp8_experts_rows
from engine.kernels.fp8_grouped import fp8_experts_grouped
from engine.kernels.gated_delta import fla_kernels
from engine.layers.gated_deltanet import GatedDeltaNet
from engine.layers.moe import SparseMoE, tensor_names
from engine.offload.cache import ExpertCache
from engine.offload.store import HostExpertStore
from engine.testing.checkpoints import preset_config_dict, random_tensor

EXPERT_ROWS = (1, 5, 16)
PREFILL_ROWS = (17, 64, 200)
# Largest errors seen: experts 1e-6 on outputs of magnitude 1-2.5; Gated DeltaNet outputs 5e-7
# and states 1.2e-7 on states of magnitude ~1; grouped prefill kernels in float32 1.9e-6 at
# magnitude 2-3. Both sides accumulate in fp32 from the same values; only the order of the sums
# differs.
TOLERANCE = 2e-5
# The grouped prefill kernels in bfloat16 against the torch path in bfloat16 (which rounds each
# expert's output and the running sum to bfloat16): 0.0195 at magnitude 2-3, a bfloat16 step
# there being 0.0156; the bfloat16 torch path is itself 0.011 from float32.
BF16_TOLERANCE = 0.05


def layer_weights(
    preset: str, prefix: str, device: str = "cpu"
) -> tuple[Drama3Config, dict[str, torch.Tensor]]:
    """The random checkpoint tensors of `preset` under `prefix` (relative to the backbone's
    layer prefix, e.g. `layers.0.mlp.`), prefix stripped, on `device` (drawn on the CPU, so the
    values are the same on every device); FP8 experts as stored, the rest float32."""
    config = Drama3Config.from_dict(preset_config_dict(preset))
    specs, full = expected_tensors(config), BACKBONE_PREFIX + prefix
    weights = {}
    for name, spec in specs.items():
        if name.startswith(full):
            value = random_tensor(name, spec, 0, config)
            weights[name[len(full) :]] = (value if is_routed_expert(name) else value.float()).to(
                device
            )
    return config, weights


@functools.lru_cache(maxsize=2)  # drawing `full`'s layer 0 takes the CPU a while
def preset_moe(preset: str, device: str = "cpu") -> SparseMoE:
    """Layer 0's MoE block of `preset` on `device` (float32 dense weights, FP8 experts); one
    block per (preset, device), shared by the callers, which only read it."""
    config, weights = layer_weights(preset, "layers.0.mlp.", device)
    text = config.text
    return SparseMoE(weights, text.num_experts, text.num_experts_per_tok, config.weight_block_size)


def preset_gated_deltanet(preset: str, device: str = "cpu") -> GatedDeltaNet:
    """Layer 0's Gated DeltaNet mixer of `preset` on `device` (float32)."""
    config, weights = layer_weights(preset, "layers.0.linear_attn.", device)
    t = config.text
    return GatedDeltaNet(
        weights,
        t.linear_num_key_heads,
        t.linear_key_head_dim,
        t.linear_num_value_heads,
        t.linear_value_head_dim,
        t.rms_norm_eps,
    )


def random_rows(rows: int, width: int, seed: int, device: str) -> torch.Tensor:
    """Inputs `[rows, width]` float32 ~ N(0, 1), drawn on the CPU and moved to `device`."""
    return torch.randn(rows, width, generator=torch.Generator().manual_seed(seed)).to(device)


def expert_errors(preset: str, device: str = "cpu") -> dict[str, float]:
    """Max |kernel − torch| of the routed experts' output for each row count, and the largest
    reference magnitude (`scale`)."""
    moe, errors, scale = preset_moe(preset, device), {}, 0.0
    e = moe.experts
    for rows in EXPERT_ROWS:
        x = random_rows(rows, moe.router.shape[1], rows, device)
        weights, ids = moe.route(x)
        reference = moe._one_row(x, weights, ids) if rows == 1 else moe._many_rows(x, weights, ids)
        out = fp8_experts_rows(
            x,
            weights,
            ids,
            e.gate_proj,
            e.up_proj,
            e.down_proj,
            e.gate_proj_scale,
            e.up_proj_scale,
            e.down_proj_scale,
            e.block[0],
        )
        errors[f"rows_{rows}"] = (out - reference).abs().max().item()
        scale = max(scale, reference.abs().max().item())
    return {**errors, "scale": scale}


def prefill_errors(preset: str, device: str = "cpu") -> dict[str, float]:
    """Max |grouped kernel − torch| of the routed experts' output for each of `PREFILL_ROWS`,
    in float32 through `SparseMoE._grouped_rows` (`rows_N`) and in bfloat16 against the torch
    path in bfloat16 (`bf16_rows_N`), and the largest float32 reference magnitude (`scale`).
    Raises RuntimeError when the kernel returns another dtype than its input's."""
    moe, errors, scale = preset_moe(preset, device), {}, 0.0
    e = moe.experts
    experts = (
        e.gate_proj,
        e.up_proj,
        e.down_proj,
        e.gate_proj_scale,
        e.up_proj_scale,
        e.down_proj_scale,
        e.block[0],
    )
    for rows in PREFILL_ROWS:
        x = random_rows(rows, moe.router.shape[1], 100 + rows, device)
        weights, ids = moe.route(x)
        reference = moe._many_rows(x, weights, ids)
        out = moe._grouped_rows(x, weights, ids)  # SparseMoE's path on CUDA above 16 rows
        errors[f"rows_{rows}"] = (out - reference).abs().max().item()
        scale = max(scale, reference.abs().max().item())
        x, weights = x.bfloat16(), weights.bfloat16()
        reference = moe._many_rows(x, weights, ids).float()
        out = fp8_experts_grouped(x, weights, ids, *experts)
        if out.dtype != torch.bfloat16:
            raise RuntimeError(f"the grouped kernel returned {out.dtype} for bfloat16 rows")
        errors[f"bf16_rows_{rows}"] = (out.float() - reference).abs().max().item()
    return {**errors, "scale": scale}


def offload_differences(preset: str, rows_list: tuple[int, ...] = (1, 5, 16, 17)) -> dict[str, int]:
    """Elements of the routed experts' output that differ between `SparseMoE`'s kernel paths
    reading the resident stack and reading an `ExpertCache` of half the experts: decode kernels
    up to 16 rows (rows chunked so each chunk's experts fit), grouped kernels above (pairs
    computed group of experts by group). 0 everywhere means the cache changes no bit."""
    moe = preset_moe(preset)
    experts = [
        {name: getattr(moe.experts, name)[e] for name in tensor_names()}
        for e in range(moe.num_experts)
    ]
    cache = ExpertCache(
        HostExpertStore([experts]),
        0,
        max(moe.top_k, moe.num_experts // 2),
        moe.top_k,
        moe.block,
        torch.device("cpu"),
    )
    _, weights = layer_weights(preset, "layers.0.mlp.")
    cached = SparseMoE(weights, moe.num_experts, moe.top_k, moe.block, experts=cache)
    differences = {}
    for rows in rows_list:
        x = torch.randn(
            rows, moe.router.shape[1], generator=torch.Generator().manual_seed(200 + rows)
        )
        routing, ids = moe.route(x)
        path = "_fused_rows" if rows <= 16 else "_grouped_rows"
        full = moe._routed(x, routing, ids, getattr(moe, path))
        differences[f"rows_{rows}"] = int(
            (cached._routed(x, routing, ids, getattr(cached, path)) != full).sum()
        )
    return {**differences, "copies": cache.counters.copies}


def gated_delta_errors(
    preset: str, prompt_rows: int = 7, steps: int = 4, device: str = "cpu"
) -> dict[str, float]:
    """After a `prompt_rows` prefill, `steps` one-row steps through the torch recurrent rule and
    through the fused kernel (`GatedDeltaNet._delta_rule_fla`): max |difference| of outputs and of
    the final recurrent states, and the states' largest magnitude."""
    mixer, kernels = preset_gated_deltanet(preset, device), fla_kernels()
    if kernels is None:
        raise RuntimeError("flash-linear-attention is not importable")
    generator = torch.Generator().manual_seed(1)
    hidden = mixer.in_proj_qkv.shape[1]
    reference, fused = mixer.new_state(), mixer.new_state()
    prompt = torch.randn(prompt_rows, hidden, generator=generator).to(device)
    mixer(prompt, reference)
    mixer(prompt, fused)
    output_error = 0.0
    for _ in range(steps):
        x = torch.randn(1, hidden, generator=generator).to(device)
        expected = mixer(x, reference)
        mixer._fla = kernels  # route the delta rule through the kernels for this call only
        original = mixer._delta_rule
        mixer._delta_rule = lambda q, k, v, g, beta, state: mixer._delta_rule_fla(
            kernels, q, k, v, g, beta, state
        )
        try:
            got = mixer(x, fused)
        finally:
            mixer._delta_rule = original
        output_error = max(output_error, (got - expected).abs().max().item())
    return {
        "output": output_error,
        "state": (fused.recurrent - reference.recurrent).abs().max().item(),
        "state_scale": reference.recurrent.abs().max().item(),
    }


def main(argv: list[str] | None = None) -> int:
    """Print `{preset: {"experts": {...}, "prefill": {...}, "gated_delta": {...}, "offload": {...}}}`
    for the presets given (default tiny and small). Returns 2 without `TRITON_INTERPRET=1`."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("set TRITON_INTERPRET=1 before starting Python", file=sys.stderr)
        return 2
    presets = (argv if argv is not None else sys.argv[1:]) or ["tiny", "small"]
    torch.set_num_threads(1)
    report = {
        p: {
            "experts": expert_errors(p),
            "prefill": prefill_errors(p),
            "gated_delta": gated_delta_errors(p),
            "offload": offload_differences(p),
        }
        for p in presets
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
