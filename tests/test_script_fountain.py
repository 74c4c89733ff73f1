"""The Fountain reader: every element, cues, parentheticals, notes, boneyard, cast files."""

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    assert script.title_page == {"Title": "Night Ferry", "Author": "A. Writer", "Contact": "1 Quay Road\nHarbour Town"}
    assert script.title == "Night Ferry"


@pytest.mark.parametrize("heading", ["INT. HOUSE - DAY", "ext. house", "EST. CITY", "INT./EXT. CAR", "I/E TRAIN",
                                     ".KITCHEN", "INT HOUSE DAY"])
def test_scene_headings(heading):
    script = read(f"{heading}\n\nA line.\n")
    assert script.scenes[0].title == heading.lstrip(".")


def test_scene_numbers_become_ids():
    script = read("INT. A - DAY #12A#\n\nX.\n\nINT. B - DAY\n\nY.\n")
    assert [(s.id, s.number, s.title) for s in script.scenes] == [("scene-12A", "12A", "INT. A - DAY"),
                                                                 ("scene-2", None, "INT. B - DAY")]


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
    assert kinds(room) == ["section", "section", "synopsis", "heading", "centered", "lyric", "action",
                           "transition", "transition", "page_break"]
    assert [e.text for e in room.elements[4:9]] == ["THE END", "Sing a song", "SHOUTED ACTION", "CUT TO:", "FADE OUT"]
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
    assert [(line.text, line.notes) for line in lines] == [("Is he asleep?", ["whispering"]), ("Good.", ["to Tom"])]


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
    found = [(w.position.line, w.position.column, w.message) for w in script.warnings if "parenthetical" in w.message]
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
    script = read("ANA\nI *really* mean **it**, _truly_. \\*ok\\*\n")
    assert script.scenes[0].lines[0].text == "I really mean it, truly. *ok*"


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


def test_cast_file_beside_the_script_and_cast_option(tmp_path):
    (tmp_path / "play.fountain").write_text("ALGY\nHello.\n\nERNEST (V.O.)\nHi.\n")
    (tmp_path / "play.cast.yaml").write_text(
        "narrator: NARR\ncast:\n  ALGERNON:\n    voice: refs/a.wav\n    aliases: [ALGY]\n"
        "  JACK:\n    voice: refs/j.wav\n    aliases: [ERNEST]\n  NARR: refs/n.wav\n")
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
        ("scene-1-a1", "N", "action"), ("scene-1-1", "ANA", "dialogue")]


FOUNTAIN_ALPHABET = list("ABab .()^@!#=~>< \n\n[]/*:_-'") + ["INT. ", "[[", "]]", "/*", "*/", "  \n", "\r\n", "\ufeff"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FOUNTAIN_ALPHABET), max_size=60).map("".join))
def test_random_fountain_gives_a_script_or_a_located_script_error(text):
    try:
        script = read_fountain(text, "r.fountain")
    except ScriptError as err:
        assert err.position.file == "r.fountain" and err.position.line >= 1 and err.position.column >= 1
    else:
        for line in script.lines():
            assert isinstance(line, Line) and line.text.strip()
            assert "\r" not in line.text and "\ufeff" not in line.text


def test_speech_left_empty_by_markup_is_not_a_line():
    script = read_fountain("A\n/*/*/*\n", "r.fountain")
    assert script.lines() == []


def test_beat_before_the_words_pauses_after_the_previous_line():
    script = read("ANA\nWell?\n\nBEN\n(beat)\nNo.\n")
    ana, ben = script.lines()
    assert (ana.beat_s, ana.pause_after_s, ben.beat_s, ben.notes) == (0.5, None, 0.0, [])
