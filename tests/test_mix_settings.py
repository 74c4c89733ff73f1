"""Mix settings: one frozen record (`MixSettings`) checked when it is made against one table
(`MIX_FIELDS`), layered in one function (flags over the project over the scene over the script
over the table's defaults), saved with the project, and every audio input inspected once per
command."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import soundfile as sf
from fakes import fake_render, voice, write_script

from drama_cli.cli import main
from drama_cli.errors import UsageError
from drama_cli.mix.export import FORMATS
from drama_cli.mix.mix_set import set_state
from drama_cli.mix.options import layer_mix
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import (
    DEFAULT_FORMATS,
    MIX_DEFAULTS,
    MIX_FIELDS,
    MixSettings,
    flag_help,
)
from drama_cli.script.yaml_scenes import MIX_KEYS

SR = 44_100
LAYERED_SCRIPT = """\
cast:
  A: {{}}
gap: 0.3
head: 0.2
room_tone_db: -70
scenes:
  - id: s1
    gap: 0.9
    lines:
      - A: One.
  - id: s2
    lines:
      - A: Two.
"""


def test_the_record_is_frozen_and_checked_when_made():
    flags = MixSettings(gap_s=1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        flags.gap_s = 2.0
    with pytest.raises(UsageError, match="--gap must be between 0 and 60, not 61"):
        MixSettings(gap_s=61.0)
    with pytest.raises(UsageError, match="--tail must be a finite number"):
        MixSettings(tail_s=float("nan"))
    with pytest.raises(UsageError, match="room tone level"):
        MixSettings(room_tone_db=3.0)


def test_one_table_gives_the_script_keys_the_flags_ranges_and_defaults():
    assert MIX_KEYS == (
        "room_tone",
        "room_tone_db",
        "gap",
        "head",
        "tail",
        "duck_db",
        "duck_attack",
        "duck_release",
    )
    assert flag_help("gap_s") == "Default pause between lines in the mix, seconds (0..60)."
    assert MIX_FIELDS["formats"].allowed == FORMATS
    assert (MIX_DEFAULTS.gap_s, MIX_DEFAULTS.head_s, MIX_DEFAULTS.tail_s) == (0.5, 0.5, 1.0)
    assert (MIX_DEFAULTS.formats, MIX_DEFAULTS.preset, MIX_DEFAULTS.stems) == (
        ("wav",),
        "none",
        False,
    )
    with pytest.raises(UsageError, match="ducking attack \\(s\\) must be between 0 and 10, not 11"):
        MixSettings(duck_attack_s=11.0)


def test_a_layer_fills_only_what_the_one_above_leaves_unset():
    scene = MixSettings(room_tone="noise", room_tone_position="scene:3:12")
    script = MixSettings(
        room_tone="tone.wav", room_tone_position="play:2:12", gap_s=0.8, head_s=0.2
    )
    merged = MixSettings(gap_s=0.1).over(scene).over(script)
    assert (merged.gap_s, merged.head_s, merged.room_tone) == (0.1, 0.2, "noise")
    assert merged.room_tone_position == "scene:3:12"  # the position goes with the room tone
    assert merged.resolved().tail_s == MIX_FIELDS["tail_s"].default
    assert MixSettings().over(None) == MixSettings()


def test_layers_are_flags_over_project_over_scene_over_script_over_defaults(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(LAYERED_SCRIPT.replace("{{}}", "{}"), encoding="utf-8")
    script = load_script(str(path))
    s1, s2 = script.scenes
    project = MixSettings(formats=("flac",), head_s=0.7)
    flags = MixSettings(tail_s=2.0)
    first = layer_mix(flags, project, script, s1)
    assert first.options() == {"gap_s": 0.9, "head_s": 0.7, "tail_s": 2.0, "room_tone_db": -70}
    assert first.formats == ("flac",)
    second = layer_mix(MixSettings(gap_s=0.1), project, script, s2)
    assert second.options() == {"gap_s": 0.1, "head_s": 0.7, "room_tone_db": -70}
    assert layer_mix(MixSettings()).formats == DEFAULT_FORMATS
    assert layer_mix(MixSettings()).options() == {}


def test_the_project_record_round_trips_and_keeps_only_what_was_given():
    given = MixSettings(formats=("wav", "mp3"), preset="acx", gap_s=0.25)
    record = given.to_record()
    assert record == {"formats": ["wav", "mp3"], "options": {"preset": "acx", "gap_s": 0.25}}
    assert MixSettings.from_record(record) == given
    assert MixSettings.from_record(None) == MixSettings()
    with pytest.raises(UsageError, match="--gap must be a finite number"):
        MixSettings.from_record({"options": {"gap_s": "nan"}})


def test_a_render_reads_the_room_tone_file_once_to_check_it(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    bed = tmp_path / "bed.wav"
    sf.write(str(bed), (voice(1.0) * 0.05).astype(np.float32), SR)
    reads = []
    real_blocks = sf.blocks

    def counting(file, *args, **kwargs):
        if str(file) == str(bed.resolve()):
            reads.append(file)
        return real_blocks(file, *args, **kwargs)

    monkeypatch.setattr(sf, "blocks", counting)
    assert main(["render", str(path), "--room-tone", str(bed), "--gap", "0.4"]) == 0
    assert len(reads) == 1
    assert main(["mix", str(path)]) == 0  # the saved room tone: checked again, still one read
    assert len(reads) == 1


def test_a_piped_mix_keeps_the_saved_formats_and_files(tmp_path, monkeypatch, capsysbinary):
    import json

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--format", "flac"]) == 0
    folder = tmp_path / "scene.drama"
    capsysbinary.readouterr()
    assert main(["mix", str(path), "--scene", "boathouse", "-o", "-"]) == 0
    assert capsysbinary.readouterr().out[:4] == b"RIFF"
    assert json.loads((folder / "project.json").read_text())["mix"]["formats"] == ["flac"]
    assert [
        p.name
        for p in sorted((folder / "boathouse").glob("mix.*"))
        if p.suffix in (".wav", ".flac")
    ] == ["mix.flac"]
    assert set_state(folder / "boathouse").complete  # the piped WAV was never part of the set


def test_a_mix_piped_to_a_terminal_is_refused_before_mixing(tmp_path, monkeypatch, capsysbinary):
    import sys

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    before = (tmp_path / "scene.drama" / "boathouse" / "mix.cues.json").stat().st_mtime_ns
    capsysbinary.readouterr()
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["mix", str(path), "--scene", "boathouse", "-o", "-"]) == 2
    out, err = capsysbinary.readouterr()
    assert out == b"" and err.decode() == (
        "drama: -o - writes audio to stdout, which is a terminal: "
        "pipe it (| sox -t wav - out.ogg) or redirect it (> out.wav)\n"
    )
    assert (tmp_path / "scene.drama" / "boathouse" / "mix.cues.json").stat().st_mtime_ns == before


def test_room_tone_none_turns_off_a_saved_room_tone_and_is_kept(tmp_path, monkeypatch):
    import json

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--room-tone", "noise", "--gap", "1.0"]) == 0
    folder = tmp_path / "scene.drama"
    assert main(["mix", str(path), "--room-tone", "none"]) == 0
    assert (
        json.loads((folder / "project.json").read_text())["mix"]["options"]["room_tone"] == "none"
    )
    audio, _ = sf.read(str(folder / "boathouse" / "mix.wav"))
    assert not audio[:1000].any()  # the head is digital silence again: no bed under it
    assert main(["mix", str(path)]) == 0
    audio, _ = sf.read(str(folder / "boathouse" / "mix.wav"))
    assert not audio[:1000].any()


def test_formats_and_sessions_given_twice_or_in_capitals_are_kept_once():
    given = MixSettings(formats=("flac", "FLAC", ".wav"), sessions=("otio", "otio", "rpp"))
    assert given.formats == ("flac", "wav") and given.sessions == ("otio", "rpp")
    assert given.to_record() == {
        "formats": ["flac", "wav"],
        "options": {"sessions": ("otio", "rpp")},
    }


def test_a_piped_mix_gives_its_json_results_on_stderr(tmp_path, monkeypatch, capsysbinary):
    import json

    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    capsysbinary.readouterr()
    assert main(["mix", str(path), "--scene", "boathouse", "-o", "-", "--json"]) == 0
    out, err = capsysbinary.readouterr()
    assert out[:4] == b"RIFF"
    assert [scene["scene_id"] for scene in json.loads(err)] == ["boathouse"]
