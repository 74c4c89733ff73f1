"""The layout registry: every record is complete and usable, unknown names are an EngineError,
and a new layout is one record."""

import dataclasses

import pytest

import engine.layouts
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.layouts import (
    BASE_TOKENS,
    LAYOUTS,
    STRINGS,
    STRUCTURAL_TOKENS,
    Layout,
    get_layout,
    with_speaker_tag,
)
from engine.prompt import build_prompt, extra_samplable_ids, segments
from engine.tokenizer import Drama3Tokenizer, build_tiny_tokenizer


@pytest.fixture(scope="module")
def offline():
    """The offline vocabulary from the user cache, as the tool uses it (built there once)."""
    return Drama3Tokenizer.offline()


@pytest.fixture(scope="module")
def tiny():
    return Drama3Tokenizer(build_tiny_tokenizer())


def test_every_layout_has_a_name_a_version_and_a_body():
    assert list(LAYOUTS) == ["clone", "history", "revise", "scene", "infill", "stream"]
    for name, layout in LAYOUTS.items():
        assert layout.name == name
        assert isinstance(layout.version, str) and layout.version
        assert ("provisional" in layout.version) == layout.provisional
        assert callable(layout.body)
        assert set(BASE_TOKENS) <= set(layout.tokens)
    versions = [layout.version for layout in LAYOUTS.values()]
    assert len(set(versions)) == len(versions)


def test_every_layout_token_is_one_token_of_the_offline_vocabulary(offline):
    for layout in LAYOUTS.values():
        for token in (*layout.tokens, *layout.samplable):
            assert offline.has_token(token), (layout.name, token)
            assert offline.encode(token) == [offline.token_id(token)], (layout.name, token)


def test_caller_text_may_hold_no_layout_token():
    for layout in LAYOUTS.values():
        assert set(layout.tokens) | set(layout.samplable) <= set(STRUCTURAL_TOKENS), layout.name


def test_only_scene_lets_the_main_token_emit_the_separator(offline):
    assert {name for name, layout in LAYOUTS.items() if layout.samplable} == {"scene"}
    assert LAYOUTS["scene"].samplable == ("<|audio_separator|>",)
    conversation = Conversation(layout="scene", lines=("a",))
    assert extra_samplable_ids(conversation, offline) == (offline.token_id("<|audio_separator|>"),)


@pytest.mark.parametrize(
    "make", [lambda: get_layout("karaoke"), lambda: Conversation(layout="karaoke", text="Hi.")]
)
def test_an_unknown_layout_is_an_engine_error(make):
    with pytest.raises(EngineError) as raised:
        make()
    assert str(raised.value) == (
        "unknown layout 'karaoke'; expected one of clone, history, revise, scene, infill, stream"
    )
    assert not isinstance(raised.value, ValueError)


def _aside_body(conversation):
    return [
        STRINGS["user_open"],
        with_speaker_tag(conversation.text),
        "<|speaker_change|>",
        STRINGS["turn_end"],
        STRINGS["assistant_voice"],
    ]


ASIDE = Layout(
    "aside",
    "aside-provisional-v1",
    _aside_body,
    frozenset({"text"}),
    tokens=(*BASE_TOKENS, "<|speaker_change|>"),
    samplable=("<|speaker_change|>",),
    provisional=True,
)


def test_a_new_layout_is_one_record(monkeypatch, tiny):
    monkeypatch.setattr(engine.layouts, "LAYOUTS", {**LAYOUTS, "aside": ASIDE})
    conversation = Conversation(layout="aside", text="Psst.")
    parts = segments(conversation)
    assert parts == [
        "<|im_start|>system\n",
        "convert the provided text to speech",
        "<|im_end|>\n",
        "<|im_start|>user\n",
        "<|speaker:0|> Psst.",
        "<|speaker_change|>",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
    ]
    prompt = build_prompt(conversation, tiny)
    change = tiny.token_id("<|speaker_change|>")
    assert (prompt.layout, prompt.version, prompt.extra_ids) == (
        "aside",
        "aside-provisional-v1",
        (change,),
    )
    assert (prompt.rows[:, 0] == change).sum() == 1
    with pytest.raises(EngineError, match="the aside layout does not use note"):
        segments(Conversation(layout="aside", text="Psst.", note="softer"))


def test_a_new_layout_without_its_token_is_refused(monkeypatch, tiny):
    odd = dataclasses.replace(ASIDE, tokens=(*BASE_TOKENS, "<|no_such_token|>"))
    monkeypatch.setattr(engine.layouts, "LAYOUTS", {**LAYOUTS, "aside": odd})
    with pytest.raises(EngineError, match=r"the aside layout needs the token <\|no_such_token\|>"):
        build_prompt(Conversation(layout="aside", text="Psst."), tiny)
