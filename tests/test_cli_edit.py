"""`drama revise`, `drama edit` and `drama plot` through the CLI, with a fake backend; edits
refuse input they cannot honour (empty, reversed or non-finite positions, a `--replace` word that
occurs more than once)."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
import soundfile as sf
from fakes import (
    SHORT_SCRIPT,
    FakeBackend,
    FakeWithCodes,
    boathouse_script,
    edit_json,
    fake_render,
    render_with_edit_fake,
    two_voice_scene,
    write_script,
)

from drama_cli.backends.base import Generation
from drama_cli.cli import main
from drama_cli.takes.store import TakeStore
from engine.constants import HOP_SAMPLES, SAMPLE_RATE

SCRIPT = boathouse_script("We never said goodbye.")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A rendered 3-line project; every CLI call in the test uses the same fake backend."""
    import drama_cli.backends.registry as registry

    fake = FakeWithCodes()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: fake)
    monkeypatch.setattr(
        "drama_cli.edit.project_edit.recognise_words", lambda audio: None
    )  # no `asr` extra
    path = tmp_path / "scene.yaml"
    path.write_text(SCRIPT)
    assert main(["render", str(path), "--engine", "scratch"]) == 0
    fake.requests.clear()
    return path, TakeStore(tmp_path / "scene.drama"), fake


@pytest.fixture(scope="module")
def shared_project(tmp_path_factory):
    """One rendered project for tests that only read it (bad input must change nothing)."""
    import drama_cli.backends.registry as registry

    fake = FakeWithCodes()
    folder = tmp_path_factory.mktemp("shared")
    path = folder / "scene.yaml"
    path.write_text(SCRIPT)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "make_backend", lambda *a, **k: fake)
        assert main(["render", str(path), "--engine", "scratch"]) == 0
        fake.requests.clear()
        patch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: None)
        yield path, TakeStore(folder / "scene.drama"), fake


def run_json(capsys, args):
    capsys.readouterr()
    code = main(args + ["--json"])
    out = capsys.readouterr().out
    return code, (json.loads(out) if code == 0 else None)


def test_revise_cli_one_call_chain_and_select(project, capsys):
    path, store, fake = project
    code, result = run_json(
        capsys, ["revise", str(path), "l2", "--note", "angrier, shorter", "--select"]
    )
    assert code == 0 and len(fake.requests) == 1
    assert result["parent_take"] == 1 and result["selected"] == 2 and result["mix"]["files"]["wav"]
    code, again = run_json(capsys, ["revise", str(path), "l2", "--note", "but slower"])
    assert code == 0 and again["parent_take"] == 2
    assert store.takes("s1", "l2")[-1].record.to_json()["notes"] == [
        "angrier, shorter",
        "but slower",
    ]


def test_edit_cli_dry_run_prints_span_and_words_without_generating(shared_project, capsys):
    path, store, fake = shared_project
    code, plan = run_json(
        capsys,
        [
            "edit",
            str(path),
            "l1",
            "--replace",
            "goodbye",
            "--with",
            "farewell",
            "--span",
            "1.20:1.86",
            "--dry-run",
        ],
    )
    assert code == 0 and fake.requests == []
    assert plan["new_text"] == "We never said farewell."
    assert plan["span_frames"] == [25, 40] and plan["span_s"][1] == pytest.approx(
        40 * HOP_SAMPLES / SAMPLE_RATE, abs=1e-3
    )
    assert plan["covered_words"] == ["goodbye"]  # estimated word times, no speech recognition
    assert len(store.takes("s1", "l1")) == 1


def test_edit_cli_splices_and_keeps_outside_samples(project, capsys):
    path, store, fake = project
    source = store.selected_take("s1", "l1").audio()
    code, result = run_json(
        capsys,
        [
            "edit",
            str(path),
            "l1",
            "--text",
            "We hardly ever said goodbye.",
            "--span",
            "0.30:0.75",
            "--select",
        ],
    )
    assert code == 0 and len(fake.requests) == 1
    request = fake.requests[0]
    assert request.conversation.layout == "infill"
    assert "hardly ever said goodbye" in request.conversation.text
    np.testing.assert_array_equal(
        request.conversation.prefix.codes, store.takes("s1", "l1")[0].codes()[:, :6]
    )
    new = store.take("s1", "l1", result["takes"][0]["take"])
    assert new.record.parent_take == 1 and new.record.to_json()["edit"]["span_frames"] == [6, 17]
    audio = new.audio()
    guard = int(0.020 * SAMPLE_RATE)
    a, b = 6 * HOP_SAMPLES, 17 * HOP_SAMPLES
    np.testing.assert_array_equal(audio[: a - guard], source[: a - guard])
    tail = len(source) - (b + guard)
    np.testing.assert_array_equal(audio[-tail:], source[-tail:])
    assert len(audio) == len(source) - (b - a) + 12 * HOP_SAMPLES
    assert store.selected_take("s1", "l1").number == new.number


def test_edit_without_asr_needs_at_or_span(shared_project, capsys):
    path, _, fake = shared_project
    assert main(["edit", str(path), "l1", "--replace", "goodbye", "--with", "farewell"]) == 2
    err = capsys.readouterr().err
    assert "--at" in err and "--span" in err and "asr" in err and fake.requests == []


def test_insert_at_a_time_without_asr(project, capsys):
    path, store, fake = project
    code, result = run_json(capsys, ["edit", str(path), "l1", "--insert", "really", "--at", "0.75"])
    assert code == 0 and len(fake.requests) == 1
    assert (
        result["new_text"] == "We never really said goodbye."
    )  # word boundary nearest 0.75 s (estimated)
    assert result["span_frames"] == [16, 17]


@pytest.mark.parametrize(
    "args, message",
    [
        (["edit", "{p}", "l1", "--text", "x y", "--span", "1.5:0.5"], "start is after end"),
        (["edit", "{p}", "l1", "--text", "x y", "--span", "1.0:9.0"], "beyond the take"),
        (["edit", "{p}", "l1", "--text", "x y", "--span", "0:99", "--frames"], "beyond the take"),
        (["edit", "{p}", "l1", "--insert", "x", "--after", "hello"], "not in line l1"),
        (
            ["edit", "{p}", "l1", "--replace", "hello", "--with", "x", "--span", "0:1"],
            "not in line l1",
        ),
        (["edit", "{p}", "nope", "--text", "x"], "no line 'nope'"),
        (["revise", "{p}", "nope", "--note", "softer"], "no line 'nope'"),
        (["revise", "{p}", "l2", "--note", "softer", "--from-take", "7"], "no take 7"),
        (["edit", "{p}", "l1", "--insert", "x"], "--at T or --after"),
        (["plot", "{p}", "--scene", "zz"], "no scene 'zz'"),
        (["plot", "{p}", "--line", "l9"], "no line 'l9'"),
    ],
)
def test_bad_input_exits_2_with_one_line(shared_project, capsys, args, message):
    path, store, fake = shared_project
    takes_before = len(store.takes("s1", "l1"))
    assert main([a.format(p=path) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert fake.requests == [] and len(store.takes("s1", "l1")) == takes_before


def test_update_script_rewrites_the_line_and_keeps_a_backup(project, capsys):
    path, store, fake = project
    code, result = run_json(
        capsys,
        [
            "edit",
            str(path),
            "l2",
            "--replace",
            "oars",
            "--with",
            "paddles",
            "--span",
            "0.9:1.86",
            "--update-script",
            "--select",
        ],
    )
    assert code == 0
    backup = result["script_backup"]
    assert open(backup).read() == SCRIPT
    assert 'text: "Not without the paddles."' in path.read_text()
    fake.requests.clear()
    assert main(["render", str(path)]) == 0
    assert fake.requests == []  # the edited take answers the updated script


def test_plot_cli_writes_scene_and_take_pictures(project, capsys, tmp_path):
    path, store, _ = project
    assert (
        main(
            [
                "edit",
                str(path),
                "l1",
                "--text",
                "We hardly ever said goodbye.",
                "--span",
                "0.30:0.75",
            ]
        )
        == 0
    )
    scene_png, take_png = tmp_path / "scene.png", tmp_path / "take.png"
    assert main(["plot", str(path), "--scene", "s1", "-o", str(scene_png)]) == 0
    assert matplotlib.image.imread(scene_png).shape[:2] == (170 + 2 * 110, 1600)
    assert main(["plot", str(path), "--line", "l1", "--take", "2", "-o", str(take_png)]) == 0
    assert matplotlib.image.imread(take_png).shape[:2] == (900, 1600)
    from drama_cli.plot import scene_blocks
    from drama_cli.script.load import load_script

    blocks, total = scene_blocks(load_script(path), store, "s1")
    assert total == pytest.approx(
        sf.info(str(store.scene_dir("s1") / "mix.wav")).frames / SAMPLE_RATE, abs=1e-3
    )
    for block in blocks:  # plotted durations are the selected takes' durations
        take = store.selected_take("s1", block.line_id)
        assert block.duration_s == pytest.approx(take.duration_s, abs=1e-4)
        assert block.loudness_lufs is not None and block.loudness_lufs > -60


def test_revise_from_script_cli(project, capsys):
    path, store, fake = project
    path.write_text(
        SCRIPT.replace("        text: Fine.\n", "        text: Fine.\n        notes: [wearily]\n")
    )
    code, result = run_json(capsys, ["revise", str(path), "--from-script"])
    assert (
        code == 0 and [r["line"] for r in result["revised"]] == ["l3"] and len(fake.requests) == 1
    )
    assert store.selected_take("s1", "l3").record.to_json()["notes"] == ["wearily"]
    code, again = run_json(capsys, ["revise", str(path), "--from-script"])
    assert code == 0 and again["revised"] == [] and len(fake.requests) == 1
    assert main(["revise", str(path), "l3", "--from-script"]) == 2


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("as_json", [False, True])
def test_edit_at_not_finite_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, value, as_json):
    fake = FakeBackend()
    fake_render(monkeypatch, fake)
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    extra = ["--json"] if as_json else []
    code = main(["edit", str(path), "boathouse-1", "--insert", "really", "--at", value, *extra])
    captured = capsys.readouterr()
    assert code == 2
    assert (
        captured.err.strip()
        == f"drama: --at must be a finite number of seconds, not {float(value)!r}"
    )
    if as_json:
        report = json.loads(captured.out)
        assert report["ok"] is False and report["exit_code"] == 2
        assert report["errors"][0]["message"].startswith("--at must be a finite number")
    assert fake.requests == []


def test_update_script_rewrites_a_short_form_line(short_project, capsys):
    path, _ = short_project
    code, result, _ = edit_json(
        capsys,
        [
            "edit",
            str(path),
            "s1-1",
            "--text",
            "Indeed I really do.",
            "--span",
            "0.3:0.6",
            "--update-script",
        ],
    )
    assert code == 0
    assert Path(result["script_backup"]).read_text() == SHORT_SCRIPT
    text = path.read_text()
    assert '      - A: "Indeed I really do."\n' in text
    assert "- B: We never said goodbye." in text


def test_update_script_refuses_a_flow_mapping_line_before_generating(tmp_path, monkeypatch, capsys):
    text = two_voice_scene(
        "Flow", ["{speaker: A, text: Indeed I do., pause_after: 0.5}", "B: We never said goodbye."]
    )
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, text, "flow.yaml")
    fake.requests.clear()
    capsys.readouterr()
    assert (
        main(
            [
                "edit",
                str(path),
                "s1-1",
                "--text",
                "Indeed I really do.",
                "--span",
                "0.3:0.6",
                "--update-script",
            ]
        )
        == 2
    )
    assert "the text of line s1-1" in capsys.readouterr().err
    assert fake.requests == [] and path.read_text() == text
    assert sorted(p.name for p in (tmp_path / "flow.drama" / "s1" / "s1-1").glob("take-*.wav")) == [
        "take-001.wav"
    ]


def test_an_unusable_edit_prints_its_checks_and_exits_1(short_project, capsys, monkeypatch):
    path, fake = short_project
    plain = fake.generate

    def silent(request, on_frames=None):
        made = plain(request)
        audio = np.zeros_like(made.audio)
        return Generation(audio, made.codes, "eos")

    monkeypatch.setattr(fake, "generate", silent)
    code, result, err = edit_json(
        capsys,
        ["edit", str(path), "s1-2", "--text", "We hardly ever said goodbye.", "--span", "0:1.8"],
    )
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
    code, result, _ = edit_json(
        capsys,
        ["edit", str(path), "s1-2", "--text", "We hardly ever said goodbye.", "--span", "0.3:0.6"],
    )
    seeds.append(result["takes"][0]["seed"])
    assert len(set(seeds)) == 4, seeds


TWICE = two_voice_scene(
    "Twice",
    [
        'id: l1\nspeaker: A\ntext: "Ernest is my name, and Ernest I shall stay, said Ernest."',
        "B: Quite so.",
    ],
)


@pytest.fixture
def twice(tmp_path, monkeypatch):
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, TWICE, "twice.yaml")
    fake.requests.clear()
    return path, TakeStore(tmp_path / "twice.drama"), fake


@pytest.mark.parametrize("span", ["0:0", "1:1", "1.5:0.5", "-0.5:1.0", "10:10"])
def test_empty_or_negative_span_is_bad_input(twice, capsys, span):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--text", "Ernest is my name.", "--span", span]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad span" in err and "Traceback" not in err
    assert fake.requests == [] and len(store.takes("s1", "l1")) == 1


def test_zero_span_in_frames_is_bad_input(twice, capsys):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--text", "Ernest.", "--span", "5:5", "--frames"]) == 2
    assert "bad span" in capsys.readouterr().err
    assert fake.requests == []


def test_replace_of_a_word_that_occurs_more_than_once_is_refused_with_the_occurrences(
    twice, capsys
):
    path, store, fake = twice
    assert main(["edit", str(path), "l1", "--replace", "Ernest", "--with", "Jack"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "'Ernest' occurs 3 times in line l1" in err
    assert (
        "(1: «Ernest» is my name,; 2: name, and «Ernest» I shall stay,; 3: stay, said «Ernest».)"
        in err
    )
    assert "--span" in err and "longer phrase" in err
    assert fake.requests == [] and len(store.takes("s1", "l1")) == 1


def test_replace_with_a_longer_phrase_that_occurs_once_still_works(twice, capsys):
    path, store, fake = twice
    assert (
        main(
            [
                "edit",
                str(path),
                "l1",
                "--replace",
                "said Ernest",
                "--with",
                "said Jack",
                "--span",
                "1.2:1.8",
                "--dry-run",
                "--json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert '"new_text": "Ernest is my name, and Ernest I shall stay, said Jack."' in out


@pytest.mark.parametrize(
    "verb",
    [
        ["revise", "{p}", "l2", "--note", "softer"],
        ["edit", "{p}", "l1", "--text", "x y", "--span", "0:1"],
        ["render", "{p}"],
        ["book", "{p}"],
    ],
)
@pytest.mark.parametrize("seed", ["-5", "99999999999999999999", "2147483648"])
def test_every_verb_refuses_a_seed_out_of_range_before_making_a_backend(
    shared_project, monkeypatch, capsys, verb, seed
):
    import drama_cli.backends.registry as registry

    def no_backend(*args, **kwargs):
        raise AssertionError("a backend was made")

    path, store, fake = shared_project
    monkeypatch.setattr(registry, "make_backend", no_backend)
    capsys.readouterr()
    assert main([a.format(p=path) for a in verb] + ["--seed", seed]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"drama: --seed must be between 0 and 2147483647, got {seed}"
    )


def test_new_take_seeds_stay_in_range_past_the_last_seed():
    from drama_cli.edit.revise import new_take_seeds

    assert new_take_seeds(None, "s1", "l1", None, 3, 2**31 - 2) == [2**31 - 2, 2**31 - 1, 0]


def test_the_render_table_names_the_words_of_the_take_chosen_by_hand(project, capsys):
    path, store, fake = project
    code, result = run_json(
        capsys,
        [
            "edit",
            str(path),
            "l1",
            "--text",
            "We never said farewell.",
            "--span",
            "0.30:0.75",
            "--select",
        ],
    )
    assert code == 0
    capsys.readouterr()
    assert main(["render", str(path), "--json"]) == 0
    line = next(
        row for row in json.loads(capsys.readouterr().out)["lines"] if row["line_id"] == "l1"
    )
    assert (line["status"], line["take"], line["text"]) == (
        "reused",
        result["takes"][0]["take"],
        "We never said farewell.",
    )


def test_a_take_picture_is_titled_with_the_takes_own_words_after_the_script_changed(project):
    from drama_cli.plot import take_view_figure
    from drama_cli.script.load import load_script

    path, store, fake = project
    path.write_text(SCRIPT.replace("We never said goodbye.", "We always said hello."))
    figure = take_view_figure(load_script(str(path)), store, "l1")
    assert figure._suptitle.get_text() == "l1 take 1: We never said goodbye."


def test_a_revision_lists_the_words_its_parent_says_not_the_text_sent(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at 6."])
    assert main(["render", str(path)]) == 0
    assert main(["revise", str(path), "boathouse-1", "--note", "softer"]) == 0
    capsys.readouterr()
    assert main(["takes", str(path), "--json"]) == 0
    takes = json.loads(capsys.readouterr().out)[0]["takes"]
    assert [(t["take"], t["text"]) for t in takes] == [(1, "We leave at 6."), (2, "We leave at 6.")]


PETS = two_voice_scene("Pets", ["A: Hermione has 3 cats."]).replace(
    "scenes:", "lexicon:\n  Hermione: her-MY-oh-nee\nscenes:"
)


def test_edited_words_go_through_the_lexicon_and_number_rules(tmp_path, monkeypatch, capsys):
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, PETS, "pets.yaml")
    fake.requests.clear()
    code, result, _ = edit_json(
        capsys,
        ["edit", str(path), "s1-1", "--replace", "cats", "--with", "dogs", "--span", "0.5:1.0"],
    )
    assert code == 0 and result["new_text"] == "Hermione has 3 dogs."
    take = TakeStore(tmp_path / "pets.drama").takes("s1", "s1-1")[-1]
    assert take.record.text == "<|speaker:0|> her-MY-oh-nee has three dogs."
    assert fake.requests[-1].text == take.record.text


@pytest.mark.parametrize("words", ["<*|speaker:1|>", "<`|im_end|`>"])
def test_edited_words_that_would_send_a_model_token_are_refused_before_the_engine(
    tmp_path, monkeypatch, capsys, words
):
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, PETS, "pets.yaml")
    fake.requests.clear()
    capsys.readouterr()
    assert (
        main(["edit", str(path), "s1-1", "--replace", "cats", "--with", words, "--span", "0.5:1.0"])
        == 2
    )
    err = capsys.readouterr().err
    assert "model token" in err and len(err.strip().splitlines()) == 1
    assert fake.requests == [] and len(TakeStore(tmp_path / "pets.drama").takes("s1", "s1-1")) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["revise", "s1-1", "--note", "warmer"],
        ["edit", "s1-1", "--replace", "cats", "--with", "dogs", "--span", "0.5:1.0", "--dry-run"],
    ],
)
def test_revise_and_edit_refuse_a_take_made_for_older_words_unless_kept(
    tmp_path, monkeypatch, capsys, args
):
    path, fake = render_with_edit_fake(tmp_path, monkeypatch, PETS, "pets.yaml")
    path.write_text(PETS.replace("3 cats", "4 cats"), encoding="utf-8")
    capsys.readouterr()
    command = [args[0], str(path), *args[1:]]
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"drama: line 's1-1': take 1 was made for older text ('Hermione has 3 cats.'); the "
        f"script now says 'Hermione has 4 cats.'; render the line again (drama render {path} "
        "--line s1-1), or pass --keep to work from the old take anyway"
    )
    assert main(command + ["--keep"]) == 0


def test_the_refusal_of_a_stale_take_names_a_render_command_that_runs_as_written(
    tmp_path, monkeypatch, capsys
):
    path, _ = render_with_edit_fake(tmp_path, monkeypatch, PETS, "my pets.yaml")
    path.write_text(PETS.replace("3 cats", "4 cats"), encoding="utf-8")
    capsys.readouterr()
    assert main(["revise", str(path), "s1-1", "--note", "warmer"]) == 2
    assert (
        f"render the line again (drama render '{path}' --line s1-1), or pass"
        in capsys.readouterr().err
    )


def test_revise_and_edit_read_the_cast_the_project_was_rendered_with_and_plot_asks_for_it(
    tmp_path, monkeypatch, capsys
):
    fake = FakeWithCodes()
    fake_render(monkeypatch, fake)
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: None)
    (tmp_path / "casts").mkdir()
    cast = tmp_path / "casts" / "people.yaml"
    cast.write_text("cast:\n  JACK: {}\n")
    path = tmp_path / "play.fountain"
    path.write_text("INT. FLAT - DAY\n\nJACK\nWe leave at six.\n")
    assert main(["render", str(path), "--cast", str(cast)]) == 0
    assert main(["revise", str(path), "scene-1-1", "--note", "warmer"]) == 0
    assert (
        main(
            [
                "edit",
                str(path),
                "scene-1-1",
                "--replace",
                "six",
                "--with",
                "seven",
                "--span",
                "0.2:0.6",
                "--cast",
                str(cast),
            ]
        )
        == 0
    )
    cast.unlink()
    capsys.readouterr()
    assert main(["plot", str(path), "--line", "scene-1-1", "-o", str(tmp_path / "take.png")]) == 2
    assert "pass --cast FILE" in capsys.readouterr().err
