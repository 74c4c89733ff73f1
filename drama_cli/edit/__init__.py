"""Revising and editing takes: revise by note, infill edits, and writing edits back to the script."""
