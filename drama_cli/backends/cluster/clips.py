"""Audio clips that cross the network: a request names reference clips and earlier takes by
their path on the producer's machine, which the workers cannot see. The driver sends the
bytes of each file once (`clip_files`), keyed by content hash; a worker writes them into a
folder of its own (`ClipFolder`) and rewrites the clips' paths to those copies. Clips that
already carry codes travel as they are (the codes are part of the request). `ClipShipper`
puts each file in Ray's object store once per render (it imports Ray on first use).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
from pathlib import Path

from drama_cli.backends.base import GenerationRequest
from engine import AudioClip, Conversation, EngineError
from engine.files import write_bytes_atomic


def _clips(conversation: Conversation | None) -> list[AudioClip]:
    if conversation is None:
        return []
    found = [r.clip for r in conversation.references] + [e.clip for e in conversation.context]
    return [c for c in (*found, conversation.prefix, conversation.suffix) if c is not None]


def files_to_ship(request: GenerationRequest) -> list[str]:
    """The paths of the request's clips that have no codes (what a worker must be sent)."""
    return sorted({c.path for c in _clips(request.conversation) if c.codes is None and c.path})


def read_clip(path: str) -> tuple[str, bytes]:
    """(SHA-256 hex of the file, its bytes). Raises OSError for a file that cannot be read."""
    data = Path(path).read_bytes()
    return hashlib.sha256(data).hexdigest(), data


class ClipFolder:
    """A worker's copies of the clips it was sent, named by content hash (kept for the
    worker's life, so each clip is fetched once per worker)."""

    def __init__(self, folder: str | os.PathLike | None = None):
        self.folder = Path(folder or tempfile.mkdtemp(prefix="drama-clips-"))
        self.folder.mkdir(parents=True, exist_ok=True)

    def has(self, digest: str, suffix: str) -> bool:
        """True when the clip of `digest` is already here."""
        return (self.folder / f"{digest}{suffix}").is_file()

    def write(self, digest: str, suffix: str, data: bytes) -> Path:
        """Store a clip's bytes (atomically) and return its path here."""
        path = self.folder / f"{digest}{suffix}"
        if not path.is_file():
            write_bytes_atomic(path, data)
        return path

    def localise(self, request: GenerationRequest, digests: dict[str, str]) -> GenerationRequest:
        """The request with each shipped clip's path (a key of `digests`, path -> SHA-256)
        pointing at the copy here. Raises KeyError for a clip that was not sent."""
        local = {
            path: str(self.folder / f"{digest}{Path(path).suffix}")
            for path, digest in digests.items()
        }

        def moved(clip: AudioClip | None) -> AudioClip | None:
            if clip is None or clip.codes is not None or not clip.path:
                return clip
            return dataclasses.replace(clip, path=local[clip.path])

        conversation = request.conversation
        if conversation is None:
            return request
        conversation = dataclasses.replace(
            conversation,
            references=tuple(
                dataclasses.replace(r, clip=moved(r.clip)) for r in conversation.references
            ),
            context=tuple(dataclasses.replace(e, clip=moved(e.clip)) for e in conversation.context),
            prefix=moved(conversation.prefix),
            suffix=moved(conversation.suffix),
        )
        return dataclasses.replace(request, conversation=conversation)


class ClipShipper:
    """Puts each reference file's bytes in Ray's object store once per render, so that a
    worker fetches each clip at most once."""

    def __init__(self):
        self._sent: dict[str, tuple] = {}  # path -> (sha256, object ref)

    def clips(self, request: GenerationRequest) -> dict:
        """path -> (sha256, object ref) for every clip of `request` given only as a file.
        Raises EngineError for a file that cannot be read."""
        import ray  # optional: ray (the cluster extra), which connect() found installed

        for path in files_to_ship(request):
            if path not in self._sent:
                try:
                    digest, data = read_clip(path)
                except OSError as err:
                    raise EngineError(
                        f"cannot read the clip {path}: {err.strerror or err}"
                    ) from None
                self._sent[path] = (digest, ray.put(data))
        return {path: self._sent[path] for path in files_to_ship(request)}
