"""The studio's actions that make takes, each through the code of its command: render again
(`drama render --line ID --takes N`), revise with a note (`drama revise`) and edit by text
(`drama edit --text`). Revisions and edits are made one take at a time, so a cancelled job
keeps every take it finished; their seeds are those one command asking for all of them
would use (`drama_cli.edit.revise.new_take_seeds` counts the takes already stored)."""

from __future__ import annotations

import dataclasses

from drama_cli.commands.inputs import script_info
from drama_cli.errors import UsageError
from drama_cli.render.line import Progress
from drama_cli.studio.jobs import Job
from drama_cli.takes.selection import select_take
from drama_cli.takes.store import check_new_takes

KINDS = ("render", "revise", "edit", "mix")  # a mix job's `line` is the scene id
NEEDS_ENGINE = ("render", "revise", "edit")
MAX_NOTE_CHARS = 500
MAX_TEXT_CHARS = 4000


def check_params(kind: str, params: dict) -> int:
    """Check an action's parameters before it is queued; returns the number of takes asked.
    Raises UsageError for an unknown kind, takes outside 1..100, a missing or overlong note
    (revise) or text (edit), or a `from_take` that is not a take number."""
    if kind not in KINDS:
        raise UsageError(f"unknown action {kind!r}; the actions are {', '.join(KINDS)}")
    takes = params.get("takes", 1)
    if not isinstance(takes, int) or isinstance(takes, bool):
        raise UsageError("takes must be a whole number")
    check_new_takes(takes)
    from_take = params.get("from_take")
    if from_take is not None and (not isinstance(from_take, int) or isinstance(from_take, bool)):
        raise UsageError("from_take must be a take number")
    for name, needed, limit in (
        ("note", "revise", MAX_NOTE_CHARS),
        ("text", "edit", MAX_TEXT_CHARS),
    ):
        value = params.get(name)
        if kind == needed and (not isinstance(value, str) or not value.strip()):
            raise UsageError(f"{kind} needs {'a note' if name == 'note' else 'the new text'}")
        if isinstance(value, str) and len(value) > limit:
            raise UsageError(f"the {name} is longer than {limit} characters")
    return takes


def check_target(project, kind: str, target: str) -> None:
    """Raise UsageError unless `target` names a scene of the script (mix) or a line (the other
    actions)."""
    if kind == "mix":
        project.find_scene(target)
    else:
        project.find_scene_line(target)


class JobProgress(Progress):
    """A render's progress events as the job's progress; a cancelled job stops at the next
    attempt or frame report (the render keeps every take it stored)."""

    def __init__(self, job: Job):
        self.job = job
        self.voicing = ""

    def attempt(self, job, slot, attempt, seed):
        self.job.check()
        retry = f" (retry {attempt})" if attempt else ""
        self.voicing = self.job.message = f"voicing take {slot + 1}{retry}"

    def frames(self, job, frames, budget):
        self.job.check()
        self.job.message = f"{self.voicing}: {frames} of at most {budget} frames"

    def done(self, outcome):
        self.job.done = self.job.total


def run_action(project, backend, job: Job) -> None:
    """Run `job` (kind render, revise, edit or mix; or select, queued by the studio itself) on
    `project` with `backend`; fills `job.takes` with the numbers of the takes made. Raises
    UsageError for a bad request, RenderError when the project is locked by another process,
    JobCancelled when cancelled."""
    {
        "render": render_again,
        "revise": revise_takes,
        "edit": edit_takes,
        "mix": mix_again,
        "select": select_after,
    }[job.kind](project, backend, job)


def render_again(project, backend, job: Job) -> None:
    """`drama render SCRIPT --line ID --takes K` with K the render slots the line's current
    takes fill plus the new takes asked, in the project's mode, sampling and seed."""
    # lazy: scipy (warm_up loads it once the studio serves), 0.9 s at start-up
    from drama_cli.edit.revise import plan_line, project_settings
    from drama_cli.render.scheduler import render_script

    script, store = project.script(), project.store
    planned = plan_line(script, store, backend, job.line)
    filled = {t.slot for t in store.takes(planned.scene.id, planned.line.id, planned.cache_key)}
    slots = 1 + max((s for s in filled if isinstance(s, int)), default=-1)
    settings = dataclasses.replace(
        project_settings(store), lines=(planned.line.id,), takes=slots + job.total
    )
    report = render_script(
        script,
        store,
        backend,
        settings,
        JobProgress(job),
        script_info(script, str(project.script_path)),
    )
    job.takes += report.new_takes.get(planned.line.id, [])


def revise_takes(project, backend, job: Job) -> None:
    """`drama revise SCRIPT LINE --note NOTE [--from-take N]`, one take at a time."""
    # lazy: scipy (warm_up loads it once the studio serves), 0.9 s at start-up
    from drama_cli.edit.revise import revise_in_project

    for number in range(job.total):
        job.check()
        job.message = f"revising take {number + 1} of {job.total}"
        summary = revise_in_project(
            project.script(),
            project.store,
            backend,
            job.line,
            job.params["note"],
            1,
            None,
            job.params.get("from_take"),
        )
        job.takes += [take["take"] for take in summary["takes"]]
        job.done = number + 1


def edit_takes(project, backend, job: Job) -> None:
    """`drama edit SCRIPT LINE --text TEXT [--from-take N]`, one take at a time: the span to
    voice again is where the new words differ from the take's."""
    # lazy: scipy (warm_up loads it once the studio serves), 0.9 s at start-up
    from drama_cli.edit.project_edit import EditForm, edit_in_project, plan_in_project

    script, store = project.script(), project.store
    form = EditForm(text=job.params["text"])
    planned, source, audio, plan = plan_in_project(
        script, store, backend, job.line, form, job.params.get("from_take")
    )
    for number in range(job.total):
        job.check()
        job.message = f"editing take {source.number}: take {number + 1} of {job.total}"
        result = edit_in_project(script, store, backend, planned, source, audio, plan, 1)
        job.takes += [take["take"] for take in result["takes"]]
        job.done = number + 1


def mix_again(project, backend, job: Job) -> None:
    """`drama mix SCRIPT --scene ID`: the scene mixed again from its selections with the
    project's saved settings (`drama_cli.mix.project_mix.remix`). `backend` is not used."""
    # lazy: scipy (warm_up loads it once the studio serves), 0.9 s at start-up
    from drama_cli.mix.project_mix import remix

    scene = project.find_scene(job.line)
    job.message = f"mixing {scene.id}"
    remix(project.script(), project.store, [scene])
    job.done = 1


def select_after(project, backend, job: Job) -> None:
    """`drama takes SCRIPT --line ID --select N` (`params["take"]`), for a selection made on the
    page while an earlier job held the project. `backend` is not used."""
    job.message = f"selecting take {job.params['take']}"
    select_take(project.script(), project.store, job.line, job.params["take"])
    job.done = 1
