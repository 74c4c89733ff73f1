"""Rendering: plan each line, run the backend, check and store every take, select, mix."""
