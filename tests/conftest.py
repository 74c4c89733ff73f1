"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest
from fakes import SHORT_SCRIPT, render_with_edit_fake


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
