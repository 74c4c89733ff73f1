"""`OptionGroup`: options that several commands take together, declared once."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from typer.models import OptionInfo


class OptionGroup:
    """Options declared once and given to several commands as one parameter.

    `OptionGroup(engine=(str, typer.Option("auto", ...)), ...)` holds each option's parameter
    name, type and declaration. `@GROUP.into("backend")` on a command puts the group's options
    in the command's signature where its parameter `backend` stands, and calls the command
    with `backend` set to a dict {parameter name: value given}.
    """

    def __init__(self, **options: tuple[Any, OptionInfo]):
        self.options = options

    def into(self, name: str) -> Callable[[Callable], Callable]:
        """A decorator giving a command this group in place of its parameter `name`."""

        def add(command: Callable) -> Callable:
            signature = inspect.signature(command, eval_str=True)
            params = []
            for param in signature.parameters.values():
                params += self._parameters(param.kind) if param.name == name else [param]

            @functools.wraps(command)
            def run(**values):
                group = {key: values.pop(key) for key in self.options}
                return command(**values, **{name: group})

            run.__signature__ = signature.replace(parameters=params)
            run.__annotations__ = {p.name: p.annotation for p in params}
            return run

        return add

    def _parameters(self, kind) -> list[inspect.Parameter]:
        return [
            inspect.Parameter(key, kind, default=option, annotation=annotation)
            for key, (annotation, option) in self.options.items()
        ]
