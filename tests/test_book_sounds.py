"""Sounds in a book: each chapter mixes its scenes' effects and beds as `drama mix` mixes a
scene (placed at their anchors, beds ducked under speech), under the chapter's ACX level.
Measured from the chapter master that `drama book` encodes."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from fakes import FakeBackend, render

from drama_cli.book.assemble import mix_chapter
from drama_cli.mix.sounds import NOT_IN_MIX, SceneSounds, place_scene_sounds
from drama_cli.mix.timeline import Cue
from drama_cli.script.document import Sound, SoundAnchor
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MixSettings

SR = 44_100
BED_HZ = 4_410.0  # ten samples a period: a whole number of periods in any 10-sample window
BOOK = """\
title: Weather
cast:
  N: {}
chapters:
  - title: Wet
    scenes:
      - id: wet
        ambience: rain.wav
        lines:
          - speaker: N
            text: The rain fell on the roof all night long.
            pause_after: 4
          - N: Nobody slept.
          - sound: click.wav
            at: scene-end - 0.5
  - title: Dry
    scenes:
      - id: dry
        lines:
          - speaker: N
            text: The door opened.
            pause_after: 2
          - sound: click.wav
            at: dry-1 end + 0.5
          - N: Then it closed.
"""


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The book rendered with the fake engine: (script, store)."""
    folder = tmp_path_factory.mktemp("weather")
    t = np.arange(SR) / SR
    sf.write(str(folder / "rain.wav"), 0.1 * np.sin(2 * np.pi * BED_HZ * t), SR, subtype="FLOAT")
    sf.write(str(folder / "click.wav"), np.r_[np.full(10, 0.3), np.zeros(90)], SR, subtype="FLOAT")
    path = folder / "weather.yaml"
    path.write_text(BOOK, encoding="utf-8")
    _, store = render(path, FakeBackend())
    return load_script(str(path)), store


def bed_amplitude(audio: np.ndarray, lo: int, hi: int) -> float:
    """The amplitude of the BED_HZ sine in samples [lo, hi) (the voice has nothing there)."""
    hi = lo + (hi - lo) // 10 * 10
    n = np.arange(lo, hi)
    return 2 * abs(np.sum(audio[lo:hi] * np.exp(-2j * np.pi * BED_HZ * n / SR))) / (hi - lo)


def test_a_chapter_bed_is_ducked_under_speech_at_the_chapter_level(book, tmp_path):
    script, store = book
    master, summary = mix_chapter(script, store, script.chapters[0], tmp_path)
    audio, rate = sf.read(str(master), dtype="float64")
    first = summary["provenance"][0]
    start, end = round(first["start_s"] * rate), round(first["end_s"] * rate)
    under = bed_amplitude(audio, start + rate // 2, end)
    gap = bed_amplitude(audio, end + 3 * rate, end + int(3.9 * rate))  # released: 4 s pause
    assert summary["limiter_reduction_db"] == 0.0
    assert gap == pytest.approx(0.1 * 10 ** (summary["gain_db_exact"] / 20), rel=1e-3)
    assert 20 * np.log10(under / gap) == pytest.approx(-12.0, abs=0.05)
    last = summary["provenance"][-1]["end_s"]
    rain, click = summary["sounds"]
    assert (rain["sound"], rain["end_s"]) == ("rain", pytest.approx(last + 1.0, abs=1e-5))
    assert click["start_s"] == pytest.approx(last + 0.5, abs=1e-5)  # scene-end - 0.5: tail 1 s


def test_a_scene_in_a_chapter_ends_where_drama_mix_ends_it(book, tmp_path):
    """The project's saved tail (`drama mix --tail 3`) moves the scene's end in the book too."""
    script, store = book
    project = store.project()
    store.write_project({**project, "mix": MixSettings(tail_s=3.0).to_record()})
    try:
        _, summary = mix_chapter(script, store, script.chapters[0], tmp_path)
    finally:
        store.write_project(project)
    last = summary["provenance"][-1]["end_s"]
    assert [s["start_s"] for s in summary["sounds"]][1] == pytest.approx(last + 2.5, abs=1e-5)
    assert summary["duration_s"] >= last + 3.0


def test_a_chapter_effect_sits_at_its_anchor_to_the_sample(book, tmp_path):
    script, store = book
    master, summary = mix_chapter(script, store, script.chapters[1], tmp_path)
    audio, rate = sf.read(str(master), dtype="float64")
    anchor = round(summary["provenance"][0]["end_s"] * rate) + rate // 2
    click = 0.3 * 10 ** (summary["gain_db_exact"] / 20)
    after = np.flatnonzero(np.abs(audio[anchor - rate // 4 :]) > click / 2)
    assert abs(anchor - rate // 4 + int(after[0]) - anchor) <= 1
    assert [s["sound"] for s in summary["sounds"]] == ["click"]
    assert summary["sounds"][0]["start_s"] == pytest.approx(anchor / rate, abs=1 / rate)


def test_each_scene_of_a_chapter_places_its_sounds_on_its_own_clock():
    spans = {
        line: Cue(line, "A", "Words.", 1, f"{line}.wav", lo, hi)
        for line, (lo, hi) in {
            "a1": (22_050, 66_150),
            "b1": (200_000, 250_000),
            "b2": (260_000, 300_000),
        }.items()
    }
    bed = Sound("/s/rain.wav", "ambience", SoundAnchor(), loop=True, duck=True, name="rain")
    clock = Sound("/s/clock.wav", "effect", SoundAnchor(None, "start", 1.0), name="clock")
    early = Sound("/s/clock.wav", "effect", SoundAnchor(), name="early")
    scenes = [
        SceneSounds((early,), ("a1",), 1.0, 1.0),
        SceneSounds((bed, clock), ("b1", "b2"), 0.5, 1.0),
        SceneSounds((clock,), ("c1",), 0.5, 1.0),
    ]
    placed, left_out, total = place_scene_sounds(scenes, spans, 400_000, lambda path: 1_000)
    origin = 200_000 - 22_050  # the second scene's clock: its head before its first line
    assert [(c.name, c.start_sample, c.end_sample) for c in placed] == [
        ("early", 0, 1_000),  # the first scene's clock starts at the chapter's start
        ("rain", origin, 300_000 + 44_100),
        ("clock", origin + 44_100, origin + 45_100),
    ]
    assert (left_out, total) == ([("clock", NOT_IN_MIX)], 400_000)
