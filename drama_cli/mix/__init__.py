"""Mixing: a scene's selected takes on a timeline, loudness presets, export formats and
sidecars, and the project's mix settings."""
