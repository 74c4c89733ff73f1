"""Command groups of the CLI; each module defines `register(app)`."""

from __future__ import annotations

import importlib

import typer

COMMAND_MODULES = ("script", "model", "render", "edit")


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
