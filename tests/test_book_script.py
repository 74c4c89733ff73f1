"""Books in scripts: the `book:` block, chapters (YAML and Fountain), credits and chapter
headings read aloud, marked as generated."""

from __future__ import annotations

import json

import pytest

from drama_cli.cli import main
from drama_cli.errors import ScriptError
from drama_cli.script.load import load_script

BOOK = """\
title: Tiny Book
narrator: N
book:
  subtitle: A Story
  author: Jane Doe
  narrator: Sam Reader
  year: "2026"
  copyright: Copyright 2026 Jane Doe
{extra}cast:
  N: {{}}
  A: {{}}
chapters:
  - title: Chapter One
    scenes:
      - lines:
          - N: It was a dark night.
          - A: Who is there?
      - id: hall
        lines:
          - N: The hall was empty.
  - title: Chapter Two
    scenes:
      - id: dawn
        lines:
          - N: Morning came.
"""


def _write(tmp_path, text, name="book.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _lines(script):
    return [
        (scene.id, line.id, line.speaker, line.text, line.generated)
        for scene in script.scenes
        for line in scene.lines
    ]


def test_yaml_chapters_credits_and_headings(tmp_path):
    script = load_script(_write(tmp_path, BOOK.format(extra="")))
    assert script.book.author == "Jane Doe" and script.book.year == "2026"
    assert script.book.title == "Tiny Book"  # from the script's title
    assert [(c.number, c.title, c.scenes, c.kind) for c in script.chapters] == [
        (0, "Opening Credits", ["opening-credits"], "opening"),
        (1, "Chapter One", ["scene-1", "hall"], "chapter"),
        (2, "Chapter Two", ["dawn"], "chapter"),
        (3, "Closing Credits", ["closing-credits"], "closing"),
    ]
    assert _lines(script) == [
        (
            "opening-credits",
            "opening-credits-1",
            "N",
            "Tiny Book: A Story, written by Jane Doe, narrated by Sam Reader.",
            True,
        ),
        ("scene-1", "scene-1-heading", "N", "Chapter One.", True),
        ("scene-1", "scene-1-1", "N", "It was a dark night.", False),
        ("scene-1", "scene-1-2", "A", "Who is there?", False),
        ("hall", "hall-1", "N", "The hall was empty.", False),
        ("dawn", "dawn-heading", "N", "Chapter Two.", True),
        ("dawn", "dawn-1", "N", "Morning came.", False),
        (
            "closing-credits",
            "closing-credits-1",
            "N",
            "This has been Tiny Book, written by Jane Doe, narrated by Sam Reader.",
            True,
        ),
        ("closing-credits", "closing-credits-2", "N", "Copyright 2026 Jane Doe.", True),
        ("closing-credits", "closing-credits-3", "N", "The end.", True),
    ]
    heading = script.scene("scene-1").lines[0]
    assert heading.pause_after_s == 1.5
    assert [s.kind for s in heading.spans] == ["text"]


def test_producer_credits_and_no_headings(tmp_path):
    extra = (
        "  chapter_headings: false\n  opening_credits:\n    - A: Welcome, listener.\n"
        "  closing_credits: none\n"
    )
    script = load_script(
        _write(
            tmp_path,
            BOOK.format(extra="").replace(
                "  copyright: Copyright 2026 Jane Doe\n",
                "  copyright: Copyright 2026 Jane Doe\n" + extra,
            ),
        )
    )
    assert [c.kind for c in script.chapters] == ["opening", "chapter", "chapter"]
    assert _lines(script)[0] == (
        "opening-credits",
        "opening-credits-1",
        "A",
        "Welcome, listener.",
        False,
    )
    assert not any(line.generated for line in script.lines())
    assert script.scenes[-1].id == "dawn"


def test_chapter_on_scenes_joins_same_titles_in_order(tmp_path):
    text = """\
cast:
  N: {}
scenes:
  - id: a
    chapter: One
    lines: [N: First.]
  - id: b
    chapter: Two
    lines: [N: Second.]
  - id: c
    chapter: One
    lines: [N: Third.]
  - id: d
    title: Interlude
    lines: [N: Fourth.]
"""
    script = load_script(_write(tmp_path, text))
    assert script.book is None
    assert [(c.number, c.title, c.scenes) for c in script.chapters] == [
        (1, "One", ["a", "c"]),
        (2, "Two", ["b"]),
        (3, "Interlude", ["d"]),
    ]
    assert not any(line.generated for line in script.lines())  # not a book: nothing added


def test_chapters_entries_with_the_same_title_stay_separate_and_in_order(tmp_path):
    text = """\
cast:
  N: {}
chapters:
  - title: Interlude
    scenes:
      - id: a
        lines: [N: First interlude.]
  - title: Part Two
    scenes:
      - id: b
        lines: [N: Middle.]
  - title: Interlude
    scenes:
      - id: c
        lines: [N: Second interlude.]
"""
    script = load_script(_write(tmp_path, text))
    assert [(c.number, c.title, c.scenes) for c in script.chapters] == [
        (1, "Interlude", ["a"]),
        (2, "Part Two", ["b"]),
        (3, "Interlude", ["c"]),
    ]


def test_fountain_sections_with_the_same_title_stay_separate(tmp_path):
    text = (
        "# Chapter One\n\nINT. HALL - NIGHT\n\nANNA\nFirst.\n\n"
        "# Chapter Two\n\nINT. STAIRS - NIGHT\n\nANNA\nSecond.\n\n"
        "# Chapter One\n\nEXT. GARDEN - DAY\n\nANNA\nThird.\n"
    )
    path = _write(tmp_path, text, "same.fountain")
    (tmp_path / "same.cast.yaml").write_text("cast:\n  ANNA: {}\n")
    script = load_script(path)
    assert [(c.number, c.title, c.scenes) for c in script.chapters] == [
        (1, "Chapter One", ["scene-1"]),
        (2, "Chapter Two", ["scene-2"]),
        (3, "Chapter One", ["scene-3"]),
    ]


def test_a_chapter_with_an_empty_scene_list_is_a_located_error(tmp_path, capsys):
    path = _write(
        tmp_path,
        BOOK.format(extra="").replace(
            "  - title: Chapter Two\n    scenes:\n",
            "  - title: Chapter Two\n    scenes: []\n  - title: Chapter Three\n    scenes:\n",
        ),
    )
    with pytest.raises(ScriptError) as err:
        load_script(path)
    assert "chapter 'Chapter Two' has no scenes" in str(err.value)
    assert (err.value.position.line, err.value.position.column) == (22, 13)
    assert main(["check", str(path)]) == 2
    assert "book.yaml:22:13:" in capsys.readouterr().err


def test_a_script_without_chapters_is_one_chapter_per_scene(tmp_path):
    text = "cast:\n  N: {}\nscenes:\n  - id: x\n    lines: [N: One.]\n  - id: y\n    lines: [N: Two.]\n"
    script = load_script(_write(tmp_path, text))
    assert [(c.number, c.title, c.scenes) for c in script.chapters] == [
        (1, "x", ["x"]),
        (2, "y", ["y"]),
    ]


FOUNTAIN = """\
Title: The Lantern
Author: Ada Finch
Narrator: Sam Reader
Year: 1901

# Chapter 1: Night

## Part of the night

INT. HALL - NIGHT

The wind blows.

ANNA
Who is there?

INT. STAIRS - NIGHT

ANNA
Nobody.

# Chapter 2: Day

EXT. GARDEN - DAY

ANNA
Morning.
"""


def test_fountain_sections_are_chapters_and_the_title_page_is_the_book(tmp_path):
    path = _write(tmp_path, FOUNTAIN, "lantern.fountain")
    (tmp_path / "lantern.cast.yaml").write_text(
        "narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  ANNA: {}\n"
    )
    script = load_script(path)
    book = script.book
    assert (book.title, book.author, book.narrator, book.year) == (
        "The Lantern",
        "Ada Finch",
        "Sam Reader",
        "1901",
    )
    assert [(c.title, c.scenes) for c in script.chapters] == [
        ("Opening Credits", ["opening-credits"]),
        ("Chapter 1: Night", ["scene-1", "scene-2"]),
        ("Chapter 2: Day", ["scene-3"]),
        ("Closing Credits", ["closing-credits"]),
    ]
    first = script.scene("scene-1").lines
    assert (first[0].text, first[0].generated) == ("Chapter 1: Night.", True)
    assert [line.text for line in first[1:]] == [
        "The wind blows.",
        "Who is there?",
    ]  # narrated action kept
    assert (
        script.scene("opening-credits").lines[0].text
        == "The Lantern, written by Ada Finch, narrated by Sam Reader."
    )


def test_fountain_without_a_narrator_key_stays_a_play(tmp_path):
    path = _write(tmp_path, FOUNTAIN.replace("Narrator: Sam Reader\n", ""), "play.fountain")
    (tmp_path / "play.cast.yaml").write_text("cast:\n  ANNA: {}\n")
    script = load_script(path)
    assert script.book is None
    assert [c.title for c in script.chapters] == ["Chapter 1: Night", "Chapter 2: Day"]
    assert not any(line.generated for line in script.lines())


@pytest.mark.parametrize(
    "change, message, line",
    [
        (("narrator: N\n", ""), "spoken by the narrator, but the script names none", 3),
        (
            ('  year: "2026"\n', '  year: "2026"\n  opening_credits: maybe\n'),
            "opening_credits must be",
            8,
        ),
        (("chapters:\n", "scenes: []\nchapters:\n"), "use either 'chapters:' or 'scenes:'", 13),
        (("  - title: Chapter Two\n", '  - title: ""\n'), "the chapter title is empty", 21),
    ],
)
def test_bad_book_blocks_are_located_errors(tmp_path, capsys, change, message, line):
    path = _write(tmp_path, BOOK.format(extra="").replace(*change))
    with pytest.raises(ScriptError) as err:
        load_script(path)
    assert message in str(err.value)
    assert err.value.position.line == line
    assert main(["check", str(path)]) == 2
    assert f"book.yaml:{line}:" in capsys.readouterr().err


def test_check_marks_generated_lines(tmp_path, capsys):
    path = _write(tmp_path, BOOK.format(extra=""))
    assert main(["check", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    scenes = {s["id"]: s for s in report["scenes"]}
    assert scenes["scene-1"]["generated_lines"] == ["scene-1-heading"]
    assert scenes["scene-1"]["chapter"] == "Chapter One"
    assert [c["title"] for c in report["chapters"]][1:3] == ["Chapter One", "Chapter Two"]
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "generated dawn-heading: N: Chapter Two." in out
