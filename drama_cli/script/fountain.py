"""Fountain reader (work in progress)."""

from __future__ import annotations

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.model import Script


def read_fountain(source: str, path: str = "<script>", base_dir: str | None = None) -> Script:
    """Read a Fountain screenplay into a Script (not implemented yet: raises ScriptError)."""
    raise ScriptError("Fountain scripts are not supported yet", SourcePosition(path, 1, 1))
