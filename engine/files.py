"""Files that appear whole or not at all, and the digest of a file's bytes.

A file is written under a hidden temporary name in its target's folder (`staged_path`: the
same file system, so the rename is atomic), fsynced, given an ordinary file mode and renamed
(`publish`, `atomic_path`) or hard-linked (`write_new_file`, never overwriting) into place; the
folder is fsynced after. A crash (Ctrl-C, kill -9, power cut) leaves the old file or the new
one, never half of one, and at most a `.<name>.<random>.tmp` beside it. Files that belong
together are switched in one step (`publish`), undone whole when a rename in it fails.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

_UMASK = os.umask(0o022)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK  # what open() gives a new file: 0644 under the usual umask 022


def staged_path(target: Path) -> Path:
    """A new empty hidden file beside `target` (`.<name>.<random>.tmp`, folders made as
    needed) to write it under until `publish` renames it into place."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    return Path(name)


def stage_bytes(target: Path, data: bytes) -> Path:
    """Write `data` to a `staged_path` of `target`, fsynced, with `FILE_MODE`; returns the
    temporary (removed again when the write fails)."""
    tmp = staged_path(target)
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, FILE_MODE)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def stage_text(target: Path, text: str) -> Path:
    """Write UTF-8 `text` to a `staged_path` of `target`; returns the temporary."""
    return stage_bytes(target, text.encode("utf-8"))


def publish(
    staged: Sequence[tuple[Path, Path]], mode: int = FILE_MODE, remove: Sequence[Path] = ()
) -> None:
    """Switch a set of written temporaries into place as one step.

    Every temporary is given `mode` and fsynced first (so all renames happen after all
    writes); then the files of `remove` are deleted and each temporary is renamed onto its
    target, in order (put the file that says the set is complete last); the folders are
    fsynced last. When a deletion or rename fails, the step is undone before the error is
    raised: every target replaced or deleted so far is back (a hard link of it is kept aside,
    `.<name>.<random>.tmp`, until the step ends) and every temporary renamed so far is back
    under its temporary name, so the caller still owns and removes it.
    """
    for tmp, _target in staged:
        # mkstemp creates 0600, and a caller may have renamed another such file onto `tmp`
        os.chmod(tmp, mode)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
    undo: list[tuple[Path, Path | None, Path | None]] = []  # (path, kept copy, temporary)
    try:
        for path in remove:
            if os.path.lexists(path):
                undo.append((Path(path), _kept_aside(path), None))
                os.unlink(path)
        for tmp, target in staged:
            undo.append(
                (Path(target), _kept_aside(target) if os.path.lexists(target) else None, Path(tmp))
            )
            os.replace(tmp, target)
    except BaseException:
        _undo(undo)
        raise
    finally:
        for _path, kept, _tmp in undo:
            if kept is not None:
                kept.unlink(missing_ok=True)
    touched = [Path(target) for _tmp, target in staged] + [Path(path) for path in remove]
    for folder in dict.fromkeys(path.parent for path in touched):
        fsync_folder(folder)


def _kept_aside(path: Path) -> Path:
    """A hard link of `path` under a hidden temporary name beside it (a copy where the file
    system has no hard links), to put back should the step fail."""
    kept = staged_path(Path(path))
    kept.unlink()
    try:
        os.link(path, kept)
    except OSError:
        shutil.copy2(path, kept)
    return kept


def _undo(steps: list[tuple[Path, Path | None, Path | None]]) -> None:
    """Put back, last first, what `publish` switched: each renamed temporary under its own
    name, each replaced or deleted file from its kept copy. Best effort: a step that fails
    (the disk that failed the switch) does not stop the others."""
    for path, kept, tmp in reversed(steps):
        with contextlib.suppress(OSError):
            if tmp is not None and not os.path.lexists(tmp) and os.path.lexists(path):
                os.replace(path, tmp)
            if kept is not None:
                os.replace(kept, path)


@contextlib.contextmanager
def atomic_path(target: Path, mode: int = FILE_MODE) -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success it gets `mode`, is fsynced and
    renamed onto `target`. On any exception the temporary is removed and `target` is left
    untouched."""
    tmp = staged_path(target)
    try:
        yield tmp
        publish([(tmp, Path(target))], mode)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(target: Path, text: str, mode: int = FILE_MODE) -> Path:
    """Write UTF-8 `text` to `target` atomically, with `mode`; returns `target`."""
    with atomic_path(target, mode) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(target)


def write_bytes_atomic(target: Path, data: bytes) -> Path:
    """Atomically replace `target` with `data` (or create it); returns `target`."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
    return Path(target)


def write_new_file(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically and only if `path` does not exist yet.

    Temporary file in the same folder, fsync, hard link into place (fails if taken), unlink the
    temporary. Raises FileExistsError when `path` exists; the old file is never touched.
    """
    tmp = stage_bytes(path, data)
    try:
        os.link(tmp, path)
    except OSError as err:
        if err.errno == errno.EEXIST or path.exists():
            raise FileExistsError(path) from None
        os.rename(tmp, path)  # file systems without hard links
    finally:
        tmp.unlink(missing_ok=True)
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename or link into it) to disk, where the system allows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes, read in 1 MiB blocks. Raises OSError when the
    file cannot be read."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
