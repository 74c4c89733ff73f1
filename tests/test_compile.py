"""The scene compiler: modes, speaker maps, references, history context (and what `drama compile
--mode history` shows of it), chunks."""

import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile
from fakes import FakeBackend, fake_render, write_dedented, write_script

from drama_cli.cli import main
from drama_cli.compile.conversations import LinePlan, compile_scene
from drama_cli.errors import ScriptError, UsageError
from drama_cli.script.direction import parse_directions
from drama_cli.script.load import load_script
from drama_cli.takes.store import TakeStore
from engine.clip import AudioClip
from engine.constants import FRAMES_PER_SECOND
from engine.prompt import segments

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts_examples"


def script_from(tmp_path, text, name="p.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return load_script(path)


THREE = """\
cast:
  ANA: {voice: a.wav, transcript: I am Ana., description: The lead.}
  BEN: {voice: b.wav, transcript: I am Ben., speaker: 5}
  CY: {voice: c.wav, transcript: I am Cy.}
lines:
  - ANA: One.
  - BEN: Two.
  - CY: Three {ANA} four.
  - ANA: Five.
  - BEN: Six.
"""


def seconds(path):
    return 2.0


def test_clone_mode_one_conversation_per_line_with_its_voices(tmp_path):
    script = script_from(tmp_path, THREE)
    plans = compile_scene(script, "scene-1", "clone", clip_duration=seconds)
    assert all(isinstance(p, LinePlan) for p in plans)
    assert [p.line.id for p in plans] == [f"scene-1-{n}" for n in range(1, 6)]
    assert plans[0].speakers == {"ANA": 0}
    assert plans[1].speakers == {"BEN": 5}
    third = plans[2].conversations[0]
    assert third.layout == "clone" and third.text == "<|speaker:1|> Three. <|speaker:0|> four."
    assert [(r.speaker, r.transcript) for r in third.references] == [
        (0, "<|speaker:0|> I am Ana."),
        (1, "<|speaker:1|> I am Cy."),
    ]
    assert third.meta["line_id"] == "scene-1-3"
    assert third.references[0].clip.frames() == 44  # 2 s at 21.53 frames per second, rounded up


def test_history_context_is_first_line_and_last_lines_with_known_audio(tmp_path):
    script = script_from(tmp_path, THREE)
    takes = {
        "scene-1-1": AudioClip(duration_s=1.0),
        "scene-1-3": AudioClip(duration_s=1.5),
        "scene-1-4": AudioClip(duration_s=1.0),
    }
    plans = compile_scene(script, "scene-1", "history", takes=takes, clip_duration=seconds)
    assert plans[0].conversations[0].layout == "clone" and plans[0].conversations[0].context == ()
    last = plans[4].conversations[0]
    assert last.layout == "history"
    assert [e.text for e in last.context] == [
        "<|speaker:0|> One.",
        "<|speaker:1|> Three. <|speaker:0|> four.",
        "<|speaker:0|> Five.",
    ]
    assert set(plans[4].speakers) == {"ANA", "BEN", "CY"}
    assert [r.speaker for r in last.references] == [0, 1, 5]
    nothing = compile_scene(script, "scene-1", "history", clip_duration=seconds)
    assert all(p.conversations[0].context == () for p in nothing)
    called = compile_scene(
        script,
        "scene-1",
        "history",
        takes=lambda line: takes.get(line.id),
        history_lines=1,
        clip_duration=seconds,
    )
    assert [e.text for e in called[4].conversations[0].context] == [
        "<|speaker:0|> One.",
        "<|speaker:0|> Five.",
    ]


def test_scene_mode_one_shared_conversation_with_descriptions(tmp_path):
    script = script_from(tmp_path, THREE)
    plans = compile_scene(script, "scene-1", "scene", clip_duration=seconds)
    conversation = plans[0].conversations[0]
    assert all(p.conversations[0] is conversation for p in plans)
    assert conversation.layout == "scene" and len(conversation.lines) == 5
    assert conversation.descriptions == ((0, "The lead."),)
    assert conversation.meta["line_ids"] == [p.line.id for p in plans]


def test_missing_transcript_and_reference_give_warnings(tmp_path):
    script = script_from(
        tmp_path, "cast:\n  ANA: a.wav\n  BEN: {description: x}\nlines:\n  - ANA: Hi {BEN} yo.\n"
    )
    plan = compile_scene(script, "scene-1", "clone", clip_duration=lambda p: None)[0]
    assert any("no transcript" in w for w in plan.warnings)
    assert any("BEN has no reference clip" in w for w in plan.warnings)
    assert any("missing or unreadable" in w for w in plan.warnings)
    assert plan.conversations[0].references[0].transcript is None


def test_long_line_chunks_keep_tag_and_line_directions(tmp_path):
    long = " ".join(["This sentence is here to make the line long."] * 12)
    script = script_from(
        tmp_path,
        f"cast:\n  ANA: a.wav\nlines:\n  - speaker: ANA\n    text: '[tired] {long}'\n"
        "    note: slowly\n",
    )
    plan = compile_scene(script, "scene-1", "clone", max_chars=150, clip_duration=seconds)[0]
    assert len(plan.chunks) >= 3 and len(plan.conversations) == len(plan.chunks)
    assert all(c.startswith("<|speaker:0|> [slowly] [tired] This sentence") for c in plan.chunks)
    assert [c.meta["chunk"] for c in plan.conversations] == list(range(len(plan.chunks)))


def test_unknown_mode_and_scene_are_refused(tmp_path):
    script = script_from(tmp_path, THREE)
    with pytest.raises(UsageError, match="unknown mode"):
        compile_scene(script, "scene-1", "karaoke")
    with pytest.raises(KeyError):
        compile_scene(script, "nope", "clone")


@pytest.mark.parametrize("name", ["earnest.fountain", "cigarette-case.yaml", "chapter.yaml"])
def test_examples_compile_in_every_mode_and_the_engine_accepts_the_layouts(tmp_path, name):
    if not EXAMPLES.is_dir():
        pytest.skip("scripts_examples/ not found")
    for path in EXAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    script = load_script(tmp_path / name)
    for scene in script.scenes:
        for mode in ("clone", "history", "scene"):
            takes = lambda line: AudioClip(duration_s=2.0)  # noqa: E731
            for plan in compile_scene(script, scene, mode, takes=takes, clip_duration=seconds):
                for conversation in plan.conversations:
                    parts = segments(conversation)
                    assert parts[0] == "<|im_start|>system\n"
                    text = "".join(p for p in parts if isinstance(p, str))
                    assert "<|speaker:16|>" not in text


TEXTS = ["We leave at six.", "Not without the oars.", "Then find the oars.", "Fine."]


def compile_json(capsys, args):
    capsys.readouterr()
    assert main(["compile", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_history_without_a_project_says_why_there_is_no_context(tmp_path, capsys):
    path = write_script(tmp_path, TEXTS)
    report = compile_json(capsys, [str(path), "--mode", "history"])
    first, second = report["lines"][:2]
    assert (
        first["context"] == []
        and first["context_note"] == "the scene's first line: nothing before it"
    )
    assert second["context"] == [] and second["context_note"].startswith(
        f"no rendered project at {tmp_path / 'scene.drama'}"
    )
    assert report["totals"]["context_rows"] == 0
    capsys.readouterr()
    assert main(["compile", str(path), "--mode", "history"]) == 0
    out = capsys.readouterr().out
    assert "  context: none (no rendered project at" in out


def test_history_after_a_render_shows_the_context_rows_and_counts_them(
    tmp_path, monkeypatch, capsys
):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, TEXTS)
    assert main(["render", str(path)]) == 0
    store = TakeStore(tmp_path / "scene.drama")
    rows = {
        i: math.ceil(
            store.selected_take("boathouse", f"boathouse-{i}").duration_s * FRAMES_PER_SECOND
        )
        for i in (1, 2, 3)
    }
    clone = compile_json(capsys, [str(path), "--mode", "clone"])
    report = compile_json(capsys, [str(path), "--mode", "history"])
    line4 = report["lines"][3]
    assert line4["context"] == [
        {"line": "boathouse-1", "rows": rows[1]},
        {"line": "boathouse-2", "rows": rows[2]},
        {"line": "boathouse-3", "rows": rows[3]},
    ]
    assert line4["context_rows"] == rows[1] + rows[2] + rows[3]
    assert line4["conversations"][0]["layout"] == "history"
    assert line4["total_rows"] == clone["lines"][3]["total_rows"] + line4["context_rows"]
    assert report["lines"][1]["context"] == [{"line": "boathouse-1", "rows": rows[1]}]
    expected_context = rows[1] + (rows[1] + rows[2]) + (rows[1] + rows[2] + rows[3])
    assert report["totals"]["context_rows"] == expected_context
    assert report["totals"]["rows"] == clone["totals"]["rows"] + expected_context
    capsys.readouterr()
    assert main(["compile", str(path), "--mode", "history"]) == 0
    out = capsys.readouterr().out
    assert (
        f"  context: boathouse-1 ({rows[1]} rows), boathouse-2 ({rows[2]} rows), "
        f"boathouse-3 ({rows[3]} rows)"
    ) in out
    assert f"of them {expected_context} context rows from earlier takes" in out.splitlines()[-1]


def clip(path, seconds):
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(path, np.zeros(int(44100 * seconds), np.float32), 44100)


@pytest.mark.case("B1")
def test_B1_reference_transcript_is_never_the_line(tmp_path):
    clip(tmp_path / "refs" / "kai.wav", 4.0)
    clip(tmp_path / "refs" / "uma.wav", 3.0)
    kai_text = "The harbour lights were already on when we arrived."
    (tmp_path / "refs" / "kai.txt").write_text(kai_text)
    path = write_dedented(
        tmp_path,
        "b1.yaml",
        """\
        cast:
          UMA: refs/uma.wav
          KAI: refs/kai.wav
        lines:
          - UMA: Tell me where you hid it.
          - KAI: Under the third stair.
        """,
    )
    script = load_script(path)
    for mode in ("clone", "history"):
        uma, kai = compile_scene(script, script.scenes[0], mode)
        kai_refs = [r for r in kai.conversations[0].references if r.speaker == kai.speakers["KAI"]]
        assert [r.transcript for r in kai_refs] == [f"<|speaker:{kai.speakers['KAI']}|> {kai_text}"]
        assert [r.transcript for r in uma.conversations[0].references] == [None]
        assert any("no transcript" in w for w in uma.warnings)
        for plan in (uma, kai):
            own = plan.line.text
            for reference in plan.conversations[0].references:
                assert reference.transcript is None or own not in reference.transcript
        assert kai_refs[0].clip.frames() == 87  # 4 s at 44,100/2048 frames per second, rounded up


@pytest.mark.case("B2")
def test_B2_speaker_tokens_syntax_order_and_range(tmp_path):
    path = write_dedented(
        tmp_path,
        "b2.yaml",
        """\
        cast: {ANA: a.wav, BEN: b.wav, CY: c.wav}
        lines:
          - ANA: One.
          - BEN: Two.
          - ANA: Three.
          - CY: Four.
        """,
    )
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "scene", clip_duration=lambda p: 2.0)
    conversation = plans[0].conversations[0]
    assert all(p.conversations[0] is conversation for p in plans)
    joined = " ".join(conversation.lines)
    tags = re.findall(r"<\|speaker:\d+\|>", joined)
    assert tags == ["<|speaker:0|>", "<|speaker:1|>", "<|speaker:0|>", "<|speaker:2|>"]
    assert [r.speaker for r in conversation.references] == [0, 1, 2]
    assert [r.clip.path.rsplit("/", 1)[-1] for r in conversation.references] == [
        "a.wav",
        "b.wav",
        "c.wav",
    ]

    with pytest.raises(ScriptError, match="not a speaker switch"):
        parse_directions("I said <speaker:1> twice")

    names = [f"P{i:02d}" for i in range(17)]
    crowd = write_dedented(
        tmp_path,
        "crowd.yaml",
        "cast:\n"
        + "".join(f"  {n}: {n}.wav\n" for n in names)
        + "lines:\n"
        + "".join(f"  - {n}: Line {n}.\n" for n in names),
    )
    script = load_script(crowd)
    for mode in ("scene", "clone"):
        plans = compile_scene(script, script.scenes[0], mode, clip_duration=lambda p: 2.0)
        conversations = list({id(c): c for p in plans for c in p.conversations}.values())
        if mode == "scene":
            assert len(conversations) >= 2
        for conversation in conversations:
            text = " ".join([conversation.text, *conversation.lines])
            indices = {int(k) for k in re.findall(r"<\|speaker:(\d+)\|>", text)}
            assert "<|speaker:16|>" not in text and len(indices) <= 16 and max(indices) <= 15
            assert all(r.speaker <= 15 for r in conversation.references)


def test_compile_warns_of_a_reference_clip_render_would_refuse_as_too_long(tmp_path):
    soundfile.write(tmp_path / "long.wav", np.zeros(44_100 * 61, np.float32) + 0.01, 44_100)
    path = tmp_path / "play.yaml"
    path.write_text('cast:\n  A: {voice: long.wav, transcript: "Hi."}\nlines:\n  - A: Hello.\n')
    script = load_script(str(path))
    (plan,) = compile_scene(script, script.scenes[0], "clone")
    assert (
        "reference long.wav of A is 61.0 s long: render refuses clips over 60 s "
        "(trim it to a shorter excerpt)" in plan.warnings
    )
