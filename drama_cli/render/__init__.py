"""Rendering: plan each line, run the backend, check and store every take, select, mix."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "plan": ["pick_scenes"],
    "report": ["RenderReport"],
    "scheduler": ["render_script"],
})
