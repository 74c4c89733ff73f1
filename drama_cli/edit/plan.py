"""The plan of an edit: the span to regenerate snapped outward to codec frames (2048 samples,
44,100 / 2048 Hz), the words it covers, and the `infill` conversation that generates the middle
between the source's fixed codes before and after it (`docs/internals/layouts.md`, **infill**). Pure.

Codes are `[10, T]` int64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from drama_cli.edit.word_changes import (
    diff_words,
    estimate_timings,
    span_for_change,
    whole_word_region,
    words_in_span,
)
from drama_cli.errors import UsageError
from drama_cli.mix.span import SampleSpan
from drama_cli.qc.asr import INSTALL_COMMAND
from drama_cli.script.spoken import Word, spoken_words
from engine.clip import AudioClip
from engine.constants import FRAMES_PER_SECOND, HOP_SAMPLES, NUM_CODEBOOKS, SAMPLE_RATE
from engine.conversation import Conversation
from engine.layouts import split_leading_tag

SPAN_TOLERANCE_S = 0.005  # a span end rounded to 10 ms as printed still counts as the take's end


@dataclass(frozen=True)
class FrameSpan(SampleSpan):
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


def parse_span(value: str, frames: bool = False) -> tuple[float, float]:
    """Parse `START:END` into seconds; with `frames`, the numbers are codec frames
    (44,100 / 2048 per second). Raises UsageError on a malformed value, START >= END (an empty
    span regenerates nothing) or START < 0."""
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
    if start == end:
        raise UsageError(
            f"bad span {value!r}: it is empty; give START < END (to add words at one "
            f"point, use --insert WORDS --at T)"
        )
    if start < 0:
        raise UsageError(f"bad span {value!r}: starts before the take (times count from 0)")
    return start, end


def snap_span(start_s: float, end_s: float, take_samples: int, exact: bool = False) -> FrameSpan:
    """Validate a span against a take of `take_samples` samples and snap it outward to frame
    boundaries (start down, end up; end clipped to the take's end). With `exact` (an engine
    without codes, whose edits need no frame grid) the samples are the span's own, so a span
    set on word boundaries cuts no neighbouring word; the frames still enclose it.

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
    start_sample, end_sample = start_frame * HOP_SAMPLES, min(end_frame * HOP_SAMPLES, take_samples)
    if exact:
        start_sample = max(0, min(round(start_s * SAMPLE_RATE), take_samples))
        end_sample = max(start_sample, min(round(end_s * SAMPLE_RATE), take_samples))
    return FrameSpan(
        start_frame=start_frame,
        end_frame=end_frame,
        start_sample=start_sample,
        end_sample=end_sample,
        requested_s=(max(0.0, start_s), min(duration_s, end_s)),
    )


@dataclass(frozen=True)
class EditPlan:
    """What an edit will do, decided before anything is generated.

    old_text / new_text: the line's text before and after. span: the frames to regenerate.
    covered_words: the take's words inside the span (recognised or estimated). timings_source:
    `asr`, `estimate` or `span` (given by the user). middle_text: what an engine that voices
    the middle from words alone says there (the new text's words over the span), None when
    the model hears the whole new text. whole_line: such an engine voices the whole line again,
    because without word times the edit could not be made faithfully.
    """

    old_text: str
    new_text: str
    span: FrameSpan
    covered_words: tuple[str, ...]
    timings_source: str
    middle_text: str | None = None
    whole_line: bool = False


def plan_edit(
    old_text: str,
    new_text: str,
    take_samples: int,
    timed: Sequence[Word] | None = None,
    span_s: tuple[float, float] | None = None,
    words_only: bool = False,
) -> EditPlan:
    """Decide the span of an edit: the given `span_s` if any, else the diff of the old and
    new words placed with the recognised word times `timed`. With word times the span snaps
    outward to whole words (`whole_word_region`), so no word is cut.

    words_only: the engine voices the middle from its words alone (scratch), not from the
    whole new text. Its middle then says the new text's words over the snapped span, at least
    one word; without word times it cannot be placed faithfully, and the plan re-voices the
    whole line (`whole_line`).
    Raises UsageError when the texts have the same words and no span is given, when neither
    word times nor a span are available (the message names `--at`/`--span` and the `asr`
    extra), or when the span is invalid for the take (see `snap_span`).
    """
    duration_s = take_samples / SAMPLE_RATE
    old_words = spoken_words(old_text)
    if span_s is None:
        change = diff_words(old_words, spoken_words(new_text))
        if change is None:
            raise UsageError(
                "the new text has the same words as the take; give --span to re-voice a part"
            )
        if timed is None:
            raise UsageError(
                f"word times need speech recognition ({INSTALL_COMMAND}); "
                "without it give --at T or --span START:END"
            )
        span_s = span_for_change(change, old_words, timed, duration_s)
        source = "asr"
    else:
        source = "span"
    snap_span(span_s[0], span_s[1], take_samples)  # validates the span as given
    region = (
        whole_word_region(old_text, new_text, timed, span_s, duration_s, words_only)
        if timed
        else None
    )
    middle, whole_line = None, False
    if region is not None:
        span_s = (region.start_s, region.end_s)
        middle = " ".join(region.new_words) if words_only else None
    elif words_only:
        span_s, middle, whole_line = (0.0, duration_s), new_text, True
    span = snap_span(span_s[0], span_s[1], take_samples, exact=words_only)
    shown = timed if timed else estimate_timings(old_words, duration_s)
    if source == "span" and not timed:
        source = "span+estimate"
    covered = words_in_span(shown, span.start_s, span.end_s)
    return EditPlan(old_text, new_text, span, tuple(covered), source, middle, whole_line)


def split_codes(codes: np.ndarray, span: FrameSpan) -> tuple[np.ndarray, np.ndarray]:
    """The prefix `[10, start_frame]` and suffix `[10, T - end_frame]` codes around a span,
    from a take's codes `[10, T]` int64. Raises UsageError if the codes are not `[10, T]`."""
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[0] != NUM_CODEBOOKS:
        raise UsageError(f"take codes have shape {codes.shape}; expected [{NUM_CODEBOOKS}, T]")
    return codes[:, : span.start_frame].astype(np.int64), codes[:, span.end_frame :].astype(
        np.int64
    )


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
    tag, _ = split_leading_tag(base_text)
    return f"{tag} {new_text.strip()}" if tag else new_text.strip()
