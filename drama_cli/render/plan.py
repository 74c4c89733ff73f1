"""Which scenes and lines a render touches, and which layout its backend voices them in
(`layout_for_backend`: a layout the backend lacks falls back, or is refused, before any take
is made); a line the backend cannot voice in one request is refused before any take too
(`refuse_voice_switches`)."""

from __future__ import annotations

import dataclasses

from drama_cli.compile.modes import MODES
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


# What a layout falls back to when a backend does not voice it, and the words of the notice
# (said once per render); a layout with no fallback is refused.
LAYOUT_FALLBACKS = {
    "scene": ("history", "cannot voice a whole scene at once; using history mode"),
    "history": (
        "clone",
        "does not voice a line in the context of the ones before; using clone mode",
    ),
}
LAYOUT_REFUSALS = {
    "scene": "cannot voice a whole scene at once (a request voices one line); "
    "use --mode history or --mode clone",
    "revise": "cannot revise a take against the earlier one and a note",
    "infill": "cannot regenerate the middle of a take (infill)",
    "stream": "cannot voice the stream layout",
    "clone": "cannot clone a voice from reference clips",
}


def layout_for_backend(capabilities, engine: str, layout: str) -> tuple[str, list[str]]:
    """The layout a backend voices for a planned `layout` (an `engine.layouts` name), and the
    one-line notices of the fallbacks taken: the layout itself when the backend's
    `capabilities.layouts` hold it; else its fallback (scene → history → clone) with a notice
    naming the engine. Raises UsageError, one line naming the engine and what it cannot do,
    for a layout with no fallback it voices (revise, infill, ...). `scene` also needs
    `capabilities.scene_layout`; a backend that needs the network (`capabilities.network`) and
    lacks it is refused scene mode rather than falling back (a server is sent one line per
    request, so a scene render would silently become another mode); one on this machine falls
    back to history."""
    notices = []
    while True:
        voiced = layout in capabilities.layouts
        if layout == "scene":
            voiced = voiced and capabilities.scene_layout
        if voiced:
            return layout, notices
        refused = layout == "scene" and capabilities.network
        if refused or layout not in LAYOUT_FALLBACKS:
            reason = LAYOUT_REFUSALS.get(layout, f"cannot voice the {layout} layout")
            raise UsageError(f"the {engine} engine {reason}")
        layout, why = LAYOUT_FALLBACKS[layout]
        notices.append(f"the {engine} engine {why}")


def mode_for_backend(settings: RenderSettings, capabilities, engine: str, notice) -> RenderSettings:
    """`settings` with the mode the backend can voice (`layout_for_backend` on the mode's
    layout; the fallbacks said on `notice`, once per render). Raises UsageError when the
    backend voices neither the mode's layout nor a fallback of it."""
    layout, notices = layout_for_backend(capabilities, engine, mode_layout(settings.mode))
    for message in notices:
        notice(message)
    if layout == mode_layout(settings.mode):
        return settings
    mode = next(name for name, m in MODES.items() if m.layout == layout)
    return dataclasses.replace(settings, mode=mode)


def refuse_voice_switches(scenes, settings: RenderSettings, capabilities, engine: str) -> None:
    """Refuse, before any take is made, a render of a line that switches to another speaker's
    voice (`{NAME}` mid-line) on a backend that voices one speaker per request
    (`capabilities.multi_speaker` False). Raises UsageError, one line naming the first such
    line among those `settings` renders (and how many more there are) and the reason."""
    if capabilities.multi_speaker:
        return
    switching = [
        line
        for scene in scenes
        for line in scene.lines
        if line.id in wanted_lines(scene, settings) and len(line.speakers()) > 1
    ]
    if not switching:
        return
    first = switching[0]
    more = f" (and {len(switching) - 1} more line(s))" if len(switching) > 1 else ""
    raise UsageError(
        f"line {first.id} switches to {', '.join(first.speakers()[1:])}'s voice{more}: the "
        f"{engine} engine voices one speaker per request; render it with an engine that voices "
        "several (drama3, fish), or split the line"
    )


def mode_layout(mode: str) -> str:
    """The engine layout of compile mode `mode` (`drama_cli.compile.modes.MODES`)."""
    return MODES[mode].layout
