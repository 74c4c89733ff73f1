"""Giving a line the takes kept under another id (`drama takes --adopt OLD NEW`): when a line
is removed or added, the automatic ids of the lines after it shift (`s1-3` becomes `s1-2`) and
their takes stay under the old ids. Adopting copies them to the new id as new takes; the takes
under the old id stay as they are."""

from __future__ import annotations

import contextlib

from drama_cli.errors import UsageError
from drama_cli.takes.jobs import line_key
from drama_cli.takes.selection import made_for
from drama_cli.takes.store import Take, TakeStore


def adopt_takes(
    script,
    store: TakeStore,
    old_id: str,
    new_id: str,
    locked: bool = False,
    picked: int | None = None,
    through: int | None = None,
) -> dict[int, int]:
    """Copy every valid take under line id `old_id` to line `new_id` of the script (same
    scene), in number order; returns {old take number: new take number}.

    A copy made for the new line's text and speaker (`made_for`) gets the line's current cache
    key, so a render keeps it instead of rendering the line again; the others keep theirs
    (stale). Each copy records `adopted_from` ({line, take}); revisions and edits point at the
    copies of their parents. The copy of the take selected under `old_id` is selected for the
    line when it was made for the line's text. Raises UsageError for an unknown new line, the same id twice, or no takes
    under `old_id`. locked: the caller holds the project's lock already (a render). picked:
    the take number to count as selected under `old_id` (default: the one selected now);
    through: copy only takes numbered up to it (a render passes what `old_id` held when it
    started, so a take it made since for the line now at `old_id` stays there).
    """
    if old_id == new_id:
        raise UsageError("--adopt needs two different line ids: OLD NEW")
    scene, line = next(
        ((s, each) for s in script.scenes for each in s.lines if each.id == new_id), (None, None)
    )
    if line is None:
        raise UsageError(f"no line {new_id!r} in the script")
    takes = [
        t for t in store.scan(scene.id, old_id).valid if through is None or t.number <= through
    ]
    if not takes:
        raise UsageError(f"scene {scene.id} has no takes under line id {old_id!r}")
    other = next((t for t in takes if t.record.speaker not in (None, line.speaker)), None)
    if other is not None:
        raise UsageError(
            f"line {old_id}: its takes are spoken by {other.record.speaker}, line {new_id} by "
            f"{line.speaker}; takes are adopted only for the same speaker"
        )
    key = line_key(script, store, scene, line)
    done = _copied_before(store, scene.id, old_id, new_id)
    copies: dict[int, int] = {}
    with contextlib.nullcontext() if locked else store.lock():
        for take in takes:
            if take.number in done:
                continue
            record = _copy_record(script, line, old_id, take, key, {**done, **copies})
            copies[take.number] = store.add_take(
                scene.id, new_id, take.audio(), record, take.codes()
            ).number
        if picked is None:
            picked = store.selections(scene.id).get(old_id, {}).get("take")
        copy = store.take(scene.id, new_id, copies[picked]) if picked in copies else None
        if copy is not None and copy.cache_key == key:
            store.select(scene.id, new_id, copy, by="user")
    return copies


def _copy_record(script, line, old_id: str, take: Take, key: str, copies: dict[int, int]) -> dict:
    """The JSON record of the copy of `take` (under line id `old_id`) for `line`: its own,
    with where it came from, the line's cache key when it was made for the line, and its
    parent's copy (`copies`: {old take number: new take number})."""
    record = take.record
    changes: dict = {"adopted_from": {"line": old_id, "take": take.number}}
    if record.speaker in (None, line.speaker) and made_for(script, line, record):
        changes["cache_key"] = key
    if isinstance(record.parent_take, int):
        changes["parent_take"] = copies.get(record.parent_take)
    return {**record.to_json(), **changes}


def _copied_before(store: TakeStore, scene_id: str, old_id: str, new_id: str) -> dict[int, int]:
    """{take number under `old_id`: number of its copy under `new_id`} for takes adopted before."""
    copied = {}
    for take in store.scan(scene_id, new_id).valid:
        source = take.record.adopted_from
        if source is not None and source.line == old_id and isinstance(source.take, int):
            copied.setdefault(source.take, take.number)
    return copied
