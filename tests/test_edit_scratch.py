"""Edits with an engine that voices words only, like scratch (no infill, no codes): the whole
words a span reaches are voiced again, and without word times the whole line is."""

from __future__ import annotations

import numpy as np
import pytest
from fakes import FakeBackend, edit_json, fake_render

from drama_cli.backends.base import Capabilities, Generation
from drama_cli.cli import main
from drama_cli.script.spoken import Word, spoken_words
from drama_cli.takes.store import TakeStore

# ------------------------------------------------------------------ engines that voice words only

WORD_S, GAP_S, SR = 0.30, 0.10, 44_100
POLITE = """\
title: Polite
cast:
  LANE: {}
scenes:
  - id: s1
    lines:
      - id: lane
        speaker: LANE
        text: "I didn't think it polite to listen, sir."
      - id: note
        speaker: LANE
        text: "You had my note?"
"""
VOCABULARY = [
    "i",
    "didn't",
    "think",
    "it",
    "polite",
    "proper",
    "to",
    "listen",
    "sir",
    "you",
    "had",
    "my",
    "note",
]


def word_pitch(word: str) -> float:
    return 200.0 + 40.0 * VOCABULARY.index(word)


class WordTones(FakeBackend):
    """Speaks each word of the request's text as its own 0.3 s tone, 0.1 s apart; like scratch
    it has no infill (it voices the words it is given) and no codes."""

    name = "words"
    scratch = True
    capabilities = Capabilities()

    def generate(self, request, on_frames=None):
        self.requests.append(request)
        pieces = []
        for word in spoken_words(request.text):
            t = np.arange(int(WORD_S * SR)) / SR
            pieces += [
                (0.3 * np.sin(2 * np.pi * word_pitch(word) * t)).astype(np.float32),
                np.zeros(int(GAP_S * SR), np.float32),
            ]
        return Generation(np.concatenate(pieces[:-1]), None, "eos", {})


def hear(audio: np.ndarray) -> list[Word]:
    """The words a WordTones take says, with their times: each run of sound, named by its pitch."""
    win = int(0.005 * SR)
    loud = [
        float(np.sqrt(np.mean(audio[i : i + win] ** 2))) > 0.02
        for i in range(0, len(audio) - win + 1, win)
    ]
    words, start = [], None
    for k, on in enumerate(loud + [False]):
        if on and start is None:
            start = k
        elif not on and start is not None:
            a, b = start * win, k * win
            if b - a > 0.1 * SR:
                spectrum = np.abs(np.fft.rfft(audio[a:b]))
                pitch = np.argmax(spectrum) * SR / (b - a)
                word = min(VOCABULARY, key=lambda w: abs(word_pitch(w) - pitch))
                words.append(Word(word, a / SR, b / SR))
            start = None
    return words


@pytest.fixture
def tones(tmp_path, monkeypatch):
    fake = WordTones()
    fake_render(monkeypatch, fake)
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", hear)
    path = tmp_path / "polite.yaml"
    path.write_text(POLITE)
    assert main(["render", str(path)]) == 0
    fake.requests.clear()
    return path, TakeStore(tmp_path / "polite.drama"), fake


def heard_words(take) -> list[str]:
    return [w.text for w in hear(take.audio())]


def edit_and_hear(capsys, args, store, line):
    code, result, err = edit_json(capsys, args)
    assert code == 0, err
    take = store.takes("s1", line)[-1]
    return result, take, err


def test_scratch_edit_regenerates_the_whole_words_its_span_reaches(tones, capsys):
    path, store, fake = tones
    words = {w.text: w for w in heard_words_timed(store, "lane")}
    span = f"{words['think'].start_s + 0.12:.3f}:{words['polite'].start_s + 0.1:.3f}"  # cuts 'think' and 'polite'
    result, take, _ = edit_and_hear(
        capsys,
        ["edit", str(path), "lane", "--replace", "polite", "--with", "proper", "--span", span],
        store,
        "lane",
    )
    assert take.record.to_json()["edit"]["new_text"] == "I didn't think it proper to listen, sir."
    assert heard_words(take) == ["i", "didn't", "think", "it", "proper", "to", "listen", "sir"]
    assert spoken_words(fake.requests[0].text) == ["think", "it", "proper"]
    assert result["span_s"][0] == pytest.approx(words["think"].start_s, abs=0.01)
    assert result["span_s"][1] == pytest.approx(words["polite"].end_s, abs=0.01)


def test_scratch_edit_span_that_would_snap_into_the_next_word_keeps_it(tones, capsys):
    path, store, fake = tones
    words = {w.text: w for w in heard_words_timed(store, "lane")}
    span = (
        f"{words['polite'].start_s:.3f}:{words['to'].start_s - 0.005:.3f}"  # ends 5 ms before 'to'
    )
    _, take, _ = edit_and_hear(
        capsys,
        ["edit", str(path), "lane", "--replace", "polite", "--with", "proper", "--span", span],
        store,
        "lane",
    )
    assert heard_words(take) == ["i", "didn't", "think", "it", "proper", "to", "listen", "sir"]
    assert take.record.to_json()["edit"]["new_text"] == "I didn't think it proper to listen, sir."


def test_scratch_deletion_says_and_records_the_text_without_the_word(tones, capsys):
    path, store, fake = tones
    _, take, _ = edit_and_hear(
        capsys, ["edit", str(path), "note", "--replace", "note", "--with", ""], store, "note"
    )
    assert take.record.to_json()["edit"]["new_text"] == "You had my?"
    assert heard_words(take) == ["you", "had", "my"]


def test_scratch_edit_without_word_times_voices_the_whole_line_and_says_so(
    tones, capsys, monkeypatch
):
    path, store, fake = tones
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: None)
    result, take, err = edit_and_hear(
        capsys,
        ["edit", str(path), "lane", "--replace", "polite", "--with", "proper", "--span", "0.5:1.5"],
        store,
        "lane",
    )
    assert "the whole line was voiced again with the new text" in err
    assert (
        result["takes"][0]["take"] == take.number
        and take.record.to_json()["edit"]["whole_line"] is True
    )
    assert heard_words(take) == ["i", "didn't", "think", "it", "proper", "to", "listen", "sir"]
    assert spoken_words(fake.requests[0].text) == heard_words(take)
    assert take.record.to_json()["edit"]["new_text"] == "I didn't think it proper to listen, sir."


def heard_words_timed(store, line):
    return hear(store.takes("s1", line)[0].audio())


def test_a_scratch_revision_says_that_the_note_is_not_read(tones, capsys):
    path, store, fake = tones
    capsys.readouterr()
    assert main(["revise", str(path), "note", "--note", "softer"]) == 0
    assert (
        "drama: warning: the scratch engine does not read notes: each new take is the line voiced "
        "again with another seed; render with drama3 to hear a note"
    ) in capsys.readouterr().err.splitlines()
    assert len(fake.requests) == 1
