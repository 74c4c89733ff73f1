"""The scene compiler: modes, speaker maps, references, history context, chunks."""

import shutil
from pathlib import Path

import pytest

from drama_cli.compile.conversations import LinePlan, compile_scene
from drama_cli.errors import UsageError
from drama_cli.script.load import load_script
from engine.clip import AudioClip
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
        (0, "<|speaker:0|> I am Ana."), (1, "<|speaker:1|> I am Cy.")]
    assert third.meta["line_id"] == "scene-1-3"
    assert third.references[0].clip.frames() == 44  # 2 s at 21.53 frames per second, rounded up


def test_history_context_is_first_line_and_last_lines_with_known_audio(tmp_path):
    script = script_from(tmp_path, THREE)
    takes = {"scene-1-1": AudioClip(duration_s=1.0), "scene-1-3": AudioClip(duration_s=1.5),
             "scene-1-4": AudioClip(duration_s=1.0)}
    plans = compile_scene(script, "scene-1", "history", takes=takes, clip_duration=seconds)
    assert plans[0].conversations[0].layout == "clone" and plans[0].conversations[0].context == ()
    last = plans[4].conversations[0]
    assert last.layout == "history"
    assert [e.text for e in last.context] == ["<|speaker:0|> One.", "<|speaker:1|> Three. <|speaker:0|> four.",
                                              "<|speaker:0|> Five."]
    assert set(plans[4].speakers) == {"ANA", "BEN", "CY"}
    assert [r.speaker for r in last.references] == [0, 1, 5]
    nothing = compile_scene(script, "scene-1", "history", clip_duration=seconds)
    assert all(p.conversations[0].context == () for p in nothing)
    called = compile_scene(script, "scene-1", "history", takes=lambda line: takes.get(line.id),
                           history_lines=1, clip_duration=seconds)
    assert [e.text for e in called[4].conversations[0].context] == ["<|speaker:0|> One.", "<|speaker:0|> Five."]


def test_scene_mode_one_shared_conversation_with_descriptions(tmp_path):
    script = script_from(tmp_path, THREE)
    plans = compile_scene(script, "scene-1", "scene", clip_duration=seconds)
    conversation = plans[0].conversations[0]
    assert all(p.conversations[0] is conversation for p in plans)
    assert conversation.layout == "scene" and len(conversation.lines) == 5
    assert conversation.descriptions == ((0, "The lead."),)
    assert conversation.meta["line_ids"] == [p.line.id for p in plans]


def test_missing_transcript_and_reference_give_warnings(tmp_path):
    script = script_from(tmp_path, "cast:\n  ANA: a.wav\n  BEN: {description: x}\nlines:\n  - ANA: Hi {BEN} yo.\n")
    plan = compile_scene(script, "scene-1", "clone", clip_duration=lambda p: None)[0]
    assert any("no transcript" in w for w in plan.warnings)
    assert any("BEN has no reference clip" in w for w in plan.warnings)
    assert any("missing or unreadable" in w for w in plan.warnings)
    assert plan.conversations[0].references[0].transcript is None


def test_long_line_chunks_keep_tag_and_line_directions(tmp_path):
    long = " ".join(["This sentence is here to make the line long."] * 12)
    script = script_from(tmp_path, f"cast:\n  ANA: a.wav\nlines:\n  - speaker: ANA\n    text: '[tired] {long}'\n"
                                   "    note: slowly\n")
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
