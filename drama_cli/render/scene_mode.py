"""`scene` mode: each group of consecutive lines (at most 16 voices) voiced by one conversation
per attempt and split into one take per line, with a fall-back to `history` mode for a group
whose output does not split (`docs/internals/layouts.md`, scene).
"""

from __future__ import annotations

import dataclasses

from drama_cli.backends.base import Backend
from drama_cli.qc.take_checks import check_generation
from drama_cli.render.batch import LineEntry, LineQueue
from drama_cli.render.line import (
    LineOutcome,
    Progress,
    conclude_line,
    job_request,
    slot_done,
    store_attempt,
)
from drama_cli.takes.jobs import (
    LineJob,
    RenderSettings,
    ScenePlanner,
    cache_key,
    line_seed,
    retry_seed,
)
from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.store import Take, TakeStore
from engine.errors import EngineError


def render_scene_mode(
    planner: ScenePlanner,
    wanted: set,
    backend: Backend,
    identity: dict,
    hasher: ReferenceHasher,
    progress: Progress,
) -> tuple[list[LineOutcome], dict[tuple[str, str], list[int]]]:
    """Render the wanted lines of a scene in `scene` mode, one group conversation at a time:
    (the wanted lines' outcomes, (scene id, line id) -> numbers of the takes stored for the
    group's other lines, which its conversation voices too).

    Each group (consecutive lines with at most 16 voices) is voiced by one
    `backend.generate_scene` call per attempt (the backend has `capabilities.scene_layout`);
    its output is split into one take per line, each checked against its line's text.
    When a group's output does not split into its lines, or the engine refuses the layout,
    that group is rendered line by line in `history` mode instead, with a notice
    (`docs/internals/layouts.md`, scene). One take per line (`--takes` applies to other modes); groups
    are voiced one at a time, whatever `--batch` says.
    """
    store, settings = planner.store, planner.settings
    outcomes: list[LineOutcome] = []
    unwanted_takes: dict[tuple[str, str], list[int]] = {}
    for group in _groups(planner.jobs()):
        todo = [job for job in group if job.line_id in wanted]
        if not todo:
            continue
        keys = {job.line_id: cache_key(job, identity, settings, hasher) for job in group}
        for job in todo:
            progress.line(job)
        calls, made, problem = render_scene_group(group, keys, store, backend, settings, progress)
        unwanted_takes.update(
            {
                (job.scene_id, job.line_id): made[job.line_id]
                for job in group
                if job.line_id in made and job.line_id not in wanted
            }
        )
        if problem:
            planner.notice(
                f"scene {group[0].scene_id}, lines {group[0].line_id}..."
                f"{group[-1].line_id}: {problem}; rendering them in history mode"
            )
            fallback = _history_fallback(planner, todo, backend, identity, hasher, progress)
            fallback[0].calls += calls  # the scene attempt that did not split
            for outcome in fallback:  # takes of scene attempts before the one that did not split
                outcome.new_takes = sorted(made.get(outcome.line_id, []) + outcome.new_takes)
            outcomes += fallback
            continue
        for n, job in enumerate(todo):
            outcome = conclude_line(
                job,
                keys[job.line_id],
                store,
                calls if n == 0 else 0,
                fresh=job.line_id in made,
                new_takes=made.get(job.line_id),
            )
            progress.done(outcome)
            outcomes.append(outcome)
    return outcomes, unwanted_takes


def _groups(jobs: list[LineJob]) -> list[list[LineJob]]:
    groups: dict[int, list[LineJob]] = {}
    for job in jobs:
        groups.setdefault(job.group or 0, []).append(job)
    return list(groups.values())


def render_scene_group(
    group: list[LineJob],
    keys: dict,
    store: TakeStore,
    backend: Backend,
    settings: RenderSettings,
    progress: Progress,
):
    """Voice one group of lines with its scene conversation until every line has a passing
    take (at most `1 + retries` attempts, seeds from the group's first line).

    Returns (backend calls, line id -> numbers of the takes stored for it (lines that got
    new takes), problem): problem is None, or why the group must fall back to history mode
    (the output did not split into the group's lines, or the engine refused the layout).
    """

    def pending_lines():
        return [
            job
            for job in group
            if not slot_done(_slot_attempts(store, job, keys[job.line_id]), settings.retries)
        ]

    pending = pending_lines()
    calls, new_takes = 0, {}
    if not pending:
        return calls, new_takes, None
    first = group[0]
    first_attempt = max(len(_slot_attempts(store, job, keys[job.line_id])) for job in pending)
    for attempt in range(first_attempt, settings.retries + 1):
        seed = retry_seed(line_seed(settings.seed, first.scene_id, first.line_id), attempt)
        text = "\n".join(job.text for job in group)
        request = job_request(first, first.group_conversation, text, settings.sampling, seed)
        progress.attempt(first, 0, attempt, seed)
        calls += 1
        try:
            generations = backend.generate_scene(request, [job.text for job in group])
        except EngineError as err:
            return calls, new_takes, f"the engine refused the scene layout ({err})"
        if generations is None or len(generations) != len(group):
            return calls, new_takes, f"the output did not split into {len(group)} lines"
        for job, generation in zip(group, generations):
            if job in pending:
                take = store_attempt(
                    job,
                    generation,
                    check_generation(generation, job.text),
                    keys[job.line_id],
                    store,
                    backend,
                    settings,
                    0,
                    attempt,
                    seed,
                )
                new_takes.setdefault(job.line_id, []).append(take.number)
        pending = pending_lines()
        if not pending:
            break
    return calls, new_takes, None


def _slot_attempts(store: TakeStore, job: LineJob, key: str, slot: int = 0) -> list[Take]:
    return [t for t in store.takes(job.scene_id, job.line_id, key) if t.slot == slot]


def _history_fallback(
    planner: ScenePlanner,
    jobs: list[LineJob],
    backend: Backend,
    identity: dict,
    hasher: ReferenceHasher,
    progress: Progress,
) -> list[LineOutcome]:
    settings = dataclasses.replace(planner.settings, mode="history")
    history = ScenePlanner(planner.script, planner.scene, settings, planner.store, planner.notice)
    history._told = planner._told  # warnings already shown stay shown once
    index = {line.id: i for i, line in enumerate(planner.scene.lines)}
    chain = [
        LineEntry((0, index[job.line_id]), lambda i=index[job.line_id]: history.job(i))
        for job in jobs
    ]
    queue = LineQueue(planner.store, backend, settings, identity, hasher, progress, size=1)
    return queue.run([chain])
