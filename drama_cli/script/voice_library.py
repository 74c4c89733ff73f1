"""The voice library: a folder of reference voices a cast may name as `voice: library:NAME`.

Each voice is two files in the folder: its clip (`NAME.wav`, or the suffix it was added with)
and its record (`NAME.json`: transcript, tags, language, duration, loudness, content hash,
where the voice comes from), each written atomically. This module reads and writes records
and finds the folder; adding a voice (checking and measuring its clip) is `drama_cli.cast.library`.

The folder is, first found: the one a command names (`--library DIR`), the script's or cast
file's `voice_library: DIR` (relative to that file), `$DRAMA_VOICE_LIBRARY`, else `voices/` in
the user's data folder (platformdirs).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from drama_cli.errors import UsageError
from drama_cli.script.document import Consent, VoiceSource
from engine.files import write_text_atomic

LIBRARY_ENV = "DRAMA_VOICE_LIBRARY"
LIBRARY_PREFIX = "library:"
RECORD_VERSION = 1
# Where a library voice comes from: `consent` (an identifiable person who consented: the record
# holds who and when), `designed` (a take Drama 3 invented from a description), or one of the
# cast's `voice_source` kinds.
LIBRARY_SOURCES = ("own", "consent", "licensed", "synthetic", "designed", "public-domain-recording")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class LibraryError(UsageError):
    """A library voice that cannot be read, added or found; the message names the file."""


@dataclass(frozen=True)
class LibraryVoice:
    """One voice of the library (its `NAME.json`).

    name: the voice's name (letters, digits, `-`, `_`). clip: the clip's file name in the folder.
    transcript: the clip's words, or None; transcript_from: "given", "speech recognition" or
    "take" (the words a designed take was asked to say). tags: free words ("female", "40s").
    language: a language label or None. duration_s: the clip's length in seconds.
    loudness_lufs: its integrated loudness (None when below the gate); peak_dbfs: its peak.
    sha256: the clip's content hash. source: one of LIBRARY_SOURCES, or None when not recorded;
    note: free text about the source. consent: who consented and when (source `consent`).
    description: the written description a designed voice was made from.
    """

    name: str
    clip: str
    transcript: str | None = None
    transcript_from: str | None = None
    tags: tuple[str, ...] = ()
    language: str | None = None
    duration_s: float = 0.0
    loudness_lufs: float | None = None
    peak_dbfs: float | None = None
    sha256: str = ""
    source: str | None = None
    note: str | None = None
    consent: Consent | None = None
    description: str | None = None
    extra: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The record as plain JSON data (`version` first)."""
        data = {"version": RECORD_VERSION, **dataclasses.asdict(self)}
        data["tags"] = list(self.tags)
        data.pop("extra")
        return {**data, **self.extra}

    def cast_records(self) -> tuple[Consent | None, VoiceSource | None]:
        """What a cast member with this voice records for the licence: the consent of a
        `consent` voice; a `designed` voice is `synthetic` (its note says it was designed);
        any other source is its own kind; (None, None) when the library records nothing."""
        if self.source == "consent":
            return self.consent, None
        if self.source == "designed":
            note = "designed from a description" + (
                f": {self.description}" if self.description else ""
            )
            return None, VoiceSource("synthetic", note)
        if self.source is not None:
            return None, VoiceSource(self.source, self.note)
        return None, None


def default_library_dir() -> Path:
    """`$DRAMA_VOICE_LIBRARY` when set, else `voices/` in the user's data folder."""
    if os.environ.get(LIBRARY_ENV, "").strip():
        return Path(os.environ[LIBRARY_ENV])
    import platformdirs  # lazy: only a library voice needs the user's data folder

    return Path(platformdirs.user_data_dir("drama")) / "voices"


def library_dir(given: str | Path | None) -> Path:
    """The library folder: `given` (a command's `--library`, a script's `voice_library:`)
    or the default (`default_library_dir`)."""
    return Path(given) if given is not None and str(given).strip() else default_library_dir()


def check_voice_name(name: str) -> str:
    """`name` when it can name a library voice (1 to 64 letters, digits, `-` or `_`, starting
    with a letter or digit); raises LibraryError otherwise."""
    if not NAME_PATTERN.fullmatch(name or ""):
        raise LibraryError(
            f"voice name {name!r} is not usable: give 1 to 64 letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def record_path(library: Path, name: str) -> Path:
    """The record file of voice `name` in `library`."""
    return Path(library) / f"{check_voice_name(name)}.json"


def read_voice(library: Path, name: str) -> LibraryVoice:
    """The voice `name` of `library`. Raises LibraryError when the library has no such voice
    (naming the closest names) or its record is not a valid record (naming the file)."""
    path = record_path(library, name)
    if not path.is_file():
        names = voice_names(library)
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        listed = f"{len(names)} voices" if names else "no voices"
        raise LibraryError(f"no voice {name!r} in the library {library} ({listed}){hint}")
    return voice_from_record(path)


def voice_from_record(path: Path) -> LibraryVoice:
    """Read one record file. Raises LibraryError naming `path` when it is not JSON, lacks a
    field or names a clip that is not beside it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise LibraryError(f"{path}: not a voice record ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise LibraryError(f"{path}: not a voice record (no 'name')")
    if not isinstance(data.get("clip"), str) or not (path.parent / data["clip"]).is_file():
        raise LibraryError(f"{path}: its clip {data.get('clip')!r} is missing from the library")
    known = {f.name for f in dataclasses.fields(LibraryVoice)} - {"extra"}
    fields = {k: v for k, v in data.items() if k in known}
    fields["tags"] = tuple(str(t) for t in fields.get("tags") or ())
    consent = fields.get("consent")
    fields["consent"] = (
        Consent(str(consent.get("by")), str(consent.get("on")), consent.get("note"))
        if isinstance(consent, dict)
        else None
    )
    extra = {k: v for k, v in data.items() if k not in known and k != "version"}
    return LibraryVoice(**fields, extra=extra)


def voice_names(library: Path) -> list[str]:
    """The names of the voices of `library`, sorted; [] when the folder does not exist."""
    folder = Path(library)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.json") if NAME_PATTERN.fullmatch(p.stem))


def list_voices(library: Path) -> list[LibraryVoice]:
    """Every voice of `library`, by name. Raises LibraryError at the first bad record."""
    return [voice_from_record(record_path(library, name)) for name in voice_names(library)]


def clip_file(library: Path, voice: LibraryVoice) -> Path:
    """The path of `voice`'s clip in `library`."""
    return Path(library) / voice.clip


def write_voice(library: Path, voice: LibraryVoice) -> Path:
    """Write `voice`'s record into `library` atomically; returns the record's path."""
    path = record_path(library, voice.name)
    write_text_atomic(path, json.dumps(voice.to_json(), indent=2, ensure_ascii=False) + "\n")
    return path


def remove_voice(library: Path, name: str) -> LibraryVoice:
    """Remove voice `name` (its record, then its clip) from `library`; returns what it was.
    Raises LibraryError when there is no such voice."""
    voice = read_voice(library, name)
    record_path(library, name).unlink()
    clip_file(library, voice).unlink(missing_ok=True)
    return voice
