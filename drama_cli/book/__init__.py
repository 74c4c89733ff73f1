"""Books: a rendered script assembled into ACX files per chapter, a retail sample and an M4B."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "acx": ["FileCheck", "judge", "measure_file"],
    "assemble": ["BookOptions", "BookReport", "assemble_book"],
    "m4b": ["write_m4b"],
})
