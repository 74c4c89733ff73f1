"""Mixing: a scene's selected takes on a timeline, loudness presets, export formats and
sidecars, and the project's mix settings."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "export": ["EXPORT_FORMATS"],
    "loudness": ["PRESETS"],
    "options": ["layer_mix"],
    "project_mix": ["mix_scene_from_store", "remix"],
    "timeline": ["MixEntry", "mix_scene", "write_mix"],
})
