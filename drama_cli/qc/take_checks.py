"""Judging a take: why its generation stopped (the stop-reason vocabulary of take records), the
signal checks on every generation (backends return facts only), the speech-recognition check,
the record fields that say how a take came out, and the failed checks a record holds.

Stop reasons (`STOP_REASONS`, the `stop_reason` of a take record):
- `eos`: the model ended the speech;
- `length`: the frame budget ended the take before end of speech (the engine says
  `max_frames`; the drama3 backend translates, `drama_cli.backends.drama3.ENGINE_STOP_REASONS`);
- `separator`: a `scene` mode line that ended at the separator before the next line.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from drama_cli.qc.signal import DEGRADED, CheckReport, CheckResult, check_take
from engine.constants import SAMPLE_RATE
from engine.text import spoken_text

EOS = "eos"
LENGTH = "length"
SEPARATOR = "separator"
STOP_REASONS = (EOS, LENGTH, SEPARATOR)


def check_audio(audio: np.ndarray, text: str, stop_reason: str | None) -> CheckReport:
    """The signal checks (`drama_cli.qc.signal.check_take`) on a take's float32 mono audio at
    44,100 Hz, against the text it speaks (tags allowed) and its stop reason."""
    return check_take(audio, SAMPLE_RATE, text, stop_reason)


def check_generation(generation, text: str) -> CheckReport:
    """The signal checks on what a backend generated for `text` (a `Generation`: its audio
    and stop reason)."""
    return check_audio(generation.audio, text, generation.stop_reason)


def outcome_fields(checks: CheckReport, stop_reason: str, backend) -> dict:
    """The record fields every take shares (rendered, revised or edited) about how it came out
    and what made it: checks, status, needs_review, stop reason, engine, model revision,
    engine identity, scratch, whether the Drama 3 model voiced it (`drama3_model`, from the
    backend's capabilities). backend: the `Backend` that voiced it."""
    identity = backend.identity()
    return {
        "checks": checks.to_dict(),
        "status": checks.severity,
        "needs_review": not checks.passed,
        "stop_reason": stop_reason,
        "engine": identity.get("engine", backend.name),
        "model_revision": identity.get("revision"),
        "engine_identity": identity,
        "scratch": bool(backend.scratch),
        "drama3_model": bool(backend.capabilities.drama3_model),
    }


def failed_checks(record) -> list[str]:
    """`name: message` of every failed check in a take record (`takes.take_record.TakeRecord`;
    the splice's long-silence flag of an edit included)."""
    results = record.checks.results
    failed = [f"{r.get('name')}: {r.get('message')}" for r in results if not r.get("passed", True)]
    if record.edit is not None and record.edit.flagged:
        failed.append("splice: long silence in the edit")
    return failed


def asr_take_check(
    model_path: str | None = None,
    threshold: float | None = None,
    said: Callable[[str], str] | None = None,
):
    """The speech-recognition check (`drama_cli.qc.asr.asr_check`) as an extra take check for
    a render: a callable `(text, audio, speaker) -> (CheckResult, record fields)` giving the WER of the
    take's transcript (through `said`, the compiler's number rules) against the line's spoken
    text (tags removed). A WER over `threshold` (default 0.25), or a run of
    `LOCAL_RUN_WORDS` diverging words, is a `degraded` failure whose message says where, so the
    take is retried like a failed signal check and `drama takes` shows it; the record gets
    `asr` = {wer, transcript, threshold, divergence, model, words}. Raises
    AsrUnavailableError (a UsageError) at once when the `asr` extra or its model is missing.
    """
    from drama_cli.qc import (
        asr as qc,  # lazy: soxr, 0.13 s at start-up (drama --help loads this module)
    )

    folder = qc.require_asr(model_path)
    limit = qc.DEFAULT_THRESHOLD if threshold is None else threshold

    def check(text: str, audio: np.ndarray, speaker: str | None = None):
        found = qc.asr_check(audio, spoken_text(text), limit, folder, said=said)
        run = found["divergence"]
        message = (
            ""
            if found["passed"]
            else (
                f"WER {found['wer']:.2f} over {limit:.2f}: heard {found['transcript']!r}"
                if found["wer"] > limit
                else f"{run['words']} words in a row differ: the line says {run['expected']!r}, "
                f"the take {run['heard']!r}"
            )
        )
        result = CheckResult(
            "asr",
            bool(found["passed"]),
            float(found["wer"]),
            float(limit),
            "wer",
            DEGRADED,
            message,
        )
        return result, {"asr": found}

    return check
