"""Writing finished scene audio and its sidecars: WAV/FLAC/MP3, labels, SRT, cues.

Every file appears complete or not at all: it is written under a temporary name in the target
folder, flushed to disk and renamed (`engine.files.atomic_path`). MP3 needs an external encoder (ffmpeg
with libmp3lame): `require_encoder` finds one on PATH or the binary bundled in the
`imageio-ffmpeg` wheel, and fails with a clear RenderError before any rendering starts
(public case A7), so a long render never dies at export or leaves an empty `.mp3`.
"""

from __future__ import annotations

import functools
import json
import subprocess
import textwrap
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.errors import RenderError, UsageError
from drama_cli.script.mix_settings import MixSettings, check_format
from engine.ffmpeg import ffmpeg_candidates
from engine.files import atomic_path

WAV_SUBTYPES = ("PCM_16", "PCM_24", "PCM_32", "FLOAT")
WAV_HEADER_LIMIT_BYTES = 4 * 1024**3 - 1024 * 1024  # plain RIFF sizes are 32-bit
MP3_BITRATE_KBPS = MixSettings.mp3_bitrate_kbps
READ_BLOCK_SAMPLES = 1 << 18


@dataclass(frozen=True)
class ExportFormat:
    """One audio format a mix can be written in.

    name: the format name and file suffix. encode(source_wav, target, settings): writes
    `target` from the float WAV rendering of the mix, atomically, with the mix's `MixSettings`
    (None: the rendering itself becomes the file). encoder: finds the external program the format needs, or None when it
    is missing (None here: libsndfile writes it). description: for help texts.
    """

    name: str
    description: str
    encode: Callable[[Path, Path, object], Path] | None = None
    encoder: Callable[[], str | None] | None = None


def _flac(source_wav: Path, target: Path, settings) -> Path:
    return encode_flac(source_wav, target)


def _mp3(source_wav: Path, target: Path, settings) -> Path:
    return encode_mp3(source_wav, target, settings.mp3_bitrate_kbps)


# The formats a mix can be written in. Adding one is one record and its encoder function, and
# its name in the settings' table (`MIX_FIELDS["formats"].allowed`, which `check_format` reads).
EXPORT_FORMATS = {
    "wav": ExportFormat("wav", "WAV, 24-bit PCM by default (the master)"),
    "flac": ExportFormat("flac", "FLAC, lossless", _flac),
    "mp3": ExportFormat(
        "mp3", f"MP3, {MP3_BITRATE_KBPS} kbps CBR (needs ffmpeg)", _mp3, lambda: find_mp3_encoder()
    ),  # looked up when called
}
FORMATS = tuple(EXPORT_FORMATS)


def mix_audio_file(files: dict) -> str | None:
    """The audio file a scene summary names from a mix's {kind: path} files (which also hold
    sidecars such as `provenance`): the first of FORMATS written, None when there is none."""
    return next((str(files[name]) for name in FORMATS if files.get(name)), None)


def check_wav_subtype(subtype: str) -> str:
    """Validate a WAV sample format name; UsageError naming the allowed ones otherwise."""
    name = subtype.upper()
    if name not in WAV_SUBTYPES:
        allowed = ", ".join(WAV_SUBTYPES)
        raise UsageError(f"unsupported WAV sample format {subtype!r} (supported: {allowed})")
    return name


def require_encoder(fmt: str) -> str | None:
    """Make sure files of format `fmt` can be written, before any rendering starts.

    Returns the encoder executable for `mp3` (ffmpeg found on PATH, else the one bundled in
    `imageio-ffmpeg`), None for formats written by libsndfile (`wav`, `flac`).
    Raises UsageError for an unknown format and RenderError, naming the missing encoder and
    suggesting `--format wav`, when no MP3 encoder is available (public case A7).
    """
    name = check_format(fmt)
    if EXPORT_FORMATS[name].encoder is None:
        return None
    encoder = EXPORT_FORMATS[name].encoder()
    if encoder is None:
        raise RenderError(
            "cannot write .mp3: no MP3 encoder found (ffmpeg with libmp3lame is not on PATH "
            "and the bundled imageio-ffmpeg binary is unavailable); write WAV instead "
            "(--format wav, or --format flac), or install ffmpeg"
        )
    _point_pydub_at(encoder)
    return encoder


def find_mp3_encoder() -> str | None:
    """Path of an ffmpeg that can encode MP3 (PATH first, then imageio-ffmpeg), or None."""
    return next((exe for exe in ffmpeg_candidates() if _encodes_mp3(exe)), None)


@functools.lru_cache(maxsize=8)
def _encodes_mp3(exe: str) -> bool:
    try:
        probe = subprocess.run(
            [exe, "-hide_banner", "-encoders"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0 and "libmp3lame" in probe.stdout


def _point_pydub_at(encoder: str) -> None:
    """Let pydub, if used elsewhere in the process, find the same encoder."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydub warns at import (no ffmpeg on PATH, audioop)
        from pydub import (
            AudioSegment,  # lazy: pydub (every command loads this module), 6 ms at start-up
        )
    AudioSegment.converter = encoder


def open_wav_writer(
    path: Path,
    subtype: str,
    rate: int,
    total_samples: int,
    comment: str | None = None,
    title: str | None = None,
) -> sf.SoundFile:
    """Open a mono WAV for block writes; RF64 when the data would overflow a RIFF header.

    comment / title: optional texts stored in the file's INFO chunk (for example
    `engine=scratch`, and the SCRATCH banner of a draft mix).
    """
    subtype = check_wav_subtype(subtype)
    bytes_per_sample = {"PCM_16": 2, "PCM_24": 3}.get(subtype, 4)
    container = "RF64" if total_samples * bytes_per_sample > WAV_HEADER_LIMIT_BYTES else "WAV"
    writer = sf.SoundFile(path, "w", rate, 1, subtype=subtype, format=container)
    if comment:
        writer.comment = comment
    if title:
        writer.title = title
    return writer


def write_block(writer: sf.SoundFile, block: np.ndarray) -> None:
    """Write float samples; integer formats get [−1, 1] clipping so nothing wraps (case A4)."""
    if writer.subtype != "FLOAT":
        block = np.clip(block, -1.0, 1.0)
    writer.write(block)


def write_wav(path: Path, samples: np.ndarray, rate: int, subtype: str = "PCM_24") -> Path:
    """Write a whole `[samples]` float array as a mono WAV, atomically.

    Integer subtypes clip to [−1, 1] first (float 1.5 becomes 32767 in PCM_16, never a
    wrapped negative value); FLOAT keeps values as they are. Returns `path`.
    """
    samples = np.asarray(samples, dtype=np.float32)
    with atomic_path(path) as tmp:
        with open_wav_writer(tmp, subtype, rate, samples.size) as writer:
            write_block(writer, samples)
    return Path(path)


def encode_flac(source_wav: Path, target: Path) -> Path:
    """Re-encode a WAV as FLAC in blocks (24-bit unless the source is 16-bit), atomically,
    keeping the WAV's title and comment (a scratch mix's SCRATCH label) as FLAC tags."""
    info = sf.info(str(source_wav))
    subtype = "PCM_16" if info.subtype in ("PCM_16", "PCM_U8", "PCM_S8") else "PCM_24"
    with sf.SoundFile(str(source_wav)) as source:
        tags = {name: getattr(source, name) for name in ("title", "comment")}
    with atomic_path(target) as tmp:
        with sf.SoundFile(tmp, "w", info.samplerate, info.channels, subtype, format="FLAC") as out:
            for name, value in tags.items():
                if value:
                    setattr(out, name, value)
            for block in sf.blocks(str(source_wav), blocksize=READ_BLOCK_SAMPLES, dtype="float32"):
                out.write(np.clip(block, -1.0, 1.0))
    return Path(target)


def encode_mp3(source_wav: Path, target: Path, bitrate_kbps: int = MP3_BITRATE_KBPS) -> Path:
    """Encode a WAV as MP3 with ffmpeg/libmp3lame, streaming from disk, atomically.

    Raises RenderError when no encoder is available (see `require_encoder`) or the encoder
    fails or writes something that is not an MP3; no partial `target` is ever left behind.
    """
    encoder = require_encoder("mp3")
    with atomic_path(target) as tmp:
        command = [
            encoder,
            "-nostdin",
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-i",
            str(source_wav),
            "-codec:a",
            "libmp3lame",
            "-b:a",
            f"{bitrate_kbps}k",
            "-f",
            "mp3",
            str(tmp),
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            detail = done.stderr.strip().splitlines()[-1:] or ["no message"]
            raise RenderError(f"MP3 encoding of {Path(target).name} failed: {detail[0]}")
        if not is_mp3(tmp):
            raise RenderError(f"MP3 encoder wrote no valid MP3 for {Path(target).name}")
    return Path(target)


def is_mp3(path: Path) -> bool:
    """True when the file starts with an MPEG audio frame sync (0xFFE), after an optional ID3v2."""
    data = Path(path).read_bytes()[: 1 << 16]
    offset = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        size = 0
        for byte in data[6:10]:
            size = (size << 7) | (byte & 0x7F)
        offset = 10 + size
    frame = data[offset : offset + 2]
    return len(frame) == 2 and frame[0] == 0xFF and (frame[1] & 0xE0) == 0xE0


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def labels_text(cues: Sequence, banner: str | None = None, sounds: Sequence = ()) -> str:
    """Audacity label track: one `start<TAB>end<TAB>SPEAKER: text` row per cue (seconds), and
    one `start<TAB>end<TAB>KIND: name` row per placed sound (`drama_cli.mix.sounds.SoundCue`),
    in order of start; `banner` (a SCRATCH draft's label) first, as a point label at 0."""
    rows = [f"{0.0:.6f}\t{0.0:.6f}\t{_one_line(banner)}"] if banner else []
    spans = [(c.start_s, c.end_s, f"{_one_line(c.speaker)}: {_one_line(c.text)}") for c in cues]
    spans += [(s.start_s, s.end_s, f"{s.kind.upper()}: {_one_line(s.name)}") for s in sounds]
    if sounds:
        spans.sort(key=lambda span: span[0])
    rows += [f"{start:.6f}\t{end:.6f}\t{text}" for start, end, text in spans]
    return "".join(row + "\n" for row in rows)


BANNER_S = 2.0
EFFECT_CAPTION_MIN_S = 0.5  # a caption for a click or a tick stays long enough to be read


def _srt_time(seconds: float) -> str:
    millis = int(round(seconds * 1000))
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d},{millis:03d}"


SUBTITLE_LINE_CHARS = 42  # subtitle practice (BBC, Netflix): two lines of about 42 characters
SUBTITLE_LINES = 2
SUBTITLE_MAX_S = 7.0  # and at most about 7 seconds on screen
_SENTENCE_END = (".", "!", "?", "…", '."', '!"', '?"', ".'")
_CLAUSE_END = (",", ";", ":", "—", "–", "-")


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(
        text, SUBTITLE_LINE_CHARS, break_long_words=False, break_on_hyphens=False
    ) or [""]


def _word_times(cue) -> list[tuple[str, float, float]]:
    """Every word of a cue with its start and end in seconds of the mix: the cue's word times
    when it has them (speech recognition), else each chunk's time (`cue.segments`, else the
    whole take) shared among its words by their length."""
    offset = cue.start_s
    words = str(cue.text).split()
    if getattr(cue, "words", ()) and len(cue.words) == len(words):
        return [
            (word, offset + heard.start_s, offset + heard.end_s)
            for word, heard in zip(words, cue.words)
        ]
    segments = getattr(cue, "segments", ()) or ((cue.text, 0.0, cue.end_s - cue.start_s),)
    timed = []
    for text, start, end in segments:
        pieces = str(text).split()
        weights = [len(piece) + 1 for piece in pieces]
        total, done = sum(weights) or 1, 0
        for piece, weight in zip(pieces, weights):
            a = start + (end - start) * done / total
            done += weight
            timed.append((piece, offset + a, offset + start + (end - start) * done / total))
    return timed


def _chunk_starts(cue, timed: list) -> set[int]:
    """Word indices where a chunk of the take begins (hard subtitle breaks)."""
    starts, index = set(), 0
    for text, _start, _end in getattr(cue, "segments", ()) or ():
        starts.add(index)
        index += len(str(text).split())
    return {i for i in starts if 0 < i < len(timed)}


def _split_words(timed: list, lo: int, hi: int, prefix: str, span) -> list[tuple[int, int]]:
    """Word ranges [lo, hi) cut until each fits two lines of 42 characters and 7 s (`span(lo,
    hi)`: its start and end): at the sentence end nearest the middle, else a clause mark,
    else the space nearest the middle."""
    text = prefix + " ".join(w for w, _, _ in timed[lo:hi])
    start, end = span(lo, hi)
    if hi - lo <= 1 or (len(_wrapped(text)) <= SUBTITLE_LINES and end - start <= SUBTITLE_MAX_S):
        return [(lo, hi)]
    middle = (len(text) - len(prefix)) / 2
    best, best_score, chars = lo + 1, None, 0
    for k in range(lo + 1, hi):
        word = timed[k - 1][0]
        chars += len(word) + 1
        kind = 0 if word.endswith(_SENTENCE_END) else 1 if word.endswith(_CLAUSE_END) else 2
        score = (kind, abs(chars - middle))
        if best_score is None or score < best_score:
            best, best_score = k, score
    return _split_words(timed, lo, best, prefix, span) + _split_words(timed, best, hi, "", span)


def subtitle_pieces(cue) -> list[tuple[str, float, float]]:
    """The subtitles of one cue, `SPEAKER: ` before the first: (text with line breaks, start,
    end) in seconds of the mix. Each holds at most two lines of about 42 characters and lasts
    at most about 7 s; cuts fall at the take's chunk joins (timed by the joins), then at
    sentence ends and clause marks, timed by the cue's word times when it has them. Pieces
    follow one another without a gap, from the cue's start to its end."""
    timed = _word_times(cue)
    label = f"{_one_line(cue.speaker)}: "
    if not timed:
        return [(label.strip(), cue.start_s, cue.end_s)]

    def span(lo: int, hi: int) -> tuple[float, float]:
        return (
            cue.start_s if lo == 0 else timed[lo][1],
            cue.end_s if hi == len(timed) else timed[hi][1],
        )

    bounds = sorted({0, len(timed), *_chunk_starts(cue, timed)})
    ranges = []
    for lo, hi in zip(bounds, bounds[1:]):
        ranges += _split_words(timed, lo, hi, label if lo == 0 else "", span)
    return [
        (
            "\n".join(
                _wrapped((label if lo == 0 else "") + " ".join(w for w, _, _ in timed[lo:hi]))
            ),
            *span(lo, hi),
        )
        for lo, hi in ranges
    ]


def srt_text(cues: Sequence, banner: str | None = None, sounds: Sequence = ()) -> str:
    """SubRip subtitles, `SPEAKER: text`, each line cut into pieces that follow subtitle
    practice (`subtitle_pieces`), and each placed effect (`drama_cli.mix.sounds.SoundCue` of
    kind `effect`) as `[name]` for its length, at least EFFECT_CAPTION_MIN_S and at most
    BANNER_S, in order of start; `banner` (a SCRATCH draft's label) first, from 0 to the first
    line (or for BANNER_S when the first line starts sooner than that). Every entry ends at
    least a millisecond after it starts (players refuse an entry whose end is its start). An
    arrow `-->` in the text is written `->`, so that no reader takes it for a timing row."""
    entries = []
    if banner:
        first = cues[0].start_s if cues else 0.0
        end = first if first >= 0.5 else BANNER_S
        entries.append((_one_line(banner), 0.0, end))
    spoken = [piece for cue in cues for piece in subtitle_pieces(cue)]
    effects = [
        (
            f"[{_one_line(s.name)}]",
            s.start_s,
            min(max(s.end_s, s.start_s + EFFECT_CAPTION_MIN_S), s.start_s + BANNER_S),
        )
        for s in sounds
        if s.kind == "effect"
    ]
    entries += sorted(spoken + effects, key=lambda entry: entry[1]) if effects else spoken
    return "\n".join(
        f"{index}\n{_srt_span(start, end)}\n{text.replace('-->', '->')}\n"
        for index, (text, start, end) in enumerate(entries, start=1)
    )


def _srt_span(start: float, end: float) -> str:
    """`START --> END`, END at least a millisecond after START once both are rounded."""
    first = int(round(start * 1000))
    return (
        f"{_srt_time(first / 1000)} --> {_srt_time(max(int(round(end * 1000)), first + 1) / 1000)}"
    )


def cue_sheet_text(cues: Sequence, summary: dict, base: Path | None = None) -> str:
    """JSON cue sheet: `summary` fields plus `cues` (line id, speaker, take, start/end seconds).

    base: folder the take files are given relative to (default: file names only).
    """
    rows = [cue.to_dict(base) for cue in cues]
    return json.dumps({**summary, "cues": rows}, indent=2, ensure_ascii=False) + "\n"
