"""Adding a voice to the library: the clip checked as `drama check` checks reference clips,
measured (duration, loudness, peak, content hash), transcribed when no transcript is given and
speech recognition is installed, copied into the folder, and its record written last, so a
voice appears whole or not at all. The record format is `drama_cli.script.voice_library`."""

from __future__ import annotations

import datetime as dt
import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path

from drama_cli.backends.reference_audio import load_audio
from drama_cli.mix.loudness import measure
from drama_cli.script.clips import MAX_REFERENCE_S, MIN_REFERENCE_S, inspect_clip
from drama_cli.script.document import Consent
from drama_cli.script.voice_library import (
    LIBRARY_SOURCES,
    LibraryError,
    LibraryVoice,
    check_voice_name,
    record_path,
    write_voice,
)
from engine.constants import SAMPLE_RATE
from engine.files import atomic_path, file_sha256

Transcriber = Callable[[Path], str]


def speech_recognition() -> Transcriber | None:
    """A function that transcribes a clip with the `asr` extra's bundled model, or None when
    faster-whisper is not installed."""
    if importlib.util.find_spec("faster_whisper") is None:
        return None

    def transcribe_clip(path: Path) -> str:
        from drama_cli.qc.asr import transcribe  # lazy: faster-whisper loads its model

        return transcribe(path)[0].strip()

    return transcribe_clip


def parse_tags(text: str | None) -> tuple[str, ...]:
    """Tags from `"female, 40s, warm"`: split at commas, spaces trimmed, empties and repeats
    (ignoring case) left out, order kept."""
    seen: dict[str, str] = {}
    for tag in (text or "").split(","):
        tag = " ".join(tag.split())
        if tag and tag.casefold() not in seen:
            seen[tag.casefold()] = tag
    return tuple(seen.values())


def source_record(
    source: str | None, consent_by: str | None, consent_on: str | None, note: str | None
) -> tuple[str | None, Consent | None]:
    """The (source, consent) a voice records. `consent` needs who (`consent_by`) and when
    (`consent_on`, YYYY-MM-DD); a consent given without `source` means `consent`. Raises
    LibraryError for an unknown source, a missing or bad consent field, or consent given with
    another source."""
    if source is None and (consent_by or consent_on):
        source = "consent"
    if source is not None and source not in LIBRARY_SOURCES:
        raise LibraryError(f"--source {source!r} is not one of {', '.join(LIBRARY_SOURCES)}")
    if source != "consent":
        if consent_by or consent_on:
            raise LibraryError(
                f"--consent-by and --consent-on go with --source consent, not {source}"
            )
        return source, None
    if not (consent_by or "").strip() or not (consent_on or "").strip():
        raise LibraryError(
            "--source consent needs --consent-by NAME and --consent-on YYYY-MM-DD "
            "(the licence guide's consent record)"
        )
    try:
        dt.date.fromisoformat(consent_on.strip())
    except ValueError:
        raise LibraryError(f"--consent-on {consent_on!r} is not a date: write YYYY-MM-DD") from None
    return source, Consent(consent_by.strip(), consent_on.strip(), note)


def add_voice(
    library: Path,
    clip: Path,
    name: str,
    transcript: str | None = None,
    tags: tuple[str, ...] = (),
    language: str | None = None,
    source: str | None = None,
    note: str | None = None,
    consent: Consent | None = None,
    description: str | None = None,
    transcriber: Transcriber | None = None,
    transcript_from: str | None = None,
) -> LibraryVoice:
    """Add `clip` to `library` as voice `name` and return its record.

    The clip must pass `inspect_clip` as a reference clip does (exists, readable audio, finite
    samples, at least one codec frame, at most 60 s, not silent). Without `transcript`,
    `transcriber` (see `speech_recognition`) gives one, else the voice has none. The clip is
    copied as `NAME<suffix>`; loudness is measured on its samples as the engine reads them
    (mono at 44,100 Hz). Raises LibraryError naming the clip for a bad clip, and naming the
    voice when the library already has one by that name.
    """
    check_voice_name(name)
    clip = Path(clip)
    if record_path(library, name).exists():
        raise LibraryError(
            f"the library {library} already has a voice {name!r}; remove it first "
            f"(drama voices remove {name}) or choose another name"
        )
    verdict = inspect_clip(clip, MAX_REFERENCE_S, silence=True, min_s=MIN_REFERENCE_S)
    if verdict.error or verdict.warning:
        raise LibraryError(f"{clip}: {verdict.error or verdict.warning}")
    samples = load_audio(clip, MAX_REFERENCE_S)
    loudness = measure(samples, SAMPLE_RATE)
    if transcript is not None and transcript.strip():
        transcript, transcript_from = " ".join(transcript.split()), transcript_from or "given"
    elif transcriber is not None:
        transcript = transcriber(clip) or None
        transcript_from = "speech recognition" if transcript else None
    else:
        transcript, transcript_from = None, None
    voice = LibraryVoice(
        name=name,
        clip=f"{name}{clip.suffix.lower() or '.wav'}",
        transcript=transcript,
        transcript_from=transcript_from,
        tags=tuple(tags),
        language=language,
        duration_s=round(samples.shape[0] / SAMPLE_RATE, 3),
        loudness_lufs=loudness.to_dict()["integrated_lufs"],
        peak_dbfs=loudness.to_dict()["peak_dbfs"],
        sha256=file_sha256(clip),
        source=source,
        note=note,
        consent=consent,
        description=description,
        extra={"added": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")},
    )
    with atomic_path(Path(library) / voice.clip) as staged:
        shutil.copyfile(clip, staged)
    write_voice(library, voice)
    return voice
