"""Sounds in a scene: `sound:` items and `music:`/`ambience:` beds read from the script,
checked by `drama check`, placed at their anchors by the mix, beds ducked under dialogue, and
stems that sum to the mix. Every sound is generated here."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import soundfile as sf
from fakes import FakeBackend, fake_render, one_error_line, rendered_with_sounds, voice

from drama_cli.cli import main
from drama_cli.errors import ScriptError
from drama_cli.mix.sounds import DuckEnvelope
from drama_cli.mix.timeline import MixEntry, mix_scene, write_mix
from drama_cli.script.check import check_script
from drama_cli.script.document import Sound, SoundAnchor
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MixSettings

SR = 44_100


def write_sound(path, samples, rate=SR):
    sf.write(str(path), np.asarray(samples, np.float32), rate, subtype="FLOAT")
    return path


def sine(seconds, freq=1000.0, amplitude=0.1, rate=SR):
    t = np.arange(round(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def silent_take(folder, name, seconds):
    """A take of digital silence: the mix then holds the sounds alone."""
    return write_sound(folder / f"{name}.wav", np.zeros(int(seconds * SR)))


SCRIPT = """\
cast:
  A: {}
  B: {}
scenes:
  - id: s1
    ambience: rain.wav
    music:
      file: theme.wav
      gain_db: -6
      until: s1-2
      fade_out: 2s
    duck_db: -15
    lines:
      - A: Hello there.
      - sound: door.wav
        gain_db: -3
      - B: Hi.
      - sound: sting.wav
        at: s1-2 end + 0.5
      - sound: bang.wav
        after: s1-1 + 250ms
      - sound: clock.wav
        at: 3.5
      - music: outro.wav
        until: scene-end - 1
"""


def test_sound_items_and_beds_are_read_with_their_anchors(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT)
    script = load_script(str(path))
    scene = script.scenes[0]
    assert [line.id for line in scene.lines] == ["s1-1", "s1-2"]
    by_path = {sound.path: sound for sound in scene.sounds}
    music, rain = by_path["theme.wav"], by_path["rain.wav"]
    assert (music.kind, music.loop, music.duck, music.gain_db, music.fade_out_s) == (
        "music",
        True,
        True,
        -6.0,
        2.0,
    )
    assert (music.until.line, music.until.edge) == ("s1-2", "end")
    assert (rain.kind, rain.start.line, rain.until) == ("ambience", None, None)
    door = by_path["door.wav"]  # no anchor: where the line before it ends
    assert (door.kind, door.start.line, door.start.edge, door.gain_db, door.duck) == (
        "effect",
        "s1-1",
        "end",
        -3.0,
        False,
    )
    sting, bang, clock = by_path["sting.wav"], by_path["bang.wav"], by_path["clock.wav"]
    assert (sting.start.line, sting.start.edge, sting.start.offset_s) == ("s1-2", "end", 0.5)
    assert (bang.start.line, bang.start.edge, bang.start.offset_s) == ("s1-1", "end", 0.25)
    assert (clock.start.line, clock.start.offset_s) == (None, 3.5)
    music_cue = scene.sounds[-1]  # a music cue among the lines: plays once, ducked
    assert (music_cue.kind, music_cue.loop, music_cue.duck, music_cue.start.line) == (
        "music",
        False,
        True,
        "s1-2",
    )
    assert (music_cue.until.line, music_cue.until.edge, music_cue.until.offset_s) == (
        None,
        "end",
        -1.0,
    )
    assert script.mix_for(scene).duck_db == -15.0


def sting_error(tmp_path, capsys, anchor: str, place: str) -> str:
    """The message of the one error a script whose sting is at `anchor` gives, after checking
    that loading and `drama check` both place it at `place` (line:col)."""
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace("at: s1-2 end + 0.5", f"at: {anchor}"))
    with pytest.raises(ScriptError) as caught:
        load_script(str(path))
    assert str(caught.value.position) == f"{path}:{place}"
    assert main(["check", str(path)]) == 2
    assert f"{path}:{place}" in one_error_line(capsys)
    return caught.value.message


def test_an_anchor_to_a_missing_line_is_an_error_at_the_anchor(tmp_path, capsys):
    message = sting_error(tmp_path, capsys, "s1-9 end + 0.5", "19:13")
    assert "no line 's1-9' in scene s1" in message


def test_an_unreadable_anchor_is_an_error_with_the_forms_it_takes(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace("at: 3.5", "at: scene-end start"))
    with pytest.raises(ScriptError, match="scene-end takes no 'start' or 'end'"):
        load_script(str(path))


def test_check_finds_missing_undecodable_non_finite_and_badly_sampled_sounds(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT)
    write_sound(tmp_path / "rain.wav", sine(1.0))
    write_sound(tmp_path / "theme.wav", sine(0.01))  # too short to loop
    (tmp_path / "door.wav").write_text("not audio")
    write_sound(tmp_path / "sting.wav", [0.1, np.nan, 0.1])
    write_sound(tmp_path / "bang.wav", sine(0.2, rate=4_000), rate=4_000)
    report = check_script(str(path))
    found = {(err.position.line, err.message) for err in report.errors}
    assert found == {
        (8, "sound 'theme.wav' is 10 ms long, too short to loop (at least 50 ms)"),
        (15, "sound 'door.wav' is not readable audio"),
        (18, "sound 'sting.wav' holds non-finite samples (NaN or infinity)"),
        (20, "sound 'bang.wav' has a sample rate of 4000 Hz; use 8000..192000 Hz"),
        (22, "sound 'clock.wav' does not exist"),
        (24, "sound 'outro.wav' does not exist"),
    }


def test_changing_a_sound_never_renders_a_take_again(tmp_path, monkeypatch):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    path = tmp_path / "play.yaml"
    plain = "cast:\n  A: {}\nscenes:\n  - id: s1\n    lines:\n      - A: We leave at six.\n"
    path.write_text(plain)
    assert main(["render", str(path)]) == 0
    calls = len(backend.requests)
    write_sound(tmp_path / "rain.wav", sine(1.0))
    write_sound(tmp_path / "door.wav", sine(0.3))
    path.write_text(
        plain.replace("    lines:", "    ambience: rain.wav\n    lines:")
        + "      - sound: door.wav\n        gain_db: -3\n"
    )
    assert main(["render", str(path)]) == 0
    write_sound(tmp_path / "door.wav", sine(0.5, freq=500))
    assert main(["render", str(path)]) == 0
    assert len(backend.requests) == calls
    sheet = json.loads((tmp_path / "play.drama" / "s1" / "mix.cues.json").read_text())
    assert [s["sound"] for s in sheet["sounds"]] == ["rain", "door"]


def effect(path, line=None, edge="start", offset_s=0.0, **extra) -> Sound:
    return Sound(str(path), "effect", SoundAnchor(line, edge, offset_s), name=path.name, **extra)


def bed(path, **extra) -> Sound:
    return Sound(
        str(path),
        "ambience",
        SoundAnchor(),
        name=path.name,
        **{"loop": True, "duck": True, **extra},
    )


def two_lines(tmp_path, seconds=1.0, gap_s=2.0):
    return [
        MixEntry("L1", "A", "One.", silent_take(tmp_path, "t1", seconds), 1, gap_s),
        MixEntry("L2", "B", "Two.", silent_take(tmp_path, "t2", seconds), 1),
    ]


def test_an_effect_starts_at_its_anchor_to_the_sample(tmp_path):
    click = write_sound(tmp_path / "click.wav", np.r_[np.full(10, 0.5), np.zeros(90)])
    entries = two_lines(tmp_path)
    sounds = (effect(click, "L1", "end", 0.5), effect(click, None, "start", 0.25, gain_db=-6.0))
    result = mix_scene(
        entries, MixSettings(head_s=0.5, tail_s=0.5, sounds=sounds), work_dir=tmp_path
    )
    audio = result.samples()
    after_l1 = result.cues[0].end_sample + SR // 2  # head 0.5 s + take 1 s + 0.5 s
    assert after_l1 == 2 * SR
    assert [(s.start_sample, s.end_sample) for s in result.sounds] == [
        (2 * SR, 2 * SR + 100),
        (SR // 4, SR // 4 + 100),
    ]
    np.testing.assert_allclose(audio[after_l1 : after_l1 + 10], 0.5, atol=1e-6)
    np.testing.assert_allclose(audio[SR // 4 : SR // 4 + 10], 0.5 * 10 ** (-6 / 20), atol=1e-6)
    assert np.count_nonzero(audio) == 20
    rows = result.summary()["sounds"]
    assert rows[0] == {
        "sound": "click.wav",
        "kind": "effect",
        "start_s": 2.0,
        "end_s": round(2 + 100 / SR, 6),
        "file": "click.wav",
        "gain_db": 0.0,
        "loop": False,
        "duck": False,
    }


def test_a_sound_after_the_last_line_lengthens_the_scene_and_its_bed(tmp_path):
    sting = write_sound(tmp_path / "sting.wav", sine(3.0))
    rain = write_sound(tmp_path / "rain.wav", sine(1.0, amplitude=0.01))
    entries = two_lines(tmp_path, gap_s=0.5)
    sounds = (bed(rain), effect(sting, "L2", "end", 0.2))
    result = mix_scene(
        entries, MixSettings(head_s=0.5, tail_s=1.0, sounds=sounds), work_dir=tmp_path
    )
    l2_end = result.cues[1].end_sample
    assert result.total_samples == l2_end + int(0.2 * SR) + 3 * SR
    assert [s.end_sample for s in result.sounds] == [result.total_samples] * 2


def test_a_sound_anchored_to_a_line_left_out_of_the_mix_is_listed_not_placed(tmp_path):
    click = write_sound(tmp_path / "click.wav", np.full(100, 0.5))
    result = mix_scene(
        two_lines(tmp_path), MixSettings(sounds=(effect(click, "L7"),)), work_dir=tmp_path
    )
    assert result.sounds == [] and result.sounds_left_out == ["click.wav"]
    assert result.summary()["sounds_left_out"] == ["click.wav"]


def test_a_looped_bed_with_fades_fills_the_scene(tmp_path):
    loop = write_sound(tmp_path / "loop.wav", np.full(SR // 10, 0.2))
    sounds = (bed(loop, duck=False, fade_in_s=1.0, fade_out_s=1.0),)
    result = mix_scene(
        two_lines(tmp_path), MixSettings(head_s=0.5, tail_s=0.5, sounds=sounds), work_dir=tmp_path
    )
    audio = result.samples()
    assert result.sounds[0].end_sample == result.total_samples == audio.size
    assert audio[0] == 0.0
    assert audio[SR // 2] == pytest.approx(0.1, abs=1e-5)  # half-way through the fade-in
    assert audio[2 * SR] == pytest.approx(0.2, abs=1e-5)  # looped on past its 0.1 s file
    assert audio[-SR // 4] == pytest.approx(0.05, abs=1e-4)  # a quarter of the fade-out left


def test_the_duck_envelope_follows_its_formula():
    speech = [(SR, 2 * SR)]
    duck = DuckEnvelope(speech, depth_db=-12.0, attack_s=0.05, release_s=0.4)
    gains = np.concatenate([duck.gains(start, 1000) for start in range(0, 4 * SR, 1000)])
    floor = 10 ** (-12 / 20)
    key_on = SR - int(0.05 * SR)  # the look-ahead: one attack before the take
    assert gains[key_on - 1] == 1.0
    assert gains[key_on + 2205 - 1] == pytest.approx(floor + (1 - floor) * np.exp(-1), rel=1e-5)
    assert gains[2 * SR - 1] == pytest.approx(floor, rel=1e-5)
    released = 2 * SR + int(0.4 * SR) - 1
    assert gains[released] == pytest.approx(1 - (1 - floor) * np.exp(-1), rel=1e-4)


def test_a_bed_is_ducked_under_speech_and_comes_back_between_lines(tmp_path):
    """The bed's level from the rendered mix: 12 dB down inside a line, full in the gap."""
    rain = write_sound(tmp_path / "rain.wav", sine(1.0, freq=500, amplitude=0.1))
    entries = two_lines(tmp_path, seconds=2.0, gap_s=4.0)
    result = mix_scene(
        entries, MixSettings(head_s=0.5, tail_s=0.5, sounds=(bed(rain),)), work_dir=tmp_path
    )
    audio = result.samples()

    def level_db(lo, hi):
        return 20 * np.log10(np.sqrt(np.mean(np.square(audio[lo:hi], dtype=np.float64))))

    first = result.cues[0]
    under = level_db(first.start_sample + SR // 2, first.end_sample)
    gap = level_db(first.end_sample + 3 * SR, first.end_sample + int(3.9 * SR))
    full = 20 * np.log10(0.1 / np.sqrt(2))
    assert under == pytest.approx(full - 12.0, abs=0.01)
    assert gap == pytest.approx(full, abs=0.01)


def test_a_bed_stays_down_between_the_words_of_one_line(tmp_path):
    rain = write_sound(tmp_path / "rain.wav", sine(1.0, freq=500, amplitude=0.1))
    words = np.concatenate([voice(0.3), np.zeros(int(0.6 * SR)), voice(0.3)])  # a long pause
    take = write_sound(tmp_path / "t.wav", words)
    entry = MixEntry("L1", "A", "One two.", take, 1)
    result = mix_scene(
        [entry], MixSettings(head_s=1.0, tail_s=1.0, sounds=(bed(rain),)), work_dir=tmp_path
    )
    audio = result.samples()
    start = result.cues[0].start_sample
    pause = audio[start + int(0.35 * SR) : start + int(0.85 * SR)]  # only the bed sounds here
    peak = np.abs(pause).max()
    assert peak == pytest.approx(0.1 * 10 ** (-12 / 20), rel=1e-3)


def test_stems_sum_to_the_mix(tmp_path, monkeypatch, capsys):
    path, folder = rendered_with_sounds(
        tmp_path,
        monkeypatch,
        "      - A: We leave at six.\n      - sound: door.wav\n"
        "      - B: Fine then.\n      - A: Good.\n",
        "--room-tone",
        "noise",
        "--stems",
    )
    speech_to_bed = json.loads((folder / "mix.cues.json").read_text())["speech_to_bed_db"]
    assert f"speech {speech_to_bed:.1f} dB over the beds" in capsys.readouterr().out
    stems = {p.name: sf.read(str(p), dtype="float64")[0] for p in folder.glob("mix.stem-*.wav")}
    assert sorted(stems) == [
        "mix.stem-a.wav",
        "mix.stem-b.wav",
        "mix.stem-effects.wav",
        "mix.stem-music.wav",
        "mix.stem-room-tone.wav",
    ]
    mix, _ = sf.read(str(folder / "mix.wav"), dtype="float64")
    assert all(stem.size == mix.size for stem in stems.values())
    assert np.abs(sum(stems.values()) - mix).max() < 1e-4
    assert np.abs(stems["mix.stem-effects.wav"]).max() == pytest.approx(0.2, abs=1e-3)
    assert main(["mix", str(path), "--no-stems"]) == 0
    assert not list(folder.glob("mix.stem-*"))


FOUNTAIN = """\
INT. BOATHOUSE - NIGHT

SFX: door-slam

ALGERNON
We leave at six.

[[music: theme]]

JACK
Fine then.

SOUND: thunder
"""
FOUNTAIN_CAST = """\
cast:
  ALGERNON: {}
  JACK: {}
sounds:
  door-slam: sfx/door.wav
  theme: {file: sfx/theme.wav, gain_db: -6}
"""


def write_fountain_sounds(folder):
    """The files FOUNTAIN_CAST's table names, under `folder`."""
    (folder / "sfx").mkdir()
    for name in ("door", "theme"):
        write_sound(folder / "sfx" / f"{name}.wav", sine(0.2))


def test_fountain_sound_cues_resolve_against_the_cast_files_sounds_table(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST + "  thunder: sfx/thunder.flac\n")
    path = tmp_path / "play.fountain"
    path.write_text(FOUNTAIN)
    scene = load_script(str(path)).scenes[0]
    assert [line.text for line in scene.lines] == ["We leave at six.", "Fine then."]
    assert [e.text for e in scene.elements if e.kind == "sound"] == [
        "SFX: door-slam",
        "music: theme",
        "SOUND: thunder",
    ]
    found = [
        (s.name, s.path, s.kind, s.loop, s.duck, s.gain_db, s.start.line, s.start.edge)
        for s in scene.sounds
    ]
    assert found == [
        ("door-slam", "sfx/door.wav", "effect", False, False, 0.0, None, "start"),
        ("theme", "sfx/theme.wav", "music", True, True, -6.0, "scene-1-1", "end"),
        ("thunder", "sfx/thunder.flac", "effect", False, False, 0.0, "scene-1-2", "end"),
    ]


def test_a_fountain_sound_note_inside_a_speech_starts_after_the_words_before_it(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST)
    path = tmp_path / "play.fountain"
    path.write_text(
        "INT. BOATHOUSE - NIGHT\n\nALGERNON\nWe leave at six.\n\n"
        "JACK\n[[sfx: door-slam]] Fine then. [[music: theme]]\n(beat)\nGo.\n"
        "[[sfx: door-slam]]\n"
    )
    scene = load_script(str(path)).scenes[0]
    assert [(s.name, s.start.line, s.start.edge) for s in scene.sounds] == [
        ("door-slam", "scene-1-1", "end"),
        ("theme", "scene-1-2", "end"),
        ("door-slam", "scene-1-3", "end"),
    ]


def test_a_fountain_sound_name_missing_from_the_table_is_a_check_error_at_the_name(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST)
    path = tmp_path / "play.fountain"
    path.write_text(FOUNTAIN)
    report = check_script(str(path))
    unresolved = [e for e in report.errors if "no sound named" in e.message]
    assert [(str(e.position), e.message) for e in unresolved] == [
        (f"{path}:13:8", "no sound named 'thunder' in the cast file's sounds: table")
    ]


@pytest.mark.parametrize("cue, place", [("SFX:", "3:5"), ("MUSIC :  ", "3:8"), ("[[sfx:]]", "3:7")])
def test_a_fountain_sound_cue_without_a_name_is_a_check_error_never_narrated(tmp_path, cue, place):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST + "narrator: JACK\n")
    path = tmp_path / "play.fountain"
    path.write_text(f"INT. BOATHOUSE - NIGHT\n\n{cue}\n\nALGERNON\nWe leave at six.\n")
    write_fountain_sounds(tmp_path)
    report = check_script(str(path))
    assert [(str(e.position), e.message) for e in report.errors] == [
        (f"{path}:{place}", "empty sound cue (no name after the colon)")
    ]


def test_labels_and_subtitles_list_sounds_as_their_own_entries(tmp_path):
    click = write_sound(tmp_path / "door.wav", np.full(SR // 2, 0.1))
    rain = write_sound(tmp_path / "rain.wav", sine(1.0, amplitude=0.01))
    entries = two_lines(tmp_path, gap_s=1.0)
    result = mix_scene(
        entries,
        MixSettings(head_s=0.5, tail_s=0.5, sounds=(effect(click, "L1", "end", 0.25), bed(rain))),
        work_dir=tmp_path,
    )
    files = write_mix(result, tmp_path / "scene")
    labels = files["labels"].read_text().splitlines()
    assert labels == [
        "0.000000\t4.000000\tAMBIENCE: rain.wav",
        "0.500000\t1.500000\tA: One.",
        "1.750000\t2.250000\tEFFECT: door.wav",
        "2.500000\t3.500000\tB: Two.",
    ]
    srt = files["srt"].read_text()
    assert "2\n00:00:01,750 --> 00:00:02,250\n[door.wav]\n" in srt
    assert "rain" not in srt


def session_project(tmp_path, monkeypatch):
    """A rendered two-voice scene with an effect and a looped bed, mixed with both sessions."""
    _, folder = rendered_with_sounds(
        tmp_path,
        monkeypatch,
        "      - A: We leave at six.\n      - sound: door.wav\n"
        "        at: s1-1 end + 0.3\n      - B: Fine then.\n",
        "--export-session",
        "otio",
        "--export-session",
        "rpp",
    )
    sheet = json.loads((folder / "mix.cues.json").read_text())
    return folder, sheet


def expected_starts(sheet):
    starts = {row["line"]: row["start_s"] for row in sheet["cues"]}
    starts.update({row["sound"]: row["start_s"] for row in sheet["sounds"]})
    return starts


def test_the_otio_session_reads_back_with_clips_where_the_cue_sheet_has_them(tmp_path, monkeypatch):
    import opentimelineio as otio

    folder, sheet = session_project(tmp_path, monkeypatch)
    timeline = otio.adapters.read_from_file(str(folder / "mix.otio"))
    found = {}
    for track in timeline.tracks:
        for clip in track.find_clips():
            start = track.range_of_child(clip).start_time.rescaled_to(SR).value
            found.setdefault((track.name, clip.name), []).append(start)
            assert (folder / clip.media_reference.target_url).is_file()
    starts = expected_starts(sheet)
    assert sorted(found) == [("A", "s1-1"), ("B", "s1-2"), ("effects", "door"), ("music", "rain")]
    for (_track, name), clip_starts in found.items():
        assert abs(clip_starts[0] - starts[name] * SR) <= 1
    loops = found[("music", "rain")]  # the bed: one clip per repetition of its 0.7 s file
    assert np.diff(loops).tolist() == [round(0.7 * SR)] * (len(loops) - 1)
    assert timeline.duration().rescaled_to(SR).value == pytest.approx(
        sheet["duration_s"] * SR, abs=1
    )


def test_the_reaper_session_parses_with_items_where_the_cue_sheet_has_them(tmp_path, monkeypatch):
    folder, sheet = session_project(tmp_path, monkeypatch)
    text = (folder / "mix.rpp").read_text()
    assert text.count("<") == text.count("\n>") + text.count(" >")  # every block closed
    items, track = {}, None
    for row in text.splitlines():
        key, _, value = row.strip().partition(" ")
        if key == "NAME" and row.startswith("    NAME"):
            track = value.strip('"')
        elif key == "POSITION":
            position = float(value)
        elif key == "LOOP":
            loop = value == "1"
        elif key == "NAME":
            items[(track, value.strip('"'))] = (position, loop)
        elif key == "FILE":
            assert (folder / value.strip('"')).is_file()
    starts = expected_starts(sheet)
    assert sorted(items) == [("A", "s1-1"), ("B", "s1-2"), ("effects", "door"), ("music", "rain")]
    for (_, name), (position, _) in items.items():
        assert abs(position - starts[name]) * SR <= 1
    assert items[("music", "rain")][1] and not items[("effects", "door")][1]
    assert main(["mix", str(folder.parent.with_suffix(".yaml")), "--export-session", "none"]) == 0
    assert not (folder / "mix.rpp").exists() and not (folder / "mix.otio").exists()


def test_the_scene_plot_draws_sounds_on_their_own_lanes(tmp_path, monkeypatch):
    from matplotlib.patches import Rectangle

    from drama_cli.plot import scene_blocks, scene_figure
    from drama_cli.takes.store import TakeStore

    path, folder = rendered_with_sounds(
        tmp_path,
        monkeypatch,
        "      - A: We leave at six.\n      - sound: door.wav\n"
        "        at: s1-1 end + 0.3\n      - B: Fine then.\n",
    )
    blocks, total = scene_blocks(load_script(str(path)), TakeStore(folder.parent), "s1")
    fig = scene_figure(blocks, total_s=total)
    ax = fig.axes[0]
    sounds = {
        p.get_label(): p
        for p in ax.patches
        if isinstance(p, Rectangle) and p.get_label().startswith("sound:")
    }
    assert sorted(sounds) == ["sound:door", "sound:rain"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "(effects)", "(music)"]
    sheet = json.loads((folder / "mix.cues.json").read_text())
    door = next(s for s in sheet["sounds"] if s["sound"] == "door")
    assert sounds["sound:door"].get_x() == pytest.approx(door["start_s"])
    assert sounds["sound:door"].get_y() + 0.35 == pytest.approx(2)  # the third lane
    assert not [p for p in ax.patches if p.get_label() == "overlap"]  # the bed overlaps no line


def test_the_summary_gives_the_speech_to_bed_level_under_speech(tmp_path):
    rain = write_sound(tmp_path / "rain.wav", sine(1.0, freq=500, amplitude=0.1))
    take = write_sound(tmp_path / "t.wav", sine(3.0, freq=200, amplitude=0.2))
    result = mix_scene(
        [MixEntry("L1", "A", "One.", take, 1)],
        MixSettings(head_s=1.0, tail_s=1.0, sounds=(bed(rain),)),
        work_dir=tmp_path,
    )
    # voice 0.2 against a bed of 0.1 held 12 dB down: 6 + 12 dB (the look-ahead has the bed
    # down, within 5 %, by the take's first sample)
    assert result.speech_to_bed_db == pytest.approx(18.0, abs=0.3)
    assert result.summary()["speech_to_bed_db"] == result.speech_to_bed_db


def test_a_fountain_cue_after_narrated_action_starts_where_the_narration_ends(tmp_path, capsys):
    cast = FOUNTAIN_CAST.replace("cast:\n", "narrator: JACK\ncast:\n")
    (tmp_path / "play.cast.yaml").write_text(cast)
    path = tmp_path / "play.fountain"
    path.write_text(
        "INT. BOATHOUSE - NIGHT\n\nALGERNON\nWe leave at six.\n\n"
        "The wind rises.\n\nSFX: door-slam\n"
    )
    write_fountain_sounds(tmp_path)
    scene = load_script(str(path)).scenes[0]
    assert [(line.id, line.kind) for line in scene.lines] == [
        ("scene-1-1", "dialogue"),
        ("scene-1-a1", "action"),
    ]
    assert (scene.sounds[0].start.line, scene.sounds[0].start.edge) == ("scene-1-a1", "end")
    assert main(["check", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scenes"][0]["sounds"] == [
        {"name": "door-slam", "path": "sfx/door.wav", "kind": "effect"}
    ]


def test_a_sound_file_gone_since_the_check_is_named_as_a_sound(tmp_path):
    from engine.errors import AudioError

    gone = tmp_path / "gone.wav"
    for sound in (effect(gone, "L1"), bed(gone)):
        with pytest.raises(AudioError, match=f"cannot read sound {gone}"):
            mix_scene(two_lines(tmp_path), MixSettings(sounds=(sound,)), work_dir=tmp_path)


def test_a_loop_that_would_start_after_the_scene_is_left_out_and_stretches_nothing(tmp_path):
    loop = write_sound(tmp_path / "loop.wav", np.full(SR // 10, 0.2))
    late = Sound(str(loop), "ambience", SoundAnchor(None, "end", 5.0), loop=True, name="late")
    sounds = (late, effect(loop, "L1"), bed(loop, duck=False))
    result = mix_scene(two_lines(tmp_path), MixSettings(sounds=sounds), work_dir=tmp_path)
    assert result.sounds_left_out == ["late"]
    l1_start = result.cues[0].start_sample
    assert [(s.kind, s.start_sample, s.end_sample) for s in result.sounds] == [
        ("effect", l1_start, l1_start + SR // 10),
        ("ambience", 0, result.total_samples),
    ]


def test_an_until_before_the_sound_starts_is_a_check_error_at_the_until(tmp_path, capsys):
    message = sting_error(tmp_path, capsys, "s1-2 end\n        until: s1-1", "20:16")
    assert message == "sound sting: until s1-1 ends before the sound starts (at s1-2 ends)"


@pytest.mark.parametrize(
    "anchor, allowed",
    [
        ("s1-2 end\n        until: s1-2 end", False),
        ("s1-2 start\n        until: s1-2 end", True),
        ("s1-1 end + 1\n        until: s1-2 end", True),
        ("3.0\n        until: 2.0", False),
        ("s1-2 end\n        until: s1-1 end + 0.5", True),
    ],
)
def test_an_until_is_refused_only_when_it_surely_comes_before_the_start(tmp_path, anchor, allowed):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace("at: s1-2 end + 0.5", f"at: {anchor}"))
    errors = [e.message for e in check_script(str(path)).errors if "until" in e.message]
    assert (errors == []) == allowed


@pytest.mark.parametrize("anchor", ["-5", "1e9", "100000", "-5s", "s1-1 end + 100000"])
def test_a_number_anchor_out_of_the_scene_clock_is_an_error_saying_what_is_allowed(
    tmp_path, anchor
):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace("at: 3.5", f"at: {anchor}"))
    with pytest.raises(ScriptError) as caught:
        load_script(str(path))
    assert str(caught.value.position) == f"{path}:23:13"
    assert "no line" not in caught.value.message
    assert caught.value.message.startswith(f"the anchor {anchor} ")
    assert "from 0 to 86400 (24 h)" in caught.value.hint


def test_a_negative_offset_from_a_line_is_still_an_anchor(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace("at: 3.5", "at: s1-2 start - 5"))
    clock = load_script(str(path)).scenes[0].sounds[-2]
    assert (clock.path, clock.start.line, clock.start.edge, clock.start.offset_s) == (
        "clock.wav",
        "s1-2",
        "start",
        -5.0,
    )


def test_the_mix_says_why_it_left_a_sound_out(tmp_path):
    click = write_sound(tmp_path / "click.wav", np.full(100, 0.5))
    backwards = replace(
        effect(click, "L2", "end", until=SoundAnchor("L1", "end")), name="backwards"
    )
    missing = replace(effect(click, "L7"), name="missing")
    result = mix_scene(
        two_lines(tmp_path), MixSettings(sounds=(backwards, missing)), work_dir=tmp_path
    )
    assert result.sounds_left_out == ["backwards", "missing"]
    assert result.summary()["sounds_left_out_reasons"] == [
        "its until: comes before its start",
        "the line it is anchored to is not in the mix",
    ]


def test_a_bad_sounds_table_entry_is_one_error_at_the_entry(tmp_path):
    cast = tmp_path / "play.cast.yaml"
    cast.write_text(
        FOUNTAIN_CAST.replace("gain_db: -6", "loop: maybe") + "  thunder: sfx/thunder.flac\n"
    )
    path = tmp_path / "play.fountain"
    path.write_text(FOUNTAIN)
    found = [(str(e.position), e.message, e.hint) for e in check_script(str(path)).errors]
    assert found == [
        (
            f"{cast}:5:14",
            "sound 'sfx/door.wav' does not exist",
            "record it or fix the path (relative to the cast file)",
        ),
        (f"{cast}:6:32", "unknown key 'loop' in sound theme", "known keys: file, gain_db"),
        (
            f"{cast}:7:12",
            "sound 'sfx/thunder.flac' does not exist",
            "record it or fix the path (relative to the cast file)",
        ),
    ]


def test_an_unknown_sound_name_is_one_error_at_the_cue(tmp_path):
    sfx = tmp_path / "sfx"
    sfx.mkdir()
    for name in ("door", "theme"):
        write_sound(sfx / f"{name}.wav", sine(1.0))
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST)
    path = tmp_path / "play.fountain"
    path.write_text(FOUNTAIN)
    found = [(str(e.position), e.message) for e in check_script(str(path)).errors]
    assert found == [(f"{path}:13:8", "no sound named 'thunder' in the cast file's sounds: table")]


def test_render_says_a_sound_stopping_before_it_starts_is_left_out_for_that(
    tmp_path, monkeypatch, capsys
):
    rendered_with_sounds(
        tmp_path,
        monkeypatch,
        "      - A: We leave at six.\n"
        "      - sound: door.wav\n        at: s1-1 end + 30\n"
        "        until: s1-2 start\n      - B: Fine then.\n",
    )
    assert (
        "scene s1: sound door left out: its until: comes before its start"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    "broken, problem", [(None, "does not exist"), (b"not audio", "is not readable audio")]
)
def test_a_sound_file_lost_after_the_render_is_an_error_at_its_place_in_the_mix(
    tmp_path, monkeypatch, capsys, broken, problem
):
    path, _ = rendered_with_sounds(
        tmp_path,
        monkeypatch,
        "      - A: We leave at six.\n      - sound: door.wav\n      - B: Fine then.\n",
    )
    (tmp_path / "door.wav").unlink()
    if broken is not None:
        (tmp_path / "door.wav").write_bytes(broken)
    capsys.readouterr()
    assert main(["mix", str(path)]) == 2
    assert one_error_line(capsys) == (
        f"drama: {path}:9:9: sound 'door.wav' {problem} (record it or fix the path, then mix again)"
    )


@pytest.mark.parametrize("command", [["render"], ["render", "--scene", "s1"], ["book"]])
def test_a_missing_sound_file_stops_a_render_before_any_line_is_voiced(
    tmp_path, monkeypatch, capsys, command
):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A: {}\nscenes:\n  - id: s1\n    lines:\n      - A: We leave at six.\n"
        "      - sound: door.wav\n"
    )
    assert main([command[0], str(path), *command[1:]]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"drama: {path}:7:9: sound 'door.wav' does not exist (record it or fix the path (relative to the script))"
    )
    assert fake.requests == []


@pytest.mark.parametrize(
    "scene, where, what",
    [
        (
            "  - id: s1\n    lines:\n      - A: We leave at six.\n      - sound: door.wav\n",
            "7:9",
            "sound 'door.wav'",
        ),
        (
            "  - id: s1\n    room_tone: door.wav\n    lines:\n      - A: We leave at six.\n",
            "5:16",
            "room tone 'door.wav'",
        ),
    ],
)
def test_a_sound_or_room_tone_holding_non_finite_samples_stops_a_render_before_any_line_is_voiced(
    tmp_path, monkeypatch, capsys, scene, where, what
):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    write_sound(tmp_path / "door.wav", np.array([0.1, np.nan, 0.1], np.float32))
    path = tmp_path / "play.yaml"
    path.write_text("cast:\n  A: {}\nscenes:\n" + scene)
    assert main(["render", str(path)]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .splitlines()[-1]
        .startswith(f"drama: {path}:{where}: {what} holds non-finite samples")
    )
    assert fake.requests == []


def test_speakers_whose_names_share_a_file_name_get_a_stem_each_named_in_the_map(
    tmp_path, monkeypatch
):
    fake_render(monkeypatch)
    sf.write(str(tmp_path / "rain.wav"), np.full(SR // 2, 0.01, np.float32), SR, subtype="FLOAT")
    path = tmp_path / "play.yaml"
    path.write_text(
        'cast: {ANNE-MARIE: {}, "ANNE MARIE": {}, MUSIC: {}, "MUSIC 2": {}}\nscenes:\n'
        "  - id: s1\n    ambience: rain.wav\n    lines:\n      - ANNE-MARIE: Hello there.\n"
        "      - ANNE MARIE: Hello to you.\n      - MUSIC: And me.\n      - MUSIC 2: Me too.\n"
    )
    assert main(["render", str(path), "--stems"]) == 0
    folder = tmp_path / "play.drama" / "s1"
    stems = sorted(p.name for p in folder.glob("mix.stem-*.wav"))
    assert stems == [
        "mix.stem-anne-marie.wav",
        "mix.stem-anne-marie~2.wav",
        "mix.stem-music-2.wav",  # MUSIC 2's own name: never a numbered one
        "mix.stem-music.wav",
        "mix.stem-music~2.wav",
    ]
    assert json.loads((folder / "mix.stems.json").read_text()) == {
        "stems": {
            "mix.stem-anne-marie.wav": {"speaker": "ANNE-MARIE"},
            "mix.stem-anne-marie~2.wav": {"speaker": "ANNE MARIE"},
            "mix.stem-music~2.wav": {"speaker": "MUSIC"},
            "mix.stem-music-2.wav": {"speaker": "MUSIC 2"},
            "mix.stem-music.wav": {"sound": "music and ambience"},
        }
    }
    mix, _ = sf.read(str(folder / "mix.wav"), dtype="float64")
    summed = sum(sf.read(str(folder / name), dtype="float64")[0] for name in stems)
    assert np.abs(summed - mix).max() < 1e-4
    assert main(["mix", str(path), "--no-stems"]) == 0
    assert not list(folder.glob("mix.stem*"))


def test_a_sound_cue_row_inside_a_speech_is_a_warning_that_it_is_spoken(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST)
    path = tmp_path / "play.fountain"
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST + "narrator: JACK\n")
    path.write_text(
        "INT. BOATHOUSE - NIGHT\n\nALGERNON\nWe leave at six.\nSFX: door-slam\n\n"
        "JACK\nMusic: it soothes me.\n\nThe door opens.\nSFX: door-slam\n"
    )
    report = check_script(str(path))
    assert [(str(w.position), w.message) for w in report.warnings if "spoken" in w.message] == [
        (
            f"{path}:5:1",
            "row 'SFX: door-slam' of ALGERNON (line scene-1-1) is spoken as words: "
            "to play the sound door-slam, put a blank line before the row",
        ),
        (
            f"{path}:11:1",
            "row 'SFX: door-slam' of JACK (line scene-1-a1) is spoken as words: "
            "to play the sound door-slam, put a blank line before the row",
        ),
    ]


def test_a_fountain_sound_note_after_narrated_action_on_its_row_starts_after_it(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST + "narrator: JACK\n")
    path = tmp_path / "play.fountain"
    path.write_text(
        "INT. BOATHOUSE - NIGHT\n\nALGERNON\nWe leave at six.\n\n"
        "The door opens. [[sfx: door-slam]]\n"
    )
    scene = load_script(str(path)).scenes[0]
    action = next(line for line in scene.lines if line.kind == "action")
    assert [(s.name, s.start.line, s.start.edge) for s in scene.sounds] == [
        ("door-slam", action.id, "end")
    ]


def test_check_finds_faults_in_sounds_table_entries_no_cue_uses(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(FOUNTAIN_CAST + "  spare: sfx/spare.wav\n")
    write_fountain_sounds(tmp_path)
    path = tmp_path / "play.fountain"
    path.write_text(FOUNTAIN.replace("SOUND: thunder\n", ""))
    found = [(str(e.position), e.message) for e in check_script(str(path)).errors]
    assert found == [
        (f"{tmp_path / 'play.cast.yaml'}:7:10", "sound 'sfx/spare.wav' does not exist")
    ]


def test_check_finds_faults_in_a_yaml_scripts_unused_sounds_table_entries(tmp_path):
    write_sound(tmp_path / "door.wav", sine(0.5))
    (tmp_path / "bad.wav").write_text("not audio")
    write_sound(tmp_path / "hiss.wav", sine(0.2, rate=4_000), rate=4_000)
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast: {A: {}}\nsounds:\n  door: door.wav\n  bad: bad.wav\n"
        "  gone: {file: gone.wav}\n  hiss: hiss.wav\nscenes:\n  - id: s1\n"
        "    lines:\n      - A: 'Hello {sfx: door} there.'\n"
    )
    found = [(str(e.position), e.message) for e in check_script(str(path)).errors]
    assert found == [
        (f"{path}:4:8", "sound 'bad.wav' is not readable audio"),
        (f"{path}:5:16", "sound 'gone.wav' does not exist"),
        (f"{path}:6:9", "sound 'hiss.wav' has a sample rate of 4000 Hz; use 8000..192000 Hz"),
    ]


def test_an_ogg_vorbis_sound_passes_check_and_mixes_as_it_decodes(tmp_path):
    door = tmp_path / "door.ogg"
    sf.write(str(door), sine(0.3, freq=440), SR, format="OGG", subtype="VORBIS")
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast: {A: {}, B: {}}\nscenes:\n  - id: s1\n    lines:\n      - A: One.\n"
        "      - sound: door.ogg\n      - B: Two.\n"
    )
    assert check_script(str(path)).errors == []
    result = mix_scene(
        two_lines(tmp_path),
        MixSettings(head_s=0.5, tail_s=0.5, sounds=(effect(door, "L1", "end"),)),
        work_dir=tmp_path,
    )
    decoded, _ = sf.read(str(door), dtype="float32")
    start = result.cues[0].end_sample
    mixed = result.samples()[start : start + len(decoded)]
    assert len(decoded) == round(0.3 * SR)
    assert np.abs(mixed - decoded).max() < 1e-3


def test_a_yaml_sound_is_named_by_its_name_key_else_its_files_stem(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast: {A: {}}\nscenes:\n  - id: s1\n    ambience: sfx/rain.flac\n"
        "    music: {file: sfx/theme.wav, name: main theme}\n    lines:\n"
        "      - A: Hello.\n      - sound: my/st48.wav\n      - music: sting.ogg\n"
        "        name: sting\n"
    )
    sounds = load_script(str(path)).scenes[0].sounds
    assert [(s.name, s.path) for s in sounds] == [
        ("main theme", "sfx/theme.wav"),
        ("rain", "sfx/rain.flac"),
        ("st48", "my/st48.wav"),
        ("sting", "sting.ogg"),
    ]


def test_labels_and_subtitles_name_a_yaml_sound_by_its_stem(tmp_path, monkeypatch):
    _, folder = rendered_with_sounds(
        tmp_path,
        monkeypatch,
        "      - A: We leave at six.\n      - sound: door.wav\n      - B: Fine then.\n",
    )
    assert "\tEFFECT: door\n" in (folder / "mix.labels.txt").read_text()
    assert "\tAMBIENCE: rain\n" in (folder / "mix.labels.txt").read_text()
    assert "\n[door]\n" in (folder / "mix.srt").read_text()


def test_a_broken_scripted_room_tone_does_not_stop_a_render_that_overrides_it(
    tmp_path, monkeypatch
):
    fake_render(monkeypatch)
    write_sound(tmp_path / "tone.wav", np.array([0.1, np.nan, 0.1], np.float32))
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A: {}\nscenes:\n  - id: s1\n    room_tone: tone.wav\n    lines:\n"
        "      - A: We leave at six.\n"
    )
    assert main(["render", str(path), "--room-tone", "none"]) == 0
