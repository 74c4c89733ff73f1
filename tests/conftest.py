"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest
from fakes import SHORT_SCRIPT, render_with_edit_fake


@pytest.fixture
def short_project(tmp_path, monkeypatch):
    """A rendered project of a script in the short YAML line form, with the edit tests' fake."""
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, SHORT_SCRIPT, "short.yaml")
    return path, fake
