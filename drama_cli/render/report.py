"""How a render and new takes came out: the render report, its exit code and the exit code of
the commands that make takes (`drama render`, `revise`, `edit`).

Exit codes: 0 all lines have a passing take; 3 every line has a usable take but some only a
degraded one (noise, clipping; flagged `needs_review`); 1 some line has no usable take
(silence, runaway: left out of the mix). One rule covers every command that writes a scene
mix (`drama render`, with or without `--line`, and `drama mix`): a line of a mixed scene that
the mix leaves out, or voices with a take made for older text, makes it exit 1.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from drama_cli.errors import EXIT_CHECKS_FAILED, EXIT_DEGRADED, EXIT_OK
from drama_cli.mix.project_mix import SceneOutcome
from drama_cli.render.line import LineOutcome


def takes_exit_code(takes: list[dict]) -> int:
    """0 when one of the new takes (dicts with a `status`) passed its checks (or there are
    none), else 3 when one is usable (degraded), else 1 (every new take unusable): the exit
    codes of `drama render`."""
    statuses = {t.get("status", "ok") for t in takes}
    if "ok" in statuses or not statuses:
        return EXIT_OK
    return EXIT_DEGRADED if "degraded" in statuses else EXIT_CHECKS_FAILED


def edit_exit_code(summary: dict) -> int:
    """`takes_exit_code` of a summary's `takes` (a revise or edit summary)."""
    return takes_exit_code(summary.get("takes", []))


@dataclass
class RenderReport:
    """The result of a render: every line's outcome, every scene's mix, and the engine used."""

    engine: str
    scratch: bool
    out: str
    lines: list[LineOutcome] = field(default_factory=list)
    scenes: list[SceneOutcome] = field(default_factory=list)
    kept: tuple[str, ...] = ()  # lines kept as they are (`--keep`): stale, not left out
    new_takes: dict[str, list[int]] = field(default_factory=dict)  # line id -> take numbers made
    # A cluster render's workers: node, units, busy_s and wall_s (seconds), failures, restarts.
    workers: list[dict] = field(default_factory=list)

    @property
    def made(self) -> int:
        """Takes this render made (every stored attempt, retries and `--takes` slots included)."""
        return sum(len(numbers) for numbers in self.new_takes.values())

    def count(self, status: str) -> int:
        """Number of lines with `status`."""
        return sum(1 for line in self.lines if line.status == status)

    @property
    def calls(self) -> int:
        """Backend calls made by this render."""
        return sum(line.calls for line in self.lines)

    @property
    def left_out(self) -> list[str]:
        """Lines of the scenes mixed that their mix does not deliver as the script has them
        (`SceneOutcome.left_out`: no usable take, or a take made for older text), whether or
        not this render was asked to render them; lines kept with `--keep` are not counted."""
        return [line for scene in self.scenes for line in scene.left_out if line not in self.kept]

    @property
    def exit_code(self) -> int:
        """1 when a line failed or a mix left a line out, 3 when a line is degraded, else 0
        (module docstring)."""
        if self.count("failed") or self.left_out:
            return EXIT_CHECKS_FAILED
        if self.count("degraded"):
            return EXIT_DEGRADED
        return EXIT_OK

    def to_dict(self) -> dict:
        """JSON-ready form of the report (the CLI's `--json`)."""
        return {
            "engine": self.engine,
            "scratch": self.scratch,
            "out": self.out,
            "exit_code": self.exit_code,
            "backend_calls": self.calls,
            "left_out": self.left_out,
            "counts": {
                **{s: self.count(s) for s in ("rendered", "reused", "degraded", "failed")},
                "new_takes": self.made,
            },
            "new_takes": self.new_takes,
            "lines": [line_dict(x) for x in self.lines],
            "scenes": [dataclasses.asdict(x) for x in self.scenes],
            **({"workers": self.workers} if self.workers else {}),
        }


def line_dict(outcome: LineOutcome) -> dict:
    """A line of the JSON report: its outcome, less its new takes (the report's `new_takes`
    lists them for every line)."""
    row = dataclasses.asdict(outcome)
    del row["new_takes"]
    return row


def new_takes_by_line(scenes: list, made: dict[tuple[str, str], list[int]]) -> dict[str, list[int]]:
    """line id -> numbers of the takes a render stored, in script order (the lines of
    `scenes`), lines with none left out; made: (scene id, line id) -> take numbers."""
    return {
        line.id: sorted(made[scene.id, line.id])
        for scene in scenes
        for line in scene.lines
        if made.get((scene.id, line.id))
    }


def outcome_takes(outcomes: list[LineOutcome]) -> dict[tuple[str, str], list[int]]:
    """(scene id, line id) -> the numbers of the takes stored for each line of `outcomes`."""
    return {(o.scene_id, o.line_id): o.new_takes for o in outcomes if o.new_takes}


def new_takes_text(made: dict[str, list[int]], most: int = 8) -> str:
    """`3 new takes (l1: take 2, 3; l2: take 2)` for a summary, naming at most `most` lines."""
    count = sum(len(numbers) for numbers in made.values())
    if not count:
        return "no new takes"
    named = [
        f"{line}: take {', '.join(map(str, numbers))}"
        for line, numbers in list(made.items())[:most]
    ]
    more = f"; {len(made) - most} more lines" if len(made) > most else ""
    return f"{count} new take{'s' if count != 1 else ''} ({'; '.join(named)}{more})"
