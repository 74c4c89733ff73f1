"""Audio inputs that are not numbers or hold nothing: room-tone files and reference clips with NaN
or infinite samples, or no samples at all, are refused naming the file (exit 2); no take or mix
is ever written with a non-finite sample."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    FakeBackend,
    fake_render,
    mix_settings_script,
    render,
    voice,
    write_script,
)

from drama_cli.cli import main
from drama_cli.compile.conversations import check_references
from drama_cli.errors import ScriptError
from drama_cli.mix.timeline import MixEntry, mix_scene
from drama_cli.script.clips import inspect_clip
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MixSettings
from drama_cli.takes.store import TakeStore
from engine.errors import AudioError

SR = 44_100


def nan_file(path: Path, kind: str) -> Path:
    """A float WAV that is all NaN, holds one infinite sample, or holds no samples at all."""
    audio = {
        "nan": np.full(SR, np.nan, np.float32),
        "inf": np.where(np.arange(SR) == 100, np.inf, 0.01).astype(np.float32),
        "empty": np.zeros(0, np.float32),
    }[kind]
    sf.write(str(path), audio, SR, subtype="FLOAT")
    return path


BAD_KINDS = ["nan", "inf", "empty"]


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_inspect_clip_refuses_non_finite_and_empty_files(tmp_path, kind):
    verdict = inspect_clip(nan_file(tmp_path / "clip.wav", kind), None)
    assert (
        verdict.error
        == {
            "nan": "holds non-finite samples (NaN or infinity)",
            "inf": "holds non-finite samples (NaN or infinity)",
            "empty": "holds no audio samples",
        }[kind]
    )


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_check_refuses_a_bad_room_tone_file_naming_it(tmp_path, capsys, kind):
    nan_file(tmp_path / "bed.wav", kind)
    path = tmp_path / "play.yaml"
    path.write_text(mix_settings_script("bed.wav", -60), encoding="utf-8")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:12: room tone 'bed.wav' holds" in err


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_check_and_render_refuse_a_bad_reference_clip(tmp_path, capsys, kind):
    nan_file(tmp_path / "ref.wav", kind)
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A:\n    voice: ref.wav\n    transcript: Hello.\nlines:\n  - A: Hi.\n",
        encoding="utf-8",
    )
    assert main(["check", str(path)]) == 2
    assert f"{path}:3:12: reference clip 'ref.wav' of A holds" in capsys.readouterr().err
    with pytest.raises(ScriptError, match="reference clip 'ref.wav' of A holds"):
        check_references(load_script(str(path)))


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_render_refuses_a_bad_room_tone_flag_and_saves_nothing(tmp_path, monkeypatch, capsys, kind):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    bed = nan_file(tmp_path / "bed.wav", kind)
    assert main(["render", str(path), "--room-tone", str(bed)]) == 2
    err = capsys.readouterr().err
    assert f"room tone file {bed.resolve()} holds" in err and "Traceback" not in err
    project = tmp_path / "scene.drama" / "project.json"
    assert not project.exists() or "bed.wav" not in project.read_text()


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_mix_refuses_a_bad_room_tone_file(tmp_path, kind):
    sf.write(str(tmp_path / "a.wav"), voice(0.5), SR)
    bed = nan_file(tmp_path / "bed.wav", kind)
    with pytest.raises(AudioError, match=f"room tone file {bed}"):
        mix_scene(
            [MixEntry("l1", "A", "Hi.", tmp_path / "a.wav", 1)],
            MixSettings(room_tone=bed),
            tmp_path / "w",
        )
    assert not list((tmp_path / "w").glob("*.wav")) and not list((tmp_path / "w").glob(".*"))


def test_a_take_with_non_finite_samples_never_reaches_the_mix(tmp_path):
    sf.write(str(tmp_path / "a.wav"), voice(0.5), SR)
    nan_file(tmp_path / "b.wav", "inf")
    entries = [
        MixEntry("l1", "A", "Hi.", tmp_path / "a.wav", 1),
        MixEntry("l2", "B", "Ho.", tmp_path / "b.wav", 1),
    ]
    with pytest.raises(AudioError, match=f"take {tmp_path / 'b.wav'} holds non-finite samples"):
        mix_scene(entries, MixSettings(), tmp_path / "w")
    assert not list((tmp_path / "w").iterdir())


def test_a_generation_with_nan_is_stored_without_it_and_flagged(tmp_path):
    def answer(request, call):
        audio = voice(1.0)
        audio[100:200] = np.nan
        return audio, "eos"

    path = write_script(tmp_path, ["We leave at six."])
    report, store = render(path, FakeBackend(answer=answer), retries=0)
    assert report.exit_code == 1
    take = store.takes("boathouse", "boathouse-1")[0]
    assert np.isfinite(take.audio()).all() and take.audio()[150] == 0.0
    assert any(
        c["name"] == "finite" and not c["passed"] for c in take.record.to_json()["checks"]["checks"]
    )


def test_the_store_refuses_nothing_but_writes_only_finite_audio(tmp_path):
    store = TakeStore(tmp_path / "p")
    audio = np.array([0.1, np.inf, -np.inf, np.nan, 0.2], np.float32)
    take = store.add_take("s", "l", audio, {})
    assert take.audio().tolist() == pytest.approx([0.1, 0.0, 0.0, 0.0, 0.2])
    assert take.record.to_json()["non_finite_samples"] == 3


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_check_refuses_a_named_pipe_as_a_reference_clip_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "ref.wav")  # nothing ever writes to it: opening it would wait forever
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A:\n    voice: ref.wav\n    transcript: Hello.\nlines:\n  - A: Hi.\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "drama_cli.cli", "check", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == (
        f"{path}:3:12: reference clip 'ref.wav' of A is not a regular file "
        "(a named pipe, socket or device), not an audio file"
    )


def wav_claiming_rate(path: Path, rate: int) -> Path:
    """A one-second 16-bit WAV whose header claims `rate` samples a second."""
    sf.write(str(path), np.full(SR, 0.1, np.float32), SR, subtype="PCM_16")
    data = bytearray(path.read_bytes())
    data[24:28] = struct.pack("<I", rate)  # the fmt chunk's sample rate
    data[28:32] = struct.pack("<I", min(rate * 2, 2**32 - 1))  # and its byte rate
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("rate", [2_147_483_647, 1])
def test_a_reference_clip_whose_header_claims_an_impossible_rate_is_refused_naming_the_rate(
    tmp_path, capsys, rate
):
    wav_claiming_rate(tmp_path / "ref.wav", rate)
    assert inspect_clip(tmp_path / "ref.wav").error == (
        f"has a sample rate of {rate} Hz in its header, which is not a real rate (1,000..768,000 Hz)"
    )
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A:\n    voice: ref.wav\n    transcript: Hello.\nlines:\n  - A: Hi.\n",
        encoding="utf-8",
    )
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{path}:3:12: reference clip 'ref.wav' of A has a sample rate of {rate} Hz in its header, which is not "
        "a real rate (1,000..768,000 Hz) (export it again as a WAV or FLAC at a usual rate (44,100 or 48,000 Hz))"
    )
