"""Listing a project's takes and choosing one by hand (`drama takes`)."""

from __future__ import annotations

from drama_cli.errors import UsageError
from drama_cli.script.direction import display_text
from drama_cli.takes.store import Take, TakeStore


def list_takes(store: TakeStore, scenes: list, line_ids=()) -> list[dict]:
    """Every line's takes for `drama takes`: per line `{"scene", "line", "speaker", "takes":
    [{take, selected, status, duration_s, seed, engine, scratch, failures, wer, problem}]}`;
    invalid take files are listed with their problem."""
    rows = []
    for scene in scenes:
        chosen = store.selections(scene.id)
        for line in scene.lines:
            if line_ids and line.id not in line_ids:
                continue
            scan = store.scan(scene.id, line.id)
            picked = chosen.get(line.id, {}).get("take")
            takes = [_take_row(t, t.number == picked) for t in scan.valid]
            takes += [{"take": n, "status": "invalid", "problem": why}
                      for n, why in scan.invalid.items()]
            rows.append({"scene": scene.id, "line": line.id, "speaker": line.speaker,
                         "text": display_text(line),
                         "takes": sorted(takes, key=lambda row: row["take"])})
    return rows


def _take_row(take: Take, selected: bool) -> dict:
    record = take.record
    asr = record.get("asr") or {}
    return {"take": take.number, "selected": selected, "status": take.status,
            "duration_s": take.duration_s, "seed": record.get("seed"),
            "engine": record.get("engine", ""), "scratch": bool(record.get("scratch")),
            "failures": record.get("checks", {}).get("failures", []),
            "note": record.get("note"), "parent_take": record.get("parent_take"),
            "wer": asr.get("wer"), "transcript": asr.get("transcript"),
            "file": str(take.wav_path)}


def select_take(script, store: TakeStore, line_id: str, number: int) -> Take:
    """Select take `number` of `line_id` by hand (kept by later renders while the line is
    unchanged). Raises UsageError for an unknown line or a missing or invalid take."""
    for scene in script.scenes:
        if any(line.id == line_id for line in scene.lines):
            break
    else:
        raise UsageError(f"no line {line_id!r} in the script")
    valid = {t.number: t for t in store.takes(scene.id, line_id)}
    if number not in valid:
        have = ", ".join(map(str, valid)) or "none"
        raise UsageError(f"line {line_id!r} has no take {number} (takes: {have})")
    with store.lock():
        store.select(scene.id, line_id, valid[number], by="user")
    return valid[number]
