"""`--gpu-memory`: sizes, the memory plan of `drama model info`, the budget reaching the
engine through `drama render`, and the one-line refusal when the model does not fit; a bad
`--device`, and placement options given to an engine without weights."""

from __future__ import annotations

import json

import pytest
from fakes import write_script

from drama_cli.cli import main
from engine.config import Drama3Config
from engine.offload.plan import plan_memory
from engine.offload.sizes import parse_size
from engine.testing.checkpoints import preset_config_dict, write_checkpoint
from engine.tokenizer import build_tiny_tokenizer

SCRIPT = """\
title: Short
cast:
  A: {}
scenes:
  - id: s1
    lines:
      - A: Indeed I do.
"""


@pytest.fixture(scope="module")
def full_config(tmp_path_factory):
    folder = tmp_path_factory.mktemp("full-config")
    (folder / "config.json").write_text(
        json.dumps(preset_config_dict("full", build_tiny_tokenizer()))
    )
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0)
    return folder


@pytest.mark.parametrize(
    "text, size",
    [
        ("24GB", 24 * 10**9),
        ("24GiB", 24 * 2**30),
        ("500MB", 500 * 10**6),
        ("1.5 TB", 15 * 10**11),
        ("4096B", 4096),
        ("2kib", 2048),
    ],
)
def test_sizes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "24XB", "GB", "-1GB", "0MB", "24 G B", "24"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(ValueError, match="memory size"):
        parse_size(text)


def test_info_prints_the_plan_for_24gb(full_config, capsys):
    assert main(["model", "info", str(full_config), "--gpu-memory", "24GB", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)["memory_plan"]
    assert plan["budget_bytes"] == 24 * 10**9 and plan["offloaded"] and plan["fits"]
    assert 8 <= plan["slots"] < 256 and plan["layers"] == 40
    assert (
        plan["expert_bytes"] == 3 * 512 * 2048 + 3 * 4 * 16 * 4
    )  # fp8 weights and fp32 block scales
    assert 4e9 < plan["resident_bytes"] < 9e9
    assert (
        plan["resident_bytes"] + plan["reserve_bytes"] + plan["margin_bytes"] + plan["cache_bytes"]
        <= 24 * 10**9
    )
    assert plan["kv_room_frames"] >= 16_384
    copied = plan["copied_bytes_per_frame"]
    assert copied["0.5"] == round(0.5 * 8 * 40 * plan["expert_bytes"])
    assert main(["model", "info", str(full_config), "--gpu-memory", "24GB"]) == 0
    text = capsys.readouterr().out
    assert f"{plan['slots']} of 256 experts per layer" in text and "KV room" in text


def test_info_plan_for_a_budget_that_holds_everything(full_config, capsys):
    assert (
        main(
            [
                "model",
                "info",
                str(full_config),
                "--gpu-memory",
                "80GB",
                "--hit-rate",
                "0.9",
                "--json",
            ]
        )
        == 0
    )
    plan = json.loads(capsys.readouterr().out)["memory_plan"]
    assert (
        plan["slots"] == 256
        and not plan["offloaded"]
        and list(plan["copied_bytes_per_frame"]) == ["0.9"]
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--gpu-memory", "lots"],
        ["--gpu-memory", "24GB", "--hit-rate", "2"],
        ["--gpu-memory", "auto"],
    ],
)
def test_info_refuses_bad_options(full_config, capsys, monkeypatch, args):
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    assert main(["model", "info", str(full_config), *args]) == 2
    assert "--gpu-memory" in capsys.readouterr().err or "--hit-rate" in args


def test_plan_too_small_does_not_fit(full_config):
    config = Drama3Config.from_file(full_config / "config.json")
    plan = plan_memory(config, 8 * 10**9)
    assert not plan.fits and plan.minimum_bytes > 8 * 10**9 > plan.resident_bytes


def _render(tmp_path, tiny, *options):
    script = tmp_path / "short.yaml"
    script.write_text(SCRIPT)
    return main(
        [
            "render",
            str(script),
            "--engine",
            "drama3",
            "--model",
            str(tiny),
            "--retries",
            "0",
            *options,
        ]
    )


@pytest.mark.parametrize(
    "room, words", [("some experts", "--gpu-memory"), ("nothing", "even with routed experts")]
)
def test_render_without_budget_says_what_it_needs(tmp_path, tiny, monkeypatch, capsys, room, words):
    config = Drama3Config.from_file(tiny / "config.json")
    plan = plan_memory(config, 10**12, 2, (tiny / "codec.pth").stat().st_size)
    free = (plan.minimum_bytes + plan.full_bytes) // 2 if room == "some experts" else 10**6
    monkeypatch.setattr("engine.offload.plan.device_free_bytes", lambda device: free)
    assert _render(tmp_path, tiny, "--device", "cuda") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1 and "the model needs" in err[0] and "are free" in err[0] and words in err[0]
    )


def test_render_with_a_budget_above_the_free_memory_is_refused(tmp_path, tiny, monkeypatch, capsys):
    monkeypatch.setattr("engine.offload.plan.device_free_bytes", lambda device: 8 * 10**9)
    assert _render(tmp_path, tiny, "--device", "cuda", "--gpu-memory", "24GB") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "24.00 GB is more than the 8.00 GB free on cuda" in err[0]
    assert "--gpu-memory 8GB" in err[0]


def test_render_with_a_budget_too_small_is_refused(tmp_path, tiny, capsys):
    assert _render(tmp_path, tiny, "--device", "cpu", "--gpu-memory", "1MB") == 2
    assert "cannot hold the model" in capsys.readouterr().err


def test_render_bad_gpu_memory_exits_2(tmp_path, tiny, capsys):
    assert _render(tmp_path, tiny, "--gpu-memory", "24 parsecs") == 2
    assert "--gpu-memory" in capsys.readouterr().err


def test_render_budget_reaches_the_engine(tmp_path, tiny, monkeypatch, capsys):
    from drama_cli.backends.drama3 import Drama3Backend

    config = Drama3Config.from_file(tiny / "config.json")
    one = plan_memory(config, 10**12, 4, (tiny / "codec.pth").stat().st_size, 0)
    budget = one.minimum_bytes + 2 * one.layers * one.expert_bytes  # top_k + 2 slots per layer
    models = []
    original = Drama3Backend._load

    def spy(self):
        models.append(original(self))
        return models[-1]

    monkeypatch.setattr(Drama3Backend, "_load", spy)
    assert _render(tmp_path, tiny, "--device", "cpu", "--gpu-memory", f"{budget}B") in (0, 1)
    offload = models[-1].offload
    assert offload is not None and offload.slots == one.top_k + 2
    assert offload.counters().misses > 0 and offload.counters().bytes_copied > 0
    assert "routed experts per layer on the device" in capsys.readouterr().err


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


@pytest.mark.parametrize(
    "device, words", [("bogus", "not a torch device"), ("cuda", "not compiled with CUDA")]
)
def test_drama3_bad_device_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, device, words):
    def no_cuda(device):
        raise AssertionError("Torch not compiled with CUDA enabled")

    monkeypatch.setattr("engine.offload.plan.device_free_bytes", no_cuda)
    folder = _config_folder(tmp_path / "model")
    script = write_script(tmp_path, ["Hello there."])
    assert (
        main(
            [
                "render",
                str(script),
                "--engine",
                "drama3",
                "--model",
                str(folder),
                "--device",
                device,
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert f"--device {device}: " in err and words in err and "Traceback" not in err


def test_gpu_memory_with_the_scratch_engine_is_refused_naming_both(monkeypatch):
    from drama_cli.backends.registry import MODEL_ENV, make_backend
    from drama_cli.errors import UsageError

    notices = []
    with pytest.raises(UsageError) as refused:
        make_backend("scratch", notice=notices.append, gpu_memory="24GB")
    assert str(refused.value) == (
        "--gpu-memory is not an option of the scratch engine (it is an option of drama3)"
    )
    with pytest.raises(UsageError, match="^--no-graph is not an option of the scratch engine"):
        make_backend("scratch", notice=notices.append, graph=False)
    make_backend("scratch", notice=notices.append)
    assert notices == []
    make_backend("scratch", "/no/such/folder", notice=notices.append, device="bogus")
    assert notices == [
        f"{option} has no effect on the scratch engine (it has no model weights to place)"
        for option in ("--model", "--device")
    ]
    notices.clear()
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.setattr("drama_cli.backends.registry._cached_model", lambda: None)
    make_backend("auto", notice=notices.append, gpu_memory="24GB")  # auto fell back to scratch
    assert notices[1:] == ["--gpu-memory has no effect on the scratch engine"]


def test_a_damaged_shard_stops_the_render_once_with_exit_2(tiny, tmp_path, capsys):
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(tiny, folder)
    shard = sorted(folder.glob("*.safetensors"))[-1]
    shard.write_bytes(shard.read_bytes()[:100])  # cut short: its header cannot be read
    script = write_script(tmp_path, ["Hello there.", "Goodbye now.", "Fine."])
    assert (
        main(
            ["render", str(script), "--engine", "drama3", "--model", str(folder), "--device", "cpu"]
        )
        == 2
    )
    err = [
        line
        for line in capsys.readouterr().err.splitlines()
        if not line.startswith(("drama: warning", "drama: rendering Drama 3 on the CPU"))
    ]
    assert len(err) == 1 and f"{shard}: cannot open shard" in err[0]
    assert f"drama model verify {folder}" in err[0]
    assert not list((tmp_path / "scene.drama").rglob("take-*"))
