"""`drama model info | verify | pull` on tiny random checkpoints, with the hub unreachable."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from drama_cli.cli import main
from engine.testing.checkpoints import preset_config_dict, write_checkpoint
from engine.tokenizer import build_tiny_tokenizer

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0)
    return folder


@pytest.fixture
def full_config_folder(tmp_path):
    # Real geometry; the tiny vocabulary keeps it fast (the figures do not depend on the ids).
    (tmp_path / "config.json").write_text(
        json.dumps(preset_config_dict("full", build_tiny_tokenizer()))
    )
    return tmp_path


def test_info_full_config_figures(full_config_folder, capsys):
    assert main(["model", "info", str(full_config_folder), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert 34e9 < info["params_total"] < 37e9
    assert 2.5e9 < info["params_active"] < 3.6e9
    assert info["kv_bytes_per_frame"] == 47_104
    assert info["gdn_state_bytes"] == 30 * (8192 * 3 * 2 + 32 * 128 * 128 * 4)
    assert info["layers"] == 40 and info["tower_layers"] == 13


def test_info_text_has_units(full_config_folder, capsys):
    assert main(["model", "info", str(full_config_folder / "config.json")]) == 0
    out = capsys.readouterr().out
    assert "47,104 bytes per frame" in out
    assert re.search(r"parameters\s+3\d\.\d\d B total, \d\.\d\d B active per frame", out)
    assert "GB read per frame" in out


def test_info_bad_paths_are_one_line_errors(tmp_path, capsys):
    assert main(["model", "info", str(tmp_path / "nowhere")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    assert main(["model", "info", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "model_type" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_verify_accepts_a_complete_folder(tiny, capsys):
    assert main(["model", "verify", str(tiny)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("ok:") and "448 tensors" in captured.out
    assert captured.err == ""


def test_verify_fails_on_a_folder_without_the_codec(tiny, tmp_path, capsys):
    import shutil

    folder = tmp_path / "no-codec"
    shutil.copytree(tiny, folder)
    (folder / "codec.pth").unlink()
    assert main(["model", "verify", str(folder)]) == 1
    assert capsys.readouterr().err.strip() == f"drama: {folder}: the model folder has no codec.pth"
    assert main(["model", "verify", str(folder), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["problems"] == [
        f"{folder}: the model folder has no codec.pth"
    ]


def test_render_without_the_codec_stops_before_the_first_line_naming_it(tiny, tmp_path, capsys):
    import shutil

    folder = tmp_path / "no-codec"
    shutil.copytree(tiny, folder)
    (folder / "codec.pth").unlink()
    script = tmp_path / "play.yaml"
    script.write_text(
        "cast:\n  A: {}\nlines:\n  - A: Hello there.\n  - A: Again.\n", encoding="utf-8"
    )
    assert (
        main(
            ["render", str(script), "--engine", "drama3", "--model", str(folder), "--device", "cpu"]
        )
        == 2
    )
    errors = [
        row
        for row in capsys.readouterr().err.splitlines()
        if not row.startswith(("drama: warning", "drama: rendering Drama 3 on the CPU"))
    ]
    assert errors == [
        f"drama: {folder}: the model folder has no codec.pth (drama model verify {folder} lists "
        "every problem; download the model again with drama model pull)"
    ]
    assert not list(tmp_path.glob("play.drama/**/*.wav"))


def test_verify_fails_on_missing_shard(tiny, tmp_path, capsys):
    import shutil

    folder = tmp_path / "broken"
    shutil.copytree(tiny, folder)
    next(folder.glob("model-00002-*.safetensors")).unlink()
    assert main(["model", "verify", str(folder), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and "model-00002" in report["problems"][0]


def test_verify_fails_when_tokenizer_ids_disagree(tiny, tmp_path, capsys):
    import shutil

    folder = tmp_path / "ids"
    shutil.copytree(tiny, folder)
    config = json.loads((folder / "config.json").read_text())
    config["eos_token_id"] = (
        config["eos_token_id"] + 1
    )  # still outside the band, so the config is valid
    (folder / "config.json").write_text(json.dumps(config))
    assert main(["model", "verify", str(folder)]) == 1
    assert "eos_token_id" in capsys.readouterr().err


def test_pull_rejects_bad_arguments(tmp_path, capsys):
    assert main(["model", "pull", "--revision", "bad rev!"]) == 2
    assert "--revision" in capsys.readouterr().err
    target = tmp_path / "file"
    target.write_text("x")
    assert main(["model", "pull", "--dir", str(target)]) == 2
    assert "not a folder" in capsys.readouterr().err


def _pull(env_extra: dict, tmp_path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        **env_extra,
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_ETAG_TIMEOUT": "2",
        "HF_HUB_DOWNLOAD_TIMEOUT": "2",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "drama_cli.cli", "model", "pull", "--dir", str(tmp_path / "model")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )


def test_pull_offline_gives_a_clear_error(tmp_path):
    result = _pull({"HF_HUB_OFFLINE": "1"}, tmp_path)
    assert result.returncode == 2
    assert (
        "cannot download fishaudio/drama-3@" in result.stderr and "Traceback" not in result.stderr
    )


def test_pull_with_unreachable_endpoint_gives_a_clear_error(tmp_path):
    # Port 9 (discard) on localhost refuses at once: no real network access is attempted.
    result = _pull({"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"}, tmp_path)
    assert result.returncode == 2
    assert (
        "cannot download fishaudio/drama-3@" in result.stderr and "Traceback" not in result.stderr
    )


def test_model_verify_on_a_folder_that_is_no_model_is_bad_input(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["model", "verify", str(tmp_path)]) == 2
    assert "not a model folder" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_drama_model_is_named_as_the_problem(tmp_path, monkeypatch, capsys, value):
    script = tmp_path / "p.yaml"
    script.write_text("cast:\n  A: {}\nlines:\n  - A: Hi.\n")
    monkeypatch.setenv("DRAMA_MODEL", value)
    for command in (["render", str(script)], ["render", str(script), "--engine", "drama3"]):
        capsys.readouterr()
        assert main(command) == 2
        assert capsys.readouterr().err.strip().splitlines()[-1] == (
            "drama: DRAMA_MODEL is set but empty (a `drama model pull` that failed?): set it to "
            "the model's folder, or unset it (unset DRAMA_MODEL) to use the Hugging Face cache"
        )
