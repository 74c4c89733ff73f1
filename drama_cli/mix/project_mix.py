"""Scene mixes of a project: a scene's `SceneSelection` (`drama_cli.takes.scene_selection`)
mixed into `<scene>/mix.*` with sidecars, with the project's mix settings (`MixSettings`,
kept in `project.json`) so that every rebuild (`drama mix`, `revise --select`,
`edit --select`) sounds like the render's."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

from drama_cli.errors import UsageError
from drama_cli.mix import export
from drama_cli.mix.options import layer_mix, scene_sounds
from drama_cli.mix.presets import get_preset
from drama_cli.mix.provenance import PROVENANCE_NAME, mix_provenance, provenance_text
from drama_cli.mix.session import stage_sessions
from drama_cli.mix.stems import stage_stems
from drama_cli.mix.timeline import MixEntry, mix_scene, write_mix
from drama_cli.script.book import ENGINE_CREDIT
from drama_cli.script.mix_settings import MixSettings
from drama_cli.takes.scene_selection import (
    NONE,
    STALE,
    UNUSABLE,
    LineChoice,
    SceneSelection,
    scene_selection,
    select_first_passing,
)
from drama_cli.takes.store import TakeStore
from engine.files import stage_text


@dataclass
class SceneOutcome:
    """A scene's mix: files written, duration, loudness facts, lines left out.

    problems: selected takes that are corrupt (`line ID: take N (file): why`), left out of
    the mix; `drama mix` exits 1 when there are any. stale: mix files left from an earlier
    mix that this one did not replace (the scene could not be mixed). engines_note: set when
    the mix combines scratch and Drama 3 takes (`engines_note`). stale_takes / stale_lines:
    selected takes made for older text than the script's (`line ID: take N was made for
    ...`), mixed with their own words in the sidecars; the command exits 1. unusable_takes /
    unusable_lines: takes selected by hand although their checks failed (`line ID: take N
    ...`), mixed as chosen; the command exits 1. moved: notes for lines left out or stale
    whose text has takes under another id that moved (`MovedTakes`).
    """

    scene_id: str
    files: dict[str, str] = field(default_factory=dict)
    duration_s: float = 0.0
    loudness: dict[str, object] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    skipped: str = ""
    problems: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    engines_note: str = ""
    stale_takes: list[str] = field(default_factory=list)
    stale_lines: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    unusable_takes: list[str] = field(default_factory=list)
    unusable_lines: list[str] = field(default_factory=list)

    @property
    def left_out(self) -> list[str]:
        """Lines this mix does not deliver as the script has them: left out (no usable take),
        voiced by a take made for older text or by a take whose checks failed; any of them
        makes the command exit 1."""
        return [*self.missing, *self.stale_lines, *self.unusable_lines]


def mix_entry(choice: LineChoice) -> MixEntry:
    """The `MixEntry` of a line and its chosen take: the take's own words for the sidecars and
    their timing, the line's pause, beat and overlap for the timeline."""
    line, take = choice.line, choice.take
    return MixEntry(
        line.id,
        line.speaker,
        choice.text,
        take.wav_path,
        take.number,
        line.pause_after_s,
        line.overlap,
        beat_s=line.beat_s,
        segments=choice.segments,
        words=choice.words,
        pauses=tuple(line.pauses),
    )


def engines_used(choices: list[LineChoice]) -> dict:
    """Cue-sheet fields saying which takes of a mix are scratch drafts: `scratch` (any),
    `scratch_lines` (their line ids), `lines` (takes in the mix), `engines` (names used),
    `scratch_engines` (the engines of the scratch takes, when there are any); and
    when the Drama 3 model voiced any take (`LineChoice.drama3_model`), `credit`
    (ENGINE_CREDIT), `credited_engines` (the engines of those takes, sorted) and
    `model_revisions` (those takes' model revisions, sorted)."""
    scratch_lines = [choice.line.id for choice in choices if choice.scratch]
    facts = {
        "scratch": bool(scratch_lines),
        "scratch_lines": scratch_lines,
        "lines": len(choices),
        "engines": sorted({choice.engine for choice in choices}),
    }
    if scratch_lines:
        facts["scratch_engines"] = sorted({c.engine for c in choices if c.scratch})
    credited = [choice for choice in choices if choice.drama3_model]
    if credited:
        facts["credit"] = ENGINE_CREDIT
        facts["credited_engines"] = sorted({choice.engine for choice in credited})
        facts["model_revisions"] = sorted(  # a record without one says nothing ("unknown")
            {
                str(choice.take.record.model_revision)
                for choice in credited
                if choice.take is not None and choice.take.record.model_revision is not None
            }
        )
    return facts


def credit_text(facts: dict) -> str | None:
    """The credit line of a delivered file made from takes with `facts` (`engines_used`):
    `Built with Fish Audio (drama3, model revision R)`; None when no take is Drama 3's."""
    if not facts.get("credit"):
        return None
    engines = ", ".join(facts.get("credited_engines") or ())
    revisions = ", ".join(facts.get("model_revisions") or ()) or "unknown"
    return f"{facts['credit']} ({engines}, model revision {revisions})"


def engines_note(metadata: dict) -> str:
    """A console line for a mix that combines scratch and Drama 3 takes, else ""."""
    count, total = len(metadata.get("scratch_lines") or []), int(metadata.get("lines") or 0)
    if not 0 < count < total:
        return ""
    drafts = set(metadata.get("scratch_engines") or ())
    others = ", ".join(e for e in metadata.get("engines", []) if e not in drafts)
    return (
        f"this mix combines {count} scratch take(s) ({', '.join(metadata['scratch_lines'])})"
        f" with {total - count} take(s) of {others}"
    )


def require_encoders(formats) -> None:
    """Fail before any rendering when a requested export format cannot be written (case A7)."""
    for fmt in formats:
        export.require_encoder(fmt)


def outcome_of(selection: SceneSelection) -> SceneOutcome:
    """A scene's outcome before mixing: the lines left out, stale, corrupt or moved."""
    outcome = SceneOutcome(selection.scene_id)
    for choice in selection.lines:
        line_id = choice.line.id
        if choice.problem:
            outcome.problems.append(f"line {line_id}: {choice.problem}")
        if choice.status in (NONE, UNUSABLE):
            outcome.missing.append(line_id)
        elif choice.status == STALE:
            outcome.stale_takes.append(f"line {line_id}: {choice.stale}")
            outcome.stale_lines.append(line_id)
        if choice.failed_checks:
            outcome.unusable_takes.append(
                f"line {line_id}: take {choice.take.number} failed its "
                f"checks ({choice.take.failures_text}), selected by hand"
            )
            outcome.unusable_lines.append(line_id)
        if choice.moved:
            outcome.moved.append(choice.moved)
    return outcome


def mix_scene_from_store(
    store: TakeStore,
    script,
    scene,
    mix: MixSettings,
    metadata: dict | None = None,
    transient: tuple[str, ...] = (),
) -> SceneOutcome:
    """Mix a scene from its selected takes into `<out>/<scene>/mix.*` with sidecars, stems,
    sessions and `provenance.json` (`drama_cli.mix.provenance`), as one set (`write_scene_set`).
    transient: formats written for this run only (a pipe), left out of the set.

    mix: the command's flags over the project's saved settings; the scene's and the
    script's own fill the rest (`layer_mix`). Lines without a usable selected take are left
    out and listed in `missing` (and in the cue sheet's metadata). Returns the files
    written, the mix duration and loudness facts. Raises UsageError for a corrupt
    `selected.json`.
    """
    selection = scene_selection(script, store, scene)
    outcome = outcome_of(selection)
    mixed = [choice for choice in selection.lines if choice.mixable]
    if not mixed:
        outcome.skipped = (
            "the scene has no spoken lines"
            if not scene.lines
            else "no line of the scene has a usable take"
        )
        outcome.stale = sorted(str(p) for p in store.scene_dir(scene.id).glob("mix.*"))
        return outcome
    layered = layer_mix(mix, script=script, scene=scene)
    options = layered.settings_options()
    options.setdefault("hold_gain_db", held_gain(store, scene.id, options.get("preset", "none")))
    settings = MixSettings(
        formats=layered.formats,
        **options,
        sounds=scene_sounds(script, scene),
        metadata={
            **(metadata or {}),
            **engines_used(mixed),
            "scene": scene.id,
            "missing_lines": list(outcome.missing),
            "stale_lines": list(outcome.stale_lines),
            "unusable_lines": list(outcome.unusable_lines),
        },
    )
    outcome.engines_note = engines_note(settings.metadata)
    folder = store.scene_dir(scene.id)
    result = mix_scene([mix_entry(choice) for choice in mixed], settings, work_dir=folder)
    files = write_scene_set(script, scene.id, mixed, result, folder, transient)
    outcome.files = {kind: str(path) for kind, path in files.items()}
    outcome.duration_s = round(result.duration_s, 3)
    outcome.loudness = result.summary()
    return outcome


def write_scene_set(
    script, scene_id: str, mixed: list[LineChoice], result, folder, transient: tuple[str, ...] = ()
) -> dict:
    """Write a mixed scene's files into its `folder` as one set (`drama_cli.mix.mix_set`): the
    mix and its sidecars (`write_mix`; `transient` formats left out of the set's record),
    `provenance.json`, and the stems and DAW sessions its settings ask for; files of an earlier
    set that this one lacks are removed in the same step. On any failure the temporaries and
    the rendering are removed and the earlier set stays whole. Returns {kind: path}."""
    extra: dict = {}
    try:
        provenance = provenance_text(
            {"scene": scene_id, **engines_used(mixed)}, mix_provenance(script, result.cues, mixed)
        )
        extra["provenance"] = (
            stage_text(folder / PROVENANCE_NAME, provenance),
            folder / PROVENANCE_NAME,
        )
        if result.settings.stems:
            extra.update(stage_stems(result, folder))
        extra.update(stage_sessions(result, folder, result.settings.sessions))
        return write_mix(result, folder, result.settings.formats, extra, transient)
    except BaseException:
        for tmp, _target in extra.values():
            tmp.unlink(missing_ok=True)
        result.audio_path.unlink(missing_ok=True)
        raise


def held_gain(store: TakeStore, scene_id: str, preset: str) -> float | None:
    """The exact preset gain of the scene's last mix (its cue sheet), when that mix used
    `preset`: a rebuild applies it again so that lines that did not change keep their samples
    (`MixSettings.hold_gain_db`). None when there is none to hold."""
    try:
        sheet = json.loads(
            (store.scene_dir(scene_id) / "mix.cues.json").read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return None
    if not isinstance(sheet, dict) or sheet.get("preset") != preset:
        return None
    gain = sheet.get("gain_db_exact")
    return float(gain) if isinstance(gain, (int, float)) and math.isfinite(gain) else None


def project_mix(store: TakeStore, flags: MixSettings = MixSettings()) -> MixSettings:
    """The mix settings a command uses: its `flags` over those saved in the project's
    `project.json` (so settings given once stay with the project until they are changed),
    formats defaulting to DEFAULT_FORMATS. Raises UsageError for saved values out of range."""
    return layer_mix(flags, saved_mix(store))


def saved_mix(store: TakeStore) -> MixSettings:
    """The mix settings saved in the project's `project.json` (none when it has none).

    Raises UsageError naming the file for a saved value that cannot be used (out of range, an
    unknown preset or format, an unusable room-tone file), before anything is rendered or
    written."""
    record = store.project().get("mix")
    try:
        saved = MixSettings.from_record(record)
        if saved.preset is not None:
            get_preset(saved.preset)
    except UsageError as err:
        raise UsageError(
            f"{store.project_path}: saved mix settings: {err}; fix them there, or "
            f'delete the file\'s "mix" entry'
        ) from None
    return saved


def project_metadata(store: TakeStore) -> dict:
    """Cue-sheet fields from `project.json`: the engine the project was rendered with and
    whether it was a scratch draft."""
    project = store.project()
    return {
        "engine": (project.get("engine") or {}).get("engine"),
        "scratch": bool(project.get("scratch", False)),
    }


def remix(
    script,
    store: TakeStore,
    scenes: list,
    flags: MixSettings = MixSettings(),
    streamed: str | None = None,
) -> list[SceneOutcome]:
    """Mix `scenes` again from their current selections, without rendering, with the
    project's saved mix settings under `flags` (the result is saved as the project's mix
    settings). A scene without `selected.json` gets each line's first passing take for the
    current script (`select_first_passing`). streamed: a format also written for a pipe
    (`wav`, `flac`); it is not saved as a setting."""
    saved = project_mix(store, flags)
    mix = (
        replace(saved, formats=tuple(dict.fromkeys([*saved.formats, streamed])))
        if streamed
        else saved
    )
    transient = (streamed,) if streamed and streamed not in saved.formats else ()
    require_encoders(mix.formats)
    metadata = project_metadata(store)
    with store.lock():
        outcomes = []
        for scene in scenes:
            select_first_passing(store, script, scene)
            outcomes.append(mix_scene_from_store(store, script, scene, mix, metadata, transient))
        if store.project():  # saved once the mixes are made: a failed mix leaves the old settings
            store.write_project({**store.project(), "mix": saved.to_record()})
        return outcomes
