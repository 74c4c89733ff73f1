"""Rendering on a Ray cluster (`drama render --cluster`): a local two-slot cluster makes the
same takes as a render on this machine (scratch, and the tiny random checkpoint with greedy
sampling), a worker killed mid-render loses and repeats no take, a driver killed mid-render
resumes with only the missing takes, and a bad `--cluster` value is one line and exit 2.

One Ray instance serves the module's cluster tests (marked slow); the tests after them start no
Ray: reference clips shipped as bytes, a render without `--cluster` never imports Ray, and with
Ray stood in for: refusals before Ray starts, Ctrl-C while Ray starts or the cluster closes, the
workers' report lines and token authentication for a local instance."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import wait_for, write_script

from drama_cli.backends.cluster.address import parse_cluster
from drama_cli.backends.cluster.backend import make_cluster_backend
from drama_cli.cli import main
from drama_cli.errors import UsageError
from drama_cli.render.line import Progress
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings, line_seed, retry_seed
from drama_cli.takes.store import TakeStore

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts_examples"
DRIVER = "import sys; from drama_cli.cli import main; sys.exit(main(sys.argv[1:]))"
DOOMED = "Doomed"
TINY_FRAMES = 6  # frames per take of the tiny random model (it never stops on its own)
SHORT = """\
cast:
  JACK:
    voice: refs/jack.wav
    transcript: I came up from the country by the early train.
  LANE: {}
scenes:
  - id: hall
    lines:
LINES"""


def short_budget() -> None:
    """The tiny model's takes end after TINY_FRAMES."""
    import engine.generate

    engine.generate.Drama3.frame_budget = lambda self, conversation, rows: TINY_FRAMES


def worker_setup() -> None:
    """Runs in every Ray worker process: `short_budget`, and a scratch engine that breaks
    (RuntimeError, not an engine refusal) on every line that says DOOMED."""
    from drama_cli.backends.scratch import ScratchBackend

    short_budget()
    generate = ScratchBackend.generate

    def breaking(self, request, on_frames=None):
        if DOOMED in request.text:
            raise RuntimeError("this worker breaks on the doomed line")
        return generate(self, request, on_frames)

    ScratchBackend.generate = breaking


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """A local Ray instance of two CPU slots for the module; its GCS address."""
    ray = pytest.importorskip("ray")
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    cache = tmp_path_factory.mktemp("worker-cache")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "worker_process_setup_hook": worker_setup,
            "env_vars": {"XDG_CACHE_HOME": str(cache)},
        },
    )
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def short_script(folder: Path, texts: list[str]) -> Path:
    """A one-scene script, JACK (with a reference clip) and LANE taking turns."""
    (folder / "refs").mkdir(exist_ok=True)
    shutil.copy(EXAMPLES / "refs" / "jack.wav", folder / "refs" / "jack.wav")
    lines = "".join(
        f"      - {'JACK' if i % 2 == 0 else 'LANE'}: {text}\n" for i, text in enumerate(texts)
    )
    path = folder / "short.yaml"
    path.write_text(SHORT.replace("LINES", lines), encoding="utf-8")
    return path


def takes_of(store: TakeStore, script) -> dict:
    """(scene, line, slot, attempt) -> seed, text, audio hash and codes of each take; one
    entry per take, so a take made twice shows as a count above 1 in `counts`."""
    found = {}
    for scene in script.scenes:
        for line in scene.lines:
            for take in store.takes(scene.id, line.id):
                r, codes = take.record.to_json(), take.codes()
                found[(scene.id, line.id, r["slot"], r["attempt"])] = (
                    r["seed"],
                    r["text"],
                    r["status"],
                    hashlib.sha256(take.audio().tobytes()).hexdigest(),
                    None if codes is None else codes.tolist(),
                )
    return found


def counts(store: TakeStore, script) -> dict:
    """line id -> the number of takes stored for it."""
    return {
        line.id: len(store.takes(scene.id, line.id))
        for scene in script.scenes
        for line in scene.lines
    }


class KillOnFirstLine(Progress):
    """Kills a busy worker of the cluster backend when the first line is done."""

    def __init__(self, backend):
        self.backend, self.killed = backend, None

    def done(self, outcome) -> None:
        if self.killed is None:
            import ray

            busy = [slot for slot in self.backend.pool.slots if slot.busy]
            self.killed = (busy or self.backend.pool.slots)[0]
            ray.kill(self.killed.actor)


@pytest.fixture(scope="class")
def backend(ray_cluster):
    """Two scratch workers, started once for the tests of a class (their slots are free
    again after it)."""
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    backend = make_cluster_backend("local:2", "scratch")
    yield backend
    backend.close()


@pytest.mark.slow
class TestScratchWorkers:
    """Two scratch workers, started once for these tests."""

    def test_the_example_renders_as_on_this_machine(self, backend, tmp_path, monkeypatch):
        from drama_cli.backends.scratch import ScratchBackend

        monkeypatch.setenv("OMP_NUM_THREADS", "1")  # as Ray sets it for one-CPU workers

        path = EXAMPLES / "cigarette-case.yaml"
        script = load_script(str(path))
        short = tuple(line.id for line in script.scenes[0].lines if len(line.text) < 200)
        settings = dict(mode="clone", mix=False, batch=2, lines=short)
        here, there = TakeStore(tmp_path / "here"), TakeStore(tmp_path / "there")
        render_script(script, here, ScratchBackend(), RenderSettings(**settings))
        report = render_script(load_script(str(path)), there, backend, RenderSettings(**settings))
        assert report.exit_code == 0 and report.scratch and len(report.lines) == len(short) == 4
        assert takes_of(there, script) == takes_of(here, script)
        assert sum(w["units"] for w in backend.worker_stats()) >= report.calls

    def test_a_worker_killed_mid_render_loses_and_repeats_no_take(
        self, backend, tmp_path, monkeypatch
    ):
        texts = [
            "We leave at six.",
            "Not without the oars.",
            "Then find them.",
            "They sank.",
            "Then we swim.",
            "The water is cold.",
        ]
        script = load_script(str(short_script(tmp_path, texts)))
        store = TakeStore(tmp_path / "p.drama")
        progress = KillOnFirstLine(backend)
        for slot in backend.pool.slots:  # two streams a worker, as a GPU engine's batch has
            monkeypatch.setattr(slot, "streams", 2)
        report = render_script(
            script, store, backend, RenderSettings(mode="clone", mix=False, batch=4), progress
        )
        assert progress.killed is not None and progress.killed.restarts == 1
        assert progress.killed.failures >= 1  # it had streams in hand, voiced again elsewhere
        assert report.exit_code == 0 and {x.status for x in report.lines} == {"rendered"}
        assert set(counts(store, script).values()) == {1}
        for (scene, line, slot, attempt), facts in takes_of(store, script).items():
            assert (slot, attempt) == (0, 0)
            assert facts[0] == retry_seed(line_seed(0, scene, line), 0)

    def test_a_unit_that_fails_on_every_worker_fails_its_line(self, backend, tmp_path):
        texts = ["We leave at six.", f"{DOOMED} we are.", "Then we swim."]
        script = load_script(str(short_script(tmp_path, texts)))
        store = TakeStore(tmp_path / "p.drama")
        report = render_script(script, store, backend, RenderSettings(mode="clone", mix=False))
        status = {x.line_id: x.status for x in report.lines}
        assert report.exit_code == 1 and list(status.values()) == ["rendered", "failed", "rendered"]
        failed = next(x for x in report.lines if x.status == "failed")
        assert "failed on 2 workers" in failed.message and "doomed line" in failed.message
        assert counts(store, script) == {"hall-1": 1, "hall-2": 0, "hall-3": 1}


@pytest.mark.slow
def test_a_killed_driver_resumes_with_only_the_missing_takes(ray_cluster, tmp_path, capsys):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    texts = [
        "We leave at six.",
        "Not without the oars.",
        "Then find them.",
        "They sank.",
        "Then we swim.",
        "Fine.",
        "The water is cold.",
        "Colder than last year.",
    ]
    path = short_script(tmp_path, texts)
    project = tmp_path / "p.drama"
    store = TakeStore(project)
    script = load_script(str(path))
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            DRIVER,
            "render",
            str(path),
            "--engine",
            "scratch",
            "--mode",
            "clone",
            "--out",
            str(project),
            "--cluster",
            ray_cluster,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: sum(counts(store, script).values()) >= 2, child, 300, "two takes")
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    before = {line: n for line, n in counts(store, script).items() if n}
    assert 2 <= len(before) < len(texts)
    capsys.readouterr()
    # The rerun joins the module's Ray instance (this process is connected to it).
    code = main(
        [
            "render",
            str(path),
            "--engine",
            "scratch",
            "--mode",
            "clone",
            "--out",
            str(project),
            "--cluster",
            "local:2",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {x["line_id"] for x in report["lines"] if x["status"] == "reused"} == set(before)
    assert set(counts(store, script).values()) == {1}  # none lost, none made twice
    assert sum(w["units"] for w in report["workers"]) == len(texts) - len(before)


@pytest.mark.slow
def test_tiny_checkpoint_codes_are_the_same_on_the_cluster(
    ray_cluster, tiny_model, tmp_path, monkeypatch
):
    import torch

    from drama_cli.backends.drama3 import Drama3Backend

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(
        "engine.generate.Drama3.frame_budget", lambda self, conversation, rows: TINY_FRAMES
    )
    path = short_script(tmp_path, ["Go.", "No."])
    script = load_script(str(path))
    settings = dict(mode="clone", mix=False, retries=0, seed=9, sampling={"temperature": 0.0})
    here, there = TakeStore(tmp_path / "here"), TakeStore(tmp_path / "there")
    local = Drama3Backend(tiny_model, device="cpu", cache_dir=tmp_path / "codes")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in a one-CPU Ray worker: the same sums in the same order
    try:
        render_script(script, here, local, RenderSettings(**settings, batch=1))
    finally:
        torch.set_num_threads(threads)
    cluster = make_cluster_backend("local:2", "drama3", str(tiny_model), "cpu")
    try:
        render_script(script, there, cluster, RenderSettings(**settings))
    finally:
        cluster.close()
    found, expected = takes_of(there, script), takes_of(here, script)
    assert len(found) == 2 and all(facts[4] for facts in found.values())  # codes in each take
    assert {k: (v[0], v[1], v[4]) for k, v in found.items()} == {
        k: (v[0], v[1], v[4]) for k, v in expected.items()
    }


def test_a_bad_cluster_value_is_one_line_and_exit_2(tmp_path, capsys):
    path = short_script(tmp_path, ["Go."])
    for value in ("127.0.0.1:1", "local:0", "no such host"):
        code = main(
            [
                "render",
                str(path),
                "--engine",
                "scratch",
                "--out",
                str(tmp_path / "p.drama"),
                "--cluster",
                value,
            ]
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and err[0].startswith("drama: --cluster ")
    with pytest.raises(UsageError):
        parse_cluster("local:two")
    assert json.dumps(parse_cluster("ray://head:10001").address) == '"ray://head:10001"'


def test_reference_files_travel_as_bytes_and_ray_stays_unimported(tmp_path):
    import numpy as np

    from drama_cli.backends.base import GenerationRequest
    from drama_cli.backends.cluster.clips import ClipFolder, files_to_ship, read_clip
    from engine.clip import AudioClip
    from engine.conversation import Conversation, Exchange, Reference

    clip = tmp_path / "voice.wav"
    clip.write_bytes(b"RIFF-not-really-a-wav")
    coded = AudioClip(codes=np.zeros((10, 3), np.int64), path=str(tmp_path / "take.wav"))
    request = GenerationRequest(
        "s",
        "l",
        "A",
        "<|speaker:0|> Go.",
        Conversation(
            "history",
            references=(Reference(0, "Hello.", AudioClip(path=str(clip))),),
            context=(Exchange("<|speaker:0|> Hi.", coded),),
            text="<|speaker:0|> Go.",
        ),
    )
    assert files_to_ship(request) == [str(clip)]  # a clip with codes travels as its codes
    digest, data = read_clip(str(clip))
    folder = ClipFolder(tmp_path / "worker")
    folder.write(digest, ".wav", data)
    moved = folder.localise(request, {str(clip): digest})
    copy = Path(moved.references[0].clip.path)
    assert copy.parent == tmp_path / "worker" and copy.read_bytes() == data
    assert moved.conversation.context[0].clip is coded
    code = "import sys, drama_cli.cli, drama_cli.commands.render; print('ray' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert found.stdout.strip() == "False"


def test_a_local_cluster_sets_token_authentication_before_ray_is_imported(monkeypatch):
    from drama_cli.backends.cluster import pool

    seen = []

    class Connected:  # a Ray that is already initialised: connect returns at once
        @staticmethod
        def is_initialized():
            return True

    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    monkeypatch.setattr(
        pool, "import_ray", lambda: seen.append(os.environ.get("RAY_AUTH_MODE")) or Connected
    )
    assert pool.connect(parse_cluster("local:1")) is False
    assert seen == ["token"]  # the driver and the instance it starts agree on the mode


def test_render_help_shows_the_cluster_extra(capsys):
    assert main(["render", "--help"]) == 0
    out = capsys.readouterr().out
    assert "'.[cluster]'" in out
    assert "-e '.'" not in out
    assert "every worker's share" in " ".join(out.replace("│", " ").split())


def test_cluster_unknown_engine_is_refused_before_ray_starts(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.cluster.backend as cluster_backend

    def no_ray(target):
        raise AssertionError("Ray started for an unknown engine")

    monkeypatch.setattr(cluster_backend, "connect", no_ray)
    script = write_script(tmp_path, ["Hello there."])
    assert main(["render", str(script), "--cluster", "local:1", "--engine", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown engine 'nosuch'" in err and "Traceback" not in err


def test_cluster_auto_without_a_cluster_says_how_to_start_one(monkeypatch):
    import drama_cli.backends.cluster.pool as pool
    from drama_cli.backends.cluster.address import ClusterTarget
    from drama_cli.errors import UsageError

    class NoCluster:
        @staticmethod
        def is_initialized():
            return False

        @staticmethod
        def init(**kwargs):
            raise ConnectionError(
                "Could not find any running Ray instance. Please specify the one "
                "to connect to by setting `--address` flag"
            )

    monkeypatch.setattr(pool, "import_ray", lambda: NoCluster)
    with pytest.raises(UsageError) as caught:
        pool.connect(ClusterTarget(address="auto"))
    message = str(caught.value)
    assert (
        "--cluster auto" in message
        and "ray start --head" in message
        and "`--address`" not in message
    )


def test_cluster_worker_lines_count_one_unit_and_one_restart(capsys):
    from drama_cli.commands.render import _print_report
    from drama_cli.render.report import RenderReport

    workers = [
        {
            "worker": 1,
            "node": "n",
            "streams": 1,
            "units": 1,
            "busy_s": 0.5,
            "wall_s": 0.5,
            "failures": 0,
            "restarts": 1,
        },
        {
            "worker": 2,
            "node": "n",
            "streams": 1,
            "units": 2,
            "busy_s": 0.5,
            "wall_s": 0.5,
            "failures": 0,
            "restarts": 0,
        },
    ]
    _print_report(RenderReport(engine="scratch", scratch=True, out="o", workers=workers))
    out = capsys.readouterr().out
    assert "1 unit, 0.5 s busy, 0 lost, 1 restart\n" in out
    assert "2 units, 0.5 s busy, 0 lost, 0 restarts\n" in out


def test_ctrl_c_while_ray_starts_shuts_the_instance_down(monkeypatch):
    import os
    import signal

    import drama_cli.backends.cluster.pool as pool
    from drama_cli.backends.cluster.address import ClusterTarget

    calls = []

    class Starting:
        @staticmethod
        def is_initialized():
            return False

        @staticmethod
        def init(**kwargs):
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C part way through the start
            calls.append("init finished")

        @staticmethod
        def shutdown():
            calls.append("shutdown")

    handler = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(pool, "import_ray", lambda: Starting)
    with pytest.raises(KeyboardInterrupt):
        pool.connect(ClusterTarget(workers=1))
    assert calls == ["init finished", "shutdown"]
    assert signal.getsignal(signal.SIGINT) is handler


def test_second_ctrl_c_while_the_cluster_closes_still_shuts_ray_down(monkeypatch):
    import os
    import signal
    import sys
    import types

    from drama_cli.backends.cluster.backend import ClusterBackend

    calls = []

    class Pool:
        def close(self):
            os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, while workers stop
            calls.append("pool closed")

    monkeypatch.setitem(
        sys.modules, "ray", types.SimpleNamespace(shutdown=lambda: calls.append("shutdown"))
    )
    backend = ClusterBackend.__new__(ClusterBackend)
    backend.pool, backend.owns_ray = Pool(), True
    with pytest.raises(KeyboardInterrupt):
        backend.close()
    assert calls == ["pool closed", "shutdown"]


def test_cluster_local_with_more_workers_than_cores_is_refused(monkeypatch):
    from drama_cli.backends.cluster.address import parse_cluster
    from drama_cli.errors import UsageError

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert parse_cluster("local:2").workers == 2
    for value in ("local:3", "local:99999999999999999999"):
        with pytest.raises(UsageError, match="this machine has 2 cores.*local:2 or fewer"):
            parse_cluster(value)


def test_a_local_ray_instance_starts_with_token_authentication_named(monkeypatch):
    import drama_cli.backends.cluster.pool as pool
    from drama_cli.backends.cluster.address import ClusterTarget

    seen = {}

    class FakeRay:
        @staticmethod
        def is_initialized():
            return False

        @staticmethod
        def init(**options):
            seen.update(options, mode=pool.os.environ.get("RAY_AUTH_MODE"))

    monkeypatch.setenv("RAY_AUTH_MODE", "")  # so that the variable is removed again afterwards
    monkeypatch.delenv("RAY_AUTH_MODE")
    monkeypatch.setattr(pool, "import_ray", lambda: FakeRay)
    assert pool.connect(ClusterTarget(workers=1)) is True
    assert seen["mode"] == "token" and seen["num_cpus"] == 1
