"""The provenance of a take: who voiced it with what (its engine, model revision, seed, mode,
layout and version, sampling settings, audio hash; for a take voiced on a speech server, the
server's origin and the model id it reported, its version being the model revision; whether
the Drama 3 model voiced it), the cast's reference clips of its speaker by content hash, and
the speaker's consent or voice source (`CastMember.voice_record`).
`drama takes --json` shows it per take; `drama_cli.mix.provenance` writes it per delivered line."""

from __future__ import annotations

from pathlib import Path

from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.take_record import TakeRecord

TAKE_FIELDS = (
    "engine",
    "model_revision",
    "seed",
    "mode",
    "layout",
    "layout_version",
    "sampling",
    "cache_key",
    "wav_sha256",
    "scratch",
)


def take_provenance(script, speaker: str, record: TakeRecord, hashes: ReferenceHasher) -> dict:
    """The provenance of one take of a line spoken by `speaker` (a cast name): TAKE_FIELDS of
    its `record`; `server` and `model`, the speech server's origin and the model id it
    reported (None for a take made on this machine, and in records written before servers);
    `drama3_model` (`TakeRecord.by_drama3_model`, so older records still answer); the
    speaker's reference clips `[{path (as the cast writes it), sha256}]` (`missing:PATH` for a
    file that is gone) and its `voice` record."""
    member = script.cast.get(speaker)
    references = [
        {"path": clip.path, "sha256": hashes(str(Path(script.base_dir, clip.path)))}
        for clip in (member.references if member else ())
    ]
    identity = record.json.get("engine_identity")
    identity = identity if isinstance(identity, dict) else {}
    return {
        **{name: getattr(record, name) for name in TAKE_FIELDS},
        "server": identity.get("server"),
        "model": identity.get("model"),
        "drama3_model": record.by_drama3_model,
        "references": references,
        "voice": member.voice_record() if member else None,
    }
