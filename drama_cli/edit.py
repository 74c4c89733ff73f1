"""Infill editing of a take: find the span to regenerate, build the `infill` conversation, splice.

An edit turns a line's old text into a new text. The words of both are diffed; the changed words'
times (from speech-recognition word timestamps, or given as a span) mark the span to regenerate,
snapped outward to codec frame boundaries (2048 samples, 44,100 / 2048 Hz). The model generates
the middle between the fixed audio after and before the span (`spec/layouts.md`, **infill**);
the new take is the source's samples before the span, the generated middle, and the source's
samples after it, joined with 5-20 ms crossfades, so that audio outside
[start - 20 ms, end + 20 ms] is sample-identical to the source take (case M6).

Audio is float32 mono `[samples]` at 44,100 Hz; codes are `[10, T]` int64.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence

import numpy as np

from drama_cli.errors import RenderError, UsageError
from engine.conversation import (
    FRAMES_PER_SECOND,
    HOP_SAMPLES,
    NUM_CODEBOOKS,
    SAMPLE_RATE,
    AudioClip,
    Conversation,
)

FADE_S = 0.010
MIN_FADE_S = 0.005
MAX_FADE_S = 0.020
GUARD_S = 0.020  # audio further than this outside the span is never touched
SILENCE_FLAG_S = 0.400  # case M6: a longer new pause inside the middle flags the edit
SILENCE_WINDOW_S = 0.010
SILENCE_BELOW_PEAK_DB = 40.0
SILENCE_FLOOR = 1e-4  # about -80 dBFS: absolute floor for "silent" windows
SPAN_TOLERANCE_S = 0.005  # a span end rounded to 10 ms as printed still counts as the take's end
WORD_PAD_S = 0.05  # how far a span may reach into the pause beside a changed word

_TAG = re.compile(r"<\|[^|]*\|>|</?[A-Za-z][^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}")
_WORD_CHARS = re.compile(r"[^\w']+", re.UNICODE)


class InfillRefused(RenderError):
    """Raised by a backend that cannot generate an infill with the given prefix/suffix
    (for example an edit of the final word); the caller may retry without a suffix."""


# --------------------------------------------------------------------------- words


@dataclass(frozen=True)
class Word:
    """A spoken word with its time in the take, in seconds from the take's start."""

    text: str
    start_s: float
    end_s: float


def normalise_word(word: str) -> str:
    """Lower-case a word and strip punctuation around it ("Goodbye," -> "goodbye")."""
    return _WORD_CHARS.sub("", word.lower()).strip("'")


def spoken_words(text: str) -> list[str]:
    """The normalised spoken words of a line: direction tags (`[sighs]`, `<whisper>`,
    `<|speaker:0|>`) removed, split on whitespace, punctuation stripped, empties dropped."""
    words = (normalise_word(w) for w in _TAG.sub(" ", text).split())
    return [w for w in words if w]


@dataclass(frozen=True)
class WordChange:
    """The changed region of an edit as half-open word-index ranges: old words
    `[old_start, old_end)` become new words `[new_start, new_end)`. An insertion has
    `old_start == old_end`; a deletion has `new_start == new_end`."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


def diff_words(old_words: Sequence[str], new_words: Sequence[str]) -> WordChange | None:
    """Diff two normalised word lists (difflib); return the one region enclosing every change,
    or None when the words are the same."""
    matcher = difflib.SequenceMatcher(a=list(old_words), b=list(new_words), autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changes:
        return None
    return WordChange(
        old_start=changes[0][1], old_end=changes[-1][2], new_start=changes[0][3], new_end=changes[-1][4]
    )


def estimate_timings(words: Sequence[str], duration_s: float) -> list[Word]:
    """Rough word times when no speech recognition is available: the take's duration shared
    out by word length (one extra character per word for the gap). Only for display and for
    placing `--at` insertions in the text; spans come from `--at`/`--span` then."""
    weights = [len(w) + 1 for w in words]
    total = float(sum(weights)) or 1.0
    timings, t = [], 0.0
    for word, weight in zip(words, weights):
        step = duration_s * weight / total
        timings.append(Word(word, t, t + step))
        t += step
    return timings


def align_timings(words: Sequence[str], timed: Sequence[Word]) -> list[Word | None]:
    """Map each script word to a recognised word with times (difflib over normalised words);
    words the recogniser heard differently get None."""
    heard = [normalise_word(w.text) for w in timed]
    aligned: list[Word | None] = [None] * len(words)
    matcher = difflib.SequenceMatcher(a=list(words), b=heard, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            aligned[block.a + k] = timed[block.b + k]
    return aligned


def span_for_change(
    change: WordChange, old_words: Sequence[str], timed: Sequence[Word], duration_s: float
) -> tuple[float, float]:
    """The time span (seconds) covering the changed old words, widened to word boundaries.

    The span starts at the end of the last unchanged word before the change (reaching at most
    `WORD_PAD_S` into the pause before the first changed word) and ends at the start of the
    first unchanged word after it (likewise). Script words the recogniser did not hear widen
    the span to the nearest heard neighbour. An insertion gives the pause between two words.
    """
    aligned = align_timings(old_words, timed)
    before = next((w for w in reversed(aligned[: change.old_start]) if w), None)
    after = next((w for w in aligned[change.old_end :] if w), None)
    changed = [w for w in aligned[change.old_start : change.old_end] if w]
    left_edge = before.end_s if before else 0.0
    right_edge = after.start_s if after else duration_s
    if changed and changed[0] is aligned[change.old_start]:
        start = max(left_edge, changed[0].start_s - WORD_PAD_S)
    else:
        start = left_edge
    if changed and changed[-1] is aligned[change.old_end - 1]:
        end = min(right_edge, changed[-1].end_s + WORD_PAD_S)
    else:
        end = right_edge
    if end < start:  # overlapping recogniser times: keep the span non-empty and ordered
        start, end = min(start, end), max(start, end)
    return max(0.0, start), min(duration_s, end)


def words_in_span(timed: Sequence[Word], start_s: float, end_s: float) -> list[str]:
    """The recognised (or estimated) words that overlap the span by more than half their length."""
    covered = []
    for w in timed:
        overlap = min(end_s, w.end_s) - max(start_s, w.start_s)
        if overlap > 0.5 * max(w.end_s - w.start_s, 1e-9):
            covered.append(w.text)
    return covered


# --------------------------------------------------------------------------- text operations


def _phrase_pattern(phrase: str) -> re.Pattern:
    words = [re.escape(w) for w in phrase.split()]
    if not words:
        raise UsageError("empty word or phrase")
    return re.compile(r"(?<![\w'])" + r"[\s,;:.!?\u2014-]+".join(words) + r"(?![\w'])", re.IGNORECASE)


def replace_words(text: str, old: str, new: str, line_id: str = "") -> str:
    """The line text with the first occurrence of the phrase `old` (case-insensitive, whole
    words) replaced by `new`. Raises UsageError when `old` is not in the text."""
    match = _phrase_pattern(old).search(text)
    if match is None:
        raise UsageError(f"{old!r} is not in line {line_id or '?'}: {text!r}")
    return text[: match.start()] + new.strip() + text[match.end() :]


def insert_after(text: str, anchor: str, words: str, line_id: str = "") -> str:
    """The line text with `words` inserted after the first occurrence of the word (or phrase)
    `anchor`. Raises UsageError when `anchor` is not in the text."""
    match = _phrase_pattern(anchor).search(text)
    if match is None:
        raise UsageError(f"{anchor!r} is not in line {line_id or '?'}: {text!r}")
    return text[: match.end()] + " " + words.strip() + text[match.end() :]


def insert_at_word_index(text: str, index: int, words: str) -> str:
    """The line text with `words` inserted before spoken word number `index` (0-based); an
    index past the last word appends after it, before the line's closing punctuation.
    Direction tags stay where they are."""
    tokens = [m for m in re.finditer(r"\S+", text) if normalise_word(_TAG.sub("", m.group()))]
    if not tokens:
        return (text.rstrip() + " " + words.strip()).strip()
    if index < len(tokens):
        start = tokens[index].start()
        return text[:start] + words.strip() + " " + text[start:]
    last = tokens[-1]
    cut = last.start() + len(last.group().rstrip(".!?,;:\u2026"))
    return text[:cut] + " " + words.strip() + text[cut:]


def word_index_at(timed: Sequence[Word], at_s: float) -> int:
    """The index of the word boundary nearest to `at_s` seconds: 0 before the first word,
    len(timed) after the last."""
    boundaries = [timed[0].start_s] + [
        0.5 * (a.end_s + b.start_s) for a, b in zip(timed[:-1], timed[1:])
    ] + [timed[-1].end_s] if timed else [0.0]
    return int(np.argmin([abs(b - at_s) for b in boundaries]))


# --------------------------------------------------------------------------- spans


@dataclass(frozen=True)
class FrameSpan:
    """The span to regenerate, snapped outward to codec frames.

    start_frame / end_frame: half-open frame range; start_sample / end_sample: the same in
    samples (end clipped to the take's length, so a span reaching the end ends at the last
    sample). requested_s: the (start, end) seconds asked for before snapping.
    """

    start_frame: int
    end_frame: int
    start_sample: int
    end_sample: int
    requested_s: tuple[float, float]

    @property
    def start_s(self) -> float:
        """Start of the snapped span in seconds."""
        return self.start_sample / SAMPLE_RATE

    @property
    def end_s(self) -> float:
        """End of the snapped span in seconds."""
        return self.end_sample / SAMPLE_RATE


def parse_span(value: str, frames: bool = False) -> tuple[float, float]:
    """Parse `START:END` into seconds; with `frames`, the numbers are codec frames
    (44,100 / 2048 per second). Raises UsageError on a malformed value or START > END."""
    parts = value.split(":")
    try:
        start, end = (float(p) for p in parts) if len(parts) == 2 else (None, None)
    except ValueError:
        start = end = None
    if start is None or not (math.isfinite(start) and math.isfinite(end)):
        raise UsageError(f"bad span {value!r}: expected START:END, e.g. 1.20:2.00")
    if frames:
        start, end = start / FRAMES_PER_SECOND, end / FRAMES_PER_SECOND
    if start > end:
        raise UsageError(f"bad span {value!r}: start is after end")
    return start, end


def snap_span(start_s: float, end_s: float, take_samples: int) -> FrameSpan:
    """Validate a span against a take of `take_samples` samples and snap it outward to frame
    boundaries (start down, end up; end clipped to the take's end).

    An end equal to the take's duration is valid (case M6), and so is an insertion point
    (start = end) at the very end: it regenerates the last frame. Raises UsageError when
    start > end, start < 0, or the span reaches beyond the take (5 ms of tolerance, so a
    duration rounded to two decimals as printed is accepted and clipped to the end).
    """
    duration_s = take_samples / SAMPLE_RATE
    tolerance = SPAN_TOLERANCE_S
    if start_s > end_s:
        raise UsageError(f"bad span {start_s:.3f}:{end_s:.3f}: start is after end")
    if start_s < -tolerance:
        raise UsageError(f"bad span {start_s:.3f}:{end_s:.3f}: starts before the take")
    at_the_end = start_s == end_s  # an insertion point may be the take's very end
    if end_s > duration_s + tolerance or (start_s >= duration_s and not at_the_end):
        raise UsageError(
            f"bad span {start_s:.3f}:{end_s:.3f}: beyond the take ({duration_s:.3f} s long)"
        )
    eps = 1e-6
    take_frames = math.ceil(take_samples / HOP_SAMPLES)
    start_frame = max(0, min(math.floor(start_s * FRAMES_PER_SECOND + eps), take_frames - 1))
    end_frame = min(take_frames, math.ceil(end_s * FRAMES_PER_SECOND - eps))
    end_frame = max(end_frame, start_frame)
    return FrameSpan(
        start_frame=start_frame,
        end_frame=end_frame,
        start_sample=start_frame * HOP_SAMPLES,
        end_sample=min(end_frame * HOP_SAMPLES, take_samples),
        requested_s=(max(0.0, start_s), min(duration_s, end_s)),
    )


# --------------------------------------------------------------------------- plan


@dataclass(frozen=True)
class EditPlan:
    """What an edit will do, decided before anything is generated.

    old_text / new_text: the line's text before and after. span: the frames to regenerate.
    covered_words: the take's words inside the span (recognised or estimated). timings_source:
    `asr`, `estimate` or `span` (given by the user).
    """

    old_text: str
    new_text: str
    span: FrameSpan
    covered_words: tuple[str, ...]
    timings_source: str


def plan_edit(
    old_text: str,
    new_text: str,
    take_samples: int,
    timed: Sequence[Word] | None = None,
    span_s: tuple[float, float] | None = None,
) -> EditPlan:
    """Decide the span of an edit: the given `span_s` if any, else the diff of the old and
    new words placed with the recognised word times `timed`.

    Raises UsageError when the texts have the same words and no span is given, when neither
    word times nor a span are available (the message names `--at`/`--span` and the `asr`
    extra), or when the span is invalid for the take (see `snap_span`).
    """
    duration_s = take_samples / SAMPLE_RATE
    old_words = spoken_words(old_text)
    if span_s is None:
        change = diff_words(old_words, spoken_words(new_text))
        if change is None:
            raise UsageError("the new text has the same words as the take; give --span to re-voice a part")
        if timed is None:
            raise UsageError(
                "word times need speech recognition (pip install 'drama[asr]'); "
                "without it give --at T or --span START:END"
            )
        span_s = span_for_change(change, old_words, timed, duration_s)
        source = "asr"
    else:
        source = "span"
    span = snap_span(span_s[0], span_s[1], take_samples)
    shown = timed if timed is not None else estimate_timings(old_words, duration_s)
    if source == "span" and timed is None:
        source = "span+estimate"
    covered = words_in_span(shown, span.start_s, span.end_s)
    return EditPlan(old_text, new_text, span, tuple(covered), source)


# --------------------------------------------------------------------------- conversation


def split_codes(codes: np.ndarray, span: FrameSpan) -> tuple[np.ndarray, np.ndarray]:
    """The prefix `[10, start_frame]` and suffix `[10, T - end_frame]` codes around a span,
    from a take's codes `[10, T]` int64. Raises UsageError if the codes are not `[10, T]`."""
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[0] != NUM_CODEBOOKS:
        raise UsageError(f"take codes have shape {codes.shape}; expected [{NUM_CODEBOOKS}, T]")
    return codes[:, : span.start_frame].astype(np.int64), codes[:, span.end_frame :].astype(np.int64)


def infill_conversation(
    base: Conversation, new_text_tagged: str, prefix: AudioClip, suffix: AudioClip | None
) -> Conversation:
    """The `infill` Conversation: the line's references from `base` (its clone/history
    conversation), the full new speaker-tagged transcript as the user turn, and the audio
    before (`prefix`) and after (`suffix`) the span, as codes `[10, T]` int64 when known.
    `suffix=None` asks for a continuation (no audio after the span)."""
    meta = dict(base.meta)
    meta["edit_of_layout"] = base.layout
    return Conversation(
        layout="infill",
        references=base.references,
        text=new_text_tagged,
        prefix=prefix,
        suffix=suffix,
        meta=meta,
    )


def tagged_text(base_text: str, new_text: str) -> str:
    """Carry the speaker tag (`<|speaker:k|>`) of a compiled line over to a new line text."""
    tag = re.match(r"\s*(<\|speaker:\d+\|>)\s*", base_text)
    return f"{tag.group(1)} {new_text.strip()}" if tag else new_text.strip()


# --------------------------------------------------------------------------- splice


@dataclass(frozen=True)
class Generated:
    """What a backend produced for an infill: `audio` float32 `[samples]` in which
    `[middle_start, middle_end)` is the new middle. Samples before/after the middle, when
    present, are the decoder's continuation of the prefix/suffix (decoded with the same codes
    as context) and are used only inside the crossfades."""

    audio: np.ndarray
    middle_start: int
    middle_end: int
    codes: np.ndarray | None = None  # the middle's codes [10, M] when known


@dataclass(frozen=True)
class SpliceResult:
    """A spliced take: `audio` float32 `[samples]`; the new middle at
    `[middle_start, middle_end)` of it; the crossfade lengths in samples (0 where there is no
    join: the span touches the take's start or end); the longest silent run inside the middle
    (seconds) and whether it flags the edit (> 400 ms and longer than the source span's own)."""

    audio: np.ndarray
    middle_start: int
    middle_end: int
    head_fade: int
    tail_fade: int
    longest_silence_s: float
    flagged: bool


def _linear(n: int) -> tuple[np.ndarray, np.ndarray]:
    ramp = (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)
    return 1.0 - ramp, ramp


def _equal_power(n: int) -> tuple[np.ndarray, np.ndarray]:
    ramp = (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)
    return np.cos(0.5 * np.pi * ramp), np.sin(0.5 * np.pi * ramp)


def _fade(out_from: np.ndarray, in_to: np.ndarray, curve: Callable) -> np.ndarray:
    down, up = curve(len(out_from))
    return (out_from * down + in_to * up).astype(np.float32)


def splice(source: np.ndarray, span: FrameSpan, generated: Generated, fade_s: float = FADE_S) -> SpliceResult:
    """Join the source take's samples before the span, the generated middle and the source's
    samples after the span.

    Each join is a crossfade of `fade_s` (clamped to 5-20 ms). Where the backend decoded the
    middle with the prefix/suffix as context (samples around the middle in `generated`), the
    fade runs just outside the span between two continuations of the same audio (linear);
    otherwise it runs just inside the span between the source and the middle (equal power,
    the two are unrelated). Either way audio outside [start - 20 ms, end + 20 ms] is
    sample-identical to the source (positions after the span shift by the change in length).
    Raises RenderError on an empty middle or a middle range outside `generated.audio`.
    """
    fade = int(round(min(max(fade_s, MIN_FADE_S), MAX_FADE_S) * SAMPLE_RATE))
    src = np.asarray(source, dtype=np.float32)
    gen = np.asarray(generated.audio, dtype=np.float32)
    ms, me = generated.middle_start, generated.middle_end
    if not 0 <= ms < me <= len(gen):
        raise RenderError(f"infill produced no usable middle ({ms}:{me} of {len(gen)} samples)")
    a, b = span.start_sample, span.end_sample
    middle = gen[ms:me].copy()
    head_fade = tail_fade = 0
    head = src[:a]
    if a > 0:
        if ms >= fade and a >= fade:  # fade before the span, into the decoder's continuation
            head_fade = fade
            head = np.concatenate([src[: a - fade], _fade(src[a - fade : a], gen[ms - fade : ms], _linear)])
        else:  # fade inside the span from the old audio into the middle
            head_fade = min(fade, b - a, len(middle) // 2)
            middle[:head_fade] = _fade(src[a : a + head_fade], middle[:head_fade], _equal_power)
    tail = src[b:]
    if b < len(src):
        if len(gen) - me >= fade and len(src) - b >= fade:
            tail_fade = fade
            tail = np.concatenate([_fade(gen[me : me + fade], src[b : b + fade], _linear), src[b + fade :]])
        else:
            tail_fade = min(fade, b - a - head_fade, len(middle) - head_fade)
            tail_fade = max(tail_fade, 0)
            if tail_fade:
                middle[-tail_fade:] = _fade(middle[-tail_fade:], src[b - tail_fade : b], _equal_power)
    audio = np.concatenate([head, middle, tail]).astype(np.float32)
    longest = longest_silence_s(middle, src)
    flagged = longest > SILENCE_FLAG_S and longest > longest_silence_s(src[a:b], src) + 0.05
    return SpliceResult(audio, len(head), len(head) + len(middle), head_fade, tail_fade, longest, flagged)


def longest_silence_s(audio: np.ndarray, reference: np.ndarray | None = None) -> float:
    """The longest run of silent 10 ms windows in `audio`, in seconds. A window is silent when
    its RMS is more than 40 dB below the loudest window of `reference` (default: `audio`)
    or below about -80 dBFS."""
    win = int(SILENCE_WINDOW_S * SAMPLE_RATE)
    ref = audio if reference is None else reference

    def window_rms(x: np.ndarray) -> np.ndarray:
        n = len(x) // win
        if n == 0:
            return np.zeros(0)
        frames = np.asarray(x[: n * win], dtype=np.float64).reshape(n, win)
        return np.sqrt(np.mean(frames**2, axis=1))

    ref_rms = window_rms(ref)
    peak = float(ref_rms.max()) if len(ref_rms) else 0.0
    threshold = max(SILENCE_FLOOR, peak * 10 ** (-SILENCE_BELOW_PEAK_DB / 20))
    silent = window_rms(audio) < threshold
    best = run = 0
    for flag in silent:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best * win / SAMPLE_RATE


# --------------------------------------------------------------------------- run


class InfillBackend(Protocol):
    """What an edit needs from a backend: one generation of an `infill` Conversation."""

    def infill(self, conversation: Conversation, seed: int) -> Generated:
        """Generate the middle for `conversation`; raise InfillRefused if it cannot."""
        ...


@dataclass
class EditOutcome:
    """The result of one edited take: the splice, the conversation that produced it, and
    whether the final-word fallback (continuation without a suffix) was used."""

    splice: SpliceResult
    conversation: Conversation
    seed: int
    continuation: bool = False
    notes: list[str] = field(default_factory=list)
    generation: object = None  # the backend's Generation, when run through a Backend


def source_codes(
    take_codes: np.ndarray | None, audio: np.ndarray, encode: Callable[[np.ndarray], np.ndarray] | None
) -> np.ndarray | None:
    """The codes `[10, T]` of a source take: the stored ones (drama3 takes keep them exactly),
    else the codec's encoding of its audio, else None (a backend that works on audio only)."""
    if take_codes is not None:
        return np.asarray(take_codes, dtype=np.int64)
    if encode is not None:
        return np.asarray(encode(np.asarray(audio, dtype=np.float32)), dtype=np.int64)
    return None


def run_infill(
    backend: InfillBackend,
    base: Conversation,
    plan: EditPlan,
    audio: np.ndarray,
    codes: np.ndarray | None,
    seed: int,
    fade_s: float = FADE_S,
    text: str | None = None,
) -> EditOutcome:
    """Generate one edited take: build the infill conversation from `base` (the line's compiled
    conversation), the new model text (`text`, default: `base`'s speaker tag + the plan's new
    text) and the source take (`audio` float32 `[samples]`, its `codes` `[10, T]` or None),
    make exactly one backend call (two when a span that reaches the take's end is refused and
    retried as a continuation), and splice.

    Raises RenderError (InfillRefused) when the backend refuses an edit that does not reach
    the end, or produces no middle.
    """
    text = text or tagged_text(base.text, plan.new_text)
    if codes is not None:
        prefix_codes, suffix_codes = split_codes(codes, plan.span)
        prefix, suffix = AudioClip(codes=prefix_codes), AudioClip(codes=suffix_codes)
    else:  # a backend that works on audio: only the lengths are known here
        prefix = AudioClip(duration_s=plan.span.start_s)
        suffix = AudioClip(duration_s=(len(audio) - plan.span.end_sample) / SAMPLE_RATE)
    conversation = infill_conversation(base, text, prefix, suffix)
    span_meta = {"span_frames": [plan.span.start_frame, plan.span.end_frame]}
    conversation = replace(conversation, meta={**conversation.meta, **span_meta})
    at_end = plan.span.end_sample >= len(audio)
    continuation = False
    try:
        generated = backend.infill(conversation, seed)
    except InfillRefused:
        if not at_end:
            raise
        conversation = replace(conversation, suffix=None)
        generated = backend.infill(conversation, seed)
        continuation = True
    result = splice(audio, plan.span, generated, fade_s)
    notes = []
    if result.flagged:
        notes.append(f"edited middle has a {result.longest_silence_s:.2f} s silence (over {SILENCE_FLAG_S:.1f} s)")
    return EditOutcome(result, conversation, seed, continuation, notes)


# --------------------------------------------------------------------------- backends and ASR


def recognise_words(audio: np.ndarray) -> list[Word] | None:
    """Word times of a take (float32 `[samples]` at 44,100 Hz) from speech recognition
    (`drama_cli.qc.transcribe`, faster-whisper with the `asr` extra's bundled model), or None
    when the extra or its model is not installed."""
    try:
        from drama_cli.qc import AsrUnavailableError, transcribe
    except ImportError:
        return None
    try:
        _, words = transcribe(np.asarray(audio, dtype=np.float32), SAMPLE_RATE)
    except (AsrUnavailableError, ImportError):
        return None
    return [Word(w.text.strip(), float(w.start_s), float(w.end_s)) for w in words if w.text.strip()]


def middle_words(plan: EditPlan) -> str:
    """The new words an edit voices: the changed words of the new text (for engines that
    speak text only, such as scratch), or the covered words when the words did not change."""
    new = spoken_words(plan.new_text)
    change = diff_words(spoken_words(plan.old_text), new)
    if change is None or change.new_start == change.new_end:
        return " ".join(plan.covered_words)
    return " ".join(new[change.new_start : change.new_end])


class BackendInfill:
    """Runs an infill through a `drama_cli.backends.Backend`: one `generate` call per take.

    Engines with codes (drama3) get the infill conversation; the middle's codes are decoded
    together with the prefix and suffix codes (`decode`: codes `[10, T]` -> float32 samples,
    e.g. the engine's codec) so the crossfades join two continuations of the same audio.
    Text-only engines (scratch) are asked to speak just the new middle words.
    """

    def __init__(self, backend, base_request, words: str, decode: Callable[[np.ndarray], np.ndarray] | None = None):
        self.backend, self.base, self.words, self.decode = backend, base_request, words, decode
        self.calls = 0
        self.last = None  # the backend's Generation of the latest call

    def infill(self, conversation: Conversation, seed: int) -> Generated:
        """One generation; returns the audio with the middle's position in it."""
        text = conversation.text
        if getattr(self.backend, "scratch", False):
            text = tagged_text(conversation.text, self.words or "")
        request = replace(self.base, conversation=conversation, text=text, seed=seed)
        self.calls += 1
        generation = self.backend.generate(request)
        self.last = generation
        codes = generation.codes
        prefix = conversation.prefix.codes if conversation.prefix is not None else None
        suffix = conversation.suffix.codes if conversation.suffix is not None else None
        if codes is None or self.decode is None or prefix is None:
            return Generated(np.asarray(generation.audio, np.float32), 0, len(generation.audio), codes)
        suffix = suffix if suffix is not None else np.zeros((NUM_CODEBOOKS, 0), np.int64)
        audio = np.asarray(self.decode(np.concatenate([prefix, codes, suffix], axis=1)), np.float32)
        start = prefix.shape[1] * HOP_SAMPLES
        return Generated(audio, start, min(len(audio), start + codes.shape[1] * HOP_SAMPLES), codes)


def engine_codec(backend) -> tuple[Callable | None, Callable | None]:
    """(encode, decode) of the backend's codec when it exposes one (`encode(audio)` ->
    codes `[10, T]`, `decode(codes)` -> samples), else (None, None)."""
    encode = getattr(backend, "encode_audio", None)
    decode = getattr(backend, "decode_codes", None)
    if encode is not None and decode is not None:
        return encode, decode
    try:
        codec = getattr(backend, "codec", None)
    except Exception:  # a model folder without codec.pth: audio-only edits
        codec = None
    return encode or getattr(codec, "encode", None), decode or getattr(codec, "decode", None)


# --------------------------------------------------------------------------- in a project


@dataclass(frozen=True)
class EditForm:
    """The edit asked for on the command line: exactly one of `insert` (with `at_s` or
    `after`), `replace_old`/`replace_new`, or `text` (with an optional `span`, seconds or
    frames with `frames`)."""

    insert: str | None = None
    at_s: float | None = None
    after: str | None = None
    replace_old: str | None = None
    replace_new: str | None = None
    text: str | None = None
    span: str | None = None
    frames: bool = False

    def validate(self) -> None:
        """Raise UsageError unless exactly one form is given with its required options."""
        forms = [self.insert is not None, self.replace_old is not None, self.text is not None]
        if sum(forms) != 1:
            raise UsageError("give exactly one of --insert, --replace or --text")
        if self.insert is not None and (self.at_s is None) == (self.after is None):
            raise UsageError("--insert needs exactly one of --at T or --after WORD")
        if self.replace_old is not None and self.replace_new is None:
            raise UsageError("--replace needs --with NEW")
        if self.at_s is not None and self.span is not None:
            raise UsageError("--at and --span cannot be combined")
        if self.insert is None and (self.at_s is not None or self.after is not None):
            raise UsageError("--at and --after go with --insert")
        for value, name in ((self.insert, "--insert"), (self.replace_new, "--with"), (self.text, "--text")):
            if value is not None and not value.strip() and name != "--with":
                raise UsageError(f"{name} needs words")


def new_text_and_span(form: EditForm, old_text: str, line_id: str, take_samples: int,
                      timed: Sequence[Word] | None) -> tuple[str, tuple[float, float] | None]:
    """The line's new text and the span given directly (`--at`, `--span`), if any.
    Raises UsageError for a word `--after`/`--replace` cannot find or a malformed span."""
    duration_s = take_samples / SAMPLE_RATE
    span = parse_span(form.span, form.frames) if form.span is not None else None
    if form.insert is not None and form.after is not None:
        return insert_after(old_text, form.after, form.insert, line_id), span
    if form.insert is not None:
        shown = timed if timed is not None else estimate_timings(spoken_words(old_text), duration_s)
        snap_span(form.at_s, form.at_s, take_samples)  # validates --at against the take
        return insert_at_word_index(old_text, word_index_at(shown, form.at_s), form.insert), (form.at_s, form.at_s)
    if form.replace_old is not None:
        return replace_words(old_text, form.replace_old, form.replace_new, line_id), span
    return form.text.strip(), span


def spoken_text_of(take, line_text: str) -> str:
    """The text a take speaks: an edited take's new text, else the line's text."""
    return (take.record.get("edit") or {}).get("new_text") or line_text


def plan_in_project(script, store, backend, line_id: str, form: EditForm, from_take: int | None = None,
                    recognise: Callable[[np.ndarray], list[Word] | None] | None = None):
    """Everything decided before generating: (planned line, source take, its audio, the plan).
    Speech recognition runs only when the span must come from word times. Raises UsageError
    for an unknown line, a line without takes, or a bad edit (see `plan_edit`)."""
    from drama_cli.revise import plan_line, start_take

    form.validate()
    planned = plan_line(script, store, backend, line_id)
    source = start_take(store, planned.scene.id, line_id, from_take)
    audio = source.audio()
    old_text = spoken_text_of(source, planned.line.text)
    needs_times = form.span is None and form.at_s is None
    recognise = recognise or recognise_words
    timed = recognise(audio) if needs_times or form.insert is not None else None
    new_text, span_s = new_text_and_span(form, old_text, line_id, len(audio), timed)
    plan = plan_edit(old_text, new_text, len(audio), timed, span_s)
    return planned, source, audio, plan


def compile_line_text(line, new_text: str, speaker_names: dict, base_text: str) -> str:
    """The model text of the line with `new_text` (direction grammar, notes, speaker tags as the
    compiler writes them); falls back to the base text's speaker tag plus the plain text."""
    try:
        from drama_cli.script.direction import parse_directions, render_spans

        index_of = {name: k for k, name in speaker_names.items()}
        speaker = index_of.get(line.speaker)
        if speaker is None:
            raise KeyError(line.speaker)
        return render_spans(parse_directions(new_text), speaker, index_of.__getitem__, line.notes)
    except (ImportError, KeyError):
        return tagged_text(base_text, new_text)


def edit_record(source, plan: EditPlan, outcome: EditOutcome, request, backend, key: str) -> dict:
    """The record of an edited take: the render record's fields plus its parent take, the line
    text it speaks, and the edit (span requested and snapped, covered words, crossfades,
    silence flag, whether the final-word fallback ran)."""
    from drama_cli.render_line import outcome_fields
    from drama_cli.revise import prompt_hash
    from engine.checks import check_take

    generation = outcome.generation
    splice_ = outcome.splice
    stop = generation.stop_reason if generation is not None else "eos"
    checks = check_take(splice_.audio, SAMPLE_RATE, request.text, stop)  # the whole new take
    return {
        "speaker": request.speaker,
        "text": outcome.conversation.text,
        "seed": outcome.seed,
        "slot": None,
        "attempt": 0,
        "layout": "infill",
        "layout_version": request.layout_version,
        "sampling": dict(request.sampling),
        "note": source.record.get("note"),
        "notes": source.record.get("notes"),
        "parent_take": source.number,
        "prompt_hash": prompt_hash(outcome.conversation),
        "edit": {
            "old_text": plan.old_text,
            "new_text": plan.new_text,
            "requested_s": [round(v, 6) for v in plan.span.requested_s],
            "span_s": [round(plan.span.start_s, 6), round(plan.span.end_s, 6)],
            "span_frames": [plan.span.start_frame, plan.span.end_frame],
            "covered_words": list(plan.covered_words),
            "timings": plan.timings_source,
            "middle_samples": [splice_.middle_start, splice_.middle_end],
            "middle_s": [round(splice_.middle_start / SAMPLE_RATE, 6), round(splice_.middle_end / SAMPLE_RATE, 6)],
            "head_fade_samples": splice_.head_fade,
            "tail_fade_samples": splice_.tail_fade,
            "longest_silence_s": round(splice_.longest_silence_s, 3),
            "flagged": splice_.flagged,
            "continuation": outcome.continuation,
        },
        **outcome_fields(checks, stop, backend),
        "status": "degraded" if splice_.flagged and checks.severity == "ok" else checks.severity,
        "needs_review": bool(splice_.flagged or not checks.passed),
        "cache_key": key,
    }


def plan_summary(planned, source, plan: EditPlan) -> dict:
    """JSON-ready description of a planned edit (printed before generating)."""
    return {
        "scene": planned.scene.id,
        "line": planned.line.id,
        "source_take": source.number,
        "old_text": plan.old_text,
        "new_text": plan.new_text,
        "span_s": [round(plan.span.start_s, 3), round(plan.span.end_s, 3)],
        "requested_s": [round(v, 3) for v in plan.span.requested_s],
        "span_frames": [plan.span.start_frame, plan.span.end_frame],
        "covered_words": list(plan.covered_words),
        "timings": plan.timings_source,
    }


def edit_in_project(script, store, backend, planned, source, audio, plan: EditPlan, takes: int = 1,
                    seed: int | None = None, select: bool = False, update_script: bool = False) -> dict:
    """Generate `takes` edited takes of a planned edit (one backend call each; two when a
    final-word edit is refused and retried as a continuation), store them with their parent
    take and edit record, optionally rewrite the script's line text (`update_script`, atomic,
    with a backup) and select the first new take and mix its scene again (`select`).
    Returns a JSON-ready summary. Raises UsageError for takes < 1, RenderError from the backend."""
    from drama_cli.revise import free_render_slot, plan_line, remix_scene
    from drama_cli.script.load import load_script
    from engine.prompt import layout_version

    if takes < 1:
        raise UsageError("--takes must be at least 1")
    encode, decode = engine_codec(backend)
    codes = source_codes(source.codes(), audio, encode if not getattr(backend, "scratch", False) else None)
    base = planned.request.conversation
    model_text = compile_line_text(planned.line, plan.new_text, planned.request.speaker_names, base.text)
    base = replace(base, text=model_text)
    request = replace(planned.request, text=model_text, layout_version=layout_version("infill"))
    runner = BackendInfill(backend, request, middle_words(plan), decode)
    first_seed = seed if seed is not None else int(source.record.get("seed", 0)) + 1
    outcomes = []
    for k in range(takes):
        outcome = run_infill(runner, base, plan, audio, codes, first_seed + k, text=model_text)
        outcome.generation = runner.last
        outcomes.append(outcome)
    backup = None
    key = planned.cache_key
    with store.lock():
        if update_script:
            backup = update_script_text(script, planned.line, plan.old_text, plan.new_text)
            key = plan_line(load_script(script.source), store, backend, planned.line.id).cache_key
        made = []
        for outcome in outcomes:
            record = edit_record(source, plan, outcome, request, backend, key)
            record["slot"] = free_render_slot(store, planned.scene.id, planned.line.id, key)
            new_codes = None
            middle = getattr(outcome.generation, "codes", None)
            if codes is not None and middle is not None:
                prefix, suffix = split_codes(codes, plan.span)
                new_codes = np.concatenate([prefix, np.asarray(middle, np.int64), suffix], axis=1)
            made.append(store.add_take(planned.scene.id, planned.line.id, outcome.splice.audio, record, new_codes))
        if select:
            store.select(planned.scene.id, planned.line.id, made[0], by="user")
            mix = remix_scene(store, planned.scene)
        else:
            mix = None
    return {
        **plan_summary(planned, source, plan),
        "takes": [{"take": t.number, "seed": t.record["seed"], "duration_s": t.duration_s,
                   "flagged": t.record["edit"]["flagged"], "file": str(t.wav_path)} for t in made],
        "backend_calls": runner.calls,
        "selected": made[0].number if select else None,
        "script_backup": str(backup) if backup else None,
        "mix": mix,
        "notes": [n for o in outcomes for n in o.notes],
    }


def update_script_text(script, line, old_text: str, new_text: str):
    """Rewrite the line's text in the script file: a backup copy `<file>.<UTC time>.bak`
    first, then the new file written beside it and renamed into place (atomic).

    YAML: the value of the line's `text:` key (written double-quoted). Fountain: the first
    occurrence of the old text after the line's cue. Returns the backup path. Raises
    UsageError when the script was read from stdin or the text cannot be found.
    """
    import datetime as dt
    import json
    import os
    import shutil
    from pathlib import Path

    path = Path(script.source)
    if not path.is_file():
        raise UsageError("--update-script needs a script file (not stdin)")
    source = path.read_text(encoding="utf-8")
    start_line = (line.position.line - 1) if line.position else 0
    lines = source.splitlines(keepends=True)
    offset = sum(len(x) for x in lines[:start_line])
    if script.format == "yaml":
        pattern = re.compile(r"^(\s*(?:-\s+)?text:[ \t]*)(.*?)([ \t]*)$", re.MULTILINE)
        match = pattern.search(source, offset)
        if match is None or old_text.split()[0].strip("\"'") not in match.group(2):
            raise UsageError(f"cannot find the text of line {line.id} in {path}; edit it by hand")
        updated = source[: match.start(2)] + json.dumps(new_text, ensure_ascii=False) + source[match.end(2) :]
    else:
        at = source.find(old_text, offset)
        if at < 0:
            raise UsageError(f"cannot find the text of line {line.id} in {path}; edit it by hand")
        updated = source[:at] + new_text + source[at + len(old_text) :]
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
    backup = path.with_name(f"{path.name}.{stamp}.bak")
    shutil.copy2(path, backup)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(updated, encoding="utf-8")
    os.replace(tmp, path)
    return backup
