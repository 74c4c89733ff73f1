"""Listing a project's takes and choosing one by hand (`drama takes`)."""

from __future__ import annotations

import json
import re

from drama_cli.compile.normalise import spoken_line
from drama_cli.errors import UsageError
from drama_cli.script.direction import display_text, render_spans
from drama_cli.script.spoken import Word, model_words
from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.provenance import take_provenance
from drama_cli.takes.record import record_problem
from drama_cli.takes.store import Take, TakeStore
from drama_cli.takes.take_record import TakeAsr, TakeRecord
from engine.text import POINT_TAG, SCOPED_TAG, spoken_text


def voice_score(take: Take) -> float | None:
    """The take's voice similarity to its character (`record.voice.similarity`), or None when
    it was not measured."""
    voice = take.record.voice
    return None if voice is None else voice.similarity


def best_take(candidates: list[Take]) -> tuple[Take | None, str, str]:
    """The take a line uses automatically among `candidates` (in render order): (take, status,
    reason). A take that passed every check comes first, and among those the best voice match
    (takes without a voice score after the scored ones, render order breaking ties); else the
    first degraded take; unusable takes are never chosen. status: `ok`, `degraded` or `failed`
    (no take). reason: one line saying why, recorded with the selection."""
    passing = [take for take in candidates if take.status == "ok"]
    if passing:
        scored = [take for take in passing if voice_score(take) is not None]
        if len(scored) > 1 or (scored and len(passing) > 1):
            best = max(scored, key=voice_score)  # max keeps the first of equal scores
            return best, "ok", f"passed every check; best voice match ({voice_score(best):.2f})"
        return passing[0], "ok", "passed every check"
    for take in candidates:
        if take.status == "degraded":
            return take, "degraded", f"no take passed; first degraded: {take.failures_text}"
    return None, "failed", "no usable take"


def line_words(line) -> str:
    """`model_words` of a script line's model text as written (its words, tags and notes,
    before the lexicon and the number rules)."""
    return model_words(render_spans(line.spans, 0, lambda name: 0, line.notes, line.speaker))


def compiled_words(script, line, normalize: bool = True) -> str:
    """`model_words` of the line's model text as the compiler writes it now: after the
    script's lexicon and, with `normalize` (and the script's and line's own setting), the
    number rules (`drama_cli.compile.normalise.spoken_line`)."""
    spans = spoken_line(script, line, normalize).spans
    return model_words(render_spans(spans, 0, lambda name: 0, line.notes, line.speaker))


def take_text(take: Take, line=None) -> str:
    """The words a take says, for tables, labels, subtitles and cue sheets: the display text
    recorded with it, else an edit's new text, else its model text without tags (earlier
    records); the script line's display text only when the record has none."""
    record = take.record
    if record.display_text:
        return record.display_text
    edited = record.edit.new_text if record.edit else None
    words = spoken_text(edited or model_words(record.text or ""))
    return words or (display_text(line) if line is not None else "")


def take_timing(
    take: Take, text: str
) -> tuple[tuple[tuple[str, float, float], ...], tuple[Word, ...]]:
    """What times a take's words, for subtitles: (its chunks as (text, start s, end s) when it
    was made of several whose words are `text`'s, its speech-recognition words when there is
    one per word of `text`); each empty when unknown."""
    words = text.split()
    segments = take.record.chunks
    if " ".join(t for t, _, _ in segments).split() != words:
        segments = ()
    heard = take.record.asr.words if take.record.asr else ()
    return segments, heard if len(heard) == len(words) else ()


def take_chain(store: TakeStore, scene_id: str, line_id: str, take: Take) -> list[Take]:
    """`take` and, for a revision or an edit, the takes it was made from, nearest first (an
    edit of a line says new words for the same script line); stops at a missing parent or a
    loop."""
    chain, seen = [], set()
    while take is not None and take.number not in seen:
        seen.add(take.number)
        chain.append(take)
        parent = take.record.parent_take
        take = None
        if isinstance(parent, int):
            take = next((t for t in store.takes(scene_id, line_id) if t.number == parent), None)
    return chain


_MARKUP = re.compile(f"{POINT_TAG}|{SCOPED_TAG}")  # directions and scoped tags


def _markup(words: str) -> tuple[str, ...]:
    return tuple(_MARKUP.findall(words))


def made_for(script, line, record: TakeRecord) -> bool:
    """True when a take record says `line` as the script has it now: its model text (`text`,
    as the compiler wrote it) is the line's model text compiled now with the take's number
    setting (`normalize`: numbers said as words or, with `--no-normalize`, as written), speaker
    tags aside. A record without `normalize` (made by an earlier release) says the line when
    `made_for_written_line`."""
    if record.normalize is None:
        return made_for_written_line(line, record)
    return model_words(record.text or "") == compiled_words(script, line, record.normalize)


def made_for_written_line(line, record: TakeRecord) -> bool:
    """The rule for records without `normalize`: the record's model text is the line's as
    written (`line_words`), or its words shown (`display_text`) are the line's with the same
    directions and tags (the compiler wrote numbers as words and applied the lexicon)."""
    said, wanted = model_words(record.text or ""), line_words(line)
    if said == wanted:
        return True
    recorded = " ".join((record.display_text or "").split())
    return (
        bool(recorded)
        and recorded == " ".join(display_text(line).split())
        and _markup(said) == _markup(wanted)
    )


def is_stale(script, store: TakeStore, scene_id: str, line, take: Take) -> bool:
    """True when `take` was made for another text or speaker than `line` has now (the script
    or its lexicon changed since): its audio no longer says the line. A take says the line
    when it, or a take it was made from (a revision, an edit), was made for it (`made_for`)."""
    if take.record.speaker not in (None, line.speaker):
        return True
    chain = take_chain(store, scene_id, line.id, take)
    return not any(made_for(script, line, made.record) for made in chain)


def stale_note(take: Take, line) -> str:
    """`take N was made for older text ("..."); the script now says "..."` for a stale take,
    or, when it has the line's words, that its directions or pronunciations (lexicon, number
    setting) were older."""
    said, shown = take_text(take, line), display_text(line)
    if said == shown:
        return f"take {take.number} was made for older directions or pronunciations of {said!r}"
    return f"take {take.number} was made for older text ({said!r}); the script now says {shown!r}"


class MovedTakes:
    """Takes a scene keeps under line ids that moved: when a line is removed or added, the
    automatic ids of the lines after it shift (`s1-3` becomes `s1-2`), and a line's takes are
    left under its old id. A line without a take for its text of its own is told which other
    ids hold takes made for that text and speaker, when those takes do not fit the line now
    at that id (or no line has that id). Only a notice: cache keys and selections stay as they
    are.

    The scene's selections are read when this is made, before a render changes them: after
    an insert the takes a line needs lie under the id of the line before it, which the render
    selects a new take for first, so the holders and what they held come from this snapshot
    (`selected_before`; with `for_render`, also the take numbers under each selected id,
    `last_take_before`). The selected takes' records are read once, when first asked."""

    def __init__(self, script, store: TakeStore, scene, for_render: bool = False):
        self.script, self.store, self.scene = script, store, scene
        try:
            self._chosen = store.selections(scene.id)
        except UsageError:
            self._chosen = {}
        self._last = {
            line_id: max(store.take_numbers(scene.id, line_id), default=0)
            for line_id in (self._chosen if for_render else ())
        }
        self._records: list[tuple[str, Take]] | None = None

    def _selected(self) -> list[tuple[str, Take]]:
        if self._records is None:
            self._records = []
            for line_id, entry in self._chosen.items():
                take = Take(int(entry["take"]), self.store.line_dir(self.scene.id, line_id))
                try:
                    record = json.loads(take.json_path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                if record_problem(record) is None:
                    take.record = TakeRecord.from_json(record)
                    self._records.append((line_id, take))
        return self._records

    def selected_before(self, line_id: str) -> Take | None:
        """The take selected under `line_id` when this was made (its record read), or None."""
        return next((take for held, take in self._selected() if held == line_id), None)

    def last_take_before(self, line_id: str) -> int:
        """The highest take number under a selected `line_id` when this was made with
        `for_render` (0: none, or not made for a render)."""
        return self._last.get(line_id, 0)

    def holders(self, line) -> list[str]:
        """The other ids of the scene whose selected take was made for `line`'s text and
        speaker and does not fit the line that has that id now."""
        own = self.store.selected_take(self.scene.id, line.id)
        if own is not None and not is_stale(self.script, self.store, self.scene.id, line, own):
            return []
        lines = {other.id: other for other in self.scene.lines}
        found = []
        for line_id, take in self._selected():
            if (
                line_id == line.id
                or take.record.speaker != line.speaker
                or not made_for(self.script, line, take.record)
            ):
                continue
            now = lines.get(line_id)
            if now is None or is_stale(self.script, self.store, self.scene.id, now, take):
                found.append(line_id)
        return found

    def note(self, line) -> str | None:
        """The notice for `line` (`holders`), or None."""
        holders = self.holders(line)
        if not holders:
            return None
        return (
            f"line {line.id}: takes under {', '.join(holders)} were made for this text; the "
            f"ids moved when a line was removed or added — give lines explicit ids to keep "
            f"them stable"
        )


def list_takes(script, store: TakeStore, scenes: list, line_ids=()) -> list[dict]:
    """Every line's takes for `drama takes`: per line `{"scene", "line", "speaker", "text",
    "takes": [{take, selected, status, stale, text, duration_s, seed, engine, scratch,
    failures, note, notes, parent_take, edit, wer, transcript, file, problem, provenance}]}`;
    `provenance`: `drama_cli.takes.provenance.take_provenance`; `text`: the
    words the take says (`take_text`); `note`: the revision note it was read with, `notes` the
    chain of them; `parent_take`: the take it was revised or edited from; `edit`:
    `edit_summary`; `stale`: made for older text than the script's (`is_stale`); invalid take
    files are listed with their problem."""
    rows = []
    hashes = ReferenceHasher()
    for scene, line, scan, picked in scanned_lines(store, scenes, line_ids):
        takes = [
            {
                **_take_row(t, t.number == picked),
                "text": take_text(t, line),
                "stale": is_stale(script, store, scene.id, line, t),
                "provenance": take_provenance(script, line.speaker, t.record, hashes),
            }
            for t in scan.valid
        ]
        takes += [
            {"take": n, "status": "invalid", "problem": why} for n, why in scan.invalid.items()
        ]
        rows.append(
            {
                "scene": scene.id,
                "line": line.id,
                "speaker": line.speaker,
                "text": display_text(line),
                "takes": sorted(takes, key=lambda row: row["take"]),
            }
        )
    return rows


def scanned_lines(store: TakeStore, scenes: list, line_ids=()):
    """(scene, line, its `LineTakes`, the number of its selected take or None) for every line
    of `scenes`, only those in `line_ids` when given, in script order. Raises UsageError for a
    corrupt `selected.json`."""
    for scene in scenes:
        chosen = store.selections(scene.id)
        for line in scene.lines:
            if not line_ids or line.id in line_ids:
                yield (
                    scene,
                    line,
                    store.scan(scene.id, line.id),
                    chosen.get(line.id, {}).get("take"),
                )


def _take_row(take: Take, selected: bool) -> dict:
    record = take.record
    asr = record.asr or TakeAsr()
    return {
        "take": take.number,
        "selected": selected,
        "status": take.status,
        "duration_s": take.duration_s,
        "seed": record.seed,
        "engine": "" if record.engine is None else record.engine,
        "scratch": bool(record.scratch),
        "failures": list(record.checks.failures),
        "note": record.note,
        "notes": _list_or_none(record.notes),
        "parent_take": record.parent_take,
        "edit": edit_summary(record),
        "wer": asr.wer,
        "transcript": asr.transcript,
        "file": str(take.wav_path),
    }


EDIT_FIELDS = (
    "old_text",
    "new_text",
    "span_s",
    "covered_words",
    "middle_text",
    "whole_line",
    "flagged",
)  # what `drama takes` shows of an edit (the record keeps more)


def edit_summary(record: TakeRecord) -> dict | None:
    """The edit that made a take (`drama edit`): the line's text before and after, the span
    regenerated in seconds, the words it covered and the words said over it, whether the whole
    line was voiced again and whether the splice was flagged; None for a take not made by an
    edit."""
    edit = record.edit
    if edit is None:
        return None
    return {
        name: _list_or_none(value) if isinstance(value, tuple) else value
        for name, value in ((name, getattr(edit, name)) for name in EDIT_FIELDS)
    }


def _list_or_none(items: tuple | None) -> list | None:
    """A tuple of the record as its JSON list (what `drama takes --json` prints)."""
    return None if items is None else list(items)


def select_take(script, store: TakeStore, line_id: str, number: int) -> Take:
    """Select take `number` of `line_id` by hand (kept by later renders while the line is
    unchanged). Raises UsageError for an unknown line, a missing take, or an invalid one (saying
    why it is unusable)."""
    for scene in script.scenes:
        if any(line.id == line_id for line in scene.lines):
            break
    else:
        raise UsageError(f"no line {line_id!r} in the script")
    take = numbered_take(store, scene.id, line_id, number)
    with store.lock():
        store.select(scene.id, line_id, take, by="user")
    return take


def numbered_take(store: TakeStore, scene_id: str, line_id: str, number: int) -> Take:
    """Take `number` of the line. Raises UsageError when there is no such take, or when it is
    damaged (saying why it is unusable), naming the usable takes."""
    found = store.scan(scene_id, line_id)
    valid = {t.number: t for t in found.valid}
    if number not in valid:
        have = ", ".join(map(str, valid)) or "none"
        if number in found.invalid:
            raise UsageError(
                f"take {number} of line {line_id!r} is unusable: {found.invalid[number]} "
                f"(usable takes: {have})"
            )
        raise UsageError(f"line {line_id!r} has no take {number} (takes: {have})")
    return valid[number]
