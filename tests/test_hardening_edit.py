"""Edits refuse input they cannot honour: empty or reversed spans, a `--replace` word that occurs
more than once, and (with the scratch engine) edits that cannot be spliced faithfully."""

from __future__ import annotations

import pytest
from fakes import render_with_edit_fake

from drama_cli.cli import main
from drama_cli.takes.store import TakeStore

TWICE = """\
title: Twice
cast:
  A: {}
  B: {}
scenes:
  - id: s1
    lines:
      - id: l1
        speaker: A
        text: "Ernest is my name, and Ernest I shall stay, said Ernest."
      - B: Quite so.
"""


@pytest.fixture
def twice(tmp_path, monkeypatch):
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, TWICE, "twice.yaml")
    fake.requests.clear()
    return path, TakeStore(tmp_path / "twice.drama"), fake


@pytest.mark.parametrize("span", ["0:0", "1:1", "1.5:0.5", "-0.5:1.0", "10:10"])
def test_empty_or_negative_span_is_bad_input(twice, capsys, span):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--text", "Ernest is my name.", "--span", span]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad span" in err and "Traceback" not in err
    assert fake.requests == [] and len(store.takes("s1", "l1")) == 1


def test_zero_span_in_frames_is_bad_input(twice, capsys):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--text", "Ernest.", "--span", "5:5", "--frames"]) == 2
    assert "bad span" in capsys.readouterr().err
    assert fake.requests == []


def test_replace_of_a_word_that_occurs_more_than_once_is_refused_with_the_occurrences(twice, capsys):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--replace", "Ernest", "--with", "Jack"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "'Ernest' occurs 3 times in line l1" in err
    assert ("(1: «Ernest» is my name,; 2: name, and «Ernest» I shall stay,; 3: stay, said «Ernest».)"
            in err)
    assert "--span" in err and "longer phrase" in err
    assert fake.requests == [] and len(store.takes("s1", "l1")) == 1


def test_replace_with_a_longer_phrase_that_occurs_once_still_works(twice, capsys):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--replace", "said Ernest", "--with", "said Jack",
                 "--span", "1.2:1.8", "--dry-run", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"new_text": "Ernest is my name, and Ernest I shall stay, said Jack."' in out
