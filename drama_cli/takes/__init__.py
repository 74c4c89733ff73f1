"""Takes: how they are made (settings, line jobs, cache keys), the take store, selections and
what they deliver per scene, and project folders."""
