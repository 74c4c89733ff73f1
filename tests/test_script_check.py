"""`drama check` / `drama compile` on the problems a new user hits: empty scoped tags, cue-only
lines, bad chunk caps, reference clips, several errors at once, pauses and mix options; every
problem located at its line and column, in text and in JSON."""

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile
from fakes import fountain_play

from drama_cli import cli
from drama_cli.cli import main
from drama_cli.compile.chunking import MIN_MAX_CHARS, split_text
from drama_cli.compile.conversations import compile_scene
from drama_cli.errors import ScriptError
from drama_cli.script.load import load_script


@pytest.fixture
def drama():
    """The `drama` command line."""
    return cli.main


def write(tmp_path: Path, text: str, name: str = "play.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def tone(path: Path, seconds: float, amplitude: float = 0.1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(seconds * 8000)) / 8000
    soundfile.write(path, (amplitude * np.sin(2 * np.pi * 220 * t)).astype(np.float32), 8000)


CAST = "cast:\n  A: {}\n  B: {}\n"


def test_empty_scoped_tag_is_an_error_at_its_column(drama, tmp_path, capsys):
    path = write(
        tmp_path, CAST + 'lines:\n  - A: Hi.\n  - speaker: B\n    text: "<whisper></whisper>"\n'
    )
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:7:12: scoped tag <whisper> has nothing inside" in err


def test_nested_empty_scoped_tag_is_refused_but_a_cue_inside_is_fine(tmp_path):
    with pytest.raises(ScriptError, match="<soft> has nothing inside") as info:
        load_script(write(tmp_path, CAST + 'lines:\n  - A: "<angry>Out! <soft> </soft></angry>"\n'))
    assert (info.value.position.line, info.value.position.column) == (5, 21)
    script = load_script(write(tmp_path, CAST + 'lines:\n  - A: "<whisper>[sighs]</whisper>"\n'))
    assert [s.kind for s in script.lines()[0].spans] == [
        "open",
        "tag",
        "close",
    ]  # an event, voiced once


def test_cue_only_lines_check_and_compile_to_a_real_prompt(drama, tmp_path, capsys):
    path = write(
        tmp_path,
        CAST + 'lines:\n  - A: [sighs]\n  - speaker: B\n    text: "[sighs]"\n'
        '    note: tired\n  - B: "[laughs] {A} Hello"\n',
    )
    assert drama(["check", str(path)]) == 0
    script = load_script(path)
    plans = compile_scene(script, "scene-1", "clone")
    assert [p.chunks for p in plans] == [
        ["<|speaker:0|> [sighs]"],
        ["<|speaker:1|> [tired] [sighs]"],
        ["<|speaker:1|> [laughs] <|speaker:0|> Hello."],
    ]
    assert all(p.conversations[0].text == p.chunks[0] for p in plans)
    capsys.readouterr()
    assert drama(["compile", str(path), "--mode", "clone"]) == 0
    out = capsys.readouterr().out
    assert "prompt 0 rows" not in out and '"<|speaker:0|> [sighs]"' in out


@pytest.mark.parametrize("cap", ["0", "-5", "39"])
def test_compile_refuses_a_chunk_cap_below_the_minimum(drama, tmp_path, capsys, cap):
    path = write(tmp_path, CAST + "lines:\n  - A: Hello there.\n")
    assert drama(["compile", str(path), "--max-chars", cap]) == 2
    assert f"--max-chars must be at least {MIN_MAX_CHARS}" in capsys.readouterr().err


@pytest.mark.parametrize("cap", [0, -1, 39])
def test_split_text_raises_on_a_cap_below_the_minimum(cap):
    with pytest.raises(ValueError, match="below the minimum"):
        split_text("<|speaker:0|> " + "word " * 50, max_chars=cap)
    assert len(split_text("<|speaker:0|> " + "word " * 50, max_chars=MIN_MAX_CHARS)) == 7


def clip_script(tmp_path: Path, clip: str) -> Path:
    return write(
        tmp_path, f"cast:\n  A:\n    voice: {clip}\n    transcript: Hello.\nlines:\n  - A: Hi.\n"
    )


def test_reference_over_sixty_seconds_is_an_error_at_the_clip(drama, tmp_path, capsys):
    tone(tmp_path / "refs" / "long.wav", 61.0)
    path = clip_script(tmp_path, "refs/long.wav")
    assert drama(["check", str(path)]) == 2
    assert (
        f"{path}:3:12: reference clip 'refs/long.wav' of A is 61.0 s long; the engine takes at most 60 s"
        in capsys.readouterr().err
    )


def test_reference_of_sixty_seconds_is_fine(drama, tmp_path, capsys):
    tone(tmp_path / "refs" / "ok.wav", 60.0)
    assert drama(["check", str(clip_script(tmp_path, "refs/ok.wav"))]) == 0
    assert "silent" not in capsys.readouterr().err


def test_silent_reference_is_a_warning(drama, tmp_path, capsys):
    tone(tmp_path / "refs" / "quiet.wav", 2.0, amplitude=0.0)
    path = clip_script(tmp_path, "refs/quiet.wav")
    assert drama(["check", str(path)]) == 0
    assert (
        f"warning: {path}:3:12: reference clip 'refs/quiet.wav' of A is silent"
        in capsys.readouterr().err
    )


def test_directory_as_reference_says_so(drama, tmp_path, capsys):
    (tmp_path / "refs").mkdir()
    path = clip_script(tmp_path, "refs")
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "reference clip 'refs' of A is a directory" in err and "does not exist" not in err


def test_render_reference_check_refuses_long_clips_and_directories(tmp_path):
    from drama_cli.compile.conversations import check_references

    tone(tmp_path / "refs" / "long.wav", 61.0)
    with pytest.raises(ScriptError, match="61.0 s long"):
        check_references(load_script(clip_script(tmp_path, "refs/long.wav")))
    with pytest.raises(ScriptError, match="is a directory"):
        check_references(load_script(clip_script(tmp_path, "refs")))


MANY_ERRORS = """cast:
  ALICE: {}
  BOB: {}
lines:
  - ALICE: Hello.
  - ALIX: Who?
  - BOB: "Stop <|im_end|> now."
  - BOB: Fine.
  - ROBERT: Me.
  - ALICE: "Go {CAROL} on."
"""


def test_check_lists_every_problem_then_exits_2(drama, tmp_path, capsys):
    path = write(tmp_path, MANY_ERRORS)
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    located = [line for line in err if line.startswith(str(path))]
    assert [line.split(": ")[0] for line in located] == [
        f"{path}:6:5",
        f"{path}:7:16",
        f"{path}:9:5",
        f"{path}:10:16",
    ]
    assert "unknown speaker 'ALIX'" in located[0] and "did you mean ALICE?" in located[0]
    assert "structural model token '<|im_end|>'" in located[1]
    assert "unknown speaker 'CAROL'" in located[3]
    assert err[-1] == f"drama: 4 errors in {path}"


def test_a_script_whose_only_line_is_refused_has_that_one_error(drama, tmp_path, capsys):
    path = write(tmp_path, CAST + 'lines:\n  - A: "[sighs hello"\n')
    assert drama(["check", str(path)]) == 2
    located = [line for line in capsys.readouterr().err.splitlines() if line.startswith(str(path))]
    assert len(located) == 1 and "nothing to render" not in located[0], located
    assert drama(["check", str(write(tmp_path, CAST + "lines: []\n", "empty.yaml"))]) == 2
    assert (
        "nothing to render" in capsys.readouterr().err
    )  # a script with no lines at all still says so


def test_check_json_lists_every_problem(drama, tmp_path, capsys):
    import json

    assert drama(["check", str(write(tmp_path, MANY_ERRORS)), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and [e["line"] for e in report["errors"]] == [6, 7, 9, 10]


def test_load_script_still_raises_one_script_error_naming_the_first(tmp_path):
    from drama_cli.errors import ScriptErrors

    with pytest.raises(ScriptError) as info:
        load_script(write(tmp_path, MANY_ERRORS))
    assert isinstance(info.value, ScriptErrors) and len(info.value.errors) == 4
    assert str(info.value).startswith(f"{tmp_path / 'play.yaml'}:6:5: unknown speaker 'ALIX'")
    assert "and 3 more problems" in str(info.value)


def test_fountain_check_lists_every_unknown_cue(drama, tmp_path, capsys):
    write(tmp_path, "cast:\n  ALICE: {}\n", "play.cast.yaml")
    path = write(
        tmp_path,
        "INT. ROOM - DAY\n\nALIX\nHello.\n\nALICE\nHi <|speaker:3|> there.\n\nBOBBY\nYo.\n",
        "play.fountain",
    )
    assert drama(["check", str(path)]) == 2
    located = [
        line.split(": ")[0]
        for line in capsys.readouterr().err.splitlines()
        if line.startswith(str(path))
    ]
    assert located == [f"{path}:3:1", f"{path}:7:4", f"{path}:9:1"]  # unknown cues at the cue


@pytest.mark.parametrize(
    "value, seconds",
    [("-0.5", -0.5), ("-500ms", -0.5), ("-10", -10.0), ("60", 60.0), ("0.25s", 0.25)],
)
def test_pause_after_accepts_negative_overlaps_down_to_minus_ten(tmp_path, value, seconds):
    script = load_script(
        write(tmp_path, CAST + f"lines:\n  - speaker: A\n    text: Hi.\n    pause_after: {value}\n")
    )
    assert script.lines()[0].pause_after_s == seconds


@pytest.mark.parametrize("value", ["99999", "60.5", "-10.5", "-"])
def test_pause_after_outside_the_range_is_a_located_error(tmp_path, value):
    with pytest.raises(ScriptError) as info:
        load_script(
            write(
                tmp_path,
                CAST + f'lines:\n  - speaker: A\n    text: Hi.\n    pause_after: "{value}"\n',
            )
        )
    assert (info.value.position.line, info.value.position.column) == (7, 18)
    assert "pause_after must be" in info.value.message


MIX_SCRIPT = """title: Mixed
room_tone: noise
room_tone_db: -60
gap: 0.8
cast:
  A: {}
scenes:
  - id: one
    room_tone: tone.wav
    head: 1
    tail: 500ms
    lines:
      - A: Hi.
  - id: two
    lines:
      - A: Bye.
"""


def test_mix_options_at_script_and_scene_level(tmp_path):
    from drama_cli.script.mix_settings import MixSettings

    tone(tmp_path / "tone.wav", 1.0, 0.001)
    script = load_script(write(tmp_path, MIX_SCRIPT))
    assert script.mix == MixSettings(
        room_tone="noise",
        room_tone_db=-60.0,
        gap_s=0.8,
        room_tone_position=script.mix.room_tone_position,
    )
    assert (script.mix.room_tone_position.line, script.mix.room_tone_position.column) == (2, 12)
    one, two = script.scenes
    assert (
        one.mix.room_tone,
        one.mix.room_tone_db,
        one.mix.gap_s,
        one.mix.head_s,
        one.mix.tail_s,
    ) == ("tone.wav", None, None, 1.0, 0.5)
    assert two.mix is None
    merged = script.mix_for(one)
    assert (merged.room_tone, merged.room_tone_db, merged.gap_s, merged.head_s, merged.tail_s) == (
        "tone.wav",
        -60.0,
        0.8,
        1.0,
        0.5,
    )
    assert script.mix_for(two) is script.mix


def test_script_without_mix_options_has_none(tmp_path):
    script = load_script(write(tmp_path, CAST + "lines:\n  - A: Hi.\n"))
    assert (
        script.mix is None
        and script.scenes[0].mix is None
        and script.mix_for(script.scenes[0]) is None
    )


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("room_tone_db", "6", "room_tone_db must be between -120 and 0"),
        ("room_tone_db", "loud", "room_tone_db must be a number"),
        ("gap", "-1", "gap must be between 0 and 60"),
        ("head", "2 minutes", "head must be a duration"),
        ("tail", "61", "tail must be between 0 and 60"),
        ("room_tone", '""', "room_tone is empty"),
    ],
)
def test_bad_mix_options_are_located_errors(tmp_path, key, value, message):
    with pytest.raises(ScriptError, match=message) as info:
        load_script(write(tmp_path, f"{key}: {value}\n" + CAST + "lines:\n  - A: Hi.\n"))
    assert (info.value.position.line, info.value.position.column) == (1, len(key) + 3)


def test_check_refuses_a_missing_room_tone_clip_at_its_key(drama, tmp_path, capsys):
    path = write(tmp_path, MIX_SCRIPT)
    assert drama(["check", str(path)]) == 2
    assert f"{path}:9:16: room tone 'tone.wav' does not exist" in capsys.readouterr().err
    tone(tmp_path / "tone.wav", 90.0, 0.001)  # room tone loops: any length is fine
    assert drama(["check", str(path)]) == 0


def test_unknown_fountain_cue_is_reported_at_the_cue(tmp_path, capsys):
    path = fountain_play(tmp_path, "INT. FLAT - DAY\n\n  ALGERNOM\nDid you hear?\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:3: unknown speaker 'ALGERNOM'" in err


def test_unknown_switch_is_reported_at_its_column(tmp_path, capsys):
    path = fountain_play(tmp_path, "INT. FLAT - DAY\n\nALGERNON\nDid you hear? {NOBODY} said he.\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:4:15: unknown speaker 'NOBODY'" in err


def test_unknown_yaml_switch_is_reported_at_its_column(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text("cast:\n  A: a.wav\nlines:\n  - A: Hello {NOBODY} there.\n")
    assert main(["check", str(path)]) == 2
    assert f"{path}:4:14: unknown speaker 'NOBODY'" in capsys.readouterr().err


def test_check_json_failure_has_the_exit_code(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("cast:\n  A: a.wav\nlines:\n  - B: hi\n")
    assert main(["check", str(path), "--json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["exit_code"] == 2
    assert [(e["line"], e["column"]) for e in report["errors"]] == [
        (2, 6),
        (4, 5),
    ]  # the clip, then B


def test_check_json_warnings_are_located_like_errors(tmp_path, capsys):
    path = fountain_play(tmp_path, "INT. FLAT - DAY\n\nALGERNON\nHello.\nJACK\nHi.\n")
    assert main(["check", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["exit_code"] == 0
    cue_like = [w for w in report["warnings"] if "'JACK'" in w["message"]]
    assert cue_like == [
        {
            "message": cue_like[0]["message"],
            "file": str(path),
            "line": 5,
            "column": 1,
            "position": f"{path}:5:1",
        }
    ]


BAD_CAST_AND_LINES = """cast:
  A: {{voice: refs/a.wav{index}}}
  B: refs/missing.wav
lines:
  - Z: hi
  - A: "<|im_end|> and <whisper></whisper>"
"""


def _bad_script(tmp_path, index=""):
    import numpy as np
    import soundfile as sf

    (tmp_path / "refs").mkdir()
    sf.write(tmp_path / "refs" / "a.wav", 0.1 * np.sin(np.arange(44_100) / 10.0), 44_100)
    path = tmp_path / "play.yaml"
    path.write_text(BAD_CAST_AND_LINES.format(index=index))
    return path


@pytest.mark.parametrize("index", [", speaker: 99", ""])
def test_check_lists_cast_clip_and_every_tag_problem(tmp_path, capsys, index):
    path = _bad_script(tmp_path, index)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    expected = ([f"{path}:2:35: speaker index must be 0..15, got 99"] if index else []) + [
        f"{path}:3:6: reference clip 'refs/missing.wav' of B does not exist",
        f"{path}:5:5: unknown speaker 'Z'",
        f"{path}:6:9: structural model token '<|im_end|>' is not allowed in script text",
        f"{path}:6:24: scoped tag <whisper> has nothing inside",
    ]
    assert [line.split(" (")[0] for line in err[:-1]] == expected
    assert err[-1] == f"drama: {len(expected)} errors in {path}"


def test_render_of_a_bad_script_says_how_many_more_check_lists(tmp_path, capsys):
    path = _bad_script(tmp_path, ", speaker: 99")
    assert main(["render", str(path), "--engine", "scratch"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"drama: {path}:2:35: speaker index must be 0..15, got 99 (and 4 more problems: `drama check` "
        f"lists them all)"
    )
    path.write_text(
        "cast:\n  A: refs/a.wav\n  B: refs/missing.wav\n  C: refs/missing2.wav\nlines:\n"
        "  - A: hi\n  - B: x\n  - C: y\n"
    )
    assert main(["render", str(path), "--engine", "scratch"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .splitlines()[-1]
        .endswith("; and 1 more problem: `drama check` lists them all)")
    )


def test_a_reference_clip_shorter_than_one_codec_frame_is_an_error_giving_the_minimum(
    tmp_path, drama, capsys
):
    import soundfile as sf

    sf.write(tmp_path / "a.wav", np.full(10, 0.1, np.float32), 44_100)
    path = write(
        tmp_path,
        "cast:\n  A:\n    voice: a.wav\n    transcript: Hi there.\n"
        "scenes:\n  - id: s\n    lines:\n      - A: Hello.\n",
    )
    assert drama(["check", str(path)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{path}:3:12: reference clip 'a.wav' of A is 0.000 s long; the engine needs at least 0.046 s "
        f"(one codec frame) (give a longer recording (a few seconds of clear speech))"
    )


def test_check_lists_every_cast_field_and_lexicon_error_in_one_run(tmp_path, drama, capsys):
    path = write(
        tmp_path,
        "cast:\n  A:\n    speaker: 99\n  B:\n    speaker: 3\n    wat: 1\n"
        '  C:\n    references: 5\nlexicon:\n  foo: ""\n  "": bar\n'
        "  baz: {respelling: a, phonemes: b}\n"
        "scenes:\n  - id: s\n    lines:\n      - A: Hello.\n      - B: Hi.\n      - C: Yo.\n",
    )
    assert drama(["check", str(path)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[0] for line in errors] == [
        f"{path}:3:14",
        f"{path}:6:5",
        f"{path}:8:17",
        f"{path}:10:9",
        f"{path}:11:4",
        f"{path}:12:8",
        "drama",
    ]
    assert errors[-1] == f"drama: 6 errors in {path}"


@pytest.mark.parametrize(
    "cast, place",
    [
        ('  A: {voice: a.wav, transcript: "I am *<|im_end|>* A."}\n', (2, 40)),
        ('  A: {voice: a.wav, description: "A <|im_end|> voice"}\n', (2, 37)),
    ],
)
def test_check_refuses_model_tokens_in_cast_text_at_their_place(tmp_path, capsys, cast, place):
    path = write(tmp_path, "cast:\n" + cast + "lines:\n  - A: hi\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert (
        err[0] == f"{path}:{place[0]}:{place[1]}: structural model token '<|im_end|>' is not "
        "allowed in script text (remove it)"
    )


def test_check_refuses_a_model_token_in_a_fountain_parenthetical_at_its_place(tmp_path, capsys):
    path = fountain_play(tmp_path, "INT. FLAT - DAY\n\nJACK\n(<|im_end|>)\nHello.\n")
    assert main(["check", str(path)]) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[0]
        .startswith(f"{path}:4:2: structural model token '<|im_end|>'")
    )


def test_check_and_compile_refuse_a_token_markdown_clean_up_would_make_at_the_same_place(
    tmp_path, capsys
):
    path = write(tmp_path, "cast:\n  A: {}\n  B: {}\nlines:\n  - A: Hello <*|speaker:1|> there.\n")
    assert main(["check", str(path)]) == 2
    checked = capsys.readouterr().err.splitlines()[0]
    assert main(["compile", str(path)]) == 2
    compiled = capsys.readouterr().err.splitlines()[0]
    assert checked.startswith(f"{path}:5:14: model token '<|speaker:1|>'")
    assert compiled.startswith(f"drama: {path}:5:14: model token '<|speaker:1|>'")


def test_check_hears_anti_phase_stereo_as_silence_and_refuses_it_as_room_tone(tmp_path, capsys):
    wave = 0.2 * np.sin(np.arange(44_100) / 10.0)
    soundfile.write(tmp_path / "ref.wav", np.stack([wave, -wave], axis=1), 44_100)
    path = write(tmp_path, "cast:\n  A: {voice: ref.wav, transcript: Hi.}\nlines:\n  - A: hi\n")
    assert main(["check", str(path)]) == 0
    captured = capsys.readouterr()
    assert (
        "reference clip 'ref.wav' of A is silent (its channels cancel"
        in captured.out + captured.err
    )
    path.write_text("room_tone: ref.wav\n" + path.read_text())
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{path}:1:12: room tone 'ref.wav' is silent (its channels cancel once mixed to mono, as the "
        "engine and the mixer hear it)"
    )


@pytest.mark.parametrize(
    "cover, message",
    [
        ("missing.png", "cover image 'missing.png' not found"),
        ("notes.txt", "cover image 'notes.txt' is not a JPEG or PNG file"),
    ],
)
def test_check_refuses_the_cover_book_would_refuse(tmp_path, capsys, cover, message):
    (tmp_path / "notes.txt").write_text("not an image")
    path = write(
        tmp_path,
        f"narrator: A\nbook:\n  cover: {cover}\ncast:\n  A: {{}}\nchapters:\n"
        "  - title: One\n    scenes:\n      - lines:\n          - A: hi\n",
    )
    assert main(["check", str(path)]) == 2
    assert capsys.readouterr().err.splitlines()[0].startswith(f"{path}:3:3: {message}")


def test_check_warns_of_a_pause_long_enough_to_fail_the_acx_rms_rule(tmp_path, capsys):
    path = write(
        tmp_path,
        "narrator: A\nbook:\n  title: T\ncast:\n  A: {}\nchapters:\n  - title: One\n"
        "    scenes:\n      - lines:\n          - {speaker: A, text: hi, pause_after: 60}\n"
        "          - A: there\n",
    )
    assert main(["check", str(path)]) == 0
    captured = capsys.readouterr()
    assert "pause_after 60 s is a long silence for an audiobook" in captured.err


def test_an_unknown_cue_split_by_a_parenthetical_is_listed_once(tmp_path, capsys):
    path = fountain_play(
        tmp_path,
        "INT. HALL - DAY\n\nHOLMES\nCome in.\n(beat)\nSit down.\n\nWATSON\nThanks.\n",
        cast="cast:\n  WATSON: {}\n",
    )
    assert main(["check", str(path)]) == 2
    errors = [row for row in capsys.readouterr().err.splitlines() if "unknown speaker" in row]
    assert errors == [
        f"{path}:3:1: unknown speaker 'HOLMES' (add the name to the cast or as an alias)"
    ]


def test_a_scoped_tag_written_with_a_space_inside_is_warned_about(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    row = '  - ANA: "Hi <whisper >there</whisper > and a < b > c."'
    path.write_text(f"cast:\n  ANA: {{}}\nlines:\n{row}\n")
    assert main(["check", str(path)]) == 0
    warned = [w for w in capsys.readouterr().err.splitlines() if "space inside" in w]
    assert warned == [
        f"warning: {path}:4:{row.index('<whisper >') + 1}: line scene-1-1: '<whisper >' has a space inside, so it is "
        "sent as text, not as a tag (write <whisper>)",
        f"warning: {path}:4:{row.index('</whisper >') + 1}: line scene-1-1: '</whisper >' has a space inside, so it "
        "is sent as text, not as a tag (write </whisper>)",
    ]


def test_names_match_whatever_unicode_form_the_cast_and_the_lines_write_them_in(tmp_path, capsys):
    import unicodedata

    nfc, nfd = (
        (lambda text: unicodedata.normalize("NFC", text)),
        (lambda text: unicodedata.normalize("NFD", text)),
    )
    path = write(
        tmp_path,
        f"cast:\n  {nfc('Zoë')}: {{aliases: [{nfd('Léa')}]}}\n  {nfd('Björn')}: {{}}\n"
        f"lines:\n  - {nfd('Zoë')}: Hi {{{nfc('Björn')}}} there.\n  - {nfc('Léa')}: Again.\n"
        f"  - {nfc('Björn')}: Yes.\n",
    )
    script = load_script(path)
    assert [line.speaker for line in script.lines()] == [nfc("Zoë"), nfc("Zoë"), nfd("Björn")]
    assert [span.value for span in script.lines()[0].spans if span.kind == "switch"] == [
        nfd("Björn")
    ]
    fountain = fountain_play(
        tmp_path, f"INT. ROOM\n\n{nfd('ZOË')}\nHi.\n", cast=f"cast:\n  {nfc('Zoë')}: {{}}\n"
    )
    assert [line.speaker for line in load_script(fountain).lines()] == [nfc("Zoë")]


def test_check_gives_no_missing_clip_warning_for_a_designed_voice(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text(
        'cast:\n  CAPTAIN: {design: "a gruff old voice"}\n  MATE: {}\nlines:\n'
        "  - CAPTAIN: Hello.\n  - MATE: Aye.\n",
        encoding="utf-8",
    )
    assert main(["check", str(path)]) == 0
    err = capsys.readouterr().err
    assert "CAPTAIN has no reference clip" not in err and "MATE has no reference clip" in err
