"""Mixing: a scene's selected takes on a timeline, loudness presets, export formats and
sidecars, and the project's mix settings."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "export": ["EXPORT_FORMATS"],
    "options": ["MixOverrides"],
    "presets": ["PRESETS"],
    "project_mix": ["mix_scene_from_store", "remix"],
    "timeline": ["MixEntry", "MixSettings", "mix_scene", "write_mix"],
})
