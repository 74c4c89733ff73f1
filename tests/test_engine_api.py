"""The engine's public entry point: `from engine import ...` gives each public name, the object
its own module defines, and importing `engine` alone (or its torch-free names) loads no torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

import engine


@pytest.mark.parametrize("name", engine.__all__)
def test_each_public_name_is_the_object_its_module_defines(name):
    module = engine.PUBLIC_NAMES[name]
    value = getattr(
        __import__("engine", fromlist=[name]), name
    )  # what `from engine import name` runs
    assert value is getattr(sys.modules[module], name)
    assert (value.__module__, value.__name__) == (module, name)


def test_the_public_names_are_listed_once():
    assert sorted(engine.__all__) == sorted(engine.PUBLIC_NAMES)
    assert set(engine.__all__) <= set(dir(engine))


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import():
    assert not hasattr(engine, "no_such_name")
    assert __import__("engine", fromlist=["files"]).files.__name__ == "engine.files"


def test_importing_engine_and_its_plain_data_loads_no_torch():
    code = (
        "import sys, engine; engine.Conversation, engine.AudioClip, engine.EngineError; "
        "print('torch' in sys.modules)"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert found.stdout.strip() == "False", found.stderr
