"""Exit codes and one-line errors of the CLI: `drama mix` with lines left out or no selections,
plot outputs and binary cast files, `revise` with failing takes, `edit --replace` within a span;
and the level of a recorded room tone."""

import json

import numpy as np
import pytest
import soundfile as sf
from fakes import (
    boathouse_script,
    edit_json,
    fake_render,
    mix_rows,
    mix_settings_script,
    render_with_edit_fake,
    write_script,
)

from drama_cli.cli import main

SCENE = "boathouse"


def project(tmp_path):
    return tmp_path / "scene.drama" / SCENE


# 1. drama mix: lines left out, missing selected.json


def test_mix_exits_1_naming_a_line_left_out(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    selected = project(tmp_path) / "selected.json"
    lines = json.loads(selected.read_text())["lines"]
    del lines["boathouse-2"]
    selected.write_text(json.dumps({"scene_id": SCENE, "lines": lines}))
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    captured = capsys.readouterr()
    assert "left out" in captured.err and "boathouse-2" in captured.err
    assert "Traceback" not in captured.err


def test_mix_without_selection_file_selects_first_passing_takes(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    selected = project(tmp_path) / "selected.json"
    before = json.loads(selected.read_text())["lines"]
    selected.unlink()
    (project(tmp_path) / "mix.wav").unlink()
    capsys.readouterr()
    assert main(["mix", str(path)]) == 0
    after = json.loads(selected.read_text())["lines"]
    assert {k: v["take"] for k, v in after.items()} == {k: v["take"] for k, v in before.items()}
    assert (project(tmp_path) / "mix.wav").exists()


def test_mix_without_selection_file_ignores_takes_of_changed_text(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path)]) == 0
    (project(tmp_path) / "selected.json").unlink()
    write_script(tmp_path, ["We leave at six.", "Not fine at all."])
    capsys.readouterr()
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "boathouse-2" in err and "boathouse-1" not in err.split("left out of the mix:")[-1]
    after = json.loads((project(tmp_path) / "selected.json").read_text())["lines"]
    assert list(after) == ["boathouse-1"]


# 2. one-line errors: plot outputs, binary cast files


@pytest.mark.parametrize("target", ["out.txt", "noext", "folder"])
def test_plot_to_an_unsupported_output_is_a_one_line_error(tmp_path, monkeypatch, capsys, target):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    (tmp_path / "folder").mkdir()
    output = tmp_path / target
    capsys.readouterr()
    assert main(["plot", str(path), "--scene", SCENE, "-o", str(output)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(output) in err
    assert "png, svg, pdf" in err
    assert output.is_dir() if target == "folder" else not output.exists()


def test_plot_writes_svg_by_its_extension(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    output = tmp_path / "timeline.svg"
    assert main(["plot", str(path), "--scene", SCENE, "-o", str(output)]) == 0
    assert output.read_text(encoding="utf-8").lstrip().startswith("<?xml")


FOUNTAIN = "INT. BOATHOUSE - NIGHT\n\nMARGOT\nWe leave at six.\n"


@pytest.mark.parametrize("beside", [True, False])
def test_a_binary_cast_file_is_a_script_error_naming_it(tmp_path, capsys, beside):
    script = tmp_path / "play.fountain"
    script.write_text(FOUNTAIN, encoding="utf-8")
    cast = tmp_path / ("play.cast.yaml" if beside else "voices.yaml")
    cast.write_bytes(b"cast:\n  MARGOT: {}\n\xff\xfe\x00\x81 binary\n")
    args = ["check", str(script)] + ([] if beside else ["--cast", str(cast)])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(cast) in err and "UTF-8" in err
    assert f"{cast}:3:1" in err


# 3. drama revise exit codes


def _answering(monkeypatch, fake, shape):
    from drama_cli.backends.base import Generation

    plain = fake.generate

    def answer(request, on_frames=None):
        made = plain(request)
        audio = shape(made.audio).astype(np.float32)
        return Generation(audio, made.codes, "eos")

    monkeypatch.setattr(fake, "generate", answer)


@pytest.mark.parametrize(
    "shape, code, status",
    [
        (np.zeros_like, 1, "unusable"),
        (lambda audio: np.clip(audio * 50, -1.0, 1.0), 3, "degraded"),
    ],
)
def test_revise_prints_failed_checks_and_exits_like_edit(
    short_project, capsys, monkeypatch, shape, code, status
):
    path, fake = short_project
    _answering(monkeypatch, fake, shape)
    got, result, err = edit_json(capsys, ["revise", str(path), "s1-2", "--note", "softer"])
    assert got == code
    assert result["takes"][0]["status"] == status and result["takes"][0]["failures"]
    assert f"s1-2 take {result['takes'][0]['take']} ({status})" in err
    assert result["takes"][0]["failures"][0].split(":")[0] in err


def test_a_passing_revision_exits_0(short_project, capsys):
    path, _ = short_project
    got, result, err = edit_json(capsys, ["revise", str(path), "s1-2", "--note", "softer"])
    assert (
        got == 0 and result["takes"][0]["status"] == "ok" and result["takes"][0]["failures"] == []
    )


# 4. edit --replace with --span

REPEATED = "No, I said no."  # "no" twice: at 0.0-0.2 s and 0.8-1.0 s in TIMES
TIMES = [("No", 0.0, 0.2), ("I", 0.3, 0.4), ("said", 0.45, 0.7), ("no", 0.8, 1.0)]


def test_replace_in_span_picks_the_occurrence_heard_inside_the_span():
    from drama_cli.edit.word_changes import replace_in_span
    from drama_cli.script.spoken import Word

    timed = [Word(*t) for t in TIMES]
    assert replace_in_span(REPEATED, "no", "yes", (0.75, 1.1), timed) == "No, I said yes."
    assert replace_in_span(REPEATED, "no", "yes", (0.0, 0.25), timed) == "yes, I said no."
    assert replace_in_span(REPEATED, "said", "meant", (0.0, 0.1), None) == "No, I meant no."


def test_replace_in_span_refuses_a_repeated_phrase_without_word_times():
    from drama_cli.edit.word_changes import replace_in_span
    from drama_cli.errors import UsageError
    from drama_cli.script.spoken import Word

    with pytest.raises(UsageError, match="occurs 2 times"):
        replace_in_span(REPEATED, "no", "yes", (0.75, 1.1), None, "l1")
    with pytest.raises(UsageError, match="occurs 2 times"):
        replace_in_span(REPEATED, "no", "yes", (0.35, 0.6), [Word(*t) for t in TIMES], "l1")
    with pytest.raises(UsageError, match="not in line l1"):
        replace_in_span(REPEATED, "maybe", "yes", (0.0, 1.0), None, "l1")


@pytest.fixture
def repeated_project(tmp_path, monkeypatch):

    path, _ = render_with_edit_fake(tmp_path, monkeypatch, boathouse_script(REPEATED), "scene.yaml")
    return path


def test_edit_replace_with_span_and_no_word_times_refuses_a_repeated_phrase(
    repeated_project, capsys
):
    capsys.readouterr()
    assert (
        main(
            [
                "edit",
                str(repeated_project),
                "l1",
                "--replace",
                "no",
                "--with",
                "yes",
                "--span",
                "0.75:0.93",
                "--dry-run",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "occurs 2 times" in err and "Traceback" not in err


def test_edit_replace_with_span_uses_word_times_and_dry_run_prints_both_lines(
    repeated_project, capsys, monkeypatch
):
    from drama_cli.script.spoken import Word

    monkeypatch.setattr(
        "drama_cli.edit.project_edit.recognise_words", lambda audio: [Word(*t) for t in TIMES]
    )
    capsys.readouterr()
    assert (
        main(
            [
                "edit",
                str(repeated_project),
                "l1",
                "--replace",
                "no",
                "--with",
                "yes",
                "--span",
                "0.75:0.93",
                "--dry-run",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "  old text: No, I said no.\n" in out and "  new text: No, I said yes.\n" in out


# 5. room_tone_db sets the level of a recorded room tone

BED_SCRIPT = mix_settings_script("bed.wav", -55)


def test_a_recorded_room_tone_is_scaled_to_room_tone_db(tmp_path, monkeypatch):

    fake_render(monkeypatch)
    rng = np.random.default_rng(3)
    sf.write(
        str(tmp_path / "bed.wav"), 0.3 * rng.standard_normal(30_000), 44_100, subtype="FLOAT"
    )  # about -10 dBFS RMS as recorded
    path = tmp_path / "mix.yaml"
    path.write_text(BED_SCRIPT, encoding="utf-8")
    assert main(["render", str(path)]) == 0
    _, rows = mix_rows(tmp_path / "mix.drama")
    audio, rate = sf.read(str(tmp_path / "mix.drama" / "boathouse" / "mix.wav"))
    gap = audio[int((rows[0]["end_s"] + 0.1) * rate) : int((rows[1]["start_s"] - 0.1) * rate)]
    assert 20 * np.log10(np.sqrt(np.mean(gap**2))) == pytest.approx(-55.0, abs=0.5)


def test_a_silent_room_tone_recording_is_an_audio_error(tmp_path):
    from drama_cli.mix.timeline import MixEntry, mix_scene
    from drama_cli.script.mix_settings import MixSettings
    from engine.errors import AudioError

    sf.write(str(tmp_path / "bed.wav"), np.zeros(4410), 44_100)
    sf.write(str(tmp_path / "a.wav"), 0.1 * np.ones(4410), 44_100)
    settings = MixSettings(room_tone=tmp_path / "bed.wav")
    with pytest.raises(AudioError, match="digital silence"):
        mix_scene([MixEntry("l1", "A", "Hi.", tmp_path / "a.wav", 1)], settings, tmp_path / "w")


def test_an_unusable_take_selected_by_hand_warns_and_its_mix_exits_1_naming_the_line(
    tmp_path, monkeypatch, capsys
):
    from fakes import FakeBackend, voice

    def runaway_first_line(request, call):
        seconds = 6.5 if "six" in request.text else 0.6  # over 5 times the expected 1 s
        return voice(seconds), "eos"

    fake_render(monkeypatch, FakeBackend(answer=runaway_first_line))
    path = write_script(tmp_path, ["We leave at six.", "Fine then."])
    assert main(["render", str(path), "--retries", "0"]) == 1
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "boathouse-1", "--select", "1"]) == 0
    warning, selected = capsys.readouterr().err.strip().splitlines()
    assert warning.startswith(
        "drama: warning: take 1 of line boathouse-1 failed its checks (runaway"
    )
    assert warning.endswith("a mix with it exits 1")
    assert (
        selected
        == f"drama: selected take 1 of line boathouse-1; run drama mix {path} to put it in the scene's mix"
    )
    assert main(["mix", str(path)]) == 1
    err = capsys.readouterr().err
    assert "unusable: line boathouse-1: take 1 failed its checks (runaway" in err
    assert err.strip().endswith(
        "1 line(s) voiced by a take whose checks failed: boathouse-1; render them "
        "again or choose a take with drama takes --select"
    )
    assert (project(tmp_path) / "mix.wav").exists()
