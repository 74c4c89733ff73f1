"""Takes: the take store, cache keys, selections and project folders."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "keys": ["ReferenceHasher", "stable_hash"],
    "project": ["open_project"],
    "selection": ["list_takes", "select_take"],
    "store": ["Take", "TakeStore"],
})
