"""`drama import` of plain text and Markdown: nothing read vanishes, the output never replaces
the manuscript, the title and author can be given, errors are one located line."""

from __future__ import annotations

import io
import json
import re
import sys
import zipfile
from collections import Counter

import pytest
from epub_fixtures import write_epub

from drama_cli.cli import main
from drama_cli.script.load import load_script

NOVEL = (
    "The Lantern\n\nChapter 1\nIt was a dark night, and the lamp was lit.\n\n"
    "She waited by the door.\n\n* * *\n\n[Illustration: A lamp]\n\nCHAPTER II.\n"
    "Morning came; the rain stopped.\nThe road was clear.\n"
)


def _words(text: str) -> list[str]:
    return re.findall(r"[\w’']+", text.lower())


def _script_words(path) -> list[str]:
    """Every word the script holds: chapter titles and line texts, generated lines left out."""
    script = load_script(path)
    words = []
    for chapter in script.chapters:
        if chapter.scenes[0] in ("opening-credits", "closing-credits"):
            continue
        words += _words(chapter.title)
        for scene in chapter.scenes:
            words += [
                w
                for line in script.scene(scene).lines
                if not line.generated
                for w in _words(line.text)
            ]
    return words


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_no_paragraph_vanishes_after_a_heading_line(tmp_path, capsys, newline):
    manuscript = tmp_path / "lantern.txt"
    manuscript.write_bytes(NOVEL.replace("\n", newline).encode("utf-8"))
    out = tmp_path / "lantern.yaml"
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["left_out"] == {"illustration": 1}
    left_out = Counter(_words("[Illustration: A lamp]"))
    made_up = Counter(["opening"])  # the title of the text before the first heading
    assert Counter(_script_words(out)) - made_up == Counter(_words(NOVEL)) - left_out
    script = load_script(out)
    assert [c.title for c in script.chapters][1:4] == ["Opening", "Chapter 1", "Chapter II"]
    assert script.scene("chapter-2").lines[1].text == "It was a dark night, and the lamp was lit."
    waited = script.scene("chapter-2").lines[2]
    assert (waited.text, waited.pause_after_s) == (
        "She waited by the door.",
        2.0,
    )  # the ornament: a pause
    assert (
        script.scene("chapter-3").lines[1].text
        == "Morning came; the rain stopped. The road was clear."
    )
    assert main(["check", str(out)]) == 0


def test_markdown_paragraph_right_under_its_heading_is_read(tmp_path):
    (tmp_path / "story.md").write_text("# One\nThe first words.\n\nThe second.\n", encoding="utf-8")
    out = tmp_path / "story.yaml"
    assert main(["import", str(tmp_path / "story.md"), "-o", str(out)]) == 0
    assert [line.text for line in load_script(out).scene("chapter-1").lines] == [
        "One.",
        "The first words.",
        "The second.",
    ]


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_the_output_is_never_the_manuscript(tmp_path, capsys, force):
    manuscript = tmp_path / "novel.txt"
    manuscript.write_text(NOVEL, encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(manuscript)
    for target in (manuscript, link, tmp_path / "." / "novel.txt"):
        assert main(["import", str(manuscript), "-o", str(target), *force]) == 2
        assert "is the manuscript being imported" in capsys.readouterr().err
    assert manuscript.read_text(encoding="utf-8") == NOVEL


def test_title_and_author_options_fill_the_book_block(tmp_path):
    manuscript = tmp_path / "draft-3.txt"
    manuscript.write_text(NOVEL, encoding="utf-8")
    out = tmp_path / "book.yaml"
    assert (
        main(
            [
                "import",
                str(manuscript),
                "-o",
                str(out),
                "--title",
                "The Lantern",
                "--author",
                "Ada Finch",
            ]
        )
        == 0
    )
    script = load_script(out)
    assert (script.title, script.book.title, script.book.author) == (
        "The Lantern",
        "The Lantern",
        "Ada Finch",
    )


def _broken_epub(path, container: bool, page: str = "<p>ok</p>") -> None:
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        if container:
            book.writestr(
                "META-INF/container.xml",
                (
                    '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                    '<rootfiles><rootfile full-path="c.opf"/></rootfiles></container>'
                ),
            )
            book.writestr(
                "c.opf",
                (
                    '<package xmlns="http://www.idpf.org/2007/opf"><metadata/><manifest>'
                    '<item id="a" href="a.xhtml"/></manifest><spine><itemref idref="a"/></spine></package>'
                ),
            )
            book.writestr(
                "a.xhtml", f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{page}</body></html>'
            )


def _broken_package(path) -> None:
    write_epub(path, "content.opf", "<package><manifest>", {})


@pytest.mark.parametrize(
    "name, make, message",
    [
        (
            "binary.txt",
            lambda p: p.write_bytes(b"Caf\x81\x8d\xff\xfe\xff\xfe"),
            "binary.txt:1:4: not UTF-8 text (byte 0x81); save the manuscript as UTF-8",
        ),
        (
            "nocontainer.epub",
            lambda p: _broken_epub(p, False),
            "cannot read nocontainer.epub: it has no META-INF/container.xml",
        ),
        (
            "badopf.epub",
            lambda p: _broken_package(p),
            "cannot read badopf.epub: content.opf:1:20: not well-formed XML",
        ),
        (
            "badpage.epub",
            lambda p: _broken_epub(p, True, "<p>open"),
            "cannot read badpage.epub: a.xhtml:1:",
        ),
        ("nbsp.epub", lambda p: _broken_epub(p, True, "<p>Mr.&nbsp;Lane</p>"), None),
    ],
)
def test_import_errors_are_one_clean_line(tmp_path, capsys, name, make, message):
    make(tmp_path / name)
    code = main(["import", str(tmp_path / name), "-o", str(tmp_path / "out.yaml")])
    err = capsys.readouterr().err
    if message is None:  # an HTML entity in XHTML is read, not refused
        assert code == 0 and '"Mr. Lane"' in (tmp_path / "out.yaml").read_text(encoding="utf-8")
        return
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert ".tmp" not in err and "codec" not in err and "Traceback" not in err


def test_a_folder_as_output_is_refused_without_temporary_names(tmp_path, capsys):
    manuscript = tmp_path / "novel.txt"
    manuscript.write_text(NOVEL, encoding="utf-8")
    assert main(["import", str(manuscript), "-o", str(tmp_path), "--force"]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and ".tmp" not in err


GUTENBERG = """The Project Gutenberg eBook of The Lantern

Title: The Lantern

Author: Ada Finch

*** START OF THE PROJECT GUTENBERG EBOOK THE LANTERN ***

Produced by a volunteer.

THE LANTERN

Second Edition.

CONTENTS

CHAPTER I. The Lamp
CHAPTER II. The Storm

CHAPTER I. The Lamp

It was dark.{12} The lamp[1] was lit.(2)

[Footnote 1: An oil lamp.]

[Pg 13]

CHAPTER II. The Storm

Rain came, in 1851 (the wet year).

*** END OF THE PROJECT GUTENBERG EBOOK THE LANTERN ***
This eBook is for the use of anyone anywhere.
"""


def test_gutenberg_furniture_is_left_out_and_counted(tmp_path, capsys):
    manuscript = tmp_path / "lantern.txt"
    manuscript.write_text(GUTENBERG, encoding="utf-8")
    out = tmp_path / "lantern.yaml"
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["left_out"] == {
        "contents list": 1,
        "transcriber's note": 1,
        "edition line": 1,
        "footnote": 1,
        "page number": 2,
        "note marker": 2,
    }
    script = load_script(out)
    assert (script.title, script.book.author) == ("The Lantern", "Ada Finch")
    assert [c.title for c in script.chapters][1:-1] == [
        "Opening",
        "CHAPTER I. The Lamp",
        "CHAPTER II. The Storm",
    ]
    assert [line.text for scene in script.scenes for line in scene.lines if not line.generated] == [
        "THE LANTERN",
        "It was dark. The lamp was lit.",
        "Rain came, in 1851 (the wet year).",
    ]
    assert main(["check", str(out)]) == 0


MARKDOWN = """---
title: "The Lantern"
author: Ada Finch
---

# Part One

<!-- revise this chapter -->

## The Lamp

It was dark.[^1] The `lamp` was lit. ![a lamp](lamp.png)

| a | b |
|---|---|
| 1 | 2 |

```
print("never read")
```

***

- She waited.

### A note

[^1]: An oil lamp.

## The Storm

> Rain came.
"""


def test_markdown_is_read_by_structure(tmp_path, capsys):
    (tmp_path / "lantern.md").write_text(MARKDOWN, encoding="utf-8")
    out = tmp_path / "lantern.yaml"
    assert main(["import", str(tmp_path / "lantern.md"), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["left_out"] == {
        "front matter": 1,
        "HTML": 1,
        "image": 1,
        "table": 1,
        "code block": 1,
        "note marker": 1,
        "footnote": 1,
        "heading below the chapter level": 1,
    }
    script = load_script(out)
    assert (script.title, script.book.author) == (
        "The Lantern",
        "Ada Finch",
    )  # front matter over "# Part One"
    assert [c.title for c in script.chapters][1:-1] == ["The Lamp", "The Storm"]
    lines = [line for scene in script.scenes for line in scene.lines if not line.generated]
    assert [(line.text, line.pause_after_s) for line in lines] == [
        ("It was dark. The lamp was lit.", 2.0),
        ("She waited.", None),
        ("Rain came.", None),
    ]
    assert (
        main(
            [
                "import",
                str(tmp_path / "lantern.md"),
                "-o",
                str(out),
                "--force",
                "--chapter-level",
                "1",
            ]
        )
        == 0
    )
    assert [c.title for c in load_script(out).chapters][1:-1] == ["Part One"]


NOTED = {
    "c1.xhtml": '<section epub:type="chapter"><h2>I</h2><p>The lamp<a href="notes.xhtml#note-1" '
    'epub:type="noteref">1</a> was lit.<span epub:type="pagebreak" title="2"/></p><aside>A box.</aside></section>',
    "notes.xhtml": '<section epub:type="endnotes"><ol><li id="note-1" epub:type="endnote"><p>An oil lamp. '
    '<a href="c1.xhtml#noteref-1" epub:type="backlink">↩</a></p></li></ol></section>',
}


@pytest.mark.parametrize("notes", ["drop", "chapter-end"])
def test_epub_notes_are_left_out_or_read_at_the_chapter_end(tmp_path, capsys, notes):
    from epub_fixtures import write_epub

    page = (
        '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" '
        'xmlns:epub="http://www.idpf.org/2007/ops"><body>{}</body></html>'
    )
    items = "".join(
        f'<item id="{n}" href="{n}" media-type="application/xhtml+xml"/>' for n in NOTED
    )
    spine = "".join(f'<itemref idref="{n}"/>' for n in NOTED)
    opf = (
        '<package xmlns="http://www.idpf.org/2007/opf"><metadata/>'
        f"<manifest>{items}</manifest><spine>{spine}</spine></package>"
    )
    epub = write_epub(
        tmp_path / "noted.epub", "c.opf", opf, {n: page.format(b) for n, b in NOTED.items()}
    )
    out = tmp_path / "noted.yaml"
    assert main(["import", str(epub), "-o", str(out), "--notes", notes, "--json"]) == 0
    left_out = json.loads(capsys.readouterr().out)["left_out"]
    lines = [line.text for line in load_script(out).scene("chapter-1").lines if not line.generated]
    assert {
        k: left_out.pop(k) for k in ("note reference", "page-break marker", "aside", "endnotes")
    } == {"note reference": 1, "page-break marker": 1, "aside": 1, "endnotes": 1}
    if notes == "drop":
        assert lines == ["The lamp was lit."] and left_out == {}
    else:
        assert lines == ["The lamp was lit.", "Note 1: An oil lamp."]
        assert left_out == {"note read at the chapter's end": 1}


def test_header_lines_without_a_start_marker_are_left_out_and_counted(tmp_path, capsys):
    manuscript = tmp_path / "lamp.txt"
    manuscript.write_text(
        "Title: The Red Lamp\nAuthor: A. Writer\n\nCHAPTER I.\n\nIt was cold.\n", encoding="utf-8"
    )
    out = tmp_path / "lamp.yaml"
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["left_out"] == {"title line": 1, "author line": 1}
    script = load_script(out)
    assert (script.title, script.book.author) == ("The Red Lamp", "A. Writer")
    assert "Opening" not in [c.title for c in script.chapters]
    assert "Chapter I" in [c.title for c in script.chapters]
    assert [line.text for scene in script.scenes for line in scene.lines if not line.generated] == [
        "It was cold."
    ]


HEADINGS = (
    "PROLOGUE\n\nIt began in the rain.\n\nCHAPTER 1\n\nPart of him stayed behind.\n\n"
    "Book lovers know the rest.\n\nChapter and verse were quoted.\n\nChapter Two: The Middle\n\n"
    "Part I remember well.\n\nIV.\n\nThe fourth, under a bare numeral.\n\n5\n\nThe fifth.\n\n"
    "Epilogue\n\nIt ended in the sun.\n\nTHE END\n"
)


def test_plain_text_headings_are_headings_and_sentences_stay_text(tmp_path):
    manuscript = tmp_path / "things.txt"
    manuscript.write_text(HEADINGS, encoding="utf-8")
    out = tmp_path / "things.yaml"
    assert main(["import", str(manuscript), "-o", str(out)]) == 0
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == [
        "Prologue",
        "Chapter 1",
        "Chapter Two: The Middle",
        "Chapter Four",
        "Chapter Five",
        "Epilogue",
    ]
    numerals_read = (
        Counter(_words(HEADINGS))
        - Counter(_words("iv 5 the end"))
        + Counter(_words("chapter four chapter five"))
    )
    assert Counter(_script_words(out)) == numerals_read  # no word lost, none made up
    assert [line.text for line in script.scene("chapter-2").lines[1:]] == [
        "Part of him stayed behind.",
        "Book lovers know the rest.",
        "Chapter and verse were quoted.",
    ]


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


@pytest.mark.parametrize(
    "data, titles",
    [
        (NOVEL.encode("utf-8"), ["Opening", "Chapter 1", "Chapter II"]),
        (
            b"# One\n\nThe first words.\n\n# Two\n\nThe second.\n",
            ["One", "Two"],
        ),  # Markdown by its headings
    ],
)
def test_a_manuscript_is_read_from_stdin(tmp_path, monkeypatch, data, titles):
    _stdin(monkeypatch, data)
    out = tmp_path / "piped.yaml"
    assert main(["import", "-", "-o", str(out), "--title", "Piped"]) == 0
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == titles
    assert out.read_text(encoding="utf-8").startswith("# Imported from stdin by drama import.")


def test_an_epub_is_read_from_stdin(tmp_path, monkeypatch, capsys):
    _broken_epub(tmp_path / "book.epub", True, "<h1>One</h1><p>Mr. Lane came in.</p>")
    _stdin(monkeypatch, (tmp_path / "book.epub").read_bytes())
    assert main(["import", "-", "-o", "-"]) == 0
    assert '"Mr. Lane came in."' in capsys.readouterr().out


def test_empty_stdin_is_one_clean_line(monkeypatch, capsys):
    _stdin(monkeypatch, b"")
    assert main(["import", "-", "-o", "-"]) == 2
    assert capsys.readouterr().err.strip() == "drama: stdin holds no paragraphs to read"


def test_utf16_text_is_read_and_control_characters_are_spaces(tmp_path):
    manuscript = tmp_path / "notepad.txt"
    manuscript.write_bytes("Chapter 1\r\n\r\nTea\x00for\x1b two.\r\n".encode("utf-16"))
    out = tmp_path / "notepad.yaml"
    assert main(["import", str(manuscript), "-o", str(out)]) == 0
    assert load_script(out).scene("chapter-1").lines[1].text == "Tea for two."


def test_a_text_with_one_line_per_paragraph_keeps_its_paragraphs_and_headings(tmp_path):
    text = (
        "Chapter 1\r\nIt was a dark night, and the wind blew hard against the shutters of the old "
        "house on the hill.\r\n"
        "She waited by the door.\r\nChapter 2\r\nMorning came.\r\n"
    )  # as a word processor saves text
    manuscript = tmp_path / "saved.txt"
    manuscript.write_bytes(text.encode("utf-8"))
    out = tmp_path / "saved.yaml"
    assert main(["import", str(manuscript), "-o", str(out)]) == 0
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == ["Chapter 1", "Chapter 2"]
    assert [line.text for line in script.scene("chapter-1").lines[1:]] == [
        "It was a dark night, and the wind blew hard against the shutters of the old house on the hill.",
        "She waited by the door.",
    ]
    assert [line.text for line in script.scene("chapter-2").lines[1:]] == ["Morning came."]


def test_a_markdown_line_break_tag_parts_the_words_it_stands_between(tmp_path):
    (tmp_path / "story.md").write_text(
        "# One\n\nThe end.<br>The start.<br/>Again.\n", encoding="utf-8"
    )
    out = tmp_path / "story.yaml"
    assert main(["import", str(tmp_path / "story.md"), "-o", str(out)]) == 0
    assert load_script(out).scene("chapter-1").lines[1].text == "The end. The start. Again."


def test_an_epub_with_spaces_in_its_file_names_and_an_image_in_its_spine(tmp_path):
    items = (
        '<item id="cover" href="Images/cover.jpg" media-type="image/jpeg"/>'
        '<item id="a" href="Text/chapter%20one.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
    )
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Spaces</dc:title></metadata>'
        f'<manifest>{items}</manifest><spine toc="ncx"><itemref idref="cover"/><itemref idref="a"/></spine></package>'
    )
    ncx = (
        '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint><navLabel><text>The First</text>'
        '</navLabel><content src="Text/chapter%20one.xhtml"/></navPoint></navMap></ncx>'
    )
    page = '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>It began.</p></body></html>'
    epub = write_epub(
        tmp_path / "spaces.epub",
        "OEBPS/content.opf",
        opf,
        {
            "OEBPS/Images/cover.jpg": "not text",
            "OEBPS/toc.ncx": ncx,
            "OEBPS/Text/chapter one.xhtml": page,
        },
    )
    out = tmp_path / "spaces.yaml"
    assert main(["import", str(epub), "-o", str(out)]) == 0
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == ["The First"]
    assert script.scene("chapter-1").lines[1].text == "It began."


def test_a_text_without_headings_is_one_chapter_titled_by_the_book(tmp_path):
    (tmp_path / "story.txt").write_text("It was late.\n\nShe slept.\n", encoding="utf-8")
    out = tmp_path / "story.yaml"
    assert (
        main(["import", str(tmp_path / "story.txt"), "--title", "A Short Story", "-o", str(out)])
        == 0
    )
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == [
        "A Short Story"
    ]  # not "Opening", read as its heading


def test_brackets_in_titles_are_never_read_as_tags_or_voice_switches(tmp_path):
    (tmp_path / "odd.md").write_text(
        "# Chapter [One] {NARRATOR}\n\nHello.\n\n# Two\n\nBye.\n", encoding="utf-8"
    )
    out = tmp_path / "odd.yaml"
    assert (
        main(["import", str(tmp_path / "odd.md"), "--title", "The [Secret] Garden", "-o", str(out)])
        == 0
    )
    script = load_script(out)
    assert script.title == "The (Secret) Garden"
    assert [c.title for c in script.chapters][1:-1] == ["Chapter (One) (NARRATOR)", "Two"]


def test_a_chapter_title_in_capitals_under_its_heading_joins_the_heading(tmp_path):
    text = (
        "CHAPTER I.\nTHE LAMP.\nIt was dark.\n\nCHAPTER II.\n\nTHE STORM\n\nIt rained.\n\n"
        'CHAPTER III.\n\n"HELP!" she cried.\n'
    )
    (tmp_path / "subtitles.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "subtitles.yaml"
    assert main(["import", str(tmp_path / "subtitles.txt"), "-o", str(out)]) == 0
    script = load_script(out)
    assert [c.title for c in script.chapters][1:-1] == [
        "Chapter I: The Lamp",
        "Chapter II: The Storm",
        "Chapter III",
    ]
    assert [line.text for line in script.scene("chapter-1").lines[1:]] == ["It was dark."]
    assert [line.text for line in script.scene("chapter-3").lines[1:]] == ['"HELP!" she cried.']


PANDOC = """% The Lantern
% Ada Finch
% 1851

# The Lamp {#lamp .chapter}

It was dark.^[An oil lamp, in the first edition.] The lamp[^lit] was lit.

::: {.epigraph}
Light is a kind of *patience*.
:::

![the lamp](lamp.png){width=60%}

[Small capitals]{.smallcaps} opened the letter.

Lamp
:   A vessel of oil and a wick.

[^lit]: Lit by Ada.

# The Storm

::: aside
Rain came.
:::
"""


def test_pandoc_markdown_is_read_without_its_markup(tmp_path, capsys):
    (tmp_path / "lantern.md").write_text(PANDOC, encoding="utf-8")
    out = tmp_path / "lantern.yaml"
    assert main(["import", str(tmp_path / "lantern.md"), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["left_out"] == {
        "title block": 1,
        "attributes": 2,
        "image": 1,
        "note marker": 2,
        "footnote": 2,
    }
    script = load_script(out)
    assert (script.title, script.book.author) == ("The Lantern", "Ada Finch")
    assert [c.title for c in script.chapters][1:-1] == ["The Lamp", "The Storm"]
    lines = [line.text for scene in script.scenes for line in scene.lines if not line.generated]
    assert lines == [
        "It was dark. The lamp was lit.",
        "Light is a kind of patience.",
        "Small capitals opened the letter.",
        "Lamp",
        "A vessel of oil and a wick.",
        "Rain came.",
    ]
    for mark in ("{", "}", ":::", "^[", "%", "[^"):
        assert not any(mark in line for line in lines), mark
    assert main(["check", str(out)]) == 0


def test_yaml_front_matter_gives_title_and_authors(tmp_path):
    text = "---\ntitle: 'The Lantern: A Tale'\nauthor:\n  - Ada Finch\n  - Eli Finch\n---\n\n# One\n\nDark.\n"
    (tmp_path / "lantern.md").write_text(text, encoding="utf-8")
    out = tmp_path / "lantern.yaml"
    assert main(["import", str(tmp_path / "lantern.md"), "-o", str(out)]) == 0
    script = load_script(out)
    assert (script.title, script.book.author) == ("The Lantern: A Tale", "Ada Finch, Eli Finch")
