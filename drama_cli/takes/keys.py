"""Cache-key ingredients: stable hashes of what shapes a line's audio.

A line is rendered again only when its cache key changes. The key is a SHA-256 over a canonical
JSON form (sorted keys) of the conversation, the request and the backend identity.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from engine.clip import AudioClip
from engine.conversation import Conversation
from engine.files import file_sha256


def stable_hash(value) -> str:
    """SHA-256 hex digest of a JSON-serialisable value with sorted keys (the cache-key hash).

    numpy arrays hash by dtype, shape and bytes; Paths by their text.
    """
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()


def _canonical(value) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), default=json_default, ensure_ascii=False
    )


def json_default(value):
    """`json.dumps` default for values in cache keys and records: numpy arrays by dtype, shape
    and SHA-256 of their bytes, numpy scalars as numbers, Paths as text, sets sorted."""
    if isinstance(value, np.ndarray):
        return {
            "ndarray": str(value.dtype),
            "shape": list(value.shape),
            "sha256": hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest(),
        }
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


def clip_identity(clip: AudioClip, hasher: ReferenceHasher) -> dict:
    """An audio clip in a cache key: its codes when known, else the SHA-256 of its file."""
    if clip.codes is not None:
        return {"codes": np.asarray(clip.codes)}
    return {"file": hasher(clip.path)}


# Conversation fields left out of cache keys, with the reason each does not belong there.
CONVERSATION_NOT_IN_KEY = {
    "context": "earlier lines' takes: re-taking line 2 must not re-render line 3 (case C4)",
    "prefix": "infill audio: an edit is never looked up by key, each edit is a new take",
    "suffix": "infill audio: an edit is never looked up by key, each edit is a new take",
    "meta": "bookkeeping (line id, chunk number), not sent to the model",
}


def dataclass_identity(
    value,
    hasher: ReferenceHasher,
    not_in_key: Mapping[str, str],
    names: Mapping[str, str] | None = None,
) -> dict:
    """The cache-key form of a dataclass instance: every field except those in `not_in_key`
    (field name -> why it does not shape audio), so a new field is part of the key by default.

    Values are converted by `key_value`; `names` renames fields in the key (field -> key name).
    """
    names = names or {}
    return {
        names.get(f.name, f.name): key_value(getattr(value, f.name), hasher)
        for f in dataclasses.fields(value)
        if f.name not in not_in_key
    }


def key_value(value, hasher: ReferenceHasher):
    """A value in its cache-key form: audio clips by content, conversations by
    `conversation_identity`, other dataclasses field by field, sequences as lists, mapping keys
    as text (JSON object keys are text, and sorting them as text keeps keys stable)."""
    if isinstance(value, AudioClip):
        return clip_identity(value, hasher)
    if isinstance(value, Conversation):
        return conversation_identity(value, hasher)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclass_identity(value, hasher, {})
    if isinstance(value, (list, tuple)):
        return [key_value(v, hasher) for v in value]
    if isinstance(value, Mapping):
        return {str(k): key_value(v, hasher) for k, v in value.items()}
    return value


def conversation_identity(conversation: Conversation, hasher: ReferenceHasher) -> dict:
    """What of a conversation shapes the line's audio, for the cache key: every field of
    `Conversation` but those in `CONVERSATION_NOT_IN_KEY` (references by transcript, speaker
    and audio content)."""
    return dataclass_identity(conversation, hasher, CONVERSATION_NOT_IN_KEY)
