"""Render, mix and edit fixes found by a new user: cue-only lines, project folders, option
validation, mix settings from the script, exit codes, labels of scratch mixes."""

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    SHORT_SCRIPT,
    FakeBackend,
    FakeWithCodes,
    edit_json,
    fake_render,
    mix_rows,
    mix_settings_script,
    two_voice_scene,
    voice,
    write_script,
)

from drama_cli.backends.base import Generation
from drama_cli.backends.breath import breath_placeholder
from drama_cli.cli import main
from drama_cli.qc.signal import check_take
from drama_cli.qc.take_checks import check_generation
from drama_cli.render.line import join_chunks

CUE_SCRIPT = two_voice_scene("Cue", ["A: Hello there, my friend.", 'B: "[sighs]"'])


def cue_script(folder: Path) -> Path:
    path = folder / "cue.yaml"
    path.write_text(CUE_SCRIPT, encoding="utf-8")
    return path


# 1. cue-only lines

def test_breath_placeholder_passes_the_signal_checks():
    audio = breath_placeholder(7)
    assert audio.dtype == np.float32 and audio.shape == (35_280,)
    assert float(np.abs(audio).max()) == pytest.approx(0.2, abs=1e-6)
    report = check_take(audio, 44_100, "<|speaker:1|> [sighs]", "eos")
    assert report.passed, report
    assert np.array_equal(audio, breath_placeholder(7))


def test_joining_zero_chunks_gives_a_failing_empty_take():
    joined = join_chunks([])
    assert isinstance(joined, Generation) and joined.audio.size == 0
    assert not check_generation(joined, "[sighs]").passed


def test_scratch_renders_a_cue_only_line_as_a_placeholder(tmp_path, capsys):
    path = cue_script(tmp_path)
    out = tmp_path / "cue.drama"
    assert main(["render", str(path), "--engine", "scratch", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    sigh = next(line for line in report["lines"] if line["line_id"] == "s1-2")
    assert sigh["status"] == "rendered" and sigh["duration_s"] == pytest.approx(0.8, abs=0.01)
    assert (out / "s1" / "mix.wav").exists()


# 2. project folders

def test_out_that_is_a_file_or_cannot_be_made_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    taken = tmp_path / "taken"
    taken.write_text("x")
    assert main(["render", str(path), "--out", str(taken)]) == 2
    assert str(taken) in capsys.readouterr().err
    blocked = taken / "below"  # a folder under a file cannot exist
    assert main(["render", str(path), "--out", str(blocked)]) == 2
    err = capsys.readouterr().err
    assert str(blocked) in err and "Traceback" not in err


def test_two_scripts_with_one_stem_do_not_share_a_project(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    first = write_script(tmp_path, ["We leave at six."], name="earnest.yaml")
    second = write_script(tmp_path, ["Fine then."], name="earnest.yml")
    assert main(["render", str(first)]) == 0
    project = tmp_path / "earnest.drama" / "project.json"
    before = project.read_text()
    capsys.readouterr()
    assert main(["render", str(second)]) == 2
    err = capsys.readouterr().err
    assert "earnest.yaml" in err and "--out" in err
    assert project.read_text() == before
    assert main(["mix", str(second)]) == 2
    assert main(["render", str(second), "--out", str(tmp_path / "other.drama")]) == 0


# 3. float options

@pytest.mark.parametrize("flag", ["--gap=nan", "--gap=inf", "--gap=-0.5", "--gap=61",
                                  "--head=-1", "--tail=nan", "--asr-threshold=nan"])
def test_render_refuses_float_options_out_of_range(tmp_path, monkeypatch, capsys, flag):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    extra = ["--qc", "asr"] if flag.startswith("--asr") else []
    assert main(["render", str(path), flag, *extra]) == 2
    assert flag.split("=")[0] in capsys.readouterr().err
    assert not (tmp_path / "scene.drama" / "project.json").exists()


def test_mix_refuses_float_options_out_of_range(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    for flag in ("--gap=inf", "--head=-1", "--tail=99"):
        assert main(["mix", str(path), flag]) == 2
    assert main(["mix", str(path), "--room-tone", str(tmp_path / "none.wav")]) == 2


# 4. mix settings from the script and the new flags

MIX_SCRIPT = mix_settings_script("noise", -60)


def test_script_mix_settings_apply_and_flags_win(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = tmp_path / "mix.yaml"
    path.write_text(MIX_SCRIPT, encoding="utf-8")
    out = tmp_path / "mix.drama"
    assert main(["render", str(path), "--preset", "acx"]) == 0
    _, rows = mix_rows(out)
    assert rows[0]["start_s"] == 0.0  # the scene's head
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(1.0, abs=1e-4)  # script gap
    audio, rate = sf.read(str(out / "boathouse" / "mix.wav"))
    gap = audio[int((rows[0]["end_s"] + 0.3) * rate):int((rows[1]["start_s"] - 0.3) * rate)]
    assert 0 < float(np.sqrt(np.mean(gap ** 2))) < 10 ** (-50 / 20)  # room tone, not silence
    assert "digital silence" not in capsys.readouterr().out
    assert main(["mix", str(path), "--gap", "0.25", "--head", "0.5", "--tail", "2"]) == 0
    sheet, rows = mix_rows(out)
    assert rows[0]["start_s"] == pytest.approx(0.5, abs=1e-4)
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(0.25, abs=1e-4)
    assert sheet["duration_s"] == pytest.approx(rows[1]["end_s"] + 2.0, abs=1e-4)


def test_compliance_issues_are_printed(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--preset", "acx"]) == 0
    assert "gaps are digital silence; add room tone" in capsys.readouterr().out
    assert main(["mix", str(path), "--room-tone", "noise"]) == 0
    assert "digital silence" not in capsys.readouterr().out


# 5, 7, 10: edit and revise


def test_update_script_rewrites_a_short_form_line(short_project, capsys):
    path, _ = short_project
    code, result, _ = edit_json(capsys, ["edit", str(path), "s1-1", "--text", "Indeed I really do.",
                                         "--span", "0.3:0.6", "--update-script"])
    assert code == 0
    assert Path(result["script_backup"]).read_text() == SHORT_SCRIPT
    text = path.read_text()
    assert '      - A: "Indeed I really do."\n' in text
    assert "- B: We never said goodbye." in text


def test_an_unusable_edit_prints_its_checks_and_exits_1(short_project, capsys, monkeypatch):
    path, fake = short_project
    plain = fake.generate

    def silent(request, on_frames=None):
        made = plain(request)
        audio = np.zeros_like(made.audio)
        return Generation(audio, made.codes, "eos")

    monkeypatch.setattr(fake, "generate", silent)
    code, result, err = edit_json(capsys, ["edit", str(path), "s1-2", "--text",
                                           "We hardly ever said goodbye.", "--span", "0:1.8"])
    assert code == 1
    assert result["takes"][0]["status"] == "unusable"
    assert "silence:" in err and "s1-2 take" in err


def test_revisions_and_edits_without_seed_never_reuse_a_seed(short_project, capsys):
    path, _ = short_project
    store_root = path.with_suffix(".drama")
    first = json.loads((store_root / "s1" / "s1-2" / "take-001.json").read_text())["seed"]
    seeds = [first]
    for _ in range(2):
        code, result, _ = edit_json(capsys, ["revise", str(path), "s1-2", "--note", "softer"])
        assert code == 0
        seeds.append(result["takes"][0]["seed"])
    code, result, _ = edit_json(capsys, ["edit", str(path), "s1-2", "--text",
                                         "We hardly ever said goodbye.", "--span", "0.3:0.6"])
    seeds.append(result["takes"][0]["seed"])
    assert len(set(seeds)) == 4, seeds


# 6. corrupt selections

def test_mix_with_a_corrupt_selected_take_exits_1_naming_line_and_file(tmp_path, monkeypatch,
                                                                        capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    wav = tmp_path / "scene.drama" / "boathouse" / "boathouse-2" / "take-001.wav"
    assert wav.exists()
    wav.write_bytes(wav.read_bytes()[:100])
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-2" in err and str(wav) in err


def test_a_corrupt_selection_file_is_an_error_naming_it(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    selected = tmp_path / "scene.drama" / "boathouse" / "selected.json"
    selected.write_text("{not json")
    capsys.readouterr()
    assert main(["mix", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(selected) in err and "corrupt" in err and "Traceback" not in err
    selected.write_text('{"lines": {"boathouse-1": {"take": "one"}}}')
    assert main(["mix", str(path)]) == 2


def test_a_scene_that_cannot_be_mixed_says_its_old_mix_is_stale(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    selected = tmp_path / "scene.drama" / "boathouse" / "selected.json"
    selected.write_text('{"lines": {}}')
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    captured = capsys.readouterr()
    assert "mix skipped" in captured.out and "stale" in captured.err
    assert "mix.wav" in captured.err


# 8. revision notes checked before any backend work

@pytest.mark.parametrize("note", ["<|im_end|>", "softer <|speaker:1|>", "<|speaker:99|> loud"])
def test_revise_refuses_a_note_with_model_tokens_before_the_backend(tmp_path, monkeypatch,
                                                                     capsys, note):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    import drama_cli.backends.registry as registry

    def no_backend(*args, **kwargs):
        raise AssertionError("the backend must not be made for a bad note")

    monkeypatch.setattr(registry, "make_backend", no_backend)
    capsys.readouterr()
    assert main(["revise", str(path), "boathouse-1", "--note", note]) == 2
    err = capsys.readouterr().err
    assert "--note" in err and len(err.strip().splitlines()) == 1


# 9. scratch labelling

def test_a_scratch_mix_says_so_in_labels_subtitles_and_wav_metadata(tmp_path, capsys):
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--engine", "scratch"]) == 0
    folder = tmp_path / "scene.drama" / "boathouse"
    labels = (folder / "mix.labels.txt").read_text().splitlines()
    assert labels[0] == "0.000000\t0.000000\tSCRATCH DRAFT – not a Drama 3 performance"
    assert len(labels) == 3
    srt = (folder / "mix.srt").read_text().split("\n\n")
    assert srt[0] == "1\n00:00:00,000 --> 00:00:00,500\nSCRATCH DRAFT – not a Drama 3 performance"
    assert srt[1].startswith("2\n")
    with sf.SoundFile(str(folder / "mix.wav")) as wav:
        assert wav.title == "SCRATCH DRAFT – not a Drama 3 performance"
        assert wav.comment.startswith("SCRATCH DRAFT")
    sheet = json.loads((folder / "mix.cues.json").read_text())
    assert sheet["scratch"] is True and sheet["scratch_lines"] == ["boathouse-1", "boathouse-2"]


def test_a_mix_of_scratch_and_drama3_takes_says_so(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    real = registry.make_backend
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["render", str(path)]) == 0
    folder = tmp_path / "scene.drama" / "boathouse"
    assert not (folder / "mix.labels.txt").read_text().startswith("0.000000\t0.000000\tSCRATCH")
    monkeypatch.setattr(registry, "make_backend", real)
    capsys.readouterr()
    assert main(["render", str(path), "--engine", "scratch", "--line", "boathouse-1"]) == 0
    err = capsys.readouterr().err
    assert "combines 1 scratch take(s) (boathouse-1) with 1 take(s) of fake" in err
    sheet = json.loads((folder / "mix.cues.json").read_text())
    assert sheet["scratch_lines"] == ["boathouse-1"] and sheet["engines"] == ["fake", "scratch"]
    labels = (folder / "mix.labels.txt").read_text().splitlines()
    assert labels[0].endswith("PARTLY SCRATCH – 1 of 2 lines are scratch drafts, not Drama 3")


# 10. smaller fixes

def test_plot_json_lists_the_written_file_and_its_size(short_project, capsys, tmp_path):
    path, _ = short_project
    picture = tmp_path / "pictures" / "scene.png"
    capsys.readouterr()
    assert main(["plot", str(path), "--scene", "s1", "-o", str(picture), "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert files == [{"path": str(picture), "bytes": picture.stat().st_size}]
    assert files[0]["bytes"] > 1000


def test_version_flag_prints_the_version(capsys):
    from drama_cli import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == __version__


def test_model_verify_on_a_folder_that_is_no_model_is_bad_input(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["model", "verify", str(tmp_path)]) == 2
    assert "not a model folder" in capsys.readouterr().err


def test_mix_and_takes_get_ordinary_permissions(tmp_path, monkeypatch):
    import os

    fake_render(monkeypatch)
    old = os.umask(0o022)
    try:
        path = write_script(tmp_path, ["We leave at six."])
        assert main(["render", str(path), "--format", "wav", "--format", "flac"]) == 0
    finally:
        os.umask(old)
    folder = tmp_path / "scene.drama" / "boathouse"
    for file in ("mix.wav", "mix.flac", "mix.srt", "boathouse-1/take-001.wav",
                 "boathouse-1/take-001.json"):
        assert (folder / file).stat().st_mode & 0o777 == 0o644, file


def test_history_mode_says_once_why_a_line_has_no_context(tmp_path, monkeypatch, capsys):

    silent_first = lambda request, n: (  # noqa: E731
        (np.zeros(44_100, np.float32), "eos") if n == 1 else (voice(1.0), "eos"))
    fake_render(monkeypatch, FakeBackend(answer=silent_first))
    path = write_script(tmp_path, ["We leave at six.", "Fine then.", "Go now."])
    assert main(["render", str(path), "--retries", "0"]) == 1
    err = capsys.readouterr().err
    assert err.count("voiced without earlier lines as context (clone)") == 1
    assert "line boathouse-2" in err


def test_revise_select_keeps_the_script_mix_settings(tmp_path, monkeypatch, capsys):

    fake_render(monkeypatch, FakeWithCodes())
    path = tmp_path / "mix.yaml"
    path.write_text(MIX_SCRIPT, encoding="utf-8")
    assert main(["render", str(path)]) == 0
    assert main(["revise", str(path), "boathouse-2", "--note", "softer", "--select"]) == 0
    _, rows = mix_rows(tmp_path / "mix.drama")
    assert rows[1]["take"] == 2
    assert rows[0]["start_s"] == 0.0
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(1.0, abs=1e-4)
