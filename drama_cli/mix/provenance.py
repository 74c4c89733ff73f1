"""Who voiced each line of a delivered mix, with what, from which take: `provenance.json` beside
a scene mix (and, per chapter, beside a book). One entry per cue of the mix, in the cue sheet's
order, so the cue covering any second of the audio names its entry.

An entry: line id, speaker, start and end in seconds of the mix, take number, and the take's
provenance (`drama_cli.takes.provenance.take_provenance`)."""

from __future__ import annotations

import json

from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.provenance import take_provenance
from drama_cli.takes.take_record import TakeRecord

PROVENANCE_NAME = "provenance.json"


def mix_provenance(script, cues, choices) -> list[dict]:
    """One entry per cue of a mix (`drama_cli.mix.timeline.Cue`, in order) from the `LineChoice`s
    that made it (`drama_cli.takes.scene_selection`)."""
    by_line = {choice.line.id: choice for choice in choices if choice.take is not None}
    hashes = ReferenceHasher()
    entries = []
    for cue in cues:
        choice = by_line.get(cue.line_id)
        record = choice.take.record if choice else TakeRecord()
        entries.append(
            {
                "line": cue.line_id,
                "speaker": cue.speaker,
                "start_s": round(cue.start_s, 6),
                "end_s": round(cue.end_s, 6),
                "take": cue.take,
                **take_provenance(
                    script, choice.line.speaker if choice else cue.speaker, record, hashes
                ),
            }
        )
    return entries


def provenance_text(summary: dict, entries: list[dict]) -> str:
    """The text of a `provenance.json`: `summary` fields and `lines` (the entries)."""
    return json.dumps({**summary, "lines": entries}, indent=2, ensure_ascii=False) + "\n"


def entry_at(book_provenance: dict, chapter: int, seconds: float) -> dict | None:
    """The entry of a book's `provenance.json` (`{"chapters": [{"chapter", "file", "lines"}]}`)
    whose line sounds at `seconds` into chapter number `chapter`, with `chapter` and `file`
    added; between lines, the line before. None when the chapter is not in the book or the
    time lies before its first line or after its last."""
    for part in book_provenance.get("chapters", []):
        if part.get("chapter") != chapter:
            continue
        before = [entry for entry in part.get("lines", []) if entry["start_s"] <= seconds]
        if before and seconds <= part["lines"][-1]["end_s"]:
            return {"chapter": chapter, "file": part.get("file"), **before[-1]}
    return None
