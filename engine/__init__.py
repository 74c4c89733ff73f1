"""The embedded Drama 3 inference engine: tokenizer, model, codec, sampling, generation.

The public entry point (docs/internals/engine.md, "Where things are"):

    from engine import Conversation, Drama3, SamplingParams

    model = Drama3.load("path/to/drama-3")
    take = model.generate(Conversation(layout="clone", text="<|speaker:0|> Hello."), SamplingParams(), seed=1)

Each name is imported from its module on first use (PEP 562): `import engine.constants` runs
this file, and the command line imports the engine's leaf modules at start-up without torch.
Importing the model-running modules here would add torch to every start-up (about 1 s,
against about 1 ms for this package; numpy alone, which `Conversation` needs, about 0.24 s).
"""

from __future__ import annotations

import importlib

PUBLIC_NAMES = {
    # a loaded model: `Drama3.load(folder)`, then `generate`, `stream`, `decode`, `batch`
    "Drama3": "engine.generate",
    "Checkpoint": "engine.checkpoint",
    # the request, as plain data
    "Conversation": "engine.conversation",
    "Reference": "engine.conversation",
    "Exchange": "engine.conversation",
    "AudioClip": "engine.clip",
    "SamplingParams": "engine.sampling",
    # one take, and many decoded together
    "TakeRequest": "engine.take",
    "Generation": "engine.take",
    "EngineBatch": "engine.batch",
    "Finished": "engine.batch",
    # what the engine raises
    "EngineError": "engine.errors",
    "CheckpointError": "engine.errors",
    "AudioError": "engine.errors",
    "ModelDoesNotFit": "engine.offload.plan",
}

__all__ = list(PUBLIC_NAMES)


def __getattr__(name: str):
    """A public name, imported from its module the first time it is asked for."""
    if name not in PUBLIC_NAMES:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(PUBLIC_NAMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC_NAMES))
