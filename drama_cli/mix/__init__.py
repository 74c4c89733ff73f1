"""Mixing: selected takes on a timeline, loudness presets, export formats and sidecars."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "export": ["EXPORT_FORMATS"],
    "loudness": ["PRESETS"],
    "timeline": ["MixEntry", "MixSettings", "mix_scene", "write_mix"],
})
