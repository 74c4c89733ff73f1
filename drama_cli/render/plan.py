"""Which scenes and lines a render touches."""

from __future__ import annotations

from drama_cli.errors import UsageError
from drama_cli.takes.jobs import RenderSettings


def pick_scenes(script, settings: RenderSettings) -> list:
    """The scenes to render: all, or those named in `settings.scenes` (UsageError if unknown);
    with `settings.lines`, only scenes holding one of those lines (UsageError if unknown)."""
    scenes = list(script.scenes)
    if settings.scenes:
        known = [s.id for s in scenes]
        unknown = [s for s in settings.scenes if s not in known]
        if unknown:
            raise UsageError(f"no scene {unknown[0]!r} (scenes: {', '.join(known)})")
        scenes = [s for s in scenes if s.id in settings.scenes]
    unknown_kept = [
        i for i in settings.keep if i not in {line.id for s in scenes for line in s.lines}
    ]
    if unknown_kept:
        raise UsageError(f"--keep {unknown_kept[0]}: no such line in the chosen scenes")
    if settings.lines:
        all_ids = {line.id for s in scenes for line in s.lines}
        unknown = [i for i in settings.lines if i not in all_ids]
        if unknown:
            raise UsageError(f"no line {unknown[0]!r} in the chosen scenes")
        scenes = [s for s in scenes if any(line.id in settings.lines for line in s.lines)]
    return scenes


def wanted_lines(scene, settings: RenderSettings) -> list[str]:
    """Ids of the scene's lines to render: those named by `--line`, else all, in script order."""
    ids = [line.id for line in scene.lines]
    return [i for i in ids if i in settings.lines] if settings.lines else ids
