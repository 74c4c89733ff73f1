"""The decode kernels on CPU tensors under the Triton interpreter, against the torch references:
the block-FP8 routed experts (engine/kernels/fp8_experts.py) for 1, 5 and 16 rows, their grouped
prefill kernels (engine/kernels/fp8_grouped.py) for 17, 64 and 200 rows, and the Gated DeltaNet
step through flash-linear-attention's fused recurrent kernel
(engine/kernels/gated_delta.py), on layer 0 of the tiny preset (the small preset's layer takes
the interpreter minutes: `TRITON_INTERPRET=1 python -m engine.testing.kernels small` by hand;
bench/gpu_check.py runs the kernels compiled on a GPU at full size).

Triton chooses interpretation when it is imported, so the comparison runs in a child process
started with TRITON_INTERPRET=1 (`python -m engine.testing.kernels`)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.testing import kernels

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE, BF16_TOLERANCE = kernels.TOLERANCE, kernels.BF16_TOLERANCE

pytest.importorskip("triton")


@pytest.fixture(scope="module")
def report() -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "engine.testing.kernels", "tiny"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("preset", ["tiny"])
def test_fp8_expert_kernel_matches_torch(report, preset):
    errors = report[preset]["experts"]
    assert errors["scale"] > 0.5  # a real signal on both sides
    for rows in kernels.EXPERT_ROWS:
        assert errors[f"rows_{rows}"] < TOLERANCE, (rows, errors)


@pytest.mark.parametrize("preset", ["tiny"])
def test_grouped_fp8_prefill_kernel_matches_torch(report, preset):
    errors = report[preset]["prefill"]
    assert errors["scale"] > 0.5
    for rows in kernels.PREFILL_ROWS:
        assert errors[f"rows_{rows}"] < TOLERANCE, (rows, errors)
        assert errors[f"bf16_rows_{rows}"] < BF16_TOLERANCE, (rows, errors)


@pytest.mark.parametrize("preset", ["tiny"])
def test_fused_recurrent_gated_delta_matches_torch(report, preset):
    errors = report[preset]["gated_delta"]
    assert errors["state_scale"] > 0.1
    assert errors["output"] < TOLERANCE and errors["state"] < TOLERANCE, errors


def test_the_comparison_refuses_to_run_compiled(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert kernels.main([]) == 2


@pytest.mark.parametrize("preset", ["tiny"])
def test_expert_kernels_read_an_expert_cache_bit_for_bit(report, preset):
    differences = report[preset]["offload"]
    assert differences["copies"] > 0  # the cache really was filled from the host store
    assert all(count == 0 for name, count in differences.items() if name.startswith("rows_")), (
        differences
    )
