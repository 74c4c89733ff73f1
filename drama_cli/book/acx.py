"""ACX's audio requirements, and the check of one encoded file against them.

The rules (docs/guide/books.md §ACX): MP3 at 192 kbps constant bit rate, 44.1 kHz, mono; 0.5–1 s of
room tone at the head and 1–5 s at the tail; RMS between −23 and −18 dB; peaks at or below
−3 dBFS; a noise floor (RMS of the quietest 0.5 s) at or below −60 dB; at most 120 minutes.

`measure_file` decodes the file as it will be heard (ffmpeg, streamed in blocks: bounded memory
for any length) and measures it with the mix's own meter (`drama_cli.mix.loudness`), so the
report judges the delivered MP3, not the master it was made from.
"""

from __future__ import annotations

import math
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

import mutagen
import numpy as np
from mutagen.mp3 import MP3, BitrateMode

from drama_cli.errors import RenderError
from drama_cli.mix.loudness import FLOOR_DB, LoudnessMeter, db_from_power
from drama_cli.mix.presets import PRESETS

ACX = PRESETS["acx"]
SAMPLE_RATE_HZ = 44_100
BITRATE_KBPS = 192
CHANNELS = 1
RMS_RANGE_DB = ACX.accept_db  # (−23, −18)
PEAK_MAX_DBFS = ACX.ceiling_db  # −3
NOISE_FLOOR_MAX_DB = ACX.noise_floor_max_db  # −60
HEAD_RANGE_S = (0.5, 1.0)
TAIL_RANGE_S = (1.0, 5.0)
MAX_FILE_S = 120 * 60.0
SAMPLE_RANGE_S = (60.0, 300.0)  # a retail sample: 1 to 5 minutes
# Speech starts where a 10 ms window first rises above this level: 30 dB under ACX's middle
# RMS, well over a room tone at −60 dB or below.
SPEECH_THRESHOLD_DB = -50.0
ONSET_WINDOW_S = 0.01
DECODE_BLOCK_SAMPLES = 1 << 18


@dataclass
class FileCheck:
    """Measurements of one delivered file and its verdict per ACX rule.

    duration_s: length in seconds. rms_db: whole-file RMS in dBFS. speech_rms_db: RMS from the
    first words to the last (the room tone ACX asks for at both ends left out), dBFS; the `rms`
    rule judges it (None: judged on rms_db). peak_dbfs: highest sample.
    noise_floor_db: RMS of the quietest 0.5 s window, dB (None when shorter than 0.5 s).
    sample_rate_hz, bitrate_kbps, channels, cbr: the stream's format (cbr: constant bit rate).
    head_s / tail_s: room tone before the first and after the last speech, seconds.
    rules: rule name -> True (passes) / False; problems: one sentence per failed rule.
    """

    file: str
    duration_s: float
    rms_db: float
    peak_dbfs: float
    noise_floor_db: float | None
    sample_rate_hz: int
    bitrate_kbps: int
    channels: int
    cbr: bool
    head_s: float
    tail_s: float
    speech_rms_db: float | None = None
    rules: dict[str, bool] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every rule passes."""
        return not self.problems

    def to_dict(self) -> dict:
        """JSON-ready, dB and seconds rounded to 0.01 (durations to 0.001)."""
        row = asdict(self)
        for key, value in row.items():
            if isinstance(value, float):
                row[key] = round(value, 3 if key.endswith("_s") else 2)
        row["passed"] = self.passed
        return row


def judge(check: FileCheck, max_s: float = MAX_FILE_S, sample: bool = False) -> FileCheck:
    """Fill `check.rules` and `check.problems` from its measurements (in place; returns it).
    sample: judge as a retail sample (1–5 minutes, no head/tail rule)."""
    low, high = RMS_RANGE_DB
    level = check.rms_db if check.speech_rms_db is None else check.speech_rms_db
    rules = {
        "format": (
            check.cbr
            and check.bitrate_kbps == BITRATE_KBPS
            and check.sample_rate_hz == SAMPLE_RATE_HZ
            and check.channels == CHANNELS,
            f"format is {check.bitrate_kbps} kbps {'CBR' if check.cbr else 'VBR'}, "
            f"{check.sample_rate_hz} Hz, {check.channels} channel(s); ACX needs "
            f"{BITRATE_KBPS} kbps CBR, {SAMPLE_RATE_HZ} Hz, mono",
        ),
        "rms": (
            low <= level <= high,
            f"RMS {level:.1f} dB{'' if check.speech_rms_db is None else ' (over the speech)'} "
            f"is outside {low:g}…{high:g} dB",
        ),
        "peak": (
            check.peak_dbfs <= PEAK_MAX_DBFS,
            f"peak {check.peak_dbfs:.2f} dBFS is above {PEAK_MAX_DBFS:g} dBFS",
        ),
        "noise_floor": (
            check.noise_floor_db is not None and check.noise_floor_db <= NOISE_FLOOR_MAX_DB,
            f"noise floor {_db(check.noise_floor_db)} dB is above {NOISE_FLOOR_MAX_DB:g} dB",
        ),
    }
    if sample:
        rules["length"] = (
            SAMPLE_RANGE_S[0] <= check.duration_s <= SAMPLE_RANGE_S[1],
            f"a retail sample must last 1 to 5 minutes, this one {check.duration_s:.1f} s",
        )
    else:
        rules["head"] = (
            HEAD_RANGE_S[0] <= check.head_s <= HEAD_RANGE_S[1],
            f"{check.head_s:.2f} s of room tone at the head, ACX needs 0.5–1 s",
        )
        rules["tail"] = (
            TAIL_RANGE_S[0] <= check.tail_s <= TAIL_RANGE_S[1],
            f"{check.tail_s:.2f} s of room tone at the tail, ACX needs 1–5 s",
        )
        rules["length"] = (
            check.duration_s <= max_s,
            f"{check.duration_s / 60:.1f} minutes long; ACX takes at most "
            f"{max_s / 60:g} minutes per file: split the chapter",
        )
    check.rules = {name: ok for name, (ok, _) in rules.items()}
    check.problems = [f"{name}: {why}" for name, (ok, why) in rules.items() if not ok]
    return check


def _db(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def measure_file(path: Path, ffmpeg: str) -> FileCheck:
    """Decode an audio file with `ffmpeg` and measure it (unjudged: see `judge`).

    Reads the format with mutagen (sample rate, bit rate, channels, constant or variable bit
    rate), decodes to 44.1 kHz float in blocks, feeds the streaming loudness meter and finds
    the first and last 10 ms above SPEECH_THRESHOLD_DB. Raises RenderError when the file
    cannot be read or decodes to something that is not finite.
    """
    info = stream_info(path)
    meter = LoudnessMeter(SAMPLE_RATE_HZ)
    onset = OnsetTracker(SAMPLE_RATE_HZ)
    for block in decode_blocks(path, ffmpeg):
        meter.feed(block)
        onset.feed(block)
    report = meter.report()
    total = onset.samples
    first, last = onset.first, onset.last
    head = (first if first is not None else total) / SAMPLE_RATE_HZ
    tail = (total - last if last is not None else total) / SAMPLE_RATE_HZ
    return FileCheck(
        str(path),
        report.duration_s,
        report.rms_db,
        report.peak_dbfs,
        report.noise_floor_db,
        info["sample_rate_hz"],
        info["bitrate_kbps"],
        info["channels"],
        info["cbr"],
        head,
        tail,
        onset.speech_rms_db() if first is not None else report.rms_db,
    )


def stream_info(path: Path) -> dict:
    """Sample rate (Hz), bit rate (kbps), channels and whether the bit rate is constant, read
    from the file's headers with mutagen. Raises RenderError for a file mutagen cannot read."""
    try:
        audio = mutagen.File(str(path))
    except mutagen.MutagenError as err:
        raise RenderError(f"cannot read {Path(path).name}: {err}") from None
    if audio is None:
        raise RenderError(f"cannot read {Path(path).name}: not an audio file mutagen knows")
    # LAME's Info tag says CBR; a file that cannot say (no Info or Xing header) is not taken as CBR
    cbr = (
        isinstance(audio, MP3)
        and audio.info.bitrate_mode == BitrateMode.CBR
        and not audio.info.sketchy
    )
    return {
        "sample_rate_hz": int(audio.info.sample_rate),
        "channels": int(audio.info.channels),
        "bitrate_kbps": int(round(audio.info.bitrate / 1000)),
        "cbr": bool(cbr),
    }


def decode_blocks(path: Path, ffmpeg: str):
    """Yield the decoded audio of `path` as float32 mono blocks at 44.1 kHz (ffmpeg streams it;
    at most DECODE_BLOCK_SAMPLES samples are held). Raises RenderError when ffmpeg fails or a
    sample is not finite."""
    command = [
        ffmpeg,
        "-nostdin",
        "-hide_banner",
        "-loglevel",
        "error",
        "-i",
        str(path),
        "-f",
        "f32le",
        "-ac",
        "1",
        "-ar",
        str(SAMPLE_RATE_HZ),
        "-",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while True:
            data = process.stdout.read(DECODE_BLOCK_SAMPLES * 4)
            if not data:
                break
            block = np.frombuffer(data[: len(data) // 4 * 4], dtype="<f4")
            if not np.isfinite(block).all():
                raise RenderError(f"{Path(path).name} decodes to samples that are not finite")
            yield block
    finally:
        process.stdout.close()
        stderr = process.stderr.read().decode("utf-8", "replace")
        process.stderr.close()
        code = process.wait()
    if code != 0:
        detail = stderr.strip().splitlines()[-1:] or ["no message"]
        raise RenderError(f"cannot decode {Path(path).name}: {detail[0]}")


class OnsetTracker:
    """Streaming: the first and last 10 ms window (sample offsets) whose RMS is above
    `threshold_db`; `first`/`last` stay None when none is. Also sums the energy before the
    first and up to the end of the last, for the RMS of the span between (`speech_rms_db`)."""

    def __init__(self, rate: int = SAMPLE_RATE_HZ, threshold_db: float = SPEECH_THRESHOLD_DB):
        self.window = int(round(ONSET_WINDOW_S * rate))
        self.threshold = 10.0 ** (threshold_db / 10.0)  # mean square
        self.samples = 0
        self.first: int | None = None
        self.last: int | None = None
        self._pending = np.zeros(0, np.float32)
        self._energy = 0.0  # sum of squares of the whole windows seen
        self._energy_first = self._energy_last = 0.0  # before `first`, up to `last`

    def feed(self, block: np.ndarray) -> None:
        """Add the next `[samples]` block."""
        data = np.concatenate([self._pending, np.asarray(block, np.float32)])
        whole = data.size // self.window
        start = self.samples - self._pending.size
        self.samples += block.size
        self._pending = data[whole * self.window :]
        if whole == 0:
            return
        power = np.mean(
            np.square(data[: whole * self.window].reshape(whole, self.window), dtype=np.float64),
            axis=1,
        )
        loud = np.flatnonzero(power > self.threshold)
        energy = np.cumsum(power) * self.window
        if loud.size:
            if self.first is None:
                self.first = start + int(loud[0]) * self.window
                self._energy_first = self._energy + (float(energy[loud[0] - 1]) if loud[0] else 0.0)
            self.last = start + (int(loud[-1]) + 1) * self.window
            self._energy_last = self._energy + float(energy[loud[-1]])
        self._energy += float(energy[-1])

    def speech_rms_db(self) -> float:
        """RMS in dBFS of the samples from `first` to `last` (FLOOR_DB when none is loud)."""
        if self.first is None or self.last <= self.first:
            return FLOOR_DB
        return db_from_power((self._energy_last - self._energy_first) / (self.last - self.first))


def quiet_ends_s(
    audio: np.ndarray, rate: int = SAMPLE_RATE_HZ, below_db: float = 30.0
) -> tuple[float, float]:
    """Seconds of quiet at the start and end of a take `[samples]`: 10 ms windows more than
    `below_db` under the take's own RMS (a take's level is not yet the book's). (0, 0) for
    silence."""
    audio = np.asarray(audio, np.float32)
    if audio.size == 0:
        return 0.0, 0.0
    power = float(np.mean(np.square(audio, dtype=np.float64)))
    if power <= 0 or not math.isfinite(power):
        return 0.0, 0.0
    tracker = OnsetTracker(rate, db_from_power(power) - below_db)
    tracker.feed(audio)
    if tracker.first is None:
        return 0.0, 0.0
    return tracker.first / rate, max(0, audio.size - tracker.last) / rate
