"""Who voiced each line of a delivered mix, with what, from which take: `provenance.json` beside
a scene mix (and, per chapter, beside a book). One entry per cue of the mix, in the cue sheet's
order, so the cue covering any second of the audio names its entry.

An entry: line id, speaker, start and end in seconds of the mix, take number and its audio's
SHA-256, engine, model revision, seed, mode, layout and layout version, sampling settings,
the cast's reference clips of the speaker by content hash, and the speaker's consent or voice
source as the cast records it (`CastMember.voice_record`)."""

from __future__ import annotations

import json
from pathlib import Path

from engine.files import file_sha256, write_text_atomic

PROVENANCE_NAME = "provenance.json"
TAKE_FIELDS = ("engine", "model_revision", "seed", "mode", "layout", "layout_version", "sampling", "cache_key",
               "wav_sha256", "scratch")


class ClipHashes:
    """SHA-256 of reference clips by path, each file read once; None for a file that cannot be read."""

    def __init__(self, base_dir: str | Path):
        self.base_dir = Path(base_dir)
        self.known: dict[str, str | None] = {}

    def __call__(self, path: str) -> str | None:
        if path not in self.known:
            try:
                self.known[path] = file_sha256(self.base_dir / path)
            except OSError:
                self.known[path] = None
        return self.known[path]


def take_provenance(script, speaker: str, record: dict, hashes: ClipHashes) -> dict:
    """The provenance of one take of a line spoken by `speaker` (a cast name): TAKE_FIELDS of
    its `record`, the speaker's reference clips `[{path, sha256}]` and its `voice` record."""
    member = script.cast.get(speaker)
    references = [{"path": clip.path, "sha256": hashes(clip.path)} for clip in (member.references if member else ())]
    return {**{name: record.get(name) for name in TAKE_FIELDS}, "references": references,
            "voice": member.voice_record() if member else None}


def mix_provenance(script, cues, choices) -> list[dict]:
    """One entry per cue of a mix (`drama_cli.mix.timeline.Cue`, in order) from the `LineChoice`s
    that made it (`drama_cli.takes.scene_selection`)."""
    by_line = {choice.line.id: choice for choice in choices if choice.take is not None}
    hashes = ClipHashes(script.base_dir)
    entries = []
    for cue in cues:
        choice = by_line.get(cue.line_id)
        record = choice.take.record if choice else {}
        entries.append({"line": cue.line_id, "speaker": cue.speaker, "start_s": round(cue.start_s, 6),
                        "end_s": round(cue.end_s, 6), "take": cue.take,
                        **take_provenance(script, choice.line.speaker if choice else cue.speaker, record, hashes)})
    return entries


def write_provenance(folder: str | Path, summary: dict, entries: list[dict]) -> Path:
    """Write `folder/provenance.json`: `summary` fields and `lines` (the entries), atomically."""
    text = json.dumps({**summary, "lines": entries}, indent=2, ensure_ascii=False) + "\n"
    return write_text_atomic(Path(folder) / PROVENANCE_NAME, text)
