"""How takes are made: what a render asks for (`RenderSettings`), each line's job (`LineJob`) as
compiled by `drama_cli.compile`, its seeds and its cache key (`cache_key`), and the planner that
compiles a scene's lines against the takes selected so far (`ScenePlanner`). Pure bookkeeping:
no backend is called here.

A line is rendered again only when its cache key changes: a hash of everything that shapes its
audio (docs/internals/architecture.md, the project folder).
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from drama_cli.compile.chunking import DEFAULT_MAX_CHARS, MIN_MAX_CHARS
from drama_cli.compile.conversations import SceneCompiler
from drama_cli.compile.modes import DEFAULT_MODE, get_mode
from drama_cli.errors import UsageError
from drama_cli.script.direction import display_text
from drama_cli.takes.keys import ReferenceHasher, dataclass_identity, stable_hash
from drama_cli.takes.scene_selection import context_clip
from drama_cli.takes.store import TakeStore, check_new_takes
from engine.conversation import Conversation
from engine.layouts import get_layout

KEY_VERSION = 1
MAX_RETRIES = 100  # extra attempts per take slot (--retries): bounded like --takes
MAX_BATCH = 256  # streams one render voices together (--batch)
MAX_SEED = 2**31 - 1  # take seeds are taken mod 2^31, so a larger base seed would alias
RETRY_SEED_STRIDE = 100_003
# an extra take check: (text, audio [samples], speaker) -> (its `CheckResult`, fields for the
# take record)
TakeCheck = Callable[[str, object, str], tuple[object, dict[str, object]]]


@dataclass
class RenderSettings:
    """What a render does.

    scenes / lines: ids to render (empty: all). mode: compile mode (`history`, `clone`,
    `scene`). takes: passing takes wanted per line. seed: base seed (each line adds a stable
    offset from its id). retries: extra attempts per take when checks fail. sampling: sampling
    parameters passed to the backend (part of the cache key).
    batch: streams voiced together (`Backend.open_batch`; None: the backend's
        `capabilities.batch_streams`; 1: one at a time, in script order). A take's audio does
        not depend on it. mix: whether to mix scenes after rendering (the mix settings travel
        beside these, as `drama_cli.script.mix_settings.MixSettings`).
    checks: extra take checks (speech recognition, voice match, naturalness), each a callable
    `(text, audio, speaker) -> (CheckResult, dict)`; the dict is stored in the take record. A failed
    extra check makes the take retried like a failed signal check. keep: ids of lines whose
    selected take stays as it is, even when made for older text (not rendered again; the
    mix reports it stale but does not count it as left out). max_chars: the chunk cap in
    characters; a longer line is cut into chunks voiced one after another (`compile.chunking`).
    """

    scenes: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    mode: str = DEFAULT_MODE
    takes: int = 1
    seed: int = 0
    retries: int = 2
    sampling: dict[str, float | None] = field(default_factory=dict)
    mix: bool = True
    checks: list[TakeCheck] = field(default_factory=list)
    keep: tuple[str, ...] = ()
    batch: int | None = None
    max_chars: int = DEFAULT_MAX_CHARS

    def validate(self) -> None:
        """Raise UsageError for an unknown mode, takes outside 1..100, retries outside 0..100,
        a seed outside 0..2^31 - 1, a batch outside 1..256 or a chunk cap under MIN_MAX_CHARS."""
        get_mode(self.mode)
        check_new_takes(self.takes)
        if not 0 <= self.retries <= MAX_RETRIES:
            raise UsageError(f"--retries must be between 0 and {MAX_RETRIES}, got {self.retries}")
        check_seed(self.seed)
        if self.batch is not None and not 1 <= self.batch <= MAX_BATCH:
            raise UsageError(f"--batch must be between 1 and {MAX_BATCH}, got {self.batch}")
        check_max_chars(self.max_chars)


def check_max_chars(max_chars: int) -> int:
    """`max_chars` when it is a chunk cap that cuts between words (at least MIN_MAX_CHARS);
    else UsageError (the `--max-chars` of render and compile)."""
    if max_chars < MIN_MAX_CHARS:
        raise UsageError(
            f"--max-chars must be at least {MIN_MAX_CHARS} characters, got {max_chars}"
        )
    return max_chars


def check_seed(seed: int) -> int:
    """`seed` when it is a seed every engine takes (0..2^31 - 1, the `--seed` of every verb);
    else UsageError."""
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed must be between 0 and {MAX_SEED}, got {seed}")
    return seed


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
    speaker_names: dict[int, str] = field(default_factory=dict)
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
    return (base_seed + zlib.crc32(f"{scene_id}/{line_id}".encode())) % (2**31)


def retry_seed(first_seed: int, attempt_index: int) -> int:
    """Seed of retry `attempt_index` (0 = the first attempt): first_seed + 100003 * index, mod 2^31."""
    return (first_seed + RETRY_SEED_STRIDE * attempt_index) % (2**31)


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
    "scenes": "which scenes render",
    "lines": "which lines render",
    "takes": "how many takes",
    "retries": "how many attempts",
    "seed": "replaced by the line's own seed (`line_seed`)",
    "mix": "mix only",
    "checks": "judge takes after they are made",
    "keep": "which lines keep their selected take",
    "batch": "how many streams run together; each take depends only on its own seed",
    "max_chars": "cuts the text into the chunk conversations, which are part of the key",
}


def cache_key(
    job: LineJob, backend_identity: dict, settings: RenderSettings, hasher: ReferenceHasher
) -> str:
    """Hash of everything that shapes a line's audio: the engine identity, the line's own seed,
    and every field of the job and the settings not listed in `JOB_NOT_IN_KEY` or
    `SETTINGS_NOT_IN_KEY` (text, directions and note in the conversations, voices, layout and
    version, speaker names, mode, sampling parameters)."""
    return stable_hash(
        {
            "key_version": KEY_VERSION,
            "engine": backend_identity,
            **dataclass_identity(settings, hasher, SETTINGS_NOT_IN_KEY),
            **dataclass_identity(job, hasher, JOB_NOT_IN_KEY, JOB_KEY_NAMES),
            "seed": line_seed(settings.seed, job.scene_id, job.line_id),
        }
    )


class ScenePlanner:
    """Compiles one scene's lines into LineJobs with a `drama_cli.compile.conversations.SceneCompiler`.

    In `history` mode each line is compiled just before it renders, so its context holds the
    takes selected for the lines before it (in this run or earlier ones); only that line and its
    context lines are compiled and looked up in the store, so planning a scene is linear in its
    length. Reference durations are read once per file.
    """

    def __init__(
        self,
        script,
        scene,
        settings: RenderSettings,
        store: TakeStore,
        notice: Callable[[str], None] = lambda message: None,
    ):
        self.script, self.scene, self.settings, self.store = script, scene, settings, store
        self.notice = notice
        self._plans = None
        self._told: set[str] = set()
        takes = lambda line: context_clip(self.store, self.scene.id, line.id)  # noqa: E731
        self._compiler = SceneCompiler(script, scene, takes)

    def job(self, index: int) -> LineJob:
        """The LineJob of the scene's line number `index` (0-based). In `history` mode the line
        is compiled now, against the takes selected so far; other modes compile once."""
        max_chars = self.settings.max_chars
        if self.settings.mode == "history":
            return self._job(self._compiler.line_plan(index, "history", max_chars=max_chars))
        if self._plans is None:
            self._plans = self._compiler.plans(self.settings.mode, max_chars=max_chars)
        return self._job(self._plans[index])

    def jobs(self) -> list[LineJob]:
        """Every line's LineJob as compiled now."""
        return [
            self._job(plan)
            for plan in self._compiler.plans(self.settings.mode, max_chars=self.settings.max_chars)
        ]

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
        self.notice(
            f"note: scene {self.scene.id}: line {plan.line.id} is voiced without earlier "
            f"lines as context (clone): no earlier line of the scene has a usable take "
            f"yet; history context starts once one has"
        )


def project_settings(store: TakeStore) -> RenderSettings:
    """The render settings the project was last rendered with (`project.json`: mode, sampling,
    seed, chunk cap), so that a line compiles and hashes as it did at render time."""
    info = store.project()
    return RenderSettings(
        mode=info.get("mode", "history"),
        sampling=dict(info.get("sampling") or {}),
        seed=int(info.get("seed", 0)),
        max_chars=info.get("max_chars", DEFAULT_MAX_CHARS),
    )


def line_key(script, store: TakeStore, scene, line) -> str:
    """The cache key a render of the project (its engine and settings in `project.json`) gives
    `line` of `scene` now."""
    settings = project_settings(store)
    job = ScenePlanner(script, scene, settings, store).job(scene.lines.index(line))
    return cache_key(job, store.project().get("engine") or {}, settings, ReferenceHasher())


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
        scene_id=plan.scene_id,
        line_id=line.id,
        speaker=line.speaker,
        text=plan.text,
        chunks=chunks,
        layout_version=get_layout(layout).version,
        speaker_names={k: name for name, k in plan.speakers.items()},
        note=line.note,
        pause_after_s=line.pause_after_s,
        overlap=line.overlap,
        display_text=display_text(line),
        group=plan.group if group else None,
        group_conversation=group,
        normalize=normalize and line.normalize,
    )
