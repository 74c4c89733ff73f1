"""A rendered book → `<project>/book/`: one ACX file per chapter and credits, a retail sample,
an M4B with chapter marks and `acx-report.json`.

Each chapter is mixed from the selected takes of its scenes on one timeline (the scene mixer,
`drama_cli.mix.timeline.mix_scene`, streaming, so memory stays bounded for any length), with
2 s between scenes, each scene's effects and beds where a mix of that scene alone places them
(`SceneSounds`: placed, looped, faded and ducked by the scene mixer, before the level is set),
a generated room tone under it, ACX's level (RMS −20 dB over the speech, true peaks under
−3 dB: preset `acx-mp3`) and 0.75 s of room tone before the first words and 2.5 s after the
last (the takes' own quiet ends counted). The master WAV is encoded as MP3 192 kbps CBR
(`drama_cli.mix.export.encode_mp3`), tagged with mutagen, decoded again and measured against
ACX's rules (`drama_cli.book.acx`). Every file is first written to a work folder inside the
book folder; once all are written they are renamed into place together, the report last
(`engine.files.publish`, as a scene's mix files), so a killed run leaves the book of
the run before whole.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soundfile as sf
from mutagen.id3 import (
    COMM,
    ID3,
    TALB,
    TCOM,
    TCON,
    TCOP,
    TDRC,
    TIT2,
    TLAN,
    TPE1,
    TPUB,
    TRCK,
    TXXX,
    ID3NoHeaderError,
)

from drama_cli.book.acx import (
    MAX_FILE_S,
    PEAK_MAX_DBFS,
    SAMPLE_RANGE_S,
    FileCheck,
    judge,
    measure_file,
    quiet_ends_s,
)
from drama_cli.book.m4b import m4b_name, safe_title, write_m4b
from drama_cli.book.notice import MISSING_NOTICE, NOTICE_NAME, notice_file_text
from drama_cli.book.sample import check_sample_start, cut_sample, spelled_sample_from
from drama_cli.errors import LinesLeftOut, UsageError
from drama_cli.mix.export import (
    MP3_BITRATE_KBPS,
    READ_BLOCK_SAMPLES,
    encode_mp3,
    require_encoder,
)
from drama_cli.mix.options import layer_mix, scene_sounds
from drama_cli.mix.presets import get_preset
from drama_cli.mix.project_mix import (
    credit_text,
    engines_used,
    mix_entry,
    saved_mix,
)
from drama_cli.mix.provenance import PROVENANCE_NAME, mix_provenance
from drama_cli.mix.sounds import SceneSounds
from drama_cli.mix.timeline import (
    SAMPLE_RATE,
    SCRATCH_BANNER,
    mix_scene,
    plan_timeline,
    read_take,
)
from drama_cli.script.document import BOOK_FOLDER
from drama_cli.script.mix_settings import MIX_DEFAULTS, MixSettings, check_number
from drama_cli.takes.scene_selection import (
    CURRENT,
    NONE,
    STALE,
    UNUSABLE,
    scene_selection,
    select_first_passing,
)
from drama_cli.takes.store import TakeStore
from engine.files import atomic_path, publish

BOOK_PRESET = "acx-mp3"
HEAD_S = 0.75  # room tone before the first words of a file (ACX: 0.5–1 s)
TAIL_S = 2.5  # after the last words (ACX: 1–5 s)
SCENE_BREAK_S = 2.0  # silence between two scenes of a chapter
ROOM_TONE_DB = -65.0  # the generated room tone, dB RMS (ACX's noise floor: at most −60 dB)
SAMPLE_S = 180.0  # default retail sample length (ACX: 1–5 minutes)
PEAK_MARGIN_DB = 0.3  # aimed under −3 dBFS when a file is encoded again
PEAK_RETRIES = 2  # encodings after the first, when only the decoded peaks fail
REPORT_NAME = "acx-report.json"
# A file of a few words is mostly the room tone ACX asks for at its ends: its level is aimed
# so that the speech (first words to last) lands in ACX's range, the whole file as close to
# −20 dB as that allows (`level_target_db`).
WHOLE_FILE_LOWEST_DB = -22.5  # the whole-file RMS aimed at when the speech allows it
SPEECH_HIGHEST_DB = -18.5  # the speech RMS is never aimed above this


@dataclass
class BookFile:
    """One file of the book: its chapter, path, ACX check and what it holds.

    number / title / kind: the `Chapter` (kind "sample" for the retail sample).
    check: the measured and judged file; scratch: made from scratch takes (labelled).
    start_s: where the chapter starts in the M4B (None for the sample).
    """

    number: int
    title: str
    kind: str
    path: Path
    check: FileCheck
    scratch: bool = False
    start_s: float | None = None

    def to_dict(self) -> dict:
        """JSON-ready row of the report."""
        return {
            "number": self.number,
            "title": self.title,
            "kind": self.kind,
            "file": self.path.name,
            "scratch": self.scratch,
            **{k: v for k, v in self.check.to_dict().items() if k != "file"},
        }


@dataclass
class BookReport:
    """What `assemble_book` wrote: the files with their checks, the M4B, notes."""

    folder: Path
    files: list[BookFile] = field(default_factory=list)
    m4b: dict[str, object] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    kept: list[dict] = field(default_factory=list)  # earlier rows of files this run left alone

    @property
    def failures(self) -> list[str]:
        """`<file>: <rule>: <why>` for every failed rule of every file."""
        return [f"{f.path.name}: {problem}" for f in self.files for problem in f.check.problems]

    @property
    def exit_code(self) -> int:
        """1 when any file fails a rule, else 0."""
        return 1 if self.failures else 0

    def to_dict(self) -> dict:
        """The `acx-report.json` content: the files of this run and, after a run of some
        chapters, the rows of the earlier run for the files it left alone (`kept`), in
        chapter order; `passed` and `failures` cover them all."""
        rows = sorted(
            [f.to_dict() for f in self.files] + self.kept,
            key=lambda row: (row.get("number", 0), row.get("kind") == "sample"),
        )
        failures = [
            f"{row['file']}: {problem}" for row in rows for problem in row.get("problems", ())
        ]
        return {
            "folder": str(self.folder),
            "passed": not failures,
            "files": rows,
            "m4b": self.m4b,
            "failures": failures,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class BookOptions:
    """How a book is assembled.

    chapters: chapter numbers to assemble (empty: all). sample_from: (chapter number, start
    in seconds) of the retail sample, None: the first chapter after the credits, from its
    start; sample_s: its length in seconds; sample: write it at all. m4b: also write the
    M4B. max_file_s: the longest file ACX takes, seconds. licence_notice: the notice text of
    the model's licence, read from the model folder (`drama_cli.backends.model_licence`), for NOTICE.txt.
    """

    chapters: tuple[int, ...] = ()
    sample_from: tuple[int, float] | None = None
    sample_s: float = SAMPLE_S
    sample: bool = True
    m4b: bool = True
    max_file_s: float = MAX_FILE_S
    licence_notice: str | None = None


def file_name(chapter, width: int = 2) -> str:
    """`NN Title.mp3`, the title made safe for every file system."""
    return (
        f"{chapter.number:0{width}d} {safe_title(chapter.title, f'Chapter {chapter.number}')}.mp3"
    )


def parse_sample_from(value: str | None) -> tuple[int, float] | None:
    """`CHAPTER[:SECONDS]` → (chapter number, start s); None for None. UsageError otherwise."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+)\s*(?::\s*(\d+(?:\.\d+)?)\s*)?", value)
    if not match:
        raise UsageError(f"--sample-from must be CHAPTER[:SECONDS], e.g. 1 or 2:30, got {value!r}")
    return int(match.group(1)), float(match.group(2) or 0.0)


def pick_chapters(script, numbers) -> list:
    """The script's chapters with these numbers, each once, in the order first given (all when
    empty); UsageError for unknown ones."""
    known = {chapter.number: chapter for chapter in script.chapters}
    unknown = [n for n in numbers if n not in known]
    if unknown:
        listing = ", ".join(f"{c.number} ({c.title})" for c in script.chapters)
        raise UsageError(f"no chapter {unknown[0]} in this script (chapters: {listing})")
    return [known[n] for n in dict.fromkeys(numbers)] if numbers else list(script.chapters)


def check_sample_options(script, sample_from: tuple[int, float] | None, length_s: float) -> None:
    """UsageError, before any rendering, for a `--sample-length` outside ACX's range
    (`SAMPLE_RANGE_S`, seconds) or a `--sample-from` (chapter number, start s) naming a chapter
    the script does not have. A start past the chapter's end is known only once the chapter is
    mixed (`check_sample_start`)."""
    check_number("--sample-length", length_s, *SAMPLE_RANGE_S)
    if sample_from is None:
        return
    try:
        pick_chapters(script, [sample_from[0]])
    except UsageError as err:
        raise UsageError(f"--sample-from {spelled_sample_from(sample_from)}: {err}") from None


def chapter_scenes(script, chapters) -> tuple[str, ...]:
    """Ids of the scenes the chapters hold, in script order."""
    wanted = {scene_id for chapter in chapters for scene_id in chapter.scenes}
    return tuple(scene.id for scene in script.scenes if scene.id in wanted)


def mix_chapter(script, store: TakeStore, chapter, work_dir: Path) -> tuple[Path, dict]:
    """Mix one chapter from its scenes' selected takes and sounds (`scene_sounds_in_chapter`)
    into a master WAV under `work_dir`.

    Returns (master path, the mix summary with `scratch`, `credit` and `model_revisions`
    when Drama 3 voiced any line (`engines_used`), the sounds placed and left out (`sounds`,
    `sounds_left_out`, when the scenes have any), and `provenance`: one entry per line,
    `drama_cli.mix.provenance`). Raises LinesLeftOut when a line has no usable selected take,
    only one made for older text or one whose checks failed (a book never leaves words out),
    UsageError when the chapter has nothing to say.
    """
    entries, missing, stale, unusable, chosen, sounds = [], [], [], [], [], []
    saved = saved_mix(store)
    for scene_id in chapter.scenes:
        scene = script.scene(scene_id)
        select_first_passing(store, script, scene)
        selection = scene_selection(script, store, scene)
        missing += [choice.line.id for choice in selection.with_status(NONE, UNUSABLE)]
        stale += [choice.line.id for choice in selection.with_status(STALE)]
        unusable += [choice.line.id for choice in selection.lines if choice.failed_checks]
        current = selection.with_status(CURRENT)
        scene_entries = [mix_entry(choice) for choice in current]
        if scene_entries:
            chosen += current
            if entries:  # a longer pause between scenes
                entries[-1] = dataclasses.replace(
                    entries[-1], pause_after_s=max(SCENE_BREAK_S, entries[-1].pause_after_s or 0.0)
                )
            entries += scene_entries
            sounds.append(scene_sounds_in_chapter(script, scene, scene_entries, saved))
    if missing or stale or unusable:
        raise LinesLeftOut(missing, stale, unusable)
    if not entries:
        raise UsageError(f"chapter {chapter.number} ({chapter.title}) has no lines to read")
    facts = engines_used(chosen)
    options = layer_mix(
        MixSettings(), script=script, scene=script.scene(chapter.scenes[0])
    ).options()
    settings = chapter_settings(
        entries, options, chapter.number, {"chapter": chapter.number, **facts}
    )
    settings = dataclasses.replace(settings, scene_sounds=tuple(s for s in sounds if s.sounds))
    result = mix_scene(entries, settings, work_dir=work_dir)
    return result.audio_path, {
        **result.summary(),
        **facts,
        "provenance": mix_provenance(script, result.cues, chosen),
    }


def scene_sounds_in_chapter(
    script, scene, entries, saved: MixSettings = MixSettings()
) -> SceneSounds:
    """A scene's effects and beds (`scene_sounds`) as a chapter mixes them: on the scene's own
    clock, with the head and tail padding `drama mix` gives the scene (the project's `saved`
    settings over the scene's and the script's mix keys, `layer_mix`), so each sound keeps its
    place against the lines."""
    options = layer_mix(MixSettings(), saved, script=script, scene=scene).options()
    return SceneSounds(
        scene_sounds(script, scene),
        tuple(entry.line_id for entry in entries),
        options.get("head_s", MIX_DEFAULTS.head_s),
        options.get("tail_s", MIX_DEFAULTS.tail_s),
    )


def chapter_settings(
    entries, options: dict, seed: int = 0, metadata: dict | None = None
) -> MixSettings:
    """The `MixSettings` of a chapter: the script's gap, ducking and room-tone recording
    (`options`, MixSettings field names), a generated room tone otherwise, at most ROOM_TONE_DB, the
    preset BOOK_PRESET, and head and tail padding that bring the room tone before the first
    words to HEAD_S and after the last to TAIL_S, counting the quiet the first and last takes
    hold (`quiet_ends_s`)."""
    lead, _ = quiet_ends_s(read_take(entries[0].take_path))
    _, trail = quiet_ends_s(read_take(entries[-1].take_path))
    ducking = {
        key: options[key]
        for key in ("duck_db", "duck_attack_s", "duck_release_s")
        if key in options
    }
    settings = MixSettings(
        **ducking,
        gap_s=options.get("gap_s", MIX_DEFAULTS.gap_s),
        head_s=max(0.0, HEAD_S - lead),
        tail_s=max(0.0, TAIL_S - trail),
        room_tone=options.get("room_tone") or "noise",
        room_tone_db=min(options.get("room_tone_db", ROOM_TONE_DB), ROOM_TONE_DB),
        preset=BOOK_PRESET,
        formats=("wav",),
        seed=seed,
        metadata=dict(metadata or {}),
    )
    return dataclasses.replace(settings, target_db=level_target_db(entries, settings, lead, trail))


def level_target_db(entries, settings: MixSettings, lead_s: float, trail_s: float) -> float:
    """The whole-file RMS to mix a book file to. ACX's `rms` rule is judged on the speech,
    from the first words to the last (`FileCheck.speech_rms_db`); the room tone at the ends
    lowers the whole-file RMS by d = 10·log10(file length / speech length), a few dB for a
    file of a few words, hundredths for a chapter. Aim at −20 − d (speech at −20 dB), but not
    below WHOLE_FILE_LOWEST_DB while the speech then stays at or under SPEECH_HIGHEST_DB."""
    target = get_preset(BOOK_PRESET).target_db
    _, total = plan_timeline(entries, settings)
    ends = (max(HEAD_S, lead_s) + max(TAIL_S, trail_s)) * SAMPLE_RATE
    if total - ends <= 0:
        return target
    dilution = 10.0 * math.log10(total / (total - ends))
    return min(max(target - dilution, WHOLE_FILE_LOWEST_DB), SPEECH_HIGHEST_DB - dilution)


def encode_book_mp3(master: Path, target: Path, tags: dict) -> Path:
    """Encode a master WAV as the book's MP3 (192 kbps CBR, 44.1 kHz mono) with ID3 tags,
    atomically. tags: title, album, artist, track (`n/total`), and optional comment, year,
    composer (the narrator)."""
    with atomic_path(target) as tmp:
        encode_mp3(master, tmp, MP3_BITRATE_KBPS)
        write_id3(tmp, tags)
    return target


def encode_checked(
    master: Path,
    target: Path,
    tags: dict,
    ffmpeg: str,
    max_file_s: float,
    work_dir: Path,
    sample: bool = False,
) -> FileCheck:
    """Encode and judge a chapter; while only its decoded peaks are over ACX's −3 dBFS (MP3
    encoding lifts some peaks above the master's true peaks), lower the master by the excess
    plus PEAK_MARGIN_DB and encode again, at most PEAK_RETRIES times. Returns the check of the
    file left at `target`."""
    encode_book_mp3(master, target, tags)
    check = judge(measure_file(target, ffmpeg), max_file_s, sample)
    gain_db = 0.0
    for _ in range(PEAK_RETRIES):
        excess = check.peak_dbfs - PEAK_MAX_DBFS
        only_peak = list(check.rules.values()).count(False) == 1 and not check.rules["peak"]
        if not only_peak or excess >= 6.0:
            break
        gain_db -= excess + PEAK_MARGIN_DB
        quieter = scaled_copy(master, gain_db, work_dir / "quieter.wav")
        encode_book_mp3(quieter, target, tags)
        quieter.unlink()
        check = judge(measure_file(target, ffmpeg), max_file_s, sample)
    return check


def scaled_copy(source: Path, gain_db: float, target: Path) -> Path:
    """`source` WAV times `gain_db`, written block by block to `target` (same format)."""
    info = sf.info(str(source))
    gain = np.float32(10.0 ** (gain_db / 20.0))
    with sf.SoundFile(str(target), "w", info.samplerate, info.channels, info.subtype) as out:
        for block in sf.blocks(str(source), blocksize=READ_BLOCK_SAMPLES, dtype="float32"):
            out.write(block * gain)
    return target


def write_id3(path: Path, tags: dict) -> None:
    """Write ID3v2 tags with mutagen: TIT2 title, TALB album, TPE1 artist, TRCK track, TCON
    Audiobook, and when given COMM comment, TDRC year, TCOM composer (the narrator), TPUB
    publisher, TLAN language, TCOP copyright, and one TXXX frame per item of `extra`
    (`credit_tags`)."""
    try:
        id3 = ID3(str(path))
    except ID3NoHeaderError:
        id3 = ID3()
    id3.add(TIT2(encoding=3, text=tags["title"]))
    id3.add(TALB(encoding=3, text=tags.get("album") or ""))
    id3.add(TPE1(encoding=3, text=tags.get("artist") or ""))
    id3.add(TRCK(encoding=3, text=tags["track"]))
    id3.add(TCON(encoding=3, text="Audiobook"))
    if tags.get("comment"):
        id3.add(COMM(encoding=3, lang="eng", desc="", text=tags["comment"]))
    for name, value in (tags.get("extra") or {}).items():
        id3.add(TXXX(encoding=3, desc=name, text=value))
    if tags.get("year"):
        id3.add(TDRC(encoding=3, text=tags["year"]))
    for frame, key in (
        (TCOM, "composer"),
        (TPUB, "publisher"),
        (TLAN, "language"),
        (TCOP, "copyright"),
    ):
        if tags.get(key):
            id3.add(frame(encoding=3, text=tags[key]))
    id3.save(str(path), v2_version=3)


BOOK_FACT_KEYS = ("engines", "credited_engines", "model_revisions", "credit")


def book_facts(summaries: list[dict]) -> dict:
    """The `engines_used` facts of a whole book from its chapters' mix summaries: engines and
    model revisions merged, `credit` when any chapter has it."""
    facts = {
        "engines": sorted({e for s in summaries for e in s.get("engines", ())}),
        "credited_engines": sorted({e for s in summaries for e in s.get("credited_engines", ())}),
        "model_revisions": sorted({r for s in summaries for r in s.get("model_revisions", ())}),
    }
    credits = [s["credit"] for s in summaries if s.get("credit")]
    return {**facts, "credit": credits[0]} if credits else facts


def credit_tags(facts: dict) -> dict:
    """The user-defined tags of a delivered file made from takes with `facts`
    (`drama_cli.mix.project_mix.engines_used`): CREDIT, ENGINE and MODEL_REVISION when Drama 3
    voiced any of it, else {}."""
    if not facts.get("credit"):
        return {}
    return {
        "CREDIT": facts["credit"],
        "ENGINE": ", ".join(facts.get("credited_engines") or ()),
        "MODEL_REVISION": ", ".join(facts.get("model_revisions") or ()),
    }


def assemble_book(
    script,
    store: TakeStore,
    options: BookOptions = BookOptions(),
    notice: Callable[[str], None] = lambda message: None,
) -> BookReport:
    """Assemble the book of a rendered `script` into `<project>/book/` (see the module doc).

    Writes each chapter's MP3, the retail sample, `<Title>.m4b` (when `options.m4b` and every
    chapter is assembled) and `acx-report.json`; says on `notice` what it is doing and which
    earlier files it replaces. Call it holding the project lock: it removes the work folders
    (`.work-*`) a killed run left. Raises UsageError (bad chapter or sample), LinesLeftOut (a line
    without a usable take), RenderError (no encoder, an encoder failure).
    """
    ffmpeg = require_encoder("mp3")
    chapters = pick_chapters(script, options.chapters)
    book = script.book
    title = (
        (book.title if book and book.title else None) or script.title or Path(script.source).stem
    )
    author = book.author if book else None
    width = max(2, len(str(max(c.number for c in script.chapters))))
    folder = store.root / BOOK_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    report = BookReport(folder)
    sample_chapter, sample_start = options.sample_from or (_first_story_chapter(script), 0.0)
    check_sample_options(script, options.sample_from, options.sample_s)
    existing = {path.name for path in folder.glob("*.mp3")} | {
        path.name for path in folder.glob("*.m4b")
    }
    written: list[str] = []
    staged: list[tuple[Path, Path]] = []  # (written in the work folder, its place in the book)
    masters: list[tuple[object, Path]] = []
    for stale in folder.glob(".work-*"):  # left by a killed run (the caller holds the lock)
        shutil.rmtree(stale, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=".work-", dir=folder))
    try:
        any_scratch, summaries = False, []
        for index, chapter in enumerate(chapters, start=1):
            name = file_name(chapter, width)
            notice(f"book: [{index}/{len(chapters)}] mixing {name}")
            master, summary = mix_chapter(script, store, chapter, work)
            if options.sample and chapter.number == sample_chapter:
                check_sample_start(master, chapter, sample_start)  # before encoding anything more
            any_scratch |= summary["scratch"]
            report.notes += [
                f"{name}: sound {sound} left out: {why}"
                for sound, why in zip(
                    summary.get("sounds_left_out", ()), summary.get("sounds_left_out_reasons", ())
                )
            ]
            summaries.append(summary)
            tags = {
                "title": _labelled(chapter.title, summary["scratch"]),
                "album": title,
                "artist": author or "",
                "track": f"{script.chapters.index(chapter) + 1}/{len(script.chapters)}",
                "comment": "; ".join(
                    filter(
                        None, [SCRATCH_BANNER if summary["scratch"] else None, credit_text(summary)]
                    )
                )
                or None,
                "extra": credit_tags(summary),
                **(
                    {
                        "year": book.year,
                        "composer": book.narrator,
                        "publisher": book.publisher,
                        "language": book.language,
                        "copyright": book.copyright,
                    }
                    if book
                    else {}
                ),
            }
            target = folder / name
            check = encode_checked(master, work / name, tags, ffmpeg, options.max_file_s, work)
            staged.append((work / name, target))
            written.append(name)
            report.files.append(
                BookFile(
                    chapter.number, chapter.title, chapter.kind, target, check, summary["scratch"]
                )
            )
            notice(
                f"book: [{index}/{len(chapters)}] {name}: {check.duration_s:.1f} s, "
                + ("passes ACX" if check.passed else "; ".join(check.problems))
            )
            if options.sample and chapter.number == sample_chapter:
                sample = folder / "Retail Sample.mp3"
                sample_tags = {
                    **tags,
                    "title": _labelled(f"{title} (retail sample)", summary["scratch"]),
                    "track": "0",
                }
                cut = cut_sample(master, sample_start, options.sample_s, work)
                check = encode_checked(
                    cut, work / sample.name, sample_tags, ffmpeg, options.max_file_s, work, True
                )
                staged.append((work / sample.name, sample))
                written.append(sample.name)
                report.files.append(
                    BookFile(
                        chapter.number, "Retail Sample", "sample", sample, check, summary["scratch"]
                    )
                )
            masters.append((chapter, master))
        if options.m4b and len(chapters) == len(script.chapters):
            target = folder / m4b_name(title)
            notice(f"book: writing {target.name}")
            report.m4b = write_m4b(
                masters,
                work / target.name,
                script,
                title,
                any_scratch,
                ffmpeg,
                credit_text(book_facts(summaries)),
            )
            staged.append((work / target.name, target))
            written.append(target.name)
            starts = {row["number"]: row["start_s"] for row in report.m4b["chapters"]}
            for book_file in report.files:
                if book_file.kind != "sample":
                    book_file.start_s = starts.get(book_file.number)
        elif (folder / m4b_name(title)).exists():
            report.m4b = stale_m4b(folder, m4b_name(title), chapters)
            report.notes.append(
                f"{m4b_name(title)} was not written again and still holds the earlier audio of "
                f"chapter(s) {', '.join(map(str, report.m4b['stale_chapters']))}: run drama book "
                f"without --chapter to rebuild it"
            )
        chapters_provenance = [
            {"chapter": f.number, "file": f.path.name, "lines": s["provenance"]}
            for f, s in zip([f for f in report.files if f.kind != "sample"], summaries)
        ]
        earlier: dict = {}
        if len(chapters) < len(script.chapters):  # the other chapters keep their entries
            earlier = keep_earlier_chapters(script, folder, chapters, report, chapters_provenance)
        facts = book_facts(summaries + ([earlier] if earlier else []))
        (work / PROVENANCE_NAME).write_text(
            _json({"title": title, **facts, "chapters": chapters_provenance}), encoding="utf-8"
        )
        staged.append((work / PROVENANCE_NAME, folder / PROVENANCE_NAME))
        if facts.get("credit"):
            (work / NOTICE_NAME).write_text(
                notice_file_text(script, facts, options.licence_notice), encoding="utf-8"
            )
            staged.append((work / NOTICE_NAME, folder / NOTICE_NAME))
            if options.licence_notice is None:
                report.notes.append(f"{NOTICE_NAME}: {MISSING_NOTICE}")
        replaced = sorted(set(written) & existing)
        if replaced:
            report.notes.append(f"replaced {len(replaced)} earlier file(s): {', '.join(replaced)}")
        others = sorted(existing - set(written))
        if others and len(chapters) == len(script.chapters):
            report.notes.append(f"not part of this book, left as they are: {', '.join(others)}")
        (work / REPORT_NAME).write_text(_json(report.to_dict()), encoding="utf-8")
        staged.append((work / REPORT_NAME, folder / REPORT_NAME))
        publish(staged)  # every file written: the book switches at once, the report last
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _earlier(folder: Path, name: str) -> dict:
    """The JSON object of an earlier run's `name` in the book folder; {} when absent or unreadable."""
    try:
        data = json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def keep_earlier_chapters(
    script, folder: Path, chapters, report: BookReport, provenance: list[dict]
) -> dict:
    """After a run of some chapters, keep what the earlier run wrote for the others.

    The chapters of the script not assembled now whose file is still in `folder` keep their
    `provenance.json` entries (added to `provenance`, in chapter order) and their rows of
    `acx-report.json` (`report.kept`; the retail sample's too when this run made none).
    Returns the earlier provenance's engine facts (`book_facts` form) when it kept any, else {}.
    """
    done = {chapter.number for chapter in chapters}
    numbers = {chapter.number for chapter in script.chapters} - done
    wrote_sample = any(f.kind == "sample" for f in report.files)
    for row in _earlier(folder, REPORT_NAME).get("files", ()):
        if not isinstance(row, dict) or not (folder / str(row.get("file"))).is_file():
            continue
        if (row.get("kind") == "sample" and not wrote_sample) or (
            row.get("kind") != "sample" and row.get("number") in numbers
        ):
            report.kept.append(row)
    earlier = _earlier(folder, PROVENANCE_NAME)
    kept = [
        part
        for part in earlier.get("chapters", ())
        if isinstance(part, dict)
        and part.get("chapter") in numbers
        and (folder / str(part.get("file"))).is_file()
    ]
    provenance += kept
    provenance.sort(key=lambda part: part["chapter"])
    if not kept:
        return {}
    return {key: earlier[key] for key in BOOK_FACT_KEYS if key in earlier}


def stale_m4b(folder: Path, name: str, chapters) -> dict:
    """The `m4b` entry of the report when this run left an earlier `<Title>.m4b` as it was: the
    earlier run's entry with `stale: true` and `stale_chapters`, the chapters whose audio it
    no longer matches (these, and those an earlier run of some chapters named)."""
    entry = _earlier(folder, REPORT_NAME).get("m4b")
    entry = dict(entry) if isinstance(entry, dict) and entry else {"file": name}
    before = entry.get("stale_chapters")
    stale = {c.number for c in chapters} | set(before if isinstance(before, list) else ())
    return {**entry, "stale": True, "stale_chapters": sorted(stale)}


def _first_story_chapter(script) -> int:
    for chapter in script.chapters:
        if chapter.kind == "chapter":
            return chapter.number
    return script.chapters[0].number


def _labelled(title: str, scratch: bool) -> str:
    return f"{title} [SCRATCH]" if scratch else title


def _json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
