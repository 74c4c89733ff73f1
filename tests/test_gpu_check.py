"""bench/gpu_check.py, the one command for the first GPU, run as `--smoke`: the same sections on
the CPU with the tiny preset (Triton kernels under the interpreter, graph capture through the
replaying stand-in), so the script cannot rot without a GPU."""

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAS_TRITON = importlib.util.find_spec("triton") is not None


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("gpu-check") / "check.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRITON_INTERPRET": "1"}
    done = subprocess.run(
        [sys.executable, "bench/gpu_check.py", "--smoke", "--json", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text()), done.stdout


def rows_of(report: dict, section: str) -> list[dict]:
    return [
        row
        for row in report["rows"]
        if row["section"].startswith(section)
        and row["value"] is not None
        and not row["item"].startswith("wall time")
    ]


@pytest.mark.skipif(
    not HAS_TRITON, reason="triton is not installed (the test extra installs it on Linux x86-64)"
)
def test_every_kernel_row_is_within_its_tolerance(smoke):
    report, _ = smoke
    rows = rows_of(report, "1")
    assert (
        len(rows) == 3 + 3 * 2 + 2
    )  # decode experts, prefill in two dtypes, Gated DeltaNet output and state
    assert all(row["met"] is True and 0 <= row["value"] for row in rows), rows


def test_captured_and_eager_greedy_codes_are_equal_at_every_padded_size(smoke):
    report, _ = smoke
    rows = rows_of(report, "2")
    assert [row["value"] for row in rows] == [
        "1/1",
        "2/2",
        "4/4",
        "1/1",
    ]  # tiny at 1, 2, 4; the model at 1
    assert all(row["met"] is True for row in rows)


def test_speed_streams_and_offload_give_finite_figures_beside_their_goals(smoke):
    report, _ = smoke
    speed = {row["item"]: row for row in rows_of(report, "3")}
    decode = next(row for item, row in speed.items() if "decode at batch 1" in item)
    first_audio = next(row for item, row in speed.items() if "first audio, 150-row prompt" in item)
    assert decode["goal"] == ">= 300" and decode["value"] > 0 and math.isfinite(decode["value"])
    assert first_audio["goal"] == "< 80" and first_audio["value"] > 0
    streams = {row["item"]: row["value"] for row in rows_of(report, "4")}
    assert set(streams) == {
        "2 streams: aggregate decode",
        "2 streams: real-time factor per stream",
        "4 streams: aggregate decode",
        "4 streams: real-time factor per stream",
    }
    assert all(value > 0 for value in streams.values())
    offload = {row["item"]: row["value"] for row in rows_of(report, "5")}
    hit_rate = offload["expert cache hit rate (4 slots per layer)"]
    assert 0 < hit_rate < 1  # half the experts cached: some lookups hit, some copy


def test_the_table_lists_every_row_in_section_order(smoke):
    report, stdout = smoke
    sections = [row["section"] for row in report["rows"]]
    assert sections == sorted(sections, key=lambda name: name[0])
    assert report["plan"]["preset"] == "tiny" and report["device_name"] == "cpu"
    for row in report["rows"]:
        assert row["item"][:58] in stdout


def test_without_cuda_the_full_check_refuses_and_points_at_smoke(tmp_path):
    done = subprocess.run(
        [sys.executable, "bench/gpu_check.py", "--json", str(tmp_path / "x.json")],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "--smoke" in done.stderr
    assert not (tmp_path / "x.json").exists()
