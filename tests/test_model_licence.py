"""The model's licence: `drama model pull` against a local fake hub (nothing leaves the
machine), the acceptance it records, `drama model info` and `accept-license`, and the render's
notice for a folder whose licence was never accepted."""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
import shutil
from pathlib import Path

import pytest

from drama_cli.backends.model_licence import (
    ACCEPTANCE_FILE,
    front_matter,
    read_folder_licence,
    record_acceptance,
    slug,
)
from drama_cli.cli import main
from drama_cli.commands.licence import NOTICE_MARKER, notice_once_per_project
from engine.files import file_sha256

# Stand-ins written for the tests, shaped like the release's files (docs/internals/model-licence.md).
LICENCE_TEXT = """# EXAMPLE COMMUNITY LICENSE AGREEMENT
**Version 1.0 - Last Updated: January 2, 2026**

Whoever passes the materials on keeps this attribution notice in a "Notice" text file:
"Test materials under the Example Community License, (c) Example Makers."
"""
COMMUNITY_TITLE = "# FISH AUDIO COMMUNITY LICENSE AGREEMENT\n"
README_TEXT = """---
license: other
license_name: fish-audio-research-license
license_link: LICENSE.md
tags: [text-to-speech]
---
# A model card
"""


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """A local folder standing in for the hub repository, and the list of files each download
    asked for (`snapshot_download` copies from it; nothing is fetched)."""
    repo = tmp_path / "hub"
    repo.mkdir()
    (repo / "LICENSE").write_text(LICENCE_TEXT)
    (repo / "README.md").write_text(README_TEXT)
    (repo / "config.json").write_text("{}")
    (repo / "model-00001-of-00001.safetensors").write_bytes(b"weights")
    calls: list = []

    def snapshot_download(repo_id, revision=None, local_dir=None, allow_patterns=None, **_):
        calls.append(allow_patterns)
        for path in repo.iterdir():
            if allow_patterns is None or any(fnmatch.fnmatch(path.name, p) for p in allow_patterns):
                Path(local_dir).mkdir(parents=True, exist_ok=True)
                shutil.copy(path, Path(local_dir) / path.name)
        return str(local_dir)

    monkeypatch.setattr("huggingface_hub.snapshot_download", snapshot_download)
    return repo, calls


def test_pull_refuses_without_acceptance_and_downloads_no_weights(hub, tmp_path, capsys):
    target = tmp_path / "model"
    assert main(["model", "pull", "--dir", str(target)]) == 2
    err = capsys.readouterr().err
    assert "not accepted" in err and "--accept-license" in err and "Traceback" not in err
    assert f"full text: {target / 'LICENSE'}" in err
    assert (
        "licence: EXAMPLE COMMUNITY LICENSE AGREEMENT (Version 1.0 - Last Updated: January 2, 2026)"
        in err
    )
    assert sorted(p.name for p in target.iterdir()) == ["LICENSE", "README.md"]
    assert hub[1] == [["LICENSE", "README.md"]]


def test_pull_with_accept_license_records_hash_date_and_revision(hub, tmp_path, capsys):
    target = tmp_path / "model"
    assert (
        main(["model", "pull", "--dir", str(target), "--revision", "abc1234", "--accept-license"])
        == 0
    )
    assert capsys.readouterr().out.strip() == str(target)
    record = json.loads((target / ACCEPTANCE_FILE).read_text())
    assert record["license_sha256"] == file_sha256(hub[0] / "LICENSE")
    assert record["revision"] == "abc1234" and record["how"] == "--accept-license"
    assert record["accepted_at"].startswith(dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"))
    assert (target / "model-00001-of-00001.safetensors").read_bytes() == b"weights"


def test_a_second_pull_needs_no_flag_until_the_licence_changes(hub, tmp_path, capsys):
    target = tmp_path / "model"
    assert main(["model", "pull", "--dir", str(target), "--accept-license"]) == 0
    assert main(["model", "pull", "--dir", str(target)]) == 0
    (hub[0] / "LICENSE").write_text(LICENCE_TEXT + "\nA new clause.\n")
    capsys.readouterr()
    assert main(["model", "pull", "--dir", str(target)]) == 2
    assert "not accepted" in capsys.readouterr().err


def test_pull_accepts_a_yes_on_a_terminal(hub, tmp_path, monkeypatch):
    monkeypatch.setattr(
        "drama_cli.commands.licence.terminal_question", lambda: lambda question: True
    )
    target = tmp_path / "model"
    assert main(["model", "pull", "--dir", str(target)]) == 0
    assert json.loads((target / ACCEPTANCE_FILE).read_text())["how"] == "answered yes on a terminal"


def test_pull_shows_the_summary_only_for_the_licence_it_describes(hub, tmp_path, capsys):
    main(["model", "pull", "--dir", str(tmp_path / "a")])
    assert "drama has no summary of this licence" in capsys.readouterr().err
    (hub[0] / "LICENSE").write_text(COMMUNITY_TITLE + LICENCE_TEXT.split("\n", 1)[1])
    main(["model", "pull", "--dir", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert (
        "USD 500,000" in err and "Built with Fish Audio" in err and "hosted speech service" in err
    )


def test_the_readme_front_matter_that_disagrees_with_the_licence_is_reported(hub, tmp_path):
    (hub[0] / "LICENSE").write_text(COMMUNITY_TITLE)
    shutil.copy(hub[0] / "LICENSE", tmp_path / "LICENSE")
    shutil.copy(hub[0] / "README.md", tmp_path / "README.md")
    licence = read_folder_licence(tmp_path)
    assert licence.front_matter == {
        "license": "other",
        "license_name": "fish-audio-research-license",
        "license_link": "LICENSE.md",
    }
    assert licence.disagreements == (
        "the README front matter links LICENSE.md, which the folder does not contain",
        "the README front matter names 'fish-audio-research-license' but LICENSE is "
        "'FISH AUDIO COMMUNITY LICENSE AGREEMENT'",
    )


def test_a_readme_that_agrees_gives_no_disagreement(tmp_path):
    (tmp_path / "LICENSE").write_text(COMMUNITY_TITLE)
    (tmp_path / "README.md").write_text(
        "---\nlicense_name: fish-audio-community-license\nlicense_link: LICENSE\n---\n"
    )
    assert read_folder_licence(tmp_path).disagreements == ()
    assert slug("FISH AUDIO COMMUNITY LICENSE AGREEMENT") == "fish-audio-community-license"


def test_front_matter_without_a_yaml_block_is_empty():
    assert front_matter("# Title\nlicense: mit\n") == {}
    assert front_matter("---\n: [broken\n---\n") == {}


def test_the_notice_text_is_read_from_the_folder(tmp_path):
    (tmp_path / "LICENSE").write_text(LICENCE_TEXT)
    assert (
        read_folder_licence(tmp_path).notice_text
        == "Test materials under the Example Community License, (c) Example Makers."
    )
    (tmp_path / "LICENSE").write_text("# Some licence\nNo notice here.\n")
    (tmp_path / "NOTICE.txt").write_text("The folder's own notice.\n")
    assert read_folder_licence(tmp_path).notice_text == "The folder's own notice."


def _model_folder(tmp_path: Path) -> Path:
    from engine.testing.checkpoints import preset_config_dict
    from engine.tokenizer import build_tiny_tokenizer

    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "config.json").write_text(
        json.dumps(preset_config_dict("tiny", build_tiny_tokenizer()))
    )
    (tmp_path / "LICENSE").write_text(COMMUNITY_TITLE)
    (tmp_path / "README.md").write_text(README_TEXT)
    return tmp_path


def test_info_shows_the_licence_its_disagreements_and_acceptance(tmp_path, capsys):
    folder = _model_folder(tmp_path)
    assert main(["model", "info", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"FISH AUDIO COMMUNITY LICENSE AGREEMENT ({folder / 'LICENSE'})" in out
    assert "links LICENSE.md, which the folder does not contain" in out
    assert f"not accepted: run `drama model accept-license {folder}`" in out
    record_acceptance(
        read_folder_licence(folder),
        "rev9",
        "--accept-license",
        dt.datetime(2026, 12, 1, 10, 30, tzinfo=dt.UTC),
    )
    assert main(["model", "info", str(folder), "--json"]) == 0
    licence = json.loads(capsys.readouterr().out)["license"]
    assert (
        licence["accepted"] is True
        and licence["acceptance"]["accepted_at"] == "2026-12-01T10:30:00Z"
    )
    assert licence["readme_front_matter"]["license_name"] == "fish-audio-research-license"


def test_accept_license_records_the_acceptance_of_a_folder(tmp_path, capsys):
    folder = _model_folder(tmp_path)
    assert main(["model", "accept-license", str(folder)]) == 0
    assert "USD 500,000" in capsys.readouterr().err
    assert read_folder_licence(folder).accepted()
    (folder / "LICENSE").unlink()
    assert main(["model", "accept-license", str(folder)]) == 2
    assert "no LICENSE file" in capsys.readouterr().err


def test_the_render_notice_is_given_once_per_project(tmp_path):
    folder = _model_folder(tmp_path / "model")
    heard: list[str] = []
    for project in (tmp_path / "one", tmp_path / "one", tmp_path / "two"):
        project.mkdir(exist_ok=True)
        notice_once_per_project(project, folder, heard.append)
    assert (
        len(heard) == 2
        and "never accepted" in heard[0]
        and (tmp_path / "one" / NOTICE_MARKER).exists()
    )
    assert len(heard[0].splitlines()) == 1
    record_acceptance(read_folder_licence(folder), "r", "--accept-license")
    (tmp_path / "three").mkdir()
    assert notice_once_per_project(tmp_path / "three", folder, heard.append) is False


def test_only_a_render_by_the_drama3_model_looks_for_the_model_licence(tmp_path, monkeypatch):
    from drama_cli.backends.base import Capabilities
    from drama_cli.commands.licence import notice_before_render

    class Engine:  # what the notice reads of a backend: its capabilities
        def __init__(self, **facts):
            self.capabilities = Capabilities(**facts)

    folder = _model_folder(tmp_path / "model")
    monkeypatch.setenv("DRAMA_MODEL", str(folder))
    heard: list[str] = []
    assert notice_before_render(tmp_path, Engine(), None, heard.append) is False
    served = Engine(drama3_model=True, network=True)  # the model on a server: no folder here
    assert notice_before_render(tmp_path, served, None, heard.append) is False
    assert notice_before_render(tmp_path, Engine(drama3_model=True), None, heard.append) is True
    assert heard == [
        f"the licence of the model in {folder} was never accepted: read its LICENSE and run "
        f"`drama model accept-license {folder}` (shown once per project)"
    ]


def test_a_revision_without_a_licence_is_pulled_with_a_note(hub, tmp_path, capsys):
    (hub[0] / "LICENSE").unlink()
    target = tmp_path / "model"
    assert main(["model", "pull", "--dir", str(target)]) == 0
    assert "has no LICENSE file; there is no licence to accept" in capsys.readouterr().err
    assert (target / "config.json").exists() and not (target / ACCEPTANCE_FILE).exists()


def test_a_cluster_render_gives_the_licence_notice_as_a_local_one_does(
    tmp_path, monkeypatch, capsys
):
    import drama_cli.commands.render as render_command
    import drama_cli.render.scheduler as scheduler

    class Stop(Exception):
        pass

    from drama_cli.backends.base import Capabilities

    class ClusterEngine:
        name = "drama3"
        capabilities = Capabilities(drama3_model=True, local_gpu=True)

        def close(self):
            pass

    def stop(*args, **kwargs):
        raise Stop

    folder = _model_folder(tmp_path / "model")
    monkeypatch.setenv("DRAMA_MODEL", str(folder))
    monkeypatch.setattr(render_command, "_backend", lambda cluster, flags: ClusterEngine())
    monkeypatch.setattr(scheduler, "render_script", stop)
    script = tmp_path / "s.yaml"
    script.write_text("cast:\n  A: {}\nlines:\n  - A: Hello.\n")
    with pytest.raises(Stop):
        main(["render", str(script), "--cluster", "local:1"])
    assert "the licence of the model in" in capsys.readouterr().err
    assert (tmp_path / "s.drama" / NOTICE_MARKER).exists()
