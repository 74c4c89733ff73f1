"""Infill editing: word diff, span finding and snapping, the splice (case M6), the conversation."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from fakes import REFS
from hypothesis import given, settings
from hypothesis import strategies as st

from drama_cli.edit.infill import run_infill
from drama_cli.edit.plan import (
    EditPlan,
    infill_conversation,
    parse_span,
    plan_edit,
    snap_span,
    split_codes,
)
from drama_cli.edit.splice import Generated, splice
from drama_cli.edit.word_changes import (
    diff_words,
    insert_after,
    insert_at_word_index,
    replace_words,
    word_index_at,
)
from drama_cli.errors import EXIT_BAD_INPUT, InfillRefused, UsageError
from drama_cli.script.spoken import Word, spoken_words
from engine.clip import AudioClip
from engine.constants import HOP_SAMPLES, SAMPLE_RATE
from engine.conversation import Conversation

SR = SAMPLE_RATE
GUARD = int(0.020 * SR)
TIMINGS = [
    Word("we", 0.00, 0.30),
    Word("never", 0.30, 0.75),
    Word("said", 0.75, 1.20),
    Word("goodbye", 1.20, 2.00),
]
PITCHES = [220.0, 330.0, 440.0, 550.0]
OLD = "We never said goodbye."


def tone(freq: float, seconds: float, amp: float = 0.3) -> np.ndarray:
    t = np.arange(int(round(seconds * SR))) / SR
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def take_audio() -> np.ndarray:
    """A 2.00 s stand-in take: one tone burst per word at the M6 word times."""
    audio = np.zeros(2 * SR, dtype=np.float32)
    for word, freq in zip(TIMINGS, PITCHES):
        a, b = int(word.start_s * SR), int(word.end_s * SR)
        audio[a:b] = tone(freq, (b - a) / SR)
    return audio


class FakeInfill:
    """Returns a new tone for the span. With `context`, the middle comes embedded in the
    source's own audio (as the codec decodes prefix + middle + suffix); without, only the
    middle. `silence_s` puts a silent gap in the middle; `refuse_final` refuses empty suffixes."""

    def __init__(self, source, middle_s=None, context=True, silence_s=0.0, refuse_final=False):
        self.source, self.middle_s, self.context = source, middle_s, context
        self.silence_s, self.refuse_final = silence_s, refuse_final
        self.calls: list[Conversation] = []

    def infill(self, conversation: Conversation, seed: int) -> Generated:
        self.calls.append(conversation)
        suffix = conversation.suffix
        if self.refuse_final and suffix is not None and suffix.frames() == 0:
            raise InfillRefused("cannot edit the final word")
        start_frame, end_frame = conversation.meta["span_frames"]
        a = start_frame * HOP_SAMPLES
        b = min(end_frame * HOP_SAMPLES, len(self.source))
        length_s = self.middle_s if self.middle_s is not None else (b - a) / SR
        middle = tone(880.0 + seed, length_s)
        if self.silence_s:
            gap = int(self.silence_s * SR)
            mid = len(middle) // 2 - gap // 2
            middle[mid : mid + gap] = 0.0
        if not self.context:
            return Generated(middle, 0, len(middle))
        audio = np.concatenate([self.source[:a], middle, self.source[b:]])
        return Generated(audio, a, a + len(middle))


def assert_outside_identical(source, result, span):
    a, b = span.start_sample, span.end_sample
    keep_head = max(0, a - GUARD)
    np.testing.assert_array_equal(result.audio[:keep_head], source[:keep_head])
    after = len(source) - min(len(source), b + GUARD)
    if after:
        np.testing.assert_array_equal(result.audio[-after:], source[-after:])


def make_plan(new_text, span_s=None, timed=TIMINGS):
    return plan_edit(OLD, new_text, 2 * SR, timed=timed, span_s=span_s)


BASE = Conversation(layout="clone", text="<|speaker:0|> We never said goodbye.")


# ------------------------------------------------------------------ case M6


@pytest.mark.case("M6")
def test_m6_edit_ending_at_take_end_is_accepted_and_not_shortened():
    source = take_audio()
    plan = make_plan("We never said farewell.", span_s=(1.20, 2.00))
    assert plan.span.end_sample == len(source)  # the end is the take's end, not shortened
    assert plan.span.start_sample % HOP_SAMPLES == 0 and plan.span.start_s <= 1.20
    fake = FakeInfill(source)
    outcome = run_infill(fake, BASE, plan, source, None, seed=7)
    result = outcome.splice
    assert len(fake.calls) == 1
    assert result.tail_fade == 0  # nothing after the span to join
    middle = result.audio[result.middle_start : result.middle_end]
    expected = tone(887.0, (plan.span.end_sample - plan.span.start_sample) / SR)
    np.testing.assert_array_equal(middle, expected)  # the replacement segment is in the take
    assert len(result.audio) == len(source)
    assert_outside_identical(source, result, plan.span)
    assert 0.005 * SR <= result.head_fade <= 0.020 * SR


@pytest.mark.case("M6")
def test_m6_final_word_refused_falls_back_to_continuation():
    source = take_audio()
    plan = make_plan("We never said farewell.", span_s=(1.20, 2.00))
    fake = FakeInfill(source, refuse_final=True)
    outcome = run_infill(fake, BASE, plan, source, None, seed=1)
    assert outcome.continuation is True
    assert [c.suffix is None for c in fake.calls] == [False, True]
    assert outcome.splice.middle_end == len(outcome.splice.audio)


@pytest.mark.case("M6")
@pytest.mark.parametrize("context", [True, False])
@pytest.mark.parametrize("middle_s", [None, 0.62, 0.31])
def test_m6_inner_edit_keeps_outside_samples_and_crossfades(context, middle_s):
    source = take_audio()
    plan = make_plan("We hardly ever said goodbye.", span_s=(0.30, 0.75))
    fake = FakeInfill(source, middle_s=middle_s, context=context)
    result = run_infill(fake, BASE, plan, source, None, seed=3).splice
    assert_outside_identical(source, result, plan.span)
    for fade in (result.head_fade, result.tail_fade):
        assert 0.005 * SR <= fade <= 0.020 * SR
    new_len = result.middle_end - result.middle_start
    span_len = plan.span.end_sample - plan.span.start_sample
    assert len(result.audio) == len(source) - span_len + new_len
    assert not result.flagged


@pytest.mark.case("M6")
def test_m6_crossfade_actually_mixes_the_two_signals():
    source = take_audio()
    plan = make_plan("We hardly ever said goodbye.", span_s=(0.30, 0.75))
    result = run_infill(FakeInfill(source, context=False), BASE, plan, source, None, seed=0).splice
    a = plan.span.start_sample
    joined = result.audio[a : a + result.head_fade]
    middle_only = tone(880.0, result.head_fade / SR)
    assert not np.array_equal(joined, source[a : a + result.head_fade])
    assert not np.array_equal(joined, middle_only)
    assert np.max(np.abs(joined)) <= 0.3 * np.sqrt(2) + 1e-6  # equal power: no jump beyond +3 dB


@pytest.mark.case("M6")
def test_m6_long_internal_silence_is_flagged():
    source = take_audio()
    plan = make_plan("We hardly ever said goodbye.", span_s=(0.30, 0.75))
    fake = FakeInfill(source, middle_s=1.2, silence_s=0.6)
    outcome = run_infill(fake, BASE, plan, source, None, seed=0)
    assert outcome.splice.flagged
    assert outcome.splice.longest_silence_s == pytest.approx(0.6, abs=0.02)
    assert outcome.notes and "silence" in outcome.notes[0]


@pytest.mark.case("M6")
def test_short_pause_is_not_flagged():
    source = take_audio()
    plan = make_plan("We hardly ever said goodbye.", span_s=(0.30, 0.75))
    outcome = run_infill(
        FakeInfill(source, middle_s=1.0, silence_s=0.3), BASE, plan, source, None, seed=0
    )
    assert not outcome.splice.flagged


@pytest.mark.case("M6")
@settings(max_examples=40, deadline=None)
@given(
    start=st.floats(0.0, 1.9),
    length=st.floats(0.0, 1.0),
    middle_s=st.floats(0.02, 1.0),
    context=st.booleans(),
)
def test_splice_never_touches_audio_outside_the_guard(start, length, middle_s, context):
    source = take_audio()
    end = min(2.0, start + length)
    span = snap_span(start, end, len(source))
    fake = FakeInfill(source, middle_s=middle_s, context=context)
    conv = Conversation(layout="infill", meta={"span_frames": [span.start_frame, span.end_frame]})
    result = splice(source, span, fake.infill(conv, 0))
    assert_outside_identical(source, result, span)
    assert result.head_fade <= 0.020 * SR and result.tail_fade <= 0.020 * SR


# ------------------------------------------------------------------ span finding


def test_diff_finds_the_changed_words():
    old, new = spoken_words(OLD), spoken_words("We hardly ever said goodbye!")
    change = diff_words(old, new)
    assert (change.old_start, change.old_end, change.new_start, change.new_end) == (1, 2, 1, 3)
    assert diff_words(old, spoken_words("[sighs] we NEVER said, goodbye")) is None


def test_span_from_word_times_covers_the_changed_word():
    plan = make_plan("We hardly ever said goodbye.")
    assert plan.timings_source == "asr"
    assert plan.span.requested_s == pytest.approx((0.30, 0.75))
    assert plan.covered_words == ("never",)
    assert plan.span.start_sample % HOP_SAMPLES == 0


def test_span_of_last_word_reaches_the_take_end():
    plan = make_plan("We never said farewell.")
    assert plan.span.end_sample == 2 * SR
    assert plan.covered_words == ("goodbye",)


def test_span_stays_inside_pauses_and_unheard_words_widen_it():
    timed = [
        Word("we", 0.0, 0.2),
        Word("never", 0.5, 0.7),
        Word("said", 1.0, 1.2),
        Word("goodbye", 1.4, 2.0),
    ]
    plan = make_plan("We hardly ever said goodbye.", timed=timed)
    assert plan.span.requested_s == pytest.approx((0.45, 0.75))
    misheard = [
        Word("we", 0.0, 0.2),
        Word("nether", 0.5, 0.7),
        Word("said", 1.0, 1.2),
        Word("goodbye", 1.4, 2.0),
    ]
    plan = make_plan("We hardly ever said goodbye.", timed=misheard)
    assert plan.span.requested_s == pytest.approx((0.2, 1.0))


def test_insertion_span_is_the_boundary_between_words():
    plan = make_plan("We never really said goodbye.")
    assert plan.span.requested_s == pytest.approx((0.75, 0.75))
    assert (plan.span.start_frame, plan.span.end_frame) == (16, 17)  # the frame holding 0.75 s
    assert plan.covered_words == ()


def test_no_word_times_and_no_span_is_a_usage_error_naming_the_options():
    with pytest.raises(UsageError, match="--at .*--span|--span"):
        plan_edit(OLD, "We never said farewell.", 2 * SR, timed=None)


def test_span_given_without_word_times_estimates_covered_words():
    plan = plan_edit(OLD, "We never said farewell.", 2 * SR, timed=None, span_s=(1.5, 2.0))
    assert plan.timings_source == "span+estimate"
    assert plan.covered_words == ("goodbye",)


def test_same_words_without_span_is_refused():
    with pytest.raises(UsageError, match="same words"):
        make_plan("we never said goodbye")


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize("span", [(1.0, 0.5), (-0.5, 0.5), (1.5, 2.5), (2.0, 2.1), (2.01, 2.01)])
def test_invalid_spans_are_usage_errors_with_exit_2(span):
    with pytest.raises(UsageError) as info:
        snap_span(span[0], span[1], 2 * SR)
    assert info.value.exit_code == EXIT_BAD_INPUT


def test_insertion_points_at_the_start_and_the_end_are_valid():
    start = snap_span(0.0, 0.0, 2 * SR)
    assert (start.start_sample, start.end_sample) == (0, 0)
    end = snap_span(2.0, 2.0, 2 * SR)
    assert end.end_sample == 2 * SR and end.start_frame == end.end_frame - 1 == 43


def test_span_snaps_outward_to_frames():
    span = snap_span(0.30, 0.75, 2 * SR)
    assert span.start_frame == 6 and span.end_frame == 17
    assert (span.start_sample, span.end_sample) == (6 * 2048, 17 * 2048)
    assert span.start_s <= 0.30 < span.start_s + 2048 / SR
    assert span.end_s >= 0.75 > span.end_s - 2048 / SR
    exact = snap_span(10 * 2048 / SR, 20 * 2048 / SR, 2 * SR)
    assert (exact.start_frame, exact.end_frame) == (10, 20)


def test_parse_span_seconds_and_frames():
    assert parse_span("1.2:2") == (1.2, 2.0)
    start, end = parse_span("10:20", frames=True)
    assert start == pytest.approx(10 * 2048 / SR) and end == pytest.approx(20 * 2048 / SR)
    for bad in ("1.2", "a:b", "2:1", "1:2:3", "nan:1"):
        with pytest.raises(UsageError):
            parse_span(bad)


# ------------------------------------------------------------------ text operations


def test_text_operations():
    assert replace_words(OLD, "goodbye", "farewell") == "We never said farewell."
    assert (
        replace_words("We never, said goodbye.", "never said", "always said")
        == "We always said goodbye."
    )
    assert insert_after(OLD, "NEVER", "really") == "We never really said goodbye."
    assert (
        insert_at_word_index("[sighs] We never said goodbye.", 4, "again")
        == "[sighs] We never said goodbye again."
    )
    assert insert_at_word_index(OLD, 0, "Oh,") == "Oh, We never said goodbye."
    assert word_index_at(TIMINGS, 0.74) == 2 and word_index_at(TIMINGS, 1.9) == 4


@pytest.mark.parametrize(
    "op",
    [
        lambda: replace_words(OLD, "hello", "x", "s1-l2"),
        lambda: insert_after(OLD, "nev", "x", "s1-l2"),
    ],
)
def test_words_not_in_the_line_are_usage_errors(op):
    with pytest.raises(UsageError, match="not in line s1-l2"):
        op()


def test_an_insert_after_a_word_that_occurs_more_than_once_is_refused_with_the_occurrences():
    with pytest.raises(UsageError) as caught:
        insert_after("And then we went, and then we ran.", "then", "quickly", "s1-l2")
    assert str(caught.value) == (
        "'then' occurs 2 times in line s1-l2 (1: And «then» we went, and; 2: went, "
        "and «then» we ran.); give a longer --after phrase that occurs once, or --at SECONDS"
    )
    assert (
        insert_after("And then we went, and then we ran.", "went, and then", "quickly")
        == "And then we went, and then quickly we ran."
    )


# ------------------------------------------------------------------ conversation


def test_infill_conversation_carries_exact_prefix_and_suffix_codes():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 1024, size=(10, 44), dtype=np.int64)
    span = snap_span(0.30, 0.75, 44 * HOP_SAMPLES)
    prefix, suffix = split_codes(codes, span)
    np.testing.assert_array_equal(prefix, codes[:, :6])
    np.testing.assert_array_equal(suffix, codes[:, 17:])
    conv = infill_conversation(
        BASE,
        "<|speaker:0|> We hardly ever said goodbye.",
        AudioClip(codes=prefix),
        AudioClip(codes=suffix),
    )
    assert conv.layout == "infill" and conv.text.endswith("hardly ever said goodbye.")
    assert conv.prefix.frames() == 6 and conv.suffix.frames() == 27


def test_run_infill_sends_full_new_transcript_with_speaker_tag_and_exact_codes():
    rng = np.random.default_rng(1)
    source = take_audio()
    codes = rng.integers(0, 1024, size=(10, 44), dtype=np.int64)
    plan = make_plan("We hardly ever said goodbye.")
    fake = FakeInfill(source)
    run_infill(fake, BASE, plan, source, codes, seed=0)
    (conv,) = fake.calls
    assert conv.text == "<|speaker:0|> We hardly ever said goodbye."
    np.testing.assert_array_equal(conv.prefix.codes, codes[:, : plan.span.start_frame])
    np.testing.assert_array_equal(conv.suffix.codes, codes[:, plan.span.end_frame :])
    assert isinstance(plan, EditPlan)


# ------------------------------------------------------------------ speech recognition (asr extra)


def test_span_from_real_word_timestamps_of_scratch_speech():
    import importlib.util

    if (
        importlib.util.find_spec("faster_whisper") is None
        or importlib.util.find_spec("piper") is None
    ):
        pytest.skip("needs the asr extra (faster-whisper) and piper-tts")
    from drama_cli.backends.base import GenerationRequest
    from drama_cli.backends.scratch import ScratchBackend
    from drama_cli.edit.infill import recognise_words

    text = "<|speaker:0|> I never said goodbye to her, not once."
    conv = Conversation(layout="clone", text=text)
    audio = ScratchBackend().generate(GenerationRequest("s", "l", "ANNA", text, conv)).audio
    timed = recognise_words(audio)
    if timed is None:
        pytest.skip("the asr extra's Whisper model is not installed")
    plan = plan_edit(
        "I never said goodbye to her, not once.",
        "I never said farewell to her, not once.",
        len(audio),
        timed,
    )
    assert plan.timings_source == "asr"
    assert plan.covered_words and "goodbye" in " ".join(plan.covered_words).lower()
    heard = {w.text.strip(".,").lower(): w for w in timed}
    assert plan.span.start_s <= heard["goodbye"].start_s + 1e-6
    assert plan.span.end_s >= heard["goodbye"].end_s - 1e-6
    assert plan.span.end_s <= heard["to"].end_s  # the next word is not swallowed whole


# ------------------------------------------------------------------ script text


def test_new_text_is_compiled_like_the_line(tmp_path):
    from drama_cli.edit.project_edit import compile_line_text
    from drama_cli.script.load import load_script

    path = tmp_path / "s.yaml"
    path.write_text(
        "cast:\n  ANNA:\n    description: a\nscenes:\n  - id: s1\n    lines:\n"
        "      - id: l1\n        speaker: ANNA\n        text: Fine.\n        note: wearily\n"
    )
    script = load_script(path)
    line = script.lines()[0]
    text = compile_line_text(
        script, line, "[sighs] Fine then", {3: "ANNA"}, "<|speaker:3|> [wearily] Fine."
    )
    assert text == "<|speaker:3|> [wearily] [sighs] Fine then."


def test_update_script_text_yaml_and_fountain_keep_a_backup(tmp_path):
    from drama_cli.edit.script_update import update_script_text
    from drama_cli.script.load import load_script

    yaml_path = tmp_path / "s.yaml"
    source = (
        "cast:\n  ANNA:\n    description: a\nscenes:\n  - id: s1\n    lines:\n"
        "      - id: l1\n        speaker: ANNA\n        text: We never said goodbye.\n"
        "      - id: l2\n        speaker: ANNA\n        text: Fine.\n"
    )
    yaml_path.write_text(source)
    script = load_script(yaml_path)
    backup = update_script_text(script, script.lines()[1], "Fine.", 'Fine: "then".')
    assert backup.read_text() == source
    reread = load_script(yaml_path)
    assert [line.text for line in reread.lines()] == ["We never said goodbye.", 'Fine: "then".']

    fountain = tmp_path / "f.fountain"
    fountain.write_text(
        "INT. HOUSE - DAY\n\nANNA\nWe never said goodbye.\n\nANNA\nWe never said goodbye.\n"
    )
    (tmp_path / "f.cast.yaml").write_text("cast:\n  ANNA:\n    description: a\n")
    script = load_script(fountain)
    update_script_text(
        script, script.lines()[1], "We never said goodbye.", "We never said farewell."
    )
    assert [line.text for line in load_script(fountain).lines()] == [
        "We never said goodbye.",
        "We never said farewell.",
    ]
    with pytest.raises(UsageError, match="edit it by hand"):
        update_script_text(script, script.lines()[0], "Not in the script.", "x")


@pytest.mark.parametrize(
    ("written", "updated"),
    [
        ("  - B: plain # with comment\n", '  - B: "simple" # with comment\n'),
        ('  - B: "plain # not a comment" # a comment\n', '  - B: "simple" # a comment\n'),
        ("  - B: 'plain ''quoted'''   # a comment\n", '  - B: "simple"   # a comment\n'),
        ("  - B: plain#no-space\n", '  - B: "simple"\n'),
        (
            "  - speaker: B\n    text: plain   # a comment\n",
            '  - speaker: B\n    text: "simple"   # a comment\n',
        ),
        (
            '  - "B": We go now.\n  - speaker: B\n    text: We stay.\n',
            '  - "B": "simple"\n  - speaker: B\n    text: We stay.\n',
        ),  # a quoted speaker; the next line stays
        ("  - 'B': We go now.\n", "  - 'B': \"simple\"\n"),
    ],
)
def test_update_script_keeps_a_trailing_yaml_comment(tmp_path, written, updated):
    from drama_cli.edit.script_update import update_script_text
    from drama_cli.script.load import load_script

    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / "s.yaml"
    head = "cast:\n  B: {voice: refs/lane.wav}\nlines:\n"
    path.write_text(head + written, encoding="utf-8")
    script = load_script(path)
    update_script_text(script, script.lines()[0], script.lines()[0].text, "simple")
    assert path.read_text(encoding="utf-8") == head + updated
    assert load_script(path).lines()[0].text == "simple"


@pytest.mark.parametrize(
    "written",
    [
        "  - {speaker: B, text: We go now., pause_after: -0.5}\n  - B: We stay.\n",
        "  - {speaker: B, text: We go now.}\n  - speaker: B\n    text: We stay.\n",
        "  - speaker: B\n    text: >-\n      We go\n      now.\n  - speaker: B\n    text: We stay.\n",
    ],
)
def test_update_script_refuses_a_line_it_cannot_rewrite_and_leaves_the_script_alone(
    tmp_path, written
):
    from drama_cli.edit.script_update import updated_script_text
    from drama_cli.script.load import load_script

    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / "s.yaml"
    path.write_text("cast:\n  B: {voice: refs/lane.wav}\nlines:\n" + written, encoding="utf-8")
    script = load_script(path)
    with pytest.raises(UsageError, match="the text of line scene-1-1 in .*; edit it by hand"):
        updated_script_text(script, script.lines()[0], "We go now.", "We leave now.")
    assert path.read_text(encoding="utf-8").endswith(written)
