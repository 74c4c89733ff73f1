"""Sounds in a scene: `sound:` items and `music:`/`ambience:` beds read from the script,
checked by `drama check`, placed at their anchors by the mix, beds ducked under dialogue, and
stems that sum to the mix. Every sound is generated here."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf
from fakes import FakeBackend, fake_render, one_error_line, voice

from drama_cli.cli import main
from drama_cli.errors import ScriptError
from drama_cli.mix.sounds import DuckEnvelope
from drama_cli.mix.timeline import MixEntry, MixSettings, mix_scene
from drama_cli.script.check import check_script
from drama_cli.script.document import Sound, SoundAnchor
from drama_cli.script.load import load_script

SR = 44_100


def write_sound(path, samples, rate=SR):
    sf.write(str(path), np.asarray(samples, np.float32), rate, subtype="FLOAT")
    return path


def sine(seconds, freq=1000.0, amplitude=0.1, rate=SR):
    t = np.arange(int(round(seconds * rate))) / rate
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
"""


def test_sound_items_and_beds_are_read_with_their_anchors(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT)
    script = load_script(str(path))
    scene = script.scenes[0]
    assert [line.id for line in scene.lines] == ["s1-1", "s1-2"]
    by_path = {sound.path: sound for sound in scene.sounds}
    music, rain = by_path["theme.wav"], by_path["rain.wav"]
    assert (music.kind, music.loop, music.duck, music.gain_db, music.fade_out_s) == \
        ("music", True, True, -6.0, 2.0)
    assert (music.until.line, music.until.edge) == ("s1-2", "end")
    assert (rain.kind, rain.start.line, rain.until) == ("ambience", None, None)
    door = by_path["door.wav"]  # no anchor: where the line before it ends
    assert (door.kind, door.start.line, door.start.edge, door.gain_db, door.duck) == \
        ("effect", "s1-1", "end", -3.0, False)
    sting, bang, clock = by_path["sting.wav"], by_path["bang.wav"], by_path["clock.wav"]
    assert (sting.start.line, sting.start.edge, sting.start.offset_s) == ("s1-2", "end", 0.5)
    assert (bang.start.line, bang.start.edge, bang.start.offset_s) == ("s1-1", "end", 0.25)
    assert (clock.start.line, clock.start.offset_s) == (None, 3.5)
    assert script.mix_for(scene).duck_db == -15.0


def test_an_anchor_to_a_missing_line_is_an_error_at_the_anchor(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace("at: s1-2 end + 0.5", "at: s1-9 end + 0.5"))
    with pytest.raises(ScriptError) as caught:
        load_script(str(path))
    assert str(caught.value.position) == f"{path}:19:13"
    assert "no line 's1-9' in scene s1" in caught.value.message
    assert main(["check", str(path)]) == 2
    assert f"{path}:19:13" in one_error_line(capsys)


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
    path.write_text(plain.replace("    lines:", "    ambience: rain.wav\n    lines:")
                    + "      - sound: door.wav\n        gain_db: -3\n")
    assert main(["render", str(path)]) == 0
    write_sound(tmp_path / "door.wav", sine(0.5, freq=500))
    assert main(["render", str(path)]) == 0
    assert len(backend.requests) == calls
    sheet = json.loads((tmp_path / "play.drama" / "s1" / "mix.cues.json").read_text())
    assert [s["sound"] for s in sheet["sounds"]] == ["rain.wav", "door.wav"]
