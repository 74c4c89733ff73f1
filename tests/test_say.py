"""`drama say`: text voiced without a script, whole or streamed, through pipes."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
import wave
from pathlib import Path

import numpy as np
import pytest
import soundfile
from fakes import FakeBackend, FakeWithCodes, fake_render, one_error_line

from drama_cli.backends.base import Capabilities
from drama_cli.cli import main
from drama_cli.render.say import (
    AudioSink,
    Sayer,
    SaySettings,
    TextPieces,
    Voice,
    say_stream,
    wav_header,
)
from drama_cli.script.voice_library import LIBRARY_ENV
from drama_cli.takes.store import TakeStore
from engine.constants import HOP_SAMPLES, SAMPLE_RATE

ROOT = Path(__file__).resolve().parent.parent
LANE = ROOT / "scripts_examples" / "refs" / "lane.wav"
LANE_SAYS = "The carriage will be ready at half past four, sir."
VOICE = ["--voice", str(LANE), "--transcript", LANE_SAYS]


class StreamFake(FakeWithCodes):
    """A recording backend with codes that voices the stream layout."""

    capabilities = Capabilities(layouts=frozenset({"clone", "history", "stream"}))


def drama(args: list[str], stdin=None, stdout=None, **kwargs) -> subprocess.Popen:
    """`drama ARGS` in a process of its own, as a shell pipeline runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "drama_cli.cli", *args],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        **kwargs,
    )


def say_to_file(tmp_path, text: str, *flags: str, name: str = "x.wav") -> tuple[Path, int]:
    """`echo TEXT | drama say - --voice ... --engine scratch FLAGS -o - > FILE`."""
    target = tmp_path / name
    with open(target, "wb") as out:
        child = drama(
            ["say", "-", *VOICE, "--engine", "scratch", *flags, "-o", "-"],
            stdin=subprocess.PIPE,
            stdout=out,
        )
        _, err = child.communicate(text.encode(), timeout=300)
    assert b"Traceback" not in err, err.decode()
    return target, child.returncode


def test_say_from_a_pipe_writes_a_valid_wav_of_the_voiced_text(tmp_path):
    target, code = say_to_file(tmp_path, "Hello there.\n")
    assert code == 0
    with wave.open(str(target)) as wav:  # the sizes were filled in: stdout was a file
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, SAMPLE_RATE)
        frames = wav.getnframes()
    audio, rate = soundfile.read(target, dtype="int16")
    assert rate == SAMPLE_RATE and audio.size == frames
    assert 0.3 < frames / SAMPLE_RATE < 5.0
    assert np.abs(audio).max() > 1000  # speech, not silence


def test_pcm_output_is_the_wav_samples_without_the_header(tmp_path):
    wav_file, code = say_to_file(tmp_path, "Hello there.\n")
    pcm_file, pcm_code = say_to_file(tmp_path, "Hello there.\n", "--format", "pcm", name="x.pcm")
    assert (code, pcm_code) == (0, 0)
    samples, _ = soundfile.read(wav_file, dtype="int16")
    raw = np.frombuffer(pcm_file.read_bytes(), "<i2")
    assert raw.size == samples.size > 0
    assert np.array_equal(raw, samples)


def test_streamed_audio_starts_before_the_rest_of_the_input_is_written(tmp_path):
    child = drama(
        ["say", "-", "--stream", *VOICE, "--engine", "scratch", "--lookahead-wait", "0.2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    arrived: queue.Queue = queue.Queue()

    def read_stdout() -> None:
        while block := os.read(child.stdout.fileno(), 65536):
            arrived.put(block)
        arrived.put(b"")

    threading.Thread(target=read_stdout, daemon=True).start()
    child.stdin.write(b"The first sentence is here.\n")
    child.stdin.flush()
    head = b""
    while len(head) <= 44:  # the WAV header, then the first piece's samples
        block = arrived.get(timeout=300)
        assert block, child.stderr.read().decode()
        head += block
    # only now is the second piece written: audio came before the input ended
    assert not child.stdin.closed and child.poll() is None
    child.stdin.write(b"And then the second one.\n")
    child.stdin.close()
    rest = b""
    while block := arrived.get(timeout=300):
        rest += block
    assert child.wait(timeout=300) == 0
    data = head + rest
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    samples = np.frombuffer(data[44 : 44 + (len(data) - 44) // 2 * 2], "<i2")
    first_piece = (len(head) - 44) // 2
    assert samples.size > first_piece > 0
    assert b"Traceback" not in child.stderr.read()


def test_a_closed_pipe_ends_say_quietly(tmp_path):
    long_text = " ".join(["This sentence is said so that the audio outgrows the pipe."] * 6)
    child = drama(
        ["say", long_text, *VOICE, "--engine", "scratch", "--max-chars", "60"],
        stdout=subprocess.PIPE,
    )
    assert len(child.stdout.read(100)) == 100
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=300) in (0, 141)
    assert "Traceback" not in err and "Error" not in err


def stream_of(text: str) -> io.BufferedReader:
    """A pipe already holding `text` and closed, as stdin is after `echo ... |`."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    return os.fdopen(read, "rb")


def sayer_for(backend, tmp_path, **settings) -> tuple[Sayer, io.BytesIO]:
    out = io.BytesIO()
    voice = Voice(clip=str(LANE), transcript=LANE_SAYS)
    sink = AudioSink(out, "pcm")
    return Sayer(backend, voice, sink, SaySettings(**settings)), out


def test_streamed_pieces_carry_the_stream_layout_the_next_piece_and_earlier_takes(tmp_path):
    backend = StreamFake()
    sayer, out = sayer_for(backend, tmp_path, lookahead_wait_s=5.0)
    report = say_stream(
        sayer, stream_of("One is here. Two is there.\nThree is last.\n"), threading.Event()
    )
    conversations = [request.conversation for request in backend.requests]
    assert [c.layout for c in conversations] == ["stream"] * 3
    assert [c.text for c in conversations] == [
        "<|speaker:0|> One is here.",
        "<|speaker:0|> Two is there.",
        "<|speaker:0|> Three is last.",
    ]
    assert [c.lookahead for c in conversations] == [
        "<|speaker:0|> Two is there.",
        "<|speaker:0|> Three is last.",
        None,
    ]
    assert [len(c.context) for c in conversations] == [0, 1, 2]
    assert conversations[2].context[1].text == "<|speaker:0|> Two is there."
    assert conversations[2].context[1].clip.codes.shape == (10, 40)
    assert conversations[0].references[0].transcript == f"<|speaker:0|> {LANE_SAYS}"
    assert (report.chunks, report.lookahead, report.failed) == (3, 2, 0)
    assert len(out.getvalue()) == 2 * 3 * 40 * HOP_SAMPLES  # three takes of 40 frames, no gaps


def test_a_backend_without_the_stream_layout_voices_each_piece_alone_said_once(tmp_path):
    backend = FakeBackend()  # clone, history and infill
    said = []
    sayer, _ = sayer_for(backend, tmp_path, lookahead_wait_s=5.0)
    sayer.notice = said.append
    say_stream(sayer, stream_of("One is here. Two is there. Three is last.\n"), threading.Event())
    assert [r.conversation.layout for r in backend.requests] == ["clone"] * 3
    assert all(r.conversation.lookahead is None for r in backend.requests)
    assert len([m for m in said if "stream layout" in m]) == 1


def test_the_pieces_of_text_arriving_in_parts_are_whole_sentences():
    pieces = TextPieces()
    assert pieces.add("Dr. Okafor met") == []
    assert pieces.add(" us. Then we left") == ["Dr. Okafor met us."]
    assert pieces.add(". ") == []  # a sentence end waits for more text or a line end
    assert pieces.add("\n") == ["Then we left."]
    assert pieces.add("Unfinished") == []
    assert pieces.end() == ["Unfinished"]


def test_paragraph_pieces_are_cut_at_blank_lines_only():
    pieces = TextPieces("paragraph")
    assert pieces.add("One. Two.\nStill one.\n") == []
    assert pieces.add("\nNext paragraph.") == ["One. Two.\nStill one."]
    assert pieces.end() == ["Next paragraph."]


def test_a_chunk_with_non_finite_samples_never_reaches_the_output(tmp_path):
    def nan_audio(request, call):
        audio = np.full(SAMPLE_RATE, 0.1, np.float32)
        audio[100] = np.nan
        return audio, "eos"

    backend = FakeBackend(answer=nan_audio)
    sayer, out = sayer_for(backend, tmp_path, retries=1)
    report = sayer.say("Hello there.")
    assert len(backend.requests) == 2  # the first attempt and its retry
    assert (report.failed, out.getvalue()) == (1, b"")
    assert report.exit_code == 1


def test_a_long_text_is_chunked_and_each_chunk_written_in_order(tmp_path):
    backend = FakeBackend()
    sayer, out = sayer_for(backend, tmp_path, max_chars=40)
    text = "The first part of it is here. The second part is over there. And the end."
    report = sayer.say(text)
    texts = [r.conversation.text for r in backend.requests]
    assert len(texts) == 3 and all(t.startswith("<|speaker:0|> ") for t in texts)
    assert " ".join(t.removeprefix("<|speaker:0|> ") for t in texts) == text
    assert {r.conversation.layout for r in backend.requests} == {"clone"}
    gap = int(0.12 * SAMPLE_RATE)
    voiced = sum(FakeBackend().generate(r).audio.size for r in backend.requests)
    assert len(out.getvalue()) == 2 * (voiced + 2 * gap)
    assert report.exit_code == 0


def test_numbers_are_said_as_words_as_in_a_script_line(tmp_path):
    backend = FakeBackend()
    sayer, _ = sayer_for(backend, tmp_path)
    sayer.say("We leave at 6.")
    assert backend.requests[0].conversation.text == "<|speaker:0|> We leave at six."


def test_a_cast_members_voice_and_lexicon_come_from_the_cast_file(tmp_path, monkeypatch):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    cast = tmp_path / "cast.yaml"
    cast.write_text(
        f"cast:\n  LANE:\n    voice: {LANE}\n    transcript: {LANE_SAYS}\n"
        "lexicon:\n  Worthing: Werthing\n"
    )
    out = tmp_path / "lane.wav"
    assert (
        main(["say", "Mr Worthing, sir.", "--cast", str(cast), "--as", "LANE", "-o", str(out)]) == 0
    )
    assert backend.requests[0].conversation.text == "<|speaker:0|> Mr Werthing, sir."
    assert backend.requests[0].conversation.references[0].clip.path == str(LANE)
    audio, rate = soundfile.read(out)
    assert rate == SAMPLE_RATE and audio.size == backend.generate(backend.requests[0]).audio.size


def test_a_library_voice_is_resolved_as_a_cast_resolves_it(tmp_path, monkeypatch):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    library = tmp_path / "lib"
    monkeypatch.setenv(LIBRARY_ENV, str(library))
    add = ["voices", "add", str(LANE), "--name", "lane", "--transcript", LANE_SAYS]
    assert main([*add, "--source", "synthetic"]) == 0
    assert main(["say", "Yes, sir.", "--library", "lane", "-o", str(tmp_path / "x.wav")]) == 0
    (reference,) = backend.requests[0].conversation.references
    assert reference.clip.path == str(library / "lane.wav")
    assert reference.transcript == f"<|speaker:0|> {LANE_SAYS}"
    assert backend.requests[0].conversation.text == "<|speaker:0|> Yes, sir."


def test_keep_stores_the_take_as_a_render_does(tmp_path, monkeypatch):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    keep = tmp_path / "kept"
    out = tmp_path / "x.flac"
    assert main(["say", "Hello there.", *VOICE, "--keep", str(keep), "-o", str(out)]) == 0
    take = TakeStore(keep).selected_take("say", "1")
    assert take is not None and take.record.text == "<|speaker:0|> Hello there."
    kept, _ = soundfile.read(take.wav_path)
    flac, rate = soundfile.read(out)
    assert rate == SAMPLE_RATE and flac.size == kept.size > 0


def test_nothing_is_written_without_keep_or_an_output_file(tmp_path, monkeypatch, capsysbinary):
    fake_render(monkeypatch, FakeBackend())
    monkeypatch.chdir(tmp_path)
    assert main(["say", "Hello there.", *VOICE, "--format", "pcm"]) == 0
    assert list(tmp_path.iterdir()) == []
    assert len(capsysbinary.readouterr().out) > 1000


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["say", "Hello."], "no voice"),
        (["say", "   ", *VOICE], "no text to say"),
        (["say", "Hello.", "--cast", "CAST", "--as", "NOBODY"], "NOBODY"),
        (["say", "Hello.", "--transcript", "words"], "--voice"),
        (["say", "Hello.", "--library", "nobody"], "no voice 'nobody' in the library"),
        (["say", "Hello.", "--library", "x", *VOICE], "give one voice"),
        (["say", "Hello.", *VOICE, "--format", "ogg"], "--format"),
        (["say", "Hello.", *VOICE, "--stream"], "--stream reads stdin"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(args, says, tmp_path, monkeypatch, capsys):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    cast = tmp_path / "cast.yaml"
    cast.write_text(f"cast:\n  LANE:\n    voice: {LANE}\n    transcript: {LANE_SAYS}\n")
    args = [str(cast) if a == "CAST" else a for a in args]
    assert main([*args, "-o", str(tmp_path / "x.wav")]) == 2
    err = one_error_line(capsys)
    assert len(err.splitlines()) == 1 and says in err
    assert backend.requests == []


def test_a_streamed_wav_header_has_unknown_sizes_until_known():
    header = wav_header(None)
    assert len(header) == 44 and header[4:8] == b"\xff\xff\xff\xff" == header[40:44]
    assert int.from_bytes(wav_header(10)[40:44], "little") == 20


@pytest.mark.slow
def test_say_stream_with_the_drama3_engine_on_a_tiny_model_sends_stream_prompts(tiny_model):
    from drama_cli.backends.registry import BackendChoice, make_backend

    backend = make_backend(BackendChoice("drama3", str(tiny_model), "cpu", {}))
    sent = []
    generate = backend.generate

    def recording(request, on_frames=None):
        sent.append(request)
        return generate(request, on_frames)

    backend.generate = recording
    try:
        sayer, out = sayer_for(backend, None, lookahead_wait_s=5.0, retries=0)
        report = say_stream(sayer, stream_of("One is here. Two is there.\n"), threading.Event())
    finally:
        backend.close()
    assert [r.conversation.layout for r in sent] == ["stream", "stream"]
    assert sent[0].conversation.lookahead == "<|speaker:0|> Two is there."
    assert sent[1].conversation.lookahead is None
    assert report.chunks == 2
    assert len(out.getvalue()) == 2 * round(report.duration_s * SAMPLE_RATE)


def test_mp3_output_is_an_mp3_file(tmp_path, monkeypatch):
    from drama_cli.mix.export import find_mp3_encoder, is_mp3

    if find_mp3_encoder() is None:
        pytest.skip("no MP3 encoder")
    fake_render(monkeypatch, FakeBackend())
    out = tmp_path / "out.mp3"
    assert main(["say", "Hello there.", *VOICE, "-o", str(out)]) == 0
    assert out.stat().st_size > 0 and is_mp3(out)


def test_a_failed_say_leaves_no_partial_output_file(tmp_path, monkeypatch):
    def fails(request, call):
        raise KeyboardInterrupt  # as Ctrl-C in the middle of voicing

    fake_render(monkeypatch, FakeBackend(answer=fails))
    out = tmp_path / "x.wav"
    out.write_bytes(b"before")
    assert main(["say", "Hello there.", *VOICE, "-o", str(out)]) != 0
    assert [p.name for p in tmp_path.iterdir()] == ["x.wav"]
    assert out.read_bytes() == b"before"


def test_a_failed_mp3_encoding_leaves_no_output_file(tmp_path, monkeypatch):
    from drama_cli.render import say

    def broken(audio, kind):
        raise say.UsageError("MP3 encoding failed")

    fake_render(monkeypatch, FakeBackend())
    monkeypatch.setattr(say, "encoded", broken)
    assert main(["say", "Hello there.", *VOICE, "-o", str(tmp_path / "x.mp3")]) == 2
    assert list(tmp_path.iterdir()) == []


def test_empty_stdin_writes_nothing_to_stdout():
    child = drama(
        ["say", "-", "--stream", *VOICE, "--engine", "scratch", "-o", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    out, err = child.communicate(b"", timeout=300)
    assert child.returncode == 2 and b"stdin was empty" in err
    assert out == b""


def test_say_errors_are_placed_in_the_users_text(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    assert main(["say", "Hello [loudly there.", *VOICE, "-o", str(tmp_path / "x.wav")]) == 2
    err = one_error_line(capsys)
    assert "drama: <text>:1:7: unclosed bracket" in err and ".yaml" not in err


def test_say_as_an_unknown_member_names_the_cast_file_and_its_members(tmp_path, capsys):
    cast = tmp_path / "cast.yaml"
    cast.write_text(f"cast:\n  LANE:\n    voice: {LANE}\n    transcript: {LANE_SAYS}\n")
    assert main(["say", "Hello.", "--cast", str(cast), "--as", "NOBODY", "-o", "-"]) == 2
    err = one_error_line(capsys)
    assert str(cast) in err and "LANE" in err and ".yaml:" not in err
    assert main(["say", "Hello.", "--cast", str(cast), "--as", "LAN", "-o", "-"]) == 2
    assert "did you mean LANE?" in one_error_line(capsys)


def test_say_binary_stdin_is_refused_as_not_utf8(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe oops")))
    assert main(["say", "-", *VOICE, "-o", str(tmp_path / "x.wav")]) == 2
    assert "standard input is not UTF-8 text" in one_error_line(capsys)
