"""`drama import`: manuscripts (.txt, .md, .epub) into YAML book scripts that `drama check`
reads back, and the whole pipeline import → check → book."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from epub_fixtures import write_epub
from fakes import FakeBackend, single_error_line
from mutagen.mp4 import MP4

import drama_cli.backends.registry as registry
from drama_cli.cli import main
from drama_cli.manuscript.attribution import AttributionOptions, attribute_chapter
from drama_cli.manuscript.epub import MAX_ENTRY_BYTES, MAX_TOTAL_BYTES
from drama_cli.manuscript.read import read_manuscript
from drama_cli.script.book import UNATTRIBUTED as PLACEHOLDER
from drama_cli.script.load import load_script

AUSTEN = Path(__file__).parent / "data" / "manuscripts" / "pride-and-prejudice-1.txt"


def speech_lines(paragraph: str) -> list[tuple[str, str]]:
    """(speaker, text) of the lines one paragraph becomes, alone in its chapter."""
    lines, _ = attribute_chapter([paragraph], AttributionOptions())
    return [(line.speaker, line.text) for line in lines]


def test_plain_text_chapters_and_paragraphs_in_order():
    book = read_manuscript(AUSTEN)
    assert (book.title, book.author) == ("Pride and Prejudice", "Jane Austen")
    assert [c.title for c in book.chapters] == ["Chapter I", "Chapter II"]
    assert len(book.chapters[0].paragraphs) == 18
    assert book.chapters[0].paragraphs[0] == (
        "It is a truth universally acknowledged, that a single "
        "man in possession of a good fortune, must be in want of a wife."
    )
    assert book.chapters[1].paragraphs[0].startswith("Mr. Bennet was among the earliest")
    assert not any("GUTENBERG" in p for c in book.chapters for p in c.paragraphs)


def test_import_writes_a_script_that_check_reads_back(tmp_path, capsys):
    out = tmp_path / "pride.yaml"
    assert (
        main(["import", str(AUSTEN), "--dialogue", "--narrator", "Sam Reader", "-o", str(out)]) == 0
    )
    assert "2 chapter(s)" in capsys.readouterr().err
    script = load_script(out)
    assert script.book.author == "Jane Austen" and script.book.narrator == "Sam Reader"
    assert [c.title for c in script.chapters] == [
        "Opening Credits",
        "Chapter I",
        "Chapter II",
        "Closing Credits",
    ]
    lines = script.scene("chapter-1").lines
    assert [(line.speaker, line.text) for line in lines[:6]] == [
        ("NARRATOR", "Chapter I."),  # the heading read aloud, generated
        (
            "NARRATOR",
            "It is a truth universally acknowledged, that a single man in possession of a "
            "good fortune, must be in want of a wife.",
        ),
        ("NARRATOR", lines[2].text),
        (PLACEHOLDER, "My dear Mr. Bennet, have you heard that Netherfield Park is let at last?"),
        ("NARRATOR", "said his lady to him one day."),  # one speech; its tag after it
        ("NARRATOR", "Mr. Bennet replied that he had not."),
    ]
    assert main(["check", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert PLACEHOLDER in [member["name"] for member in report["cast"]]
    assert main(["check", str(out)]) == 0
    assert f"  {PLACEHOLDER}" in capsys.readouterr().out  # listed for the producer to fill
    assert main(["import", str(AUSTEN), "-o", str(out)]) == 2  # never overwritten silently
    assert "exists; pass --force" in capsys.readouterr().err


def _import_markdown(tmp_path, stem: str, text: str, *options: str) -> Path:
    """Write `text` as `<stem>.md`, import it to `<stem>.yaml` (with `options`) and return that path."""
    (tmp_path / f"{stem}.md").write_text(text, encoding="utf-8")
    out = tmp_path / f"{stem}.yaml"
    assert main(["import", str(tmp_path / f"{stem}.md"), "-o", str(out), *options]) == 0
    return out


def test_repeated_headings_stay_separate_chapters_in_order(tmp_path, capsys):
    out = _import_markdown(
        tmp_path,
        "rep",
        "# Interlude\n\nFirst interlude.\n\n# Part Two\n\n"
        "Middle.\n\n# Interlude\n\nSecond interlude.\n",
    )
    script = load_script(out)
    assert [(c.number, c.title, c.scenes) for c in script.chapters][1:4] == [
        (1, "Interlude", ["chapter-1"]),
        (2, "Part Two", ["chapter-2"]),
        (3, "Interlude", ["chapter-3"]),
    ]
    capsys.readouterr()
    assert main(["check", str(out)]) == 0
    out_text = capsys.readouterr().out
    assert (
        "01 Interlude  (chapter-1)\n  02 Part Two  (chapter-2)\n  03 Interlude  (chapter-3)"
        in out_text
    )


@pytest.mark.parametrize(
    "paragraph, expected",
    [
        (
            '"You have been in Afghanistan, I perceive," said Holmes.',
            [("HOLMES", "You have been in Afghanistan, I perceive."), ("NARRATOR", "said Holmes.")],
        ),
        (
            "“How on earth did you know that?” Watson asked in astonishment.",
            [
                ("WATSON", "How on earth did you know that?"),
                ("NARRATOR", "Watson asked in astonishment."),
            ],
        ),
        (
            "Then cried Mrs. Bennet: “Nonsense!”",
            [("NARRATOR", "Then cried Mrs. Bennet"), ("MRS. BENNET", "Nonsense!")],
        ),
        ("“Nobody,” she said.", [(PLACEHOLDER, "Nobody."), ("NARRATOR", "she said.")]),
        ("No quotes here at all.", [("NARRATOR", "No quotes here at all.")]),
        (
            '"Thank you," Watson replied. "It is cold tonight."',  # one speech, its tag after it
            [("WATSON", "Thank you. It is cold tonight."), ("NARRATOR", "Watson replied.")],
        ),
        (
            '"Wedlock suits you," he remarked. "I think, Watson, that you have put on weight."',
            [
                (PLACEHOLDER, "Wedlock suits you. I think, Watson, that you have put on weight."),
                ("NARRATOR", "he remarked."),
            ],
        ),
        (
            '"Go," said Holmes. Watson stood. "Now," he added.',  # someone else in between: not carried
            [
                ("HOLMES", "Go."),
                ("NARRATOR", "said Holmes. Watson stood."),
                (PLACEHOLDER, "Now."),
                ("NARRATOR", "he added."),
            ],
        ),
        (
            'She had read "The Times" that morning.',
            [("NARRATOR", 'She had read "The Times" that morning.')],
        ),
        (
            'He said "yes" and left.',
            [("NARRATOR", "He said"), (PLACEHOLDER, "yes"), ("NARRATOR", "and left.")],
        ),
        (
            "'Single quotes,' said Lestrade.",
            [("LESTRADE", "Single quotes."), ("NARRATOR", "said Lestrade.")],
        ),
        (
            "‘I don’t know,’ said Lestrade.",
            [("LESTRADE", "I don’t know."), ("NARRATOR", "said Lestrade.")],
        ),
        (
            "Holmes' hat was on the peg; I don't know why.",
            [("NARRATOR", "Holmes' hat was on the peg; I don't know why.")],
        ),
    ],
)
def test_quotes_are_attributed_by_speech_tags(paragraph, expected):
    assert speech_lines(paragraph) == expected


def test_check_lists_each_unattributed_line_with_its_place(tmp_path, capsys):
    out = _import_markdown(
        tmp_path,
        "quotes",
        '# One\n\n"Nobody," she said.\n\n'
        '"Thank you," Watson replied. "It is cold tonight."\n\n"Who?" "Me."\n',
        "--dialogue",
    )
    capsys.readouterr()
    assert main(["check", str(out)]) == 0
    err = capsys.readouterr().err
    listed = [line for line in err.splitlines() if "has no speaker yet" in line]
    assert listed == [
        f'warning: {out}:{row}:13: line chapter-1-{n} has no speaker yet (UNATTRIBUTED): "{text}"; '
        "give it its speaker"
        for row, n, text in ((16, 1, "Nobody."), (20, 5, "Who?"), (21, 6, "Me."))
    ]
    assert main(["check", str(out), "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert [(w["line"], w["column"]) for w in warnings if "no speaker yet" in w["message"]] == [
        (16, 13),
        (20, 13),
        (21, 13),
    ]


def test_markdown_headings_and_formatting(tmp_path):
    out = _import_markdown(
        tmp_path,
        "story",
        "# The Ferry\n\nA *quiet* [crossing](http://x).\n\n## Aside\n\n"
        "Still chapter one.\n\n# The Shore\n\nSand [and] {stones}.\n",
    )
    script = load_script(out)
    assert [c.title for c in script.chapters[1:3]] == ["The Ferry", "The Shore"]
    assert [line.text for line in script.scene("chapter-1").lines[1:]] == [
        "A quiet crossing.",
        "Still chapter one.",
    ]
    assert script.scene("chapter-2").lines[1].text == "Sand (and) (stones)."  # never read as tags


def _epub(path: Path) -> None:
    """A small EPUB 3: a cover page outside the table of contents, then two chapters."""
    page = (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
        "<title>x</title></head><body>{}</body></html>"
    )
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Lighthouse</dc:title>'
        "<dc:creator>Ada Finch</dc:creator></metadata><manifest>"
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        '<item id="cover" href="text/cover.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/>'
        '<item id="c2" href="text/c2.xhtml" media-type="application/xhtml+xml"/>'
        '</manifest><spine><itemref idref="cover"/><itemref idref="c1"/><itemref idref="c2"/></spine></package>'
    )
    write_epub(
        path,
        "OEBPS/content.opf",
        opf,
        {
            "OEBPS/nav.xhtml": page.format(
                '<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc"><ol>'
                '<li><a href="text/c1.xhtml">I. The Lamp</a></li>'
                '<li><a href="text/c2.xhtml#start">II. The Storm</a></li>'
                "</ol></nav>"
            ),
            "OEBPS/text/cover.xhtml": page.format("<p>The Lighthouse, a novel</p>"),
            "OEBPS/text/c1.xhtml": page.format(
                "<h1>I. The Lamp</h1><p>The lamp was lit at dusk.</p><p>“Is it burning?” asked Tom.</p>"
            ),
            "OEBPS/text/c2.xhtml": page.format(
                "<h1 id='start'>II. The Storm</h1><p>Rain came &amp; went.</p>"
            ),
        },
    )


def test_epub_chapters_from_the_spine_and_table_of_contents(tmp_path):
    path = tmp_path / "lighthouse.epub"
    _epub(path)
    book = read_manuscript(path)
    assert (book.title, book.author) == ("The Lighthouse", "Ada Finch")
    assert [(c.title, c.paragraphs) for c in book.chapters] == [
        ("Chapter One: The Lamp", ["The lamp was lit at dusk.", "“Is it burning?” asked Tom."]),
        ("Chapter Two: The Storm", ["Rain came & went."]),
    ]
    out = tmp_path / "lighthouse.yaml"
    assert main(["import", str(path), "--dialogue", "-o", str(out)]) == 0
    lines = load_script(out).scene("chapter-1").lines
    assert [(line.speaker, line.text) for line in lines[2:]] == [
        ("TOM", "Is it burning?"),
        ("NARRATOR", "asked Tom."),
    ]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("notes.docx", b"x", "a manuscript is .txt, .md or .epub"),
        ("broken.epub", b"not a zip", "cannot read broken.epub"),
        ("empty.txt", b"\n\n", "holds no paragraphs"),
        (
            "scene.fountain",
            b"INT. ROOM\n",
            "scene.fountain is already a script: drama check, compile and render read it as it is",
        ),
    ],
)
def test_bad_manuscripts_are_one_line_errors(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["import", str(path), "-o", str(tmp_path / "x.yaml")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_pipeline_import_check_book(tmp_path, monkeypatch, capsys):
    """The pipeline of docs/guide/books.md: import a manuscript, check it, render and assemble the book."""
    script = tmp_path / "pride.yaml"
    assert main(["import", str(AUSTEN), "--narrator", "Sam Reader", "-o", str(script)]) == 0
    assert main(["check", str(script)]) == 0
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    capsys.readouterr()
    assert main(["book", str(script), "--sample-length", "60", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and [f["file"] for f in report["files"]] == [
        "00 Opening Credits.mp3",
        "01 Chapter I.mp3",
        "Retail Sample.mp3",
        "02 Chapter II.mp3",
        "03 Closing Credits.mp3",
    ]
    m4b = MP4(str(tmp_path / "pride.drama" / "book" / "Pride and Prejudice.m4b"))
    assert [c.title for c in m4b.chapters] == [
        "Opening Credits",
        "Chapter I",
        "Chapter II",
        "Closing Credits",
    ]


def test_mix_of_one_scene_to_stdout(tmp_path, monkeypatch, capsysbinary):
    """`drama mix SCRIPT --scene ID -o -` writes the scene's mix to stdout (WAV, or FLAC)
    and its results to stderr, so `| sox -` and `| ffmpeg -i -` work."""
    import soundfile as sf

    path = tmp_path / "two.yaml"
    path.write_text(
        "cast:\n  A: {}\n  B: {}\nscenes:\n  - id: s1\n    lines:\n"
        "      - A: We leave at six.\n      - B: Then we leave together.\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["render", str(path)]) == 0
    capsysbinary.readouterr()
    assert main(["mix", str(path), "--scene", "s1", "-o", "-"]) == 0
    captured = capsysbinary.readouterr()
    mix = tmp_path / "two.drama" / "s1" / "mix.wav"
    assert captured.out == mix.read_bytes() and b"scene s1" in captured.err
    assert main(["mix", str(path), "--scene", "s1", "--format", "flac", "-o", "-"]) == 0
    audio, rate = sf.read(io.BytesIO(capsysbinary.readouterr().out), dtype="float32")
    reference, _ = sf.read(str(mix), dtype="float32")
    assert rate == 44_100 and audio.shape == reference.shape
    assert np.max(np.abs(audio - reference)) < 1e-4  # FLAC 24-bit of the same mix
    assert main(["mix", str(path), "-o", "-"]) == 2
    assert b"give exactly one --scene ID" in capsysbinary.readouterr().err


def test_import_takes_json(tmp_path, capsys):
    manuscript = tmp_path / "novel.md"
    manuscript.write_text("# Chapter One\n\nIt was dark.\n\nIt was late.\n")
    out = tmp_path / "novel.yaml"
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {
        "ok": True,
        "exit_code": 0,
        "output": str(out),
        "chapters": 1,
        "lines": 2,
        "quotes": 0,
        "unattributed": 0,
        "per_chapter": [{"title": "Chapter One", "lines": 2}],
        "cast": {"NARRATOR": 2},
        "left_out": {},
    }
    assert main(["import", str(manuscript), "-o", str(out), "--json"]) == 2  # exists: refused
    failure = json.loads(capsys.readouterr().out)
    assert (
        failure["ok"] is False
        and failure["exit_code"] == 2
        and "--force" in failure["errors"][0]["message"]
    )


def bomb_epub(path, pages: dict[str, int]):
    """An EPUB whose spine names `pages` (name → bytes of blank XHTML), deflated: a few KB that
    expand to their sum."""
    opf = (
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
        "<metadata/><manifest>"
        + "".join(
            f'<item id="p{i}" href="{name}" media-type="application/xhtml+xml"/>'
            for i, name in enumerate(pages)
        )
        + "</manifest><spine>"
        + "".join(f'<itemref idref="p{i}"/>' for i in range(len(pages)))
        + "</spine></package>"
    )
    write_epub(path, "content.opf", opf, {})
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as book:
        for name, size in pages.items():
            with book.open(name, "w") as entry:
                entry.write(b'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>')
                for _ in range(size // (1 << 20)):
                    entry.write(b" " * (1 << 20))
                entry.write(b"</p></body></html>")
    return path


def test_an_epub_that_expands_past_the_caps_is_refused_in_one_line(tmp_path, capsys):
    big = bomb_epub(tmp_path / "big.epub", {"one.xhtml": MAX_ENTRY_BYTES + (1 << 20)})
    many = bomb_epub(
        tmp_path / "many.epub",
        {
            f"p{i}.xhtml": MAX_ENTRY_BYTES - (1 << 20)
            for i in range(MAX_TOTAL_BYTES // MAX_ENTRY_BYTES + 1)
        },
    )
    assert big.stat().st_size < 200_000 and many.stat().st_size < 800_000
    tail = "far more than a book's text (the EPUB is damaged, or built to fill the memory of whatever opens it)"
    for epub, what in (
        (big, "its file one.xhtml expands to more than 16 MB"),
        (many, "its files expand to more than 64 MB"),
    ):
        capsys.readouterr()
        assert main(["import", str(epub), "-o", str(tmp_path / "out.yaml")]) == 2
        assert single_error_line(capsys) == f"drama: cannot read {epub.name}: {what}, {tail}"
        assert not (tmp_path / "out.yaml").exists()
