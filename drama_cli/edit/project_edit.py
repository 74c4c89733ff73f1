"""Infill editing of a take: find the span to regenerate, build the `infill` conversation, splice.

An edit turns a line's old text into a new text. The words of both are diffed; the changed words'
times (from speech-recognition word timestamps, or given as a span) mark the span to regenerate,
snapped outward to codec frame boundaries (2048 samples, 44,100 / 2048 Hz). The model generates
the middle between the fixed audio after and before the span (`docs/internals/layouts.md`, **infill**);
the new take is the source's samples before the span, the generated middle, and the source's
samples after it, joined with 5-20 ms crossfades, so that audio outside
[start - 20 ms, end + 20 ms] is sample-identical to the source take (case M6).

Audio is float32 mono `[samples]` at 44,100 Hz; codes are `[10, T]` int64.

This module runs an edit in a project (take store, script, mix); the pure parts live in
`words` (words, diffs, timings, text operations), `plan` (spans, plan, infill
conversation), `splice` (crossfaded splice, silence check) and `infill` (running the backend),
all in `drama_cli.edit`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from drama_cli.compile.normalise import sent_token_errors, spoken_line
from drama_cli.edit.infill import (
    BackendInfill,
    EditOutcome,
    engine_codec,
    middle_words,
    recognise_words,
    run_infill,
    source_codes,
)
from drama_cli.edit.plan import (
    EditPlan,
    parse_span,
    plan_edit,
    snap_span,
    split_codes,
    tagged_text,
)
from drama_cli.edit.revise import (
    free_render_slot,
    new_take_seeds,
    plan_line,
    prompt_hash,
    refuse_stale,
    remix_scene,
    start_take,
)
from drama_cli.edit.script_update import update_script_text, updated_script_text
from drama_cli.edit.word_changes import (
    estimate_timings,
    insert_after,
    insert_at_word_index,
    replace_in_span,
    replace_words,
    word_index_at,
)
from drama_cli.errors import ScriptError, UsageError
from drama_cli.qc.asr import INSTALL_COMMAND
from drama_cli.qc.take_checks import EOS, check_audio, failed_checks, outcome_fields
from drama_cli.script.direction import parse_directions, render_spans
from drama_cli.script.load import load_script
from drama_cli.script.spoken import Word, spoken_words
from drama_cli.takes.store import check_new_takes
from engine.constants import SAMPLE_RATE
from engine.layouts import get_layout

WHOLE_LINE_NOTE = (
    "this engine voices an edit from its words alone and the take has no word times "
    f"(speech recognition: {INSTALL_COMMAND}), so the whole line was voiced "
    "again with the new text"
)


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
        for value, name in (
            (self.insert, "--insert"),
            (self.replace_new, "--with"),
            (self.text, "--text"),
        ):
            if value is not None and not value.strip() and name != "--with":
                raise UsageError(f"{name} needs words")
        if self.at_s is not None and not math.isfinite(self.at_s):
            raise UsageError(f"--at must be a finite number of seconds, not {self.at_s!r}")


def new_text_and_span(
    form: EditForm, old_text: str, line_id: str, take_samples: int, timed: Sequence[Word] | None
) -> tuple[str, tuple[float, float] | None]:
    """The line's new text and the span given directly (`--at`, `--span`), if any.
    Raises UsageError for a word `--after`/`--replace` cannot find or a malformed span."""
    duration_s = take_samples / SAMPLE_RATE
    span = parse_span(form.span, form.frames) if form.span is not None else None
    if form.insert is not None and form.after is not None:
        return insert_after(old_text, form.after, form.insert, line_id), span
    if form.insert is not None:
        shown = timed if timed is not None else estimate_timings(spoken_words(old_text), duration_s)
        snap_span(form.at_s, form.at_s, take_samples)  # validates --at against the take
        return insert_at_word_index(old_text, word_index_at(shown, form.at_s), form.insert), (
            form.at_s,
            form.at_s,
        )
    if form.replace_old is not None and span is not None:
        return replace_in_span(
            old_text, form.replace_old, form.replace_new, span, timed, line_id
        ), span
    if form.replace_old is not None:
        return replace_words(old_text, form.replace_old, form.replace_new, line_id), span
    return form.text.strip(), span


def spoken_text_of(take, line_text: str) -> str:
    """The text a take speaks: an edited take's new text, else the line's text."""
    return (take.record.edit.new_text if take.record.edit else None) or line_text


def plan_in_project(
    script,
    store,
    backend,
    line_id: str,
    form: EditForm,
    from_take: int | None = None,
    recognise: Callable[[np.ndarray], list[Word] | None] | None = None,
    keep: bool = False,
):
    """Everything decided before generating: (planned line, source take, its audio, the plan).
    Speech recognition (when installed) gives the take's word times: they place the span of a
    changed word, snap any span outward to whole words, and tell which occurrence of a
    `--replace` phrase that occurs more than once lies inside `--span`. An engine that voices
    the middle from words alone (scratch) re-voices the whole line without them.
    Raises UsageError for an unknown line, a line without takes, a take made for older words
    unless `keep` (`refuse_stale`), or a bad edit (see `plan_edit`, `replace_in_span`,
    `compile_line_text`)."""
    form.validate()
    planned = plan_line(script, store, backend, line_id)
    source = start_take(store, planned.scene.id, line_id, from_take)
    refuse_stale(script, store, planned.scene.id, planned.line, source, keep)
    audio = source.audio()
    old_text = spoken_text_of(source, planned.line.text)
    if form.replace_old is not None and form.span is None:
        replace_words(
            old_text, form.replace_old, form.replace_new, line_id
        )  # refuse before listening
    recognise = recognise or recognise_words
    timed = recognise(
        audio
    )  # word times place the edit on whole words (None without the asr extra)
    new_text, span_s = new_text_and_span(form, old_text, line_id, len(audio), timed)
    compile_line_text(
        script, planned.line, new_text, planned.request.speaker_names, planned.request.text
    )
    plan = plan_edit(
        old_text, new_text, len(audio), timed, span_s, words_only=not backend.capabilities.infill
    )
    return planned, source, audio, plan


def compile_line_text(script, line, new_text: str, speaker_names: dict, base_text: str) -> str:
    """The model text of the line with `new_text`, made as a render makes a line's (direction
    grammar, lexicon, number rules, markup clean-up, notes, speaker tags); falls back to the
    base text's speaker tag plus the plain text when the line's speaker has no index.
    Raises UsageError for new words the direction grammar refuses or that would send a model
    token."""
    index_of = {name: k for k, name in speaker_names.items()}
    if line.speaker not in index_of:
        return tagged_text(base_text, new_text)
    try:
        edited = replace(line, text=new_text, spans=parse_directions(new_text))
        spoken = spoken_line(script, edited)
        errors = sent_token_errors(script, edited, spoken)
        if errors:
            raise errors[0]
    except ScriptError as err:
        raise UsageError(f"the edited text {new_text!r}: {err.message}") from None
    try:
        return render_spans(
            spoken.spans, index_of[line.speaker], index_of.__getitem__, line.notes, line.speaker
        )
    except KeyError:
        return tagged_text(base_text, new_text)


def edit_record(source, plan: EditPlan, outcome: EditOutcome, request, backend, key: str) -> dict:
    """The record of an edited take: the render record's fields plus its parent take, the line
    text it speaks, and the edit (span requested and snapped, covered words, crossfades,
    silence flag, whether the final-word fallback ran)."""
    generation = outcome.generation
    splice_ = outcome.splice
    stop = generation.stop_reason if generation is not None else EOS
    checks = check_audio(splice_.audio, request.text, stop)  # the whole new take, checked once
    return {
        "speaker": request.speaker,
        "text": outcome.conversation.text,
        "seed": outcome.seed,
        "slot": None,
        "attempt": 0,
        "layout": "infill",
        "layout_version": request.layout_version,
        "sampling": dict(request.sampling),
        "note": source.record.note,
        "notes": source.record.notes,
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
            "middle_text": plan.middle_text,
            "whole_line": plan.whole_line,
            "middle_samples": [splice_.middle_start, splice_.middle_end],
            "middle_s": [
                round(splice_.middle_start / SAMPLE_RATE, 6),
                round(splice_.middle_end / SAMPLE_RATE, 6),
            ],
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
        "middle_text": plan.middle_text,
        "whole_line": plan.whole_line,
    }


def edit_in_project(
    script,
    store,
    backend,
    planned,
    source,
    audio,
    plan: EditPlan,
    takes: int = 1,
    seed: int | None = None,
    select: bool = False,
    update_script: bool = False,
) -> dict:
    """Generate `takes` edited takes of a planned edit (one backend call each; two when a
    final-word edit is refused and retried as a continuation), store them with their parent
    take and edit record, optionally rewrite the script's line text (`update_script`, atomic,
    with a backup) and select the first new take and mix its scene again (`select`).
    Returns a JSON-ready summary. Raises UsageError for takes outside 1..100, RenderError from the backend."""
    check_new_takes(takes)
    new_script = (
        updated_script_text(script, planned.line, plan.old_text, plan.new_text)
        if update_script
        else None
    )
    encode, decode = engine_codec(backend)
    codes = source_codes(source.codes(), audio, encode)
    base = planned.request.conversation
    model_text = compile_line_text(
        script, planned.line, plan.new_text, planned.request.speaker_names, base.text
    )
    base = replace(base, text=model_text)
    request = replace(planned.request, text=model_text, layout_version=get_layout("infill").version)
    runner = BackendInfill(backend, request, middle_words(plan), decode)
    # a backend that infills audio without a codec (Fish's API) is sent the take's own file
    audio_infill = backend.capabilities.infill and not backend.capabilities.codes
    audio_infill_path = str(source.wav_path) if audio_infill else None
    seeds = new_take_seeds(store, planned.scene.id, planned.line.id, source, takes, seed)
    outcomes = []
    for k in range(takes):
        outcome = run_infill(
            runner,
            base,
            plan,
            audio,
            codes,
            seeds[k],
            text=model_text,
            source_path=audio_infill_path,
        )
        outcome.generation = runner.last
        outcomes.append(outcome)
    backup = None
    key = planned.cache_key
    with store.lock():
        if update_script:
            backup = update_script_text(
                script, planned.line, plan.old_text, plan.new_text, new_script
            )
            key = plan_line(load_script(script.source), store, backend, planned.line.id).cache_key
        made = []
        for outcome in outcomes:
            record = edit_record(source, plan, outcome, request, backend, key)
            record["slot"] = free_render_slot(store, planned.scene.id, planned.line.id, key)
            new_codes = None
            middle = outcome.generation.codes if outcome.generation is not None else None
            if codes is not None and middle is not None:
                prefix, suffix = split_codes(codes, plan.span)
                new_codes = np.concatenate([prefix, np.asarray(middle, np.int64), suffix], axis=1)
            made.append(
                store.add_take(
                    planned.scene.id, planned.line.id, outcome.splice.audio, record, new_codes
                )
            )
        if select:
            store.select(planned.scene.id, planned.line.id, made[0], by="user")
            mix = remix_scene(store, planned.scene, script=script)
        else:
            mix = None
    return {
        **plan_summary(planned, source, plan),
        "takes": [
            {
                "take": t.number,
                "seed": t.record.seed,
                "duration_s": t.duration_s,
                "flagged": t.record.edit.flagged,
                "file": str(t.wav_path),
                "status": t.record.status or "ok",
                "failures": failed_checks(t.record),
            }
            for t in made
        ],
        "backend_calls": runner.calls,
        "selected": made[0].number if select else None,
        "script_backup": str(backup) if backup else None,
        "mix": mix,
        "notes": ([WHOLE_LINE_NOTE] if plan.whole_line else [])
        + [n for o in outcomes for n in o.notes],
    }
