"""End to end on a tiny random Drama 3 checkpoint: render a scene, revise one line with a note,
edit another, and check that only those two lines changed in the mix.

The words are noise (random weights); the mechanics are exact: the revise prompt rows hold the
parent take's codes and the note, the edited take keeps the source's samples outside the span,
take records chain, bad spans and unknown lines exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from drama_cli.cli import main
from drama_cli.takes.store import TakeStore
from engine.constants import HOP_SAMPLES, SAMPLE_RATE

pytestmark = pytest.mark.slow
REFS = Path(__file__).resolve().parents[1] / "scripts_examples" / "refs"

SCRIPT = """\
title: The cigarette case
cast:
  ALGERNON:
    voice: {refs}/algernon.wav
    transcript: The weather in town has been perfectly dreadful all week.
  JACK:
    voice: {refs}/jack.wav
    transcript: I came up from the country by the early train.
  LANE:
    voice: {refs}/lane.wav
    transcript: The carriage will be ready at half past four, sir.
scenes:
  - id: case
    lines:
      - id: l1
        speaker: ALGERNON
        text: Is this your cigarette case?
      - id: l2
        speaker: JACK
        text: Give it back at once.
      - id: l3
        speaker: LANE
        text: Tea is served, sir.
      - id: l4
        speaker: ALGERNON
        text: Not yet.
"""


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    from engine.testing.checkpoints import write_checkpoint

    if not (REFS / "algernon.wav").exists():
        pytest.skip("the example reference clips are missing")
    folder = tmp_path_factory.mktemp("tiny-drama3")
    summary = write_checkpoint(folder, "tiny", seed=0)
    if not (folder / "codec.pth").exists():
        pytest.skip(f"the random checkpoint has no codec: {summary['notes']}")
    return folder


def segments(store, scene="case"):
    folder = store.scene_dir(scene)
    audio, _ = sf.read(folder / "mix.wav", dtype="float32")
    cues = json.loads((folder / "mix.cues.json").read_text())["cues"]
    return {
        c["line"]: (
            round(c["start_s"] * SAMPLE_RATE),
            audio[round(c["start_s"] * SAMPLE_RATE) : round(c["end_s"] * SAMPLE_RATE)],
        )
        for c in cues
    }


def contains_block(rows: np.ndarray, block: np.ndarray) -> bool:
    """Whether `block` [n, k] occurs as consecutive rows of `rows` [N, k]."""
    n = len(block)
    return any(np.array_equal(rows[i : i + n], block) for i in range(len(rows) - n + 1))


def test_render_revise_edit_mix_on_a_tiny_random_checkpoint(
    model_folder, tmp_path, monkeypatch, capsys
):
    from drama_cli.backends.drama3 import Drama3Backend
    from drama_cli.backends.drama3_batch import EngineStreamBatch
    from engine.prompt import build_prompt

    seen = []
    original = Drama3Backend.generate

    def spy(self, request, on_frames=None):
        seen.append((self, request))
        return original(self, request, on_frames)

    monkeypatch.setattr(Drama3Backend, "generate", spy)
    queued = EngineStreamBatch.submit

    def spy_submit(self, request, on_frames=None):  # a render voices its takes through the batch
        seen.append((None, request))
        return queued(self, request, on_frames)

    monkeypatch.setattr(EngineStreamBatch, "submit", spy_submit)
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: None)
    path = tmp_path / "case.yaml"
    path.write_text(SCRIPT.format(refs=REFS.as_posix()))
    engine = ["--engine", "drama3", "--model", str(model_folder), "--device", "cpu"]
    store = TakeStore(tmp_path / "case.drama")

    # clone mode: with every random take flagged, history context would come and go between runs
    main(["render", str(path), "--retries", "0", "--mode", "clone", *engine])
    assert len(seen) == 4
    # Random weights never say end-of-speech, so every take is flagged: choose them by hand.
    for line in ("l1", "l2", "l3", "l4"):
        assert main(["takes", str(path), "--line", line, "--select", "1"]) == 0
    assert main(["mix", str(path)]) == 1  # mixed as chosen; a take whose checks failed exits 1
    before = segments(store)
    files = {
        line: store.selected_take("case", line).wav_path.read_bytes()
        for line in ("l1", "l2", "l3", "l4")
    }
    assert set(before) == {"l1", "l2", "l3", "l4"}

    # revise l2 with a note: one generation; the prompt rows hold the parent's codes and the note
    seen.clear()
    code = main(["revise", str(path), "l2", "--note", "louder", "--select", *engine])
    assert len(seen) == 1
    backend, request = seen[0]
    parent = store.take("case", "l2", 1)
    conversation = backend.encode_clips(request.conversation)
    prompt = build_prompt(conversation, backend.model.tokenizer)
    semantic_start = backend.model.semantic_start
    codes = parent.codes()
    audio_rows = np.concatenate([(codes[0] + semantic_start)[:, None], codes.T], axis=1)
    assert contains_block(prompt.rows, audio_rows)
    note_ids = backend.model.tokenizer.encode(
        "<|speaker:1|> [louder versus previous] Give it back at once."
    )
    assert contains_block(prompt.rows[:, :1], np.asarray(note_ids)[:, None])
    revised = store.selected_take("case", "l2")
    assert (
        revised.number == 2
        and revised.record.parent_take == 1
        and revised.record.to_json()["notes"] == ["louder"]
    )
    # Random weights: the revision may fail its checks; the exit code says how (as render's).
    assert code == {"ok": 0, "degraded": 3, "unusable": 1}[revised.record.status]

    # edit l3 between fixed audio: prefix and suffix samples stay the source's
    seen.clear()
    source = store.selected_take("case", "l3")
    source_audio = source.audio()
    end_s = round(0.75 * len(source_audio) / SAMPLE_RATE, 2)
    code = main(
        [
            "edit",
            str(path),
            "l3",
            "--text",
            "Tea is ready, sir.",
            "--span",
            f"0.40:{end_s}",
            "--select",
            *engine,
        ]
    )
    assert len(seen) == 1
    edited = store.selected_take("case", "l3")
    # Random weights: the middle may fail its checks; the exit code says how (as render's).
    assert code == {"ok": 0, "degraded": 3, "unusable": 1}[edited.record.status]
    edit_conv = seen[0][1].conversation
    assert edit_conv.layout == "infill" and "Tea is ready, sir." in edit_conv.text
    edited = store.selected_take("case", "l3")
    record = edited.record.to_json()
    assert record["parent_take"] == source.number and record["layout"] == "infill"
    a_frame, b_frame = record["edit"]["span_frames"]
    np.testing.assert_array_equal(edit_conv.prefix.codes, source.codes()[:, :a_frame])
    np.testing.assert_array_equal(edit_conv.suffix.codes, source.codes()[:, b_frame:])
    guard = int(0.020 * SAMPLE_RATE)
    a, b = a_frame * HOP_SAMPLES, b_frame * HOP_SAMPLES
    new_audio = edited.audio()
    np.testing.assert_array_equal(new_audio[: a - guard], source_audio[: a - guard])
    tail = len(source_audio) - (b + guard)
    np.testing.assert_array_equal(new_audio[-tail:], source_audio[-tail:])
    middle = record["edit"]["middle_samples"]
    middle_frames = edited.codes().shape[1] - a_frame - (source.codes().shape[1] - b_frame)
    assert middle_frames > 0 and middle[1] - middle[0] == middle_frames * HOP_SAMPLES

    # only l2 and l3 changed: the others are sample-identical in the mix, later lines shifted
    after = segments(store)
    for line in ("l1", "l4"):
        assert store.selected_take("case", line).wav_path.read_bytes() == files[line]
        np.testing.assert_array_equal(after[line][1], before[line][1])
    assert after["l1"][0] == before["l1"][0]
    shift = (len(after["l2"][1]) - len(before["l2"][1])) + (
        len(after["l3"][1]) - len(before["l3"][1])
    )
    assert after["l4"][0] - before["l4"][0] == pytest.approx(shift, abs=2)
    for line in ("l2", "l3"):
        n = min(len(after[line][1]), len(before[line][1]))
        assert not np.array_equal(after[line][1][:n], before[line][1][:n]) or len(
            after[line][1]
        ) != len(before[line][1])

    # a later render renders nothing and keeps both new takes
    seen.clear()
    main(["render", str(path), "--retries", "0", "--mode", "clone", *engine])
    assert seen == []
    assert store.selected_take("case", "l2").number == revised.number
    assert store.selected_take("case", "l3").number == edited.number

    # bad spans and unknown lines exit 2, without generating
    capsys.readouterr()
    assert main(["edit", str(path), "l3", "--text", "x", "--span", "2:1", *engine]) == 2
    assert main(["edit", str(path), "l3", "--text", "x", "--span", "0:999", *engine]) == 2
    assert main(["edit", str(path), "nope", "--text", "x", *engine]) == 2
    assert main(["revise", str(path), "nope", "--note", "x", *engine]) == 2
    assert seen == []
