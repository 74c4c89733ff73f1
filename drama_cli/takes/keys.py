"""Cache-key ingredients: stable hashes of what shapes a line's audio.

A line is rendered again only when its cache key changes. The key is a SHA-256 over a canonical
JSON form (sorted keys) of the conversation, the request and the backend identity.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from engine.conversation import AudioClip, Conversation


def stable_hash(value) -> str:
    """SHA-256 hex digest of a JSON-serialisable value with sorted keys (the cache-key hash).

    numpy arrays hash by dtype, shape and bytes; Paths by their text.
    """
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=json_default,
                      ensure_ascii=False)


def json_default(value):
    """`json.dumps` default for values in cache keys and records: numpy arrays by dtype, shape
    and SHA-256 of their bytes, numpy scalars as numbers, Paths as text, sets sorted."""
    if isinstance(value, np.ndarray):
        return {"ndarray": str(value.dtype), "shape": list(value.shape),
                "sha256": hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()}
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot hash {type(value).__name__}")


class ReferenceHasher:
    """SHA-256 of reference files, computed once per path (cache keys name file contents)."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def __call__(self, path: str | None) -> str | None:
        if not path:
            return None
        if path not in self._known:
            try:
                self._known[path] = file_sha256(Path(path))
            except OSError:
                self._known[path] = f"missing:{path}"
        return self._known[path]


def _clip_identity(clip: AudioClip | None, hasher: ReferenceHasher) -> dict | None:
    if clip is None:
        return None
    if clip.codes is not None:
        return {"codes": np.asarray(clip.codes)}
    return {"file": hasher(clip.path)}


def conversation_identity(conversation: Conversation, hasher: ReferenceHasher) -> dict:
    """What of a conversation shapes the line's audio, for the cache key.

    Context exchanges (earlier lines' takes) are left out on purpose: re-taking line 2 must not
    re-render line 3 (case C4); the line's own text, note, layout and references are in.
    """
    return {
        "layout": conversation.layout,
        "text": conversation.text,
        "note": conversation.note,
        "lines": list(conversation.lines),
        "descriptions": [list(d) for d in conversation.descriptions],
        "lookahead": conversation.lookahead,
        "references": [{"speaker": r.speaker, "transcript": r.transcript,
                        "clip": _clip_identity(r.clip, hasher)} for r in conversation.references],
    }


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()

