"""`drama render`, `drama takes` and `drama mix`: thin commands over `drama_cli.render`.

Results go to stdout (a table, or JSON with `--json`); notices and progress bars to stderr,
bars only when stderr is a terminal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from drama_cli.backends.registry import engine_help
from drama_cli.commands import options as opt
from drama_cli.compile.modes import DEFAULT_MODE, mode_help
from drama_cli.errors import ScriptError, UsageError
from drama_cli.takes.project import open_project

SCRATCH_LABEL = "SCRATCH timing draft (piper voice), not a Drama 3 performance"


def _err(message: str) -> None:
    print(f"drama: {message}", file=sys.stderr)


def _load(script: str, cast: Optional[str]):
    """The script, its warnings printed; a bad script raises its first problem, saying how many
    more `drama check` lists."""
    from drama_cli.script.check import with_check_count
    from drama_cli.script.load import load_script

    try:
        loaded = load_script(script, cast=cast)
    except ScriptError as err:
        raise with_check_count(err, script, cast) from None
    for warning in loaded.warnings:
        _err(f"warning: {warning}")
    return loaded


def _settings(scene, line, mode=DEFAULT_MODE, takes=1, seed=0, retries=2, formats=None,
              preset=None, gap=None, mix=True, room_tone=None, head=None, tail=None, batch=None):
    """RenderSettings from the command line; mix options only for the flags given.
    Raises UsageError for a value out of range (a gap, head or tail not in 0..60 s, ...)."""
    from drama_cli.mix.loudness import get_preset
    from drama_cli.mix.options import cli_room_tone
    from drama_cli.render.plan import RenderSettings

    options = {}
    if preset is not None:
        get_preset(preset)  # an unknown preset is refused before any model is looked for
        options["preset"] = preset
    given = {"gap_s": gap, "head_s": head, "tail_s": tail, "room_tone": cli_room_tone(room_tone)}
    options.update({key: value for key, value in given.items() if value is not None})
    settings = RenderSettings(scenes=tuple(scene or ()), lines=tuple(line or ()), mode=mode,
                              takes=takes, seed=seed, retries=retries,
                              formats=tuple(formats or ()), mix=mix, mix_options=options,
                              batch=batch)
    settings.validate()
    return settings


class RichProgress:
    """Rich progress bars on stderr: lines (described with the current line and take) and,
    for engines that stream, frames of the current take. Implements the methods of
    `drama_cli.render.line.Progress`."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(),
                             console=Console(stderr=True), transient=True)
        self._task = None
        self._frames = None
        self._streams = None

    def start(self, total_lines):
        self._bar.start()
        self._task = self._bar.add_task("lines", total=total_lines)

    def frames(self, job, frames, budget):
        if self._frames is None:
            self._frames = self._bar.add_task("frames", total=budget)
        self._bar.update(self._frames, completed=frames, total=budget)

    def streams(self, active, size):
        if size > 1:
            if self._streams is None:
                self._streams = self._bar.add_task("streams", total=size)
            self._bar.update(self._streams, completed=active)

    def line(self, job):
        self._bar.update(self._task, description=f"{job.line_id} {job.speaker}")

    def attempt(self, job, slot, attempt, seed):
        if self._frames is not None:
            self._bar.update(self._frames, completed=0)
        suffix = f" (retry {attempt})" if attempt else ""
        self._bar.update(self._task, description=f"{job.line_id} {job.speaker} take {slot + 1}{suffix}")

    def done(self, outcome):
        self._bar.advance(self._task)

    def finish(self):
        self._bar.stop()


class LineLog:
    """Progress for logs and pipes (stderr not a terminal): one line on stderr per finished
    line, `drama: [3/12] LINE SPEAKER: rendered take 1, 2.31 s`, with `name_new_takes` naming
    the takes made when they are not just the selected one (`(new takes 2, 3)`). Implements
    the methods of `drama_cli.render.line.Progress`."""

    def __init__(self, name_new_takes: bool = False):
        self._total = self._done = 0
        self._name_new_takes = name_new_takes
        self._streams = ""

    def start(self, total_lines):
        self._total = total_lines

    def line(self, job):
        pass

    def attempt(self, job, slot, attempt, seed):
        pass

    def frames(self, job, frames, budget):
        pass

    def streams(self, active, size):
        self._streams = f" [{active}/{size} streams]" if size > 1 else ""

    def done(self, outcome):
        self._done += 1
        take = f" take {outcome.take}, {outcome.duration_s:.2f} s" if outcome.take else ""
        made = outcome.new_takes
        if self._name_new_takes and made and made != [outcome.take]:
            take += f" (new takes {', '.join(map(str, made))})"
        problem = f" ({outcome.message})" if outcome.message else ""
        _err(f"[{self._done}/{self._total}] {outcome.line_id} {outcome.speaker}: {outcome.status}{take}{problem}{self._streams}")

    def finish(self):
        pass


def _progress(name_new_takes: bool = False):
    """Rich bars when stderr is a terminal, else one line per finished line (`LineLog`)."""
    return RichProgress() if sys.stderr.isatty() else LineLog(name_new_takes)


def _console():
    """A rich console for results on stdout: as wide as the terminal, or unlimited when stdout
    is a pipe or a file, so tables keep full ids."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=10_000)


def _print_report(report) -> None:
    from rich.table import Table

    from drama_cli.render.report import new_takes_text

    console = _console()
    title = f"drama render: {report.engine}"
    if report.scratch:
        title += f" ({SCRATCH_LABEL})"
    table = Table(title=title, title_justify="left")
    for column in ("scene", "line", "speaker", "status", "take", "new takes", "seconds", "text / problem"):
        table.add_column(column)
    for line in report.lines:
        text = line.message or line.text
        made = ", ".join(map(str, report.new_takes.get(line.line_id, []))) or "-"
        table.add_row(line.scene_id, line.line_id, line.speaker, line.status,
                      str(line.take or "-"), made, f"{line.duration_s:.2f}", text[:60])
    console.print(table)
    total = sum(line.duration_s for line in report.lines)
    console.print(f"lines: rendered {report.count('rendered')}, reused {report.count('reused')}, "
                  f"degraded {report.count('degraded')}, failed {report.count('failed')}; "
                  f"{new_takes_text(report.new_takes)}; {total:.1f} s of selected takes; "
                  f"{report.calls} backend calls; project {report.out}")
    for worker in report.workers:
        units, restarts = worker["units"], worker["restarts"]
        console.print(f"worker {worker['worker']} on {worker['node']}: {units} unit{'s' * (units != 1)}, "
                      f"{worker['busy_s']:.1f} s busy, {worker['failures']} lost, "
                      f"{restarts} restart{'s' * (restarts != 1)}")
    for scene in report.scenes:
        _print_scene(console, scene)


def _print_scene(console, scene) -> None:
    for problem in scene.problems:
        _err(f"scene {scene.scene_id}: {problem}; left out of the mix")
    for note in scene.moved:
        _err(f"scene {scene.scene_id}: note: {note}")
    if scene.skipped:
        console.print(f"scene {scene.scene_id}: mix skipped: {scene.skipped}")
        if scene.stale:
            _err(f"scene {scene.scene_id}: the old mix files are stale: {', '.join(scene.stale)}")
        return
    from drama_cli.mix.loudness import level_text

    level = level_text(scene.loudness.get("preset", "none"), scene.loudness.get("loudness", {}))
    left_out = f"; left out: {', '.join(scene.missing)}" if scene.missing else ""
    console.print(f"scene {scene.scene_id}: {scene.files.get('wav') or next(iter(scene.files.values()), '')}"
                  f" {scene.duration_s:.1f} s, {level}{left_out}")
    if scene.engines_note:
        _err(f"scene {scene.scene_id}: note: {scene.engines_note}")
    for stale in scene.stale_takes:
        _err(f"scene {scene.scene_id}: stale: {stale}; render the line again")
    for issue in scene.loudness.get("issues", []):
        console.print(f"scene {scene.scene_id}: mix issue: {issue}")


def render_command(
    script: str = typer.Argument(..., help="Script file (.yaml, .fountain) or - for stdin."),
    scene: Optional[List[str]] = typer.Option(None, "--scene", help="Scene id to render (repeatable)."),
    line: Optional[List[str]] = typer.Option(None, "--line", help="Line id to render (repeatable)."),
    mode: str = typer.Option(DEFAULT_MODE, help=mode_help()),
    takes: int = typer.Option(1, help="Passing takes wanted per line."),
    seed: int = opt.BASE_SEED,
    retries: int = typer.Option(2, help="Extra attempts when a take fails its checks."),
    engine: str = typer.Option("auto", help=engine_help()),
    model: Optional[str] = typer.Option(None, help="Drama 3 model folder (else $DRAMA_MODEL or the HF cache)."),
    device: Optional[str] = typer.Option(None, help="Torch device for drama3 (default: cuda if present)."),
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.CAST,
    fmt: Optional[List[str]] = opt.FORMATS,
    preset: Optional[str] = opt.PRESET,
    gap: Optional[float] = opt.GAP,
    room_tone: Optional[str] = opt.ROOM_TONE,
    head: Optional[float] = opt.HEAD,
    tail: Optional[float] = opt.TAIL,
    qc: Optional[str] = typer.Option(None, help="Extra take check: asr (speech recognition)."),
    asr_model: Optional[str] = typer.Option(None, help="CTranslate2 Whisper model folder for --qc asr."),
    asr_threshold: Optional[float] = typer.Option(None, help="Highest word error rate --qc asr accepts (default 0.25)."),
    batch: Optional[int] = typer.Option(None, "--batch", help="Streams voiced together (default: the engine's: for drama3 16 on CUDA and 1 on the CPU, the CPU cores for scratch; with --cluster, every worker's share added up); 1 renders one take at a time, in script order."),
    keep: Optional[List[str]] = typer.Option(None, "--keep", help="Line id whose selected take stays as it is even when the script changed since (reported stale; repeatable)."),
    no_normalize: bool = typer.Option(False, "--no-normalize", help="Send numbers and symbols as written (no number words)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    no_graph: bool = typer.Option(False, "--no-graph", help="On CUDA, decode drama3 frames eagerly instead of replaying the captured frame step."),
    gpu_memory: Optional[str] = opt.GPU_MEMORY,
    cluster: Optional[str] = typer.Option(None, "--cluster", help="Render on a Ray cluster: local[:N] (workers on this machine) or its address (auto, HOST:PORT, ray://HOST:PORT); needs the cluster extra: pip install -e '.\\[cluster]'."),
) -> None:
    """Render what is missing, select a take per line, mix each scene."""
    from drama_cli.compile.conversations import check_references
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.check import with_check_count
    from engine.files import file_sha256

    settings = _settings(scene, line, mode, takes, seed, retries, fmt, preset, gap,
                         room_tone=room_tone, head=head, tail=tail, batch=batch)
    settings.keep = tuple(keep or ())
    if asr_threshold is not None:
        from drama_cli.mix.options import check_number

        check_number("--asr-threshold", asr_threshold, 0.0, 1.0)
        if qc is None:
            raise UsageError("--asr-threshold is the limit of the speech-recognition check; add --qc asr")
    loaded = _load(script, cast)
    loaded.normalize = loaded.normalize and not no_normalize
    try:
        check_references(loaded)
    except ScriptError as err:
        raise with_check_count(err, script, cast) from None
    if qc is not None:
        settings.checks = _qc_checks(qc, asr_model, asr_threshold)
    store = open_project(script, out, create=True)
    backend = _backend(cluster, engine, model, device, not no_graph, gpu_memory)
    info = {"script": loaded.source, "title": loaded.title}
    if script != "-":
        info["script_sha256"] = file_sha256(Path(script))
    try:
        report = render_script(loaded, store, backend, settings, _progress(name_new_takes=True),
                               info, notice=_err)
    finally:
        backend.close()
    if cluster is not None:
        report.workers = backend.worker_stats()
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        _print_report(report)
    if report.scratch and not as_json:
        _err(f"note: {SCRATCH_LABEL}")
    if report.exit_code:
        from drama_cli.errors import TakesNeedReview

        raise TakesNeedReview(report)


def _backend(cluster: Optional[str], engine: str, model: Optional[str], device: Optional[str],
             graph: bool, gpu_memory: Optional[str] = None):
    """The render's backend: built here, or, with `--cluster`, one worker per slot of the Ray
    cluster, each building it on its node (`drama_cli.backends.cluster`)."""
    if cluster is None:
        from drama_cli.backends.registry import make_backend

        return make_backend(engine, model, notice=_err, device=device, graph=graph, gpu_memory=gpu_memory)
    if gpu_memory is not None:
        raise UsageError("--gpu-memory applies to a render on this machine, not with --cluster")
    from drama_cli.backends.cluster.backend import make_cluster_backend

    return make_cluster_backend(cluster, engine, model, device, graph, notice=_err)


def _qc_checks(kind: str, asr_model: Optional[str], threshold: Optional[float]) -> list:
    from drama_cli.mix.options import check_number
    from drama_cli.render.line import asr_take_check

    if kind != "asr":
        raise UsageError(f"unknown --qc {kind!r}; the only check is asr")
    if threshold is not None:
        check_number("--asr-threshold", threshold, 0.0, 1.0)
    return [asr_take_check(asr_model, threshold)]


def takes_command(
    script: str = typer.Argument(..., help="Script file or - for stdin."),
    scene: Optional[List[str]] = opt.SCENES,
    line: Optional[List[str]] = typer.Option(None, "--line", help="Line id (repeatable)."),
    select: Optional[int] = typer.Option(None, help="Select take N for the one --line given."),
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.CAST,
    as_json: bool = opt.JSON,
) -> None:
    """List the takes of lines, or select one."""
    from drama_cli.render.plan import pick_scenes
    from drama_cli.takes.selection import list_takes, select_take
    loaded = _load(script, cast)
    store = open_project(script, out)
    settings = _settings(scene, line)
    if select is not None:
        if len(settings.lines) != 1:
            raise UsageError("--select needs exactly one --line")
        select_take(loaded, store, settings.lines[0], select)
    listing = list_takes(loaded, store, pick_scenes(loaded, settings), settings.lines)
    if as_json:
        print(json.dumps(listing, indent=2))
        return
    _print_takes(listing)


def _print_takes(listing: list[dict]) -> None:
    """One row per take: its number (`*` when selected), length, the take it came from, its
    words, the note or edit that made it and its status and checks (stale when made for older
    text); a line without takes shows the script's words. The scene and the engine go in the
    title when they are the same for every row, else in columns; the seeds are left out on a
    terminal narrower than 120 columns (`--json` has them)."""
    from rich import box
    from rich.table import Table

    console = _console()
    scenes = {row["scene"] for row in listing}
    engines = {t.get("engine", "") for row in listing for t in row["takes"] if "engine" in t}
    shared = {"scene": scenes, "engine": engines}
    title = "; ".join(f"{name} {next(iter(values))}" for name, values in shared.items()
                      if len(values) == 1)
    table = Table(title=f"takes ({title})" if title else "takes", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    short = ["scene"] if len(scenes) > 1 else []
    short += ["line", "take", "s", "from"] + (["seed"] if console.width >= 120 else [])
    short += ["engine"] if len(engines) > 1 else []
    for column in short:
        table.add_column(column, no_wrap=True, justify="right" if column in ("s", "seed") else "left")
    for column in ("words", "note / edit", "checks"):
        table.add_column(column, overflow="fold")
    for row in listing:
        for take in row["takes"]:
            problem = take.get("problem") or ", ".join(take.get("failures", []))
            checks = f"{take.get('status', '')}: {problem}" if problem else take.get("status", "")
            if take.get("stale"):
                checks = f"stale (made for older text); {checks}"
            if take.get("wer") is not None:
                checks += f"; WER {take['wer']:.2f}"
            parent = take.get("parent_take")
            values = {"scene": row["scene"], "line": row["line"],
                      "take": f"{take['take']}{' *' if take.get('selected') else ''}",
                      "s": f"{take.get('duration_s', 0):.2f}",
                      "from": "-" if parent is None else str(parent),
                      "seed": str(take.get("seed", "")), "engine": take.get("engine", "")}
            table.add_row(*[values[c] for c in short], take.get("text", ""), _take_change(take),
                          checks)
        if not row["takes"]:
            values = {"scene": row["scene"], "line": row["line"], "take": "-"}
            table.add_row(*[values.get(c, "") for c in short], row.get("text", ""), "",
                          "not rendered")
    console.print(table)


def _take_change(take: dict) -> str:
    """What made a take from its parent: `edit 0.30-0.75 s over 'never' -> 'hardly ever'` (the
    span, the words it covered and, when known, the words said over it; or the whole line voiced
    again), `note: softer`, or `-` for a first take."""
    edit = take.get("edit")
    if edit:
        if edit.get("whole_line"):
            change = f"edit: whole line voiced again as {edit.get('new_text')!r}"
        else:
            start, end = edit.get("span_s") or (0.0, 0.0)
            change = f"edit {start:.2f}-{end:.2f} s over {' '.join(edit.get('covered_words') or [])!r}"
            if edit.get("middle_text"):
                change += f" -> {edit['middle_text']!r}"
        return change + ("; long silence in the splice" if edit.get("flagged") else "")
    return f"note: {take['note']}" if take.get("note") else "-"


def mix_command(
    script: str = typer.Argument(..., help="Script file or - for stdin."),
    scene: Optional[List[str]] = opt.SCENES,
    out: Optional[str] = opt.OUT,
    cast: Optional[str] = opt.CAST,
    fmt: Optional[List[str]] = opt.FORMATS,
    preset: Optional[str] = opt.PRESET,
    gap: Optional[float] = opt.GAP,
    room_tone: Optional[str] = opt.ROOM_TONE,
    head: Optional[float] = opt.HEAD,
    tail: Optional[float] = opt.TAIL,
    output: Optional[str] = typer.Option(None, "-o", "--output", help="'-': also write the one --scene's mix to stdout (WAV, or FLAC with --format flac); results then go to stderr."),
    as_json: bool = opt.JSON,
) -> None:
    """Mix scenes again from their selected takes, without rendering (the render's mix
    settings unless given here). Exits 1 when a line is left out of a mix."""
    from drama_cli.render.remix import remix
    streamed = _stdout_format(output, scene, fmt)
    loaded = _load(script, cast)
    store = open_project(script, out)
    if not store.project_path.exists():
        raise UsageError(f"{store.root} is not a rendered project; run drama render first")
    if streamed:  # the saved formats stay written; the streamed one is added
        from drama_cli.render.remix import DEFAULT_FORMATS

        saved = (store.project().get("mix") or {}).get("formats") or list(DEFAULT_FORMATS)
        fmt = list(dict.fromkeys([*saved, streamed]))
    settings = _settings(scene, None, formats=fmt, preset=preset, gap=gap, room_tone=room_tone,
                         head=head, tail=tail)
    scenes = remix(loaded, store, settings, formats_given=bool(fmt))
    if streamed and scenes and scenes[0].files.get(streamed):
        audio_to_stdout(Path(scenes[0].files[streamed]))
    if as_json and not streamed:
        import dataclasses

        print(json.dumps([dataclasses.asdict(s) for s in scenes], indent=2))
    else:
        from rich.console import Console

        console = Console(stderr=True) if streamed else _console()
        for outcome in scenes:
            _print_scene(console, outcome)
    broken = [p for s in scenes for p in s.problems]
    if broken:
        from drama_cli.errors import CorruptSelection

        raise CorruptSelection(broken)
    left_out = [line for s in scenes for line in s.missing]
    stale = [line for s in scenes for line in s.stale_lines]
    if left_out or stale:
        from drama_cli.errors import LinesLeftOut

        raise LinesLeftOut(left_out, stale)


def _stdout_format(output: Optional[str], scenes, formats) -> str | None:
    """The format `-o -` streams (`wav` unless --format flac), None without `-o`. UsageError
    for another -o, for anything but exactly one --scene, or a format that is not wav or flac."""
    if output is None:
        return None
    if output != "-":
        raise UsageError("-o takes only '-' (stdout); mixes are written to the project folder")
    if len(scenes or ()) != 1:
        raise UsageError("-o - writes one scene: give exactly one --scene ID")
    kinds = [f.lower().lstrip(".") for f in formats or ["wav"]]
    if len(kinds) != 1 or kinds[0] not in ("wav", "flac"):
        raise UsageError("-o - writes WAV or FLAC: give at most one --format, wav or flac")
    return kinds[0]


def audio_to_stdout(path: Path) -> None:
    """Copy an audio file to stdout in 1 MB blocks (for `| sox` and `| ffmpeg` pipelines)."""
    import shutil

    with open(path, "rb") as source:
        shutil.copyfileobj(source, sys.stdout.buffer, 1 << 20)
    sys.stdout.buffer.flush()


def register(app: typer.Typer) -> None:
    """Add `render`, `takes` and `mix` to the app."""
    app.command("render")(render_command)
    app.command("takes")(takes_command)
    app.command("mix")(mix_command)
