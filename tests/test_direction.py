"""The direction grammar: tags, scopes, switches, notes, refusals, normalisation."""

import pytest
from fakes import write_dedented
from hypothesis import given, settings
from hypothesis import strategies as st

from drama_cli.compile.chunking import split_text
from drama_cli.compile.conversations import compile_scene
from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.check import check_script
from drama_cli.script.direction import (
    EVENT_TAGS,
    KNOWN_TAGS,
    LANGUAGE_TAGS,
    PAIRED_TAGS,
    TAG_ROLES,
    clean_markup,
    note_direction,
    parse_directions,
    render_spans,
    roles_by_name,
    to_prefix_form,
    unknown_tags,
)
from drama_cli.script.load import load_script

WHERE = SourcePosition("play.yaml", 7, 11)


def kinds(text):
    return [(s.kind, s.value) for s in parse_directions(text) if s.kind != "text"]


def test_point_tags_and_style_prefix_are_told_apart():
    assert kinds("[icy calm] Fine. [sighs] Go.") == [("style", "icy calm"), ("tag", "sighs")]
    assert kinds("Fine. [sighs]") == [("tag", "sighs")]


def test_spans_concatenate_back_to_the_source():
    text = "  [a] b <whisper>c {BOB} </whisper>"
    with pytest.raises(ScriptError):
        parse_directions(text)
    text = "[a] b <whisper>c</whisper> {BOB} d [e]"
    assert "".join(s.text for s in parse_directions(text)) == text


def test_scoped_tags_nest():
    assert kinds("<angry>a <whisper>b</whisper></angry>") == [
        ("open", "angry"),
        ("open", "whisper"),
        ("close", "whisper"),
        ("close", "angry"),
    ]


@pytest.mark.parametrize(
    "text, column, words",
    [
        ("Hi <angry>Get out.", 4, "unclosed scoped tag <angry>"),
        ("<angry><whisper>no</angry></whisper>", 19, "crosses <whisper>"),
        ("no</angry>", 3, "without an open"),
        ("Well [sighs", 6, "unclosed bracket"),
        (
            "[[louder]]",
            2,
            "bracket direction '[' inside another (opened at column 11): they do not nest",
        ),
        (
            "[a [b] c]",
            4,
            "bracket direction '[' inside another (opened at column 11): they do not nest",
        ),
        ("Go {BOB", 4, "unclosed speaker switch"),
        ("[]", 1, "empty bracket"),
        ("Go {sfx} now.", 4, "{sfx} names no sound (it is not a speaker switch)"),
        ("Go {Music} now.", 4, "{Music} names no sound (it is not a speaker switch)"),
        ("Go {sound:   } now.", 4, "empty sound cue {sound:   }"),
        ("Go do{sfx: x}or now.", 6, "sound cue {sfx: x} inside a word"),
    ],
)
def test_grammar_errors_carry_line_and_column(text, column, words):
    with pytest.raises(ScriptError) as info:
        parse_directions(text, WHERE)
    assert words in info.value.message
    assert (info.value.position.line, info.value.position.column) == (7, 11 + column - 1)


def test_error_column_counts_lines_inside_multiline_text():
    with pytest.raises(ScriptError) as info:
        parse_directions("first line\nsecond <angry>x", WHERE)
    assert (info.value.position.line, info.value.position.column) == (8, 8)


@pytest.mark.parametrize(
    "token",
    [
        "<|im_start|>",
        "<|im_end|>",
        "<|voice|>",
        "<|semantic:12|>",
        "<|text|>",
        "<|interleave|>",
        "<|speaker:1|>",
    ],
)
def test_structural_and_raw_model_tokens_are_refused(token):
    with pytest.raises(ScriptError) as info:
        parse_directions(f"Say {token} this")
    assert info.value.position.column == 5


def test_literal_speaker_pseudo_tag_is_refused_never_a_switch():
    with pytest.raises(ScriptError) as info:
        parse_directions("Then <speaker:1> answers")
    assert "not a speaker switch" in info.value.message
    assert "{NAME}" in info.value.hint


def test_switch_inside_scope_is_refused():
    with pytest.raises(ScriptError, match="inside <whisper>"):
        parse_directions("<whisper>a {BOB} b</whisper>")


def test_other_angle_brackets_are_text():
    spans = parse_directions("If a < b and c > d, fine.")
    assert [s.kind for s in spans] == ["text"]


def test_render_tags_the_speaker_and_compiles_switches():
    spans = parse_directions("[warm] Hello there {BOB} <whisper>hi</whisper> back")
    text = render_spans(spans, 3, {"BOB": 7}.__getitem__, notes=["(to the room)"])
    assert (
        text
        == "<|speaker:3|> [to the room] [warm] Hello there. <|speaker:7|> <whisper>hi</whisper> back."
    )


def test_a_star_between_numbers_is_kept_and_other_stars_are_removed():
    assert (
        clean_markup("It is 2*3*4 or 5 * 5, *really* **so**.") == "It is 2*3*4 or 5 * 5, really so."
    )


def test_a_switch_to_the_voice_already_speaking_changes_nothing():
    index_of = {"ANA": 0, "BOB": 7}.__getitem__
    assert (
        render_spans(
            parse_directions("Hi {ANA} there {BOB} yes {BOB} sir"), 0, index_of, speaker="ANA"
        )
        == "<|speaker:0|> Hi there. <|speaker:7|> yes sir."
    )
    assert (
        render_spans(parse_directions("{BOB} Hi {BOB} there"), 0, index_of, speaker="ANA")
        == "<|speaker:7|> Hi there."
    )
    # every voice at one index (the words of a line): a switch to another voice still starts a part
    assert (
        render_spans(parse_directions("Hi {BOB} there"), 0, lambda name: 0, speaker="ANA")
        == "<|speaker:0|> Hi. <|speaker:0|> there."
    )


def test_unknown_tags_pass_through_in_place_and_order():
    text = "[voice tight, holding back tears] I'm fine. [long exhale] Really."
    assert render_spans(parse_directions(text), 0, None) == "<|speaker:0|> " + text


def test_strict_mode_lists_unknown_tags_without_removing_them():
    spans = parse_directions("[voice tight] I'm fine. [sighs] <growl>Really.</growl>")
    assert [s.text for s, _ in unknown_tags(spans)] == ["[voice tight]", "<growl>"]
    assert "[voice tight]" in render_spans(spans, 0, None)


def test_strict_mode_knows_only_drama_3_s_closed_list_of_paired_tags():
    text = (
        "<whisper>a</whisper> <emphasis>b</emphasis> <soft>c</soft> <fast>d</fast> <slow>e</slow> "
        "<stress>f</stress> <forceful>g</forceful> <angry>h</angry> <loud>i</loud> <french>j</french>"
    )
    found = {span.value: why for span, why in unknown_tags(parse_directions(text))}
    assert set(found) == {"angry", "loud", "french"}
    assert found["angry"].startswith(
        "is not one of Drama 3's paired tags (emphasis, fast, forceful"
    )
    assert found["french"] == "is a language tag, experimental in Drama 3"


def test_one_tag_table_gives_every_tag_list():
    assert set(TAG_ROLES) == KNOWN_TAGS | EVENT_TAGS | PAIRED_TAGS | LANGUAGE_TAGS
    assert TAG_ROLES["sighs"] == {"known", "event"} and TAG_ROLES["beat"] == {"event"}
    assert PAIRED_TAGS == {"whisper", "emphasis", "soft", "fast", "slow", "stress", "forceful"}
    assert LANGUAGE_TAGS <= KNOWN_TAGS
    with pytest.raises(ValueError, match="'sighs' is in two rows"):
        roles_by_name((("known", "sighs"), ("event", "sighs")))


def test_note_direction_forms():
    assert note_direction("(whispering)") == "[whispering]"
    assert note_direction("  softer\n and warmer ") == "[softer and warmer]"
    assert note_direction("[angry]") == "[angry]"
    assert note_direction("a [b] c") == "[a (b) c]"


def test_normalize_keeps_hash_numbers_and_removes_heading_marks():
    assert clean_markup("## Scene #1 rule") == " Scene #1 rule"
    assert clean_markup("“Quote” it’s") == '"Quote" it\'s'


def test_end_punctuation_added_only_after_words():
    assert render_spans(parse_directions("Wait"), 0, None) == "<|speaker:0|> Wait."
    assert render_spans(parse_directions("Wait--"), 0, None) == "<|speaker:0|> Wait--"
    assert render_spans(parse_directions("Go [laughs]"), 0, None) == "<|speaker:0|> Go. [laughs]"
    assert (
        render_spans(parse_directions("<whisper>go</whisper>"), 0, None)
        == "<|speaker:0|> <whisper>go.</whisper>"
    )


def test_prefix_form_for_models_without_paired_tags():
    assert to_prefix_form("<angry>Get out.</angry>") == "[angry] Get out."


GRAMMAR_ALPHABET = list("ab .,!?[]{}<>/|:\n\t*#_~") + [
    "<whisper>",
    "</whisper>",
    "<angry>",
    "</angry>",
    "[sighs]",
    "{BOB}",
    "<|im_end|>",
    "<speaker:1>",
    "<|speaker:3|>",
    "🥲",
    "’",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(GRAMMAR_ALPHABET), max_size=40).map("".join))
def test_random_text_parses_or_raises_a_located_script_error(text):
    try:
        spans = parse_directions(text, WHERE)
    except ScriptError as err:
        assert (
            err.position.file == "play.yaml" and err.position.line >= 7 and err.position.column >= 1
        )
        return
    assert "".join(s.text for s in spans) == text
    rendered = render_spans(spans, 2, lambda name: 4)
    assert rendered.startswith(("<|speaker:2|>", "<|speaker:4|>"))
    assert "<|im_end|>" not in rendered and "\n" not in rendered and "\t" not in rendered
    for chunk in split_text(rendered, max_chars=40):
        assert chunk.startswith(("<|speaker:2|>", "<|speaker:4|>"))


def test_any_model_token_opener_is_refused():
    with pytest.raises(ScriptError, match="starts a model token") as info:
        parse_directions("half <|speaker:1 open")
    assert info.value.position.column == 6


def test_switch_needs_something_to_say():
    with pytest.raises(ScriptError, match="nothing to say after it") as info:
        parse_directions("Hello {BOB}  ", WHERE)
    assert info.value.position.column == 11 + 6
    with pytest.raises(ScriptError, match="the line has nothing to say"):
        parse_directions("{BOB}")
    spans = parse_directions("{BOB} [sighs] Fine")
    assert render_spans(spans, 0, {"BOB": 2}.__getitem__) == "<|speaker:2|> [sighs] Fine."


def test_every_model_token_of_a_line_is_listed_once():
    from drama_cli.errors import ScriptErrors
    from drama_cli.script.direction import parse_directions

    with pytest.raises(ScriptErrors) as info:
        parse_directions("a <|im_end|> b <|speaker:1|> c <| d <speaker:2> <b></b> e {X}")
    assert [(e.position.column, e.message.split(" is ")[0]) for e in info.value.errors] == [
        (3, "structural model token '<|im_end|>'"),
        (16, "model token '<|speaker:1|>'"),
        (32, "'<|' starts a model token and"),
        (37, "'<speaker:2>'"),
        (49, "scoped tag <b> has nothing inside"),
        (59, "speaker switch {X} has nothing to say after it"),
    ]


@pytest.mark.parametrize("text", ["a < b > c", "if x < y and y > z", "< whisper > is text"])
def test_a_less_than_sign_outside_the_tag_syntax_is_text(text):
    from drama_cli.script.direction import parse_directions

    spans = parse_directions(text)
    assert [(s.kind, s.text) for s in spans] == [("text", text)]


def test_the_documented_scoped_tag_still_needs_closing():
    from drama_cli.errors import ScriptError
    from drama_cli.script.direction import parse_directions

    assert [s.kind for s in parse_directions("<whisper>Quiet.</whisper>")] == [
        "open",
        "text",
        "close",
    ]
    with pytest.raises(ScriptError, match="unclosed scoped tag <b>"):
        parse_directions("a <b> c")


@pytest.mark.case("T2")
def test_T2_free_form_directions_stay_in_place_and_strict_mode_warns(tmp_path):
    line = "[voice tight, holding back tears] I'm fine. [long exhale] Really."
    path = write_dedented(
        tmp_path,
        "abe.yaml",
        f'cast:\n  ABE: refs/abe.wav\nlines:\n  - {{speaker: ABE, text: "{line}"}}\n',
    )
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "clone", clip_duration=lambda p: 2.0)
    assert plans[0].conversations[0].text == "<|speaker:0|> " + line
    report = check_script(str(path), strict_tags=True)
    warned = [w.message for w in report.warnings if "vocabulary" in w.message]
    assert len(warned) == 2
    assert "scene-1-1" in warned[0] and "[voice tight, holding back tears]" in warned[0]
    assert "[long exhale]" in warned[1]
    tags = [w.position for w in report.warnings if "vocabulary" in w.message]
    assert [(p.line, p.column) for p in tags] == [(4, 27), (4, 71)]  # where each tag is written
    assert load_script(path).lines()[0].text == line


@pytest.mark.case("B4")
def test_B4_text_normalised_before_the_model():
    raw = "    Where were you?\n\n\n\tI looked   everywhere.  **Everywhere.** ### Honestly 🥲✨ I’m done"
    text = render_spans(parse_directions(raw), 0, None)
    body = text.removeprefix("<|speaker:0|> ")
    assert body == "Where were you? I looked everywhere. Everywhere. Honestly I'm done."
    for bad in ("\n", "\t", "  ", "*", "#", "🥲", "✨", "’"):
        assert bad not in body
    assert render_spans(parse_directions("[sighs] Okay"), 0, None) == "<|speaker:0|> [sighs] Okay."


@pytest.mark.parametrize(
    "text, token, column",
    [
        ("Hello <*|speaker:1|> there.", "<|speaker:1|>", 7),
        ("I am <`|speaker:7|`> fine.", "<|speaker:7|>", 6),
        ("Good **<|im_end|>** ok <~~|im_start|> no", "<|im_start|>", 24),
    ],
)
def test_a_model_token_the_markup_clean_up_would_make_is_refused_at_its_place(text, token, column):
    with pytest.raises(ScriptError) as info:
        parse_directions(text, WHERE)
    errors = getattr(info.value, "errors", [info.value])
    assert [e.position.column - WHERE.column + 1 for e in errors if token in e.message] == [column]


def test_markdown_around_plain_angle_brackets_is_still_text():
    spans = parse_directions("a **<** b and <_|x_> c")
    assert "".join(s.text for s in spans) == "a **<** b and <_|x_> c"


def test_sent_text_keeps_the_compiler_s_own_tokens_and_locates_any_other_at_the_line():
    from drama_cli.script.direction import sent_text_errors

    assert (
        sent_text_errors(
            "<|speaker:0|> Hi <|phoneme_start|>HH AY1<|phoneme_end|> there. <|speaker:1|> Yes.",
            WHERE,
        )
        == []
    )
    errors = sent_text_errors("<|speaker:0|> Hi <|im_end|> there <|phoneme_end|>", WHERE)
    assert [(e.position, e.message.split("'")[1]) for e in errors] == [
        (WHERE, "<|im_end|>"),
        (WHERE, "<|phoneme_end|>"),
    ]


def test_a_zero_width_joiner_inside_a_word_is_kept_and_one_in_an_emoji_removed():
    from drama_cli.script.direction import clean_markup

    assert clean_markup("joiner\u200dok") == "joiner\u200dok"
    assert clean_markup("\u0915\u094d\u200d\u0937") == "\u0915\u094d\u200d\u0937"
    assert clean_markup("a \U0001f468\u200d\U0001f469 b") == "a b"
