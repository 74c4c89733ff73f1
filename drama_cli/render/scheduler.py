"""Render orchestration: plan each line, skip cached takes, run the backend with retries,
store every attempt, select a take per line, and mix each scene.

The unit of work is a line (`LineJob`): one or more chunk conversations whose audio is joined
into one take. Each line has `takes` slots; a slot runs up to `1 + retries` attempts with new
seeds until one passes the signal checks. Every attempt is stored (failed ones flagged), so an
interrupted render resumes exactly where it stopped: the next run counts what is on disk.

Exit codes (`RenderReport.exit_code`): 0 all lines have a passing take; 3 every line has a
usable take but some only a degraded one (noise, clipping; flagged `needs_review`); 1 some
line has no usable take (silence, runaway: left out of the mix).

The pieces live beside this module: which scenes and lines (`plan`), one line (`line`), the
work queue (`batch`), scene mode (`scene_mode`) and the report (`report`). Settings, line jobs,
seeds and cache keys are `drama_cli.takes.jobs`; the checks on a take and its stop reasons
`drama_cli.qc.take_checks`; scene mixes `drama_cli.mix.project_mix`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from drama_cli.backends.base import Backend
from drama_cli.backends.registry import persisted_options
from drama_cli.errors import UsageError
from drama_cli.mix.project_mix import (
    SceneOutcome,
    mix_scene_from_store,
    project_mix,
    require_encoders,
)
from drama_cli.render.batch import LineEntry, LineQueue
from drama_cli.render.line import LineOutcome, Progress
from drama_cli.render.plan import (
    mode_for_backend,
    pick_scenes,
    refuse_voice_switches,
    wanted_lines,
)
from drama_cli.render.report import RenderReport, new_takes_by_line, outcome_takes
from drama_cli.render.scene_mode import render_scene_mode
from drama_cli.script.mix_settings import MixSettings
from drama_cli.takes.adopt import adopt_takes
from drama_cli.takes.jobs import LineJob, RenderSettings, ScenePlanner
from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.selection import (
    MovedTakes,
    is_stale,
    made_for,
    stale_note,
    take_text,
)
from drama_cli.takes.store import TakeStore


def render_script(
    script,
    store: TakeStore,
    backend: Backend,
    settings: RenderSettings,
    progress: Progress | None = None,
    project_info: dict | None = None,
    notice: Callable[[str], None] = lambda message: None,
    mix: MixSettings = MixSettings(),
) -> RenderReport:
    """Render the selected scenes and lines of `script` into `store`, then mix each scene.

    script: a resolved `Script`. mix: the command's mix flags; what they do not give comes
    from the project's saved settings (`project_mix`), and the result is saved again. Checks the
    export encoders before the first backend call
    (case A7) and holds the project lock for the whole render. Raises UsageError for unknown
    scene or line ids, RenderError when the project is locked or an encoder is missing;
    backend errors and Ctrl-C propagate after every finished take is stored.
    """
    settings.validate()
    mix = project_mix(store, mix)
    progress = progress or Progress()
    scenes = pick_scenes(script, settings)
    settings = mode_for_backend(settings, backend.capabilities, backend.name, notice)
    refuse_voice_switches(scenes, settings, backend.capabilities, backend.name)
    if settings.mix:
        require_encoders(mix.formats)
    identity = backend.identity()
    report = RenderReport(
        identity.get("engine", backend.name),
        bool(backend.scratch),
        str(store.root),
        kept=tuple(settings.keep),
    )
    hasher = ReferenceHasher()
    mixes: dict[int, SceneOutcome] = {}
    other_takes: dict[tuple[str, str], list[int]] = {}  # takes of lines with no outcome

    def scene_done(number: int) -> None:  # every wanted line of scene `number` has its take
        if settings.mix:
            mixes[number] = mix_scene_from_store(
                store,
                script,
                scenes[number],
                mix,
                {"engine": report.engine, "scratch": report.scratch},
            )

    with store.lock():
        saved = store.project()
        rendered = {
            "engine": identity,
            "scratch": bool(backend.scratch),
            "engine_options": persisted_options(backend),
            "mode": settings.mode,
            "sampling": settings.sampling,
            "seed": settings.seed,
            "max_chars": settings.max_chars,
        }
        recorded = threading.Lock()

        def record_project(fields: dict) -> None:
            store.write_project({**(project_info or {}), **fields, "mix": mix.to_record()})

        def take_added(take) -> None:  # the first new take: the project now has this engine's
            if recorded.acquire(blocking=False):
                record_project(rendered)

        # the engine, its options and the mode stay as saved until this render stores a take
        # (a render that fails before one must not leave `revise`/`edit` a project it never made)
        record_project({key: saved[key] for key in rendered if key in saved})
        progress.start(sum(len(wanted_lines(s, settings)) for s in scenes))
        store.take_added = take_added
        try:
            if settings.mode == "scene":
                for number, scene in enumerate(scenes):
                    planner = ScenePlanner(script, scene, settings, store, notice)
                    outcomes, unwanted_takes = render_scene_mode(
                        planner,
                        set(wanted_lines(scene, settings)),
                        backend,
                        identity,
                        hasher,
                        progress,
                    )
                    report.lines += outcomes
                    other_takes.update(unwanted_takes)
                    scene_done(number)
            else:
                size = settings.batch or backend.capabilities.batch_streams
                queue = LineQueue(
                    store, backend, settings, identity, hasher, progress, size, scene_done
                )
                report.lines += queue.run(line_chains(script, scenes, settings, store, notice))
                for number, scene in enumerate(scenes):
                    if not wanted_lines(scene, settings):  # no line to wait for
                        scene_done(number)
            report.scenes += [mixes[number] for number in sorted(mixes)]
        finally:
            store.take_added = None
            progress.finish()
    report.new_takes = new_takes_by_line(scenes, {**outcome_takes(report.lines), **other_takes})
    return report


def line_chains(
    script, scenes: list, settings: RenderSettings, store: TakeStore, notice: Callable[[str], None]
) -> list[list[LineEntry]]:
    """The wanted lines of `scenes` as chains for the work queue (`drama_cli.render.batch`):
    in `history` mode one chain per scene (a line hears the takes selected before it), in
    other modes one chain per line. A line opens as its `--keep` outcome when it is kept, else
    as its job, planned then (a note first when its selected take is stale)."""
    chains: list[list[LineEntry]] = []
    for number, scene in enumerate(scenes):
        planner = ScenePlanner(script, scene, settings, store, notice)
        wanted = set(wanted_lines(scene, settings))
        moved = MovedTakes(script, store, scene, for_render=True)
        entries = [
            LineEntry(
                (number, index),
                lambda p=planner, s=scene, i=index, line=line, m=moved: open_line(
                    p, s, i, line, settings, store, notice, m
                ),
            )
            for index, line in enumerate(scene.lines)
            if line.id in wanted
        ]
        chains += [entries] if settings.mode == "history" else [[e] for e in entries]
    return chains


def open_line(
    planner: ScenePlanner,
    scene,
    index: int,
    line,
    settings: RenderSettings,
    store: TakeStore,
    notice: Callable[[str], None],
    moved: MovedTakes | None = None,
) -> LineJob | LineOutcome:
    """A line when the work queue reaches it: the outcome of a line kept with `--keep` (when
    it has a usable selected take), else its job, compiled now (`ScenePlanner.job`); a note
    first when its selected take is stale, and when takes for its text lie under an id that
    moved (`MovedTakes`)."""
    script = planner.script
    kept = kept_outcome(script, store, scene, line) if line.id in settings.keep else None
    if kept is not None:
        return kept
    holders = moved.holders(line) if moved is not None else []
    held = moved.selected_before(holders[0]) if len(holders) == 1 else None
    if held is not None and exact_holder(script, store, scene, line, held):
        try:
            copies = adopt_takes(
                script,
                store,
                holders[0],
                line.id,
                locked=True,
                picked=held.number,
                through=moved.last_take_before(holders[0]),
            )
        except UsageError:  # the old id also holds takes of another speaker: the line renders anew
            pass
        else:
            if copies:  # none when they were adopted before
                notice(
                    f"note: line {line.id}: adopted takes {', '.join(map(str, copies))} of {holders[0]}, "
                    f"made for this text (the ids moved when a line was removed or added)"
                )
            return planner.job(index)
    tell_stale(script, store, scene, line, notice)
    if holders:
        notice(f"note: {moved.note(line)}")
    return planner.job(index)


def exact_holder(script, store: TakeStore, scene, line, held) -> bool:
    """Whether `held`, the take selected under another line id when the render started
    (`MovedTakes.selected_before`), was made for `line`'s text exactly (its own record, not
    only a take it was revised from) and `line` has no take of its own for that text yet."""
    own = [t for t in store.takes(scene.id, line.id) if made_for(script, line, t.record)]
    return not own and made_for(script, line, held.record)


def kept_outcome(script, store: TakeStore, scene, line) -> LineOutcome | None:
    """The outcome of a line whose selected take `--keep` keeps as it is (status `reused`;
    the message says when it was made for older text), or None when it has no usable
    selected take (then it renders as usual)."""
    take = store.selected_take(scene.id, line.id)
    if take is None or take.status == "unusable":
        return None
    message = "kept as asked"
    if is_stale(script, store, scene.id, line, take):
        message += f": {stale_note(take, line)}"
    return LineOutcome(
        scene.id,
        line.id,
        line.speaker,
        take_text(take, line),
        "reused",
        take.number,
        take.duration_s,
        0,
        message,
    )


def tell_stale(script, store: TakeStore, scene, line, notice: Callable[[str], None]) -> None:
    """Say when a line's selected take was made for older text than the script's: the render
    makes a new take for it (`--keep LINE` would keep it)."""
    take = store.selected_take(scene.id, line.id)
    if take is not None and is_stale(script, store, scene.id, line, take):
        notice(
            f"note: line {line.id}: {stale_note(take, line)}; rendering it again "
            f"(--keep {line.id} keeps it)"
        )
