"""Render orchestration: plan each line, skip cached takes, run the backend with retries,
store every attempt, select a take per line, and mix each scene.

The unit of work is a line (`LineJob`): one or more chunk conversations whose audio is joined
into one take. Each line has `takes` slots; a slot runs up to `1 + retries` attempts with new
seeds until one passes the signal checks. Every attempt is stored (failed ones flagged), so an
interrupted render resumes exactly where it stopped: the next run counts what is on disk.

Exit codes (`RenderReport.exit_code`): 0 all lines have a passing take; 3 every line has a
usable take but some only a degraded one (noise, clipping; flagged `needs_review`); 1 some
line has no usable take (silence, runaway: left out of the mix).

The pieces live in their own modules and are importable from here: planning and cache keys
(`render_plan`), one line (`render_line`), scene mode (`render_scene`), scene mixes
(`render_mix`), listing and choosing takes (`render_takes`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable

from drama_cli.backends.base import Backend
from drama_cli.errors import EXIT_CHECKS_FAILED, EXIT_DEGRADED, EXIT_OK, RenderError
from drama_cli.render_line import (  # noqa: F401  (importable from here)
    CHUNK_GAP_S,
    LineOutcome,
    Progress,
    apply_extra_checks,
    asr_take_check,
    choose_take,
    conclude_line,
    generate_line,
    join_chunks,
    process_line,
    render_line,
    take_record,
)
from drama_cli.render_mix import (  # noqa: F401
    SceneOutcome,
    mix_record,
    mix_scene_from_store,
    remix,
    require_encoders,
    with_project_mix,
)
from drama_cli.render_plan import (  # noqa: F401
    MODES,
    LineJob,
    RenderSettings,
    ScenePlanner,
    cache_key,
    context_clip,
    display_text,
    job_from_plan,
    line_seed,
    pick_scenes,
    wanted_lines,
)
from drama_cli.render_scene import render_scene_group, render_scene_mode  # noqa: F401
from drama_cli.render_takes import list_takes, select_take  # noqa: F401
from drama_cli.takes import ReferenceHasher, TakeStore


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
        progress.start(sum(len(wanted_lines(s, settings)) for s in scenes))
        try:
            for scene in scenes:
                planner = ScenePlanner(script, scene, settings, store, notice)
                wanted = set(wanted_lines(scene, settings))
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
                                                 "scratch": report.scratch}, script))
        finally:
            progress.finish()
    return report
