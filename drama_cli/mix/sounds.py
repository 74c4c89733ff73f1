"""A scene's effects and beds on the mix's timeline: placed at their anchors
(`place_sounds`), looped, faded and, for beds, ducked under dialogue (`DuckEnvelope`), then
added block by block beside the voices (`SoundBus`).

Sounds are read as `timeline.read_take` reads a take (any rate, resampled with soxr to
44,100 Hz, channels averaged), each opened when the first block under it is rendered and
closed after its last; a long one is read a block at a time (`SoundStream`), so memory stays one
block plus the short sounds under it, whatever the length of the mix or of its beds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from drama_cli.errors import UsageError
from drama_cli.mix.sound_stream import SoundStream
from drama_cli.mix.span import SampleSpan, seconds_to_samples
from drama_cli.mix.word_place import word_start_sample
from drama_cli.script.document import Sound, SoundAnchor
from drama_cli.script.mix_settings import MIX_DEFAULTS
from engine.constants import SAMPLE_RATE
from engine.errors import AudioError

EFFECTS, MUSIC = "effects", "music"  # the two sound stems: effects, and music with ambience
DUCK_DB, DUCK_ATTACK_S, DUCK_RELEASE_S = (
    MIX_DEFAULTS.duck_db,
    MIX_DEFAULTS.duck_attack_s,
    MIX_DEFAULTS.duck_release_s,
)


@dataclass(frozen=True)
class SoundCue(SampleSpan):
    """One sound placed on the scene: samples `[start_sample, end_sample)` at 44,100 Hz.

    name / path / kind: from the script's `Sound`. stem: EFFECTS or MUSIC. gain: linear gain.
    fade_in / fade_out: fade lengths in samples. loop: repeats the file to `end_sample`.
    duck: follows the scene's `DuckEnvelope`.
    """

    name: str
    path: str
    kind: str
    start_sample: int
    end_sample: int
    gain: float = 1.0
    fade_in: int = 0
    fade_out: int = 0
    loop: bool = False
    duck: bool = False

    @property
    def stem(self) -> str:
        """EFFECTS for effects, MUSIC for music and ambience beds."""
        return EFFECTS if self.kind == "effect" else MUSIC

    def to_dict(self) -> dict:
        """The cue-sheet row: sound name, kind, start/end in seconds, file, loop and duck."""
        return {
            "sound": self.name,
            "kind": self.kind,
            "start_s": round(self.start_s, 6),
            "end_s": round(self.end_s, 6),
            "file": Path(self.path).name,
            "gain_db": round(20 * math.log10(self.gain), 2) if self.gain > 0 else None,
            "loop": self.loop,
            "duck": self.duck,
        }


NOT_IN_MIX = "the line it is anchored to is not in the mix"
ENDS_BEFORE_START = "its until: comes before its start"
STARTS_AFTER_END = "it would start after the end of the mix"


def place_sounds(
    sounds: Sequence[Sound], lines: dict, total: int, length_of: Callable[[str], int]
) -> tuple[list[SoundCue], list[tuple[str, str]], int]:
    """Place `sounds` (paths absolute) on a scene whose lines are `lines` (line id -> where its
    take sits: `start_sample`, `end_sample`, and for cues inside a line `text`, `words` and
    `segments`, a `timeline.Cue`) and which lasts `total` samples.

    A sound starts at its anchor (clamped to 0; a cue inside a line at its word,
    `word_place.word_start_sample`) and ends at its `until` anchor, else at the end
    of its file (`length_of(path)`: samples at 44,100 Hz), else, when it loops, at the end of
    the mix; a sound that does not loop never plays past its file. Anchors read the scene's end
    as `total`; the mix grows to hold every sound that ends after it, and loops without `until`
    run to that new end. Returns (placed cues, (name, why) of each sound left out: NOT_IN_MIX,
    ENDS_BEFORE_START or STARTS_AFTER_END, new total).
    """
    placed, left_out, end_of_scene = [], [], total
    open_loops = []  # indexes in `placed` of loops that run to the end of the mix
    for sound in sounds:
        start = _resolve(sound.start, lines, total)
        stop = _resolve(sound.until, lines, total) if sound.until is not None else None
        if start is None or (sound.until is not None and stop is None):
            left_out.append((sound.name, NOT_IN_MIX))
            continue
        start = max(0, start)
        length = None if sound.loop else _sound_file(length_of, sound.path)
        end = stop if stop is not None else total if sound.loop else start + length
        if length is not None:
            end = min(end, start + length)
        if end <= start:
            left_out.append(
                (
                    sound.name,
                    ENDS_BEFORE_START if stop is not None and stop <= start else STARTS_AFTER_END,
                )
            )
            continue
        if sound.loop and stop is None:
            open_loops.append(len(placed))
        placed.append(
            SoundCue(
                sound.name,
                sound.path,
                sound.kind,
                start,
                end,
                10.0 ** (sound.gain_db / 20.0),
                seconds_to_samples(sound.fade_in_s),
                seconds_to_samples(sound.fade_out_s),
                sound.loop,
                sound.duck,
            )
        )
        end_of_scene = max(end_of_scene, end)
    for index in open_loops:
        placed[index] = replace(placed[index], end_sample=end_of_scene)
    return placed, left_out, end_of_scene


@dataclass(frozen=True)
class SceneSounds:
    """The sounds of one scene inside a mix of several scenes one after another (a book
    chapter), placed on that scene's own clock.

    sounds: the scene's `Sound`s (paths absolute). lines: ids of the scene's lines in the mix.
    head_s / tail_s: the scene's own head and tail padding in seconds: its clock starts head_s
    before its first line (at the start of the mix at the earliest) and its end lies tail_s
    after its last line, where a mix of the scene alone has them.
    """

    sounds: tuple[Sound, ...]
    lines: tuple[str, ...]
    head_s: float
    tail_s: float


def place_scene_sounds(
    scenes: Sequence[SceneSounds], lines: dict, total: int, length_of: Callable[[str], int]
) -> tuple[list[SoundCue], list[tuple[str, str]], int]:
    """Place the sounds of each of `scenes` on a mix whose lines are `lines` (line id -> where
    its take sits, as `place_sounds` takes them) and which lasts `total` samples, each scene's
    as `place_sounds` places them in a mix of that scene alone, moved to where the scene sits.

    A sound that outlasts its scene plays on into what follows it; the mix grows to hold one
    that ends after its end. Returns (placed cues, (name, why) of each sound left out, new
    total), as `place_sounds`; a scene none of whose lines is in the mix leaves its sounds out
    (NOT_IN_MIX).
    """
    placed: list[SoundCue] = []
    left_out: list[tuple[str, str]] = []
    for scene in scenes:
        own = {line: lines[line] for line in scene.lines if line in lines}
        if not own:
            left_out += [(sound.name, NOT_IN_MIX) for sound in scene.sounds]
            continue
        origin = max(
            0, min(cue.start_sample for cue in own.values()) - seconds_to_samples(scene.head_s)
        )
        end = max(cue.end_sample for cue in own.values()) + seconds_to_samples(scene.tail_s)
        local = {
            line: replace(
                cue, start_sample=cue.start_sample - origin, end_sample=cue.end_sample - origin
            )
            for line, cue in own.items()
        }
        cues, missed, scene_end = place_sounds(scene.sounds, local, end - origin, length_of)
        placed += [
            replace(cue, start_sample=cue.start_sample + origin, end_sample=cue.end_sample + origin)
            for cue in cues
        ]
        left_out += missed
        total = max(total, origin + scene_end)
    return placed, left_out, total


def _sound_file(read: Callable, path: str):
    """`read(path)`, its AudioError naming the file as a sound."""
    try:
        return read(path)
    except AudioError as err:
        raise AudioError(
            f"cannot read sound {path} (`drama check` checks the script's sounds): {err}"
        ) from err


def _resolve(anchor: SoundAnchor, lines: dict, total: int) -> int | None:
    if anchor.line is None:
        base = total if anchor.edge == "end" else 0
    elif anchor.line not in lines:
        return None
    elif anchor.word is not None:
        base = word_start_sample(lines[anchor.line], anchor.word)
    else:
        line = lines[anchor.line]
        base = line.end_sample if anchor.edge == "end" else line.start_sample
    return base + seconds_to_samples(anchor.offset_s)


class DuckEnvelope:
    """The gain of ducked beds, sample by sample, keyed by where dialogue is.

    The side-chain key is the voice track's presence: on from `attack_s` before each take
    starts (look-ahead, so the bed is down by the first word) until the take ends, off
    elsewhere. Being keyed by the whole take, not its level, the bed stays down across the
    pauses between words of one line (no pumping) and comes back up between lines.

    The gain g follows a one-pole curve towards its target T: T = 10^(depth_db / 20) while
    the key is on (−12 dB: 0.251, a bed at a quarter of its level), T = 1 while it is off;
    g(n) = T + (g(n0) − T) · exp(−(n − n0) / τ) from the last change n0, with τ = attack
    (50 ms) while g falls and τ = release (400 ms) while it rises. So the bed reaches 95 % of
    its fall within 3 attacks (150 ms) and is back within 1 dB of full level about 0.8 s after
    a line. Computed in closed form per stretch of constant key, in float64; blocks must be
    asked for in order (`gains`), starting from sample 0.
    """

    def __init__(
        self,
        speech: Sequence[tuple[int, int]],
        depth_db: float = DUCK_DB,
        attack_s: float = DUCK_ATTACK_S,
        release_s: float = DUCK_RELEASE_S,
    ):
        if (
            not all(math.isfinite(v) for v in (depth_db, attack_s, release_s))
            or depth_db > 0
            or min(attack_s, release_s) < 0
        ):
            raise UsageError(
                "ducking needs a depth of 0 dB or less and attack and release times of 0 s or more"
            )
        self.floor = 10.0 ** (depth_db / 20.0)
        self.attack = max(attack_s * SAMPLE_RATE, 1e-9)
        self.release = max(release_s * SAMPLE_RATE, 1e-9)
        self.spans = _merged([(max(0, s - seconds_to_samples(attack_s)), e) for s, e in speech])
        self.gain = 1.0
        self.index = 0

    def gains(self, start: int, count: int) -> np.ndarray:
        """float32 `[count]` gains of samples `[start, start + count)`."""
        out = np.empty(count, np.float64)
        done = 0
        while done < count:
            position = start + done
            on, stretch_end = self._key_at(position)
            n = min(count - done, stretch_end - position)
            target = self.floor if on else 1.0
            tau = self.attack if target < self.gain else self.release
            steps = np.arange(1, n + 1, dtype=np.float64)
            out[done : done + n] = target + (self.gain - target) * np.exp(-steps / tau)
            self.gain = float(out[done + n - 1])
            done += n
        return out.astype(np.float32)

    def _key_at(self, position: int) -> tuple[bool, int]:
        """(key on at `position`, first sample where the key may change)."""
        while self.index < len(self.spans) and self.spans[self.index][1] <= position:
            self.index += 1
        if self.index == len(self.spans):
            return False, position + (1 << 62)
        lo, hi = self.spans[self.index]
        return (True, hi) if lo <= position else (False, lo)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        elif hi > lo:
            merged.append((lo, hi))
    return merged


class SoundBus:
    """The placed sounds of one pass over a scene: `parts(start, count)` returns the EFFECTS and
    MUSIC blocks of samples `[start, start + count)` (float32, gains, fades, loops and ducking
    applied). Blocks must be asked for in order. `read` reads a whole file as float32 mono at
    44,100 Hz (`timeline.read_take`), for short sounds (`SoundStream`)."""

    def __init__(
        self, cues: Sequence[SoundCue], duck: DuckEnvelope, read: Callable[[str], np.ndarray]
    ):
        self.cues = sorted(cues, key=lambda cue: cue.start_sample)
        self.duck = duck
        self.read = read
        self.next = 0
        self.active: dict[int, SoundStream] = {}

    def parts(self, start: int, count: int) -> dict[str, np.ndarray]:
        """{EFFECTS: block, MUSIC: block} for `[start, start + count)`."""
        stop = start + count
        blocks = {EFFECTS: np.zeros(count, np.float32), MUSIC: np.zeros(count, np.float32)}
        while self.next < len(self.cues) and self.cues[self.next].start_sample < stop:
            self.active[self.next] = self._load(self.cues[self.next])
            self.next += 1
        ducking = self.duck.gains(start, count) if any(c.duck for c in self.cues) else None
        for index in list(self.active):
            cue = self.cues[index]
            lo, hi = max(start, cue.start_sample), min(stop, cue.end_sample)
            if hi > lo:
                piece = _piece(cue, self.active[index], lo, hi)
                if cue.duck:
                    piece *= ducking[lo - start : hi - start]
                blocks[cue.stem][lo - start : hi - start] += piece
            if cue.end_sample <= stop:
                self.active.pop(index).close()
        return blocks

    def _load(self, cue: SoundCue) -> SoundStream:
        return _sound_file(lambda path: SoundStream(path, self.read), cue.path)


def _piece(cue: SoundCue, audio: SoundStream, lo: int, hi: int) -> np.ndarray:
    """Samples `[lo, hi)` of the scene from `cue`: looped or zero-padded, gain and fades."""
    first, count = lo - cue.start_sample, hi - lo
    piece = np.zeros(count, np.float32)
    done = 0
    while done < count:
        offset = first + done
        if cue.loop:
            offset %= audio.size
        elif offset >= audio.size:
            break
        take = min(count - done, audio.size - offset)
        piece[done : done + take] = audio.read(offset, take)
        done += take
    piece *= np.float32(cue.gain)
    length = cue.end_sample - cue.start_sample
    if cue.fade_in and first < cue.fade_in:
        ramp = min(count, cue.fade_in - first)
        piece[:ramp] *= (np.arange(first, first + ramp) / cue.fade_in).astype(np.float32)
    if cue.fade_out and first + count > length - cue.fade_out:
        begin = max(0, length - cue.fade_out - first)
        offsets = np.arange(first + begin, first + count)
        piece[begin:] *= np.clip((length - offsets) / cue.fade_out, 0.0, 1.0).astype(np.float32)
    return piece


class SpeechToBed:
    """The voices' level against the beds' (MUSIC stem, after ducking) while a take plays:
    10·log10(voice energy / bed energy) over the samples inside the takes' spans, in dB
    (`level_db`; None when there are no bed samples under speech). Feed the blocks in order."""

    def __init__(self, speech: Sequence[tuple[int, int]]):
        self.spans = _merged(list(speech))
        self.voice = self.bed = 0.0
        self.index = 0  # the first span that may still reach the next block

    def feed(self, start: int, voice: np.ndarray, bed: np.ndarray | None) -> None:
        """Add samples `[start, start + len(voice))` of the voice sum and the bed stem."""
        if bed is None:
            return
        stop = start + voice.size
        while self.index < len(self.spans) and self.spans[self.index][1] <= start:
            self.index += 1
        for lo, hi in self.spans[self.index :]:
            if lo >= stop:
                break
            lo, hi = max(lo, start), min(hi, stop)
            if hi > lo:
                self.voice += float(
                    np.sum(np.square(voice[lo - start : hi - start], dtype=np.float64))
                )
                self.bed += float(np.sum(np.square(bed[lo - start : hi - start], dtype=np.float64)))

    @property
    def level_db(self) -> float | None:
        """Speech-to-bed level in dB, rounded to 0.1; None without bed under speech."""
        if self.bed <= 0.0 or self.voice <= 0.0:
            return None
        return round(10.0 * math.log10(self.voice / self.bed), 1)
