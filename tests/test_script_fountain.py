"""The Fountain reader: every element, cues (lone ones too), parentheticals, notes, boneyard,
cast files, scripts with nothing to render."""

import json
import re
import textwrap

import pytest
from fakes import CAST, fountain_play, one_error_line, write_dedented
from hypothesis import given, settings
from hypothesis import strategies as st

from drama_cli.cli import main
from drama_cli.compile.conversations import compile_scene
from drama_cli.errors import ScriptError
from drama_cli.script.document import Element, Line
from drama_cli.script.fountain import parse_cue, read_fountain
from drama_cli.script.load import load_script


def read(text):
    return read_fountain(textwrap.dedent(text), "play.fountain")


def kinds(scene):
    return [e.kind if isinstance(e, Element) else "line" for e in scene.elements]


def test_title_page_with_continuation_lines():
    script = read("""\
        Title: Night Ferry
        Author: A. Writer
        Contact:
            1 Quay Road
            Harbour Town

        INT. DECK - NIGHT
        """)
    assert script.title_page == {
        "Title": "Night Ferry",
        "Author": "A. Writer",
        "Contact": "1 Quay Road\nHarbour Town",
    }
    assert script.title == "Night Ferry"


@pytest.mark.parametrize(
    "heading",
    [
        "INT. HOUSE - DAY",
        "ext. house",
        "EST. CITY",
        "INT./EXT. CAR",
        "I/E TRAIN",
        ".KITCHEN",
        "INT HOUSE DAY",
    ],
)
def test_scene_headings(heading):
    script = read(f"{heading}\n\nA line.\n")
    assert script.scenes[0].title == heading.lstrip(".")


def test_scene_numbers_become_ids():
    script = read("INT. A - DAY #12A#\n\nX.\n\nINT. B - DAY\n\nY.\n")
    assert [(s.id, s.number, s.title) for s in script.scenes] == [
        ("scene-12A", "12A", "INT. A - DAY"),
        ("scene-2", None, "INT. B - DAY"),
    ]


def test_duplicate_scene_numbers_are_errors_at_the_number_never_renumbered():
    with pytest.raises(ScriptError) as info:
        read("INT. A #5#\n\nX.\n\nINT. B #5#\n\nY.\n\nINT. C #2#\n\nZ.\n")
    errors = getattr(info.value, "errors", [info.value])
    assert [(e.message, e.position.line, e.position.column) for e in errors] == [
        ("duplicate scene number #5# (first at line 1)", 5, 8)
    ]
    assert errors[0].hint == "give each scene its own number"


def test_a_scene_number_that_is_an_automatic_id_is_an_error_naming_both_headings():
    with pytest.raises(ScriptError) as info:
        read("INT. A\n\nX.\n\nINT. B\n\nY.\n\nINT. C #2#\n\nZ.\n")
    assert (info.value.message, info.value.position.line, info.value.position.column) == (
        "scene number #2# is the automatic id of the unnumbered heading at line 5",
        9,
        8,
    )
    with pytest.raises(ScriptError) as info:
        read("INT. A #2#\n\nX.\n\nINT. B\n\nY.\n")
    assert (info.value.message, info.value.position.line) == (
        "this heading's automatic id scene-2 is the number of the heading at line 1",
        5,
    )


def test_not_a_heading():
    script = read("... not a scene header.\n\nESTABLISHING shot\n")
    assert kinds(script.scenes[0]) == ["action", "action"]


def test_structure_elements_are_kept():
    script = read("""\
        # Act One
        ## Part

        = The synopsis.

        INT. ROOM - DAY

        >THE END<

        ~Sing a song

        !SHOUTED ACTION

        CUT TO:

        > FADE OUT

        ===
        """)
    assert len(script.scenes) == 1 and script.scenes[0].id == "scene-1"
    room = script.scenes[0]
    assert kinds(room) == [
        "section",
        "section",
        "synopsis",
        "heading",
        "centered",
        "lyric",
        "action",
        "transition",
        "transition",
        "page_break",
    ]
    assert [e.text for e in room.elements[4:9]] == [
        "THE END",
        "Sing a song",
        "SHOUTED ACTION",
        "CUT TO:",
        "FADE OUT",
    ]
    assert [e.depth for e in room.elements[:2]] == [1, 2]


def test_parentheticals_become_notes_and_split_speech():
    script = read("""\
        IVY
        (whispering)
        Is he asleep?
        (to Tom)
        Good.
        """)
    lines = script.scenes[0].lines
    assert [(line.text, line.notes) for line in lines] == [
        ("Is he asleep?", ["whispering"]),
        ("Good.", ["to Tom"]),
    ]


def test_a_parenthetical_not_alone_on_its_row_is_spoken_with_a_warning():
    script = read("""\
        HOLMES
        (whispering
        Come in!

        WATSON
        (aside) Quite.

        HOLMES
        (softly)
        Good.
        """)
    lines = script.scenes[0].lines
    assert [line.text for line in lines] == ["(whispering\nCome in!", "(aside) Quite.", "Good."]
    found = [
        (w.position.line, w.position.column, w.message)
        for w in script.warnings
        if "parenthetical" in w.message
    ]
    assert [(row, column) for row, column, _ in found] == [(2, 1), (6, 1)]
    assert "'(whispering' of HOLMES (line scene-0-1) is not closed" in found[0][2]
    assert "'(aside) Quite.' of WATSON (line scene-0-2) has words after it" in found[1][2]


def test_two_space_line_continues_dialogue():
    script = read_fountain("ADAM\nFirst part.\n  \nSecond part.\n", "p.fountain")
    assert script.scenes[0].lines[0].text == "First part.\n\nSecond part."


def test_forced_cue_and_lyrics_inside_speech():
    script = read("@McCLANE\nYippee.\n\nBAND\n~La la la\n")
    lines = script.scenes[0].lines
    assert lines[0].speaker == "McCLANE"
    assert lines[1].text == "La la la" and lines[1].notes == ["singing"]


def test_emphasis_markers_are_stripped():
    from drama_cli.script.direction import display_text

    script = read("ANA\nI *really* mean **it**, _truly_. \\*ok\\*\n")
    assert display_text(script.scenes[0].lines[0]) == "I really mean it, truly. *ok*"


def test_indented_elements_read_as_plain_ones():
    script = read("\t\t\tJACK\n\t\t(quietly)\n\tHello.\n\n\t\t\t\tCUT TO:\n")
    assert script.scenes[0].lines[0].notes == ["quietly"]
    assert kinds(script.scenes[0]) == ["line", "transition"]


def test_parse_cue_forms():
    assert parse_cue("DESMOND (O.S.) (CONT'D)") == ("DESMOND", ["O.S.", "CONT'D"], False)
    assert parse_cue("DESMOND ^") == ("DESMOND", [], True)
    assert parse_cue("1984") is None
    assert parse_cue("@1984") == ("1984", [], False)
    assert parse_cue("Mixed Case") is None
    assert parse_cue("NAME (O.S.) trailing") is None


def test_unclosed_boneyard_and_note_are_located_errors():
    with pytest.raises(ScriptError) as info:
        read("A.\n\nB /* never closed\n")
    assert (info.value.position.line, info.value.position.column) == (3, 3)
    with pytest.raises(ScriptError, match="unclosed note"):
        read("ANA\nHi [[oops\n")


@pytest.mark.parametrize(
    ("text", "where", "code"),
    [
        ("ANA\nHel\x07lo.\n", (2, 4), 0x07),
        ("ANA\nSee \x1b]0;owned\x07 this.\n", (2, 5), 0x1B),
        ("AN\x1bA\nHi.\n", (1, 3), 0x1B),
        ("Title: A\x9bB\n\nANA\nHi.\n", (1, 9), 0x9B),
        ("ANA\nHi. [[note \x08 here]]\n", (2, 12), 0x08),
        ("/* boneyard\n\x0c */\nANA\nHi.\n", (2, 1), 0x0C),
    ],
)
def test_a_control_character_in_fountain_is_one_located_error_at_its_column(text, where, code):
    with pytest.raises(ScriptError) as info:
        read(text)
    assert info.value.message == f"control character U+{code:04X} in the script"
    assert (info.value.position.line, info.value.position.column) == where


def test_the_check_command_refuses_a_fountain_control_character_without_printing_it(
    tmp_path, capsys
):
    path = fountain_play(tmp_path, "INT. ROOM\n\nALGERNON\nTitle \x1b]0;owned\x07 now.\n")
    assert main(["check", str(path)]) == 2
    err = one_error_line(capsys)
    assert err.splitlines()[0] == (
        f"{path}:4:7: control character U+001B in the script "
        "(remove it: a script holds no control characters)"
    )
    assert "\x1b" not in err and "\x07" not in err


def test_a_control_character_in_the_cast_file_is_located_in_that_file(tmp_path):
    path = fountain_play(
        tmp_path, "ALGERNON\nHi.\n", cast='cast:\n  ALGERNON: {description: "x\x07"}\n'
    )
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(info.value).startswith(
        f"{tmp_path / 'play.cast.yaml'}:2:29: control character U+0007"
    )


def test_cast_file_beside_the_script_and_cast_option(tmp_path):
    (tmp_path / "play.fountain").write_text("ALGY\nHello.\n\nERNEST (V.O.)\nHi.\n")
    (tmp_path / "play.cast.yaml").write_text(
        "narrator: NARR\ncast:\n  ALGERNON:\n    voice: refs/a.wav\n    aliases: [ALGY]\n"
        "  JACK:\n    voice: refs/j.wav\n    aliases: [ERNEST]\n  NARR: refs/n.wav\n"
    )
    script = load_script(tmp_path / "play.fountain")
    assert [line.speaker for line in script.lines()] == ["ALGERNON", "JACK"]
    assert script.narrator == "NARR"
    other = tmp_path / "casts"
    other.mkdir()
    (other / "c.yaml").write_text("ALGY: x.wav\nERNEST: y.wav\n")
    script = load_script(tmp_path / "play.fountain", cast=other / "c.yaml")
    assert script.cast["ALGY"].references[0].path == "casts/x.wav"


def test_missing_cast_file_is_a_clear_error(tmp_path):
    (tmp_path / "solo.fountain").write_text("ANA\nHi.\n")
    with pytest.raises(ScriptError, match="no cast file") as info:
        load_script(tmp_path / "solo.fountain")
    assert "solo.cast.yaml" in info.value.hint


def test_narrator_voices_action(tmp_path):
    (tmp_path / "p.fountain").write_text("INT. ROOM - DAY\n\nThe door opens.\n\nANA\nHi.\n")
    (tmp_path / "p.cast.yaml").write_text("narrator: N\ncast:\n  ANA: a.wav\n  N: n.wav\n")
    lines = load_script(tmp_path / "p.fountain").lines()
    assert [(line.id, line.speaker, line.kind) for line in lines] == [
        ("scene-1-a1", "N", "action"),
        ("scene-1-1", "ANA", "dialogue"),
    ]


FOUNTAIN_ALPHABET = list("ABab .()^@!#=~>< \n\n[]/*:_-'") + [
    "INT. ",
    "[[",
    "]]",
    "/*",
    "*/",
    "  \n",
    "\r\n",
    "\ufeff",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FOUNTAIN_ALPHABET), max_size=60).map("".join))
def test_random_fountain_gives_a_script_or_a_located_script_error(text):
    try:
        script = read_fountain(text, "r.fountain")
    except ScriptError as err:
        assert (
            err.position.file == "r.fountain"
            and err.position.line >= 1
            and err.position.column >= 1
        )
    else:
        for line in script.lines():
            assert isinstance(line, Line) and line.text.strip()
            assert "\r" not in line.text and "\ufeff" not in line.text


def test_speech_left_empty_by_markup_is_not_a_line():
    script = read_fountain("A\n/*/*/**/*/*/\n", "r.fountain")
    assert script.lines() == []
    with pytest.raises(ScriptError, match="unclosed boneyard"):  # three nested openers, none closed
        read_fountain("A\n/*/*/*\n", "r.fountain")


def test_beat_before_the_words_pauses_after_the_previous_line():
    script = read("ANA\nWell?\n\nBEN\n(beat)\nNo.\n")
    ana, ben = script.lines()
    assert (ana.beat_s, ana.pause_after_s, ben.beat_s, ben.notes) == (0.5, None, 0.0, [])


@pytest.mark.parametrize("after", ["\n[[check the cut]]\n", "\n", ""])
def test_a_lone_cue_is_warned_about_and_not_narrated(tmp_path, after):
    from drama_cli.script.load import load_script

    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\nWATSON\nWho is it?\n\nHolmes looks up.\n\nHOLMES" + after,
        cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n  WATSON: {}\n",
    )
    script = load_script(path)
    assert [(line.speaker, line.text) for line in script.lines()] == [
        ("WATSON", "Who is it?"),
        ("NARRATOR", "Holmes looks up."),
    ]
    lone = [w for w in script.warnings if "has no dialogue" in w.message]
    assert [(str(w.position), w.message) for w in lone] == [
        (
            f"{path}:8:1",
            "character cue 'HOLMES' (HOLMES) has no dialogue after it, so nothing is spoken "
            "for it: write the speech on the line after the cue, or remove the cue",
        )
    ]


def test_a_capitalised_action_line_that_names_no_one_is_still_narrated(tmp_path):
    from drama_cli.script.load import load_script

    path = fountain_play(
        tmp_path,
        "INT. HALL - NIGHT\n\nBANG!\n\n!HOLMES\n",
        cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n",
    )
    script = load_script(path)
    assert [line.text for line in script.lines()] == [
        "BANG!",
        "HOLMES",
    ]  # forced action stays action
    assert not [w for w in script.warnings if "has no dialogue" in w.message]


def test_fountain_with_only_a_title_page_is_nothing_to_render(tmp_path, capsys):
    script = tmp_path / "title.fountain"
    script.write_text("Title: A Scandal in Bohemia\nAuthor: A. Conan Doyle\n")
    (tmp_path / "title.cast.yaml").write_text(CAST)
    for verb in ("check", "render"):
        assert (
            main(
                [verb, str(script), "--engine", "scratch"]
                if verb == "render"
                else [verb, str(script)]
            )
            == 2
        )
        err = one_error_line(capsys)
        assert f"{script}:1:1: nothing to render: the script has no lines" in err
    assert not (tmp_path / "title.drama").exists()


def test_fountain_with_only_action_and_no_narrator_says_why_nothing_is_spoken(tmp_path, capsys):
    script = tmp_path / "quiet.fountain"
    script.write_text("INT. BAKER STREET - NIGHT\n\nHolmes plays the violin.\n")
    (tmp_path / "quiet.cast.yaml").write_text(CAST)
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert "nothing to render" in err and "narrator" in err


def test_fountain_dialogue_line_that_is_a_cast_name_warns_about_a_missing_blank_line(
    tmp_path, capsys
):
    script = tmp_path / "door.fountain"
    script.write_text(
        "INT. BAKER STREET - NIGHT\n\nHOLMES\nCome in!\nWATSON\nThank you.\n\nWATSON\nNO\nMORE!\n"
    )
    (tmp_path / "door.cast.yaml").write_text(CAST)
    assert main(["check", str(script)]) == 0
    out = capsys.readouterr()
    warnings = [w for w in out.err.splitlines() if "blank line" in w]
    assert warnings == [
        f"warning: {script}:5:1: dialogue line 'WATSON' of HOLMES (line scene-1-1) is a cast "
        f"member's name: Fountain reads it as dialogue; if it is WATSON's cue, put a blank "
        f"line before it"
    ]


def cast_file(folder, stem, names):
    entries = "".join(f"  {json.dumps(n)}: refs/{i}.wav\n" for i, n in enumerate(names))
    return write_dedented(folder, f"{stem}.cast.yaml", "cast:\n" + entries)


def request_strings(plans):
    """Every string a fake backend would receive for these plans."""
    strings = []
    for plan in plans:
        for conversation in plan.conversations:
            strings += [
                conversation.text,
                *conversation.lines,
                *(e.text for e in conversation.context),
            ]
            strings += [r.transcript or "" for r in conversation.references]
            strings += [d for _, d in conversation.descriptions]
    return strings


def all_modes(script):
    return [
        plan
        for scene in script.scenes
        for mode in ("clone", "history", "scene")
        for plan in compile_scene(script, scene, mode, clip_duration=lambda path: 3.0)
    ]


CUES = """\
INT. BOATHOUSE - NIGHT

MARGOT (cont'd)
We leave at six.

DESMOND (O.S.) (CONT'D)
Not without the oars.

MARGOT
Fine.

DESMOND^
Fine.
"""


@pytest.mark.case("F1")
@pytest.mark.parametrize("dual_cue", ["DESMOND^", "DESMOND ^"])
def test_F1_cue_variants_stay_one_voice_each(tmp_path, dual_cue):
    path = write_dedented(tmp_path, "cues.fountain", CUES.replace("DESMOND^", dual_cue))
    cast_file(tmp_path, "cues", ["MARGOT", "DESMOND"])
    script = load_script(path)
    scene = script.scenes[0]
    assert [e.kind for e in scene.elements if isinstance(e, Element)] == ["heading"]
    lines = scene.lines
    assert len(lines) == 4
    assert [line.speaker for line in lines] == ["MARGOT", "DESMOND", "MARGOT", "DESMOND"]
    voices = set().union(*(plan.speakers for plan in compile_scene(script, scene, "clone")))
    assert voices == {"MARGOT", "DESMOND"}
    assert [line.extensions for line in lines] == [["cont'd"], ["O.S.", "CONT'D"], [], []]
    assert lines[3].dual and lines[3].pair == lines[2].id
    assert "^" not in lines[3].speaker and "^" not in lines[3].cue


@pytest.mark.case("F2")
def test_F2_names_with_punctuation_and_digits_are_cues(tmp_path):
    text = """\
    EXT. LOADING DOCK - DAY

    GUARD #2
    Badge, please.

    R2-K9
    Beep.

    THE BAKER'S SON
    He's with me.

    NINA / THE DOUBLE
    Which one of us?

    DR. VOSS
    Neither.

    OSKAR (as the PRIEST)
    Peace be with you.

    1984
    The clock on the wall stops.
    """
    speakers = ["GUARD #2", "R2-K9", "THE BAKER'S SON", "NINA / THE DOUBLE", "DR. VOSS", "OSKAR"]
    script = read_fountain(textwrap.dedent(text), "dock.fountain")
    lines = script.lines()
    assert [line.speaker for line in lines] == speakers
    assert lines[5].extensions == ["as the PRIEST"]
    actions = [
        e.text for e in script.scenes[0].elements if isinstance(e, Element) and e.kind == "action"
    ]
    assert actions == ["1984\nThe clock on the wall stops."]
    forced = read_fountain(textwrap.dedent(text).replace("1984", "@1984"), "dock.fountain")
    assert forced.lines()[-1].speaker == "1984"
    path = write_dedented(tmp_path, "dock.fountain", text)
    cast_file(tmp_path, "dock", speakers)
    assert [line.speaker for line in load_script(path).lines()] == speakers


F3_A = (
    b"\xef\xbb\xbfTitle: Night Ferry\r\nAuthor: A. Writer\r\n\r\nINT. FERRY DECK - NIGHT\r\n\r\n"
    b"CAPTAIN\r\nHold the rope.\r\n"
)


def shape(script):
    return (
        script.title_page,
        [
            [(type(e).__name__, e.kind, e.text, getattr(e, "speaker", None)) for e in s.elements]
            for s in script.scenes
        ],
    )


@pytest.mark.case("F3")
def test_F3_bom_and_crlf_read_like_lf(tmp_path):
    variants = {
        "a": F3_A,
        "b": F3_A[3:].replace(b"\r\n", b"\n"),
        "c": b"\xef\xbb\xbfINT. FERRY DECK - NIGHT\n\nCAPTAIN\nHold the rope.\n",
    }
    scripts = {}
    for name, data in variants.items():
        (tmp_path / f"{name}.fountain").write_bytes(data)
        cast_file(tmp_path, name, ["CAPTAIN"])
        scripts[name] = load_script(tmp_path / f"{name}.fountain")
    assert shape(scripts["a"]) == shape(scripts["b"])
    assert scripts["a"].title_page == {"Title": "Night Ferry", "Author": "A. Writer"}
    for key, value in scripts["a"].title_page.items():
        assert "\ufeff" not in key + value and "\r" not in key + value
    for name in ("a", "c"):
        first = scripts[name].scenes[0].elements[0]
        assert first.kind == "heading" and first.text == "INT. FERRY DECK - NIGHT"
        line = scripts[name].lines()[0]
        assert (line.speaker, line.text) == ("CAPTAIN", "Hold the rope.")


@pytest.mark.case("F5")
def test_F5_notes_and_boneyard_never_reach_the_model(tmp_path):
    path = write_dedented(
        tmp_path,
        "green.fountain",
        """\
        INT. GREENHOUSE - DAY

        LENA
        I planted them [[check: tulips or lilies?]] last spring.

        /* CUT FOR TIME
        OTTO
        You never told me.
        */

        [[note one]]
        [[note two]]

        OTTO
        They died anyway. /* alt: They're fine. */
        """,
    )
    cast_file(tmp_path, "green", ["LENA", "OTTO"])
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "clone")
    assert [(p.line.speaker, p.text) for p in plans] == [
        ("LENA", "<|speaker:0|> I planted them last spring."),
        ("OTTO", "<|speaker:1|> They died anyway."),
    ]
    sent = " ".join(request_strings(all_modes(script)))
    for word in ("check", "tulips", "note one", "note two", "You never told me", "fine"):
        assert word not in sent
    notes = [
        e.text for e in script.scenes[0].elements if isinstance(e, Element) and e.kind == "note"
    ]
    assert notes == ["check: tulips or lilies?", "note one", "note two"]
    assert script.lines()[0].remarks == ["check: tulips or lilies?"]
    assert all(line.pause_after_s is None for line in script.lines())


@pytest.mark.case("T1")
def test_T1_parentheticals_become_directions_and_a_pause(tmp_path):
    path = write_dedented(
        tmp_path,
        "hall.fountain",
        """\
        INT. HALLWAY - NIGHT

        IVY
        (whispering)
        Is he asleep?
        (beat)
        Good. Then we go.
        """,
    )
    cast_file(tmp_path, "hall", ["IVY"])
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "clone")
    assert plans[0].conversations[0].text == "<|speaker:0|> [whispering] Is he asleep?"
    assert plans[0].line.beat_s >= 0.3
    assert plans[1].conversations[0].text == "<|speaker:0|> Good. Then we go."
    for plan in plans:
        spoken = re.sub(r"\[[^\]]*\]|<\|[^|]*\|>", "", plan.conversations[0].text)
        assert "(" not in spoken and ")" not in spoken and "beat" not in spoken
    assert "whisper" not in plans[1].conversations[0].text


def spoken(tmp_path, body):
    """The model text of every line of a Fountain play (cast ANA and a narrator), in order."""
    path = fountain_play(tmp_path, body, cast="narrator: N\ncast:\n  ANA: {}\n  N: {}\n")
    script = load_script(path)
    return [
        plan.text for scene in script.scenes for plan in compile_scene(script, scene, mode="clone")
    ]


@pytest.mark.parametrize(
    "body, said",
    [
        ("ANA\nOne /* hidden /* nested */ Ignored. */ two.\n", "One two."),
        (
            "ANA\nOne.\n\n/* ANA\nHidden.\n/* inner */\nStill hidden.\n*/\n\nANA\nTwo.\n",
            "One. | Two.",
        ),
        ("ANA\nOne /* across\n\nANA\nthe cue */ two.\n", "One two."),
        ("ANA\nSay \\/\\* this.\n", "Say /* this."),
    ],
)
def test_boneyards_nest_and_hide_everything_inside(tmp_path, body, said):
    texts = spoken(tmp_path, "INT. ROOM - DAY\n\n" + body)
    assert " | ".join(t.split("> ", 1)[1] for t in texts) == said


def test_an_unclosed_nested_boneyard_is_located_at_its_outer_opener():
    with pytest.raises(ScriptError) as info:
        read("ANA\nHi.\n\n/* outer\n/* inner */\nstill open\n")
    assert (info.value.position.line, info.value.position.column) == (4, 1)
    assert "unclosed boneyard" in info.value.message


@pytest.mark.parametrize(
    "written, said",
    [
        ("Escape\\_escape.", "Escape_escape."),
        ("5 \\* 5 is 25.", "five * five is twenty-five."),
        ("\\*\\*not bold\\*\\*.", "**not bold**."),
        ("Under\\_score and \\_lead.", "Under_score and _lead."),
        ("A back\\\\slash.", "A back\\slash."),
        ("Bang \\! and at \\@ and tilde \\~ too.", "Bang! and at @ and tilde ~ too."),
    ],
)
def test_backslash_escapes_keep_their_character(tmp_path, written, said):
    (text,) = spoken(tmp_path, f"INT. ROOM - DAY\n\nANA\n{written}\n")
    assert text == f"<|speaker:0|> {said}"


@pytest.mark.parametrize("marks", ["...", "\u2014", "\u2014 \u2014", "\u2026"])
def test_punctuation_only_action_is_a_pause_after_the_line_before(tmp_path, marks):
    path = fountain_play(
        tmp_path,
        f"INT. ROOM - DAY\n\nA door opens.\n\n{marks}\n\nANA\nHello.\n",
        cast="narrator: N\ncast:\n  ANA: {}\n  N: {}\n",
    )
    script = load_script(path)
    lines = script.scenes[0].lines
    assert [(line.speaker, line.text) for line in lines] == [
        ("N", "A door opens."),
        ("ANA", "Hello."),
    ]
    assert lines[0].beat_s > 0
    assert any("has no words: a pause" in w.message for w in script.warnings)


@pytest.mark.parametrize(
    "body, row",
    [
        ("HOLMES: Come in, Watson.\n", "HOLMES: Come in, Watson."),
        ("HOLMES:\nCome in, Watson.\n", "HOLMES:"),
        ("Holmes (V.O.): Come in.\n", "Holmes (V.O.): Come in."),
        ("Holmes\nCome in, Watson.\n", "Holmes"),
    ],
)
def test_action_that_opens_with_a_cast_name_not_as_a_cue_is_warned_about(tmp_path, body, row):
    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\nWATSON\nHello?\n\n" + body,
        cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n  WATSON: {}\n",
    )
    script = load_script(path)
    assert [line.speaker for line in script.lines()] == [
        "WATSON",
        "NARRATOR",
    ]  # still action, as the spec says
    warned = [(str(w.position), w.message) for w in script.warnings if "opens with" in w.message]
    assert warned == [
        (
            f"{path}:6:1",
            f"action {row!r} opens with HOLMES's name, but Fountain reads it as "
            "action, not as a cue: write the cue in capitals on a row of its own "
            "(HOLMES) and the speech on the rows under it",
        )
    ]


def test_action_that_mentions_a_cast_name_later_or_is_forced_is_not_warned_about(tmp_path):
    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\nWATSON\nHello?\n\nHolmes looks up: nothing.\n\n"
        "!HOLMES: a sign on the door\n\nNote: Holmes is tired.\n",
        cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n  WATSON: {}\n",
    )
    script = load_script(path)
    assert not [w for w in script.warnings if "opens with" in w.message]


def test_fountain_of_name_colon_speeches_says_how_to_write_a_cue(tmp_path, capsys):
    script = tmp_path / "radio.fountain"
    script.write_text("INT. BAKER STREET - NIGHT\n\nHOLMES: Come in.\n\nWATSON: Thank you.\n")
    (tmp_path / "radio.cast.yaml").write_text(CAST)
    assert main(["check", str(script)]) == 2
    assert one_error_line(capsys).splitlines()[0] == (
        f"{script}:1:1: nothing to render: the script has no lines (its 2 action paragraphs are spoken "
        "only when the cast names a narrator (narrator: NAME); a speech needs its character cue in "
        "capitals on a row of its own, not 'NAME: speech')"
    )


@pytest.mark.parametrize("speech, row", [("Who is it?\n(laughing)\n", 8), ("(laughing)\n", 7)])
def test_a_parenthetical_with_no_words_after_it_is_warned_about(tmp_path, speech, row):
    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\nWATSON\nHello?\n\nHOLMES\n" + speech,
        cast="cast:\n  HOLMES: {}\n  WATSON: {}\n",
    )
    script = load_script(path)
    warned = [
        (str(w.position), w.message) for w in script.warnings if "no words after it" in w.message
    ]
    assert warned == [
        (
            f"{path}:{row}:1",
            "parenthetical '(laughing)' of HOLMES has no words after it, so it "
            "directs nothing: put it before the words it directs, or write it "
            "in the speech as a tag ([laughing])",
        )
    ]


def test_a_beat_after_the_words_is_not_warned_about(tmp_path):
    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\nHOLMES\nWho is it?\n(beat)\n",
        cast="cast:\n  HOLMES: {}\n",
    )
    script = load_script(path)
    assert script.lines()[0].beat_s == 0.5
    assert not [w for w in script.warnings if "no words after it" in w.message]


def test_a_cue_with_a_curly_apostrophe_is_the_cast_member_written_with_a_straight_one(tmp_path):
    path = fountain_play(
        tmp_path,
        "INT. KITCHEN - DAY\n\nMRS. O\u2019BRIEN\nTea?\n\nO\u2018NEILL\nPlease.\n",
        cast="cast:\n  MRS. O'BRIEN: {}\n  O'NEILL: {}\n",
    )
    assert [line.speaker for line in load_script(path).lines()] == ["MRS. O'BRIEN", "O'NEILL"]


def test_a_cue_inside_action_without_a_blank_line_before_it_is_warned_about(tmp_path):
    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\nHolmes enters.\nWATSON\nHello?\n\nHOLMES\nSit.\n",
        cast="cast:\n  HOLMES: {}\n  WATSON: {}\n",
    )
    script = load_script(path)
    assert [line.speaker for line in script.lines()] == ["HOLMES"]  # the spec reads it as action
    warned = [(str(w.position), w.message) for w in script.warnings if "blank line" in w.message]
    assert warned == [
        (
            f"{path}:4:1",
            "character cue 'WATSON' (WATSON) is inside action, so Fountain reads it "
            "and the speech under it as action: put a blank line before it",
        )
    ]


@pytest.mark.parametrize("before", ["", "WATSON\nHello?\n\nHolmes looks up.\n\n"])
def test_dual_dialogue_with_no_speech_right_before_it_is_warned_about_and_not_overlapped(
    tmp_path, before
):
    path = fountain_play(
        tmp_path,
        "INT. BAKER STREET - DAY\n\n" + before + "HOLMES ^\nCome in.\n",
        cast="narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  HOLMES: {}\n  WATSON: {}\n",
    )
    script = load_script(path)
    holmes = [line for line in script.lines() if line.speaker == "HOLMES"]
    assert [line.overlap for line in holmes] == [False]
    row = 3 + before.count("\n")
    warned = [(str(w.position), w.message) for w in script.warnings if "dual dialogue" in w.message]
    assert warned == [
        (
            f"{path}:{row}:1",
            "dual dialogue '^' on HOLMES's cue has no speech right before it to "
            "speak with, so it is an ordinary speech: put it right after the "
            "speech it goes with",
        )
    ]


def test_an_invisible_character_in_fountain_is_a_located_warning_naming_it():
    script = read("ANA\nRight\u202eto left.\n")
    assert [
        (w.position.line, w.position.column) for w in script.warnings if "U+202E" in w.message
    ] == [(2, 6)]
