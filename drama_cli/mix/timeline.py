"""Selected takes → one scene file: timeline, room tone, loudness preset, limiter, exports.

`mix_scene` lays the takes out on a timeline (gaps, dual dialogue, head and tail padding),
then streams it twice in fixed blocks: once to measure the scene's loudness (per scene, not
per line), once to apply the preset gain and a single final limiter while writing the result
to disk. Nothing longer than one block plus the takes under it is held in memory, so a
10-hour book mixes in well under 1 GB (`bench/mix_long.py`). Sums are float32; limiting
happens once, at the end (public case A2). `write_mix` moves the result into a scene folder
with its FLAC/MP3 encodings and sidecars (labels, SRT, JSON cue sheet), with any stems, sessions
and provenance written for it, as one set (`drama_cli.mix.mix_set`).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from drama_cli.errors import UsageError
from drama_cli.mix import export
from drama_cli.mix.loudness import (
    MAX_BOOST_DB,
    LoudnessMeter,
    LoudnessReport,
    PeakLimiter,
    compliance_issues,
    preset_gain_db,
    preset_level,
    within_preset_range,
)
from drama_cli.mix.mix_set import (
    CUE_SHEET_NAME,
    MIX_BASENAME,
    SET_KEY,
    set_paths,
    set_record,
)
from drama_cli.mix.presets import LoudnessPreset, get_preset
from drama_cli.mix.sound_stream import mono, samples_at_mix_rate
from drama_cli.mix.sounds import (
    MUSIC,
    DuckEnvelope,
    SoundBus,
    SoundCue,
    SpeechToBed,
    place_scene_sounds,
    place_sounds,
)
from drama_cli.mix.span import SampleSpan, seconds_to_samples
from drama_cli.script.mix_settings import MIX_DEFAULTS, MixSettings
from drama_cli.script.spoken import Word
from engine import files
from engine.constants import SAMPLE_RATE
from engine.errors import AudioError

__all__ = [
    "Cue",
    "MixEntry",
    "MixResult",
    "RoomTone",
    "mix_scene",
    "plan_timeline",
    "read_take",
    "take_length_samples",
    "timeline_parts",
    "write_mix",
]

BLOCK_SAMPLES = 220_500  # 5 s, a whole number of 100 ms loudness steps
NOISE_LOOP_S = 7.37
MAKEUP_PASSES = 3  # extra passes allowed to win back level lost to limiting
MAKEUP_TOLERANCE_DB = 0.3
SCRATCH_BANNER = "SCRATCH DRAFT – not a Drama 3 performance"
PARTLY_SCRATCH_BANNER = "PARTLY SCRATCH – {count} of {total} lines are scratch drafts, not Drama 3"


def scratch_banner(metadata: dict) -> str | None:
    """The label of a mix with scratch takes (metadata `scratch`, and `scratch_lines` /
    `lines` when only some are), or None for a Drama 3 mix."""
    if not metadata.get("scratch"):
        return None
    count, total = len(metadata.get("scratch_lines") or []), int(metadata.get("lines") or 0)
    if 0 < count < total:
        return PARTLY_SCRATCH_BANNER.format(count=count, total=total)
    return SCRATCH_BANNER


@dataclass(frozen=True)
class MixEntry:
    """One selected take on the scene timeline.

    line_id: the script's line id; speaker: the cast name; text: the spoken text (for labels).
    take_path: the take's audio file (any rate, channels, WAV/FLAC width; read as float).
    take: the take number. pause_after_s: silence after this line in seconds (negative
    overlaps the next line); None uses the settings' `gap_s`. beat_s: silence added to that
    pause (a Fountain `(beat)`). segments: the take's chunks as (text, start s, end s) in the
    take, when it was made of several; words: each word of `text` with its time in the
    take (speech recognition), or empty. Both time the subtitles (`export.subtitle_pieces`).
    pauses: the script's punctuation-only lines after this one, as (text, seconds), already
    counted in `beat_s`; listed in the cue sheet. overlaps_previous: dual dialogue,
    the line starts together with the previous one. gain_db: per-line gain before summing.
    """

    line_id: str
    speaker: str
    text: str
    take_path: Path
    take: int
    pause_after_s: float | None = None
    overlaps_previous: bool = False
    gain_db: float = 0.0
    beat_s: float = 0.0
    segments: tuple[tuple[str, float, float], ...] = ()
    words: tuple[Word, ...] = ()
    pauses: tuple[tuple[str, float], ...] = ()


def check_settings(settings: MixSettings) -> None:
    """Raise UsageError for an unknown preset or WAV subtype in `settings` (formats and ranges
    are checked when the record is made)."""
    get_preset(settings.preset)
    export.check_wav_subtype(settings.wav_subtype)


@dataclass(frozen=True)
class Cue(SampleSpan):
    """Where one take sits in the mix: samples `[start_sample, end_sample)` at 44,100 Hz;
    segments and words: the take's chunk and word times (`MixEntry`), for the subtitles;
    pauses: the punctuation-only lines after it (`MixEntry`), for the cue sheet."""

    line_id: str
    speaker: str
    text: str
    take: int
    take_path: str
    start_sample: int
    end_sample: int
    gain_db: float = 0.0
    segments: tuple[tuple[str, float, float], ...] = ()
    words: tuple[Word, ...] = ()
    pauses: tuple[tuple[str, float], ...] = ()

    def to_dict(self, base: Path | None = None) -> dict:
        """The cue-sheet row: line, speaker, take, start/end in seconds, text, take file, and the
        pauses written after the line as punctuation alone (`pauses_after`, when there are any).

        `take_file` is the take's file name; `take_path` is its path relative to `base` (the
        scene folder) when `base` is set.
        """
        row = {
            "line": self.line_id,
            "speaker": self.speaker,
            "take": self.take,
            "start_s": round(self.start_s, 6),
            "end_s": round(self.end_s, 6),
            "text": self.text,
            "take_file": Path(self.take_path).name,
        }
        if self.pauses:
            row["pauses_after"] = [
                {"text": text, "seconds": seconds} for text, seconds in self.pauses
            ]
        if base is not None:
            row["take_path"] = Path(
                os.path.relpath(Path(self.take_path).resolve(), Path(base).resolve())
            ).as_posix()
        return row


@dataclass
class MixResult:
    """A mixed scene, written to `audio_path` (a temporary WAV until `write_mix` moves it).

    cues: the timeline. total_samples / sample_rate: length at 44,100 Hz. gain_db: the preset
    gain applied. measured: loudness of the takes' sum before processing (preset `none` skips
    that pass: then the same as `loudness`); loudness: after gain and limiting (what was
    written). limiter_reduction_db: deepest limiter gain reduction.
    issues: how the result misses the preset (empty: compliant). sounds: the placed effects
    and beds; sounds_left_out: names of sounds left out of the mix, and
    sounds_left_out_reasons: why, in the same order (`place_sounds`).
    speech_to_bed_db: the voices' level over the beds' under speech (`SpeechToBed`), or None.
    """

    audio_path: Path
    cues: list[Cue]
    total_samples: int
    sample_rate: int
    settings: MixSettings
    gain_db: float
    measured: LoudnessReport
    loudness: LoudnessReport
    limiter_reduction_db: float
    issues: list[str]
    temp_dir: Path | None = None  # a folder mix_scene created for `audio_path`, if any
    gain_held: bool = False  # `MixSettings.hold_gain_db` was applied (not normalised again)
    sounds: list[SoundCue] = field(default_factory=list)
    sounds_left_out: list[str] = field(default_factory=list)
    sounds_left_out_reasons: list[str] = field(default_factory=list)
    speech_to_bed_db: float | None = None

    @property
    def duration_s(self) -> float:
        """Length of the mix in seconds."""
        return self.total_samples / self.sample_rate

    def samples(self) -> np.ndarray:
        """The whole mix as `[samples]` float32 (meant for short scenes and tests)."""
        audio, _ = sf.read(str(self.audio_path), dtype="float32")
        return audio

    def summary(self) -> dict:
        """JSON-ready description: duration, preset, gain, loudness before/after, issues."""
        return {
            "sample_rate": self.sample_rate,
            "duration_s": round(self.duration_s, 6),
            "preset": self.settings.preset,
            "gain_db": round(self.gain_db, 2),
            "gain_db_exact": self.gain_db,
            "gain_held": self.gain_held,
            "measured": self.measured.to_dict(),
            "loudness": self.loudness.to_dict(),
            "limiter_reduction_db": round(self.limiter_reduction_db, 2),
            "issues": list(self.issues),
            "wav_subtype": self.settings.wav_subtype,
            **(
                {
                    "sounds": [sound.to_dict() for sound in self.sounds],
                    "sounds_left_out": list(self.sounds_left_out),
                    "sounds_left_out_reasons": list(self.sounds_left_out_reasons),
                    "speech_to_bed_db": self.speech_to_bed_db,
                }
                if self.sounds or self.sounds_left_out
                else {}
            ),
            **self.settings.metadata,
        }


def read_take(path: str | Path) -> np.ndarray:
    """Read any take as float32 mono `[samples]` at 44,100 Hz.

    Integer files of any width are scaled to [−1, 1) by their own width (24-bit is not read as
    32-bit), float files keep values beyond ±1, channels are averaged in float (no integer
    overflow) and other rates are resampled with soxr. Raises AudioError if unreadable.
    """
    try:
        audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, OSError) as err:
        raise AudioError(f"cannot read take {path}: {err}") from err
    samples = mono(audio)
    if rate != SAMPLE_RATE and samples.size:
        samples = soxr.resample(samples, rate, SAMPLE_RATE, quality="HQ").astype(np.float32)
    return np.ascontiguousarray(samples)


def take_length_samples(path: str | Path) -> int:
    """Length of a take once resampled to 44,100 Hz, from its header alone."""
    try:
        info = sf.info(str(path))
    except (sf.LibsndfileError, RuntimeError, OSError) as err:
        raise AudioError(f"cannot read take {path}: {err}") from err
    return samples_at_mix_rate(info)


def plan_timeline(entries: Sequence[MixEntry], settings: MixSettings) -> tuple[list[Cue], int]:
    """Place every entry: returns the cues and the scene length in samples (padding included).

    A line starts after the previous line's end plus its pause (`pause_after_s`, else
    `gap_s`, plus its `beat_s`); `overlaps_previous` starts it with the previous line instead (dual dialogue).
    What `settings` leave unset takes its default. Reads only file headers.
    """
    settings = settings.resolved()
    cues: list[Cue] = []
    cursor = seconds_to_samples(settings.head_s)
    last_end = cursor
    for entry in entries:
        if not all(
            math.isfinite(v) for v in (entry.pause_after_s or 0.0, entry.gain_db, entry.beat_s)
        ):
            raise UsageError(f"line {entry.line_id}: pause and gain must be finite numbers")
        length = take_length_samples(entry.take_path)
        start = cues[-1].start_sample if (entry.overlaps_previous and cues) else cursor
        end = start + length
        pause = settings.gap_s if entry.pause_after_s is None else entry.pause_after_s
        pause += entry.beat_s
        cursor = max(cursor, start, end + seconds_to_samples(pause))
        last_end = max(last_end, end)
        cues.append(
            Cue(
                entry.line_id,
                entry.speaker,
                entry.text,
                entry.take,
                str(entry.take_path),
                start,
                end,
                entry.gain_db,
                tuple(entry.segments),
                tuple(entry.words),
                tuple(entry.pauses),
            )
        )
    return cues, last_end + seconds_to_samples(settings.tail_s)


def _recording_at_level(source: str | Path, level_db: float) -> np.ndarray:
    """A room-tone recording (float32 `[samples]`) scaled so its RMS is `level_db` dBFS, like
    the generated noise. Raises AudioError for an empty or digitally silent file (no level to
    scale)."""
    loop = read_take(source)
    if loop.size == 0:
        raise AudioError(f"room tone file {source} holds no audio samples")
    if not np.isfinite(loop).all():
        raise AudioError(f"room tone file {source} holds non-finite samples (NaN or infinity)")
    rms = float(np.sqrt(np.mean(np.square(loop, dtype=np.float64))))
    if rms == 0.0:
        raise AudioError(f"room tone file {source} is digital silence; its level cannot be set")
    return (loop * np.float32(10.0 ** (level_db / 20.0) / rms)).astype(np.float32)


class RoomTone:
    """The bed under the scene, at `level_db` dBFS RMS: a looped file, or a seeded loop of
    white noise.

    Generated noise is one NOISE_LOOP_S loop (an odd length, so it does not line up with the
    blocks); at room-tone levels the repetition is inaudible and it costs nothing per block.
    """

    def __init__(self, source: str | Path | None, level_db: float, seed: int):
        self.loop = None
        if source is None:
            return
        if str(source) == "noise":
            rng = np.random.default_rng(seed)
            noise = rng.standard_normal(seconds_to_samples(NOISE_LOOP_S), dtype=np.float32)
            self.loop = noise * np.float32(10.0 ** (level_db / 20.0))
        else:
            self.loop = _recording_at_level(source, level_db)

    def add(self, block: np.ndarray, start: int) -> None:
        """Add the bed for samples `[start, start + len(block))` of the scene, in place."""
        if self.loop is None:
            return
        done = 0
        while done < block.size:
            offset = (start + done) % self.loop.size
            piece = min(block.size - done, self.loop.size - offset)
            block[done : done + piece] += self.loop[offset : offset + piece]
            done += piece


def timeline_parts(
    cues: list[Cue],
    total: int,
    sounds: Sequence[SoundCue] = (),
    settings: MixSettings = MIX_DEFAULTS,
    by_speaker: bool = False,
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """Yield (first sample, parts) for BLOCK_SAMPLES blocks, in order: parts maps "voice" (or,
    with `by_speaker`, each speaker's name) to the float32 sum of those takes, and the sound
    stems (`drama_cli.mix.sounds.SoundBus`) to theirs when there are `sounds`.

    Each take and sound is read when the first block under it is rendered and dropped after the
    last; ducked beds follow `settings`' ducking (unset: the default) keyed by the takes' spans.
    """
    settings = settings.resolved()
    order = sorted(range(len(cues)), key=lambda i: cues[i].start_sample)
    next_index = 0
    active: dict[int, np.ndarray] = {}
    duck = DuckEnvelope(
        [(c.start_sample, c.end_sample) for c in cues],
        settings.duck_db,
        settings.duck_attack_s,
        settings.duck_release_s,
    )
    bus = SoundBus(sounds, duck, read_take) if sounds else None
    for start in range(0, total, BLOCK_SAMPLES):
        stop = min(start + BLOCK_SAMPLES, total)
        parts: dict[str, np.ndarray] = (
            {} if by_speaker else {"voice": np.zeros(stop - start, np.float32)}
        )
        while next_index < len(order) and cues[order[next_index]].start_sample < stop:
            cue = cues[order[next_index]]
            active[order[next_index]] = _load_cue_audio(cue)
            next_index += 1
        for cue_index in list(active):
            cue = cues[cue_index]
            block = parts.setdefault(
                cue.speaker if by_speaker else "voice", np.zeros(stop - start, np.float32)
            )
            _add_overlap(block, start, cue, active[cue_index])
            if cue.end_sample <= stop:
                del active[cue_index]
        if bus is not None:
            parts.update(bus.parts(start, stop - start))
        yield start, parts


def _timeline_blocks(
    cues: list[Cue],
    total: int,
    sounds: Sequence[SoundCue] = (),
    settings: MixSettings = MIX_DEFAULTS,
    meter: SpeechToBed | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (first sample, float32 sum of the takes and sounds) for BLOCK_SAMPLES blocks;
    `meter` is fed the voices and the beds."""
    for start, parts in timeline_parts(cues, total, sounds, settings):
        if meter is not None:
            meter.feed(start, parts["voice"], parts.get(MUSIC))
        block = parts.pop("voice")
        for part in parts.values():
            block += part
        yield start, block


def _load_cue_audio(cue: Cue) -> np.ndarray:
    audio = read_take(cue.take_path)
    if not np.isfinite(audio).all():
        raise AudioError(
            f"take {cue.take_path} holds non-finite samples (NaN or infinity); "
            f"select another take of line {cue.line_id}"
        )
    length = cue.end_sample - cue.start_sample
    audio = audio[:length] if audio.size >= length else np.pad(audio, (0, length - audio.size))
    if cue.gain_db:
        audio = audio * np.float32(10.0 ** (cue.gain_db / 20.0))
    return audio


def _add_overlap(block: np.ndarray, block_start: int, cue: Cue, audio: np.ndarray) -> None:
    lo = max(block_start, cue.start_sample)
    hi = min(block_start + block.size, cue.end_sample)
    if hi > lo:
        block[lo - block_start : hi - block_start] += audio[
            lo - cue.start_sample : hi - cue.start_sample
        ]


def mix_scene(
    entries: Sequence[MixEntry],
    settings: MixSettings = MIX_DEFAULTS,
    work_dir: str | Path | None = None,
) -> MixResult:
    """Mix the selected takes of one scene into a WAV under `work_dir` (default: a temp folder).

    Pass 1 measures the sum of the takes (BS.1770-4 loudness, RMS, peaks; skipped for preset
    `none`, which applies no gain). Pass 2 applies the preset's gain, adds the room tone and
    runs one look-ahead limiter at the preset's ceiling while it writes the file in
    `settings.wav_subtype` and measures what was written. When heavy limiting left the level
    more than MAKEUP_TOLERANCE_DB short of the target, pass 2 runs again with make-up gain
    (at most MAKEUP_PASSES times). Memory stays bounded by one block plus the takes under it,
    whatever the scene length. With `settings.hold_gain_db` (a rebuild), that gain is applied
    in one pass and kept when the level lands within the preset's range; otherwise the scene is
    normalised as above. Raises UsageError for bad settings, an empty scene or a
    non-finite pause or gain, AudioError for unreadable takes.
    """
    settings = settings.resolved()
    check_settings(settings)
    if not entries:
        raise UsageError("nothing to mix: the scene has no selected takes")
    preset = get_preset(settings.preset)
    if settings.target_db is not None and preset.target_db is not None:
        preset = replace(preset, target_db=settings.target_db)
    cues, total = plan_timeline(entries, settings)
    lines = {cue.line_id: cue for cue in cues}
    sounds, left_out, total = place_sounds(settings.sounds, lines, total, take_length_samples)
    in_scenes, left_in_scenes, total = place_scene_sounds(
        settings.scene_sounds, lines, total, take_length_samples
    )
    sounds, left_out = sounds + in_scenes, left_out + left_in_scenes
    tone = RoomTone(settings.room_tone, settings.room_tone_db, settings.seed)

    measured = None
    beds = SpeechToBed([(c.start_sample, c.end_sample) for c in cues])
    if preset.target_db is not None:
        raw_meter = LoudnessMeter(SAMPLE_RATE)
        for _, block in _timeline_blocks(cues, total, sounds, settings, beds):
            raw_meter.feed(block)
        measured = raw_meter.report()
    held = settings.hold_gain_db is not None and preset.target_db is not None
    gain_db = (
        settings.hold_gain_db if held else (preset_gain_db(preset, measured) if measured else 0.0)
    )

    folder = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="drama-mix-"))
    folder.mkdir(parents=True, exist_ok=True)
    audio_path = files.staged_path(folder / f"{MIX_BASENAME}.wav")
    os.chmod(audio_path, files.FILE_MODE)  # staged 0600; a mix is an ordinary file
    try:
        if held:
            loudness, reduction_db = _render(
                cues,
                sounds,
                total,
                tone,
                gain_db,
                preset,
                settings,
                audio_path,
                None if measured else beds,
            )
            if not within_preset_range(preset, loudness):
                held, gain_db = False, preset_gain_db(preset, measured)
        tried: list[tuple[float, LoudnessReport]] = []
        for _ in range(0 if held else MAKEUP_PASSES + 1):
            loudness, reduction_db = _render(
                cues,
                sounds,
                total,
                tone,
                gain_db,
                preset,
                settings,
                audio_path,
                None if measured or tried else beds,
            )
            tried.append((gain_db, loudness))
            makeup = _makeup_gain_db(preset, tried)
            if makeup == 0.0:
                break
            gain_db += makeup
    except BaseException:
        audio_path.unlink(missing_ok=True)
        raise
    measured = measured or loudness  # preset `none`: no gain, so one pass measures both
    return MixResult(
        audio_path,
        cues,
        total,
        SAMPLE_RATE,
        settings,
        gain_db,
        measured,
        loudness,
        reduction_db,
        compliance_issues(preset, loudness),
        None if work_dir else folder,
        held,
        sounds,
        [name for name, _ in left_out],
        sounds_left_out_reasons=[why for _, why in left_out],
        speech_to_bed_db=beds.level_db,
    )


def _render(
    cues: list[Cue],
    sounds: list[SoundCue],
    total: int,
    tone: RoomTone,
    gain_db: float,
    preset: LoudnessPreset,
    settings: MixSettings,
    audio_path: Path,
    beds: SpeechToBed | None = None,
) -> tuple[LoudnessReport, float]:
    """Pass 2: gain, room tone, limiter; writes `audio_path`, returns (report, reduction dB).
    `beds`: fed the voices and beds (when pass 1 did not run)."""
    meter = LoudnessMeter(SAMPLE_RATE, true_peak=True)
    limiter = PeakLimiter(preset.limiter_ceiling_db, true_peak=preset.true_peak)
    gain = np.float32(10.0 ** (gain_db / 20.0))
    comment = _comment(settings.metadata)
    banner = scratch_banner(settings.metadata)
    if banner:
        comment = f"{banner}; {comment}"
    with export.open_wav_writer(
        audio_path, settings.wav_subtype, SAMPLE_RATE, total, comment, banner
    ) as writer:
        for start, block in _timeline_blocks(cues, total, sounds, settings, beds):
            block *= gain
            tone.add(block, start)  # after the gain: the bed keeps its own level
            _write_processed(limiter.process(block), writer, meter)
        _write_processed(limiter.flush(), writer, meter)
    return meter.report(), limiter.max_reduction_db


def _makeup_gain_db(preset: LoudnessPreset, tried: list[tuple[float, LoudnessReport]]) -> float:
    """Extra gain when limiting left the level short of the target by more than the tolerance.

    tried: (gain dB, report) of each pass so far. The first correction assumes level follows
    gain 1:1; later ones use the slope seen between the last two passes (the limiter makes
    it shallower), kept within [0.2, 1], and may step back after an overshoot. 0.0 when there
    is no target, the level is unmeasurable or within the tolerance, or no boost is left.
    """
    gain_db, report = tried[-1]
    level = preset_level(preset, report)
    if preset.target_db is None or level is None:
        return 0.0
    shortfall = preset.target_db - level
    first_pass_loud = len(tried) == 1 and shortfall < 0  # not a limiting loss: leave it
    if abs(shortfall) <= MAKEUP_TOLERANCE_DB or first_pass_loud:
        return 0.0
    slope = 1.0
    if len(tried) > 1:
        previous_gain, previous = tried[-2]
        previous_level = preset_level(preset, previous)
        if previous_level is not None and gain_db != previous_gain:
            slope = min(1.0, max(0.2, (level - previous_level) / (gain_db - previous_gain)))
    return min(shortfall / slope, MAX_BOOST_DB - gain_db)


def _comment(metadata: dict) -> str | None:
    """The WAV comment labelling the mix (for example `engine=scratch`), or None."""
    return "; ".join(f"{key}={value}" for key, value in metadata.items()) or None


def _write_processed(block: np.ndarray, writer: sf.SoundFile, meter: LoudnessMeter) -> None:
    export.write_block(writer, block)
    meter.feed(block)


def write_mix(
    result: MixResult,
    folder: str | Path,
    formats: Sequence[str] | None = None,
    extra: dict[str, tuple[Path, Path]] | None = None,
    transient: Sequence[str] = (),
) -> dict[str, Path]:
    """Move a mixed scene into `folder` as `mix.<fmt>` files plus its sidecars, as one set
    (`drama_cli.mix.mix_set`).

    formats: any of `wav`, `flac`, `mp3` (default: `result.settings.formats`). Sidecars are
    always written: `mix.labels.txt` (Audacity labels), `mix.srt`, `mix.cues.json`; a mix of
    scratch takes (`scratch_banner`) carries its SCRATCH label first in the labels and SRT.
    extra: {kind: (temporary, target in `folder`)} of other files written for this mix (stems,
    sessions, provenance) that switch with it; they are the caller's until this is called.
    transient: formats written for one use (a pipe) that the caller removes after: left out of
    the set's record.

    Every file is first written under a temporary name in `folder`; the cue sheet records the
    set (each file's size, time and SHA-256); then in one step the files of an earlier set
    that this one does not hold are removed and every file is renamed into place, the cue
    sheet last (`engine.files.publish`, undone whole when a rename fails). When anything fails
    before or during that step, the temporaries are removed (the rendering at
    `result.audio_path` is kept) and the earlier set is left whole. Without `wav` the rendering
    is deleted and `result.audio_path` points at the FLAC (else MP3) file. Returns {kind:
    path} with kinds `wav`, `flac`, `mp3`, `labels`, `srt`, `cues` and those of `extra`.
    Raises RenderError when MP3 is asked for and no encoder exists (checked before anything is
    written), UsageError for an unknown format.
    """
    wanted = [export.check_format(f) for f in (formats or result.settings.formats)]
    for fmt in wanted:
        export.require_encoder(fmt)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    staged: dict[str, tuple[Path, Path]] = dict(extra or {})  # kind -> (temporary, target)
    try:
        _stage_audio(result, folder, wanted, staged)
        banner = scratch_banner(result.settings.metadata)
        for kind, suffix, text in (
            ("labels", "labels.txt", export.labels_text(result.cues, banner, result.sounds)),
            ("srt", "srt", export.srt_text(result.cues, banner, result.sounds)),
        ):
            target = folder / f"{MIX_BASENAME}.{suffix}"
            staged[kind] = (files.stage_text(target, text), target)
        kept = [pair for kind, pair in staged.items() if kind not in transient]
        summary = {**result.summary(), SET_KEY: set_record(kept)}
        cues = folder / CUE_SHEET_NAME
        staged["cues"] = (
            files.stage_text(cues, export.cue_sheet_text(result.cues, summary, base=folder)),
            cues,
        )
        order = [kind for kind in staged if kind != "cues"] + ["cues"]
        targets = {target for _tmp, target in staged.values()}
        files.publish(
            [staged[kind] for kind in order],
            remove=[path for path in set_paths(folder) if path not in targets],
        )
    except BaseException:
        for tmp, _target in staged.values():
            if tmp != result.audio_path:
                tmp.unlink(missing_ok=True)
        raise
    if staged.get("wav", (None,))[0] != result.audio_path:
        result.audio_path.unlink(missing_ok=True)  # copied, or only the encoders' source
    result.audio_path = folder / f"{MIX_BASENAME}.{'wav' if 'wav' in wanted else wanted[0]}"
    if result.temp_dir is not None and not any(result.temp_dir.iterdir()):
        result.temp_dir.rmdir()
        result.temp_dir = None
    return {kind: target for kind, (_tmp, target) in staged.items()}


def _stage_audio(
    result: MixResult, folder: Path, wanted: list[str], staged: dict[str, tuple[Path, Path]]
) -> None:
    """Stage `mix.<fmt>` for each wanted format into `staged`: the encoded copies first (they
    read the rendering that the WAV becomes), then the WAV."""
    for fmt in wanted:
        encode = export.EXPORT_FORMATS[fmt].encode
        if encode is not None:
            target = folder / f"{MIX_BASENAME}.{fmt}"
            staged[fmt] = (files.staged_path(target), target)
            encode(result.audio_path, staged[fmt][0], result.settings)
    if "wav" in wanted:
        target = folder / f"{MIX_BASENAME}.wav"
        staged["wav"] = (_stage_rendering(result.audio_path, target), target)


def _stage_rendering(source: Path, target: Path) -> Path:
    """The rendering as a temporary beside `target`, ready for `files.publish`: itself when it
    is already in that folder, else a copy there."""
    source = Path(source)
    if source.parent.resolve() == target.parent.resolve():
        return source
    tmp = files.staged_path(target)
    shutil.copyfile(source, tmp)
    return tmp
