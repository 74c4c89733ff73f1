"""Batched rendering: the stream-batch contract, the work queue that fills a batch with
independent work (lines in clone mode, the takes of a line, retries; scene chains in history
mode), takes that do not depend on the batch size, and a kill -9 with a batch in flight."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from fakes import first_take_hashes, kill_render_when, take_records, voice, write_script

from drama_cli.backends.base import (
    BackendDefaults,
    Capabilities,
    Generation,
    GenerationRequest,
    SerialBatch,
    StreamDone,
    ThreadBatch,
)
from drama_cli.cli import main
from drama_cli.render.line import Progress
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings
from drama_cli.takes.store import TakeStore
from engine.constants import HOP_SAMPLES
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.text import expected_duration_s

TWO_SCENES = """\
title: Two rooms
cast:
  MARGOT: {}
  DESMOND: {}
scenes:
  - id: hall
    lines:
      - id: h1
        speaker: MARGOT
        text: We leave at six.
      - id: h2
        speaker: DESMOND
        text: Not without the oars.
      - id: h3
        speaker: MARGOT
        text: Then find them before the tide turns.
      - id: h4
        speaker: DESMOND
        text: Fine.
  - id: yard
    lines:
      - id: y1
        speaker: DESMOND
        text: The boat is leaking again.
      - id: y2
        speaker: MARGOT
        text: Patch it with the old sail.
      - id: y3
        speaker: DESMOND
        text: We have no old sail.
"""


def two_scenes(folder: Path) -> Path:
    path = folder / "rooms.yaml"
    path.write_text(TWO_SCENES, encoding="utf-8")
    return path


def silent_first_attempt(request: GenerationRequest) -> bool:
    """Which attempts come out silent (their checks fail, so the slot retries): decided by the
    request alone, never by the order calls arrive in."""
    return request.line_id in ("h2", "y1") and request.seed % 2 == 0


class CountingBatch(ThreadBatch):
    """A `ThreadBatch` that records the most streams in flight at once on its backend."""

    def submit(self, request, on_frames=None):
        ticket = super().submit(request, on_frames)
        self.backend.most_in_flight = max(self.backend.most_in_flight, self.active())
        return ticket


class BatchFake(BackendDefaults):
    """Deterministic takes from the request alone (audio pitch and codes from the seed and the
    text), voiced by a pool of threads whose streams finish out of order (each sleeps an amount
    drawn from its request). Records every request with what was stored when it started."""

    name = "fake"
    scratch = False
    capabilities = Capabilities(batch_streams=3)

    def __init__(self, store_root: Path | None = None):
        self.requests: list[GenerationRequest] = []
        self.started: list[tuple[str, int]] = []  # (line id, seed) in the order streams start
        self.active = self.most_active = 0
        self.most_in_flight = 0  # streams the render held submitted at once (timing-free)
        self.store_root = store_root
        self.context_seen: list[tuple[str, list[str], dict]] = []
        self._lock = threading.Lock()

    def identity(self):
        return {"engine": "fake", "revision": "batch"}

    def open_batch(self, size):
        return CountingBatch(self, size)

    def generate(self, request, on_frames=None):
        with self._lock:
            self.requests.append(request)
            self.started.append((request.line_id, request.seed))
            self.active += 1
            self.most_active = max(self.most_active, self.active)
            if self.store_root is not None:
                self.context_seen.append(self._context(request))
        digest = hashlib.sha256(f"{request.seed}|{request.text}".encode()).digest()
        time.sleep(digest[0] / 255 * 0.03)
        frames = max(8, int(expected_duration_s(request.text) * 21.5))
        audio = voice(frames * HOP_SAMPLES / 44_100, 110 + digest[1] % 90)
        if silent_first_attempt(request):
            audio = audio * 0
        codes = np.frombuffer(digest * (frames * 10 // 32 + 1), np.uint8)[: frames * 10]
        with self._lock:
            self.active -= 1
        return Generation(
            audio, codes.reshape(10, frames).astype(np.int64), "eos", {"frames": frames}
        )

    def _context(self, request) -> tuple[str, list[str], dict]:
        """The files of the takes this request hears, and the scene's selections right now."""
        heard = [e.clip.path for e in request.conversation.context if e.clip and e.clip.path]
        selected = Path(self.store_root, request.scene_id, "selected.json")
        lines = json.loads(selected.read_text())["lines"] if selected.exists() else {}
        return request.line_id, heard, lines


def render_with(path: Path, backend, out: Path, **settings):
    script = load_script(str(path))
    store = TakeStore(out)
    report = render_script(script, store, backend, RenderSettings(**settings))
    return report, store, script


@pytest.mark.parametrize("mode", ["clone", "history"])
def test_batch_4_and_batch_1_make_the_same_takes(tmp_path, mode):
    path = two_scenes(tmp_path)
    one, four = BatchFake(), BatchFake()
    r1, s1, script = render_with(
        path, one, tmp_path / "one.drama", mode=mode, takes=2, seed=11, batch=1
    )
    r4, s4, _ = render_with(
        path, four, tmp_path / "four.drama", mode=mode, takes=2, seed=11, batch=4
    )
    assert one.most_active == 1 and four.most_in_flight == 4
    records = take_records(s1, script)
    assert records == take_records(s4, script)
    # 7 lines x 2 slots; h2 and y1 retry the one slot of the two whose first seed is even
    takes = sorted(k for k in records if k[1] != "selected")
    assert len(takes) == 16 and [(k[0], k[2]) for k in takes if k[2]] == [("h2", 1), ("y1", 1)]
    assert {records[(line, "selected")] for line in ("h1", "h3")} == {(0, 0)}
    assert [(x.line_id, x.status, x.calls) for x in r1.lines] == [
        (x.line_id, x.status, x.calls) for x in r4.lines
    ]
    assert [x.line_id for x in r4.lines] == ["h1", "h2", "h3", "h4", "y1", "y2", "y3"]
    assert sorted(one.started) == sorted(four.started)
    assert [s.scene_id for s in r4.scenes] == ["hall", "yard"]
    assert r1.exit_code == r4.exit_code == 0


def test_a_batch_of_1_makes_the_calls_of_a_render_without_batches(tmp_path):
    path = two_scenes(tmp_path)
    backend = BatchFake()
    report, store, script = render_with(
        path, backend, tmp_path / "p.drama", mode="clone", takes=2, batch=1
    )
    records = [
        t.record.to_json()
        for scene in script.scenes
        for line in scene.lines
        for t in store.takes(scene.id, line.id)
    ]
    # script order: each line's slots in turn, each slot's retries before the next slot
    records.sort(key=lambda r: (r["scene_id"] == "yard", r["line_id"], r["slot"], r["attempt"]))
    assert backend.started == [(r["line_id"], r["seed"]) for r in records]
    h2 = [r for r in records if r["line_id"] == "h2"]
    assert [r["take"] for r in h2] == [1, 2, 3]  # numbered in slot and attempt order
    assert report.calls == len(backend.requests) == len(records) == 16


def where(script, line_id):
    scene = next(s for s in script.scenes if any(line.id == line_id for line in s.lines))
    return scene.id, line_id


def test_history_chains_never_start_a_line_before_the_takes_it_hears(tmp_path):
    path = two_scenes(tmp_path)
    out = tmp_path / "p.drama"
    backend = BatchFake(store_root=out)
    report, store, script = render_with(path, backend, out, mode="history", takes=2, batch=4)
    assert report.exit_code == 0 and backend.most_active >= 3
    order = {scene.id: [line.id for line in scene.lines] for scene in script.scenes}
    for line_id, heard, selected in backend.context_seen:
        scene_id, _ = where(script, line_id)
        earlier = order[scene_id][: order[scene_id].index(line_id)]
        assert set(earlier) <= set(selected), (line_id, earlier, selected)  # all chosen already
        for wav in heard:
            assert Path(wav).exists()
            assert Path(wav).parent.name in earlier
        if earlier:  # history context: the first line and the last takes before it
            assert heard, line_id
    # the two scenes' chains interleave: the yard starts before the hall is done
    lines = [line_id for line_id, _seed in backend.started]
    assert lines.index("y1") < lines.index("h4")
    # the takes of a line run together, and so do the first lines of both scenes
    assert sorted(lines[:4]) == ["h1", "h1", "y1", "y1"]


class ChunkWatch(BatchFake):
    """Notes when a stream starts while another stream of the same line runs."""

    def __init__(self):
        super().__init__()
        self.running: list[str] = []
        self.overlaps: list[str] = []

    def generate(self, request, on_frames=None):
        with self._lock:
            if request.line_id in self.running:
                self.overlaps.append(request.line_id)
            self.running.append(request.line_id)
        try:
            return super().generate(request, on_frames)
        finally:
            with self._lock:
                self.running.remove(request.line_id)


def test_the_chunks_of_a_long_line_run_in_order(tmp_path):
    long = " ".join(["The river was wide and the current strong that morning."] * 14)
    path = tmp_path / "long.yaml"
    path.write_text(
        f"cast:\n  A: {{}}\n  B: {{}}\nscenes:\n  - id: s\n    lines:\n"
        f'      - A: "{long}"\n      - B: Short.\n',
        encoding="utf-8",
    )
    backend = ChunkWatch()
    report, store, _ = render_with(path, backend, tmp_path / "p.drama", mode="clone", batch=3)
    chunks = [r.conversation.meta["chunk"] for r in backend.requests if r.line_id == "s-1"]
    assert len(chunks) >= 3 and chunks == list(range(len(chunks)))
    assert backend.overlaps == [] and backend.most_active == 2  # the short line ran beside it
    take = store.takes("s", "s-1")[0]
    assert len(take.record.to_json()["chunks"]) == len(chunks)
    frames = [
        max(8, int(expected_duration_s(r.text) * 21.5))
        for r in backend.requests
        if r.line_id == "s-1"
    ]
    assert take.codes().shape[1] == sum(frames)
    assert [c["start_s"] < c["end_s"] for c in take.record.to_json()["chunks"]] == [True] * len(
        chunks
    )
    assert report.exit_code == 0


def test_takes_follow_slot_order_whatever_finishes_first(tmp_path):
    path = two_scenes(tmp_path)
    _, s1, script = render_with(
        path, BatchFake(), tmp_path / "a.drama", mode="clone", takes=3, seed=4, batch=1
    )
    _, s6, _ = render_with(
        path, BatchFake(), tmp_path / "b.drama", mode="clone", takes=3, seed=4, batch=6
    )
    for scene in script.scenes:
        for line in scene.lines:
            one = s1.selected_take(scene.id, line.id).record.to_json()
            six = s6.selected_take(scene.id, line.id).record.to_json()
            assert (one["slot"], one["seed"]) == (six["slot"], six["seed"])


class Refusing(BatchFake):
    def generate(self, request, on_frames=None):
        if request.line_id == "h2":
            raise EngineError("the prompt is too long for the context")
        return super().generate(request, on_frames)


def test_a_refused_stream_stops_its_line_only(tmp_path):
    path = two_scenes(tmp_path)
    report, store, _ = render_with(
        path, Refusing(), tmp_path / "p.drama", mode="clone", takes=2, batch=4
    )
    by_line = {x.line_id: x for x in report.lines}
    assert by_line["h2"].status == "failed" and "too long" in by_line["h2"].message
    assert store.takes("hall", "h2") == []
    assert {x.status for k, x in by_line.items() if k != "h2"} == {"rendered"}
    assert report.exit_code == 1


def test_serial_batch_runs_streams_in_the_order_submitted():
    calls = []

    class Echo(BackendDefaults):
        def generate(self, request, on_frames=None):
            calls.append(request.seed)
            if request.seed == 2:
                raise EngineError("refused")
            return Generation(np.zeros(4, np.float32), None, "eos")

    batch = Echo().open_batch(8)
    assert isinstance(batch, SerialBatch) and batch.size == 8
    request = GenerationRequest("s", "l", "A", "x", Conversation("clone", text="x"))
    tickets = [
        batch.submit(GenerationRequest(**{**request.__dict__, "seed": n})) for n in (1, 2, 3)
    ]
    assert calls == [] and batch.active() == 3  # nothing runs before it is asked for
    done = [batch.next_done() for _ in tickets]
    assert [d.ticket for d in done] == tickets and calls == [1, 2, 3]
    assert isinstance(done[1], StreamDone) and str(done[1].error) == "refused"
    assert done[0].generation is not None and done[1].generation is None
    with pytest.raises(LookupError):
        batch.next_done()


def test_thread_batch_returns_each_stream_as_it_finishes():
    release = threading.Event()

    class Gated(BackendDefaults):
        def generate(self, request, on_frames=None):
            if request.seed == 1:
                assert release.wait(10)
            return Generation(np.full(4, request.seed, np.float32), None, "eos")

    batch = ThreadBatch(Gated(), 2)
    request = GenerationRequest("s", "l", "A", "x", Conversation("clone", text="x"), seed=1)
    slow = batch.submit(request)
    fast = batch.submit(GenerationRequest(**{**request.__dict__, "seed": 2}))
    first = batch.next_done()  # the slow stream still runs
    assert first.ticket == fast and first.generation.audio[0] == 2 and batch.active() == 1
    release.set()
    second = batch.next_done()
    assert second.ticket == slow and batch.active() == 0
    batch.close()


def test_batch_defaults_come_from_the_backend(tmp_path, monkeypatch):
    import os

    from drama_cli.backends.drama3 import Drama3Backend
    from drama_cli.backends.scratch import ScratchBackend

    assert Drama3Backend.capabilities.batch_streams == 1
    assert ScratchBackend.capabilities.batch_streams == (os.cpu_count() or 1)
    assert isinstance(ScratchBackend().open_batch(1), SerialBatch)
    assert isinstance(ScratchBackend().open_batch(3), ThreadBatch)
    backend = BatchFake()  # batch_streams 3
    render_with(two_scenes(tmp_path), backend, tmp_path / "p.drama", mode="clone")
    assert backend.most_active == 3


class StreamLog(Progress):
    def __init__(self):
        self.seen = []

    def streams(self, active, size):
        self.seen.append((active, size))


def test_progress_shows_active_streams(tmp_path, capsys, monkeypatch):
    log = StreamLog()
    script = load_script(str(two_scenes(tmp_path)))
    render_script(
        script,
        TakeStore(tmp_path / "p.drama"),
        BatchFake(),
        RenderSettings(mode="clone", batch=4),
        log,
    )
    assert max(active for active, _ in log.seen) == 4 and {s for _, s in log.seen} == {4}
    assert log.seen[-1] == (0, 4)
    monkeypatch.setattr("drama_cli.backends.registry.make_backend", lambda *a, **k: BatchFake())
    path = two_scenes(tmp_path)
    assert main(["render", str(path), "--mode", "clone", "--batch", "3"]) == 0
    rows = [r for r in capsys.readouterr().err.splitlines() if r.startswith("drama: [")]
    assert len(rows) == 7 and all(r.endswith("/3 streams]") for r in rows), rows


@pytest.mark.parametrize("value", ["0", "257", "-2"])
def test_a_batch_out_of_range_is_refused_in_one_line(tmp_path, capsys, value):
    path = two_scenes(tmp_path)
    assert main(["render", str(path), "--engine", "scratch", "--batch", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"drama: --batch must be between 1 and 256, got {value}"]
    assert not (tmp_path / "rooms.drama").exists()


def test_scratch_takes_are_the_same_whatever_the_batch(tmp_path):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    from drama_cli.backends.scratch import ScratchBackend

    path = two_scenes(tmp_path)
    _, s1, script = render_with(
        path, ScratchBackend(), tmp_path / "a.drama", mode="clone", batch=1, seed=3
    )
    _, s3, _ = render_with(
        path, ScratchBackend(), tmp_path / "b.drama", mode="clone", batch=3, seed=3
    )
    assert take_records(s1, script) == take_records(s3, script)


@pytest.mark.slow
def test_tiny_drama3_takes_are_the_same_with_batch_4_and_1(tiny_model, tmp_path, monkeypatch):
    from drama_cli.backends.drama3 import Drama3Backend

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # Random weights never end a take: short budgets keep the test fast on a CPU.
    monkeypatch.setattr("engine.generate.Drama3.frame_budget", lambda self, c, rows: 6)
    path = tmp_path / "short.yaml"
    path.write_text(
        "cast:\n  A: {}\n  B: {}\nscenes:\n  - id: s\n    lines:\n      - A: Go.\n      - B: No.\n",
        encoding="utf-8",
    )
    found = []
    for batch in (1, 4):
        backend = Drama3Backend(tiny_model, device="cpu", cache_dir=tmp_path / "codes")
        _, store, script = render_with(
            path,
            backend,
            tmp_path / f"b{batch}.drama",
            mode="clone",
            takes=2,
            retries=0,
            seed=9,
            batch=batch,
            sampling={"temperature": 0.0},
        )
        backend.close()
        found.append(take_records(store, script))
    assert found[0] == found[1]
    takes = [v for k, v in found[0].items() if k[1] != "selected"]
    assert len(takes) == 4 and all(v[5] is not None for v in takes)  # codes in every take
    assert len({v[0] for v in takes}) == 4  # a seed of its own per take


def test_kill_9_with_a_batch_in_flight_loses_and_repeats_no_take(tmp_path):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    texts = [
        "We leave at six.",
        "Not without the oars.",
        "Then find them.",
        "They sank.",
        "Then we swim.",
        "Fine.",
        "The water is cold.",
    ]
    path = write_script(tmp_path, texts)
    project = tmp_path / "scene.drama"
    # A batch of 3 streams; lines 4 to 6 hold until the child is killed, so the kill lands
    # with a whole batch in flight after three takes are stored.
    held = tmp_path / "held"
    store = TakeStore(project)
    lines = [f"boathouse-{i}" for i in range(1, 8)]
    kill_render_when(
        "request.line_id in ('boathouse-4', 'boathouse-5', 'boathouse-6')",
        held,
        [
            "render",
            path,
            "--engine",
            "scratch",
            "--mode",
            "clone",
            "--batch",
            "3",
            "--out",
            project,
        ],
        lambda: (
            len(list(held.iterdir())) == 3
            and all(store.takes("boathouse", line) for line in lines[:3])
        ),
        "a held batch",
    )
    done_before = first_take_hashes(store, "boathouse", lines)
    assert set(done_before) == set(lines[:3])

    from drama_cli.backends.scratch import ScratchBackend

    report = render_script(
        load_script(str(path)), store, ScratchBackend(), RenderSettings(mode="clone", batch=3)
    )
    assert {x.line_id for x in report.lines if x.status == "reused"} == set(done_before)
    assert report.calls == 4 and report.exit_code == 0
    for line in lines:
        (take,) = store.takes("boathouse", line)  # one take each: none lost, none twice
        assert store.selected_take("boathouse", line).number == take.number
        if line in done_before:
            assert take.record.wav_sha256 == done_before[line]
    assert not list(project.rglob("*.tmp"))


def test_a_new_batch_size_renders_nothing_again(tmp_path):
    path = two_scenes(tmp_path)
    first, _, _ = render_with(
        path, BatchFake(), tmp_path / "p.drama", mode="history", takes=2, batch=4
    )
    again, _, _ = render_with(
        path, BatchFake(), tmp_path / "p.drama", mode="history", takes=2, batch=1
    )
    assert first.calls == 16 and again.calls == 0
    assert {x.status for x in again.lines} == {"reused"}


class Interrupted(BatchFake):
    """Ctrl-C from the stream of h3, once the first streams of h1 and h2 have finished."""

    def __init__(self):
        super().__init__()
        self.finished: set[str] = set()

    def generate(self, request, on_frames=None):
        if request.line_id == "h3":
            deadline = time.monotonic() + 30
            while not {"h1", "h2"} <= self.finished and time.monotonic() < deadline:
                time.sleep(0.01)
            raise KeyboardInterrupt
        generation = super().generate(request, on_frames)
        with self._lock:
            self.finished.add(request.line_id)
        return generation


def test_ctrl_c_mid_batch_keeps_every_finished_take(tmp_path):
    path = two_scenes(tmp_path)
    out = tmp_path / "p.drama"
    with pytest.raises(KeyboardInterrupt):
        render_with(path, Interrupted(), out, mode="clone", batch=3)
    store = TakeStore(out)
    where_ = {"hall": ["h1", "h2", "h3", "h4"], "yard": ["y1", "y2", "y3"]}
    stored = {
        line: [t.status for t in store.takes(scene, line)]
        for scene, lines in where_.items()
        for line in lines
    }
    assert stored["h1"] == ["ok"] and stored["h2"] and stored["h3"] == []
    done = {line for line, statuses in stored.items() if "ok" in statuses}
    backend = BatchFake()
    report, _, _ = render_with(path, backend, out, mode="clone", batch=3)
    assert {x.line_id for x in report.lines if x.status == "reused"} == done
    assert {r.line_id for r in backend.requests} == set(stored) - done
    assert report.exit_code == 0
