"""The `drama` command line: parses arguments, prints, maps errors to exit codes; no logic.

Each command group lives in its own module under `drama_cli/commands/` and registers itself
on `app` here.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sys

import typer

from drama_cli import __version__
from drama_cli.commands import register_all
from drama_cli.commands.help_style import TidyHelpGroup
from drama_cli.commands.options import JSON
from drama_cli.errors import (
    EXIT_BAD_INPUT,
    DramaError,
    error_report,
    system_error_message,
)
from drama_cli.studio.command import register as register_studio
from engine.errors import EngineError

app = typer.Typer(
    name="drama",
    help="Direct scripted voice performances with Fish Audio Drama 3.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=TidyHelpGroup,
)


def _print_version(value: bool) -> None:
    if value:
        print(__version__)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the tool's version and exit.",
    ),
) -> None:
    """Direct scripted voice performances with Fish Audio Drama 3."""


@app.command()
def version(as_json: bool = JSON) -> None:
    """Print the tool's version."""
    print(json.dumps({"version": __version__}) if as_json else __version__)


_registered_on: set[int] = set()


def _register_commands() -> None:
    """Register every command group on `app`, once per app: `main` may be called many times
    in one process."""
    if id(app) in _registered_on:
        return
    register_all(app, views=(register_studio,))
    _registered_on.add(id(app))


EXIT_INTERRUPTED = 130
# What Ctrl-C leaves behind, for the commands that write takes or mixes.
AFTER_INTERRUPT = {
    "render": "every finished take is kept; run the same command again to continue where it stopped",
    "revise": "takes already written are kept; run the command again for a new take",
    "edit": "takes already written are kept; run the command again for a new take",
    "mix": "the takes are untouched; run the same command again to mix",
    "studio": "every take and selection made in the studio is kept",
    "book": "every finished take is kept and the book folder holds the files of the last complete "
    "run; run the same command again to continue (lines with a take are not rendered again)",
}


def _interrupted(args: list[str], as_json: bool = False) -> int:
    """Say that Ctrl-C stopped the command, what was kept and how to go on; exit 130. With
    `--json` stdout also gets the JSON error object (`kept`: what was kept, when known)."""
    verb = next((a for a in args if not a.startswith("-")), "")
    after = AFTER_INTERRUPT.get(verb)
    message = "interrupted" + (f": {after}" if after else "")
    print(f"drama: {message}", file=sys.stderr)
    if as_json:
        report = error_report(message, EXIT_INTERRUPTED) | ({"kept": after} if after else {})
        print(json.dumps(report, indent=2, ensure_ascii=False), flush=True)
    return EXIT_INTERRUPTED


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away


def _pipe_closed() -> int:
    """The reader of stdout went away (`drama render ... | head -1`): stop quietly, with no
    message, like other command-line tools. stdout is pointed at /dev/null so that the
    interpreter's last flush does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `drama` console script; returns the process exit code.

    Known errors become one line on stderr and exit code 2 (bad input) or their own code; with
    `--json` stdout also gets a JSON error object (`drama_cli.errors.error_report`) unless the
    command printed its results first. `--debug` anywhere on the command line shows the
    traceback instead.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    as_json = "--json" in args
    _register_commands()
    try:
        code = _run(args, debug, as_json)
        if code == EXIT_INTERRUPTED and argv is None:
            # A second Ctrl-C while the interpreter waits for worker threads ends the process
            # quietly instead of with a traceback from its exit handlers.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        if debug:
            raise
        return _pipe_closed()


def _run(args: list[str], debug: bool, as_json: bool) -> int:
    """Run the command line `args`; returns the exit code (see `main`)."""

    def fail(err: BaseException, message: str, code: int) -> int:
        print(f"drama: {message}", file=sys.stderr)
        if as_json and not getattr(err, "results_printed", False):
            print(
                json.dumps(
                    error_report(message if not isinstance(err, DramaError) else err, code),
                    indent=2,
                    ensure_ascii=False,
                )
            )
        return code

    try:
        # Outside standalone mode a command that raises typer.Exit(code) returns the code.
        result = app(args, standalone_mode=False, prog_name="drama")
        if result == EXIT_INTERRUPTED:  # typer turns Ctrl-C into this exit code
            return _interrupted(args, as_json)
        if isinstance(result, int):
            return result
    except DramaError as err:
        if debug:
            raise
        return fail(err, str(err), err.exit_code)
    except EngineError as err:
        if debug:
            raise
        return fail(err, str(err), EXIT_BAD_INPUT)
    except (typer.Abort, KeyboardInterrupt):
        return _interrupted(args, as_json)
    except typer.Exit as exit_:
        return exit_.exit_code
    except BrokenPipeError:
        raise  # `main` ends a closed pipe quietly
    except SystemExit as exit_:
        # click and rich turn a write to a closed stdout into exit 1; `main` ends it quietly
        closed = exit_.__context__
        if isinstance(closed, OSError) and closed.errno == errno.EPIPE:
            raise BrokenPipeError(errno.EPIPE, "stdout was closed") from None
        raise
    except Exception as err:
        # Usage errors of the argument parser arrive here in non-standalone mode.
        if hasattr(err, "show") and hasattr(err, "exit_code") and not debug:
            if not err.format_message().strip():  # no arguments at all: the help was shown
                return EXIT_BAD_INPUT
            return fail(err, _usage_line(err), EXIT_BAD_INPUT)
        message = None if debug else system_error_message(err)
        if message is None:
            raise
        return fail(err, message, EXIT_BAD_INPUT)
    return 0


def _usage_line(err) -> str:
    """A parser error as one line: click's message and where the command's help is."""
    context = getattr(err, "ctx", None)
    command = context.command_path if context is not None else "drama"
    return f"{err.format_message()} (see '{command} --help')"


if __name__ == "__main__":
    sys.exit(main())
