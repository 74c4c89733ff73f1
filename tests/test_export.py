"""Export helpers: atomic files, WAV subtypes and containers, FLAC/MP3 encoding (and no MP3
without an encoder), sidecar text, the SCRATCH tag in every format."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import SR, tone, voice

from drama_cli.errors import RenderError, UsageError
from drama_cli.mix import export
from drama_cli.mix.timeline import (
    SCRATCH_BANNER,
    Cue,
    MixEntry,
    mix_scene,
    write_mix,
)
from drama_cli.script.mix_settings import MixSettings
from engine import files

RATE = 44_100


def cue(line, speaker, text, start_s, end_s, take=1):
    return Cue(
        line,
        speaker,
        text,
        take,
        f"/takes/{line}/take-{take:03d}.wav",
        int(round(start_s * RATE)),
        int(round(end_s * RATE)),
    )


def test_atomic_path_leaves_target_untouched_on_failure(tmp_path):
    target = tmp_path / "mix.srt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with files.atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mix.srt"]
    files.write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mix.srt"]


@pytest.mark.parametrize("subtype", ["PCM_16", "PCM_24", "PCM_32", "FLOAT"])
def test_wav_header_says_what_was_written(tmp_path, subtype):
    audio = np.array([0.5, -0.25, 0.0], np.float32)
    path = export.write_wav(tmp_path / "x.wav", audio, RATE, subtype)
    info = sf.info(str(path))
    assert (info.format, info.subtype, info.samplerate, info.channels) == ("WAV", subtype, RATE, 1)
    np.testing.assert_allclose(sf.read(str(path), dtype="float32")[0], audio, atol=1 / 32768)


def test_oversized_wav_switches_to_rf64(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "WAV_HEADER_LIMIT_BYTES", 1000)
    audio = np.linspace(-0.5, 0.5, 1000, dtype=np.float32)
    path = export.write_wav(tmp_path / "long.wav", audio, RATE, "PCM_24")
    assert sf.info(str(path)).format == "RF64"
    np.testing.assert_allclose(sf.read(str(path), dtype="float32")[0], audio, atol=2**-22)


def test_unknown_format_and_subtype_are_usage_errors():
    assert export.check_format(".MP3") == "mp3"
    with pytest.raises(UsageError, match="wav, flac, mp3"):
        export.check_format("ogg")
    with pytest.raises(UsageError, match="PCM_24"):
        export.check_wav_subtype("ULAW")
    assert export.require_encoder("wav") is None and export.require_encoder("flac") is None


def test_flac_keeps_24_bit_and_length(tmp_path):
    audio = np.sin(np.linspace(0, 300, 30_000)).astype(np.float32) * 0.5
    wav = export.write_wav(tmp_path / "m.wav", audio, RATE, "PCM_24")
    flac = export.encode_flac(wav, tmp_path / "m.flac")
    info = sf.info(str(flac))
    assert (info.format, info.subtype, info.frames) == ("FLAC", "PCM_24", audio.size)
    np.testing.assert_allclose(sf.read(str(flac), dtype="float32")[0], audio, atol=2**-22)


def test_is_mp3_recognises_frame_sync_after_id3(tmp_path):
    wav = export.write_wav(tmp_path / "a.wav", np.zeros(100, np.float32), RATE, "PCM_16")
    assert not export.is_mp3(wav)
    bare = tmp_path / "bare.mp3"
    bare.write_bytes(b"\xff\xfb\x90\x00" + bytes(100))
    assert export.is_mp3(bare)
    tagged = tmp_path / "tagged.mp3"
    tagged.write_bytes(b"ID3\x04\x00\x00" + bytes([0, 0, 0, 5]) + bytes(5) + b"\xff\xfb\x90\x00")
    assert export.is_mp3(tagged)
    empty = tmp_path / "empty.mp3"
    empty.write_bytes(b"")
    assert not export.is_mp3(empty)


def test_mp3_encoding_with_available_encoder(tmp_path):
    if export.find_mp3_encoder() is None:
        pytest.skip("no ffmpeg with libmp3lame on PATH and no imageio-ffmpeg binary")
    audio = (np.sin(np.arange(RATE) * 2 * np.pi * 440 / RATE) * 0.3).astype(np.float32)
    wav = export.write_wav(tmp_path / "m.wav", audio, RATE, "PCM_24")
    mp3 = export.encode_mp3(wav, tmp_path / "m.mp3")
    assert export.is_mp3(mp3) and mp3.stat().st_size > 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pydub import AudioSegment
    assert AudioSegment.converter == export.find_mp3_encoder()  # pydub points at the same one
    decoded = tmp_path / "decoded.wav"
    subprocess.run(
        [export.find_mp3_encoder(), "-loglevel", "error", "-i", str(mp3), str(decoded)], check=True
    )
    back, rate = sf.read(str(decoded), dtype="float32")
    assert rate == RATE and abs(back.size - RATE) < 3000  # encoder padding only
    assert np.sqrt(np.mean(back**2)) == pytest.approx(0.3 / np.sqrt(2), rel=0.05)


def test_labels_and_srt_text():
    cues = [cue("a", "ANNA", "Well,\nthen.", 0.5, 1.25), cue("b", "BEN", "No.", 3723.0045, 3724.5)]
    assert export.labels_text(cues) == (
        "0.500000\t1.250000\tANNA: Well, then.\n3723.004490\t3724.500000\tBEN: No.\n"
    )
    srt = export.srt_text(cues)
    assert srt.startswith("1\n00:00:00,500 --> 00:00:01,250\nANNA: Well, then.\n\n2\n")
    assert "01:02:03,004 --> 01:02:04,500\nBEN: No.\n" in srt


def test_cue_sheet_json():
    sheet = json.loads(
        export.cue_sheet_text([cue("a", "ANNA", "Hi.", 0.5, 1.0, take=2)], {"preset": "acx"})
    )
    assert sheet == {
        "preset": "acx",
        "cues": [
            {
                "line": "a",
                "speaker": "ANNA",
                "take": 2,
                "start_s": 0.5,
                "end_s": 1.0,
                "text": "Hi.",
                "take_file": "take-002.wav",
            }
        ],
    }


def test_pcm16_writes_are_clipped_not_wrapped(tmp_path):
    path = export.write_wav(
        tmp_path / "x.wav", np.array([1.5, -2.0, 0.5], np.float32), RATE, "PCM_16"
    )
    raw = path.read_bytes()
    values = struct.unpack("<3h", raw[raw.index(b"data") + 8 :][:6])
    assert values[0] == 32767 and values[1] <= -32767 and values[2] in (16383, 16384)


def test_encoders_on_path_are_preferred(tmp_path, monkeypatch):
    found = shutil.which("ffmpeg")
    if found is None or not export._encodes_mp3(found):
        pytest.skip("no system ffmpeg with libmp3lame")
    assert export.find_mp3_encoder() == found


def take_file(path: Path, seconds: float = 0.5) -> Path:
    sf.write(str(path), voice(seconds), SR, subtype="FLOAT")
    return path


def test_flac_scratch_mixes_carry_the_scratch_tag_like_wav(tmp_path):
    entry = MixEntry("l1", "A", "Hi.", take_file(tmp_path / "a.wav"), 1)
    result = mix_scene(
        [entry], MixSettings(metadata={"engine": "scratch", "scratch": True}), tmp_path / "scene"
    )
    paths = write_mix(result, tmp_path / "scene", ("wav", "flac"))
    for fmt in ("wav", "flac"):
        with sf.SoundFile(str(paths[fmt])) as audio:
            assert audio.title == SCRATCH_BANNER
            assert audio.comment.startswith(SCRATCH_BANNER) and "engine=scratch" in audio.comment


def test_deliverables_are_renamed_together_with_the_cue_sheet_last(tmp_path, monkeypatch):
    entry = MixEntry("l1", "A", "Hi.", take_file(tmp_path / "a.wav"), 1)
    result = mix_scene([entry], MixSettings(), tmp_path / "scene")
    renamed = []
    real = files.os.replace

    def spy(source, target):
        renamed.append(Path(target).name)
        return real(source, target)

    monkeypatch.setattr(files.os, "replace", spy)
    write_mix(result, tmp_path / "scene", ("flac", "wav"))
    finals = [name for name in renamed if name.startswith("mix.")]
    assert finals[-1] == "mix.cues.json"
    assert set(finals) == {"mix.flac", "mix.wav", "mix.labels.txt", "mix.srt", "mix.cues.json"}
    # nothing is renamed into place before every file of the set is written
    first_final = renamed.index(finals[0])
    assert all(not name.startswith("mix.") for name in renamed[:first_final])
    assert len(renamed) - first_final == len(finals)


def test_a_missing_mp3_encoder_suggests_the_format_flag(monkeypatch):
    monkeypatch.setitem(
        export.EXPORT_FORMATS, "mp3", export.ExportFormat("mp3", "MP3", None, lambda: None)
    )
    with pytest.raises(RenderError) as err:
        export.require_encoder("mp3")
    assert "--format wav" in str(err.value) and "--out" not in str(err.value)


@pytest.mark.case("A7")
def test_a7_require_encoder_fails_early_with_advice(no_encoder):
    with pytest.raises(RenderError) as raised:
        export.require_encoder("mp3")
    message = str(raised.value)
    assert "ffmpeg" in message and "--format wav" in message and "\n" not in message
    assert raised.value.exit_code != 0
    assert export.require_encoder("wav") is None
    with pytest.raises(RenderError, match="ffmpeg"):
        export.require_encoder(".mp3")  # a format named with its dot


@pytest.mark.case("A7")
@pytest.mark.parametrize("behaviour", ["copies-wav", "writes-nothing"])
def test_a7_bad_encoder_output_is_never_kept(tmp_path, monkeypatch, behaviour):
    fake = tmp_path / "bin" / "ffmpeg"
    fake.parent.mkdir()
    action = 'cp "$in" "$out"' if behaviour == "copies-wav" else ': > "$out"'
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$2" = "-encoders" ]; then echo " A..... libmp3lame"; exit 0; fi\n'
        'while [ $# -gt 1 ]; do [ "$1" = "-i" ] && in="$2"; shift; done; out="$1"\n'
        f"{action}\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent) + os.pathsep + os.environ["PATH"])
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    export._encodes_mp3.cache_clear()
    wav = export.write_wav(tmp_path / "mix-src.wav", tone(0.2), RATE, "PCM_16")
    with pytest.raises(RenderError, match="no valid MP3"):
        export.encode_mp3(wav, tmp_path / "out" / "mix.mp3")
    assert not (tmp_path / "out" / "mix.mp3").exists()
    assert not [p for p in (tmp_path / "out").iterdir()]
