"""Scene mixing: timeline, reading takes of any format, room tone, presets, streaming blocks;
`drama mix` options, mix settings kept with the project and the script, scratch labels, corrupt
or missing selections, and the delivery set replaced as a whole."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    FakeBackend,
    fake_render,
    mix_rows,
    mix_settings_script,
    rendered_with_selection,
    tone,
    write_script,
)

from drama_cli.cli import main
from drama_cli.errors import RenderError, UsageError
from drama_cli.mix import export
from drama_cli.mix import timeline as mix
from drama_cli.mix.loudness import measure
from drama_cli.mix.timeline import (
    MixEntry,
    mix_scene,
    plan_timeline,
    read_take,
    write_mix,
)
from drama_cli.script.mix_settings import MixSettings
from engine.errors import AudioError

RATE = 44_100
EXACT = dict(head_s=0.0, tail_s=0.0, wav_subtype="FLOAT")


def write(path: Path, audio: np.ndarray, rate: int = RATE, subtype: str = "FLOAT") -> Path:
    sf.write(path, audio, rate, subtype=subtype)
    return path


def entry(path: Path, line: str = "l1", **kwargs) -> MixEntry:
    return MixEntry(
        line,
        kwargs.pop("speaker", "ANNA"),
        kwargs.pop("text", "Hello."),
        path,
        kwargs.pop("take", 1),
        **kwargs,
    )


def test_timeline_gaps_pauses_and_padding(tmp_path):
    a = write(tmp_path / "a.wav", tone(1.0))
    b = write(tmp_path / "b.wav", tone(0.5))
    c = write(tmp_path / "c.wav", tone(0.25))
    settings = MixSettings(gap_s=0.2, head_s=0.1, tail_s=0.3)
    entries = [entry(a, "l1"), entry(b, "l2", pause_after_s=1.0), entry(c, "l3")]
    cues, total = plan_timeline(entries, settings)
    starts = [cue.start_sample for cue in cues]
    assert starts == [4410, 4410 + 44100 + 8820, 4410 + 44100 + 8820 + 22050 + 44100]
    assert [cue.end_sample - cue.start_sample for cue in cues] == [44100, 22050, 11025]
    assert total == cues[-1].end_sample + 13230  # tail only, not the last gap


def test_dual_dialogue_and_negative_pause_overlap(tmp_path):
    a = write(tmp_path / "a.wav", tone(1.0))
    b = write(tmp_path / "b.wav", tone(0.5))
    entries = [
        entry(a, "l1", pause_after_s=-0.25),
        entry(b, "l2"),
        entry(a, "l3", overlaps_previous=True),
    ]
    cues, total = plan_timeline(entries, MixSettings(gap_s=0.5, head_s=0, tail_s=0))
    assert cues[1].start_sample == 44100 - 11025  # cuts into l1's last quarter second
    assert cues[2].start_sample == cues[1].start_sample  # starts with l2
    assert total == cues[2].end_sample


def test_mix_places_each_take_sample_exactly(tmp_path):
    a_audio, b_audio = tone(0.5, 300), tone(0.3, 500, 0.2)
    a = write(tmp_path / "a.wav", a_audio)
    b = write(tmp_path / "b.wav", b_audio)
    result = mix_scene(
        [entry(a, "l1"), entry(b, "l2")], MixSettings(gap_s=0.1, **EXACT), tmp_path / "w"
    )
    out = result.samples()
    assert out.size == result.total_samples == 22050 + 4410 + 13230
    np.testing.assert_array_equal(out[:22050], a_audio)
    assert not np.any(out[22050:26460])  # no room tone asked: a true gap
    np.testing.assert_array_equal(out[26460:], b_audio)


def test_takes_crossing_block_boundaries_mix_exactly(tmp_path, monkeypatch):
    monkeypatch.setattr(mix, "BLOCK_SAMPLES", 10_000)
    audio = tone(1.3, 180)
    path = write(tmp_path / "long.wav", audio)
    settings = MixSettings(gap_s=0.0, **EXACT)
    out = mix_scene([entry(path, "l1"), entry(path, "l2")], settings, tmp_path / "w").samples()
    np.testing.assert_array_equal(out, np.concatenate([audio, audio]))


def test_reads_takes_of_any_rate_width_and_channels(tmp_path):
    mono = tone(1.0, 1000, 0.5, rate=22_050)
    path16 = write(tmp_path / "low.wav", mono, 22_050, "PCM_16")
    audio = read_take(path16)
    assert audio.dtype == np.float32 and audio.size == RATE
    spectrum = np.abs(np.fft.rfft(audio[4410:-4410]))
    assert np.argmax(spectrum) * RATE / (audio.size - 8820) == pytest.approx(1000, abs=2)
    stereo = np.stack([tone(0.5, 440, 0.8), -tone(0.5, 440, 0.4)], axis=1)
    path_st = write(tmp_path / "st.flac", stereo, RATE, "PCM_24")
    np.testing.assert_allclose(read_take(path_st), tone(0.5, 440, 0.2), atol=1e-5)


@pytest.mark.parametrize(
    ("name", "fmt", "subtype"), [("t.mp3", "MP3", "MPEG_LAYER_III"), ("t.ogg", "OGG", "VORBIS")]
)
def test_reads_compressed_takes(tmp_path, name, fmt, subtype):
    if fmt not in sf.available_formats():
        pytest.skip(f"libsndfile without {fmt}")
    path = tmp_path / name
    sf.write(path, tone(1.0, 440, 0.5, rate=48_000), 48_000, format=fmt, subtype=subtype)
    result = mix_scene([entry(path)], MixSettings(**EXACT), tmp_path / "w")
    out = result.samples()
    assert abs(out.size - RATE) < 2500  # codec padding at most
    assert np.sqrt(np.mean(out[4410:-4410] ** 2)) == pytest.approx(0.5 / np.sqrt(2), rel=0.1)


def test_room_tone_fills_gaps_at_its_level(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.5))
    settings = MixSettings(gap_s=1.0, head_s=1.0, tail_s=1.0, room_tone="noise", room_tone_db=-60.0)
    result = mix_scene([entry(a), entry(a, "l2")], settings, tmp_path / "w")
    head = result.samples()[:RATE]
    rms_db = 10 * math.log10(np.mean(head.astype(np.float64) ** 2))
    assert rms_db == pytest.approx(-60.0, abs=0.5)
    assert np.count_nonzero(head == 0) < 50  # never digital silence


def test_room_tone_file_is_looped(tmp_path):
    bed = write(tmp_path / "bed.wav", tone(0.1, 100, 0.01))
    a = write(tmp_path / "a.wav", tone(0.2))
    settings = MixSettings(
        gap_s=0, head_s=0.35, tail_s=0, room_tone=bed, room_tone_db=-50.0, wav_subtype="FLOAT"
    )
    out = mix_scene([entry(a)], settings, tmp_path / "w").samples()
    loop = tone(0.1, 100, 0.01)
    scaled = loop * (10 ** (-50 / 20) / np.sqrt(np.mean(loop.astype(np.float64) ** 2)))
    np.testing.assert_allclose(out[: 3 * 4410], np.tile(scaled, 3), atol=1e-7)


@pytest.mark.parametrize(
    ("preset", "measure_kind", "target", "ceiling"),
    [("r128", "lufs", -23.0, -1.0), ("podcast", "lufs", -16.0, -1.0), ("acx", "rms", -20.0, -3.0)],
)
def test_presets_reach_target_under_ceiling(tmp_path, preset, measure_kind, target, ceiling):
    rng = np.random.default_rng(4)
    speechy = tone(2.0, 150, 0.05) * (1 + np.sin(np.arange(2 * RATE) / 3000.0)) + rng.normal(
        0, 0.01, 2 * RATE
    )
    speechy[20_000:20_020] = 0.5  # a sharp transient the gain will push over the ceiling
    path = write(tmp_path / "a.wav", speechy.astype(np.float32))
    settings = MixSettings(preset=preset, room_tone="noise")
    result = mix_scene([entry(path), entry(path, "l2")], settings, tmp_path / "w")
    after = measure(result.samples(), true_peak=True)
    level = after.integrated_lufs if measure_kind == "lufs" else after.rms_db
    assert level == pytest.approx(target, abs=0.5)
    peak = after.true_peak_dbtp if preset != "acx" else after.peak_dbfs
    assert peak <= ceiling + 0.05
    assert result.limiter_reduction_db > 0
    assert result.loudness.integrated_lufs == pytest.approx(after.integrated_lufs, abs=0.05)
    assert result.gain_db == pytest.approx(
        target
        - (result.measured.integrated_lufs if measure_kind == "lufs" else result.measured.rms_db)
    )
    assert result.issues == []


def test_level_lost_to_heavy_limiting_is_made_up(tmp_path):
    # Dense full-scale clicks over a quiet tone: the limiter must cut them by many dB, which
    # alone would leave the scene well under the podcast target.
    audio = tone(3.0, 150, 0.1)
    for start in range(0, audio.size - 200, 2205):
        audio[start : start + 200] += np.hanning(200).astype(np.float32) * 0.9
    path = write(tmp_path / "clicks.wav", audio)
    result = mix_scene([entry(path)], MixSettings(preset="podcast", **EXACT), tmp_path / "w")
    after = measure(result.samples(), true_peak=True)
    assert result.limiter_reduction_db > 3.0
    assert after.integrated_lufs == pytest.approx(-16.0, abs=0.5)
    assert after.true_peak_dbtp <= -1.0
    assert result.issues == []


def test_preset_none_leaves_levels_alone(tmp_path):
    audio = tone(1.0, 220, 0.25)
    path = write(tmp_path / "a.wav", audio)
    result = mix_scene([entry(path)], MixSettings(**EXACT), tmp_path / "w")
    assert result.gain_db == 0.0 and result.limiter_reduction_db == 0.0
    np.testing.assert_array_equal(result.samples(), audio)


def test_default_export_is_24_bit_with_all_sidecars(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.5))
    b = write(tmp_path / "b.wav", tone(0.25, 330))
    entries = [
        entry(a, "s1-l1", speaker="ANNA", text="Where\twere you?", take=3),
        entry(b, "s1-l2", speaker="BEN", text="Out.", take=1),
    ]
    result = mix_scene(entries, MixSettings(metadata={"engine": "scratch"}), tmp_path / "work")
    paths = write_mix(result, tmp_path / "scene", ("wav", "flac"))
    assert sorted(paths) == ["cues", "flac", "labels", "srt", "wav"]
    assert sf.info(str(paths["wav"])).subtype == "PCM_24"
    assert sf.info(str(paths["flac"])).frames == result.total_samples
    assert result.audio_path == paths["wav"]
    labels = paths["labels"].read_text().splitlines()
    assert labels == ["0.500000\t1.000000\tANNA: Where were you?", "1.500000\t1.750000\tBEN: Out."]
    assert "00:00:01,500 --> 00:00:01,750\nBEN: Out." in paths["srt"].read_text()
    sheet = json.loads(paths["cues"].read_text())
    assert sheet["engine"] == "scratch" and sheet["preset"] == "none"
    assert sheet["cues"][0] == {
        "line": "s1-l1",
        "speaker": "ANNA",
        "take": 3,
        "start_s": 0.5,
        "end_s": 1.0,
        "text": "Where\twere you?",
        "take_file": "a.wav",
        "take_path": "../a.wav",
    }
    assert not list((tmp_path / "scene").glob(".*"))  # no temporary files left behind
    assert sf.SoundFile(str(paths["wav"])).comment == "engine=scratch"  # labelled in the file


def test_temporary_render_folder_is_cleaned_up(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.3))
    result = mix_scene([entry(a)], MixSettings())
    temp_dir = result.temp_dir
    assert temp_dir is not None and result.audio_path.parent == temp_dir
    paths = write_mix(result, tmp_path / "scene")
    assert not temp_dir.exists() and paths["wav"].exists()


def test_export_without_wav_leaves_no_rendering_behind(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.3))
    result = mix_scene([entry(a)], MixSettings(), tmp_path / "scene")
    paths = write_mix(result, tmp_path / "scene", ("flac",))
    assert sorted(p.name for p in (tmp_path / "scene").iterdir()) == [
        "mix.cues.json",
        "mix.flac",
        "mix.labels.txt",
        "mix.srt",
    ]
    assert result.audio_path == paths["flac"] and result.samples().size == result.total_samples


def test_acx_flags_digital_silence_between_lines(tmp_path):
    a = write(tmp_path / "a.wav", tone(1.0, 200, 0.1))
    silent = mix_scene(
        [entry(a), entry(a, "l2")], MixSettings(preset="acx", gap_s=1.0), tmp_path / "s"
    )
    assert any("digital silence" in issue for issue in silent.issues)
    bed = MixSettings(preset="acx", gap_s=1.0, room_tone="noise")
    assert mix_scene([entry(a), entry(a, "l2")], bed, tmp_path / "b").issues == []


def test_bad_input_gives_clear_errors(tmp_path):
    a = write(tmp_path / "a.wav", tone(0.2))
    with pytest.raises(UsageError, match="nothing to mix"):
        mix_scene([], MixSettings())
    with pytest.raises(UsageError, match="preset"):
        mix_scene([entry(a)], MixSettings(preset="loud"))
    with pytest.raises(UsageError, match="format"):
        mix_scene([entry(a)], MixSettings(formats=("ogg",)))
    with pytest.raises(UsageError, match="finite"):
        mix_scene([entry(a, pause_after_s=float("nan"))], MixSettings())
    with pytest.raises(AudioError, match="missing.wav"):
        mix_scene([entry(tmp_path / "missing.wav")], MixSettings())
    (tmp_path / "junk.wav").write_bytes(b"RIFF....not audio")
    with pytest.raises(AudioError, match="junk.wav"):
        mix_scene([entry(tmp_path / "junk.wav")], MixSettings())


def test_mix_refuses_float_options_out_of_range(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    for flag in ("--gap=inf", "--head=-1", "--tail=99"):
        assert main(["mix", str(path), flag]) == 2
    assert main(["mix", str(path), "--room-tone", str(tmp_path / "none.wav")]) == 2


MIX_SCRIPT = mix_settings_script("noise", -60)


def test_script_mix_settings_apply_and_flags_win(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = tmp_path / "mix.yaml"
    path.write_text(MIX_SCRIPT, encoding="utf-8")
    out = tmp_path / "mix.drama"
    assert main(["render", str(path), "--preset", "acx"]) == 0
    _, rows = mix_rows(out)
    assert rows[0]["start_s"] == 0.0  # the scene's head
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(1.0, abs=1e-4)  # script gap
    audio, rate = sf.read(str(out / "boathouse" / "mix.wav"))
    gap = audio[int((rows[0]["end_s"] + 0.3) * rate) : int((rows[1]["start_s"] - 0.3) * rate)]
    assert 0 < float(np.sqrt(np.mean(gap**2))) < 10 ** (-50 / 20)  # room tone, not silence
    assert "digital silence" not in capsys.readouterr().out
    assert main(["mix", str(path), "--gap", "0.25", "--head", "0.5", "--tail", "2"]) == 0
    sheet, rows = mix_rows(out)
    assert rows[0]["start_s"] == pytest.approx(0.5, abs=1e-4)
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(0.25, abs=1e-4)
    assert sheet["duration_s"] == pytest.approx(rows[1]["end_s"] + 2.0, abs=1e-4)


def test_compliance_issues_are_printed(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "acx"]) == 0
    assert "gaps are digital silence; add room tone" in capsys.readouterr().out
    assert main(["mix", str(path), "--room-tone", "noise"]) == 0
    assert "digital silence" not in capsys.readouterr().out


def test_mix_with_a_corrupt_selected_take_exits_1_naming_line_and_file(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    wav = tmp_path / "scene.drama" / "boathouse" / "boathouse-2" / "take-001.wav"
    assert wav.exists()
    wav.write_bytes(wav.read_bytes()[:100])
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-2" in err and str(wav) in err


def test_a_scene_that_cannot_be_mixed_says_its_old_mix_is_stale(tmp_path, monkeypatch, capsys):
    path, selected = rendered_with_selection(tmp_path, monkeypatch, '{"lines": {}}')
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    captured = capsys.readouterr()
    assert "mix skipped" in captured.out and "stale" in captured.err
    assert "mix.wav" in captured.err


def test_a_scratch_mix_says_so_in_labels_subtitles_and_wav_metadata(tmp_path, capsys):
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--engine", "scratch"]) == 0
    folder = tmp_path / "scene.drama" / "boathouse"
    labels = (folder / "mix.labels.txt").read_text().splitlines()
    assert labels[0] == "0.000000\t0.000000\tSCRATCH DRAFT – not a Drama 3 performance"
    assert len(labels) == 3
    srt = (folder / "mix.srt").read_text().split("\n\n")
    assert srt[0] == "1\n00:00:00,000 --> 00:00:00,500\nSCRATCH DRAFT – not a Drama 3 performance"
    assert srt[1].startswith("2\n")
    with sf.SoundFile(str(folder / "mix.wav")) as wav:
        assert wav.title == "SCRATCH DRAFT – not a Drama 3 performance"
        assert wav.comment.startswith("SCRATCH DRAFT")
    sheet = json.loads((folder / "mix.cues.json").read_text())
    assert sheet["scratch"] is True and sheet["scratch_lines"] == ["boathouse-1", "boathouse-2"]


def test_a_mix_of_scratch_and_drama3_takes_says_so(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    real = registry.make_backend
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["render", str(path)]) == 0
    folder = tmp_path / "scene.drama" / "boathouse"
    assert not (folder / "mix.labels.txt").read_text().startswith("0.000000\t0.000000\tSCRATCH")
    monkeypatch.setattr(registry, "make_backend", real)
    capsys.readouterr()
    assert main(["render", str(path), "--engine", "scratch", "--line", "boathouse-1"]) == 0
    err = capsys.readouterr().err
    assert "combines 1 scratch take(s) (boathouse-1) with 1 take(s) of fake" in err
    sheet = json.loads((folder / "mix.cues.json").read_text())
    assert sheet["scratch_lines"] == ["boathouse-1"] and sheet["engines"] == ["fake", "scratch"]
    labels = (folder / "mix.labels.txt").read_text().splitlines()
    assert labels[0].endswith("PARTLY SCRATCH – 1 of 2 lines are scratch drafts, not Drama 3")


# Mix settings stay with the project; a re-mix replaces the whole delivery set.


def project_mix(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "scene.drama" / "project.json").read_text())["mix"]


def scene_folder(tmp_path: Path) -> Path:
    return tmp_path / "scene.drama" / "boathouse"


def test_a_bare_render_keeps_the_saved_mix_settings(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert (
        main(
            [
                "render",
                str(path),
                "--preset",
                "acx",
                "--format",
                "wav",
                "--format",
                "flac",
                "--gap",
                "0.8",
            ]
        )
        == 0
    )
    saved = {"formats": ["wav", "flac"], "options": {"preset": "acx", "gap_s": 0.8}}
    assert project_mix(tmp_path) == saved
    assert main(["render", str(path)]) == 0
    assert project_mix(tmp_path) == saved
    sheet = json.loads((scene_folder(tmp_path) / "mix.cues.json").read_text())
    first, second = sheet["cues"]
    assert sheet["preset"] == "acx" and second["start_s"] - first["end_s"] == pytest.approx(0.8)
    assert (
        sf.info(str(scene_folder(tmp_path) / "mix.flac")).frames
        == sf.info(str(scene_folder(tmp_path) / "mix.wav")).frames
    )
    assert main(["mix", str(path)]) == 0
    assert project_mix(tmp_path) == saved


def test_a_remix_removes_formats_no_longer_asked_for(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--format", "wav", "--format", "flac"]) == 0
    assert (scene_folder(tmp_path) / "mix.flac").exists()
    assert main(["mix", str(path), "--format", "wav"]) == 0
    assert sorted(p.name for p in scene_folder(tmp_path).glob("mix.*")) == [
        "mix.cues.json",
        "mix.labels.txt",
        "mix.srt",
        "mix.wav",
    ]
    assert project_mix(tmp_path)["formats"] == ["wav"]


def test_temporaries_of_interrupted_mixes_and_takes_are_removed_on_the_next_run(
    tmp_path, monkeypatch
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    folder = scene_folder(tmp_path)
    left = [
        folder / ".mix-k2j3h4.wav",
        folder / ".mix.flac.a1b2.tmp",
        folder / ".mix.mp3.c3d4.tmp",
        folder / "boathouse-1" / ".take-002.wav.4242.tmp",
    ]
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


@pytest.mark.parametrize(
    "gap, flags", [(0.5, []), (0.2, ["--gap", "0.2"]), (1.5, ["--gap", "1.5"])]
)
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


# ------------------------------------------------------------------ public bug cases A2, A4, A5 and A7


BARE = dict(head_s=0.0, tail_s=0.0, gap_s=0.0)


def pcm16_samples(path: Path) -> np.ndarray:
    assert sf.info(str(path)).subtype == "PCM_16"
    return sf.read(str(path), dtype="int16")[0]


@pytest.mark.case("A2")
def test_a2a_int16_overlap_clips_once_never_wraps(tmp_path):
    loud = np.full(RATE // 2, 30000, np.int16)
    x = tmp_path / "x.wav"
    y = tmp_path / "y.wav"
    sf.write(x, loud, RATE, subtype="PCM_16")
    sf.write(y, loud, RATE, subtype="PCM_16")
    settings = MixSettings(wav_subtype="PCM_16", **BARE)
    result = mix_scene([entry(x, "l1"), entry(y, "l2", overlaps_previous=True)], settings, tmp_path)
    out = pcm16_samples(result.audio_path)
    assert out.size == RATE // 2
    assert out.min() >= 0  # int16 wrap would give −5536
    assert out.max() <= 32767 and np.all(out[1000:-1000] > 30000)


@pytest.mark.case("A2")
def test_a2b_float_gains_sum_before_the_single_limit(tmp_path):
    x = tmp_path / "x.wav"
    y = tmp_path / "y.wav"
    sf.write(x, np.full(RATE // 2, 0.9, np.float32), RATE, subtype="FLOAT")
    sf.write(y, np.full(RATE // 2, -0.9, np.float32), RATE, subtype="FLOAT")
    entries = [entry(x, "l1", gain_db=20 * math.log10(2.0)), entry(y, "l2", overlaps_previous=True)]
    result = mix_scene(entries, MixSettings(wav_subtype="FLOAT", **BARE), tmp_path)
    out = result.samples()
    np.testing.assert_allclose(out, 0.9, atol=1e-3)  # per-step saturation would give 0.1
    assert result.limiter_reduction_db == 0.0


@pytest.mark.case("A4")
def test_a4a_24_bit_48k_take_reads_at_true_scale(tmp_path):
    t = np.arange(48_000) / 48_000
    path = tmp_path / "ref24.wav"
    sf.write(path, 0.31623 * np.sin(2 * np.pi * 1000 * t), 48_000, subtype="PCM_24")
    audio = read_take(path)
    assert audio.size == RATE
    assert np.max(np.abs(audio[100:-100])) == pytest.approx(0.3162, abs=0.001)
    assert 20 * math.log10(np.max(np.abs(audio[100:-100]))) == pytest.approx(-10.0, abs=0.05)


@pytest.mark.case("A4")
def test_a4b_float_beyond_full_scale_is_kept_then_limited_on_16_bit(tmp_path):
    path = tmp_path / "hot.wav"
    sf.write(path, np.array([1.5, -2.0, 0.5], np.float32), RATE, subtype="FLOAT")
    np.testing.assert_array_equal(read_take(path), [1.5, -2.0, 0.5])  # loaded as is

    result = mix_scene(
        [entry(path, "l1")], MixSettings(wav_subtype="PCM_16", **BARE), tmp_path / "w"
    )
    written = pcm16_samples(result.audio_path)
    assert written[0] > 0 and written[1] < 0  # 1.5 never wraps to −16386
    assert sf.info(str(result.audio_path)).subtype == "PCM_16"

    kept = mix_scene([entry(path, "l1")], MixSettings(wav_subtype="FLOAT", **BARE), tmp_path / "f")
    assert sf.info(str(kept.audio_path)).subtype == "FLOAT"  # header says FLOAT was kept

    raw = export.write_wav(tmp_path / "direct.wav", np.array([1.5, -2.0, 0.5]), RATE, "PCM_16")
    data = raw.read_bytes()
    assert struct.unpack("<3h", data[data.index(b"data") + 8 :][:6])[0] == 32767


@pytest.mark.case("A5")
@pytest.mark.parametrize("preset", ["r128", "acx", "podcast"])
def test_a5_scene_mixes_of_short_and_silent_takes(tmp_path, preset):
    clips = {"short": tone(0.30), "silent": np.zeros(RATE, np.float32), "long": tone(3.0)}
    results = {}
    for name, audio in clips.items():
        path = tmp_path / f"{name}.wav"
        sf.write(path, audio, RATE, subtype="FLOAT")
        settings = MixSettings(preset=preset, wav_subtype="FLOAT", **BARE)
        results[name] = mix_scene([entry(path, name)], settings, tmp_path / name)
    for result in results.values():
        out = result.samples()
        assert np.all(np.isfinite(out)) and math.isfinite(result.gain_db)
    assert results["silent"].gain_db == 0.0
    assert not np.any(results["silent"].samples())
    assert abs(results["short"].gain_db - results["long"].gain_db) < 3.0
    short_level = measure(results["short"].samples()).integrated_lufs
    long_level = measure(results["long"].samples()).integrated_lufs
    assert abs(short_level - long_level) < 3.0


@pytest.mark.case("A7")
def test_a7_write_mix_leaves_no_mp3_and_keeps_the_render(tmp_path, no_encoder):
    take = tmp_path / "take-001.wav"
    sf.write(take, tone(0.5), RATE)
    result = mix_scene([entry(take, "l1")], MixSettings(), tmp_path / "work")
    with pytest.raises(RenderError, match="mp3"):
        write_mix(result, tmp_path / "scene", ("wav", "mp3"))
    assert not (tmp_path / "scene" / "mix.mp3").exists()
    assert take.exists() and result.audio_path.exists()  # nothing rendered is lost


@pytest.mark.case("A7")
def test_a7_bundled_encoder_writes_a_real_mp3(tmp_path):
    if export.find_mp3_encoder() is None:
        pytest.skip("no MP3 encoder available on this machine")
    take = tmp_path / "take-001.wav"
    sf.write(take, tone(1.0), RATE)
    result = mix_scene([entry(take, "l1")], MixSettings(), tmp_path / "work")
    paths = write_mix(result, tmp_path / "scene", ("mp3",))
    data = paths["mp3"].read_bytes()
    assert len(data) > 1000 and export.is_mp3(paths["mp3"]) and not data.startswith(b"RIFF")
