"""Render orchestration: plan each line, skip cached takes, run the backend with retries,
store every attempt, select a take per line, and mix each scene.

The unit of work is a line (`LineJob`): one or more chunk conversations whose audio is joined
into one take. Each line has `takes` slots; a slot runs up to `1 + retries` attempts with new
seeds until one passes the signal checks. Every attempt is stored (failed ones flagged), so an
interrupted render resumes exactly where it stopped: the next run counts what is on disk.

Exit codes (`RenderReport.exit_code`): 0 all lines have a passing take; 3 every line has a
usable take but some only a degraded one (noise, clipping; flagged `needs_review`); 1 some
line has no usable take (silence, runaway: left out of the mix).
"""

from __future__ import annotations

import dataclasses
import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from drama_cli.backends.base import Backend, Generation, GenerationRequest
from drama_cli.errors import EXIT_CHECKS_FAILED, EXIT_DEGRADED, EXIT_OK, RenderError, UsageError
from drama_cli.takes import (  # noqa: F401  (ReferenceHasher is part of this module's API)
    ReferenceHasher, Take, TakeStore, conversation_identity, stable_hash,
)
from engine.checks import DEGRADED, CheckReport, CheckResult, check_take, retry_seed, spoken_text
from engine.conversation import SAMPLE_RATE, AudioClip, Conversation
from engine.errors import EngineError

MODES = ("history", "clone", "scene")
CHUNK_GAP_S = 0.12  # silence between the chunks of one long line
KEY_VERSION = 1


@dataclass
class RenderSettings:
    """What a render does.

    scenes / lines: ids to render (empty: all). mode: compile mode (`history`, `clone`,
    `scene`). takes: passing takes wanted per line. seed: base seed (each line adds a stable
    offset from its id). retries: extra attempts per take when checks fail. sampling: sampling
    parameters passed to the backend (part of the cache key). formats: mix export formats.
    mix: whether to mix scenes after rendering; mix_options: extra `MixSettings` fields.
    checks: extra take checks (e.g. the speech-recognition check), each a callable
    `(text, audio) -> (CheckResult, dict)`; the dict is stored in the take record. A failed
    extra check makes the take retried like a failed signal check.
    """

    scenes: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    mode: str = "history"
    takes: int = 1
    seed: int = 0
    retries: int = 2
    sampling: dict = field(default_factory=dict)
    formats: tuple[str, ...] = ("wav",)
    mix: bool = True
    mix_options: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)

    def validate(self) -> None:
        """Raise UsageError for an unknown mode, takes < 1 or retries < 0."""
        if self.mode not in MODES:
            raise UsageError(f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if self.takes < 1:
            raise UsageError("--takes must be at least 1")
        if self.retries < 0:
            raise UsageError("--retries must be 0 or more")


@dataclass
class LineJob:
    """One line to render: its ids, speaker, the text spoken and its chunk conversations.

    text: the speaker-tagged text of the whole line (for checks and the record);
    chunks: one Conversation per generation, in order; layout_version: recorded in the take.
    speaker_names: `<|speaker:k|>` index → cast name; pause_after_s / overlap: for the mix.
    group / group_conversation (`scene` mode): the group of lines voiced by one conversation.
    """

    scene_id: str
    line_id: str
    speaker: str
    text: str
    chunks: list[Conversation]
    layout_version: str = ""
    speaker_names: dict = field(default_factory=dict)
    note: str | None = None
    pause_after_s: float | None = None
    overlap: bool = False
    display_text: str = ""
    group: int | None = None
    group_conversation: Conversation | None = None


@dataclass
class LineOutcome:
    """What happened to one line: `rendered`, `reused`, `degraded` or `failed`."""

    scene_id: str
    line_id: str
    speaker: str
    text: str
    status: str
    take: int | None = None
    duration_s: float = 0.0
    calls: int = 0
    message: str = ""


@dataclass
class SceneOutcome:
    """A scene's mix: files written, duration, loudness facts, lines left out."""

    scene_id: str
    files: dict = field(default_factory=dict)
    duration_s: float = 0.0
    loudness: dict = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    skipped: str = ""


@dataclass
class RenderReport:
    """The result of a render: every line's outcome, every scene's mix, and the engine used."""

    engine: str
    scratch: bool
    out: str
    lines: list[LineOutcome] = field(default_factory=list)
    scenes: list[SceneOutcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        """Number of lines with `status`."""
        return sum(1 for line in self.lines if line.status == status)

    @property
    def calls(self) -> int:
        """Backend calls made by this render."""
        return sum(line.calls for line in self.lines)

    @property
    def exit_code(self) -> int:
        """1 when a line failed, 3 when a line is degraded, else 0 (module docstring)."""
        if self.count("failed"):
            return EXIT_CHECKS_FAILED
        if self.count("degraded"):
            return EXIT_DEGRADED
        return EXIT_OK

    def to_dict(self) -> dict:
        """JSON-ready form of the report (the CLI's `--json`)."""
        return {
            "engine": self.engine, "scratch": self.scratch, "out": self.out,
            "exit_code": self.exit_code, "backend_calls": self.calls,
            "counts": {s: self.count(s) for s in ("rendered", "reused", "degraded", "failed")},
            "lines": [dataclasses.asdict(x) for x in self.lines],
            "scenes": [dataclasses.asdict(x) for x in self.scenes],
        }


class TakesNeedReview(RenderError):
    """A finished render whose takes need attention: exit code 1 (a line has no usable take)
    or 3 (some takes are degraded). The message names the lines."""

    def __init__(self, report: "RenderReport"):
        self.exit_code = report.exit_code
        bad = [x for x in report.lines if x.status in ("failed", "degraded")]
        names = ", ".join(f"{x.line_id} ({x.status}: {x.message})" for x in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        super().__init__(f"{len(bad)} line(s) need review: {names}{more}")


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

    def done(self, outcome: LineOutcome) -> None:
        """A line finished (rendered, reused, degraded or failed)."""

    def finish(self) -> None:
        """The render ended (also after an error)."""


# -- planning --------------------------------------------------------------------------------

def line_seed(base_seed: int, scene_id: str, line_id: str) -> int:
    """The seed of slot 0 of a line: base seed plus a stable CRC-32 of the scene and line ids."""
    return (base_seed + zlib.crc32(f"{scene_id}/{line_id}".encode("utf-8"))) % (2 ** 31)


def cache_key(job: LineJob, backend_identity: dict, settings: RenderSettings,
              hasher: ReferenceHasher) -> str:
    """Hash of everything that shapes a line's audio: text, directions and note (in the
    conversations), voices (reference transcripts and file contents, speaker names), layout and
    version, engine identity and model revision, sampling parameters, seed."""
    return stable_hash({
        "key_version": KEY_VERSION,
        "engine": backend_identity,
        "mode": settings.mode,
        "layout_version": job.layout_version,
        "speaker": job.speaker,
        "speaker_names": {str(k): v for k, v in sorted(job.speaker_names.items())},
        "chunks": [conversation_identity(c, hasher) for c in job.chunks],
        "group": conversation_identity(job.group_conversation, hasher)
        if job.group_conversation is not None else None,
        "sampling": settings.sampling,
        "seed": line_seed(settings.seed, job.scene_id, job.line_id),
    })


# -- generation ------------------------------------------------------------------------------

def generate_line(backend: Backend, job: LineJob, seed: int, sampling: dict) -> Generation:
    """Generate every chunk of `job` with `seed` and join them into one take.

    Chunks with codes are joined frame to frame (audio and codes concatenated, so they stay
    aligned); chunks without codes with 0.12 s of silence between them. The checks run on the joined audio against the whole line's text; a chunk
    that hit its frame budget makes the take's stop reason `length`.
    """
    parts = []
    for chunk in job.chunks:
        request = GenerationRequest(
            scene_id=job.scene_id, line_id=job.line_id, speaker=job.speaker,
            text=chunk.text or job.text, conversation=chunk, layout_version=job.layout_version,
            sampling=dict(sampling), seed=seed, speaker_names=dict(job.speaker_names))
        parts.append(backend.generate(request))
    if len(parts) == 1:
        return parts[0]
    return _join(parts, job.text)


def _join(parts: list[Generation], text: str) -> Generation:
    codes = None
    if all(p.codes is not None for p in parts):
        # Audio and codes must stay frame-aligned for revisions and edits: no gap.
        codes = np.concatenate([p.codes for p in parts], axis=1)
        audio = np.concatenate([p.audio for p in parts]).astype(np.float32)
    else:
        gap = np.zeros(int(CHUNK_GAP_S * SAMPLE_RATE), np.float32)
        audio = np.concatenate([p for part in parts for p in (part.audio, gap)][:-1])
    stops = {p.stop_reason for p in parts}
    stop = next((s for s in stops if s != "eos"), "eos")
    info = {**parts[0].info, "chunks": len(parts)}
    return Generation(audio, codes, stop, check_take(audio, SAMPLE_RATE, text, stop), info)


def take_record(job: LineJob, generation: Generation, key: str, settings: RenderSettings,
                backend: Backend, slot: int, attempt: int, seed: int) -> dict:
    """The JSON record of a take (DESIGN.md: seed, layout and version, sampling params, prompt
    hash, note, parent take, checks, duration, engine and model revision, cache key, scratch)."""
    hasher = ReferenceHasher()
    identity = backend.identity()
    checks = generation.checks
    return {
        "speaker": job.speaker,
        "text": job.text,
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
        "checks": checks.to_dict(),
        "status": checks.severity,
        "needs_review": not checks.passed,
        "stop_reason": generation.stop_reason,
        "engine": identity.get("engine", backend.name),
        "model_revision": identity.get("revision"),
        "engine_identity": identity,
        "cache_key": key,
        "scratch": bool(getattr(backend, "scratch", False)),
        "backend_info": generation.info,
    }


def apply_extra_checks(generation: Generation, job: LineJob, checks: list) -> dict:
    """Run extra checks (`RenderSettings.checks`) on a generation; their results join its
    CheckReport and their record fields are returned (e.g. `{"asr": {"wer": .., ...}}`)."""
    fields: dict = {}
    for check in checks:
        result, record = check(job.text, generation.audio)
        generation.checks = CheckReport([*generation.checks.results, result])
        fields.update(record)
    return fields


def asr_take_check(model_path: str | None = None, threshold: float | None = None):
    """The speech-recognition check (`drama_cli.qc.asr_check`) as an extra take check for
    `RenderSettings.checks`: WER of the take's transcript against the line's spoken text
    (tags removed). A WER over `threshold` (default 0.25) is a `degraded` failure, so the
    take is retried like a failed signal check; the record gets `asr` = {wer, transcript,
    threshold, model, words}. Raises AsrUnavailableError (a UsageError) at once when the
    `asr` extra or its model is missing.
    """
    from drama_cli import qc

    folder = qc.require_asr(model_path)
    limit = qc.DEFAULT_THRESHOLD if threshold is None else threshold

    def check(text: str, audio: np.ndarray):
        found = qc.asr_check(audio, spoken_text(text), limit, folder)
        message = "" if found["passed"] else (
            f"WER {found['wer']:.2f} over {limit:.2f}: heard {found['transcript']!r}")
        result = CheckResult("asr", bool(found["passed"]), float(found["wer"]), float(limit),
                             "wer", DEGRADED, message)
        return result, {"asr": found}

    return check


def _take_passed(take: Take) -> bool:
    return bool(take.record.get("checks", {}).get("passed", True))


def _slot_done(attempts: list[Take], retries: int) -> bool:
    return any(_take_passed(t) for t in attempts) or len(attempts) >= retries + 1


def render_line(job: LineJob, key: str, store: TakeStore, backend: Backend,
                settings: RenderSettings, progress: Progress) -> tuple[int, str | None]:
    """Fill every slot of a line that is not done yet.

    Returns the number of backend attempts and, when the engine refused the request
    (`EngineError`: a prompt too long for the context, an unreadable reference), its message;
    the line then stops there and the render goes on with the next one. Other exceptions
    propagate. A slot is done when one of its stored attempts passed or all `1 + retries`
    were made. Each attempt is stored as soon as it exists (an interruption loses nothing).
    """
    calls = 0
    try:
        for _ in _fill_slots(job, key, store, backend, settings, progress):
            calls += 1
    except EngineError as err:
        return calls + 1, str(err)
    return calls, None


def _fill_slots(job: LineJob, key: str, store: TakeStore, backend: Backend,
                settings: RenderSettings, progress: Progress):
    """Generate and store the missing attempts of each slot, yielding each stored take."""
    existing = store.takes(job.scene_id, job.line_id, key)
    base = line_seed(settings.seed, job.scene_id, job.line_id)
    for slot in range(settings.takes):
        attempts = [t for t in existing if t.record.get("slot", 0) == slot]
        for attempt in range(len(attempts), settings.retries + 1):
            if _slot_done(attempts, settings.retries):
                break
            seed = retry_seed(base + slot, attempt)
            progress.attempt(job, slot, attempt, seed)
            generation = generate_line(backend, job, seed, settings.sampling)
            attempts.append(_store_attempt(job, generation, key, store, backend, settings,
                                           slot, attempt, seed))
            yield attempts[-1]


def choose_take(store: TakeStore, job: LineJob, key: str) -> tuple[Take | None, str]:
    """The take to use for a line, and its status (`ok`, `degraded` or `failed`).

    Keeps an earlier selection when that take is still valid and has the current cache key:
    an automatic one while it is usable, one made by hand (`drama takes --select`) always (an
    unusable take chosen by hand counts as degraded). Else the first passing take with the
    current key, else the first degraded one; unusable takes are never chosen automatically.
    """
    selected = store.selected_take(job.scene_id, job.line_id)
    if selected is not None and selected.cache_key == key:
        by_hand = store.selections(job.scene_id).get(job.line_id, {}).get("by") == "user"
        if by_hand or selected.status != "unusable":
            return selected, "ok" if selected.status == "ok" else "degraded"
    candidates = store.takes(job.scene_id, job.line_id, key)
    for wanted in ("ok", "degraded"):
        for take in candidates:
            if take.status == wanted:
                return take, wanted
    return None, "failed"


def process_line(job: LineJob, store: TakeStore, backend: Backend, settings: RenderSettings,
                 identity: dict, hasher: ReferenceHasher, progress: Progress) -> LineOutcome:
    """Render what is missing for one line, select its take and return the outcome."""
    progress.line(job)
    if hasattr(backend, "on_frames"):
        backend.on_frames = lambda frames, budget: progress.frames(job, frames, budget)
    key = cache_key(job, identity, settings, hasher)
    calls, refused = render_line(job, key, store, backend, settings, progress)
    outcome = conclude_line(job, key, store, calls, refused)
    progress.done(outcome)
    return outcome


def conclude_line(job: LineJob, key: str, store: TakeStore, calls: int,
                  refused: str | None = None, fresh: bool | None = None) -> LineOutcome:
    """Choose a line's take after rendering, record the selection and build its outcome
    (`rendered` when new takes were made (`fresh`, default: `calls` > 0), `reused`,
    `degraded` or `failed`); a failed line loses its stale selection so that old audio never
    stays in the mix."""
    fresh = calls > 0 if fresh is None else fresh
    take, status = choose_take(store, job, key)
    outcome = LineOutcome(job.scene_id, job.line_id, job.speaker, job.display_text or job.text,
                          status, calls=calls)
    if take is None:
        last = store.takes(job.scene_id, job.line_id, key)
        reason = CheckReport.from_dict(last[-1].record["checks"]).summary() if last else "no take"
        outcome.message = f"engine refused the line: {refused}" if refused else \
            f"no usable take: {reason}"
        lines = store.selections(job.scene_id)
        if lines.pop(job.line_id, None) is not None:  # a stale take must not stay in the mix
            store.write_selections(job.scene_id, lines)
    else:
        current = store.selections(job.scene_id).get(job.line_id, {})
        if current.get("take") != take.number or current.get("cache_key") != key:
            store.select(job.scene_id, job.line_id, take, by="auto")
        outcome.take, outcome.duration_s = take.number, take.duration_s
        if status == "ok":
            outcome.status = "rendered" if fresh else "reused"
        else:
            outcome.message = CheckReport.from_dict(take.record["checks"]).summary()
    return outcome


# -- planning a scene with the compiler ------------------------------------------------------

class ScenePlanner:
    """Compiles one scene's lines into LineJobs with `drama_cli.compile.compile_scene`.

    In `history` mode each line is compiled just before it renders, so its context holds the
    takes selected for the lines before it (in this run or earlier ones). Reference durations
    are read once per file.
    """

    def __init__(self, script, scene, settings: RenderSettings, store: TakeStore,
                 notice: Callable[[str], None] = lambda message: None):
        self.script, self.scene, self.settings, self.store = script, scene, settings, store
        self.notice = notice
        self._durations: dict[str, float | None] = {}
        self._plans = None
        self._told: set[str] = set()

    def _duration(self, path: str) -> float | None:
        from drama_cli.compile import reference_duration

        if path not in self._durations:
            self._durations[path] = reference_duration(path)
        return self._durations[path]

    def _compile(self):
        from drama_cli.compile import compile_scene

        takes = lambda line: context_clip(self.store, self.scene.id, line.id)  # noqa: E731
        return compile_scene(self.script, self.scene, self.settings.mode, takes=takes,
                             clip_duration=self._duration)

    def job(self, index: int) -> LineJob:
        """The LineJob of the scene's line number `index` (0-based)."""
        if self._plans is None or self.settings.mode == "history":
            self._plans = self._compile()
        return self._job(self._plans[index])

    def jobs(self) -> list[LineJob]:
        """Every line's LineJob as compiled now."""
        return [self._job(plan) for plan in self._compile()]

    def _job(self, plan) -> LineJob:
        for warning in plan.warnings:
            if warning not in self._told:  # each compiler warning once per scene
                self._told.add(warning)
                self.notice(f"warning: {warning}")
        return job_from_plan(plan)


def job_from_plan(plan) -> LineJob:
    """Turn a compiler `LinePlan` into a LineJob (layout version from `engine.prompt`)."""
    line = plan.line
    layout = plan.conversations[0].layout if plan.conversations else "clone"
    group = None
    if plan.mode == "scene":
        # The group's conversation voices every line of the group (`render_scene_group`); the
        # chunk carries this line's text so the line can be identified and hashed on its own.
        group = plan.conversations[0]
        chunks = [dataclasses.replace(c, text=plan.text) for c in plan.conversations]
    else:
        chunks = list(plan.conversations)
    return LineJob(
        scene_id=plan.scene_id, line_id=line.id, speaker=line.speaker, text=plan.text,
        chunks=chunks, layout_version=_layout_version(layout),
        speaker_names={k: name for name, k in plan.speakers.items()}, note=line.note,
        pause_after_s=line.pause_after_s, overlap=line.overlap,
        display_text=display_text(line), group=plan.group if group else None,
        group_conversation=group)


def display_text(line) -> str:
    """The words of a script line for tables, labels and subtitles: its text spans only (no
    tags, directions or `{NAME}` switches), whitespace collapsed; the raw text as a fallback."""
    spans = getattr(line, "spans", None) or []
    words = " ".join("".join(s.text for s in spans if s.kind == "text").split())
    return words or spoken_text(line.text) or line.text


def _layout_version(layout: str) -> str:
    try:
        from engine.prompt import layout_version
    except ImportError:
        return ""
    return layout_version(layout)


# -- scene mode ------------------------------------------------------------------------------

def render_scene_mode(planner: "ScenePlanner", wanted: set, backend: Backend, identity: dict,
                      hasher: ReferenceHasher, progress: Progress) -> list[LineOutcome]:
    """Render the wanted lines of a scene in `scene` mode, one group conversation at a time.

    Each group (consecutive lines with at most 16 voices) is voiced by one
    `backend.generate_scene` call per attempt; its output is split into one take per line.
    When a group's output does not split into its lines, or the engine refuses the layout,
    that group is rendered line by line in `history` mode instead, with a notice
    (`spec/layouts.md`, scene). One take per line (`--takes` applies to other modes).
    """
    store, settings = planner.store, planner.settings
    outcomes: list[LineOutcome] = []
    for group in _groups(planner.jobs()):
        todo = [job for job in group if job.line_id in wanted]
        if not todo:
            continue
        keys = {job.line_id: cache_key(job, identity, settings, hasher) for job in group}
        for job in todo:
            progress.line(job)
        calls, fresh, problem = render_scene_group(group, keys, store, backend, settings,
                                                   progress)
        if problem:
            planner.notice(f"scene {group[0].scene_id}, lines {group[0].line_id}..."
                           f"{group[-1].line_id}: {problem}; rendering them in history mode")
            fallback = _history_fallback(planner, todo, backend, identity, hasher, progress)
            fallback[0].calls += calls  # the scene attempt that did not split
            outcomes += fallback
            continue
        for n, job in enumerate(todo):
            outcome = conclude_line(job, keys[job.line_id], store, calls if n == 0 else 0,
                                    fresh=job.line_id in fresh)
            progress.done(outcome)
            outcomes.append(outcome)
    return outcomes


def _groups(jobs: list[LineJob]) -> list[list[LineJob]]:
    groups: dict[int, list[LineJob]] = {}
    for job in jobs:
        groups.setdefault(job.group or 0, []).append(job)
    return list(groups.values())


def render_scene_group(group: list[LineJob], keys: dict, store: TakeStore, backend: Backend,
                       settings: RenderSettings, progress: Progress):
    """Voice one group of lines with its scene conversation until every line has a passing
    take (at most `1 + retries` attempts, seeds from the group's first line).

    Returns (backend calls, ids of lines that got new takes, problem): problem is None, or
    why the group must fall back to history mode (the output did not split into the group's
    lines, or the engine refused the layout).
    """
    def pending_lines():
        return [job for job in group
                if not _slot_done(_slot_attempts(store, job, keys[job.line_id]), settings.retries)]

    pending = pending_lines()
    calls, fresh = 0, set()
    if not pending:
        return calls, fresh, None
    first = group[0]
    made = max(len(_slot_attempts(store, job, keys[job.line_id])) for job in pending)
    for attempt in range(made, settings.retries + 1):
        seed = retry_seed(line_seed(settings.seed, first.scene_id, first.line_id), attempt)
        request = GenerationRequest(
            scene_id=first.scene_id, line_id=first.line_id, speaker=first.speaker,
            text="\n".join(job.text for job in group), conversation=first.group_conversation,
            layout_version=first.layout_version, sampling=dict(settings.sampling), seed=seed,
            speaker_names=dict(first.speaker_names))
        progress.attempt(first, 0, attempt, seed)
        calls += 1
        try:
            generations = backend.generate_scene(request, [job.text for job in group])
        except EngineError as err:
            return calls, fresh, f"the engine refused the scene layout ({err})"
        if generations is None or len(generations) != len(group):
            return calls, fresh, f"the output did not split into {len(group)} lines"
        for job, generation in zip(group, generations):
            if job in pending:
                _store_attempt(job, generation, keys[job.line_id], store, backend, settings,
                               0, attempt, seed)
                fresh.add(job.line_id)
        pending = pending_lines()
        if not pending:
            break
    return calls, fresh, None


def _slot_attempts(store: TakeStore, job: LineJob, key: str, slot: int = 0) -> list[Take]:
    return [t for t in store.takes(job.scene_id, job.line_id, key)
            if t.record.get("slot", 0) == slot]


def _store_attempt(job: LineJob, generation: Generation, key: str, store: TakeStore,
                   backend: Backend, settings: RenderSettings, slot: int, attempt: int,
                   seed: int) -> Take:
    extra = apply_extra_checks(generation, job, settings.checks)
    record = take_record(job, generation, key, settings, backend, slot, attempt, seed)
    record.update(extra)
    return store.add_take(job.scene_id, job.line_id, generation.audio, record, generation.codes)


def _history_fallback(planner: "ScenePlanner", jobs: list[LineJob], backend: Backend,
                      identity: dict, hasher: ReferenceHasher,
                      progress: Progress) -> list[LineOutcome]:
    settings = dataclasses.replace(planner.settings, mode="history")
    history = ScenePlanner(planner.script, planner.scene, settings, planner.store, planner.notice)
    history._told = planner._told  # warnings already shown stay shown once
    index = {line.id: i for i, line in enumerate(planner.scene.lines)}
    return [process_line(history.job(index[job.line_id]), planner.store, backend, settings,
                         identity, hasher, progress) for job in jobs]


# -- whole renders ---------------------------------------------------------------------------

def render_script(script, store: TakeStore, backend: Backend, settings: RenderSettings,
                  progress: Progress | None = None, project_info: dict | None = None,
                  notice: Callable[[str], None] = lambda message: None) -> RenderReport:
    """Render the selected scenes and lines of `script` into `store`, then mix each scene.

    script: a resolved `Script`. Checks the export encoders before the first backend call
    (case A7) and holds the project lock for the whole render. Raises UsageError for unknown
    scene or line ids, RenderError when the project is locked or an encoder is missing;
    backend errors and Ctrl-C propagate after every finished take is stored.
    """
    settings.validate()
    progress = progress or Progress()
    scenes = pick_scenes(script, settings)
    if settings.mode == "scene" and not hasattr(backend, "generate_scene"):
        notice(f"the {backend.name} engine cannot voice a whole scene at once; using history mode")
        settings = dataclasses.replace(settings, mode="history")
    if settings.mix:
        require_encoders(settings.formats)
    identity = backend.identity()
    report = RenderReport(identity.get("engine", backend.name), bool(backend.scratch),
                          str(store.root))
    hasher = ReferenceHasher()
    with store.lock():
        store.remove_stale_temporaries()
        store.write_project({**(project_info or {}), "engine": identity,
                             "scratch": bool(backend.scratch), "mode": settings.mode,
                             "sampling": settings.sampling, "seed": settings.seed,
                             "mix": mix_record(settings)})
        progress.start(sum(len(_wanted(s, settings)) for s in scenes))
        try:
            for scene in scenes:
                planner = ScenePlanner(script, scene, settings, store, notice)
                wanted = set(_wanted(scene, settings))
                if settings.mode == "scene":
                    report.lines += render_scene_mode(planner, wanted, backend, identity,
                                                      hasher, progress)
                else:
                    for index, line in enumerate(scene.lines):
                        if line.id in wanted:
                            job = planner.job(index)
                            report.lines.append(process_line(job, store, backend, settings,
                                                             identity, hasher, progress))
                if settings.mix:
                    report.scenes.append(mix_scene_from_store(
                        store, scene, settings, {"engine": report.engine,
                                                 "scratch": report.scratch}))
        finally:
            progress.finish()
    return report


def pick_scenes(script, settings: RenderSettings) -> list:
    """The scenes to render: all, or those named in `settings.scenes` (UsageError if unknown);
    with `settings.lines`, only scenes holding one of those lines (UsageError if unknown)."""
    scenes = list(script.scenes)
    if settings.scenes:
        known = [s.id for s in scenes]
        unknown = [s for s in settings.scenes if s not in known]
        if unknown:
            raise UsageError(f"no scene {unknown[0]!r} (scenes: {', '.join(known)})")
        scenes = [s for s in scenes if s.id in settings.scenes]
    if settings.lines:
        all_ids = {line.id for s in scenes for line in s.lines}
        unknown = [i for i in settings.lines if i not in all_ids]
        if unknown:
            raise UsageError(f"no line {unknown[0]!r} in the chosen scenes")
        scenes = [s for s in scenes if any(line.id in settings.lines for line in s.lines)]
    return scenes


def _wanted(scene, settings: RenderSettings) -> list[str]:
    ids = [line.id for line in scene.lines]
    return [i for i in ids if i in settings.lines] if settings.lines else ids


def require_encoders(formats) -> None:
    """Fail before any rendering when a requested export format cannot be written (case A7)."""
    from drama_cli.mix import export

    for fmt in formats:
        export.require_encoder(fmt)


def context_clip(store: TakeStore, scene_id: str, line_id: str) -> AudioClip | None:
    """The selected take of a line as an AudioClip (codes when stored, the WAV path always),
    for history context; None when the line has no valid, usable selection."""
    take = store.selected_take(scene_id, line_id)
    if take is None or not _mixable(store, scene_id, line_id, take):
        return None
    return AudioClip(codes=take.codes(), path=str(take.wav_path), duration_s=take.duration_s)


# -- mixing ----------------------------------------------------------------------------------

def _mixable(store: TakeStore, scene_id: str, line_id: str, take: Take) -> bool:
    """A selected take goes into mixes and context unless it is unusable and was not chosen
    by hand."""
    if take.status != "unusable":
        return True
    return store.selections(scene_id).get(line_id, {}).get("by") == "user"


def mix_scene_from_store(store: TakeStore, scene, settings: RenderSettings,
                         metadata: dict | None = None) -> SceneOutcome:
    """Mix a scene from its selected takes into `<out>/<scene>/mix.*` with sidecars.

    Lines without a usable selected take are left out and listed in `missing` (and in the cue
    sheet's metadata). Returns the files written, the mix duration and loudness facts.
    """
    from drama_cli.mix import MixEntry, MixSettings, mix_scene, write_mix

    outcome = SceneOutcome(scene.id)
    entries = []
    for line in scene.lines:
        take = store.selected_take(scene.id, line.id)
        if take is None or not _mixable(store, scene.id, line.id, take):
            outcome.missing.append(line.id)
            continue
        entries.append(MixEntry(line.id, line.speaker, display_text(line),
                                take.wav_path, take.number, line.pause_after_s, line.overlap))
    if not entries:
        outcome.skipped = ("the scene has no spoken lines" if not scene.lines
                           else "no line of the scene has a usable take")
        return outcome
    mix_settings = MixSettings(formats=tuple(settings.formats), **settings.mix_options,
                               metadata={**(metadata or {}), "scene": scene.id,
                                         "missing_lines": list(outcome.missing)})
    folder = store.scene_dir(scene.id)
    result = mix_scene(entries, mix_settings, work_dir=folder)
    files = write_mix(result, folder, mix_settings.formats)
    outcome.files = {kind: str(path) for kind, path in files.items()}
    outcome.duration_s = round(result.duration_s, 3)
    outcome.loudness = result.summary()
    return outcome


def mix_record(settings: RenderSettings) -> dict:
    """The mix settings a project keeps in `project.json` under "mix" (export formats and the
    `MixSettings` fields given: preset, gap_s, room tone, ...), so every later rebuild of a
    scene mix (`drama mix`, `revise --select`, `edit`) sounds like the render's."""
    return {"formats": list(settings.formats), "options": dict(settings.mix_options)}


def with_project_mix(settings: RenderSettings, project: dict,
                     formats_given: bool = True) -> RenderSettings:
    """`settings` with the mix settings saved in `project` (a `project.json` dict) filled in:
    options given in `settings.mix_options` win; the saved formats are used unless
    `formats_given`."""
    saved = project.get("mix") or {}
    options = {**(saved.get("options") or {}), **settings.mix_options}
    formats = settings.formats if formats_given or not saved.get("formats") else tuple(saved["formats"])
    return dataclasses.replace(settings, formats=tuple(formats), mix_options=options)


def remix(script, store: TakeStore, settings: RenderSettings,
          formats_given: bool = True) -> list[SceneOutcome]:
    """Mix the chosen scenes again from their current selections, without rendering, with the
    project's saved mix settings overridden by those in `settings` (the result is saved as the
    project's mix settings)."""
    project = store.project()
    settings = with_project_mix(settings, project, formats_given)
    require_encoders(settings.formats)
    metadata = {"engine": project.get("engine", {}).get("engine"),
                "scratch": bool(project.get("scratch", False))}
    with store.lock():
        if project:
            store.write_project({**store.project(), "mix": mix_record(settings)})
        return [mix_scene_from_store(store, scene, settings, metadata)
                for scene in pick_scenes(script, settings)]


# -- listing and choosing takes ----------------------------------------------------------------

def list_takes(store: TakeStore, scenes: list, line_ids=()) -> list[dict]:
    """Every line's takes for `drama takes`: per line `{"scene", "line", "speaker", "takes":
    [{take, selected, status, duration_s, seed, engine, scratch, failures, wer, problem}]}`;
    invalid take files are listed with their problem."""
    rows = []
    for scene in scenes:
        chosen = store.selections(scene.id)
        for line in scene.lines:
            if line_ids and line.id not in line_ids:
                continue
            scan = store.scan(scene.id, line.id)
            picked = chosen.get(line.id, {}).get("take")
            takes = [_take_row(t, t.number == picked) for t in scan.valid]
            takes += [{"take": n, "status": "invalid", "problem": why}
                      for n, why in scan.invalid.items()]
            rows.append({"scene": scene.id, "line": line.id, "speaker": line.speaker,
                         "text": display_text(line),
                         "takes": sorted(takes, key=lambda row: row["take"])})
    return rows


def _take_row(take: Take, selected: bool) -> dict:
    record = take.record
    asr = record.get("asr") or {}
    return {"take": take.number, "selected": selected, "status": take.status,
            "duration_s": take.duration_s, "seed": record.get("seed"),
            "engine": record.get("engine", ""), "scratch": bool(record.get("scratch")),
            "failures": record.get("checks", {}).get("failures", []),
            "note": record.get("note"), "parent_take": record.get("parent_take"),
            "wer": asr.get("wer"), "transcript": asr.get("transcript"),
            "file": str(take.wav_path)}


def select_take(script, store: TakeStore, line_id: str, number: int) -> Take:
    """Select take `number` of `line_id` by hand (kept by later renders while the line is
    unchanged). Raises UsageError for an unknown line or a missing or invalid take."""
    for scene in script.scenes:
        if any(line.id == line_id for line in scene.lines):
            break
    else:
        raise UsageError(f"no line {line_id!r} in the script")
    valid = {t.number: t for t in store.takes(scene.id, line_id)}
    if number not in valid:
        have = ", ".join(map(str, valid)) or "none"
        raise UsageError(f"line {line_id!r} has no take {number} (takes: {have})")
    with store.lock():
        store.select(scene.id, line_id, valid[number], by="user")
    return valid[number]
