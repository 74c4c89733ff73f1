"""Collecting script errors across lines, so `drama check` can list every problem at once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from drama_cli.errors import ScriptError, ScriptErrors


class Problems:
    """A collector of ScriptErrors: `with problems.collect(): ...` records an error and goes on."""

    def __init__(self) -> None:
        self.errors: list[ScriptError] = []

    @contextmanager
    def collect(self) -> Iterator[None]:
        """Run the block; a ScriptError raised inside is recorded instead of propagated."""
        try:
            yield
        except ScriptErrors as err:
            self.errors.extend(err.errors)
        except ScriptError as err:
            self.errors.append(err)

    def unique(self) -> list[ScriptError]:
        """The recorded errors in the order recorded, each place, message and hint once (the
        parts of a Fountain speech split by parentheticals share their cue)."""
        return list({(_place(err), err.message, err.hint): err for err in self.errors}.values())

    def raise_if_any(self) -> None:
        """Raise the one recorded error, or ScriptErrors (in source order; see `unique`) when
        there are several; else nothing."""
        unique = self.unique()
        if len(unique) == 1:
            raise unique[0]
        if unique:
            raise ScriptErrors(sorted(unique, key=_place))


def _place(err: ScriptError) -> tuple[str, int, int]:
    return err.position.file, err.position.line, err.position.column


def all_errors(err: ScriptError) -> list[ScriptError]:
    """Every error an exception stands for: its `errors` for ScriptErrors, else itself."""
    return list(err.errors) if isinstance(err, ScriptErrors) else [err]
