"""Where the commands write: notices on stderr, results on stdout (a rich console as wide as
the terminal, or unlimited in a pipe), audio streamed to stdout."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from drama_cli.errors import UsageError

SCRATCH_LABEL = "SCRATCH timing draft (piper voice), not a Drama 3 performance"


def notice(message: str) -> None:
    """Print `drama: message` on stderr (warnings, notes, progress lines)."""
    print(f"drama: {message}", file=sys.stderr)


def results_console(stderr: bool = False):
    """A rich console for results (on stderr with `stderr`): as wide as the terminal, or
    unlimited when it is a pipe or a file, so tables keep full ids. Markup, emoji codes and
    highlighting are off: script text (`[sighs]`, `[[note]]`, a name `Bob [the builder]`, an
    id `:x:`) is printed as written, never read as rich styles or emoji. Every rich output of
    the commands goes through this console."""
    from rich.console import Console  # lazy: 17 ms at start-up, for the commands that print tables

    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 10_000
    return Console(stderr=stderr, width=width, markup=False, emoji=False, highlight=False)


def refuse_audio_to_terminal() -> None:
    """Raise UsageError when stdout is a terminal: `-o -` audio belongs in a pipe or a file,
    and bytes of audio would only garble the terminal. Called before any work is done."""
    if sys.stdout.isatty():
        raise UsageError(
            "-o - writes audio to stdout, which is a terminal: pipe it "
            "(| sox -t wav - out.ogg) or redirect it (> out.wav)"
        )


def audio_to_stdout(path: Path) -> None:
    """Copy an audio file to stdout in 1 MB blocks (for `| sox` and `| ffmpeg` pipelines)."""
    with open(path, "rb") as source:
        shutil.copyfileobj(source, sys.stdout.buffer, 1 << 20)
    sys.stdout.buffer.flush()


# The formats `-o -` streams, the default first: lossless, and read by `sox` and `ffmpeg` from a pipe.
STDOUT_FORMATS = ("wav", "flac")


def stdout_format(formats: Sequence[str] | None) -> str:
    """The one format `-o -` streams, from the `--format` values given (none: the default).
    Raises UsageError for more than one or one not in STDOUT_FORMATS."""
    kinds = [f.lower().lstrip(".") for f in formats or STDOUT_FORMATS[:1]]
    if len(kinds) != 1 or kinds[0] not in STDOUT_FORMATS:
        raise UsageError(
            f"-o - writes {' or '.join(f.upper() for f in STDOUT_FORMATS)}: give at most one "
            f"--format, {' or '.join(STDOUT_FORMATS)}"
        )
    return kinds[0]
