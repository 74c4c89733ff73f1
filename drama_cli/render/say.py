"""`drama say`: text voiced without a script file, chunk by chunk, as the audio is wanted.

The text goes through the same pipeline as a script line: it becomes a one-line script in
memory (`drama_cli.script.load.script_from_text`, so directions, tags, the cast file's lexicon
and language apply), is compiled by `drama_cli.compile.conversations.SceneCompiler` (number
words, chunking) and each chunk is voiced and checked with the signal checks
(`drama_cli.qc.take_checks.check_generation`), retried with the render's retry seeds until one
attempt passes. A chunk's audio goes to the `AudioSink` as soon as it is chosen, so a pipe
hears the first chunk while later ones are made; `--keep DIR` also stores each line as a take
of a project folder, as a render does (`drama_cli.render.line.store_attempt`).

Streamed input (`say_stream`): text arriving on a file object is cut into sentences (or at
blank lines) by `TextPieces` on a reader thread, and each piece is voiced with the `stream`
layout (`engine.layouts`, provisional): the piece, then after `<|endofturn|>` the next piece
as lookahead once it has arrived (or after `lookahead_wait_s`), with the stream's first take
and its last two as context, as history mode picks them. A backend whose `capabilities.layouts`
lacks `stream` voices each piece on its own request (history, else clone), said once.
"""

from __future__ import annotations

import codecs
import difflib
import io
import os
import queue
import re
import struct
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO

import numpy as np
import yaml

from drama_cli.backends.base import Backend, Generation
from drama_cli.compile.chunking import DEFAULT_MAX_CHARS, split_text
from drama_cli.compile.conversations import (
    DEFAULT_HISTORY_LINES,
    SceneCompiler,
    check_references,
)
from drama_cli.errors import ScriptError, SourcePosition, UsageError
from drama_cli.qc.signal import CheckReport
from drama_cli.qc.take_checks import check_generation
from drama_cli.render.line import (
    CHUNK_GAP_S,
    conclude_line,
    job_request,
    join_and_check,
    store_attempt,
)
from drama_cli.script.document import Script
from drama_cli.script.load import script_from_text
from drama_cli.script.voice_library import LIBRARY_PREFIX
from drama_cli.takes.jobs import (
    LineJob,
    RenderSettings,
    cache_key,
    job_from_plan,
    line_seed,
    retry_seed,
)
from drama_cli.takes.keys import ReferenceHasher
from drama_cli.takes.store import TakeStore
from engine.clip import AudioClip
from engine.constants import SAMPLE_RATE
from engine.conversation import Conversation, Exchange
from engine.layouts import get_layout

SAY_SCENE = "say"  # the scene id of the script `say` voices (and of `--keep`'s takes)
VOICE_NAME = "VOICE"  # the cast name of a voice given as a clip and its transcript
SAMPLE_FORMAT = "s16le"  # WAV and raw PCM: signed 16-bit little-endian, mono, at SAMPLE_RATE
SAY_FORMATS = ("wav", "flac", "mp3", "pcm")
STREAMED_FORMATS = ("wav", "pcm")  # written as each chunk is made; flac and mp3 at the end
DEFAULT_LOOKAHEAD_WAIT_S = 0.5
BY_WHAT = ("sentence", "paragraph")
UNKNOWN_SIZE = 0xFFFFFFFF  # a WAV size field of a stream whose length is not known yet


@dataclass(frozen=True)
class Voice:
    """Who speaks: a reference `clip` and its `transcript` (the cast member VOICE_NAME), the
    voice `library` of the voice library (VOICE_NAME with `voice: library:NAME`, resolved as a
    cast resolves it), or the member `name` of the cast file `cast`."""

    name: str = VOICE_NAME
    clip: str | None = None
    transcript: str | None = None
    cast: str | None = None
    library: str | None = None


@dataclass
class SaySettings:
    """How `say` voices: base `seed` (each line adds its offset, each retry 100,003, as in a
    render), `retries` per chunk, the chunk cap `max_chars`, `normalize` (number words),
    `sampling` parameters for the backend, `lookahead_wait_s` (`say_stream`: how long a piece
    waits for the next before it is voiced without lookahead) and `by` (`sentence` or
    `paragraph`: where streamed input is cut)."""

    seed: int = 0
    retries: int = 2
    max_chars: int = DEFAULT_MAX_CHARS
    normalize: bool = True
    sampling: dict[str, float | None] = field(default_factory=dict)
    lookahead_wait_s: float = DEFAULT_LOOKAHEAD_WAIT_S
    by: str = "sentence"


@dataclass
class SayReport:
    """What `say` made: chunks voiced, `failed` (no usable attempt: left out of the audio),
    `degraded` (a flagged attempt used), seconds of audio, layouts used, notices given."""

    chunks: int = 0
    failed: int = 0
    degraded: int = 0
    duration_s: float = 0.0
    layouts: set[str] = field(default_factory=set)
    lookahead: int = 0  # chunks voiced with the next one as lookahead

    @property
    def exit_code(self) -> int:
        """0 when every chunk passed its checks, 1 when one was left out, 3 when one is flagged."""
        return 1 if self.failed else 3 if self.degraded else 0

    def to_dict(self) -> dict:
        """The report as JSON-ready fields, with the audio's sample format."""
        return {
            "chunks": self.chunks,
            "failed": self.failed,
            "degraded": self.degraded,
            "duration_s": round(self.duration_s, 3),
            "layouts": sorted(self.layouts),
            "lookahead_chunks": self.lookahead,
            "sample_rate": SAMPLE_RATE,
            "channels": 1,
            "sample_format": SAMPLE_FORMAT,
        }


# ---- the script in memory ------------------------------------------------------------------


def say_script(
    texts: list[str], voice: Voice, normalize: bool = True, first: int = 1, source: str = "<text>"
) -> Script:
    """A script of one scene (`SAY_SCENE`) whose lines, `first`, `first + 1`, …, say `texts` in `voice`,
    read as a YAML script (directions and tags parsed, speakers resolved, the cast file's
    lexicon and language attached); relative clip paths start from the working folder.
    Raises ScriptError (one line) for empty text, bad directions, an unknown cast name or a
    missing clip or an unknown library voice, placed in the user's text as `source:LINE:COL`
    (not in the YAML made here), UsageError for a missing cast file or a name not in it."""
    document: dict = {}
    if voice.clip is not None:
        member = {"voice": voice.clip}
        if voice.transcript is not None:
            member["transcript"] = voice.transcript
        document["cast"] = {voice.name: member}
    elif voice.library is not None:
        document["cast"] = {voice.name: {"voice": f"{LIBRARY_PREFIX}{voice.library}"}}
    lines = [{"id": str(n), "speaker": voice.name, "text": t} for n, t in enumerate(texts, first)]
    document["scenes"] = [{"id": SAY_SCENE, "lines": lines}]
    text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=10**9)
    if voice.cast is not None and not Path(voice.cast).is_file():
        raise UsageError(f"cast file {voice.cast} does not exist")
    try:
        script = script_from_text(IN_MEMORY, text, Path.cwd(), cast=voice.cast)
    except ScriptError as err:
        raise _placed(err, text, texts, voice, source) from None
    script.normalize = script.normalize and normalize
    check_references(script)
    return script


IN_MEMORY = "<text>.yaml"  # the name of the script `say_script` reads from memory


def _placed(err: ScriptError, document: str, texts: list[str], voice: Voice, source: str):
    """`err` of the in-memory script as the user would place it: an unknown `--as` name as a
    UsageError naming the cast file and its members, a place in the YAML made by `say_script`
    as `source:LINE:COL` in the user's text (the text's start when it is on another line)."""
    if err.position.file != IN_MEMORY:
        return err  # the cast file's own place
    if err.message.startswith("unknown speaker") and voice.cast is not None:
        return UsageError(_unknown_member(voice))
    lines = document.splitlines()
    row = lines[err.position.line - 1] if 0 < err.position.line <= len(lines) else ""
    key = "text: "
    offset = 0
    if key in row and texts:
        start = row.index(key) + len(key)
        start += row[start : start + 1] in ("'", '"')  # a quoted scalar
        offset = max(0, min(err.position.column - 1 - start, len(texts[0])))
    before = texts[0][:offset] if texts else ""
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return ScriptError(err.message, SourcePosition(source, line, column), err.hint)


def _unknown_member(voice: Voice) -> str:
    """The message for an `--as` name that is not a member of the cast file."""
    try:
        members = list((yaml.safe_load(Path(voice.cast).read_text(encoding="utf-8")) or {})["cast"])
    except (OSError, yaml.YAMLError, KeyError, TypeError, UnicodeDecodeError):
        members = []
    message = f"--as {voice.name}: no such member in the cast file {voice.cast}"
    close = difflib.get_close_matches(voice.name, [str(m) for m in members], n=1)
    if close:
        return f"{message} (did you mean {close[0]}?)"
    if members:
        return f"{message} (its members: {', '.join(str(m) for m in members)})"
    return message


def compile_line(script: Script, index: int, max_chars: int, notice) -> LineJob:
    """Line `index` of `say_script`'s scene compiled as a render compiles it (`clone` mode):
    its LineJob, chunk conversations in order. Compiler warnings go to `notice`."""
    plan = SceneCompiler(script, script.scenes[0]).line_plan(index, "clone", max_chars=max_chars)
    for warning in plan.warnings:
        notice(f"warning: {warning}")
    return job_from_plan(plan, script.normalize)


# ---- voicing one chunk -----------------------------------------------------------------------


@dataclass
class Voiced:
    """One chunk voiced: its request, the attempt chosen (None: every attempt unusable) and
    its checks."""

    conversation: Conversation
    text: str
    generation: Generation | None
    checks: CheckReport | None
    seed: int = 0


def voice_chunk(
    backend: Backend,
    job: LineJob,
    conversation: Conversation,
    chunk: int,
    settings: SaySettings,
) -> Voiced:
    """Voice chunk number `chunk` of `job` with `conversation`: up to `1 + retries` attempts
    with the render's seeds (`line_seed` plus the chunk, `retry_seed`), each checked once;
    the first that passes, else the first flagged one (`degraded`), else none. Audio with
    non-finite samples fails the `finite` check, so it is never chosen."""
    text = conversation.text or job.text
    base = line_seed(settings.seed, job.scene_id, job.line_id) + chunk
    fallback = None
    for attempt in range(settings.retries + 1):
        layout_version = get_layout(conversation.layout).version
        seed = retry_seed(base, attempt)
        request = job_request(job, conversation, text, settings.sampling, seed, layout_version)
        generation = backend.generate(request)
        checks = check_generation(generation, text)
        if checks.passed:
            return Voiced(conversation, text, generation, checks, request.seed)
        if fallback is None and checks.severity == "degraded":
            fallback = Voiced(conversation, text, generation, checks, request.seed)
    return fallback or Voiced(conversation, text, None, None)


# ---- where the audio goes -------------------------------------------------------------------


class AudioSink:
    """Audio written as it comes: float32 mono `[samples]` at 44,100 Hz in, bytes of `kind`
    (`SAY_FORMATS`) out to `stream`, a binary file object (stdout's buffer or a file).

    Nothing is written before the first audio (or `close`). wav: a 16-bit PCM header first,
    its sizes unknown (0xFFFFFFFF) until `close`, which writes them when the stream can seek
    (a file, stdout redirected to one); pcm: the same samples without a header; flac and
    mp3: kept until `close`, then encoded (mp3 through the export
    table's encoder, `drama_cli.mix.export`). Every write is flushed, so a pipe's reader hears
    each chunk as soon as it is made. Non-finite samples are never written (they are zeroed).
    """

    def __init__(self, stream: BinaryIO, kind: str):
        if kind not in SAY_FORMATS:
            raise UsageError(f"unknown --format {kind!r}; expected one of {', '.join(SAY_FORMATS)}")
        self.stream, self.kind = stream, kind
        self.samples = 0
        self._kept: list[np.ndarray] = []
        self._started = False  # the WAV header waits for the first audio (or `close`)

    def _start(self) -> None:
        if not self._started and self.kind == "wav":
            self._write(wav_header(None))
        self._started = True

    def write(self, audio: np.ndarray) -> None:
        """Add `audio` (float32 `[samples]`) to the output."""
        audio = np.nan_to_num(np.asarray(audio, np.float32), nan=0.0, posinf=0.0, neginf=0.0)
        self._start()
        self.samples += audio.size
        if self.kind in STREAMED_FORMATS:
            self._write(pcm16(audio))
        else:
            self._kept.append(audio)

    def close(self) -> None:
        """Finish the output: the WAV sizes (when the stream can seek), or the encoded file."""
        self._start()
        if self.kind == "wav":
            try:
                end = self.stream.tell()
                self.stream.seek(end - self.samples * 2 - 44)
                self.stream.write(wav_header(self.samples))
                self.stream.seek(end)
            except (OSError, ValueError):
                pass  # a pipe: the sizes stay unknown, as for any streamed WAV
        elif self.kind in ("flac", "mp3"):
            audio = np.concatenate(self._kept) if self._kept else np.zeros(0, np.float32)
            self._write(encoded(audio, self.kind))
        self.stream.flush()

    def _write(self, data: bytes) -> None:
        self.stream.write(data)
        self.stream.flush()


def pcm16(audio: np.ndarray) -> bytes:
    """float32 samples in -1..1 as signed 16-bit little-endian bytes (clipped, rounded)."""
    scaled = np.clip(np.round(audio.astype(np.float64) * 32767.0), -32768, 32767)
    return scaled.astype("<i2").tobytes()


def wav_header(samples: int | None) -> bytes:
    """The 44-byte header of a mono 16-bit WAV at SAMPLE_RATE holding `samples` samples
    (None: not known yet, the sizes 0xFFFFFFFF as streaming writers give them)."""
    data = UNKNOWN_SIZE if samples is None else samples * 2
    riff = UNKNOWN_SIZE if samples is None else 36 + data
    return (
        b"RIFF"
        + struct.pack("<I", riff)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, SAMPLE_RATE, SAMPLE_RATE * 2, 2, 16)
        + b"data"
        + struct.pack("<I", data)
    )


def encoded(audio: np.ndarray, kind: str) -> bytes:
    """`audio` encoded as a whole FLAC (16-bit) or MP3 file, as bytes. Raises UsageError
    when the MP3 encoder is missing."""
    # lazy: soundfile and the export table (scipy), 1 s at start-up, only for flac and mp3
    import soundfile

    from drama_cli.mix.export import EXPORT_FORMATS, MP3_BITRATE_KBPS

    if kind == "flac":
        buffer = io.BytesIO()
        soundfile.write(buffer, audio, SAMPLE_RATE, format="FLAC", subtype="PCM_16")
        return buffer.getvalue()
    record = EXPORT_FORMATS[kind]
    if record.encoder is not None and record.encoder() is None:
        raise UsageError(f"--format {kind} needs an encoder: {record.description}")
    # the export table's MP3 settings: its default bitrate (None would reach ffmpeg as "Nonek")
    settings = type("Mp3Settings", (), {"mp3_bitrate_kbps": MP3_BITRATE_KBPS})()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "say.wav"
        soundfile.write(source, audio, SAMPLE_RATE, subtype="FLOAT")
        target = record.encode(source, Path(folder) / f"say.{kind}", settings)
        return Path(target).read_bytes()


# ---- the text in full ------------------------------------------------------------------------


class Sayer:
    """Voices lines of `say_script` with `backend` and writes each chunk to `sink` as soon as
    it is chosen. `keep`: a TakeStore where each line is also stored as a take and selected
    (as a render does), or None (nothing written). `notice`: one-line messages (stderr)."""

    def __init__(
        self,
        backend: Backend,
        voice: Voice,
        sink: AudioSink,
        settings: SaySettings,
        keep: TakeStore | None = None,
        notice: Callable[[str], None] = lambda message: None,
    ):
        self.backend, self.voice, self.sink, self.settings = backend, voice, sink, settings
        self.keep, self.notice = keep, notice
        self.source = "<text>"  # how errors name the text: `stdin` when it is read from there
        self.report = SayReport()
        self._told: set[str] = set()
        self._written = False
        self._hasher = ReferenceHasher()

    def tell(self, message: str) -> None:
        """`notice(message)`, once per message."""
        if message not in self._told:
            self._told.add(message)
            self.notice(message)

    def compile(self, text: str, number: int = 1) -> LineJob:
        """`text` as line `number` of a say script, compiled (ScriptError for bad text)."""
        # one line per script: the pieces of a stream arrive one by one
        script = say_script(
            [text], self.voice, self.settings.normalize, first=number, source=self.source
        )
        return compile_line(script, 0, self.settings.max_chars, self.tell)

    def emit(self, voiced: Voiced) -> None:
        """Write a chosen chunk (the codeless backends' 0.12 s gap between chunks, as a
        render joins them), or count it as failed."""
        self.report.chunks += 1
        self.report.layouts.add(voiced.conversation.layout)
        self.report.lookahead += voiced.conversation.lookahead is not None
        if voiced.generation is None:
            self.report.failed += 1
            self.tell(f"warning: no usable take of {voiced.text!r}: it is left out")
            return
        if not voiced.checks.passed:
            self.report.degraded += 1
            self.notice(f"warning: flagged take ({voiced.checks.summary()})")
        if self._written and voiced.generation.codes is None:
            self.sink.write(np.zeros(int(CHUNK_GAP_S * SAMPLE_RATE), np.float32))
        self.sink.write(voiced.generation.audio)
        self._written = True
        self.report.duration_s = self.sink.samples / SAMPLE_RATE

    def store(self, job: LineJob, voiced: list[Voiced]) -> None:
        """Store the line's chunks joined as one take of `keep` and select it (nothing
        without `keep`, or when a chunk has no usable take)."""
        if self.keep is None or any(v.generation is None for v in voiced):
            return
        settings = RenderSettings(
            mode="clone",
            seed=self.settings.seed,
            retries=self.settings.retries,
            sampling=dict(self.settings.sampling),
            max_chars=self.settings.max_chars,
        )
        pieces = [(v.conversation, v.text) for v in voiced]
        layout = get_layout(voiced[0].conversation.layout)
        stored = replace(
            job, chunks=[v.conversation for v in voiced], layout_version=layout.version
        )
        generation, checks = join_and_check([v.generation for v in voiced], pieces, stored)
        key = cache_key(stored, self.backend.identity(), settings, self._hasher)
        seed = voiced[0].seed
        store_attempt(
            stored, generation, checks, key, self.keep, self.backend, settings, 0, 0, seed
        )
        conclude_line(stored, key, self.keep, 1)

    def say(self, text: str) -> SayReport:
        """Voice `text` in full: compiled as one line, its chunks voiced in order (each on its
        own request, as a render voices a long line) and written as each is chosen."""
        job = self.compile(text)
        voiced = []
        for n, conversation in enumerate(job.chunks):
            voiced.append(voice_chunk(self.backend, job, conversation, n, self.settings))
            self.emit(voiced[-1])
        self.store(job, voiced)
        return self.report


# ---- text that arrives -----------------------------------------------------------------------


class TextPieces:
    """Cuts text that arrives in parts into pieces to voice: sentences (`compile.chunking`'s
    sentence cuts: not after `Dr.` or inside markup), or paragraphs (at blank lines).

    `add(text)` returns the pieces it completed; a trailing sentence is complete once more
    text shows the cut, or a line ends after it; `end()` returns what is left."""

    def __init__(self, by: str = "sentence"):
        if by not in BY_WHAT:
            raise UsageError(f"unknown --by {by!r}; expected one of {', '.join(BY_WHAT)}")
        self.by, self.buffer = by, ""

    def add(self, text: str) -> list[str]:
        """Add `text`; the pieces now complete, in order."""
        self.buffer += text
        if self.by == "paragraph":
            *done, self.buffer = _paragraphs(self.buffer)
            return done
        pieces = split_text(self.buffer, 10**9, per_sentence=True, min_tail_chars=0)
        if not pieces:
            return []
        last_complete = self.buffer.endswith("\n") and pieces[-1].rstrip().endswith(
            tuple(".!?…。！？\"')]”’»")
        )
        done = pieces if last_complete else pieces[:-1]
        if done:
            self.buffer = "" if last_complete else self.buffer[self.buffer.rindex(pieces[-1]) :]
        return done

    def end(self) -> list[str]:
        """The text left at the end of the input, as pieces."""
        rest, self.buffer = self.buffer, ""
        if self.by == "paragraph":
            return [p for p in _paragraphs(rest) if p]
        return split_text(rest, 10**9, per_sentence=True, min_tail_chars=0)


def _paragraphs(text: str) -> list[str]:
    """`text` cut at blank lines: the paragraphs (stripped, empty ones dropped) and last the
    unfinished rest as it is."""
    parts = re.split(r"\n[ \t]*\n", text)
    return [p.strip() for p in parts[:-1] if p.strip()] + [parts[-1]]


END = None  # the reader's last item: the input ended


def read_pieces(source: BinaryIO, by: str, pieces: queue.Queue, stop: threading.Event) -> None:
    """Read `source` (bytes) as it arrives, UTF-8, and put each complete piece (`TextPieces`)
    on `pieces`, then `END`. Runs on a reader thread; stops reading once `stop` is set."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    cutter = TextPieces(by)
    fd = source.fileno() if hasattr(source, "fileno") else None
    try:
        while not stop.is_set():
            data = os.read(fd, 65536) if fd is not None else source.read1(65536)
            if not data:
                break
            for piece in cutter.add(decoder.decode(data)):
                pieces.put(piece)
        if not stop.is_set():
            for piece in cutter.add(decoder.decode(b"", final=True)) + cutter.end():
                pieces.put(piece)
    finally:
        pieces.put(END)


WAITING = object()  # the next piece has not arrived within the lookahead wait


def say_stream(sayer: Sayer, source: BinaryIO, stop: threading.Event) -> SayReport:
    """Voice text arriving on `source` piece by piece (see the module docstring). Each piece
    is voiced once it is complete and the next has arrived or `lookahead_wait_s` passed, so
    audio of a piece is written before the next is read in full. When `stop` is set (Ctrl-C)
    the piece being voiced is finished and nothing more is read; the end of the input voices
    what is left."""
    settings, backend = sayer.settings, sayer.backend
    stream = "stream" in backend.capabilities.layouts
    if not stream:
        sayer.tell(
            f"note: the {backend.name} engine does not voice the stream layout: each piece is "
            f"voiced on its own request, without the next one as lookahead"
        )
    pieces: queue.Queue = queue.Queue()
    reader = threading.Thread(
        target=read_pieces, args=(source, settings.by, pieces, stop), daemon=True
    )
    reader.start()
    history: list[Exchange] = []
    number, current = 0, pieces.get()
    while current is not END and not stop.is_set():
        number += 1
        job = sayer.compile(current, number)
        try:
            following = pieces.get(timeout=settings.lookahead_wait_s)
        except queue.Empty:
            following = WAITING
        ahead = None
        if stream and isinstance(following, str):
            ahead = sayer.compile(following, number + 1).chunks[0].text
        voiced = []
        for n, chunk in enumerate(job.chunks):
            later = job.chunks[n + 1].text if n + 1 < len(job.chunks) else ahead
            conversation = piece_conversation(chunk, _context(history), later, stream, backend)
            voiced.append(voice_chunk(backend, job, conversation, n, settings))
            sayer.emit(voiced[-1])
            done = voiced[-1].generation
            if done is not None and done.codes is not None:
                history.append(Exchange(voiced[-1].text, AudioClip(codes=done.codes)))
        sayer.store(job, voiced)
        current = pieces.get() if following is WAITING else following
    return sayer.report


def _context(history: list[Exchange]) -> tuple[Exchange, ...]:
    """The stream's first take and its last DEFAULT_HISTORY_LINES takes, as history mode
    picks a scene's first line and the last lines before one."""
    picked = [0] if history else []
    picked += range(max(1, len(history) - DEFAULT_HISTORY_LINES), len(history))
    return tuple(history[i] for i in dict.fromkeys(picked))


def piece_conversation(
    chunk: Conversation,
    context: tuple[Exchange, ...],
    lookahead: str | None,
    stream: bool,
    backend: Backend,
) -> Conversation:
    """The request of one chunk of a streamed piece: the compiled `chunk` (clone) in the
    `stream` layout with `context` and the `lookahead` text; without `stream`, the chunk in
    the history layout with `context` when the backend voices it, else as compiled."""
    if stream:
        return replace(chunk, layout="stream", context=context, lookahead=lookahead)
    if context and "history" in backend.capabilities.layouts:
        return replace(chunk, layout="history", context=context)
    return chunk
