"""Scripts: the data model, the YAML and Fountain readers and the direction grammar."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "check": ["check_script"],
    "load": ["load_script"],
    "document": ["Line", "Scene", "Script"],
    "mix_settings": ["MixSettings"],
})
