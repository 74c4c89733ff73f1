"""Command groups of the CLI; each module defines `register(app)`."""

from __future__ import annotations

import importlib
import inspect

import typer

COMMAND_MODULES = ("script", "model", "render", "takes", "mix", "edit", "book")


def register_all(app: typer.Typer) -> None:
    """Register every command group that exists on `app`."""
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"drama_cli.commands.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"drama_cli.commands.{name}":
                continue
            raise
        module.register(app)
    reflow_help(app)


def reflow_help(app: typer.Typer) -> None:
    """Give every command without its own `help` its docstring with each paragraph joined into
    one line, so help texts wrap at the terminal's width instead of breaking mid-sentence where
    the source lines end."""
    commands = list(app.registered_commands)
    for group in app.registered_groups:
        commands += group.typer_instance.registered_commands
    for info in commands:
        doc = inspect.getdoc(info.callback) if info.help is None and info.callback else None
        if doc:
            info.help = "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))
