"""`drama render --batch/--cluster/--gpu-memory` and `drama model info --gpu-memory` given
bad or unusual values: help text as printed, one-line refusals, exit codes."""

from __future__ import annotations

from drama_cli.cli import main


def test_render_help_shows_the_cluster_extra(capsys):
    assert main(["render", "--help"]) == 0
    out = capsys.readouterr().out
    assert "'.[cluster]'" in out
    assert "-e '.'" not in out


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
