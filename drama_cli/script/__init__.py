"""Scripts: the data model, the YAML and Fountain readers, the direction grammar and chunking."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "check": ["check_script"],
    "load": ["load_script"],
    "document": ["Line", "Scene", "Script"],
})
