"""Subtitles follow subtitle practice: at most two lines of 42 characters and 7 s per cue, split
at chunk joins (with the join's time) and sentence ends, and at word times when known."""

from __future__ import annotations

import json
import re

import pytest
from fakes import fake_render

from drama_cli.cli import main
from drama_cli.mix import export
from drama_cli.mix.timeline import Cue
from drama_cli.script.spoken import Word
from engine.constants import SAMPLE_RATE

SENTENCES = [
    "It was a dark and stormy night, and the rain fell in torrents across the moor.",
    "Except at occasional intervals, when it was checked by a violent gust of wind.",
    "The wind swept up the streets, rattling along the housetops with great fury.",
    "It fiercely agitated the scanty flame of the lamps that struggled against the dark.",
]
LONG = " ".join(SENTENCES * 3)  # about 950 characters: four chunks of at most 300

TIME = re.compile(r"(\d\d):(\d\d):(\d\d),(\d\d\d)")


def seconds(stamp: str) -> float:
    h, m, s, ms = map(int, TIME.fullmatch(stamp).groups())
    return h * 3600 + m * 60 + s + ms / 1000


def parse_srt(text: str) -> list[tuple[float, float, list[str]]]:
    entries = []
    for block in text.strip().split("\n\n"):
        rows = block.split("\n")
        start, end = rows[1].split(" --> ")
        entries.append((seconds(start), seconds(end), rows[2:]))
    return entries


def test_a_long_narration_is_split_into_readable_subtitles_at_chunk_joins(tmp_path, monkeypatch):
    fake_render(monkeypatch)
    path = tmp_path / "book.yaml"
    path.write_text(
        "cast:\n  NARRATOR: {}\nscenes:\n  - id: ch1\n    lines:\n"
        f'      - NARRATOR: "{LONG}"\n      - NARRATOR: Short.\n',
        encoding="utf-8",
    )
    assert main(["render", str(path)]) == 0
    folder = tmp_path / "book.drama" / "ch1"
    entries = parse_srt((folder / "mix.srt").read_text())
    sheet = json.loads((folder / "mix.cues.json").read_text())
    long_cue = sheet["cues"][0]
    inside = [e for e in entries if e[0] < long_cue["end_s"]]
    assert len(inside) >= 12
    for start, end, rows in entries:
        assert 1 <= len(rows) <= 2 and all(len(row) <= 42 for row in rows), rows
        assert 0 < end - start <= 7.0
    words = " ".join(" ".join(rows) for _, _, rows in inside).split()
    assert words[0] == "NARRATOR:" and " ".join(words[1:]) == LONG
    assert inside[0][0] == pytest.approx(long_cue["start_s"], abs=0.001)
    assert inside[-1][1] == pytest.approx(long_cue["end_s"], abs=0.001)
    take = json.loads(
        next((tmp_path / "book.drama" / "ch1").glob("ch1-1/take-001.json")).read_text()
    )
    joins = [long_cue["start_s"] + chunk["start_s"] for chunk in take["chunks"][1:]]
    assert len(joins) == 3
    starts = [start for start, _, _ in inside]
    for join in joins:  # a subtitle starts exactly where each chunk starts
        assert min(abs(start - join) for start in starts) < 0.001
    # every subtitle ends at a sentence end, a clause or a chunk join, never mid-phrase when
    # a sentence end fits: the first chunk's first subtitle holds whole clauses
    assert inside[0][2][-1].endswith(",") or inside[0][2][-1].endswith(".")


def test_word_times_from_speech_recognition_time_the_splits():
    text = " ".join(SENTENCES[:2])
    words = text.split()
    # uneven word times: the first sentence is spoken slowly, the second quickly
    first = len(SENTENCES[0].split())
    times, t = [], 0.0
    for index, _ in enumerate(words):
        step = 0.5 if index < first else 0.2
        times.append((t, t + step * 0.9))
        t += step
    end = int(round(t * SAMPLE_RATE))
    heard = tuple(Word(word, a, b) for word, (a, b) in zip(words, times))
    cue = Cue("l1", "ANNA", text, 1, "take.wav", 0, end, words=heard)
    entries = parse_srt(export.srt_text([cue]))
    boundary = [start for start, _, _ in entries if start > 0]
    assert times[first][0] == pytest.approx(
        min(boundary, key=lambda s: abs(s - times[first][0])), abs=0.001
    )
    for start, stop, rows in entries:
        assert stop - start <= 7.0 and len(rows) <= 2 and all(len(row) <= 42 for row in rows)
    for start, _, rows in entries[1:]:
        first_word = rows[0].split()[0]
        index = next(i for i, (s, _) in enumerate(times) if abs(s - start) < 0.001)
        assert words[index] == first_word


def test_a_short_line_stays_one_subtitle():
    cue = Cue("l1", "BEN", "Out.", 1, "b.wav", 66_150, 77_175)
    assert export.srt_text([cue]) == "1\n00:00:01,500 --> 00:00:01,750\nBEN: Out.\n"


def test_an_arrow_in_a_line_never_reads_as_a_subtitle_timing():
    cue = Cue("l1", "BEN", "Here --> there.", 1, "b.wav", 66_150, 77_175)
    assert export.srt_text([cue]) == "1\n00:00:01,500 --> 00:00:01,750\nBEN: Here -> there.\n"


def test_an_effect_of_a_few_milliseconds_is_captioned_for_half_a_second():
    from drama_cli.mix.sounds import SoundCue

    tick = SoundCue("tick", "tick.wav", "effect", SAMPLE_RATE, SAMPLE_RATE + 88)  # 2 ms
    assert export.srt_text([], sounds=[tick]) == "1\n00:00:01,000 --> 00:00:01,500\n[tick]\n"


def test_no_subtitle_ends_where_it_starts():
    cue = Cue("l1", "BEN", "Out.", 1, "b.wav", 66_150, 66_160)  # 0.2 ms, rounds to one instant
    assert export.srt_text([cue]) == "1\n00:00:01,500 --> 00:00:01,501\nBEN: Out.\n"
