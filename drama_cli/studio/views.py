"""What the studio's pages show, as JSON-ready dicts built from the stage records: the script
with each line's status (`takes.scene_selection`), one line's takes (`takes.selection.list_takes`)
and a take's waveform peaks. Nothing here writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from drama_cli.errors import UsageError
from drama_cli.mix.export import FORMATS
from drama_cli.mix.mix_set import MIX_BASENAME, set_state
from drama_cli.qc.asr import DEFAULT_THRESHOLD
from drama_cli.qc.limits import MIN_JUDGED_S
from drama_cli.script.direction import display_text
from drama_cli.takes.scene_selection import (
    CURRENT,
    LineChoice,
    line_choice,
    scene_selection,
)
from drama_cli.takes.selection import MovedTakes, compiled_words, list_takes
from drama_cli.takes.store import Take
from drama_cli.takes.take_record import TakeAsr, TakeRecord
from engine.text import spoken_text

COUNTED = (
    "lines",
    "current",
    "stale",
    "unusable",
    "none",
    "degraded",
    "failed",
    "wer_over",
    "attention",
)
PEAK_BUCKETS = 800  # columns of a drawn waveform; the page scales them to its width


def text_parts(line) -> list[dict]:
    """A line's text as `[{kind, text}]` for display: `text` (words), `tag` (a point tag or a
    style bracket), `open` / `close` (scoped tags), `switch` (a speaker switch), `sound` (a sound
    cue, `{sfx: NAME}`) and `note` (a director's note, before the words as the compiler places
    it)."""
    parts = [{"kind": "note", "text": note} for note in line.notes]
    parts += [{"kind": span.kind, "text": span.text} for span in line.spans if span.text]
    return parts or [{"kind": "text", "text": line.text}]


def said_text(script, line) -> str:
    """The words the compiler sends for `line` after the lexicon and the number rules, without
    tags; "" when they are the words as written (nothing was rewritten)."""
    said = spoken_text(compiled_words(script, line))
    return "" if said == " ".join(display_text(line).split()) else said


def take_scores(record: TakeRecord) -> dict:
    """A take's voice and quality scores from its record, for the page to show: `voice`
    ({similarity, threshold}) and `quality` ({ovrl, sig, bak, p808, floor}), None when not
    measured; `voice_failed` and `quality_failed`: the take failed that check when it was made
    (its record's failures) or its score is under the limit it records (a take under
    `MIN_JUDGED_S` of speech is never failed on voice)."""
    failures = record.checks.failures
    voice, quality = record.voice, record.quality
    voice_row = quality_row = None
    voice_failed, quality_failed = "voice" in failures, "quality" in failures
    if voice is not None and voice.similarity is not None:
        voice_row = {"similarity": voice.similarity, "threshold": voice.threshold}
        judged = voice.voiced_s is None or voice.voiced_s >= MIN_JUDGED_S
        if judged and voice.threshold is not None and voice.similarity < voice.threshold:
            voice_failed = True
    if quality is not None and quality.ovrl is not None:
        quality_row = {
            name: getattr(quality, name) for name in ("ovrl", "sig", "bak", "p808", "floor")
        }
        if quality.floor is not None and quality.ovrl < quality.floor:
            quality_failed = True
    return {
        "voice": voice_row,
        "quality": quality_row,
        "voice_failed": voice_failed,
        "quality_failed": quality_failed,
    }


def line_state(script, choice: LineChoice) -> dict:
    """One line of the script view: id, speaker, text parts, the words said when rewritten,
    status (CURRENT, STALE, UNUSABLE, NONE of `takes.scene_selection`), the selected take, and
    the flags the filter "needs attention" reads: degraded, failed checks, WER over its
    threshold (`wer`, `wer_over`), a failed voice or quality check (`take_scores`, with the
    scores)."""
    line, take = choice.line, choice.take
    record = take.record if take is not None else TakeRecord()
    asr = record.asr or TakeAsr()
    wer = asr.wer
    threshold = DEFAULT_THRESHOLD if asr.threshold is None else asr.threshold
    failures = list(record.checks.failures)
    state = {
        "id": line.id,
        "speaker": line.speaker,
        "parts": text_parts(line),
        "said": said_text(script, line),
        "status": choice.status,
        "take": take.number if take is not None else None,
        "degraded": take is not None and take.status == "degraded",
        "failed": bool(failures),
        "failures": failures,
        "wer": wer,
        "wer_over": wer is not None and wer > threshold,
        "problem": choice.problem or choice.stale or choice.moved,
        **take_scores(record),
    }
    state["attention"] = (
        choice.status != CURRENT
        or state["degraded"]
        or state["failed"]
        or state["wer_over"]
        or state["voice_failed"]
        or state["quality_failed"]
    )
    return state


def count(states: list[dict]) -> dict:
    """How many `states` have each status and flag (`COUNTED`)."""
    totals = dict.fromkeys(COUNTED, 0)
    totals["lines"] = len(states)
    for state in states:
        totals[state["status"]] += 1
        for flag in ("degraded", "failed", "wer_over", "attention"):
            totals[flag] += bool(state[flag])
    return totals


def script_view(project) -> dict:
    """The whole script for the script view: `{title, engine, counts, chapters: [{title,
    scenes: [{id, title, counts, lines: [line_state]}]}]}`, chapters in the script's order (a
    script without chapters is one untitled group). Raises the script's ScriptError when it no
    longer reads, UsageError when a selections file is corrupt. A scene whose folder did not
    change since the last call is not judged again (`StudioProject.scene_memo`)."""
    script, store = project.script(), project.store

    def build(scene) -> dict:
        selection = scene_selection(script, store, scene)
        states = [line_state(script, choice) for choice in selection.lines]
        return {"id": scene.id, "title": scene.title, "counts": count(states), "lines": states}

    scenes = {scene.id: project.scene_memo(script, scene, build) for scene in script.scenes}
    chapters, placed = [], set()
    for chapter in script.chapters:
        members = [scenes[sid] for sid in chapter.scenes if sid in scenes and sid not in placed]
        placed.update(scene["id"] for scene in members)
        if members:
            chapters.append({"title": chapter.title, "scenes": members})
    rest = [scene for sid, scene in scenes.items() if sid not in placed]
    if rest:
        chapters.append({"title": "", "scenes": rest})
    every = [state for scene in scenes.values() for state in scene["lines"]]
    engine = (store.project().get("engine") or {}).get("engine", "")
    return {"title": script.title, "engine": engine, "counts": count(every), "chapters": chapters}


def line_view(project, line_id: str) -> dict:
    """One line for the line view: its script state (`line_state`) and every take as `drama
    takes --json` lists it (no file paths), plus the take's origin (model revision, layout,
    mode) and word timings when known. Raises UsageError for an unknown line."""
    script, store = project.script(), project.store
    scene, line = project.find_scene_line(line_id)
    choice = line_choice(
        script, store, scene.id, line, store.selections(scene.id), MovedTakes(script, store, scene)
    )
    rows = list_takes(script, store, [scene], (line.id,))
    takes = {take.number: take for take in store.scan(scene.id, line.id).valid}
    listed = []
    for row in rows[0]["takes"] if rows else []:
        row = {key: value for key, value in row.items() if key != "file"}
        take = takes.get(row["take"])
        if take is not None:
            row.update(take_origin(take))
        listed.append(row)
    return {
        "scene": scene.id,
        "scene_title": scene.title,
        "line": line_state(script, choice),
        "takes": listed,
    }


def take_origin(take: Take) -> dict:
    """Where a take came from, beyond `list_takes`: the model revision and layout version it
    was made with, the render mode and slot, its word times `[[start s, end s, word]]`
    from speech recognition when that ran, and its voice and quality scores (`take_scores`)."""
    record = take.record
    words = [
        [word.start_s, word.end_s, word.text] for word in (record.asr.words if record.asr else ())
    ]
    return {
        "model_revision": record.model_revision,
        "layout_version": record.layout_version,
        "mode": record.mode,
        "slot": record.slot,
        "words": words,
        **take_scores(record),
    }


def peaks(audio: np.ndarray, buckets: int = PEAK_BUCKETS) -> list[list[float]]:
    """The waveform of float32 mono `audio` [samples] as `buckets` columns of [min, max]
    (fewer when the audio is shorter), rounded to 4 places; [] for empty audio."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if audio.size == 0:
        return []
    columns = min(buckets, audio.size)
    edges = np.linspace(0, audio.size, columns + 1).astype(np.int64)
    low = np.minimum.reduceat(audio, edges[:-1])
    high = np.maximum.reduceat(audio, edges[:-1])
    return np.round(np.stack([low, high], axis=1).astype(np.float64), 4).tolist()


def scene_view(project, scene_id: str) -> dict:
    """A scene's mix timeline as `drama plot --scene` lays it out (`drama_cli.plot.scene_blocks`:
    from the cue sheet of its last mix, else from the selected takes): `{scene, title, blocks:
    [{line, speaker, text, start_s, end_s}], total_s, gaps, overlaps: [[start s, end s]],
    mixed: whether a mix file exists (`scene_mix_file`), mix_outdated: whether the selections changed since,
    mix_stale_files: files of the scene's mix set that are not of its last mix, or that it
    lists and are gone (`drama_cli.mix.mix_set.set_state`: a run stopped while switching)}`.
    Raises UsageError for an unknown scene."""
    # lazy: matplotlib and scipy (warm_up loads them once the studio serves), 1.2 s at start-up
    from drama_cli.plot import gaps, overlaps, scene_blocks

    script, store = project.script(), project.store
    scene = project.find_scene(scene_id)
    try:
        blocks, total = scene_blocks(script, store, scene.id)
    except UsageError:  # nothing selected yet: an empty timeline
        blocks, total = [], None
    folder = store.scene_dir(scene.id)
    mix = scene_mix_file(folder)
    cues, chosen = (folder / name for name in ("mix.cues.json", "selected.json"))
    outdated = (
        mix is not None
        and chosen.exists()
        and (not cues.exists() or chosen.stat().st_mtime_ns > cues.stat().st_mtime_ns)
    )
    return {
        "scene": scene.id,
        "title": scene.title,
        "blocks": [
            {
                "line": b.line_id,
                "speaker": b.speaker,
                "text": b.text,
                "start_s": b.start_s,
                "end_s": b.end_s,
            }
            for b in blocks
        ],
        "total_s": total or max((b.end_s for b in blocks), default=0.0),
        "gaps": gaps(blocks),
        "overlaps": overlaps(blocks),
        "mixed": mix is not None,
        "mix_outdated": outdated,
        "mix_stale_files": stale_mix_files(folder) if mix is not None else [],
    }


def scene_mix_file(folder: Path) -> Path | None:
    """The audio file of a scene's mix in its folder: `mix.wav`, else `mix.flac`, else `mix.mp3`
    (the export formats in their table's order; `drama mix --format mp3` writes only the MP3),
    None when the scene has none."""
    for name in FORMATS:
        path = folder / f"{MIX_BASENAME}.{name}"
        if path.is_file():
            return path
    return None


def stale_mix_files(folder) -> list[str]:
    """Names of the files in a scene folder that are not of its current mix set: left by
    another mix, changed since, or listed by the cue sheet and missing."""
    state = set_state(folder)
    return sorted(state.stale + state.missing)
