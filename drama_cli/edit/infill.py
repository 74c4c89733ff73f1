"""Running an infill: ask a backend for the middle of an edit (with the final-word fall-back
without a suffix), decode it with the take's own audio around it, splice it in; and the word
timings of a take from offline speech recognition when the `asr` extra is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from drama_cli.edit.plan import EditPlan, infill_conversation, split_codes, tagged_text
from drama_cli.edit.splice import (
    FADE_S,
    SILENCE_FLAG_S,
    Generated,
    SpliceResult,
    splice,
)
from drama_cli.edit.word_changes import diff_words
from drama_cli.errors import AsrUnavailableError, InfillRefused
from drama_cli.qc.asr import transcribe
from drama_cli.script.spoken import Word, spoken_words
from engine.clip import AudioClip
from engine.constants import HOP_SAMPLES, NUM_CODEBOOKS, SAMPLE_RATE
from engine.conversation import Conversation


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
    take_codes: np.ndarray | None,
    audio: np.ndarray,
    encode: Callable[[np.ndarray], np.ndarray] | None,
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
    source_path: str | None = None,
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
        prefix = AudioClip(codes=prefix_codes, path=source_path, duration_s=plan.span.start_s)
        suffix = AudioClip(
            codes=suffix_codes,
            path=source_path,
            duration_s=(len(audio) - plan.span.end_sample) / SAMPLE_RATE,
        )
    else:  # a backend that works on audio: only the lengths are known here
        prefix = AudioClip(path=source_path, duration_s=plan.span.start_s)
        suffix = AudioClip(
            path=source_path, duration_s=(len(audio) - plan.span.end_sample) / SAMPLE_RATE
        )
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
        notes.append(
            f"edited middle has a {result.longest_silence_s:.2f} s silence (over {SILENCE_FLAG_S:.1f} s)"
        )
    return EditOutcome(result, conversation, seed, continuation, notes)


def recognise_words(audio: np.ndarray) -> list[Word] | None:
    """Word times of a take (float32 `[samples]` at 44,100 Hz) from speech recognition
    (`drama_cli.qc.transcribe`, faster-whisper with the `asr` extra's bundled model), or None
    when the extra or its model is not installed."""
    try:
        _, words = transcribe(np.asarray(audio, dtype=np.float32), SAMPLE_RATE)
    except (AsrUnavailableError, ImportError):
        return None
    return [Word(w.text.strip(), float(w.start_s), float(w.end_s)) for w in words if w.text.strip()]


def middle_words(plan: EditPlan) -> str | None:
    """The words an engine that speaks text only (scratch) voices for the middle: the plan's
    `middle_text` (the new text's words over the span, or the whole line), else the changed
    words of the new text, or the covered words when the words did not change. None when the
    whole line is voiced again (the engine then hears the line's compiled text)."""
    if plan.whole_line:
        return None
    if plan.middle_text is not None:
        return plan.middle_text
    new = spoken_words(plan.new_text)
    change = diff_words(spoken_words(plan.old_text), new)
    if change is None or change.new_start == change.new_end:
        return " ".join(plan.covered_words)
    return " ".join(new[change.new_start : change.new_end])


class BackendInfill:
    """Runs an infill through a `drama_cli.backends.Backend`: one `generate` call per take.

    Engines with `capabilities.infill` (drama3) get the infill conversation; the middle's
    codes are decoded together with the prefix and suffix codes (`decode`: codes `[10, T]` ->
    float32 samples, e.g. the engine's codec) so the crossfades join two continuations of the
    same audio. Engines without it (scratch) are asked to speak just the middle's words
    (`words`), or the whole compiled line when `words` is None.
    """

    def __init__(
        self,
        backend,
        base_request,
        words: str | None,
        decode: Callable[[np.ndarray], np.ndarray] | None = None,
    ):
        self.backend, self.base, self.words, self.decode = backend, base_request, words, decode
        self.calls = 0
        self.last = None  # the backend's Generation of the latest call

    def infill(self, conversation: Conversation, seed: int) -> Generated:
        """One generation; returns the audio with the middle's position in it."""
        text = conversation.text
        if not self.backend.capabilities.infill and self.words is not None:
            text = tagged_text(conversation.text, self.words)
        request = replace(self.base, conversation=conversation, text=text, seed=seed)
        self.calls += 1
        generation = self.backend.generate(request)
        self.last = generation
        codes = generation.codes
        prefix = conversation.prefix.codes if conversation.prefix is not None else None
        suffix = conversation.suffix.codes if conversation.suffix is not None else None
        if codes is None or self.decode is None or prefix is None:
            return Generated(
                np.asarray(generation.audio, np.float32), 0, len(generation.audio), codes
            )
        suffix = suffix if suffix is not None else np.zeros((NUM_CODEBOOKS, 0), np.int64)
        audio = np.asarray(self.decode(np.concatenate([prefix, codes, suffix], axis=1)), np.float32)
        start = prefix.shape[1] * HOP_SAMPLES
        return Generated(audio, start, min(len(audio), start + codes.shape[1] * HOP_SAMPLES), codes)


def engine_codec(backend) -> tuple[Callable | None, Callable | None]:
    """(encode, decode) of the backend's codec when it has `capabilities.codes`
    (`encode_audio(audio)` -> codes `[10, T]`, `decode_codes(codes)` -> samples), else
    (None, None)."""
    if backend.capabilities.codes:
        return backend.encode_audio, backend.decode_codes
    return None, None
