"""Exception types of the tool layer and the exit codes the CLI maps them to."""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_CHECKS_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_DEGRADED = 3


@dataclass
class SourcePosition:
    """A place in a source file: 1-based line and column."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class DramaError(Exception):
    """Base of the tool's own errors; `exit_code` is what the CLI exits with."""

    exit_code = EXIT_BAD_INPUT


class ScriptError(DramaError):
    """Bad script input. Always carries the file, line and column it refers to.

    Rendered as ``file:line:col: message`` (the form compilers and editors understand).
    """

    def __init__(self, message: str, position: SourcePosition, hint: str | None = None):
        self.message = message
        self.position = position
        self.hint = hint
        text = f"{position}: {message}"
        if hint:
            text += f" ({hint})"
        super().__init__(text)


class UsageError(DramaError):
    """A command-line request that cannot be served as given (unknown line, bad span, ...)."""


class RenderError(DramaError):
    """A render that could not finish (backend failure, missing encoder, locked project)."""
