"""Command groups of the CLI; each module defines `register(app)`."""

from __future__ import annotations

import importlib
import inspect

import typer
from typer.core import TyperCommand

from drama_cli.commands.help_style import TidyHelpCommand

# One module per command (a group: `model`), registered in this order.
COMMAND_MODULES = (
    "check",
    "compile",
    "model",
    "render",
    "say",
    "takes",
    "qc",
    "mix",
    "revise",
    "edit",
    "plot",
    "book",
    "import_",
    "voices",
    "cast",
    "reference",
)


def register_all(app: typer.Typer, views=()) -> None:
    """Register every command group that exists on `app`, then each `register` function of
    `views` (verbs that live in packages after the commands, such as the studio)."""
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"drama_cli.commands.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"drama_cli.commands.{name}":
                continue
            raise
        module.register(app)
    for register in views:
        register(app)
    reflow_help(app)
    tidy_help(app)


def tidy_help(app: typer.Typer) -> None:
    """Give every command of `app` and its groups `TidyHelpCommand` (`--help` with arguments
    in capitals and flags without a type)."""
    for info in _commands(app):
        if info.cls in (None, TyperCommand):  # typer's default; a command's own class stays
            info.cls = TidyHelpCommand


def _commands(app: typer.Typer) -> list:
    """The registered commands of `app` and of its groups."""
    commands = list(app.registered_commands)
    for group in app.registered_groups:
        commands += group.typer_instance.registered_commands
    return commands


def reflow_help(app: typer.Typer) -> None:
    """Give every command without its own `help` its docstring with each paragraph joined into
    one line, so help texts wrap at the terminal's width instead of breaking mid-sentence where
    the source lines end."""
    for info in _commands(app):
        doc = inspect.getdoc(info.callback) if info.help is None and info.callback else None
        if doc:
            info.help = "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))
