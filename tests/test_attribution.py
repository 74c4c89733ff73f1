"""The attribution pipeline of `drama import --dialogue`, rule by rule, on sentences of the
public-domain novels of the development set (`tests/data/attribution/`), and the set's scorer."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from drama_cli.manuscript.attribution import AttributionOptions, attribute_chapter
from drama_cli.manuscript.characters import (
    cluster_speakers,
    name_usage,
    narrator_of,
    places_and_times,
)
from drama_cli.manuscript.dialogue import book_genders, book_names, tag_description
from drama_cli.manuscript.imported import NARRATOR, ImportedChapter, Manuscript
from drama_cli.manuscript.writer import script_yaml
from drama_cli.script.book import UNATTRIBUTED

ROOT = Path(__file__).resolve().parents[1]


def _lines(paragraphs: list[str], **options) -> list[tuple[str, str, str | None]]:
    """(speaker, text, rule) of the quotes of a one-chapter book of `paragraphs`."""
    learnt = AttributionOptions(**options)
    learnt.learn(paragraphs)
    lines, _ = attribute_chapter(paragraphs, learnt)
    return [
        (line.speaker, line.text, line.rule)
        for line in lines
        if line.rule or line.speaker != NARRATOR
    ]


def test_a_tag_names_a_character_by_a_capitalised_description_in_either_order():
    lines = _lines(
        [
            "“Two days wrong!” sighed the Hatter. “I told you butter wouldn't suit the works!”",
            "“It was the BEST butter,” the March Hare meekly replied.",
        ]
    )
    assert [(who, rule) for who, _, rule in lines] == [("HATTER", "tag"), ("MARCH HARE", "tag")]


def test_a_description_tag_is_read_with_its_owner_and_person_noun():
    assert tag_description(" said the prince, who", "") == ("the", "prince")
    assert tag_description(" continued our strange visitor.", "") == ("our", "strange visitor")
    assert tag_description("", "said her mother resentfully, ") == ("her", "mother")
    assert tag_description(" said the one who had spoken first.", "") is None


def test_a_title_description_is_the_one_character_the_book_gives_that_title():
    lines = _lines(
        [
            "Prince Vasíli always spoke languidly, like an actor repeating a stale part.",
            "“I can’t help it,” said the prince. “Lavater would have said I lack the bump of "
            "paternity.”",
        ]
    )
    assert lines[0][0] == "PRINCE VASÍLI" and lines[0][2] == "description"


def test_his_lady_is_never_a_character_titled_lady():
    lines = _lines(
        [
            "“My dear Mr. Bennet,” said his lady to him one day, “have you heard that "
            "Netherfield Park is let at last?”",
            "Lady Lucas quieted her fears a little.",
        ]
    )
    assert "LADY LUCAS" not in {who for who, _, _ in lines}


def test_someone_the_book_has_not_named_is_a_character_of_their_description():
    lines = _lines(["“Come in,” says the woman, and I did.  She says:  “Take a cheer.”"])
    assert lines[0][:1] == ("WOMAN",) and lines[0][2] == "description"


def test_a_description_without_a_gender_is_the_other_one_of_the_conversation():
    lines = _lines(
        [
            "“I hate the way you talk about your married life, Harry,” said Basil Hallward.",
            "“Being natural is simply a pose,” cried Lord Henry, laughing.",
            "“What is that?” said the painter, keeping his eyes fixed on the ground.",
        ]
    )
    assert lines[-1][0] == "BASIL HALLWARD" and lines[-1][2] == "description"


FIRST_PERSON = [
    "I had seen little of Holmes lately. My marriage had drifted us away from each other, and I "
    "knew little of my former friend. Holmes was pacing the room; he was at work again, and he "
    "waved me to an armchair. I rang the bell, and I was shown up. Holmes said that he was glad, "
    "and Holmes smiled as he said it.",
    "“Wedlock suits you,” he remarked. “I think, Watson, that you have put on seven and a half "
    "pounds since I saw you.”",
    "“Seven!” I answered.",
    "“Indeed, I should have thought a little more. Just a trifle more, I fancy, Watson.”",
    "“Then, how do you know?”",
]


def test_a_first_person_narrator_is_found_without_a_flag():
    lines = _lines(FIRST_PERSON)
    assert lines[0][0] == "HOLMES" and lines[0][2] == "pronoun"  # the nearest named man
    assert lines[1] == (NARRATOR, "Seven!", "narrator")
    assert [who for who, _, _ in lines[2:]] == ["HOLMES", NARRATOR]  # two people: turn-taking
    assert narrator_of(["The prince said nothing. He smiled."] * 6, None) is None


def test_the_narrator_is_named_by_what_the_others_call_them():
    paragraphs = [*FIRST_PERSON, "“Good-night, Watson,” he said.", "“Good-night,” said I."]
    assert narrator_of(paragraphs, book_names(paragraphs)) == "WATSON"


def test_the_narrator_is_the_one_the_quotes_call_by_a_name_the_narration_never_writes():
    paragraphs = [
        "I had come to the conclusion that he had dropped asleep, and indeed I was nodding.",
        "“Well, Watson,” said Holmes when our visitor had left us, “what do you make of it?”",
        "I trust that I am not more dense than my neighbours, but I was always oppressed.",
        "“What do you think, Watson? Could your patients spare you?” Holmes asked.",
        "I drove home, and I thought over it all, and I set the matter aside.",
        "“Watson, I think you know Mr. Jones, of Scotland Yard?” said Holmes.",
    ]
    assert narrator_of(paragraphs, book_names(paragraphs)) == "WATSON"
    paragraphs[-1] = "“Holmes, I think you know Mr. Jones?” said Watson."  # Watson narrated
    assert narrator_of(paragraphs, book_names(paragraphs)) == NARRATOR


def test_narration_ending_in_a_lead_in_introduces_the_next_speaker():
    lines = _lines(
        [
            "I knocked at the door. I was a girl now, and I meant to remember it; I was scared, I "
            "reckon.",
            "“Come in,” says the woman.",
            "“Thank you, mum,” I says.",
            "I done it.  She looked me all over with her little shiny eyes, and says:",
            "“What might your name be?”",
            "“Sarah Williams.”",
            "“Where ‘bouts do you live?  In this neighborhood?”",
        ]
    )
    assert [(who, rule) for who, _, rule in lines[1:]] == [
        (NARRATOR, "narrator"),
        ("WOMAN", "introduced"),
        (NARRATOR, "turn-taking"),
        ("WOMAN", "turn-taking"),
    ]


def test_the_person_looked_at_or_spoken_to_is_never_the_speaker():
    lines = _lines(
        [
            "Dorian Gray came in, and Lord Henry smiled.",
            "Dorian looked at Lord Henry and said, “I am going to the theatre.”",
        ]
    )
    assert lines[-1][0] == "DORIAN" and lines[-1][2] == "introduced"
    answered = _lines(
        [
            "“Dorian Gray?  Is that his name?” asked Lord Henry, walking across the studio "
            "towards Basil Hallward.",
            "“Yes, that is his name.  I didn't intend to tell it to you.”",
        ]
    )
    assert answered[-1][0] == "BASIL HALLWARD"  # whom the tag turns the speech to answers


def test_places_and_days_are_not_people():
    paragraphs = [
        "He came down to London on Tuesday.",
        "They were at London then, and went from London to Bath.",
        "“Yes,” said Holmes.",
    ]
    options = AttributionOptions()
    options.learn(paragraphs)
    assert not options.is_person("LONDON") and not options.is_person("TUESDAY")
    assert options.is_person("HOLMES")
    assert "London" in places_and_times(paragraphs)


def test_a_capitalised_description_stays_a_name_though_the_book_once_writes_it_in_lower_case():
    said = "“Give your evidence,” said the King. “It isn't mine,” said the Hatter."
    paragraphs = [said] * 5 + ["“I keep them to sell,” the Hatter added; “I'm a hatter.”"]
    names = book_names(paragraphs)
    assert "Hatter" in names and "King" in names
    assert "Hatter" not in book_names([said] * 3 + paragraphs[-1:])  # too rarely capitalised
    assert "The" not in names


def test_one_person_is_one_cast_member_with_aliases():
    clusters = cluster_speakers(
        Counter(
            {
                "HOLMES": 9,
                "SHERLOCK HOLMES": 2,
                "MR. HOLMES": 1,
                "MR. BENNET": 3,
                "MRS. BENNET": 4,
                "LIZZY": 2,
                "ELIZABETH": 5,
            }
        )
    )
    assert clusters["HOLMES"] == ["MR. HOLMES", "SHERLOCK HOLMES"]
    assert clusters["MR. BENNET"] == [] and clusters["MRS. BENNET"] == []  # two people
    assert clusters["ELIZABETH"] == ["LIZZY"]


def test_a_bare_surname_is_the_person_of_its_gender_among_titled_ones():
    paragraphs = [
        "“It shows an affection for her sister that is very pleasing,” said Bingley.",
        "Bingley was quite uncomfortable; his sisters declared that they were miserable.",
        "To this speech Bingley made no answer; but his sisters gave it their hearty assent.",
        "“Nor I, I am sure,” said Miss Bingley.",
        "“I wish it may,” said Mr. Bingley.",
    ]
    options = AttributionOptions()
    options.learn(paragraphs)
    assert options.genders["BINGLEY"] == "m"  # "Bingley … his" twice, never "her"
    speakers = Counter({"BINGLEY": 5, "MR. BINGLEY": 2, "MISS BINGLEY": 4})
    clusters = cluster_speakers(speakers, options.genders)
    assert clusters["BINGLEY"] == ["MR. BINGLEY"] and clusters["MISS BINGLEY"] == []
    assert cluster_speakers(speakers)["BINGLEY"] == []  # without genders: which one is unsure


def test_a_gender_is_read_from_narration_not_past_a_quote_nor_from_a_titled_namesake():
    genders = book_genders(
        [
            "Raskolnikov opened his eyes, started and recognised Nastasya.",
            "“Here, Nastasya, take it please,” he said, fumbling in his pocket.",
            "“Nastasya, leave me alone,” he said.",
            "Nastasya sat down beside him on the sofa and began chatting. She was a country "
            "peasant-woman.",
            "While Mrs. Joe sat with her head bending over her needlework, I put my mouth into "
            "the forms of saying to Joe. Joe put his mouth into the forms of an answer.",
            "Joe peeped down at me over his leg. Joe looked at her in a helpless way.",
        ]
    )
    assert genders.get("NASTASYA") != "m" and genders.get("JOE") == "m"


def test_a_name_never_joins_a_titled_name_of_the_other_gender():
    clusters = cluster_speakers(Counter({"JOE": 9, "MRS. JOE": 12, "PIP": 20}), {"JOE": "m"})
    assert "JOE" in clusters and "MRS. JOE" in clusters


def test_a_kinship_description_is_the_owners_kin_of_the_family_name():
    lines = _lines(
        [
            "Mr. Bennet and Mrs. Bennet sat at breakfast.",
            "“I hope, my dear,” said Mr. Bennet, “that you have ordered a good dinner to-day.”",
            "“Who do you mean, my dear?” cried his wife. “I know of nobody that is coming.”",
            "“It is _not_ Mr. Bingley,” said her husband.",
        ]
    )
    assert [who for who, _, _ in lines] == ["MR. BENNET", "MRS. BENNET", "MR. BENNET"]
    assert [rule for _, _, rule in lines[1:]] == ["description", "description"]


def test_a_description_the_narration_sets_beside_a_name_is_that_person():
    lines = _lines(
        [
            "My sister, Mrs. Joe Gargery, was more than twenty years older than I.",
            "My sister, Mrs. Joe, with black hair and eyes, had a prevailing redness of skin.",
            "Joe and I sat by the fire. Joe was a mild fellow, and he smiled.",
            "“Churchyard!” repeated my sister. “Who brought you up by hand?”",
        ]
    )
    assert (lines[0][0], lines[0][2]) == ("MRS. JOE", "description")


def test_someone_unnamed_coming_in_ends_the_conversation_and_is_not_guessed():
    lines = _lines(
        [
            "He jumped and got the canoe ready, and put his old coat right in it for one of us.",
            "“We’s safe, Huck, we’s safe!” said Jim.",
            "“I’ll take the canoe and go and see, Jim,” said Huck.",
            "“Pooty soon I’ll be a-shout’n’ for joy,” said Jim.",
            "Right then along comes a skiff with two men in it with guns, and they stopped and "
            "I stopped. One of them says:",
            "“What’s that yonder?”",
            "“A piece of a raft.”",
            "“Do you belong on it?”",
        ]
    )
    assert [who for who, _, _ in lines[3:]] == [UNATTRIBUTED] * 3


def test_quotes_under_the_producers_confidence_stay_unattributed_with_their_candidates():
    paragraphs = [
        "“Where were you, Watson?” asked Holmes.",
        "“At my club,” said Watson.",
        "“Alone?”",
    ]
    options = AttributionOptions(min_confidence=0.75)
    options.learn(paragraphs)
    lines, _ = attribute_chapter(paragraphs, options)
    last = lines[-1]
    assert last.speaker == UNATTRIBUTED and [who for who, _ in last.candidates] == [
        "HOLMES",
        "WATSON",
    ]  # the speaker turn-taking found, below the threshold, is still the first candidate
    options = AttributionOptions()
    options.learn(paragraphs)
    lines, _ = attribute_chapter(paragraphs, options)
    assert (lines[-1].speaker, lines[-1].rule, lines[-1].confidence) == (
        "HOLMES",
        "turn-taking",
        0.7,
    )


def test_the_script_lists_aliases_and_candidates_and_the_report_names_the_characters():
    paragraphs = [
        "“Come in!” said Sherlock Holmes.",
        "“Thank you,” said Watson.",
        "“Sit down,” said Holmes.",
        "“Thank you,” said Watson.",
        "“Tea?” said Holmes.",
        "“Please.”",
    ]
    book = Manuscript("Test", None, [ImportedChapter("One", paragraphs)])
    text, report = script_yaml(book, None, True, "test.txt", AttributionOptions())
    assert '    aliases: ["SHERLOCK HOLMES"]' in text
    assert '- WATSON: "Please."  # candidates: WATSON 0.70, HOLMES 0.30 (turn-taking)' in text
    attribution = report.attribution()
    assert attribution["quotes"] == 6 and attribution["attributed"] == 6
    assert attribution["characters"]["HOLMES"] == {"lines": 3, "aliases": ["SHERLOCK HOLMES"]}
    assert any(
        "HOLMES: 3 line(s) (also SHERLOCK HOLMES)" in row for row in report.attribution_lines()
    )


def test_the_scorer_reads_the_development_set_and_prints_its_table():
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "attribution.py"), "--book", "pride"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("all")}
    assert int(rows["all"][1]) == 443  # every quote of the twelve chapters, all found
    assert float(rows["all"][4].rstrip("%")) >= 40.0  # accuracy: the rules at work


def test_two_people_share_a_given_name_and_a_familiar_form_joins_only_where_tied():
    paragraphs = [
        "The two youngest of the family, Catherine and Lydia, were particularly frequent in "
        "these attentions.",
        "Elizabeth had frequently united with Jane in an endeavour to check the imprudence of "
        "Catherine and Lydia.",
        "Kitty and Lydia took their seats; Lady Catherine de Bourgh looked at them.",
        "Lady Catherine was reckoned proud by many people.",
        "\u201cMiss Eliza Bennet,\u201d said Miss Bingley, \u201clet me persuade you.\u201d",
        "\u201cI thought Miss Elizabeth Bennet looked remarkably well,\u201d said Bingley.",
        "Bingley was sure of being liked wherever he appeared. Bingley had never met with "
        "pleasanter people.",
    ]
    options = AttributionOptions()
    options.learn(paragraphs)
    speakers = Counter(
        {
            "LADY CATHERINE": 19,
            "CATHERINE": 1,
            "KITTY": 8,
            "ELIZABETH": 200,
            "ELIZA": 5,
            "MISS ELIZA": 1,
            "BINGLEY": 18,
            "MR. BINGLEY": 15,
            "MISS BINGLEY": 21,
        }
    )
    genders = {"KITTY": "f", "CATHERINE": "f", "ELIZA": "f", "ELIZABETH": "f"}
    clusters = cluster_speakers(speakers, genders, options.usage)
    assert clusters["LADY CATHERINE"] == []  # "Catherine and Lydia" is someone else
    assert clusters["KITTY"] == ["CATHERINE"]
    assert clusters["ELIZABETH"] == ["ELIZA", "MISS ELIZA"]  # "Miss Eliza Bennet"
    assert clusters["BINGLEY"] == ["MR. BINGLEY"] and clusters["MISS BINGLEY"] == []
    untied = cluster_speakers(speakers, genders, name_usage(paragraphs[:4], options.names))
    assert untied["MISS ELIZA"] == [] and "MISS ELIZA" not in untied["ELIZABETH"]
    assert untied["BINGLEY"] == []  # never written alone in the narration: which one is unsure
