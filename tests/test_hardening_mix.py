"""Mix delivery: every format labelled SCRATCH, the advice when MP3 cannot be written, the ACX
level reported as RMS."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import fake_render, voice, write_script

from drama_cli.cli import main
from drama_cli.errors import RenderError
from drama_cli.mix import export
from drama_cli.mix.timeline import (
    SCRATCH_BANNER,
    MixEntry,
    MixSettings,
    mix_scene,
    write_mix,
)

SR = 44_100


def take_file(path: Path, seconds: float = 0.5) -> Path:
    sf.write(str(path), voice(seconds), SR, subtype="FLOAT")
    return path


def test_flac_scratch_mixes_carry_the_scratch_tag_like_wav(tmp_path):
    entry = MixEntry("l1", "A", "Hi.", take_file(tmp_path / "a.wav"), 1)
    result = mix_scene([entry], MixSettings(metadata={"engine": "scratch", "scratch": True}),
                       tmp_path / "scene")
    paths = write_mix(result, tmp_path / "scene", ("wav", "flac"))
    for fmt in ("wav", "flac"):
        with sf.SoundFile(str(paths[fmt])) as audio:
            assert audio.title == SCRATCH_BANNER
            assert audio.comment.startswith(SCRATCH_BANNER) and "engine=scratch" in audio.comment


def test_a_missing_mp3_encoder_suggests_the_format_flag(monkeypatch):
    monkeypatch.setitem(export.EXPORT_FORMATS, "mp3",
                        export.ExportFormat("mp3", "MP3", None, lambda: None))
    with pytest.raises(RenderError) as err:
        export.require_encoder("mp3")
    assert "--format wav" in str(err.value) and "--out" not in str(err.value)


def scene_line(out: str) -> str:
    """The scene's summary line of a render's output (rich wraps it on narrow consoles)."""
    flat = " ".join(out.split())
    return flat[flat.index("scene boathouse:"):]


def test_the_acx_summary_reports_rms_and_noise_floor(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "acx", "--room-tone", "noise"]) == 0
    line = scene_line(capsys.readouterr().out)
    found = re.search(r"RMS (-\d+\.\d) dB, peak (-\d+\.\d) dBFS, noise floor (-\d+\.\d) dB", line)
    assert found, line
    rms, peak, floor = map(float, found.groups())
    assert -23.0 <= rms <= -18.0 and peak <= -3.0 and floor <= -60.0
    assert "LUFS" not in line
    audio, _ = sf.read(str(tmp_path / "scene.drama" / "boathouse" / "mix.wav"))
    assert 20 * np.log10(np.sqrt(np.mean(audio ** 2))) == pytest.approx(rms, abs=0.06)


def test_the_r128_summary_reports_lufs_and_true_peak(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "r128"]) == 0
    line = scene_line(capsys.readouterr().out)
    assert re.search(r"-2[234]\.\d LUFS, true peak -\d+\.\d dBTP", line), line
