"""Exception types of the tool layer and the exit codes the CLI maps them to."""

from __future__ import annotations

import errno
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
    """Base of the tool's own errors; `exit_code` is what the CLI exits with. `results_printed`:
    the command printed its results (a report, a table, JSON) before raising, so `--json`
    prints no error object after them."""

    exit_code = EXIT_BAD_INPUT
    results_printed = False


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


class ScriptErrors(ScriptError):
    """Several located script errors found in one read.

    Behaves as its first error (message, position; the hint says how many more there are), so a
    caller that handles one ScriptError still works; `errors` holds all of them in source order.
    """

    def __init__(self, errors: list[ScriptError]):
        self.errors = list(errors)
        first = self.errors[0]
        more = len(self.errors) - 1
        hint = f"and {more} more problem{'s' if more != 1 else ''}: `drama check` lists them all"
        super().__init__(
            first.message, first.position, f"{first.hint}; {hint}" if first.hint else hint
        )


class AsrUnavailableError(UsageError):
    """The speech-recognition check was asked for but cannot run (extra or model missing)."""


class QcUnavailableError(UsageError):
    """A voice or quality check was asked for but cannot run (the `qc` extra is missing)."""


class InfillRefused(RenderError):
    """Raised by a backend that cannot generate an infill with the given prefix/suffix
    (for example an edit of the final word); the caller may retry without a suffix."""


class CorruptSelection(RenderError):
    """Selected takes that are corrupt were left out of a mix (exit code 1); the message
    names the first line and file."""

    exit_code = EXIT_CHECKS_FAILED
    results_printed = True

    def __init__(self, problems: list[str]):
        more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
        super().__init__(
            f"selected take corrupt, left out of the mix: {problems[0]}{more}; "
            f"choose another with drama takes --select or render again"
        )


def _names(lines: list[str]) -> str:
    return ", ".join(lines[:5]) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")


class LinesLeftOut(RenderError):
    """A mix finished without some lines (no usable selected take), or with takes made for
    older text (`stale`) or takes whose checks failed, selected by hand (`unusable`): exit
    code 1, like `drama render`; the message names the lines."""

    exit_code = EXIT_CHECKS_FAILED
    results_printed = True

    def __init__(self, lines: list[str], stale: list[str] = (), unusable: list[str] = ()):
        parts = [f"{len(lines)} line(s) left out of the mix: {_names(lines)}"] if lines else []
        if stale:
            parts.append(
                f"{len(stale)} line(s) voiced by a take made for older text: {_names(list(stale))}"
            )
        if unusable:
            parts.append(
                f"{len(unusable)} line(s) voiced by a take whose checks failed: "
                f"{_names(list(unusable))}"
            )
        super().__init__(
            "; ".join(parts) + "; render them again or choose a take with drama takes --select"
        )


class TakesNeedReview(RenderError):
    """A finished render whose takes need attention: exit code 1 (a line has no usable take)
    or 3 (some takes are degraded). The message names the lines."""

    results_printed = True

    def __init__(self, report):
        """report: a `drama_cli.render.report.RenderReport`."""
        self.exit_code = report.exit_code
        bad = [x for x in report.lines if x.status in ("failed", "degraded")]
        names = ", ".join(f"{x.line_id} ({x.status}: {x.message})" for x in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        parts = [f"{len(bad)} line(s) need review: {names}{more}"] if bad else []
        failed = {x.line_id for x in bad}
        left_out = [line for line in getattr(report, "left_out", []) if line not in failed]
        if left_out:
            parts.append(
                f"{len(left_out)} line(s) left out of a mix or voiced by a take made "
                f"for older text: {_names(left_out)}"
            )
        super().__init__("; ".join(parts))


class BookChecksFailed(DramaError):
    """A book was assembled but some of its files fail ACX's checks (exit code 1); the
    message names each file and the rule it fails."""

    exit_code = EXIT_CHECKS_FAILED
    results_printed = True

    def __init__(self, failures: list[str]):
        more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        super().__init__("ACX check failed: " + "; ".join(failures[:3]) + more)


class ModelPullError(DramaError):
    """A model download that could not finish (hub unreachable, unknown revision, disk full)."""


class ModelCheckFailed(DramaError):
    """`drama model verify` found mismatches; exits 1 (checks failed)."""

    exit_code = EXIT_CHECKS_FAILED
    results_printed = True


class CheckFailed(DramaError):
    """`drama check` found errors (already printed as `file:line:col: message` lines); exit 2."""

    exit_code = EXIT_BAD_INPUT
    results_printed = True


_SYSTEM_HINTS = {
    errno.EROFS: "make the project folder writable, or give --out FOLDER",
    errno.EACCES: "make the project folder writable, or give --out FOLDER",
    errno.EPERM: "make the project folder writable, or give --out FOLDER",
    errno.ENOSPC: "free some space and run the command again; finished takes are kept",
    errno.EDQUOT: "free some space and run the command again; finished takes are kept",
}


def system_error_message(err: BaseException) -> str | None:
    """One line for a failure of the file system under the tool (read-only folder, full disk,
    no permission), from an OSError or a soundfile error; None for any other exception."""
    if isinstance(err, OSError):
        what = (err.strerror or str(err)).lower()
        writing = err.errno in (errno.EROFS, errno.ENOSPC, errno.EDQUOT)
        where = (
            (f"cannot write {err.filename}" if writing else f"{err.filename}")
            if err.filename
            else "file system error"
        )
        hint = _SYSTEM_HINTS.get(err.errno)
        return f"{where}: {what}" + (f" ({hint})" if hint else "")
    if type(err).__module__ == "soundfile":
        return (
            f"audio file error: {err} (is the disk full or the folder read-only? "
            f"finished takes are kept)"
        )
    return None


def error_entry(err: BaseException | str) -> dict:
    """One error as JSON data: message and, for a script error, file, line, column and hint."""
    if isinstance(err, ScriptError):
        pos = err.position
        return {
            "file": pos.file,
            "line": pos.line,
            "column": pos.column,
            "message": err.message,
            "hint": err.hint,
        }
    return {"message": str(err)}


def error_report(err: BaseException | str, exit_code: int) -> dict:
    """The JSON object a `--json` command prints on stdout when it fails: `ok` false, the exit
    code, and every error (all of them for ScriptErrors)."""
    errors = err.errors if isinstance(err, ScriptErrors) else [err]
    return {"ok": False, "exit_code": exit_code, "errors": [error_entry(e) for e in errors]}


class JobCancelled(DramaError):
    """A studio job stopped because its producer cancelled it; every take it finished is kept."""


class ServerError(RenderError):
    """A speech server that did not serve a request, in one line naming the server (its origin,
    never a credential) and the cause; the API key never appears in it.

    cause: `unreachable` (connection refused, unknown host), `timeout` (no answer, or a stream
    that stopped sending), `key` (401/403), `payment` (402), `busy` (429/5xx after the retries,
    or a wait longer than allowed), `refused` (another 4xx: the server's own message), `format`
    (an unexpected content type, a missing or wrong sample rate, unreadable audio), `truncated`
    (a stream cut short), `model` (the answer was voiced by another model), `request` (a
    request this server's wire format cannot carry). status: the HTTP status, or None.
    """

    def __init__(self, message: str, cause: str, status: int | None = None):
        super().__init__(message)
        self.cause = cause
        self.status = status
