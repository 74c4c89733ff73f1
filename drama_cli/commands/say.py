"""`drama say`: text in, audio out, in a cast member's voice, without a script or a project
(`drama_cli.render.say`).

Audio goes to stdout (`-o -`, the default) or to `-o FILE`; with `--json` the audio's sample
format and what was voiced go to stderr as JSON, since stdout holds the audio.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path

import typer

from drama_cli.backends import registry  # called through the module: tests replace make_backend
from drama_cli.commands import options as opt
from drama_cli.commands.output import SCRATCH_LABEL, notice, refuse_audio_to_terminal
from drama_cli.errors import UsageError
from engine.files import publish, staged_path

RATE_HELP = "44,100 Hz mono; wav and pcm are signed 16-bit little-endian"


@opt.BACKEND.into("backend")
def say_command(
    text: str = typer.Argument(..., help="The text to say, or - to read it from stdin."),
    voice: str | None = typer.Option(None, "--voice", help="Reference clip of the voice."),
    transcript: str | None = typer.Option(
        None, "--transcript", help="What the --voice clip says, word for word."
    ),
    library: str | None = typer.Option(
        None,
        "--library",
        help="A voice of the voice library, as a cast's 'voice: library:NAME' names it "
        "(the library: $DRAMA_VOICE_LIBRARY, else voices/ in the user's data folder).",
    ),
    cast: str | None = typer.Option(None, "--cast", help="Cast file (YAML) holding the voice."),
    as_name: str | None = typer.Option(None, "--as", help="The cast member of --cast who speaks."),
    output: str = typer.Option(
        "-",
        "-o",
        "--output",
        help="Audio file to write, or - for stdout (nothing else is written).",
    ),
    format: str | None = typer.Option(
        None,
        "--format",
        help=(
            f"wav, flac, mp3 or pcm (raw samples, no header), {RATE_HELP}; wav and pcm are"
            " written as each chunk is made (default: the -o file's suffix, else wav)."
        ),
    ),
    stream: bool = typer.Option(
        False,
        "--stream",
        help=(
            "Read stdin as it arrives and voice it piece by piece with the stream layout: each"
            " piece hears the next one as lookahead and the last takes as context."
        ),
    ),
    by: str = typer.Option(
        "sentence", "--by", help="Where --stream cuts the input: sentence or paragraph."
    ),
    lookahead_wait: float = typer.Option(
        0.5,
        "--lookahead-wait",
        help="Seconds a --stream piece waits for the next one before it is voiced without it.",
    ),
    keep: str | None = typer.Option(
        None, "--keep", help="Project folder where the takes are stored, as a render stores them."
    ),
    seed: int = opt.BASE_SEED,
    retries: int = typer.Option(2, help="Extra attempts when a chunk fails its checks (0..100)."),
    max_chars: int = opt.MAX_CHARS,
    no_normalize: bool = opt.NO_NORMALIZE,
    backend: dict = None,  # the BACKEND group's options: --engine, --model, --device, ...
    as_json: bool = typer.Option(
        False, "--json", help="Print the audio's format and what was voiced as JSON on stderr."
    ),
) -> None:
    """Say text in a voice: the text pipeline of a script line, audio out as it is made."""
    # lazy: the script reader, the compiler and numpy, 1 s at start-up
    from drama_cli.render.say import SAY_FORMATS, say_script
    from drama_cli.takes.store import TakeStore

    who = _voice(voice, transcript, cast, as_name, library)
    kind = (format or _suffix(output, SAY_FORMATS) or "wav").lower()
    settings = _settings(
        kind, text, stream, by, lookahead_wait, retries, seed, max_chars, no_normalize
    )
    source = "stdin" if text == "-" else "<text>"
    if not stream:
        text = _stdin_text() if text == "-" else text
        if not text.strip():
            raise UsageError("no text to say: give the text, or - with text on stdin")
        say_script([text], who, settings.normalize, source=source)  # refused before a model loads
    else:
        say_script(["Hello."], who, settings.normalize)  # the voice, checked before any input
    if output == "-":
        refuse_audio_to_terminal()
    engine = registry.make_backend(opt.backend_choice(backend), notice=notice)
    try:
        store = TakeStore(_keep_folder(keep)) if keep is not None else None
        report = _say_to_output(
            output,
            kind,
            lambda sink: _sayer(engine, who, sink, settings, store, source),
            text if not stream else None,
        )
    finally:
        engine.close()
    if engine.scratch:
        notice(f"note: {SCRATCH_LABEL}")
    if as_json:
        fields = {"output": output, "format": kind, "engine": engine.name, **report.to_dict()}
        print(json.dumps(fields, indent=2), file=sys.stderr)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _settings(kind, text, stream, by, lookahead_wait, retries, seed, max_chars, no_normalize):
    """The `SaySettings` of the command's options; UsageError for a value out of range."""
    # lazy: the script reader, the compiler and numpy, 1 s at start-up
    from drama_cli.render.say import SAY_FORMATS, SaySettings
    from drama_cli.takes.jobs import check_max_chars

    if kind not in SAY_FORMATS:
        raise UsageError(f"unknown --format {kind!r}; expected one of {', '.join(SAY_FORMATS)}")
    if stream and text != "-":
        raise UsageError("--stream reads stdin: give - as the text")
    if by not in ("sentence", "paragraph"):
        raise UsageError(f"unknown --by {by!r}; expected sentence or paragraph")
    if not 0 <= lookahead_wait <= 60:
        raise UsageError(f"--lookahead-wait must be between 0 and 60 s, got {lookahead_wait}")
    if not 0 <= retries <= 100:
        raise UsageError(f"--retries must be between 0 and 100, got {retries}")
    return SaySettings(
        seed=seed,
        retries=retries,
        max_chars=check_max_chars(max_chars),
        normalize=not no_normalize,
        lookahead_wait_s=lookahead_wait,
        by=by,
    )


def _sayer(engine, who, sink, settings, store, source):
    """The `Sayer` that voices into `sink`, its messages placed in `source`."""
    from drama_cli.render.say import Sayer  # lazy: the compiler and numpy, 1 s at start-up

    sayer = Sayer(engine, who, sink, settings, store, notice)
    sayer.source = source
    return sayer


def _say_to_output(output: str, kind: str, make_sayer, text):
    """Voice `text` (None: stdin as it arrives) into `output` (`-`: stdout); a file is written
    under a temporary name and renamed once complete, and removed on any failure. Returns the
    report."""
    from drama_cli.render.say import AudioSink  # lazy: numpy, 0.2 s at start-up

    staged = target = None
    try:
        if output == "-":
            target = sys.stdout.buffer
        else:
            staged, target = _open_output(output)
        sink = AudioSink(target, kind)
        sayer = make_sayer(sink)
        report = _say_streamed(sayer) if text is None else sayer.say(text)
        if report.chunks == 0:
            raise UsageError("no text to say: stdin was empty")
        sink.close()
        if target is not sys.stdout.buffer:
            target.close()
        if staged is not None:
            publish([(staged, Path(output))])
            staged = None
        return report
    finally:
        if target is not None and target is not sys.stdout.buffer:
            target.close()
        if staged is not None:
            staged.unlink(missing_ok=True)


def _say_streamed(sayer):
    """`say_stream` over stdin; the first Ctrl-C finishes the piece being voiced and stops
    reading, a second one interrupts."""
    from drama_cli.render.say import say_stream  # lazy: the compiler and numpy, 1 s at start-up

    stop = threading.Event()

    def finish(signum, frame) -> None:
        stop.set()
        notice("stopping after the piece being voiced (Ctrl-C again to interrupt)")
        signal.signal(signal.SIGINT, signal.default_int_handler)

    earlier = signal.signal(signal.SIGINT, finish)
    try:
        return say_stream(sayer, sys.stdin.buffer, stop)
    finally:
        signal.signal(signal.SIGINT, earlier)


def _stdin_text() -> str:
    """All of stdin as text (UsageError when it is not UTF-8)."""
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("standard input is not UTF-8 text") from None


def _voice(clip, transcript, cast, name, library=None):
    """The `Voice` the options give: a clip and its transcript, a library voice, or a cast
    file and a name; UsageError for none, two, or half of one."""
    from drama_cli.render.say import Voice  # lazy: the compiler and numpy, 1 s at start-up

    given = [clip is not None, library is not None, cast is not None or name is not None]
    if sum(given) > 1:
        raise UsageError("give one voice: --voice CLIP, --library NAME or --cast FILE --as NAME")
    if library is not None:
        if transcript is not None:
            raise UsageError(
                "--transcript is what the --voice clip says; a library voice has its own"
            )
        return Voice(library=library)
    if clip is not None:
        if not Path(clip).is_file():
            raise UsageError(f"--voice {clip}: no such file")
        return Voice(clip=str(Path(clip).resolve()), transcript=transcript)
    if transcript is not None:
        raise UsageError("--transcript is what the --voice clip says; give --voice CLIP too")
    if cast is None and name is None:
        raise UsageError(
            "no voice: give --voice CLIP --transcript TEXT, --library NAME, or --cast FILE --as NAME"
        )
    if cast is None or name is None:
        raise UsageError("a cast member's voice needs both --cast FILE and --as NAME")
    return Voice(name=name, cast=cast)


def _suffix(path: str, kinds) -> str | None:
    """The format named by `path`'s suffix when it is one of `kinds` (None for `-`)."""
    suffix = Path(path).suffix.lower().lstrip(".") if path != "-" else ""
    return suffix if suffix in kinds else None


def _open_output(path: str):
    """A temporary file beside the `-o` file and that file opened for writing (UsageError,
    one line, when it cannot be); `publish` renames it onto `path` once it is complete."""
    if Path(path).is_dir():
        raise UsageError(f"-o {path} is a folder; give an audio file")
    if Path(path).exists() and not Path(path).is_file():  # /dev/null, a named pipe
        try:
            return None, open(path, "wb")
        except OSError as err:
            raise UsageError(f"cannot write {path}: {err.strerror or err}") from None
    try:
        staged = staged_path(Path(path))
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}") from None
    try:
        return staged, open(staged, "w+b")
    except OSError as err:
        staged.unlink(missing_ok=True)
        raise UsageError(f"cannot write {path}: {err.strerror or err}") from None


def _keep_folder(keep: str) -> Path:
    """The `--keep` project folder, made when missing (UsageError when it cannot be)."""
    root = Path(keep)
    if root.exists() and not root.is_dir():
        raise UsageError(f"--keep {keep} is a file; give a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot create {keep}: {err.strerror or err}") from None
    return root


def register(app: typer.Typer) -> None:
    """Add `say` to the app."""
    app.command("say")(say_command)
