"""Rendering one line: what an attempt voices (its chunks), joining the chunks, the signal
checks (once per generation) and the extra checks, storing every attempt as a take, and choosing
the line's take.

A line has `takes` slots; a slot runs up to `1 + retries` attempts with new seeds until one
passes the signal checks. Every attempt is stored as soon as it exists (failed ones flagged), so
an interrupted render resumes where it stopped. The work queue that runs the attempts, many at
once, is `drama_cli.render.batch`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from drama_cli.backends.base import Backend, Generation, GenerationRequest
from drama_cli.qc.signal import CheckReport
from drama_cli.qc.take_checks import EOS, check_generation, outcome_fields
from drama_cli.takes.jobs import LineJob, RenderSettings
from drama_cli.takes.keys import ReferenceHasher, conversation_identity, stable_hash
from drama_cli.takes.selection import best_take, take_text
from drama_cli.takes.store import Take, TakeStore
from engine.constants import SAMPLE_RATE
from engine.conversation import Conversation
from engine.text import spoken_text

CHUNK_GAP_S = 0.12  # silence between the chunks of one long line


def job_request(
    job: LineJob,
    conversation: Conversation,
    text: str,
    sampling: dict,
    seed: int,
    layout_version: str | None = None,
) -> GenerationRequest:
    """The backend request that voices `text` of `job`'s line with `conversation` and `seed`;
    `layout_version` defaults to the job's own."""
    return GenerationRequest(
        scene_id=job.scene_id,
        line_id=job.line_id,
        speaker=job.speaker,
        text=text,
        conversation=conversation,
        layout_version=job.layout_version if layout_version is None else layout_version,
        sampling=dict(sampling),
        seed=seed,
        speaker_names=dict(job.speaker_names),
    )


@dataclass
class LineOutcome:
    """What happened to one line: `rendered`, `reused`, `degraded` or `failed`, and the numbers
    of the takes this render stored for it (`new_takes`, in number order)."""

    scene_id: str
    line_id: str
    speaker: str
    text: str
    status: str
    take: int | None = None
    duration_s: float = 0.0
    calls: int = 0
    message: str = ""
    new_takes: list[int] = field(default_factory=list)


class Progress:
    """Receives progress events; the CLI subclasses it with rich bars. Does nothing here."""

    def start(self, total_lines: int) -> None:
        """A render of `total_lines` lines begins."""

    def line(self, job: LineJob) -> None:
        """Work on `job` begins."""

    def attempt(self, job: LineJob, slot: int, attempt: int, seed: int) -> None:
        """A backend attempt starts."""

    def frames(self, job: LineJob, frames: int, budget: int) -> None:
        """A backend that streams (drama3) has generated `frames` of at most `budget`."""

    def chunk(self, job: LineJob, number: int, chunks: int, finished: bool) -> None:
        """Chunk `number` (1-based) of the `chunks` of a line cut into several
        (`drama_cli.compile.chunking`) starts (`finished` False) or has its audio (True)."""

    def streams(self, active: int, size: int) -> None:
        """`active` streams of a batch of `size` are being voiced."""

    def done(self, outcome: LineOutcome) -> None:
        """A line finished (rendered, reused, degraded or failed)."""

    def finish(self) -> None:
        """The render ended (also after an error)."""


def line_pieces(job: LineJob, backend: Backend) -> list[tuple]:
    """What one attempt at `job` voices, in order: (conversation, text) per chunk. A cue-only
    line compiled to nothing is voiced by scratch from its tagged text (a placeholder); for
    other engines it has no pieces (an empty take, whose checks fail)."""
    pieces = [(chunk, chunk.text or job.text) for chunk in job.chunks]
    if not pieces and backend.scratch:
        pieces = [(None, job.text)]
    return pieces


def join_and_check(
    parts: list[Generation], pieces: list[tuple], job: LineJob
) -> tuple[Generation, CheckReport]:
    """Join the generations of an attempt's chunks (`line_pieces`) into one take and run the
    signal checks on it once: (the take, its checks).

    Chunks with codes are joined frame to frame (audio and codes concatenated, so they stay
    aligned); chunks without codes with 0.12 s of silence between them. A line of one chunk
    is checked against the text sent, a joined take against the whole line's text; a chunk
    that hit its frame budget makes the take's stop reason `length`.
    """
    if len(parts) == 1:
        return parts[0], check_generation(parts[0], pieces[0][1])
    joined = join_chunks(parts)
    return joined, check_generation(joined, job.text)


def join_chunks(parts: list[Generation]) -> Generation:
    """One Generation from the chunks of a line, in order (see `generate_line`); its info
    holds `chunk_spans_s`, each chunk's [start, end] in seconds of the take. No chunks give an
    empty take (whose checks fail: `silence`), never an error."""
    if not parts:
        return Generation(np.zeros(0, np.float32), None, EOS, {"chunks": 0})
    codes = None
    if all(p.codes is not None for p in parts):
        # Audio and codes must stay frame-aligned for revisions and edits: no gap.
        codes = np.concatenate([p.codes for p in parts], axis=1)
        audio = np.concatenate([p.audio for p in parts]).astype(np.float32)
    else:
        gap = np.zeros(int(CHUNK_GAP_S * SAMPLE_RATE), np.float32)
        audio = np.concatenate([p for part in parts for p in (part.audio, gap)][:-1])
    stops = {p.stop_reason for p in parts}
    stop = next((s for s in stops if s != EOS), EOS)
    spans, start = [], 0
    for part in parts:
        spans.append(
            [round(start / SAMPLE_RATE, 6), round((start + part.audio.size) / SAMPLE_RATE, 6)]
        )
        start += part.audio.size + (0 if codes is not None else int(CHUNK_GAP_S * SAMPLE_RATE))
    info = {**parts[0].info, "chunks": len(parts), "chunk_spans_s": spans}
    return Generation(audio, codes, stop, info)


def take_record(
    job: LineJob,
    generation: Generation,
    checks: CheckReport,
    key: str,
    settings: RenderSettings,
    backend: Backend,
    slot: int,
    attempt: int,
    seed: int,
) -> dict:
    """The JSON record of a take (docs/internals/architecture.md: the model text, whether it says numbers
    as words, the words shown in labels and subtitles, seed, layout and version, sampling
    params, prompt hash, note, parent take, checks, duration, engine and model revision, cache
    key, scratch)."""
    hasher = ReferenceHasher()
    return {
        "speaker": job.speaker,
        "text": job.text,
        "display_text": job.display_text,
        "normalize": job.normalize,
        "chunks": chunk_record(job, generation),
        "seed": seed,
        "slot": slot,
        "attempt": attempt,
        "mode": settings.mode,
        "layout": job.chunks[0].layout if job.chunks else None,
        "layout_version": job.layout_version,
        "sampling": settings.sampling,
        "prompt_hash": stable_hash([conversation_identity(c, hasher) for c in job.chunks]),
        "note": job.note,
        "parent_take": None,
        "cache_key": key,
        "backend_info": generation.info,
        **outcome_fields(checks, generation.stop_reason, backend),
    }


def chunk_record(job: LineJob, generation: Generation) -> list[dict]:
    """The chunks of a take made of several: each chunk's spoken words and its start and end
    in seconds of the take (they time the subtitles); [] for a take of one chunk."""
    spans = generation.info.get("chunk_spans_s") or []
    if len(job.chunks) < 2 or len(spans) != len(job.chunks):
        return []
    return [
        {"text": spoken_text(chunk.text or job.text), "start_s": a, "end_s": b}
        for chunk, (a, b) in zip(job.chunks, spans)
    ]


def apply_extra_checks(
    generation: Generation, job: LineJob, report: CheckReport, checks: list
) -> tuple[CheckReport, dict]:
    """Run extra checks (`RenderSettings.checks`) on a generation, each given the line's text,
    the audio and the line's speaker: (`report` with their results added, their record fields,
    e.g. `{"asr": {"wer": .., ...}}`)."""
    fields: dict = {}
    for check in checks:
        result, record = check(job.text, generation.audio, job.speaker)
        report = CheckReport([*report.results, result])
        fields.update(record)
    return report, fields


def take_passed(take: Take) -> bool:
    """True when the take's stored check report passed (takes recorded without checks pass)."""
    return take.record.checks.passed


def slot_done(attempts: list[Take], retries: int) -> bool:
    """True when a take slot needs no more attempts: one passed, or all `1 + retries` were made."""
    return any(take_passed(t) for t in attempts) or len(attempts) >= retries + 1


def store_attempt(
    job: LineJob,
    generation: Generation,
    checks: CheckReport,
    key: str,
    store: TakeStore,
    backend: Backend,
    settings: RenderSettings,
    slot: int,
    attempt: int,
    seed: int,
) -> Take:
    """Run the extra checks (e.g. ASR) on a generation whose signal `checks` ran, and store it
    as the slot's next take.

    The record holds the seed, slot, attempt number, cache key and every check result; the
    write is atomic (see `TakeStore.add_take`)."""
    checks, extra = apply_extra_checks(generation, job, checks, settings.checks)
    record = take_record(job, generation, checks, key, settings, backend, slot, attempt, seed)
    record.update(extra)
    return store.add_take(job.scene_id, job.line_id, generation.audio, record, generation.codes)


def choose_take(store: TakeStore, job: LineJob, key: str) -> tuple[Take | None, str, str]:
    """The take to use for a line, its status (`ok`, `degraded` or `failed`) and why.

    Keeps an earlier selection when that take is still valid and has the current cache key:
    an automatic one while it is usable, one made by hand (`drama takes --select`) always (an
    unusable take chosen by hand counts as degraded). Else `best_take` among the takes with the
    current key: of those that pass every check, the best voice match; else the first degraded
    one; unusable takes are never chosen automatically. Takes count in slot and attempt order,
    not number order (a batch stores them as they finish), so the choice does not depend on
    the batch size.
    """
    selected = store.selected_take(job.scene_id, job.line_id)
    if selected is not None and selected.cache_key == key:
        entry = store.selections(job.scene_id).get(job.line_id, {})
        by_hand = entry.get("by") == "user"
        if by_hand or selected.status != "unusable":
            reason = "chosen by hand" if by_hand else entry.get("reason", "selected before")
            return selected, "ok" if selected.status == "ok" else "degraded", reason
    candidates = sorted(store.takes(job.scene_id, job.line_id, key), key=lambda t: t.render_order)
    return best_take(candidates)


def conclude_line(
    job: LineJob,
    key: str,
    store: TakeStore,
    calls: int,
    refused: str | None = None,
    fresh: bool | None = None,
    new_takes: list[int] | None = None,
    failures: list[str] | None = None,
) -> LineOutcome:
    """Choose a line's take after rendering, record the selection and build its outcome
    (`rendered` when new takes were made (`fresh`, default: `calls` > 0), `reused`,
    `degraded` or `failed`; `new_takes`: the numbers of the takes this render stored for the
    line; `failures`: the reasons of its tries that failed on the way, which a line left
    without a take reports); a failed line loses its stale selection so that old audio never
    stays in the mix."""
    fresh = calls > 0 if fresh is None else fresh
    take, status, reason = choose_take(store, job, key)
    outcome = LineOutcome(
        job.scene_id,
        job.line_id,
        job.speaker,
        job.display_text or job.text,
        status,
        calls=calls,
        new_takes=sorted(new_takes or []),
    )
    if take is None:
        last = store.takes(job.scene_id, job.line_id, key)
        reason = (
            CheckReport.from_results(last[-1].record.checks.results).summary()
            if last
            else "no take"
        )
        if refused:
            outcome.message = f"engine refused the line: {refused}"
        elif failures and not last:
            tries = f"{len(failures)} tr{'y' if len(failures) == 1 else 'ies'}"
            outcome.message = f"no take: {tries} failed, the last: {failures[-1]}"
        else:
            outcome.message = f"no usable take: {reason}"
        lines = store.selections(job.scene_id)
        if lines.pop(job.line_id, None) is not None:  # a stale take must not stay in the mix
            store.write_selections(job.scene_id, lines)
    else:
        current = store.selections(job.scene_id).get(job.line_id, {})
        if current.get("take") != take.number or current.get("cache_key") != key:
            store.select(job.scene_id, job.line_id, take, by="auto", reason=reason)
        outcome.take, outcome.duration_s = take.number, take.duration_s
        outcome.text = take_text(take) or outcome.text  # a take chosen by hand may say other words
        if status == "ok":
            outcome.status = "rendered" if fresh else "reused"
        else:
            outcome.message = CheckReport.from_results(take.record.checks.results).summary()
    return outcome
