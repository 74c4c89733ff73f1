"""A scene's mix, sidecars, stems, DAW sessions and provenance switch as one set: a run that
fails while switching leaves the earlier set whole and consistent, a rerun completes the new
one, and files an earlier set held that the new one does not are removed with the switch."""

from __future__ import annotations

import os

import numpy as np
import pytest
import soundfile as sf
from fakes import rendered_with_sounds

from drama_cli.cli import main
from drama_cli.mix.mix_set import set_state
from drama_cli.mix.project_mix import remix
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MixSettings
from drama_cli.takes.store import TakeStore
from engine import files

LINES = "      - A: We leave at six.\n      - B: Fine then.\n"


@pytest.fixture
def mixed(tmp_path, monkeypatch):
    """A scene of A and B under a rain bed, rendered with stems and a REAPER session:
    (script path, scene folder, {file name: bytes} of its set)."""
    path, folder = rendered_with_sounds(
        tmp_path, monkeypatch, LINES, "--stems", "--export-session", "rpp"
    )
    return path, folder, contents(folder)


def contents(folder) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in sorted(folder.iterdir())
        if p.name.startswith("mix.") or p.name == "provenance.json"
    }


def test_a_mix_records_its_set_and_every_file_is_current(mixed):
    _, folder, before = mixed
    state = set_state(folder, verify=True)
    assert state.complete and not state.stale and not state.missing
    assert sorted(state.current) == sorted(set(before) - {"mix.cues.json"})
    assert {
        "mix.stem-a.wav",
        "mix.stem-b.wav",
        "mix.stem-music.wav",
        "mix.rpp",
        "provenance.json",
    } <= set(state.current)


def test_a_failed_switch_leaves_the_earlier_set_whole_and_a_rerun_completes_it(mixed, monkeypatch):
    path, folder, before = mixed
    real_replace = os.replace

    def crash_on_stem_b(src, dst):
        if os.path.basename(dst) == "mix.stem-b.wav" and os.path.basename(src).endswith(".tmp"):
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    script, store = load_script(str(path)), TakeStore(path.with_suffix(".drama"))
    monkeypatch.setattr(files.os, "replace", crash_on_stem_b)
    with pytest.raises(OSError, match="Input/output"):
        remix(script, store, script.scenes, MixSettings(gap_s=1.5))
    assert contents(folder) == before
    assert set_state(folder, verify=True).complete
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]
    monkeypatch.setattr(files.os, "replace", real_replace)
    assert main(["mix", str(path), "--gap", "1.5"]) == 0
    after = contents(folder)
    assert set(after) == set(before)
    assert all(after[name] != before[name] for name in ("mix.wav", "mix.stem-b.wav", "mix.rpp"))
    assert set_state(folder, verify=True).complete


def test_files_of_the_earlier_set_that_the_new_one_lacks_are_removed(mixed):
    path, folder, _ = mixed
    path.write_text(path.read_text().replace("      - B: Fine then.\n", ""))
    assert main(["mix", str(path), "--export-session", "none"]) == 0
    assert sorted(contents(folder)) == [
        "mix.cues.json",
        "mix.labels.txt",
        "mix.srt",
        "mix.stem-a.wav",
        "mix.stem-music.wav",
        "mix.stems.json",
        "mix.wav",
        "provenance.json",
    ]
    assert set_state(folder).complete


def test_a_file_left_by_another_run_is_stale(mixed):
    _, folder, before = mixed
    (folder / "mix.stem-ghost.wav").write_bytes(before["mix.stem-a.wav"])
    sf.write(str(folder / "mix.stem-a.wav"), np.zeros(10, np.float32), 44_100)
    state = set_state(folder)
    assert (state.stale, state.missing, state.complete) == (
        ["mix.stem-a.wav", "mix.stem-ghost.wav"],
        [],
        False,
    )
    os.utime(folder / "mix.srt", ns=(1, 1))  # copied without its times: its bytes still count
    assert "mix.srt" in set_state(folder).current
    (folder / "mix.rpp").unlink()
    assert set_state(folder).missing == ["mix.rpp"]
