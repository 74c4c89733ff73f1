"""Takes: how they are made (settings, line jobs, cache keys), the take store, selections and
what they deliver per scene, and project folders."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "jobs": ["RenderSettings", "ScenePlanner", "cache_key"],
    "keys": ["ReferenceHasher", "stable_hash"],
    "project": ["open_project"],
    "scene_selection": ["SceneSelection", "scene_selection"],
    "selection": ["list_takes", "select_take"],
    "store": ["Take", "TakeStore"],
})
