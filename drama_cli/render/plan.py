"""Render planning: what a render does (`RenderSettings`), each line's job (`LineJob`) as
compiled by `drama_cli.compile`, its seed and its cache key, and which scenes and lines a render
touches. Pure bookkeeping: no backend is called here.

A line is rendered again only when its cache key changes: a hash of everything that shapes its
audio (docs/architecture.md, the project folder).
"""

from __future__ import annotations

import dataclasses
import zlib
from dataclasses import dataclass, field
from typing import Callable

from drama_cli.compile.conversations import SceneCompiler
from drama_cli.compile.modes import DEFAULT_MODE, get_mode
from drama_cli.errors import UsageError
from drama_cli.script.direction import display_text
from drama_cli.takes.keys import ReferenceHasher, dataclass_identity, stable_hash
from drama_cli.takes.store import Take, TakeStore, check_new_takes
from engine.clip import AudioClip
from engine.conversation import Conversation
from engine.layouts import get_layout

KEY_VERSION = 1
MAX_BATCH = 256  # streams one render voices together (--batch)
MAX_SEED = 2 ** 31 - 1  # take seeds are taken mod 2^31, so a larger base seed would alias


@dataclass
class RenderSettings:
    """What a render does.

    scenes / lines: ids to render (empty: all). mode: compile mode (`history`, `clone`,
    `scene`). takes: passing takes wanted per line. seed: base seed (each line adds a stable
    offset from its id). retries: extra attempts per take when checks fail. sampling: sampling
    parameters passed to the backend (part of the cache key). formats: mix export formats
    (empty: the project's saved formats, else WAV).
    batch: streams voiced together (`Backend.open_batch`; None: the backend's
        `capabilities.batch_streams`; 1: one at a time, in script order). A take's audio does
        not depend on it. mix: whether to mix scenes after rendering; mix_options: extra `MixSettings` fields.
    checks: extra take checks (e.g. the speech-recognition check), each a callable
    `(text, audio) -> (CheckResult, dict)`; the dict is stored in the take record. A failed
    extra check makes the take retried like a failed signal check. keep: ids of lines whose
    selected take stays as it is, even when made for older text (not rendered again; the
    mix reports it stale but does not count it as left out).
    """

    scenes: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    mode: str = DEFAULT_MODE
    takes: int = 1
    seed: int = 0
    retries: int = 2
    sampling: dict = field(default_factory=dict)
    formats: tuple[str, ...] = ()
    mix: bool = True
    mix_options: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)
    keep: tuple[str, ...] = ()
    batch: int | None = None

    def validate(self) -> None:
        """Raise UsageError for an unknown mode, takes outside 1..100, retries < 0, a seed
        outside 0..2^31 - 1, a batch outside 1..256 or a mix option out of range
        (`drama_cli.mix.options.validate_mix_options`)."""
        from drama_cli.mix.options import validate_mix_options

        get_mode(self.mode)
        check_new_takes(self.takes)
        if self.retries < 0:
            raise UsageError("--retries must be 0 or more")
        if not 0 <= self.seed <= MAX_SEED:
            raise UsageError(f"--seed must be between 0 and {MAX_SEED}, got {self.seed}")
        if self.batch is not None and not 1 <= self.batch <= MAX_BATCH:
            raise UsageError(f"--batch must be between 1 and {MAX_BATCH}, got {self.batch}")
        validate_mix_options(self.mix_options)


@dataclass
class LineJob:
    """One line to render: its ids, speaker, the text spoken and its chunk conversations.

    text: the speaker-tagged text of the whole line (for checks and the record);
    chunks: one Conversation per generation, in order; layout_version: recorded in the take.
    speaker_names: `<|speaker:k|>` index → cast name; pause_after_s / overlap: for the mix.
    group / group_conversation (`scene` mode): the group of lines voiced by one conversation.
    normalize: whether `text` says numbers and symbols as words (the script's and the line's
    `normalize`, `--no-normalize`); recorded with the take, which is stale once the line
    compiled the same way has other words (`drama_cli.takes.selection.is_stale`).
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
    normalize: bool = True


def line_seed(base_seed: int, scene_id: str, line_id: str) -> int:
    """The seed of slot 0 of a line: base seed plus a stable CRC-32 of the scene and line ids
    (mod 2^31). Slots add 0, 1, … and retries multiples of 100,003, so base seeds closer than
    the takes of a line share takes: keep base seeds far apart (1000, 2000, …)."""
    return (base_seed + zlib.crc32(f"{scene_id}/{line_id}".encode("utf-8"))) % (2 ** 31)


# LineJob and RenderSettings fields left out of cache keys, with the reason each does not
# belong there; every other field is part of the key (`drama_cli.takes.keys`).
JOB_NOT_IN_KEY = {
    "scene_id": "enters through the line's seed",
    "line_id": "enters through the line's seed",
    "text": "carried by the chunk conversations",
    "note": "carried by the chunk conversations' text",
    "pause_after_s": "mix timing only",
    "overlap": "mix timing only",
    "display_text": "labels and subtitles only",
    "group": "the group's number; its conversation is part of the key",
    "normalize": "carried by the chunk conversations' text",
}
JOB_KEY_NAMES = {"group_conversation": "group"}  # the name keys were first written with
SETTINGS_NOT_IN_KEY = {
    "scenes": "which scenes render", "lines": "which lines render",
    "takes": "how many takes", "retries": "how many attempts",
    "seed": "replaced by the line's own seed (`line_seed`)",
    "formats": "mix export only", "mix": "mix only", "mix_options": "mix only",
    "checks": "judge takes after they are made",
    "keep": "which lines keep their selected take",
    "batch": "how many streams run together; each take depends only on its own seed",
}


def cache_key(job: LineJob, backend_identity: dict, settings: RenderSettings,
              hasher: ReferenceHasher) -> str:
    """Hash of everything that shapes a line's audio: the engine identity, the line's own seed,
    and every field of the job and the settings not listed in `JOB_NOT_IN_KEY` or
    `SETTINGS_NOT_IN_KEY` (text, directions and note in the conversations, voices, layout and
    version, speaker names, mode, sampling parameters)."""
    return stable_hash({
        "key_version": KEY_VERSION,
        "engine": backend_identity,
        **dataclass_identity(settings, hasher, SETTINGS_NOT_IN_KEY),
        **dataclass_identity(job, hasher, JOB_NOT_IN_KEY, JOB_KEY_NAMES),
        "seed": line_seed(settings.seed, job.scene_id, job.line_id),
    })


class ScenePlanner:
    """Compiles one scene's lines into LineJobs with a `drama_cli.compile.conversations.SceneCompiler`.

    In `history` mode each line is compiled just before it renders, so its context holds the
    takes selected for the lines before it (in this run or earlier ones); only that line and its
    context lines are compiled and looked up in the store, so planning a scene is linear in its
    length. Reference durations are read once per file.
    """

    def __init__(self, script, scene, settings: RenderSettings, store: TakeStore,
                 notice: Callable[[str], None] = lambda message: None):
        self.script, self.scene, self.settings, self.store = script, scene, settings, store
        self.notice = notice
        self._plans = None
        self._told: set[str] = set()
        takes = lambda line: context_clip(self.store, self.scene.id, line.id)  # noqa: E731
        self._compiler = SceneCompiler(script, scene, takes)

    def job(self, index: int) -> LineJob:
        """The LineJob of the scene's line number `index` (0-based). In `history` mode the line
        is compiled now, against the takes selected so far; other modes compile once."""
        if self.settings.mode == "history":
            return self._job(self._compiler.line_plan(index, "history"))
        if self._plans is None:
            self._plans = self._compiler.plans(self.settings.mode)
        return self._job(self._plans[index])

    def jobs(self) -> list[LineJob]:
        """Every line's LineJob as compiled now."""
        return [self._job(plan) for plan in self._compiler.plans(self.settings.mode)]

    def _job(self, plan) -> LineJob:
        for warning in plan.warnings:
            if warning not in self._told:  # each compiler warning once per scene
                self._told.add(warning)
                self.notice(f"warning: {warning}")
        self._tell_clone_fallback(plan)
        return job_from_plan(plan, self.script.normalize)

    def _tell_clone_fallback(self, plan) -> None:
        """Say once per scene why a history-mode line is voiced without context (`clone`)."""
        first = self.scene.lines[0] if self.scene.lines else None
        clone = bool(plan.conversations) and plan.conversations[0].layout == "clone"
        if plan.mode != "history" or not clone or plan.line is first or "clone" in self._told:
            return
        self._told.add("clone")
        self.notice(f"note: scene {self.scene.id}: line {plan.line.id} is voiced without earlier "
                    f"lines as context (clone): no earlier line of the scene has a usable take "
                    f"yet; history context starts once one has")


def job_from_plan(plan, normalize: bool = True) -> LineJob:
    """Turn a compiler `LinePlan` into a LineJob (layout version from `engine.layouts`);
    normalize: the script's number setting (`Script.normalize`)."""
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
        chunks=chunks, layout_version=get_layout(layout).version,
        speaker_names={k: name for name, k in plan.speakers.items()}, note=line.note,
        pause_after_s=line.pause_after_s, overlap=line.overlap,
        display_text=display_text(line), group=plan.group if group else None,
        group_conversation=group, normalize=normalize and line.normalize)


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
    unknown_kept = [i for i in settings.keep if i not in {line.id for s in scenes for line in s.lines}]
    if unknown_kept:
        raise UsageError(f"--keep {unknown_kept[0]}: no such line in the chosen scenes")
    if settings.lines:
        all_ids = {line.id for s in scenes for line in s.lines}
        unknown = [i for i in settings.lines if i not in all_ids]
        if unknown:
            raise UsageError(f"no line {unknown[0]!r} in the chosen scenes")
        scenes = [s for s in scenes if any(line.id in settings.lines for line in s.lines)]
    return scenes


def wanted_lines(scene, settings: RenderSettings) -> list[str]:
    """Ids of the scene's lines to render: those named by `--line`, else all, in script order."""
    ids = [line.id for line in scene.lines]
    return [i for i in ids if i in settings.lines] if settings.lines else ids


def context_clip(store: TakeStore, scene_id: str, line_id: str) -> AudioClip | None:
    """The selected take of a line as an AudioClip (codes when stored, the WAV path always),
    for history context; None when the line has no valid, usable selection."""
    take = store.selected_take(scene_id, line_id)
    if take is None or not mixable(store, scene_id, line_id, take):
        return None
    return AudioClip(codes=take.codes(), path=str(take.wav_path), duration_s=take.duration_s)


def mixable(store: TakeStore, scene_id: str, line_id: str, take: Take) -> bool:
    """A selected take goes into mixes and context unless it is unusable and was not chosen
    by hand."""
    if take.status != "unusable":
        return True
    return store.selections(scene_id).get(line_id, {}).get("by") == "user"
