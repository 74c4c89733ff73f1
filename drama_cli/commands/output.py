"""Where the commands write: notices on stderr, results on stdout (a rich console as wide as
the terminal, or unlimited in a pipe), audio streamed to stdout."""

from __future__ import annotations

import sys
from pathlib import Path

SCRATCH_LABEL = "SCRATCH timing draft (piper voice), not a Drama 3 performance"


def notice(message: str) -> None:
    """Print `drama: message` on stderr (warnings, notes, progress lines)."""
    print(f"drama: {message}", file=sys.stderr)


def results_console():
    """A rich console for results on stdout: as wide as the terminal, or unlimited when stdout
    is a pipe or a file, so tables keep full ids."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=10_000)


def audio_to_stdout(path: Path) -> None:
    """Copy an audio file to stdout in 1 MB blocks (for `| sox` and `| ffmpeg` pipelines)."""
    import shutil

    with open(path, "rb") as source:
        shutil.copyfileobj(source, sys.stdout.buffer, 1 << 20)
    sys.stdout.buffer.flush()
