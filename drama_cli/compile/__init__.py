"""Compile: a scene's lines into Drama 3 conversations, the compile modes and token costs."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "cost": ["compile_report"],
    "modes": ["DEFAULT_MODE", "MODES", "get_mode"],
    "conversations": ["LinePlan", "SceneCompiler", "compile_scene"],
})
