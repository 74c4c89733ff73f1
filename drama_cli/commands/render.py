"""`drama render`: render what is missing, select a take per line, mix each scene
(`drama_cli.render.scheduler`).

Results go to stdout (a table, or JSON with `--json`); notices and progress bars to stderr,
bars only when stderr is a terminal.
"""

from __future__ import annotations

import json

import typer

from drama_cli.backends import registry  # called through the module: tests replace make_backend
from drama_cli.commands import options as opt
from drama_cli.commands.inputs import load_checked, render_project, render_settings, script_info
from drama_cli.commands.licence import notice_before_render
from drama_cli.commands.mix import print_scene
from drama_cli.commands.output import SCRATCH_LABEL, notice, results_console
from drama_cli.commands.progress import stderr_progress
from drama_cli.errors import ScriptError, TakesNeedReview, UsageError
from drama_cli.qc.limits import check_qc_limits, project_qc_limits, qc_record
from drama_cli.qc.take_checks import asr_take_check
from drama_cli.script.mix_settings import check_number


@opt.MIX.into("mix")
@opt.BACKEND.into("backend")
def render_command(
    script: str = opt.SCRIPT,
    scene: list[str] | None = opt.SCENES,
    line: list[str] | None = opt.LINES,
    mode: str = opt.MODE,
    takes: int = typer.Option(1, help="Passing takes wanted per line."),
    seed: int = opt.BASE_SEED,
    retries: int = typer.Option(2, help="Extra attempts when a take fails its checks (0..100)."),
    backend: dict = None,  # the BACKEND group's options: --engine, --model, --device, --gpu-memory
    out: str | None = opt.OUT,
    cast: str | None = opt.CAST,
    mix: dict = None,  # the MIX group's options: --format, --preset, --gap, --room-tone, --head, --tail
    qc: str | None = typer.Option(
        None,
        help=(
            "Extra take checks, comma-separated: asr (speech recognition), voice (match to the"
            " character's reference clips), quality (naturalness); voice and quality need the"
            " qc extra."
        ),
    ),
    min_similarity: float | None = opt.MIN_SIMILARITY,
    min_quality: float | None = opt.MIN_QUALITY,
    asr_model: str | None = typer.Option(
        None, help="CTranslate2 Whisper model folder for --qc asr."
    ),
    asr_threshold: float | None = typer.Option(
        None, help="Highest word error rate --qc asr accepts (default 0.25)."
    ),
    batch: int | None = typer.Option(
        None,
        "--batch",
        help=(
            "Streams voiced together (default: the engine's: for drama3 16 on CUDA and 1 on the"
            " CPU, the CPU cores for scratch; with --cluster, every worker's share added up);"
            " 1 renders one take at a time, in script order."
        ),
    ),
    max_chars: int = opt.MAX_CHARS,
    keep: list[str] | None = typer.Option(
        None,
        "--keep",
        help=(
            "Line id whose selected take stays as it is even when the script changed since"
            " (reported stale; repeatable)."
        ),
    ),
    no_normalize: bool = opt.NO_NORMALIZE,
    as_json: bool = opt.JSON,
    cluster: str | None = typer.Option(
        None,
        "--cluster",
        help=(
            "Render on a Ray cluster: local[:N] (workers on this machine) or its address (auto,"
            " HOST:PORT, ray://HOST:PORT); needs the cluster extra: pip install -e '.[cluster]'."
        ),
    ),
) -> None:
    """Render what is missing, select a take per line, mix each scene."""
    from drama_cli.render import scheduler  # lazy: scipy, 1 s at start-up

    settings = render_settings(
        scene,
        line,
        mode=mode,
        takes=takes,
        seed=seed,
        retries=retries,
        batch=batch,
        keep=tuple(keep or ()),
        max_chars=max_chars,
    )
    flags = opt.mix_flags(**mix)
    _check_asr_threshold(asr_threshold, qc)
    loaded = _load_for_render(
        script, cast, no_normalize, settings, room_tones=flags.room_tone is None
    )
    store = render_project(script, out, loaded)
    min_similarity, min_quality = project_qc_limits(store, min_similarity, min_quality)
    if qc is not None:
        settings.checks = _qc_checks(
            qc, asr_model, asr_threshold, loaded, min_similarity, min_quality
        )
    info = script_info(loaded, script, cast)
    if qc_record(min_similarity, min_quality):  # kept with the project, as the mix settings
        info["qc"] = qc_record(min_similarity, min_quality)
    engine = _backend(cluster, backend)
    notice_before_render(store.root, engine, backend["model"], notice)
    try:
        report = scheduler.render_script(
            loaded,
            store,
            engine,
            settings,
            stderr_progress(name_new_takes=True),
            info,
            notice=notice,
            mix=flags,
        )
    finally:
        engine.close()
    if cluster is not None:
        report.workers = engine.worker_stats()
    _print_render(report, as_json)


def _check_asr_threshold(threshold: float | None, qc: str | None) -> None:
    """UsageError for an `--asr-threshold` out of 0..1 or without `--qc asr`."""
    if threshold is not None:
        check_number("--asr-threshold", threshold, 0.0, 1.0)
        if qc is None:
            raise UsageError(
                "--asr-threshold is the limit of the speech-recognition check; add --qc asr"
            )


def _print_render(report, as_json: bool) -> None:
    """The render's report (a table, or JSON); raises TakesNeedReview when a line needs a look."""
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        _print_report(report)
    if report.scratch and not as_json:
        notice(f"note: {SCRATCH_LABEL}")
    if report.exit_code:
        raise TakesNeedReview(report)


def _load_for_render(
    script: str, cast: str | None, no_normalize: bool, settings, room_tones: bool = True
):
    """The script (`load_checked`) with `--no-normalize` applied, its references and the
    sounds of the scenes `settings` renders (and mixes) checked, and their room tones unless
    `room_tones` is False (`--room-tone` overrides them)."""
    # lazy: scipy and the script reader, 1 s at start-up
    from drama_cli.compile.conversations import check_references
    from drama_cli.mix.options import check_mix_files
    from drama_cli.render.plan import pick_scenes
    from drama_cli.script.check import with_check_count

    loaded = load_checked(script, cast)
    loaded.normalize = loaded.normalize and not no_normalize
    try:
        check_references(loaded)
        check_mix_files(loaded, pick_scenes(loaded, settings), room_tones)
    except ScriptError as err:
        raise with_check_count(err, script, cast) from None
    return loaded


def _backend(cluster: str | None, flags: dict):
    """The render's backend from the `BACKEND` group's `flags` (one `BackendChoice`): built
    here, or, with `--cluster`, one worker per slot of the Ray cluster, each building it on its
    node (`drama_cli.backends.cluster`); a backend option that only makes sense on this machine
    (`OptionFlag.cluster` False) is refused with `--cluster`."""
    choice = opt.backend_choice(flags)
    if cluster is None:
        return registry.make_backend(choice, notice=notice)
    table = registry.option_table()
    for name in choice.options:
        if not table[name][0].cluster:
            raise UsageError(
                f"{table[name][0].flag} applies to a render on this machine, not with --cluster"
            )
    from drama_cli.backends.cluster.backend import (
        make_cluster_backend,  # lazy: the cluster's modules, 20 ms
    )

    return make_cluster_backend(cluster, choice, notice=notice)


def _qc_checks(
    kinds: str,
    asr_model: str | None,
    threshold: float | None,
    loaded,
    min_similarity: float,
    min_quality: float | None,
) -> list:
    """The extra take checks of `--qc` (speech recognition, its transcripts read with the
    number rules of the script's language, as the compiler writes the line; voice match;
    naturalness)."""
    # lazy: yaml and the script reader, 80 ms at start-up
    from drama_cli.compile.normalise import normalise_text
    from drama_cli.qc.quality import quality_take_check  # lazy: soxr, 0.13 s at start-up
    from drama_cli.qc.voice import voice_take_check
    from drama_cli.script.lexicon import speaker_language

    names = [name.strip() for name in kinds.split(",") if name.strip()]
    unknown = [name for name in names if name not in ("asr", "voice", "quality")]
    if unknown or not names:
        raise UsageError(f"unknown --qc {kinds!r}; the checks are asr, voice and quality")
    if threshold is not None:
        check_number("--asr-threshold", threshold, 0.0, 1.0)
    check_qc_limits(min_similarity, min_quality)
    checks = []
    if "asr" in names:
        language = speaker_language(loaded, "")
        said = lambda heard: normalise_text(heard, language)  # noqa: E731
        checks.append(asr_take_check(asr_model, threshold, said=said))
    if "voice" in names:
        checks.append(voice_take_check(loaded, min_similarity))
    if "quality" in names:
        checks.append(quality_take_check(min_quality))
    return checks


def _print_report(report) -> None:
    """The result table, then the summary and each scene's mix. Ids, speakers and statuses are
    never cut: on a narrow terminal the words fold instead; the scene goes in the title when
    every line has the same one."""
    from rich import box  # lazy: rich's tables, 14 ms at start-up
    from rich.table import Table

    from drama_cli.render.report import new_takes_text  # lazy: scipy, 1 s at start-up

    console = results_console()
    title = f"drama render: {report.engine}"
    if report.scratch:
        title += f" ({SCRATCH_LABEL})"
    scenes = {line.scene_id for line in report.lines}
    if len(scenes) == 1:
        title += f"; scene {next(iter(scenes))}"
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False
    )
    columns = ["scene"] * (len(scenes) > 1) + ["line", "speaker", "status", "take", "new", "s"]
    rows = []
    for line in report.lines:
        made = ", ".join(map(str, report.new_takes.get(line.line_id, []))) or "-"
        values = {
            "scene": line.scene_id,
            "line": line.line_id,
            "speaker": line.speaker,
            "status": line.status,
            "take": str(line.take or "-"),
            "new": made,
            "s": f"{line.duration_s:.2f}",
        }
        rows.append([values[column] for column in columns] + [(line.message or line.text)[:60]])
    for n, column in enumerate(columns):
        if column in ("scene", "line"):  # long ids fold onto a second row, never cut
            table.add_column(column, overflow="fold")
        else:
            table.add_column(
                column,
                no_wrap=True,
                justify="right" if column == "s" else "left",
                min_width=max([len(column)] + [len(row[n]) for row in rows]),
            )
    table.add_column("text / problem", overflow="fold", ratio=1, min_width=12)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    total = sum(line.duration_s for line in report.lines)
    console.print(
        f"lines: rendered {report.count('rendered')}, reused {report.count('reused')}, "
        f"degraded {report.count('degraded')}, failed {report.count('failed')}; "
        f"{new_takes_text(report.new_takes)}; {total:.1f} s of selected takes; "
        f"{report.calls} backend calls; project {report.out}"
    )
    for worker in report.workers:
        units, restarts = worker["units"], worker["restarts"]
        console.print(
            f"worker {worker['worker']} on {worker['node']}: {units} unit{'s' * (units != 1)}, "
            f"{worker['busy_s']:.1f} s busy, {worker['failures']} lost, "
            f"{restarts} restart{'s' * (restarts != 1)}"
        )
    for scene in report.scenes:
        print_scene(console, scene)


def register(app: typer.Typer) -> None:
    """Add `render` to the app."""
    app.command("render")(render_command)
