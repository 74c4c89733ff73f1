"""Scene mixes from the take store: the selected takes of a scene mixed into `<scene>/mix.*`
with sidecars, with the mix settings saved in `project.json` so that every rebuild (`drama mix`,
`revise --select`, `edit --select`) sounds like the render's.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from drama_cli.render.plan import RenderSettings, mixable, pick_scenes
from drama_cli.takes.selection import (
    MovedTakes,
    is_stale,
    stale_note,
    take_text,
    take_timing,
)
from drama_cli.takes.store import TakeStore

DEFAULT_FORMATS = ("wav",)  # when neither the command nor the project names a format


@dataclass
class SceneOutcome:
    """A scene's mix: files written, duration, loudness facts, lines left out.

    problems: selected takes that are corrupt (`line ID: take N (file): why`), left out of
    the mix; `drama mix` exits 1 when there are any. stale: mix files left from an earlier
    mix that this one did not replace (the scene could not be mixed). engines_note: set when
    the mix combines scratch and Drama 3 takes (`engines_note`). stale_takes / stale_lines:
    selected takes made for older text than the script's (`line ID: take N was made for
    ...`), mixed with their own words in the sidecars; the command exits 1. moved: notes for
    lines left out or stale whose text has takes under another id that moved (`MovedTakes`).
    """

    scene_id: str
    files: dict = field(default_factory=dict)
    duration_s: float = 0.0
    loudness: dict = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    skipped: str = ""
    problems: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    engines_note: str = ""
    stale_takes: list[str] = field(default_factory=list)
    stale_lines: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)

    @property
    def left_out(self) -> list[str]:
        """Lines this mix does not deliver as the script has them: left out (no usable take)
        or voiced by a take made for older text; any of them makes the command exit 1."""
        return [*self.missing, *self.stale_lines]


def select_first_passing(store: TakeStore, script, scene) -> None:
    """Select each line's first passing take (status `ok`) made for the current text and
    speaker of `scene` (`drama_cli.takes.selection.is_stale`), as a render would, when the
    scene has no `selected.json` yet.

    Lines with no such take stay unselected (the mix leaves them out). Writes `selected.json`
    only when something was selected.
    """
    if store.selection_path(scene.id).exists() or not scene.lines:
        return
    chosen = {}
    for line in scene.lines:
        for take in store.takes(scene.id, line.id):
            if take.status == "ok" and not is_stale(script, store, scene.id, line, take):
                chosen[line.id] = {"take": take.number, "cache_key": take.cache_key, "by": "auto"}
                break
    if chosen:
        store.write_selections(scene.id, chosen)


def mix_entry(line, take):
    """The `MixEntry` of a script line voiced by `take`: the take's own words for the sidecars
    (`take_text`) and their timing (`take_timing`), the line's pause, beat and overlap for the
    timeline."""
    from drama_cli.mix.timeline import MixEntry

    text = take_text(take, line)
    segments, words = take_timing(take, text)
    return MixEntry(line.id, line.speaker, text, take.wav_path, take.number,
                    line.pause_after_s, line.overlap, beat_s=line.beat_s, segments=segments,
                    words=words, pauses=tuple(line.pauses))


def engines_used(store: TakeStore, scene_id: str, entries) -> dict:
    """Cue-sheet fields saying which takes of a mix are scratch drafts: `scratch` (any),
    `scratch_lines` (their line ids), `lines` (takes in the mix), `engines` (names used)."""
    scratch_lines, engines = [], set()
    for entry in entries:
        record = store.take(scene_id, entry.line_id, entry.take).record
        engines.add(str(record.get("engine", "unknown")))
        if record.get("scratch"):
            scratch_lines.append(entry.line_id)
    return {"scratch": bool(scratch_lines), "scratch_lines": scratch_lines,
            "lines": len(entries), "engines": sorted(engines)}


def engines_note(metadata: dict) -> str:
    """A console line for a mix that combines scratch and Drama 3 takes, else ""."""
    count, total = len(metadata.get("scratch_lines") or []), int(metadata.get("lines") or 0)
    if not 0 < count < total:
        return ""
    others = ", ".join(e for e in metadata.get("engines", []) if e != "scratch")
    return (f"this mix combines {count} scratch take(s) ({', '.join(metadata['scratch_lines'])})"
            f" with {total - count} take(s) of {others}")


def require_encoders(formats) -> None:
    """Fail before any rendering when a requested export format cannot be written (case A7)."""
    from drama_cli.mix import export

    for fmt in formats:
        export.require_encoder(fmt)


def mix_scene_from_store(store: TakeStore, scene, settings: RenderSettings,
                         metadata: dict | None = None, script=None) -> SceneOutcome:
    """Mix a scene from its selected takes into `<out>/<scene>/mix.*` with sidecars.

    The mix settings are `settings.mix_options` (command-line flags) over the scene's and then
    the script's own (`drama_cli.mix.options.layered_mix_options`; script None: the scene's).

    Lines without a usable selected take are left out and listed in `missing` (and in the cue
    sheet's metadata). Returns the files written, the mix duration and loudness facts.
    """
    from drama_cli.mix.options import layered_mix_options
    from drama_cli.mix.timeline import MixSettings, mix_scene, write_mix

    outcome = SceneOutcome(scene.id)
    entries = []
    moved = MovedTakes(script, store, scene)
    for line in scene.lines:
        take = store.selected_take(scene.id, line.id)
        if take is None or not mixable(store, scene.id, line.id, take):
            problem = store.selection_problem(scene.id, line.id)
            if problem:
                outcome.problems.append(f"line {line.id}: {problem}")
            outcome.missing.append(line.id)
            outcome.moved += [note for note in [moved.note(line)] if note]
            continue
        if is_stale(script, store, scene.id, line, take):
            outcome.stale_takes.append(f"line {line.id}: {stale_note(take, line)}")
            outcome.stale_lines.append(line.id)
            outcome.moved += [note for note in [moved.note(line)] if note]
        entries.append(mix_entry(line, take))
    if not entries:
        outcome.skipped = ("the scene has no spoken lines" if not scene.lines
                           else "no line of the scene has a usable take")
        outcome.stale = sorted(str(p) for p in store.scene_dir(scene.id).glob("mix.*"))
        return outcome
    options = layered_mix_options(script, scene, settings.mix_options)
    options.setdefault("hold_gain_db", held_gain(store, scene.id, options.get("preset", "none")))
    mix_settings = MixSettings(formats=tuple(settings.formats or DEFAULT_FORMATS), **options,
                               metadata={**(metadata or {}), **engines_used(store, scene.id, entries),
                                         "scene": scene.id,
                                         "missing_lines": list(outcome.missing),
                                         "stale_lines": list(outcome.stale_lines)})
    outcome.engines_note = engines_note(mix_settings.metadata)
    folder = store.scene_dir(scene.id)
    result = mix_scene(entries, mix_settings, work_dir=folder)
    try:
        files = write_mix(result, folder, mix_settings.formats)
    except BaseException:
        result.audio_path.unlink(missing_ok=True)  # the earlier delivery set stays whole
        raise
    outcome.files = {kind: str(path) for kind, path in files.items()}
    outcome.duration_s = round(result.duration_s, 3)
    outcome.loudness = result.summary()
    return outcome


def held_gain(store: TakeStore, scene_id: str, preset: str) -> float | None:
    """The exact preset gain of the scene's last mix (its cue sheet), when that mix used
    `preset`: a rebuild applies it again so that lines that did not change keep their samples
    (`MixSettings.hold_gain_db`). None when there is none to hold."""
    import json

    try:
        sheet = json.loads((store.scene_dir(scene_id) / "mix.cues.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(sheet, dict) or sheet.get("preset") != preset:
        return None
    gain = sheet.get("gain_db_exact")
    return float(gain) if isinstance(gain, (int, float)) and math.isfinite(gain) else None


def mix_record(settings: RenderSettings) -> dict:
    """The mix settings a project keeps in `project.json` under "mix" (export formats and the
    `MixSettings` fields given: preset, gap_s, room tone, ...), so every later rebuild of a
    scene mix (`drama mix`, `revise --select`, `edit`) sounds like the render's."""
    return {"formats": list(settings.formats), "options": dict(settings.mix_options)}


def with_project_mix(settings: RenderSettings, project: dict,
                     formats_given: bool = True) -> RenderSettings:
    """`settings` with the mix settings saved in `project` (a `project.json` dict) filled in:
    options given in `settings.mix_options` win over the saved ones; `settings.formats` wins
    when given (non-empty and `formats_given`), else the saved formats, else DEFAULT_FORMATS.
    So settings given once stay with the project until they are changed."""
    saved = project.get("mix") or {}
    options = {**(saved.get("options") or {}), **settings.mix_options}
    if formats_given and settings.formats:
        formats = tuple(settings.formats)
    else:
        formats = tuple(saved.get("formats") or settings.formats or DEFAULT_FORMATS)
    return dataclasses.replace(settings, formats=formats, mix_options=options)


def remix(script, store: TakeStore, settings: RenderSettings,
          formats_given: bool = True) -> list[SceneOutcome]:
    """Mix the chosen scenes again from their current selections, without rendering, with the
    project's saved mix settings overridden by those in `settings` (the result is saved as the
    project's mix settings). A scene without `selected.json` gets each line's first passing take
    for the current script (`select_first_passing`)."""
    project = store.project()
    settings = with_project_mix(settings, project, formats_given)
    require_encoders(settings.formats)
    metadata = {"engine": project.get("engine", {}).get("engine"),
                "scratch": bool(project.get("scratch", False))}
    with store.lock():
        outcomes = []
        for scene in pick_scenes(script, settings):
            select_first_passing(store, script, scene)
            outcomes.append(mix_scene_from_store(store, scene, settings, metadata, script))
        if project:  # saved once the mixes are made: a failed mix leaves the old settings
            store.write_project({**store.project(), "mix": mix_record(settings)})
        return outcomes
