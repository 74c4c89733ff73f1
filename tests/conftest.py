"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import sys

import pytest
from fakes import SHORT_SCRIPT, render_with_edit_fake


def _share_cores_between_workers() -> None:
    """Under pytest-xdist, give each worker its share of the cores (torch and OpenMP threads,
    inherited by the commands tests start): more threads than cores make every worker wait."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 1:
        threads = str(max(1, (os.cpu_count() or 1) // workers))
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = threads
        import torch

        torch.set_num_threads(int(threads))


_share_cores_between_workers()


@pytest.fixture
def short_project(tmp_path, monkeypatch):
    """A rendered project of a script in the short YAML line form, with the edit tests' fake."""
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, SHORT_SCRIPT, "short.yaml")
    return path, fake


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A tiny random Drama 3 model folder (`engine.testing`, seed 0), codec included."""
    try:
        import engine.generate  # noqa: F401
        from engine.testing.checkpoints import write_checkpoint
    except ImportError as err:
        pytest.skip(f"the embedded engine is not available yet ({err})")
    folder = tmp_path_factory.mktemp("tiny-drama3")
    write_checkpoint(folder, "tiny", seed=0)
    return folder


@pytest.fixture
def no_encoder(tmp_path, monkeypatch):
    """A PATH without ffmpeg/avconv/lame and no importable imageio-ffmpeg."""
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
