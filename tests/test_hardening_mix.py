"""Mix delivery: every format labelled SCRATCH, the advice when MP3 cannot be written, the ACX
level reported as RMS."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    FakeBackend,
    boathouse_script,
    fake_render,
    mix_segments,
    voice,
    write_script,
)

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
from engine import files

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


# Mix settings stay with the project; a re-mix replaces the whole delivery set.


def project_mix(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "scene.drama" / "project.json").read_text())["mix"]


def scene_folder(tmp_path: Path) -> Path:
    return tmp_path / "scene.drama" / "boathouse"


def test_a_bare_render_keeps_the_saved_mix_settings(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "acx", "--format", "wav", "--format", "flac",
                 "--gap", "0.8"]) == 0
    saved = {"formats": ["wav", "flac"], "options": {"preset": "acx", "gap_s": 0.8}}
    assert project_mix(tmp_path) == saved
    assert main(["render", str(path)]) == 0
    assert project_mix(tmp_path) == saved
    sheet = json.loads((scene_folder(tmp_path) / "mix.cues.json").read_text())
    first, second = sheet["cues"]
    assert sheet["preset"] == "acx" and second["start_s"] - first["end_s"] == pytest.approx(0.8)
    assert sf.info(str(scene_folder(tmp_path) / "mix.flac")).frames == \
        sf.info(str(scene_folder(tmp_path) / "mix.wav")).frames
    assert main(["mix", str(path)]) == 0
    assert project_mix(tmp_path) == saved


def test_a_remix_removes_formats_no_longer_asked_for(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--format", "wav", "--format", "flac"]) == 0
    assert (scene_folder(tmp_path) / "mix.flac").exists()
    assert main(["mix", str(path), "--format", "wav"]) == 0
    assert sorted(p.name for p in scene_folder(tmp_path).glob("mix.*")) == [
        "mix.cues.json", "mix.labels.txt", "mix.srt", "mix.wav"]
    assert project_mix(tmp_path)["formats"] == ["wav"]


def test_temporaries_of_interrupted_mixes_and_takes_are_removed_on_the_next_run(tmp_path,
                                                                                monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    folder = scene_folder(tmp_path)
    left = [folder / ".mix-k2j3h4.wav", folder / ".mix.flac.a1b2.tmp",
            folder / ".mix.mp3.c3d4.tmp", folder / "boathouse-1" / ".take-002.wav.4242.tmp"]
    for temporary in left:
        temporary.write_bytes(b"x" * 100)
    assert main(["mix", str(path)]) == 0
    assert [p for p in left if p.exists()] == []
    assert not [p for p in folder.rglob(".*") if p.is_file()]


def test_a_failed_remix_leaves_the_whole_earlier_delivery_set(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--format", "wav", "--format", "flac"]) == 0
    folder = scene_folder(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.glob("mix.*")}
    saved = project_mix(tmp_path)

    def broken(source, target, settings):
        Path(target).write_bytes(b"partial")
        raise RenderError("FLAC encoder failed")

    monkeypatch.setitem(export.EXPORT_FORMATS, "flac", export.ExportFormat("flac", "FLAC", broken))
    assert main(["mix", str(path), "--gap", "1.5", "--format", "flac", "--format", "wav"]) == 2
    assert "FLAC encoder failed" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in folder.glob("mix.*")} == before
    assert project_mix(tmp_path) == saved
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]


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


BEAT_FOUNTAIN = """INT. BOATHOUSE - DAY

MARGOT
We leave at six.
(beat)

DESMOND
Fine then.

MARGOT
(pause)
Good.
"""


@pytest.mark.parametrize("gap, flags", [(0.5, []), (0.2, ["--gap", "0.2"]), (1.5, ["--gap", "1.5"])])
def test_a_fountain_beat_adds_its_pause_to_the_gap(tmp_path, monkeypatch, gap, flags):
    fake_render(monkeypatch)
    path = tmp_path / "scene.fountain"
    path.write_text(BEAT_FOUNTAIN, encoding="utf-8")
    (tmp_path / "scene.cast.yaml").write_text("cast:\n  MARGOT: {}\n  DESMOND: {}\n")
    assert main(["render", str(path), *flags]) == 0
    sheet = json.loads((tmp_path / "scene.drama" / "scene-1" / "mix.cues.json").read_text())
    first, second, third = sheet["cues"]
    assert second["start_s"] - first["end_s"] == pytest.approx(gap + 0.5, abs=1e-5)
    assert third["start_s"] - second["end_s"] == pytest.approx(gap + 0.5, abs=1e-5)


# A preset's gain is kept across one-line rebuilds while the scene stays within the preset.


def preset_project(tmp_path: Path, preset: str, backend):
    from drama_cli.mix.options import MixOverrides
    from drama_cli.takes.jobs import RenderSettings
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.load import load_script
    from drama_cli.takes.store import TakeStore

    path = tmp_path / "scene.yaml"
    path.write_text(boathouse_script(), encoding="utf-8")
    store = TakeStore(tmp_path / "scene.drama")
    render_script(load_script(str(path)), store, backend,
                  RenderSettings(), mix=MixOverrides(preset=preset))
    return path, store


def cue_sheet(store) -> dict:
    return json.loads((store.scene_dir("s1") / "mix.cues.json").read_text())


@pytest.mark.parametrize("preset", ["r128", "acx", "podcast"])
def test_with_a_preset_a_one_line_rebuild_leaves_the_other_lines_as_they_were(tmp_path, preset):
    from drama_cli.edit.revise import revise_in_project
    from drama_cli.script.load import load_script

    backend = FakeBackend()
    path, store = preset_project(tmp_path, preset, backend)
    before, gain = mix_segments(store), cue_sheet(store)["gain_db"]
    revise_in_project(load_script(str(path)), store, backend, "l2", "louder", select=True)
    after, sheet = mix_segments(store), cue_sheet(store)
    for line in ("l1", "l3"):
        np.testing.assert_array_equal(after[line][1], before[line][1])
    assert not np.array_equal(after["l2"][1][:1000], before["l2"][1][:1000])
    assert sheet["gain_held"] is True and sheet["gain_db"] == gain
    assert sheet["issues"] == [] or all("level" not in issue for issue in sheet["issues"])


def test_a_rebuild_that_would_leave_the_preset_range_normalises_the_scene_again(tmp_path):
    from drama_cli.edit.revise import revise_in_project
    from drama_cli.script.load import load_script

    def answer(request, call):
        loud = 0.9 if request.conversation is not None and \
            request.conversation.layout == "revise" else 0.05
        return voice(max(0.6, len(request.text) / 15), 150, loud), "eos"

    backend = FakeBackend(answer=answer)
    path, store = preset_project(tmp_path, "r128", backend)
    gain = cue_sheet(store)["gain_db"]
    revise_in_project(load_script(str(path)), store, backend, "l2", "louder", select=True)
    sheet = cue_sheet(store)
    assert sheet["gain_held"] is False and sheet["gain_db"] < gain - 3
    assert -24.0 <= sheet["loudness"]["integrated_lufs"] <= -22.0
