"""drama: direct scripted voice performances with Fish Audio Drama 3."""

from __future__ import annotations

import importlib
from collections.abc import Callable

__version__ = "0.1.0"


def public_names(package: str, homes: dict[str, list[str]]) -> tuple[list[str], Callable]:
    """`__all__` and a module `__getattr__` (PEP 562) for a stage package: `homes` maps each of
    its modules to the names other stages use from it. A name is imported from its module on
    first use, so importing one module of a package never loads the others."""
    home_of = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str):
        if name not in home_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{home_of[name]}"), name)

    return sorted(home_of), __getattr__
