"""`drama import --dialogue` on novels: each rule that gives a quote its speaker, the options
that shape the lines, and the attribution report of *Pride and Prejudice* (shared fixture)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from epub_fixtures import PRIDE, build_epub

from drama_cli.cli import main
from drama_cli.manuscript.attribution import AttributionOptions, attribute_chapter
from drama_cli.script.book import UNATTRIBUTED
from drama_cli.script.load import load_script


def _lines(paragraphs: list[str], **options) -> list[tuple[str, str, str | None]]:
    """(speaker, text, rule) of the lines of a one-chapter book of `paragraphs`."""
    learnt = AttributionOptions(**options)
    learnt.learn(paragraphs)
    lines, _ = attribute_chapter(paragraphs, learnt)
    return [(line.speaker, line.text, line.rule) for line in lines]


def test_pronoun_tags_resolve_only_when_one_recent_speaker_has_that_gender():
    lines = _lines(
        [
            '"Come in," said Mr. Holmes.',
            '"Thank you," said Miss Hunter.',
            '"Sit down," he said.',
            '"I would rather stand," she replied.',
        ]
    )
    assert [(who, rule) for who, _, rule in lines if who != "NARRATOR"] == [
        ("MR. HOLMES", "tag"),
        ("MISS HUNTER", "tag"),
        ("MR. HOLMES", "pronoun"),
        ("MISS HUNTER", "pronoun"),
    ]
    ambiguous = _lines(
        [
            '"Hello," said Mr. Holmes.',
            '"Hello," said Mr. Watson.',
            '"Hello," said Mr. Lestrade.',
            "The door opened.",
            '"Well?" he said.',
        ]
    )
    assert ambiguous[-2][0] == UNATTRIBUTED  # three men spoke last: "he" is not resolved
    two = _lines(
        [
            '"Hello," said Mr. Holmes.',
            "The door opened.",
            '"Hello," said Mr. Watson.',
            '"Well?" he said.',
        ]
    )
    assert two[-2][:1] == ("MR. HOLMES",)  # two men talking: the one who did not speak last


def test_turn_taking_and_vocatives_carry_a_two_person_exchange():
    lines = _lines(
        [
            "Watson came home late.",
            '"Where were you, Watson?" asked Holmes.',
            '"At my club."',
            '"Alone?"',
            '"Quite alone."',
            "The fire crackled.",
            '"And then?"',
        ]
    )
    quotes = [(who, rule) for who, _, rule in lines if who != "NARRATOR"]
    assert quotes == [
        ("HOLMES", "tag"),
        ("WATSON", "vocative"),
        ("HOLMES", "turn-taking"),
        ("WATSON", "turn-taking"),
        ("HOLMES", "turn-taking"),
    ]  # narration that names no one new keeps the conversation going
    restarted = _lines(
        [
            '"Where were you, Watson?" asked Holmes.',
            '"At my club."',
            "Lestrade came in without knocking.",
            '"And then?"',
        ]
    )
    assert restarted[-1][0] == UNATTRIBUTED  # someone new: the conversation may have changed


def test_a_beat_names_the_speaker():
    lines = _lines(
        ['"Is it late?" asked Jane.', 'Elizabeth smiled. "Not yet."', '"Good," said Jane.']
    )
    assert lines[2:4] == [("NARRATOR", "Elizabeth smiled.", None), (UNATTRIBUTED, "Not yet.", None)]
    known = _lines(
        ['"Is it late?" asked Jane.', '"No," said Elizabeth.', 'Elizabeth smiled. "Not yet."']
    )
    assert known[-1] == ("ELIZABETH", "Not yet.", "beat")


def test_narrator_is_takes_said_i_and_tags_can_be_left_out():
    lines = _lines(
        [
            '"You have been in Afghanistan, I perceive," said Holmes.',
            '"How?" said I.',
            '"Never mind," he remarked. "It is cold."',
        ],
        narrator_is="WATSON",
        keep_tags=False,
    )
    assert lines == [
        ("HOLMES", "You have been in Afghanistan, I perceive.", "tag"),
        ("WATSON", "How?", "narrator"),
        ("HOLMES", "Never mind. It is cold.", "turn-taking"),
    ]  # no tag fragments at all


def test_import_json_reports_attribution_per_chapter(tmp_path, capsys):
    (tmp_path / "talk.md").write_text(
        '# One\n\n"Yes," said Holmes.\n\n"No."\n\n"Who?" asked Watson.\n', encoding="utf-8"
    )
    out = tmp_path / "talk.yaml"
    assert main(["import", str(tmp_path / "talk.md"), "--dialogue", "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["per_chapter"] == [
        {"title": "One", "quotes": 3, "tag": 2, "unattributed": 1, "lines": 5}
    ]
    assert report["cast"] == {"NARRATOR": 2, "HOLMES": 1, UNATTRIBUTED: 1, "WATSON": 1}
    assert list(load_script(out).cast) == ["NARRATOR", "HOLMES", "WATSON", UNATTRIBUTED]


@pytest.fixture(scope="module")
def pride_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pride")
    epub = build_epub(PRIDE, folder)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert (
            main(["import", str(epub), "--dialogue", "-o", str(folder / "pride.yaml"), "--json"])
            == 0
        )
    return folder / "pride.yaml", json.loads(printed.getvalue())


def test_pride_and_prejudice_attribution_report(pride_report):
    out, report = pride_report
    chapters = report["per_chapter"]
    assert [c["title"] for c in chapters[:3]] == ["Chapter One", "Chapter Two", "Chapter Three"]
    assert [(c["quotes"], c["unattributed"]) for c in chapters[:3]] == [(32, 6), (32, 7), (19, 6)]
    assert report["quotes"] == 1767 and report["unattributed"] < 0.4 * report["quotes"]
    assert 'NARRATOR: "\u201c' not in out.read_text(
        encoding="utf-8"
    )  # letters are quotes, not narration
    assert report["left_out"] == {"title page": 1, "imprint": 1, "colophon": 1, "copyright page": 1}
    assert {"ELIZABETH", "MR. DARCY", "MRS. BENNET", "JANE", "MR. BENNET"} <= set(report["cast"])
    assert not {"LIZZY", "DARCY", "SIR"} & set(report["cast"])  # variants merged, no titles alone
    aliases = {key: set(member.aliases) for key, member in load_script(out).cast.items()}
    assert "KITTY" not in aliases.get("LADY CATHERINE", set())  # two Catherines, two voices
    assert {"BINGLEY", "MR. BINGLEY"} in ({key} | names for key, names in aliases.items())
    assert {"ELIZA", "MISS ELIZA"} <= aliases["ELIZABETH"]  # "Miss Eliza Bennet"
    assert not {"MR. BINGLEY", "GARDINER", "BENNET", "ELIZA"} & set(report["cast"])
    assert main(["check", str(out)]) == 0


def test_an_untagged_reply_between_two_turns_of_one_speaker():
    lines = _lines(
        [
            "Mr. Bennet sat down.",
            '"Is that his design, Mr. Bennet?" asked his wife.',
            '"Design! nonsense," said Mr. Bennet.',
            '"You must visit him."',
            '"I see no occasion."',
            '"Oh! my dear," cried her mother. "You must."',
            '"Then go."',
        ]
    )
    quotes = [(who, rule) for who, _, rule in lines if who != "NARRATOR"]
    assert quotes == [
        (UNATTRIBUTED, None),
        ("MR. BENNET", "tag"),
        (UNATTRIBUTED, None),
        ("MR. BENNET", "turn-taking"),  # A, an untagged reply, A
        (UNATTRIBUTED, None),  # "her mother": someone unnamed, never guessed
        (UNATTRIBUTED, None),
    ]  # after a tagged third voice the alternation is unsure


def test_no_one_speaks_to_themselves_and_an_exclaimed_name_addresses_no_one():
    lines = _lines(
        [
            "Jane and Miss Bennet sat together.",
            '"Wickham is gone," said Miss Bennet.',
            '"I am shocked. And, dear Miss Bennet, only consider," said she.',
        ]
    )
    assert lines[-2][:2] == (UNATTRIBUTED, "I am shocked. And, dear Miss Bennet, only consider.")
    alone = _lines(
        [
            "Jane and Miss Bennet sat together.",
            '"Wickham is gone," said Miss Bennet.',
            '"I am shocked," said she.',
        ]
    )
    assert alone[-2][:2] == ("MISS BENNET", "I am shocked.")  # the one woman who spoke last
    exclaimed = _lines(
        ["Lydia ran in.", '"We saw Mr. Darcy there," said Lydia.', '"Mr. Darcy!"', '"Oh, yes!"']
    )
    assert [who for who, _, _ in exclaimed if who != "NARRATOR"][1:] == [UNATTRIBUTED, "LYDIA"]


def test_a_speech_cut_by_its_tag_ends_with_a_full_stop():
    lines = _lines(['"Coming," said Elizabeth.', '"I am here," said Elizabeth, "and ready."'])
    assert lines == [
        ("ELIZABETH", "Coming.", "tag"),
        ("NARRATOR", "said Elizabeth.", None),
        ("ELIZABETH", "I am here, and ready.", "tag"),
        ("NARRATOR", "said Elizabeth.", None),
    ]


def test_unattributed_counts_script_lines_not_quote_pieces(tmp_path, capsys):
    (tmp_path / "talk.md").write_text(
        '# One\n\n"Go," he said. "Now," he said again.\n', encoding="utf-8"
    )
    out = tmp_path / "talk.yaml"
    assert main(["import", str(tmp_path / "talk.md"), "--dialogue", "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["quotes"], report["unattributed"], report["cast"][UNATTRIBUTED]) == (2, 1, 1)


@pytest.mark.parametrize(
    "options, message",
    [
        (
            ["--narrator-is", "WATSON"],
            "--narrator-is goes with --dialogue (quotes as lines of their speakers)",
        ),
        (
            ["--no-keep-tags"],
            "--no-keep-tags goes with --dialogue (quotes as lines of their speakers)",
        ),
        (
            ["--directions", "drop", "--dialogue"],
            "--directions drop is for a play's stage directions; novel.txt is read as a novel",
        ),
        (
            ["--chapter-level", "2"],
            "--chapter-level is for Markdown headings; novel.txt is not Markdown",
        ),
        (
            ["--notes", "chapter-end"],
            "--notes chapter-end is for an EPUB's notes; novel.txt is not an EPUB",
        ),
    ],
)
def test_novel_options_without_what_they_need_are_refused(tmp_path, capsys, options, message):
    (tmp_path / "novel.txt").write_text('CHAPTER I.\n\n"Yes," said Holmes.\n', encoding="utf-8")
    out = tmp_path / "novel.yaml"
    assert main(["import", str(tmp_path / "novel.txt"), "-o", str(out), *options]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"drama: {message}"]
    assert not out.exists()


def test_a_bare_surname_takes_the_gender_of_its_titles():
    lines = _lines(
        [
            "Mr. Darcy came in.",
            "Mr. Darcy sat down.",
            "Mr. Darcy rose again.",
            '"Good day," said Darcy.',
            '"Good day," said Miss Bennet.',
            '"Fine weather," he said.',
        ]
    )
    assert lines[-2][:3:2] == ("DARCY", "pronoun")


def test_a_pronoun_tag_points_to_whom_the_quote_before_addressed():
    lines = _lines(
        [
            "Mr. Darcy bowed to Mr. Bennet.",
            '"Sit down," said Mr. Bennet.',
            '"Thank you, Mr. Darcy," said Elizabeth.',
            '"Not at all," he replied.',
        ]
    )
    assert lines[-2][:3:2] == ("MR. DARCY", "pronoun")  # not Mr. Bennet, the last man to speak


def test_a_pronoun_tag_points_to_the_one_person_of_its_gender_named_just_before():
    lines = _lines(
        [
            '"Shall we play?" asked Mr. Bennet.',
            "Mr. Collins took his seat beside Elizabeth.",
            '"I know the game," said he.',
        ]
    )
    assert lines[-2][:3:2] == ("MR. COLLINS", "pronoun")


def test_two_pronoun_tags_in_one_paragraph_are_two_speakers():
    lines = _lines(
        [
            "Mr. Hale and Miss Lennox sat by the fire.",
            '"Yes," she said to Mr. Hale. "No," he replied.',
            '"Well?" she asked. "Well what?" he said.',
        ]
    )
    assert [(who, text) for who, text, _ in lines[1:]] == [
        ("MISS LENNOX", "Yes."),
        ("NARRATOR", "she said to Mr. Hale."),
        ("MR. HALE", "No."),
        ("NARRATOR", "he replied."),
        ("MISS LENNOX", "Well?"),
        ("NARRATOR", "she asked."),
        ("MR. HALE", "Well what?"),
        ("NARRATOR", "he said."),
    ]
    unknown = _lines(["The fire was low.", '"Yes," she said. "No," he replied.'])
    assert [who for who, _, _ in unknown[1:]] == [
        UNATTRIBUTED,
        "NARRATOR",
        UNATTRIBUTED,
        "NARRATOR",
    ]


def test_a_speech_over_several_paragraphs_is_one_speaker():
    told_later = _lines(
        [
            "Tom came in.",
            '"This speech has no close.',
            '"It goes on here," said Mary. "And ends.',
            '"Really ends now."',
            '"Who spoke?" asked Tom.',
        ]
    )
    assert [(who, text) for who, text, _ in told_later[1:6]] == [
        ("MARY", "This speech has no close."),
        ("MARY", "It goes on here. And ends."),
        ("NARRATOR", "said Mary."),
        ("MARY", "Really ends now."),
        ("TOM", "Who spoke?"),
    ]
    told_first = _lines(
        ['"Listen," said Tom, "to this.', "\u201cIt is long.\u201d", '"Is it?" asked Mary.']
    )
    assert [who for who, _, _ in told_first] == ["TOM", "NARRATOR", "TOM", "MARY", "NARRATOR"]
    guessed_first = _lines(
        ['"Hi," said Tom.', '"Hello," said Mary.', '"A long speech,', '"it goes on," said Mary.']
    )
    assert [(who, rule) for who, _, rule in guessed_first[4:6]] == [
        ("MARY", "continued"),
        ("MARY", "tag"),
    ]


def test_a_quoted_letter_is_never_narrated_with_its_quote_mark_nor_guessed():
    lines = _lines(
        [
            '"Read it, Lizzy," said Mr. Bennet.',
            "\u201c \u2018My dear Sir,\u2019 it begins.",
            "\u201cI am yours.",
            "\u201cW. Collins.\u201d",
        ]
    )
    assert lines[2:] == [
        (UNATTRIBUTED, "\u2018My dear Sir,\u2019 it begins.", None),
        (UNATTRIBUTED, "I am yours.", None),
        (UNATTRIBUTED, "W. Collins.", None),
    ]


def test_guillemets_and_any_ed_verb_beside_a_name_make_a_tag():
    lines = _lines(
        [
            "\u00abBonjour,\u00bb said Mary.",
            "\u00ab Spaced, \u00bb said Tom.",
            "\u00bbGerman,\u00ab said Mary.",
            '"Well," expostulated Tom.',
            '"Stop," grumbled Mr. Hale, "at once."',
            '"Run," Jim hissed.',
        ]
    )
    assert [(who, text, rule) for who, text, rule in lines if who != "NARRATOR"] == [
        ("MARY", "Bonjour.", "tag"),
        ("TOM", "Spaced.", "tag"),
        ("MARY", "German.", "tag"),
        ("TOM", "Well.", "tag"),
        ("MR. HALE", "Stop, at once.", "tag"),
        ("JIM", "Run.", "tag"),
    ]


def test_accented_and_prefixed_names_are_names():
    lines = _lines(
        [
            "Zo\u00eb met Jos\u00e9 and O'Brien at the inn.",
            '"Hello," said Zo\u00eb.',
            '"Evening," said Jos\u00e9.',
            '"Welcome," said O\'Brien.',
        ]
    )
    assert [who for who, _, _ in lines if who != "NARRATOR"] == ["ZO\u00cb", "JOS\u00c9", "O'BRIEN"]


@pytest.mark.parametrize("mark", ["\u2018", "\u201c", "\u00ab"])
def test_a_long_paragraph_of_marks_that_never_close_is_read_whole(mark):
    paragraph = f" {mark}word" * 20000  # 120,000 characters: quadratic matching took minutes
    lines = _lines([paragraph])
    assert "".join(text for _, text, _ in lines).count("word") == 20000  # every word still read


def test_a_subject_cut_from_its_verb_by_the_tag_loses_the_tags_comma():
    lines = _lines(['"I," he said, "am here."', '"Well," said Tom, "it is late."'])
    assert [text for who, text, _ in lines if who != "NARRATOR"] == [
        "I am here.",
        "Well, it is late.",
    ]


def test_a_plural_possessive_inside_single_quotes_does_not_close_them():
    lines = _lines(
        [
            "'I don't know,' Tom replied. 'The boys' books are here.'",
            "\u2018It\u2019s the Joneses\u2019 car,\u2019 said Mary.",
        ]
    )
    assert [(who, text) for who, text, _ in lines] == [
        ("TOM", "I don't know. The boys' books are here."),
        ("NARRATOR", "Tom replied."),
        ("MARY", "It\u2019s the Joneses\u2019 car."),
        ("NARRATOR", "said Mary."),
    ]


def test_quotes_tagged_i_said_without_narrator_is_are_counted_and_the_option_named(
    tmp_path, capsys
):
    (tmp_path / "memoir.md").write_text(
        '# One\n\n"Yes," I said.\n\n"No," said Holmes.\n', encoding="utf-8"
    )
    assert (
        main(
            [
                "import",
                str(tmp_path / "memoir.md"),
                "--dialogue",
                "-o",
                str(tmp_path / "memoir.yaml"),
                "--json",
            ]
        )
        == 0
    )
    printed = capsys.readouterr()
    assert json.loads(printed.out)["per_chapter"][0]["said I"] == 1
    assert (
        'drama: import: 1 quote(s) tagged "I said" have no speaker; --narrator-is NAME gives them to the '
        "narrating character"
    ) in printed.err.splitlines()


def test_a_book_that_marks_speech_with_dashes():
    dashed = [
        "\u2014Good morning, said Stephen.",
        "\u2014Back to barracks! Buck Mulligan said sternly.",
        "\u2014Tell me, Mulligan, Stephen said quietly. \u2014It is a question.",
        "\u2014Yes, Mulligan said. He walked out.",
        "The tower was cold.",
        "\u2014No, said Haines.",
    ]
    assert _lines(dashed) == [
        ("STEPHEN", "Good morning.", "tag"),
        ("NARRATOR", "said Stephen.", None),
        ("BUCK MULLIGAN", "Back to barracks!", "tag"),
        ("NARRATOR", "Buck Mulligan said sternly.", None),
        ("STEPHEN", "Tell me, Mulligan. It is a question.", "tag"),
        ("NARRATOR", "Stephen said quietly.", None),
        ("MULLIGAN", "Yes.", "tag"),
        ("NARRATOR", "Mulligan said. He walked out.", None),
        ("NARRATOR", "The tower was cold.", None),
        ("HAINES", "No.", "tag"),
        ("NARRATOR", "said Haines.", None),
    ]
    quoted = _lines(
        ['"Yes," said Tom.'] * 5 + ["\u2014and then she left, said nobody in particular."]
    )
    assert quoted[-1] == (
        "NARRATOR",
        "\u2014and then she left, said nobody in particular.",
        None,
    )  # quotes mark speech here


def test_a_quote_right_upon_another_is_another_speaker():
    lines = _lines(["Tom and Mary argued.", '"I was going to\u2014" "Don\'t," said Tom.'])
    assert lines[1:] == [
        (UNATTRIBUTED, "I was going to\u2014", None),
        ("TOM", "Don't.", "tag"),
        ("NARRATOR", "said Tom.", None),
    ]


def test_the_books_guide_errors_section_reads_windows_1252_as_the_importer_does(tmp_path):
    from pathlib import Path

    guide = (Path(__file__).parent.parent / "docs" / "guide" / "books.md").read_text("utf-8")
    errors = guide.split("### Errors", 1)[1].split("\n## ", 1)[0]
    assert "refused so, never guessed" not in errors and "Windows-1252" in errors
    manuscript = tmp_path / "m.txt"
    manuscript.write_bytes(b"Chapter 1\n\nShe said, \x93hi.\x94\n")
    assert main(["import", str(manuscript), "-o", str(tmp_path / "m.yaml")]) == 0
