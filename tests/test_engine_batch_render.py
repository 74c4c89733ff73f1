"""`drama render --engine drama3 --batch N` through the engine's batch (drama_cli/backends/
drama3_batch.py) on the tiny checkpoint: the same take records as `--batch 1`, refused requests
come back in turn, and a kill -9 with a batch in flight loses and repeats no take."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch
from fakes import take_records, wait_for, write_script

from drama_cli.backends.base import GenerationRequest
from drama_cli.backends.drama3 import Drama3Backend
from drama_cli.backends.drama3_batch import EngineStreamBatch
from drama_cli.cli import main
from drama_cli.script.load import load_script
from drama_cli.takes.store import TakeStore
from engine.conversation import Conversation
from engine.errors import EngineError

TEXTS = ["We leave at six.", "Not without the oars.", "Then find them.", "They sank.", "Fine."]
FRAMES = 6  # random weights seldom end a take: short budgets keep the renders fast


@pytest.fixture(autouse=True)
def short_takes(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr("engine.generate.Drama3.frame_budget", lambda self, c, rows: FRAMES)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def render(path, model, project, batch: int, takes: int = 2) -> int:
    return main(
        [
            "render",
            str(path),
            "--engine",
            "drama3",
            "--model",
            str(model),
            "--device",
            "cpu",
            "--mode",
            "clone",
            "--takes",
            str(takes),
            "--retries",
            "0",
            "--seed",
            "4",
            "--batch",
            str(batch),
            "--out",
            str(project),
        ]
    )


def test_cli_batch_4_and_batch_1_store_the_same_takes(tiny_model, tmp_path):
    # Default sampling (temperature 1): each stream of the batch draws from the counter-based
    # race keyed by its own seed, as a take alone does, so sampled takes match too.
    path = write_script(tmp_path, TEXTS[:3])
    assert render(path, tiny_model, tmp_path / "one.drama", 1) in (0, 1)
    assert render(path, tiny_model, tmp_path / "four.drama", 4) in (0, 1)
    script = load_script(str(path))
    one = take_records(TakeStore(tmp_path / "one.drama"), script)
    four = take_records(TakeStore(tmp_path / "four.drama"), script)
    assert one == four
    takes = [v for k, v in one.items() if k[1] != "selected"]
    assert len(takes) == 6 and all(v[5] is not None for v in takes)  # codes in every take
    assert len({v[0] for v in takes}) == 6  # seeds of their own


def test_the_drama3_batch_returns_refused_requests_in_turn(tiny_model, tmp_path):
    backend = Drama3Backend(tiny_model, device="cpu", cache_dir=tmp_path / "codes")
    assert isinstance(backend.open_batch(1), EngineStreamBatch)  # one path at every size
    batch = backend.open_batch(3)
    assert isinstance(batch, EngineStreamBatch) and batch.size == 3
    conversation = Conversation(layout="clone", text="<|speaker:0|> Go.")
    good = batch.submit(GenerationRequest("s", "a", "A", "Go.", conversation, seed=1))
    bad = batch.submit(
        GenerationRequest("s", "b", "A", "Go.", conversation, sampling={"top_p": 7}, seed=2)
    )
    assert batch.active() == 2
    refused = batch.next_done()
    assert refused.ticket == bad and isinstance(refused.error, EngineError)
    done = batch.next_done()
    codes = done.generation.codes
    assert done.ticket == good and codes.shape[0] == 10 and codes.shape[1] <= FRAMES
    assert done.generation.info["frames"] == codes.shape[1] and batch.active() == 0
    with pytest.raises(LookupError):
        batch.next_done()
    batch.close()


HELD_RENDER = """\
import pathlib, sys, time
import torch
from drama_cli.backends.drama3 import Drama3Backend
from drama_cli.cli import main
import engine.generate

torch.set_num_threads(1)
engine.generate.Drama3.frame_budget = lambda self, c, rows: {frames}
folder, real_take, taken = pathlib.Path(sys.argv[1]), Drama3Backend.take, []

def held_take(self, result, started):
    taken.append(1)
    if len(taken) > 2:  # the third stream to finish holds the batch until the kill
        (folder / "held").touch()
        while True:
            time.sleep(1)
    return real_take(self, result, started)

Drama3Backend.take = held_take
sys.exit(main(sys.argv[2:]))
"""


def test_kill_9_with_an_engine_batch_in_flight_loses_and_repeats_no_take(tiny_model, tmp_path):
    path = write_script(tmp_path, TEXTS)
    project, marks = tmp_path / "scene.drama", tmp_path / "marks"
    marks.mkdir()
    store, lines = TakeStore(project), [f"boathouse-{i}" for i in range(1, 6)]
    args = [
        "render",
        path,
        "--engine",
        "drama3",
        "--model",
        tiny_model,
        "--device",
        "cpu",
        "--mode",
        "clone",
        "--retries",
        "0",
        "--seed",
        "4",
        "--batch",
        "4",
        "--out",
        project,
    ]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(HELD_RENDER.format(frames=FRAMES)),
            str(marks),
            *map(str, args),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: (marks / "held").exists(), child, 600, "a held batch")
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    before = {line: [t.record.wav_sha256 for t in store.takes("boathouse", line)] for line in lines}
    assert sum(map(len, before.values())) == 2  # two takes stored, the rest of the batch in flight
    assert render(path, tiny_model, project, 4, takes=1) in (0, 1)
    fresh = tmp_path / "fresh.drama"
    assert render(path, tiny_model, fresh, 1, takes=1) in (0, 1)
    script = load_script(str(path))
    resumed = take_records(store, script)
    assert resumed == take_records(TakeStore(fresh), script)  # nothing lost, nothing twice
    for line in lines:
        assert [t.record.wav_sha256 for t in store.takes("boathouse", line)][
            : len(before[line])
        ] == before[line]
    assert not list(project.rglob("*.tmp"))


def test_takes_of_the_generator_draw_release_render_again_under_a_new_identity(
    tiny_model, tmp_path, monkeypatch
):
    # The previous release drew one-stream CPU takes from a torch.Generator: the same --seed gave
    # other codes. Its identity had no `draws`, so its takes are not this engine's cache hits.
    path = write_script(tmp_path, TEXTS[:1])
    project = tmp_path / "scene.drama"
    current = Drama3Backend.identity
    monkeypatch.setattr(
        Drama3Backend, "identity", lambda self: {"engine": "drama3", "revision": self._revision}
    )
    assert render(path, tiny_model, project, 1, takes=1) in (0, 1)
    monkeypatch.setattr(Drama3Backend, "identity", current)
    assert render(path, tiny_model, project, 1, takes=1) in (0, 1)
    takes = TakeStore(project).takes("boathouse", "boathouse-1")
    assert [t.record.to_json()["engine_identity"].get("draws") for t in takes] == [
        None,
        "counter-v1",
    ]
    assert takes[0].record.cache_key != takes[1].record.cache_key
