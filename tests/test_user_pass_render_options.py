"""`drama render --batch/--cluster/--gpu-memory` and `drama model info --gpu-memory` given
bad or unusual values: help text as printed, one-line refusals, exit codes."""

from __future__ import annotations

import pytest
from fakes import write_script

from drama_cli.cli import main


def test_render_help_shows_the_cluster_extra(capsys):
    assert main(["render", "--help"]) == 0
    out = capsys.readouterr().out
    assert "'.[cluster]'" in out
    assert "-e '.'" not in out
    assert "every worker's share" in " ".join(out.replace("│", " ").split())


def _config_folder(tmp_path):
    from engine.testing.checkpoints import write_checkpoint

    write_checkpoint(tmp_path, "tiny", seed=0, config_only=True)
    return tmp_path


def test_model_info_hit_rate_without_a_plan_is_refused(tmp_path, monkeypatch, capsys):
    import drama_cli.commands.model as model

    monkeypatch.setattr(model, "_free_gpu_bytes", lambda: None)
    folder = _config_folder(tmp_path)
    assert main(["model", "info", str(folder), "--hit-rate", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--hit-rate" in err and "--gpu-memory" in err and "Traceback" not in err
    assert main(["model", "info", str(folder), "--hit-rate", "0.5", "--gpu-memory", "24GB"]) == 0


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
            raise ConnectionError("Could not find any running Ray instance. Please specify the one "
                                  "to connect to by setting `--address` flag")

    monkeypatch.setattr(pool, "import_ray", lambda: NoCluster)
    with pytest.raises(UsageError) as caught:
        pool.connect(ClusterTarget(address="auto"))
    message = str(caught.value)
    assert "--cluster auto" in message and "ray start --head" in message and "`--address`" not in message


def test_cluster_worker_lines_count_one_unit_and_one_restart(capsys):
    from drama_cli.commands.render import _print_report
    from drama_cli.render.report import RenderReport

    workers = [{"worker": 1, "node": "n", "streams": 1, "units": 1, "busy_s": 0.5, "wall_s": 0.5,
                "failures": 0, "restarts": 1},
               {"worker": 2, "node": "n", "streams": 1, "units": 2, "busy_s": 0.5, "wall_s": 0.5,
                "failures": 0, "restarts": 0}]
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

    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(shutdown=lambda: calls.append("shutdown")))
    backend = ClusterBackend.__new__(ClusterBackend)
    backend.pool, backend.owns_ray = Pool(), True
    with pytest.raises(KeyboardInterrupt):
        backend.close()
    assert calls == ["pool closed", "shutdown"]


def test_console_script_interrupted_lets_a_second_ctrl_c_end_it_quietly(monkeypatch):
    import signal

    import drama_cli.cli as cli

    handlers = []
    monkeypatch.setattr(cli, "_run", lambda args, debug, as_json: cli.EXIT_INTERRUPTED)
    monkeypatch.setattr(cli.signal, "signal", lambda signum, handler: handlers.append((signum, handler)))
    monkeypatch.setattr(cli.sys, "argv", ["drama", "render", "x.yaml"])
    assert cli.main() == cli.EXIT_INTERRUPTED
    assert handlers == [(signal.SIGINT, signal.SIG_DFL)]
    handlers.clear()
    assert cli.main(["render", "x.yaml"]) == cli.EXIT_INTERRUPTED  # called in-process: left alone
    assert handlers == []


@pytest.mark.parametrize("device, words", [("bogus", "not a torch device"), ("cuda", "not compiled with CUDA")])
def test_drama3_bad_device_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, device, words):
    def no_cuda(device):
        raise AssertionError("Torch not compiled with CUDA enabled")

    monkeypatch.setattr("engine.offload.plan.device_free_bytes", no_cuda)
    folder = _config_folder(tmp_path / "model")
    script = write_script(tmp_path, ["Hello there."])
    assert main(["render", str(script), "--engine", "drama3", "--model", str(folder), "--device", device]) == 2
    err = capsys.readouterr().err
    assert f"--device {device}: " in err and words in err and "Traceback" not in err


def test_cluster_local_with_more_workers_than_cores_is_refused(monkeypatch):
    from drama_cli.backends.cluster.address import parse_cluster
    from drama_cli.errors import UsageError

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert parse_cluster("local:2").workers == 2
    for value in ("local:3", "local:99999999999999999999"):
        with pytest.raises(UsageError, match="this machine has 2 cores.*local:2 or fewer"):
            parse_cluster(value)


def test_gpu_memory_with_the_scratch_engine_says_it_has_no_effect():
    from drama_cli.backends.registry import make_backend

    notices = []
    make_backend("scratch", notice=notices.append, gpu_memory="24GB")
    assert notices == ["--gpu-memory has no effect on the scratch engine (it has no model weights to place)"]
    notices.clear()
    make_backend("scratch", notice=notices.append)
    assert notices == []
    make_backend("scratch", "/no/such/folder", notice=notices.append, device="bogus", graph=False)
    assert notices == [f"{option} has no effect on the scratch engine (it has no model weights to place)"
                       for option in ("--model", "--device", "--no-graph")]


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
