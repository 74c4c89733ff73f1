"""The files of one scene mix as one set: the mix in each format, its labels, SRT, stems, DAW
sessions and provenance are written under temporary names, then switched into place in one
step (`engine.files.publish`), the cue sheet last, while the files of an earlier set that this
one does not hold (a stem of a character no longer in the scene) are removed in the same step.

The cue sheet names the other files of its set (`set`: each file's size, modification time and
SHA-256), so a reader tells a file of the current mix from one an earlier mix left, even after
a run killed halfway through the step (`set_state`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from drama_cli.mix.provenance import PROVENANCE_NAME
from engine.files import file_sha256

MIX_BASENAME = "mix"
CUE_SHEET_NAME = f"{MIX_BASENAME}.cues.json"
SET_KEY = "set"


def set_paths(folder: str | Path) -> list[Path]:
    """The files in `folder` that belong to a scene's mix set, of any run: `mix.*` and
    `provenance.json` (hidden temporaries are not)."""
    folder = Path(folder)
    return sorted([*folder.glob(f"{MIX_BASENAME}.*"), *folder.glob(PROVENANCE_NAME)])


def set_record(staged: Iterable[tuple[Path, Path]]) -> dict:
    """The cue sheet's `set` entry for written temporaries (temporary, target): `{"files":
    {target name: {"bytes", "mtime_ns", "sha256"}}}`; a rename keeps size and time."""
    rows = {}
    for tmp, target in staged:
        stat = os.stat(tmp)
        rows[Path(target).name] = {
            "bytes": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "sha256": file_sha256(tmp),
        }
    return {"files": dict(sorted(rows.items()))}


@dataclass
class SetState:
    """Which files of a scene folder are its current mix set.

    current: files the cue sheet lists, as it lists them. stale: files of a mix set
    (`set_paths`) that are not: left by an earlier mix, or changed since. missing: files the
    cue sheet lists that are not there (a run stopped while it switched the set). complete:
    the cue sheet lists its set and every file of it is current (a cue sheet written before
    sets were recorded lists none: then every other file is stale).
    """

    current: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    complete: bool = False


def set_state(folder: str | Path, verify: bool = False) -> SetState:
    """The `SetState` of a scene folder: each file of a mix set compared with the cue sheet's
    record by size and modification time, by SHA-256 where the time differs (a copied
    project), and with `verify` by SHA-256 always (reads every file). No cue sheet: every
    such file is stale."""
    folder = Path(folder)
    try:
        sheet = json.loads((folder / CUE_SHEET_NAME).read_text(encoding="utf-8"))
        listed = sheet[SET_KEY]["files"] if isinstance(sheet, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        listed = None
    state = SetState()
    for path in set_paths(folder):
        if path.name == CUE_SHEET_NAME:
            continue
        row = (listed or {}).get(path.name)
        ok = isinstance(row, dict) and _matches(path, row, verify)
        (state.current if ok else state.stale).append(path.name)
    state.missing = sorted(set(listed or ()) - set(state.current) - set(state.stale))
    state.complete = listed is not None and not state.stale and not state.missing
    return state


def _matches(path: Path, row: dict, verify: bool) -> bool:
    """Same size, and the same time (unless `verify`) or else the same SHA-256 (a copied
    project keeps its bytes but may not keep the times)."""
    stat = path.stat()
    if stat.st_size != row.get("bytes"):
        return False
    if stat.st_mtime_ns == row.get("mtime_ns") and not verify:
        return True
    return file_sha256(path) == row.get("sha256")
