"""`drama qc`: the checks run again on the takes a project already holds, without rendering.

Each line's selected take (what a listener hears) is measured by the checks asked for:
`signal` (`drama_cli.qc.signal`), `words` (speech recognition, `drama_cli.qc.asr`), `voice`
(`drama_cli.qc.voice`) and `quality` (`drama_cli.qc.quality`). A measurement is cached in
`<project>/qc-cache.json` under the SHA-256 of what decides it (the check, the take's WAV hash,
and the line's words or the reference clips' hashes), never of a threshold, so a second run is
instant and a new `--min-similarity` needs no new measurement. Measurements run in a pool of
worker processes, one CPU core each.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.errors import UsageError
from drama_cli.qc.limits import DEFAULT_MIN_SIMILARITY
from drama_cli.qc.signal import CheckReport
from drama_cli.qc.take_checks import check_audio
from drama_cli.qc.voice import voice_result
from drama_cli.takes.store import Take, TakeStore
from engine.files import file_sha256, write_bytes_atomic
from engine.text import spoken_text

CHECKS = ("signal", "words", "voice", "quality")
CACHE_NAME = "qc-cache.json"
CACHE_VERSION = 2


@dataclass(frozen=True)
class QcLimits:
    """The thresholds a run holds measurements against: lowest voice similarity (0..1),
    lowest naturalness (DNSMOS overall, None: shown only), highest word error rate."""

    min_similarity: float = DEFAULT_MIN_SIMILARITY
    min_quality: float | None = None
    max_wer: float = 0.25


@dataclass
class LineQc:
    """One line's selected take and what the checks found. `take` is None for a line without
    a usable take. `measured` holds each check's raw measurement (`signal`: the check report
    as stored; `words`: wer, transcript, divergence; `voice`: similarity; `quality`: DNSMOS
    scores); `failures`: `check: why` for each failed check; `severity`: `unusable`,
    `review` or `ok`."""

    scene_id: str
    line_id: str
    speaker: str
    text: str
    take: int | None = None
    wav: str | None = None
    references: list[str] = field(default_factory=list)
    measured: dict[str, dict] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    severity: str = "ok"

    @property
    def similarity(self) -> float | None:
        """The voice similarity measured, or None."""
        return (self.measured.get("voice") or {}).get("similarity")

    @property
    def mos(self) -> float | None:
        """The DNSMOS overall score measured, or None."""
        return (self.measured.get("quality") or {}).get("ovrl")

    @property
    def wer(self) -> float | None:
        """The word error rate measured, or None."""
        return (self.measured.get("words") or {}).get("wer")

    def to_dict(self) -> dict:
        """JSON-ready form (the report's rows and `drama qc --json`)."""
        return {
            "scene": self.scene_id,
            "line": self.line_id,
            "speaker": self.speaker,
            "text": self.text,
            "take": self.take,
            "severity": self.severity,
            "reason": "; ".join(self.failures),
            "similarity": self.similarity,
            "mos": self.mos,
            "wer": self.wer,
            "wav": self.wav,
            "references": self.references,
        }


@dataclass
class QcRun:
    """What one `drama qc` run found: every line checked, the measurements made and reused,
    and the seconds the measuring took."""

    lines: list[LineQc]
    checks: tuple[str, ...]
    measured: int = 0
    cached: int = 0
    seconds: float = 0.0
    workers: int = 1

    @property
    def attention(self) -> list[LineQc]:
        """The lines that need attention, most severe first (`attention_order`)."""
        return sorted((x for x in self.lines if x.severity != "ok"), key=attention_order)


SEVERITY_RANK = {"unusable": 0, "review": 1, "ok": 2}


def attention_order(line: LineQc) -> tuple:
    """Sort key of the report: unusable before review, more failed checks first, then the
    lowest voice similarity, the lowest naturalness, the highest word error rate."""
    return (
        SEVERITY_RANK[line.severity],
        -len(line.failures),
        line.similarity if line.similarity is not None else 2.0,
        line.mos if line.mos is not None else 6.0,
        -(line.wer or 0.0),
        line.scene_id,
        line.line_id,
    )


def parse_checks(text: str | None) -> tuple[str, ...]:
    """The checks of `--checks` (comma-separated; None: all) in `CHECKS` order. Raises
    UsageError for an unknown name."""
    if text is None:
        return CHECKS
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in CHECKS]
    if unknown or not names:
        raise UsageError(f"unknown check {text!r}; the checks are {', '.join(CHECKS)}")
    return tuple(name for name in CHECKS if name in names)


def require_checks(checks: tuple[str, ...]) -> None:
    """Raise the missing extra's error (AsrUnavailableError, QcUnavailableError) before any
    work when a check asked for cannot run."""
    # lazy: each check's module loads its model's packages (soxr, torch, onnxruntime)
    from drama_cli.qc.asr import require_asr
    from drama_cli.qc.quality import require_quality
    from drama_cli.qc.voice import require_voice

    if "words" in checks:
        require_asr()
    if "voice" in checks:
        require_voice()
    if "quality" in checks:
        require_quality()


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def read_cache(root: Path) -> dict:
    """The project's measurement cache (`{key: measurement}`); {} when absent or unreadable
    (a damaged cache only costs the time to measure again)."""
    try:
        data = json.loads((root / CACHE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def write_cache(root: Path, entries: dict) -> None:
    """Replace the project's measurement cache (atomic)."""
    body = json.dumps({"version": CACHE_VERSION, "entries": entries}, sort_keys=True)
    write_bytes_atomic(root / CACHE_NAME, body.encode("utf-8"))


def _worker_init() -> None:
    # lazy: torch, loaded only in the worker processes that embed voices
    import torch

    torch.set_num_threads(1)


def measure(check: str, wav: str, text: str, stop_reason: str | None, voice, language: str):
    """One measurement of one take (run in a worker): `signal` the check report as stored,
    `words` the speech-recognition result, `voice` the similarity to `voice` (the character's
    embedding `[256]` or None), `quality` the DNSMOS scores. wav: the take's file."""
    audio, rate = sf.read(wav, dtype="float32", always_2d=False)
    if check == "signal":
        return check_audio(audio, text, stop_reason).to_dict()
    if check == "words":
        # lazy: soxr and faster-whisper, loaded in the worker that runs this check
        from drama_cli.compile.normalise import normalise_text
        from drama_cli.qc.asr import asr_check

        found = asr_check(
            audio, spoken_text(text), said=lambda heard: normalise_text(heard, language)
        )
        return {k: found[k] for k in ("wer", "transcript", "divergence", "model")}
    if check == "voice":
        from drama_cli.qc.voice import embed_voiced, similarity  # lazy: torch and resemblyzer

        embedding, voiced_s = embed_voiced(audio, rate)
        return {"similarity": similarity(embedding, voice), "voiced_s": voiced_s}
    from drama_cli.qc.quality import naturalness  # lazy: onnxruntime and librosa

    return naturalness(audio, rate) or {"ovrl": None}


def judge(line: LineQc, limits: QcLimits) -> None:
    """Set a line's failures and severity from its measurements and `limits`."""
    failures: list[str] = []
    severity = "ok"
    signal = line.measured.get("signal")
    if signal is not None:
        report = CheckReport.from_dict(signal)
        if not report.passed:
            failures.append(f"signal: {report.summary()}")
            severity = "unusable" if report.severity == "unusable" else "review"
    words = line.measured.get("words")
    if words is not None:
        run = words.get("divergence") or {}
        if words["wer"] > limits.max_wer:
            failures.append(
                f"words: WER {words['wer']:.2f} over {limits.max_wer:.2f}: "
                f"heard {words['transcript']!r}"
            )
        elif run.get("words", 0) >= 8:
            failures.append(
                f"words: {run['words']} words in a row differ: the line says "
                f"{run['expected']!r}, the take {run['heard']!r}"
            )
    voice = line.measured.get("voice") or {}
    result = voice_result(line.similarity, limits.min_similarity, voice.get("voiced_s", 0.0))
    if not result.passed:
        failures.append(f"voice: {result.message}")
    mos = line.mos
    if mos is not None and limits.min_quality is not None and mos < limits.min_quality:
        failures.append(f"quality: naturalness {mos:.2f} under {limits.min_quality:.2f}")
    if line.take is None:
        failures.insert(0, "no usable take")
        severity = "unusable"
    elif failures and severity == "ok":
        severity = "review"
    line.failures, line.severity = failures, severity


def run_qc(
    script,
    store: TakeStore,
    scenes: list,
    checks: tuple[str, ...] = CHECKS,
    limits: QcLimits = QcLimits(),
    workers: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
) -> QcRun:
    """Run `checks` on the selected take of every line of `scenes` (`Scene`s of `script`):
    cached measurements are reused, the others run on `workers` processes (default: the CPU
    cores, at most one per measurement). on_done(done, total) is called after each
    measurement. Raises the missing extra's error before any work."""
    # lazy: torch and resemblyzer for the reference clips' embeddings
    from drama_cli.qc.voice import ReferenceVoices, voice_clips
    from drama_cli.script.lexicon import speaker_language

    require_checks(checks)
    started = time.perf_counter()
    cache = read_cache(store.root)
    clips = voice_clips(script)
    voices = ReferenceVoices(clips) if "voice" in checks else None
    clip_hashes = {name: [file_sha256(p) for p in paths] for name, paths in clips.items()}
    language = speaker_language(script, "")
    lines: list[LineQc] = []
    jobs: list[tuple[str, LineQc, str, tuple]] = []
    for scene in scenes:
        for line in scene.lines:
            take: Take | None = store.selected_take(scene.id, line.id)
            entry = LineQc(scene.id, line.id, line.speaker, line.text)
            entry.references = [str(p) for p in clips.get(line.speaker, [])]
            lines.append(entry)
            if take is None:
                continue
            entry.take, entry.wav = take.number, str(take.wav_path)
            text = take.record.text or line.text
            stop = take.record.json.get("stop_reason")
            for check in checks:
                parts = {
                    "signal": (text, str(stop)),
                    "words": (spoken_text(text), language),
                    "voice": tuple(clip_hashes.get(line.speaker, [])),
                    "quality": (),
                }[check]
                key = _key(check, take.record.wav_sha256, *parts)
                if key in cache:
                    entry.measured[check] = cache[key]
                    continue
                voice = voices.voice(line.speaker) if voices is not None else None
                if check == "voice" and voice is None:
                    entry.measured[check] = cache[key] = {"similarity": None}
                    continue
                jobs.append((key, entry, check, (entry.wav, text, stop, voice, language)))
    run = QcRun(lines, checks, cached=sum(len(x.measured) for x in lines))
    run.workers = max(1, min(workers or os.cpu_count() or 1, len(jobs) or 1))
    done = 0
    if jobs and run.workers == 1:
        _worker_init()
        for key, entry, check, args in jobs:
            entry.measured[check] = cache[key] = measure(check, *args)
            done += 1
            if on_done:
                on_done(done, len(jobs))
    elif jobs:
        # spawned, not forked: a fork of a process whose torch threads run can deadlock
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(run.workers, spawn, initializer=_worker_init) as pool:
            futures = {
                pool.submit(measure, check, *args): (key, entry, check)
                for key, entry, check, args in jobs
            }
            for future in as_completed(futures):
                key, entry, check = futures[future]
                entry.measured[check] = cache[key] = future.result()
                done += 1
                if on_done:
                    on_done(done, len(jobs))
    if jobs:
        write_cache(store.root, _json_ready(cache))
    for entry in lines:
        judge(entry, limits)
    run.measured = len(jobs)
    run.seconds = time.perf_counter() - started
    return run


def _json_ready(value):
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
