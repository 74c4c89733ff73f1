"""Revising and editing takes: revise by note, infill edits, and writing edits back to the script."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "project_edit": ["EditForm", "edit_in_project", "plan_in_project"],
    "revise": ["revise_from_script", "revise_in_project"],
})
