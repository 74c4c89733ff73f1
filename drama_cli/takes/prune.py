"""Removing the takes a line no longer needs (`drama takes --prune`): unusable takes (their
checks failed, or their files are damaged) that are neither selected nor the take another take
was revised or edited from. Takes are otherwise never removed."""

from __future__ import annotations

from dataclasses import dataclass

from drama_cli.takes.selection import scanned_lines
from drama_cli.takes.store import TakeStore


@dataclass(frozen=True)
class PrunedTake:
    """One take `--prune` removes: where it is, its number, why, and its files."""

    scene_id: str
    line_id: str
    number: int
    reason: str
    files: tuple[str, ...]


def prunable_takes(store: TakeStore, scenes: list, line_ids=()) -> list[PrunedTake]:
    """The takes of `scenes` (only lines in `line_ids` when given) that `--prune` removes:
    unusable (status `unusable`) or invalid (damaged files), never a selected take nor a parent
    of another take of the line. Raises UsageError for a corrupt `selected.json`."""
    found = []
    for scene, line, scan, picked in scanned_lines(store, scenes, line_ids):
        kept = {t.record.parent_take for t in scan.valid} | {picked}
        failed = {
            t.number: f"unusable: {t.failures_text}" for t in scan.valid if t.status == "unusable"
        }
        failed.update({n: f"invalid: {why}" for n, why in scan.invalid.items()})
        found += [
            PrunedTake(
                scene.id,
                line.id,
                number,
                reason,
                tuple(str(p) for p in store.take_files(scene.id, line.id, number)),
            )
            for number, reason in sorted(failed.items())
            if number not in kept
        ]
    return found


def prune_takes(store: TakeStore, takes: list[PrunedTake]) -> None:
    """Delete the files of `takes` (from `prunable_takes`), under the project's lock."""
    with store.lock():
        for take in takes:
            store.remove_take(take.scene_id, take.line_id, take.number)
