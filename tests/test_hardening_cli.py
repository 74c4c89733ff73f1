"""The command line under faults and extremes: bounded --takes and take numbers whose names
sort in number order, file-system errors as one line with exit 2, and the help texts."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fakes import FakeBackend, fake_render, voice, write_script

from drama_cli.cli import main
from drama_cli.errors import RenderError, UsageError
from drama_cli.takes.store import (
    MAX_NEW_TAKES,
    MAX_TAKE_NUMBER,
    TakeStore,
    check_new_takes,
)


@pytest.mark.parametrize("verb", ["render", "revise", "edit"])
def test_takes_beyond_the_bound_is_bad_input_before_any_work(tmp_path, monkeypatch, capsys, verb):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    args = {"render": ["render", str(path)],
            "revise": ["revise", str(path), "boathouse-1", "--note", "softer"],
            "edit": ["edit", str(path), "boathouse-1", "--text", "We go at six.", "--span", "0.1:0.5"]}[verb]
    assert main(args + ["--takes", "1000000"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"drama: --takes must be between 1 and {MAX_NEW_TAKES}, got 1000000"
    assert fake.requests == []


def test_check_new_takes_bounds():
    check_new_takes(1)
    check_new_takes(MAX_NEW_TAKES)
    for bad in (0, -1, MAX_NEW_TAKES + 1):
        with pytest.raises(UsageError, match="--takes must be between 1"):
            check_new_takes(bad)


def test_take_names_sort_in_number_order_and_stop_at_the_last_number(tmp_path):
    store = TakeStore(tmp_path / "p")
    record = {"cache_key": "k"}
    first = store.add_take("s", "l", voice(0.2), record)
    assert first.wav_path.name == "take-001.wav"
    folder = first.wav_path.parent
    (folder / f"take-{MAX_TAKE_NUMBER - 1:03d}.json").write_text("{}")  # an invalid take holds 998
    last = store.add_take("s", "l", voice(0.2), record)
    assert last.number == MAX_TAKE_NUMBER and last.wav_path.name == "take-999.wav"
    names = sorted(p.name for p in folder.glob("take-*.wav"))
    assert names == ["take-001.wav", "take-999.wav"]
    with pytest.raises(RenderError, match="line 'l' has take 999, the last take number"):
        store.add_take("s", "l", voice(0.2), record)
    assert sorted(p.name for p in folder.glob("take-*.wav")) == names


def test_old_take_names_with_more_digits_still_load(tmp_path):
    store = TakeStore(tmp_path / "p")
    take = store.add_take("s", "l", voice(0.2), {"cache_key": "k"})
    folder = take.wav_path.parent
    for suffix in (".wav", ".json"):
        (folder / f"take-1000{suffix}").write_bytes((folder / f"take-001{suffix}").read_bytes())
    record = json.loads((folder / "take-1000.json").read_text())
    record["take"] = 1000
    (folder / "take-1000.json").write_text(json.dumps(record))
    assert [t.number for t in store.takes("s", "l")] == [1, 1000]
    assert np.array_equal(store.take("s", "l", 1000).audio(), take.audio())
