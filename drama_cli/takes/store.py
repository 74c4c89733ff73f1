"""The take store: numbered takes per line, selections per scene, resumable and crash-safe.

Layout on disk (docs/internals/architecture.md, "The project folder a render writes"):

    <root>/project.json
    <root>/<scene>/<line>/take-001.wav   float32 WAV, 44,100 Hz mono
    <root>/<scene>/<line>/take-001.json  the take record (seed, params, checks, cache key, ...)
    <root>/<scene>/<line>/take-001.codes.npy   codes [10, T] int64 (drama3 only)
    <root>/<scene>/selected.json         chosen take number per line id

Every file is written to a temporary name in the same folder, fsynced and then linked into
place (`engine.files.write_new_file`), so a crash (Ctrl-C, kill -9, power cut) leaves either a
whole file or none; no take file is ever overwritten. The JSON record is written last and names the
SHA-256 of the WAV, so a take
whose audio is truncated or altered is detected and ignored (and rendered again).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import os
import re
import struct
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.errors import RenderError, UsageError
from drama_cli.takes.keys import json_default
from drama_cli.takes.record import json_name, project_problem, record_problem
from drama_cli.takes.take_record import TakeRecord
from engine.constants import SAMPLE_RATE
from engine.files import file_sha256, write_bytes_atomic, write_new_file

TAKE_PATTERN = re.compile(
    r"^take-(\d{3,})\.(wav|json|codes\.npy)$"
)  # older projects may hold take-1000
MAX_TAKE_NUMBER = 999  # take-001 ... take-999: names sort in number order
MAX_NEW_TAKES = 100  # takes one command may ask for (--takes)
LOCK_NAME = ".drama.lock"
TEMPORARY_PATTERNS = (".*.tmp", ".mix-*.wav")  # what writers use until a file is complete
STORE_VERSION = 1
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}
MAX_NAME_CHARS = 60
_DAMAGED_PROJECT = (
    "fix it, or delete it (the next render writes it again; saved mix settings are lost)"
)


def safe_name(name: str) -> str:
    """A file-name-safe, stable and collision-resistant form of any scene, line or speaker name.

    Unicode is folded to ASCII where it has a plain form, anything outside `[A-Za-z0-9_-]`
    becomes `-` (so `/`, `\\`, `..` and spaces cannot escape or nest folders), at most 60
    characters are kept, and whenever the result differs from `name` a 6-hex-digit hash of the
    original is appended (so `Anna/B` and `Anna-B` stay apart). Never empty, never `.`/`..`.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    safe = _UNSAFE.sub("-", folded).strip("-")[:MAX_NAME_CHARS].strip("-")
    if safe.lower() in _RESERVED:
        safe = f"_{safe}"
    if safe != name or not safe:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:6]
        safe = f"{safe}-{digest}" if safe else f"x-{digest}"
    return safe


# -- cache-key ingredients -------------------------------------------------------------------


def check_new_takes(takes: int) -> None:
    """Raise UsageError unless 1 <= takes <= MAX_NEW_TAKES (the `--takes` of every command)."""
    if not 1 <= takes <= MAX_NEW_TAKES:
        raise UsageError(f"--takes must be between 1 and {MAX_NEW_TAKES}, got {takes}")


def wav_bytes(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> bytes:
    """Encode float32 mono audio `[samples]` as a 32-bit float WAV (exact, no rescaling)."""
    buffer = io.BytesIO()
    sf.write(
        buffer, np.asarray(audio, dtype=np.float32), sample_rate, format="WAV", subtype="FLOAT"
    )
    return buffer.getvalue()


def wav_is_complete(path: Path) -> bool:
    """True when a RIFF/WAVE file's header sizes match its length and its `data` chunk is whole.

    Detects a file cut short mid-write (the RIFF size or the data chunk size points past the
    end) and any file that is not RIFF/WAVE at all.
    """
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(12)
            if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
                return False
            if struct.unpack("<I", head[4:8])[0] + 8 != size:
                return False
            offset = 12
            while offset + 8 <= size:
                handle.seek(offset)
                chunk_id, chunk_size = struct.unpack("<4sI", handle.read(8))
                if chunk_id == b"data":
                    return offset + 8 + chunk_size <= size
                offset += 8 + chunk_size + (chunk_size & 1)
    except OSError:
        return False
    return False


@dataclass
class Take:
    """One stored take of one line: its number and record, and the files it lives in."""

    number: int
    folder: Path
    record: TakeRecord = field(default_factory=TakeRecord)

    @property
    def stem(self) -> str:
        """`take-001` for take 1."""
        return f"take-{self.number:03d}"

    @property
    def wav_path(self) -> Path:
        return self.folder / f"{self.stem}.wav"

    @property
    def json_path(self) -> Path:
        return self.folder / f"{self.stem}.json"

    @property
    def codes_path(self) -> Path:
        return self.folder / f"{self.stem}.codes.npy"

    @property
    def cache_key(self) -> str | None:
        return self.record.cache_key

    @property
    def duration_s(self) -> float:
        return self.record.duration_s

    @property
    def slot(self) -> int | None:
        """The render slot the take fills (0 for records written before slots), or None for
        an extra take (a revision or edit made beside the render's takes)."""
        return self.record.slot

    @property
    def render_order(self) -> tuple[bool, int, int]:
        """The take's place in render order: slot, then attempt, extra takes (no slot) last."""
        return (self.slot is None, self.slot or 0, self.record.attempt or 0)

    @property
    def status(self) -> str:
        """`ok`, `degraded` or `unusable` (from the stored checks)."""
        return self.record.checks.severity

    @property
    def failures_text(self) -> str:
        """The failed checks of the take joined by `; ` (`runaway: ...`), else `unusable` for an
        unusable take without them, else ""."""
        return "; ".join(self.record.checks.failures) or (
            "unusable" if self.status == "unusable" else ""
        )

    def audio(self) -> np.ndarray:
        """The take's audio, float32 mono `[samples]` at 44,100 Hz."""
        data, _rate = sf.read(self.wav_path, dtype="float32", always_2d=False)
        return data

    def codes(self) -> np.ndarray | None:
        """The take's codes `[10, T]` int64, or None when the backend had none."""
        return np.load(self.codes_path) if self.codes_path.exists() else None


def _signature(take: Take) -> tuple:
    """Sizes and modification times of a take's files (None for a missing file)."""
    result = []
    for path in (take.json_path, take.wav_path, take.codes_path):
        try:
            stat = path.stat()
            result.append((stat.st_size, stat.st_mtime_ns))
        except OSError:
            result.append(None)
    return tuple(result)


@dataclass
class LineTakes:
    """What a line folder holds: valid takes and the numbers of invalid (partial, corrupt) ones."""

    valid: list[Take]
    invalid: dict[int, str]

    @property
    def next_number(self) -> int:
        numbers = [t.number for t in self.valid] + list(self.invalid)
        return max(numbers, default=0) + 1


class ProjectLock:
    """An exclusive advisory lock on a project folder (fcntl.flock on `.drama.lock`).

    Released by the OS when the process dies, so a killed render never leaves a stale lock.
    Raises RenderError when another process holds it. on_acquire: called once the lock is
    held (the store removes what killed writers left behind).
    """

    def __init__(self, root: Path, on_acquire=None):
        self.path = Path(root) / LOCK_NAME
        self._fd: int | None = None
        self._on_acquire = on_acquire

    def __enter__(self) -> ProjectLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            import fcntl  # optional: fcntl (POSIX only; elsewhere there is no lock)

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - non-POSIX: no locking available
            pass
        except OSError:
            os.close(fd)
            holder = self.path.read_text(errors="replace").strip() or "another process"
            raise RenderError(
                f"project {self.path.parent} is in use by {holder}; wait for that render to finish"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}".encode())
        self._fd = fd
        if self._on_acquire is not None:
            self._on_acquire()
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class TakeStore:
    """Takes, selections and project metadata under one project folder `root`."""

    def __init__(self, root: Path | str):
        self.root = Path(root)
        self._checked: dict[Path, tuple] = {}  # json path -> (file signature, record, problem)
        # called with each take `add_take` stores (a render records its settings on the first)
        self.take_added: Callable[[Take], None] | None = None

    # -- locations -------------------------------------------------------------------------
    def scene_dir(self, scene_id: str) -> Path:
        return self.root / safe_name(scene_id)

    def line_dir(self, scene_id: str, line_id: str) -> Path:
        return self.scene_dir(scene_id) / safe_name(line_id)

    def lock(self) -> ProjectLock:
        """The project's exclusive lock (use as a context manager); taking it removes the
        temporaries of writers that were killed (`remove_stale_temporaries`)."""
        return ProjectLock(self.root, self.remove_stale_temporaries)

    # -- takes -----------------------------------------------------------------------------
    def scan(self, scene_id: str, line_id: str) -> LineTakes:
        """Every take number in the line folder, split into valid takes and invalid numbers
        (with the reason: missing record, unreadable record, truncated WAV, hash mismatch,
        missing codes)."""
        folder = self.line_dir(scene_id, line_id)
        numbers = self._numbers(folder)
        valid, invalid = [], {}
        for number in sorted(numbers):
            take, problem = self._load(folder, number)
            if problem:
                invalid[number] = problem
            else:
                valid.append(take)
        return LineTakes(valid, invalid)

    def take_numbers(self, scene_id: str, line_id: str) -> set[int]:
        """Numbers of the take files under a line, valid or not (the folder listed, no file read)."""
        return self._numbers(self.line_dir(scene_id, line_id))

    @staticmethod
    def _numbers(folder: Path) -> set[int]:
        """Numbers of the take files in `folder`."""
        numbers: set[int] = set()
        if folder.is_dir():
            for entry in folder.iterdir():
                match = TAKE_PATTERN.match(entry.name)
                if match:
                    numbers.add(int(match.group(1)))
        return numbers

    def takes(self, scene_id: str, line_id: str, cache_key: str | None = None) -> list[Take]:
        """Valid takes of a line in number order; only those with `cache_key` when given."""
        found = self.scan(scene_id, line_id).valid
        return [t for t in found if cache_key is None or t.cache_key == cache_key]

    def take(self, scene_id: str, line_id: str, number: int) -> Take:
        """One valid take. Raises RenderError when it is missing or invalid."""
        take, problem = self._load(self.line_dir(scene_id, line_id), number)
        if problem:
            raise RenderError(f"take {number} of line {line_id!r}: {problem}")
        return take

    def _load(self, folder: Path, number: int) -> tuple[Take, str | None]:
        """A take and its problem (None when valid). Checked files are remembered by size and
        modification time, so a render does not hash the same WAV again and again."""
        take = Take(number, folder)
        signature = _signature(take)
        known = self._checked.get(take.json_path)
        if known is not None and known[0] == signature:
            take.record = known[1]
            return take, known[2]
        problem = self._verify(take)
        self._checked[take.json_path] = (signature, take.record, problem)
        return take, problem

    def _verify(self, take: Take) -> str | None:
        if not take.json_path.exists():
            return "no record (interrupted write)"
        try:
            record = json.loads(take.json_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "unreadable record"
        if not take.wav_path.exists():
            return "audio file missing"
        if not wav_is_complete(take.wav_path):
            return "audio file truncated or not a WAV"
        shape = record_problem(record)
        if shape:
            return shape
        take.record = TakeRecord.from_json(record)
        if take.record.wav_sha256 and file_sha256(take.wav_path) != take.record.wav_sha256:
            return "audio file does not match its record"
        if take.record.has_codes:
            if not take.codes_path.exists():
                return "codes file missing"
            expected = take.record.codes_sha256
            if expected and file_sha256(take.codes_path) != expected:
                return "codes file does not match its record"
        return None

    def take_files(self, scene_id: str, line_id: str, number: int) -> list[Path]:
        """The files of take `number` of a line that exist (record, audio, codes)."""
        take = Take(number, self.line_dir(scene_id, line_id))
        return [p for p in (take.json_path, take.wav_path, take.codes_path) if p.exists()]

    def remove_take(self, scene_id: str, line_id: str, number: int) -> None:
        """Delete take `number` of a line, its record first (so an interrupted removal leaves
        an invalid take, never a record without audio that looks whole). The caller holds the
        lock and has checked that nothing selects or derives from the take."""
        for path in self.take_files(scene_id, line_id, number):
            path.unlink(missing_ok=True)

    def add_take(
        self,
        scene_id: str,
        line_id: str,
        audio: np.ndarray,
        record: dict,
        codes: np.ndarray | None = None,
    ) -> Take:
        """Store a new take under the next free number and return it.

        audio: float32 mono `[samples]` at 44,100 Hz; codes: `[10, T]` int64 or None;
        record: the take's metadata (seed, params, checks, cache key, ...); the store adds
        number, sample counts, duration_s, wav_sha256, has_codes, non_finite_samples and
        created (UTC, ISO 8601). NaN and infinite samples are written as 0 (counted in
        `non_finite_samples`; the signal checks that ran on the audio flag the take).
        Files are written codes, then WAV, then record, each atomically; nothing is
        overwritten (a number taken by a concurrent or crashed writer is skipped). Raises
        RenderError past take MAX_TAKE_NUMBER (999), so name order stays number order.
        """
        audio = np.asarray(audio, dtype=np.float32)
        if audio.ndim != 1:
            raise ValueError(f"take audio must be mono [samples], got {audio.shape}")
        finite = np.isfinite(audio)
        non_finite = int(audio.size - np.count_nonzero(finite))
        if non_finite:  # never on disk: the checks that ran on the generation flag the take
            audio = np.where(finite, audio, np.float32(0.0))
        data = wav_bytes(audio)
        codes_data = None
        if codes is not None:
            buffer = io.BytesIO()
            np.save(buffer, np.asarray(codes, dtype=np.int64))
            codes_data = buffer.getvalue()
        number = self.scan(scene_id, line_id).next_number
        while True:
            if number > MAX_TAKE_NUMBER:
                raise RenderError(
                    f"line {line_id!r} has take {MAX_TAKE_NUMBER}, the last take number; "
                    f"move takes you no longer need out of {self.line_dir(scene_id, line_id)} "
                    f"and renumber them, or give the line a new id"
                )
            take = Take(number, self.line_dir(scene_id, line_id))
            try:
                if codes_data is not None:
                    write_new_file(take.codes_path, codes_data)
                write_new_file(take.wav_path, data)
                break
            except FileExistsError:
                number += 1
        written = {
            **record,
            "take": number,
            "scene_id": scene_id,
            "line_id": line_id,
            "sample_rate": SAMPLE_RATE,
            "samples": int(audio.shape[0]),
            "duration_s": round(audio.shape[0] / SAMPLE_RATE, 4),
            "wav_sha256": hashlib.sha256(data).hexdigest(),
            "has_codes": codes_data is not None,
            "codes_sha256": hashlib.sha256(codes_data).hexdigest() if codes_data else None,
            "non_finite_samples": non_finite,
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "store_version": STORE_VERSION,
        }
        payload = _pretty(written)
        write_new_file(take.json_path, payload)
        take.record = TakeRecord.from_json(json.loads(payload))  # as a later read sees it
        if self.take_added is not None:
            self.take_added(take)
        return take

    def remove_stale_temporaries(self) -> int:
        """Delete temporary files left by a writer that was killed mid-write: takes and mix
        files being written (`.<name>.<random>.tmp`) and mix renderings (`.mix-<random>.wav`).

        Runs whenever the project lock is taken (no other writer can be active then).
        Returns how many were removed.
        """
        removed = 0
        if self.root.is_dir():
            for pattern in TEMPORARY_PATTERNS:
                for path in self.root.rglob(pattern):
                    if path.is_file():
                        path.unlink(missing_ok=True)
                        removed += 1
        return removed

    # -- selections ------------------------------------------------------------------------
    def selection_path(self, scene_id: str) -> Path:
        return self.scene_dir(scene_id) / "selected.json"

    def selections(self, scene_id: str) -> dict[str, dict]:
        """`{line_id: {"take": n, "cache_key": ..., "by": "auto"|"user"}}` for a scene.

        Raises UsageError naming the file when `selected.json` is unreadable or malformed
        (never silently treated as empty: that would drop the user's choices).
        """
        path = self.selection_path(scene_id)
        if not path.exists():
            return {}
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict):
                raise ValueError(f"it holds {json_name(record)}, not an object with 'lines'")
            lines = record.get("lines", {})
            if not isinstance(lines, dict) or not all(
                isinstance(entry, dict) and isinstance(entry.get("take"), int)
                for entry in lines.values()
            ):
                raise ValueError("no take number per line")
        except (OSError, ValueError) as err:
            raise UsageError(
                f"{path} is corrupt ({err}); fix it, or delete it to select the passing takes again"
            ) from err
        return lines

    def select(
        self, scene_id: str, line_id: str, take: Take, by: str = "auto", reason: str | None = None
    ) -> None:
        """Record `take` as the chosen take of `line_id` (atomic rewrite of `selected.json`);
        `reason`, when given, says why it was chosen (an automatic choice)."""
        lines = self.selections(scene_id)
        lines[line_id] = {"take": take.number, "cache_key": take.cache_key, "by": by}
        if reason:
            lines[line_id]["reason"] = reason
        self.write_selections(scene_id, lines)

    def write_selections(self, scene_id: str, lines: dict[str, dict]) -> None:
        """Replace a scene's selections with `lines` (same form as `selections`)."""
        write_bytes_atomic(
            self.selection_path(scene_id), _pretty({"scene_id": scene_id, "lines": lines})
        )

    def selection_problem(self, scene_id: str, line_id: str) -> str | None:
        """Why the selected take of a line cannot be used (missing record, truncated WAV,
        hash mismatch, ...) with the take's file; None when fine or nothing is selected."""
        return self.selected_with_problem(scene_id, line_id)[1]

    def selected_with_problem(
        self, scene_id: str, line_id: str, chosen: dict | None = None
    ) -> tuple[Take | None, str | None]:
        """(the selected take of a line, why it cannot be used): (None, None) when nothing is
        selected, (take, None) when it is valid. chosen: the scene's `selections`, when read
        already."""
        entry = (self.selections(scene_id) if chosen is None else chosen).get(line_id)
        if not entry:
            return None, None
        take, problem = self._load(self.line_dir(scene_id, line_id), int(entry["take"]))
        return take, (f"take {take.number} ({take.wav_path}): {problem}" if problem else None)

    def selected_take(self, scene_id: str, line_id: str) -> Take | None:
        """The selected take of a line when it is still present and valid, else None."""
        take, problem = self.selected_with_problem(scene_id, line_id)
        return None if problem else take

    # -- project ---------------------------------------------------------------------------
    @property
    def project_path(self) -> Path:
        return self.root / "project.json"

    def project(self) -> dict:
        """The contents of `project.json` ({} when absent).

        Raises UsageError naming the file (with line:col for a JSON syntax error) when it
        cannot be read, is not JSON or is not a project record (`project_problem`): a command
        stops before it writes anything, so a damaged file is never replaced unseen.
        """
        path = self.project_path
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except json.JSONDecodeError as err:
            raise UsageError(
                f"{path}:{err.lineno}:{err.colno}: {err.msg}; {_DAMAGED_PROJECT}"
            ) from None
        except (OSError, ValueError) as err:
            raise UsageError(f"{path}: cannot be read ({err}); {_DAMAGED_PROJECT}") from None
        problem = project_problem(info)
        if problem:
            raise UsageError(f"{path}: {problem}; {_DAMAGED_PROJECT}")
        return info

    def write_project(self, info: dict) -> None:
        """Atomically replace `project.json` with `info` (script path and hash, engine, ...)."""
        write_bytes_atomic(self.project_path, _pretty(info))


def _pretty(value) -> bytes:
    return (
        json.dumps(value, indent=2, sort_keys=True, default=json_default, ensure_ascii=False) + "\n"
    ).encode("utf-8")
