"""`drama import` of a play: Standard Ebooks' *The Importance of Being Earnest* (the shared
fixture, zipped in the test), and the pieces that read it: cast entries, name variants,
directions of manner, spoken headings."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from epub_fixtures import EARNEST, build_epub, source_tree, write_epub

from drama_cli.cli import main
from drama_cli.manuscript.cast_names import parse_entries, parse_entry, resolve, split_joint
from drama_cli.manuscript.headings import spoken_heading
from drama_cli.manuscript.play import manner_note
from drama_cli.script.load import load_script

# Each speech heading of the play → the characters who speak it.
ROW_SPEAKERS = {
    "Algernon": ["ALGERNON"],
    "Jack": ["JACK"],
    "Lane": ["LANE"],
    "Merriman": ["MERRIMAN"],
    "Lady Bracknell": ["LADY BRACKNELL"],
    "Gwendolen": ["GWENDOLEN"],
    "Cecily": ["CECILY"],
    "Miss Prism": ["MISS PRISM"],
    "Chasuble": ["CHASUBLE"],
    "Jack and Algernon": ["JACK", "ALGERNON"],
    "Gwendolen and Cecily": ["GWENDOLEN", "CECILY"],
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """(script path, --json report) of the play imported with the defaults."""
    folder = tmp_path_factory.mktemp("earnest")
    epub = build_epub(EARNEST, folder)
    out = folder / "earnest.yaml"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["import", str(epub), "-o", str(out), "--json"]) == 0
    return out, json.loads(printed.getvalue())


@pytest.fixture
def earnest(imported):
    return imported[0]


def _speeches(script) -> list[list[str]]:
    """The speakers of each speech in order: a line, with the lines that overlap it."""
    speeches: list[list[str]] = []
    for chapter in script.chapters:
        for scene_id in chapter.scenes:
            for line in script.scene(scene_id).lines:
                if line.speaker == "NARRATOR":
                    continue
                if line.overlap:
                    speeches[-1].append(line.speaker)
                else:
                    speeches.append([line.speaker])
    return speeches


def _merge_repeats(speeches: list[list[str]]) -> list[list[str]]:
    return [s for i, s in enumerate(speeches) if i == 0 or s != speeches[i - 1]]


def test_play_cast_comes_from_the_dramatis_personae_with_descriptions(earnest):
    script = load_script(earnest)
    cast = {name: member.description for name, member in script.cast.items()}
    assert cast == {
        "NARRATOR": None,
        "JACK": "John Worthing, J. P.",
        "ALGERNON": "Algernon Moncrieff",
        "CHASUBLE": "Rev. Canon Chasuble, D.D.",
        "MERRIMAN": "Butler",
        "LANE": "Manservant",
        "LADY BRACKNELL": None,
        "GWENDOLEN": "Hon. Gwendolen Fairfax",
        "CECILY": "Cecily Cardew",
        "MISS PRISM": "Governess",
    }


def test_every_persona_row_is_a_line_of_its_character(earnest):
    rows = []
    for act in (1, 2, 3):
        xhtml = (source_tree(EARNEST) / "epub" / "text" / f"act-{act}.xhtml").read_text(
            encoding="utf-8"
        )
        rows += re.findall(r'<td epub:type="z3998:persona">([^<]+)</td>', xhtml)
    assert len(rows) == 879
    expected = [ROW_SPEAKERS[row] for row in rows]
    assert _merge_repeats(_speeches(load_script(earnest))) == _merge_repeats(expected)


def test_front_and_back_matter_is_never_voiced_and_is_reported(imported):
    out, report = imported
    assert report["left_out"] == {
        "title page": 1,
        "imprint": 1,
        "dramatis personae (made the cast)": 1,
        "half-title page": 1,
        "colophon": 1,
        "copyright page": 1,
    }
    script = load_script(out)
    assert [c.title for c in script.chapters] == [
        "Opening Credits",
        "The Scenes of the Play",
        "Act One",
        "Act Two",
        "Act Three",
        "Closing Credits",
    ]
    spoken = " ".join(line.text for scene in script.scenes for line in scene.lines)
    for matter in ("Standard Ebooks", "Uncopyright", "public domain", "Dramatis", "Imprint"):
        assert matter not in spoken
    assert "\u2060" not in spoken  # word joiners around dashes are not text


def test_act_one_opens_as_written(earnest):
    lines = load_script(earnest).scene("chapter-2").lines
    assert [(line.speaker, line.text, line.note) for line in lines[:10]] == [
        ("NARRATOR", "Act One.", None),
        (
            "NARRATOR",
            "Scene: Morning-room in Algernon’s flat in Half-Moon Street. The room is luxuriously "
            "and artistically furnished. The sound of a piano is heard in the adjoining room.",
            None,
        ),
        (
            "NARRATOR",
            "Lane is arranging afternoon tea on the table, and after the music has ceased, "
            "Algernon enters.",
            None,
        ),
        ("ALGERNON", "Did you hear what I was playing, Lane?", None),
        ("LANE", "I didn’t think it polite to listen, sir.", None),
        (
            "ALGERNON",
            "I’m sorry for that, for your sake. I don’t play accurately—anyone can play "
            "accurately—but I play with wonderful expression. As far as the piano is concerned, "
            "sentiment is my forte. I keep science for Life.",
            None,
        ),
        ("LANE", "Yes, sir.", None),
        (
            "ALGERNON",
            "And, speaking of the science of Life, have you got the cucumber sandwiches cut "
            "for Lady Bracknell?",
            None,
        ),
        ("LANE", "Yes, sir.", None),
        ("NARRATOR", "Hands them on a salver.", None),  # business: narrated, never Lane's
    ]
    languid = next(
        line for line in lines if line.text.startswith("I don’t know that I am much interested")
    )
    assert (languid.speaker, languid.note) == ("ALGERNON", "languidly")


PAGE = (
    '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
    'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>x</title></head><body epub:type="{}">{}</body></html>'
)
SMALL_PLAY = {
    "cast.xhtml": (
        "frontmatter",
        '<section epub:type="z3998:dramatis-personae"><h2>Persons</h2><ul>'
        "<li><p>Sir Toby Belch, uncle to Olivia</p></li><li><p>Olivia, a countess</p></li>"
        "<li><p>Maria, her woman</p></li></ul></section>",
    ),
    "act.xhtml": (
        "bodymatter",
        '<section epub:type="chapter"><h2>Act II</h2>'
        '<section epub:type="z3998:scene"><h3>Scene I</h3><table><tbody>'
        '<tr><td/><td><i epub:type="z3998:stage-direction">Enter <b>Toby</b>.</i></td></tr>'
        '<tr><td epub:type="z3998:persona">Sir Toby</td><td><i epub:type="z3998:stage-direction">'
        'Merrily.</i> Approach, Maria. <i epub:type="z3998:stage-direction">She sits.</i> '
        'We did keep time.<a epub:type="noteref" href="n.xhtml#1">1</a></td></tr>'
        '</tbody></table></section><section epub:type="z3998:scene"><h3>Scene II</h3><table><tbody>'
        '<tr><td epub:type="z3998:persona">Olivia and Maria</td><td>Peace!</td></tr>'
        '<tr><td epub:type="z3998:persona">OLIVIA</td><td>Go.</td></tr>'
        "</tbody></table></section></section>",
    ),
}


def _small_play(folder: Path) -> Path:
    """A two-scene act of a play as an EPUB 3, built here: a cast page, speech rows with
    directions at the start, in the middle and alone, a joint heading and a note reference."""
    items = "".join(
        f'<item id="{n}" href="{n}" media-type="application/xhtml+xml"/>' for n in SMALL_PLAY
    )
    spine = "".join(f'<itemref idref="{n}"/>' for n in SMALL_PLAY)
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Twelfth Night</dc:title>'
        f"</metadata><manifest>{items}</manifest><spine>{spine}</spine></package>"
    )
    pages = {name: PAGE.format(kind, body) for name, (kind, body) in SMALL_PLAY.items()}
    return write_epub(folder / "small-play.epub", "content.opf", opf, pages)


@pytest.mark.parametrize("directions", ["narrate", "drop"])
def test_a_play_scenes_directions_and_joint_speeches(tmp_path, capsys, directions):
    out = tmp_path / "play.yaml"
    assert (
        main(
            [
                "import",
                str(_small_play(tmp_path)),
                "-o",
                str(out),
                "--directions",
                directions,
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    script = load_script(out)
    assert {n: m.description for n, m in script.cast.items()} == {
        "NARRATOR": None,
        "SIR TOBY": "Sir Toby Belch, uncle to Olivia",
        "OLIVIA": "a countess",
        "MARIA": "her woman",
    }
    act = script.chapters[1]
    assert (act.title, [script.scene(s).title for s in act.scenes]) == (
        "Act Two",
        ["Scene One", "Scene Two"],
    )
    lines = [
        (line.speaker, line.text, line.note, line.overlap)
        for scene in act.scenes
        for line in script.scene(scene).lines
        if not line.generated
    ]
    spoken = [
        ("SIR TOBY", "Approach, Maria.", "merrily", False),
        ("SIR TOBY", "We did keep time.", None, False),
        ("OLIVIA", "Peace!", None, False),
        ("MARIA", "Peace!", None, True),
        ("OLIVIA", "Go.", None, False),
    ]
    if directions == "drop":
        assert lines == spoken and report["left_out"]["stage direction"] == 2
    else:
        assert lines == [
            ("NARRATOR", "Enter Toby.", None, False),
            *spoken[:1],
            ("NARRATOR", "She sits.", None, False),
            *spoken[1:],
        ]
    assert report["left_out"]["note reference"] == 1
    assert main(["check", str(out)]) == 0


def test_the_imported_play_passes_check(earnest, capsys):
    assert main(["check", str(earnest)]) == 0
    err = capsys.readouterr().err
    assert "error" not in err


@pytest.mark.parametrize(
    "direction, note",
    [
        ("Languidly.", "languidly"),
        ("Very sweetly.", "very sweetly"),
        ("In a pathetic voice.", "in a pathetic voice"),
        ("Thoughtfully and sadly.", "thoughtfully and sadly"),
        ("Laughing.", "laughing"),
        ("Rising.", None),
        ("Hands them on a salver.", None),
        ("Sitting down on the sofa.", None),
        ("Enter Lane.", None),
    ],
)
def test_only_directions_of_manner_become_notes(direction, note):
    assert manner_note(direction) == note


def test_names_in_speech_headings_resolve_to_cast_entries():
    entries = [
        parse_entry(text)
        for text in (
            "John Worthing, J. P.",
            "Lady Bracknell",
            "Merriman, Butler",
            "Rev. Canon Chasuble, D.D.",
            "Lord Bracknell",
        )
    ]
    assert (entries[0].name, entries[0].description) == (
        "John Worthing",
        None,
    )  # J. P. describes nobody
    assert entries[2].description == "Butler"
    assert resolve("Jack", entries) is entries[0]  # a familiar form
    assert resolve("LADY BRACKNELL", entries) is entries[1]
    assert resolve("Lady B.", entries) is entries[1]
    assert resolve("Chasuble", entries) is entries[3]
    assert resolve("Bracknell", entries) is None  # Lady or Lord: ambiguous, a character of its own
    assert split_joint("Jack and Algernon") == ["Jack", "Algernon"]


@pytest.mark.parametrize(
    "heading, spoken",
    [
        ("Act I", "Act One"),
        ("ACT III", "Act Three"),
        ("IV", "Chapter Four"),
        ("Chapter 2: The Ball", "Chapter Two: The Ball"),
        ("I. The Lamp", "Chapter One: The Lamp"),
        ("I Remember", "I Remember"),
        ("MIX", "MIX"),
        ("Scene 21", "Scene Twenty-One"),
    ],
)
def test_headings_are_spoken_as_words(heading, spoken):
    assert spoken_heading(heading) == spoken


def test_to_fountain_writes_the_same_play_as_a_screenplay_and_its_cast(tmp_path, capsys):
    epub = _small_play(tmp_path)
    assert main(["import", str(epub), "-o", str(tmp_path / "play.yaml")]) == 0
    assert (
        main(["import", str(epub), "-o", str(tmp_path / "play.fountain"), "--to", "fountain"]) == 0
    )
    assert (tmp_path / "play.cast.yaml").is_file()
    yaml_play, fountain_play = (
        load_script(tmp_path / "play.yaml"),
        load_script(tmp_path / "play.fountain"),
    )

    def performed(script):
        return [
            (line.speaker, line.text, line.note, line.overlap)
            for scene in script.scenes
            for line in scene.lines
            if not line.generated
        ]

    assert performed(fountain_play) == performed(yaml_play)
    assert fountain_play.cast["SIR TOBY"].description == "Sir Toby Belch, uncle to Olivia"
    assert main(["check", str(tmp_path / "play.fountain")]) == 0
    (tmp_path / "novel.md").write_text("# One\n\nIt was dark.\n", encoding="utf-8")
    capsys.readouterr()
    assert (
        main(
            [
                "import",
                str(tmp_path / "novel.md"),
                "-o",
                str(tmp_path / "novel.fountain"),
                "--to",
                "fountain",
            ]
        )
        == 2
    )
    assert "--to fountain writes plays" in capsys.readouterr().err


TEXT_PLAY = """THE IMPORTANCE OF BEING EARNEST

THE PERSONS OF THE PLAY

John Worthing, J.P.
Algernon Moncrieff
Lane, Manservant

FIRST ACT

Morning-room in Algernon's flat.

[Lane is arranging afternoon tea on the table.]

ALGERNON. Did you hear what I was playing, Lane?

LANE: I didn't think it polite to listen, sir.

ALGERNON. (Languidly.) I don't know that I am much interested. _He sits._ Really.

JACK AND ALGERNON. Ernest!

ACT II. The Garden

JACK. Good afternoon.
"""


def test_a_plain_text_play_in_the_gutenberg_forms(tmp_path):
    (tmp_path / "earnest.txt").write_text(TEXT_PLAY, encoding="utf-8")
    out = tmp_path / "earnest.yaml"
    assert main(["import", str(tmp_path / "earnest.txt"), "-o", str(out)]) == 0
    script = load_script(out)
    assert {n: m.description for n, m in script.cast.items()} == {
        "NARRATOR": None,
        "JACK": "John Worthing, J.P.",
        "ALGERNON": "Algernon Moncrieff",
        "LANE": "Manservant",
    }
    assert [c.title for c in script.chapters][1:-1] == [
        "Act One",  # the title above the cast is the title page, never voiced
        "Act Two: The Garden",
    ]
    lines = [
        (line.speaker, line.text, line.note, line.overlap)
        for line in script.scene("chapter-1").lines
        if not line.generated
    ]
    assert lines == [
        ("NARRATOR", "Morning-room in Algernon's flat.", None, False),
        ("NARRATOR", "Lane is arranging afternoon tea on the table.", None, False),
        ("ALGERNON", "Did you hear what I was playing, Lane?", None, False),
        ("LANE", "I didn't think it polite to listen, sir.", None, False),
        ("ALGERNON", "I don't know that I am much interested.", "languidly", False),
        ("NARRATOR", "He sits.", None, False),
        ("ALGERNON", "Really.", None, False),
        ("JACK", "Ernest!", None, False),
        ("ALGERNON", "Ernest!", None, True),
    ]
    assert main(["check", str(out)]) == 0


def test_every_word_of_the_acts_is_spoken_or_a_speakers_name(earnest):
    """Nothing of the play vanishes: the acts' words are the script's lines and notes, less the
    speech headings (now the speakers) and the act headings (now chapter titles)."""
    from collections import Counter
    from xml.etree import ElementTree

    def words(text: str) -> Counter:
        return Counter(re.findall(r"[\w’']+", text.replace("\u2060", "").lower()))

    xhtml = "{http://www.w3.org/1999/xhtml}"
    source, names = Counter(), Counter()
    for act in (1, 2, 3):
        body = (
            ElementTree.parse(source_tree(EARNEST) / "epub" / "text" / f"act-{act}.xhtml")
            .getroot()
            .find(f"{xhtml}body")
        )
        source += words("".join(body.itertext()))
        names += words(
            " ".join(
                "".join(cell.itertext())
                for cell in body.iter(f"{xhtml}td")
                if cell.get("{http://www.idpf.org/2007/ops}type") == "z3998:persona"
            )
        )
        names += words("".join(body.find(f"{xhtml}section/{xhtml}h2").itertext()))
    script = load_script(earnest)
    written = Counter()
    for chapter in script.chapters[2:5]:
        for scene in chapter.scenes:
            for line in script.scene(scene).lines:
                if not line.generated and not line.overlap:
                    written += words(line.text) + words(line.note or "")
    assert written == source - names


def _cue_play_epub(path: Path) -> Path:
    """An EPUB play without Standard Ebooks' semantics: each speech a paragraph opening with its
    speaker's cue, as Project Gutenberg's EPUBs print plays."""
    speeches = "".join(
        f"<p>{name}. Line {index} of the play.</p>"
        for index, name in enumerate(["ALGERNON", "LANE"] * 3)
    )
    body = f"<section><h2>ACT I</h2><p>SCENE: Algernon's flat.</p>{speeches}<p>[Exit Lane.]</p></section>"
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Cues</dc:title></metadata><manifest>'
        '<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest>'
        '<spine><itemref idref="a"/></spine></package>'
    )
    page = f'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Cues</title></head><body>{body}</body></html>'
    return write_epub(path, "content.opf", opf, {"a.xhtml": page})


def test_an_epub_play_printed_with_speakers_cues_is_a_play(tmp_path):
    out = tmp_path / "cues.yaml"
    assert main(["import", str(_cue_play_epub(tmp_path / "cues.epub")), "-o", str(out)]) == 0
    script = load_script(out)
    assert list(script.cast) == ["NARRATOR", "ALGERNON", "LANE"]  # "SCENE:" names no one
    assert [c.title for c in script.chapters][1:-1] == ["Act One"]
    lines = [
        (line.speaker, line.text) for line in script.scene("chapter-1").lines if not line.generated
    ]
    assert lines == [
        ("NARRATOR", "SCENE: Algernon's flat."),
        *[
            (name, f"Line {index} of the play.")
            for index, name in enumerate(["ALGERNON", "LANE"] * 3)
        ],
        ("NARRATOR", "Exit Lane."),
    ]


def test_a_plain_text_play_with_each_speakers_name_above_the_speech(tmp_path):
    speeches = [
        ("ALGERNON", "Did you hear what I was playing, Lane?"),
        ("LANE", "I didn't think it polite, sir."),
        ("ALGERNON", "I'm sorry for that."),
        ("LANE", "Yes, sir."),
        ("ALGERNON", "Have you got the cucumber\nsandwiches cut?"),
        ("LADY BRACKNELL", "Good afternoon."),
    ]
    text = (
        "ACT I\n\nMorning-room.\n\n"
        + "\n\n".join(f"{name}\n{words}" for name, words in speeches)
        + "\n"
    )
    (tmp_path / "modern.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "modern.yaml"
    assert main(["import", str(tmp_path / "modern.txt"), "-o", str(out)]) == 0
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == ["Act One"]
    lines = [
        (line.speaker, line.text) for line in script.scene("chapter-1").lines if not line.generated
    ]
    assert lines == [
        ("NARRATOR", "Morning-room."),
        *[(name, " ".join(words.split())) for name, words in speeches],
    ]


PLAYS = Path(__file__).parent / "data" / "plays"


def _speech_share(script, tsv: Path) -> tuple[int, int]:
    """(speeches given to the right character, speeches) against the hand-checked `tsv`: each
    row's speech is the first line that opens with its words, and its speaker must be the row's."""
    lines = [line for scene in script.scenes for line in scene.lines if not line.generated]
    right = total = 0
    for row in tsv.read_text(encoding="utf-8").splitlines()[1:]:
        _, speaker, opening = row.split("\t")
        total += 1
        found = next(
            (line for line in lines if line.text.replace("’", "'").startswith(opening)), None
        )
        right += found is not None and found.speaker == speaker
    return right, total


@pytest.mark.parametrize("encoding", ["latin-1 declared", "windows-1252 undeclared"])
def test_a_gutenberg_play_is_a_full_cast_script_without_the_editions_pages(
    tmp_path, capsys, encoding
):
    data = (PLAYS / "a-dolls-house-act-1.txt").read_bytes()
    if encoding.startswith("windows"):  # curly quotes as Windows saves them, no charset line
        text = data.decode("latin-1").replace("Character set encoding: ISO-8859-1", "")
        data = text.replace("Don't", "Don\u2019t").encode("cp1252")
    (tmp_path / "dolls-house.txt").write_bytes(data)
    out = tmp_path / "dolls-house.yaml"
    assert main(["import", str(tmp_path / "dolls-house.txt"), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    script = load_script(out)
    right, total = _speech_share(script, PLAYS / "a-dolls-house-act-1.tsv")
    assert (right, total) == (16, 16)  # the goal is 95 %
    assert {n: m.description for n, m in script.cast.items()} == {
        "NARRATOR": None,
        "HELMER": "Torvald Helmer",
        "NORA": "his wife",
        "DOCTOR RANK": None,
        "MRS LINDE": None,
        "NILS KROGSTAD": None,
        "HELMER'S THREE YOUNG CHILDREN": None,
        "ANNE": "their nurse",
        "A HOUSEMAID": None,
        "PORTER": "A Porter",
    }
    assert [c.title for c in script.chapters][1:-1] == ["Prologue", "Act One"]
    for kind in ("title page", "transcriber's note", "errata list", "advertisement page"):
        assert report["left_out"][kind] >= 1, kind
    spoken = " ".join(line.text for scene in script.scenes for line in scene.lines)
    for matter in ("Gutenberg", "License", "Transcriber", "Produced by", "ERRATA", "net each"):
        assert matter not in spoken, matter
    assert "NORA." not in spoken and "_" not in spoken
    helmer = [line for line in script.scene("chapter-2").lines if line.speaker == "HELMER"]
    assert helmer[0].text == "Is that my little lark twittering out there?"
    assert "Don’t disturb me." in spoken or "Don't disturb me." in spoken
    assert main(["check", str(out)]) == 0


def test_cast_rows_naming_two_characters_give_two_cast_members():
    def names(row: str) -> list[tuple[str, str | None]]:
        return [(entry.name, entry.description) for entry in parse_entries(row)]

    assert names("Rosencrantz and Guildenstern, courtiers") == [
        ("Rosencrantz", "courtiers"),
        ("Guildenstern", "courtiers"),
    ]
    assert names("Lady Markby the Countess of Basildon") == [
        ("Lady Markby", None),
        ("the Countess of Basildon", None),
    ]
    assert names("Lady Basildon, Mrs. Marchmont") == [
        ("Lady Basildon", None),
        ("Mrs. Marchmont", None),
    ]
    assert names("Mr. and Mrs. Hardcastle") == [("Mr. Hardcastle", None), ("Mrs. Hardcastle", None)]
    # one character each: a description, a possessive, a rank of a place, an actor after a dash
    assert names("Theseus, Duke of Athens") == [("Theseus", "Duke of Athens")]
    assert names("Phipps, Lord Goring’s Servant") == [("Phipps", "Lord Goring’s Servant")]
    assert names("Sir Peter Teazle—Mr. King") == [("Sir Peter Teazle", "Mr. King")]
    assert names("The Earl of Caversham, K.G.") == [("The Earl of Caversham", None)]
    entries = [
        entry
        for row in ("The Earl of Caversham, K.G.", "Viscount Goring, his Son")
        + (
            "Lady Markby the Countess of Basildon",
            "Helmer's three young children",
            "Torvald Helmer",
        )
        for entry in parse_entries(row)
    ]
    assert resolve("Lord Caversham", entries).name == "The Earl of Caversham"  # a peer by rank
    assert resolve("Lord Goring", entries).name == "Viscount Goring"
    assert resolve("Lady Basildon", entries).name == "the Countess of Basildon"
    assert resolve("Lady Markby", entries).name == "Lady Markby"
    assert resolve("Helmer", entries).name == "Torvald Helmer"  # not Helmer's children


CHORUS_PLAY = """ACT I

[A hall. Enter ROSENCRANTZ and GUILDENSTERN, then the QUEEN.]

DRAMATIS PERSONAE

Rosencrantz and Guildenstern, courtiers
Gertrude, the Queen

SCENE I

ROSENCRANTZ. My lord!

GUILDENSTERN. My most dear lord!

ROSENCRANTZ AND GUILDENSTERN. We'll wait upon you.

QUEEN. Good gentlemen.

ROSENCRANTZ. Heavens make our presence pleasant!

BOTH. Amen.

ALL. Long live the King!
"""


def test_joint_and_chorus_headings_are_overlapping_lines_of_each_character(tmp_path):
    (tmp_path / "chorus.txt").write_text(CHORUS_PLAY, encoding="utf-8")
    out = tmp_path / "chorus.yaml"
    assert main(["import", str(tmp_path / "chorus.txt"), "-o", str(out)]) == 0
    script = load_script(out)
    assert list(script.cast) == ["NARRATOR", "ROSENCRANTZ", "GUILDENSTERN", "QUEEN"]
    lines = [
        (line.speaker, line.text, line.overlap)
        for scene in script.scenes
        for line in scene.lines
        if not line.generated and line.speaker != "NARRATOR"
    ]
    assert lines == [
        ("ROSENCRANTZ", "My lord!", False),
        ("GUILDENSTERN", "My most dear lord!", False),
        ("ROSENCRANTZ", "We'll wait upon you.", False),
        ("GUILDENSTERN", "We'll wait upon you.", True),
        ("QUEEN", "Good gentlemen.", False),
        ("ROSENCRANTZ", "Heavens make our presence pleasant!", False),
        ("QUEEN", "Amen.", False),  # both: the last two who spoke
        ("ROSENCRANTZ", "Amen.", True),
        ("ROSENCRANTZ", "Long live the King!", False),  # all: everyone in the scene
        ("GUILDENSTERN", "Long live the King!", True),
        ("QUEEN", "Long live the King!", True),
    ]
    assert main(["check", str(out)]) == 0
    fountain = tmp_path / "chorus.fountain"
    assert (
        main(["import", str(tmp_path / "chorus.txt"), "-o", str(fountain), "--to", "fountain"]) == 0
    )
    assert "GUILDENSTERN ^\nLong live the King!" in fountain.read_text(encoding="utf-8")
    assert main(["check", str(fountain)]) == 0
