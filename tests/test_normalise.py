"""Numbers and symbols as words in the speaker's language."""

import io
import json
from pathlib import Path

import pytest
from fakes import FakeBackend, render

from drama_cli import cli
from drama_cli.compile.conversations import compile_scene
from drama_cli.compile.normalise import normalise_text
from drama_cli.script.load import load_script


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("en", "1,084 apples", "one thousand and eighty-four apples"),
        ("en", "-5 and 3.25", "minus five and three point two five"),
        ("en", "the 3rd and 21st", "the third and twenty-first"),
        ("en", "in 1984 and 2005", "in nineteen eighty-four and two thousand and five"),
        ("en", "at 10:30 pm, 7:05 and 9:00", "at ten thirty p.m., seven oh five and nine o'clock"),
        ("en", "15% off", "fifteen percent off"),
        ("en", "$5.50, £1 and 3 €", "five dollars and fifty cents, one pound and three euros"),
        (
            "en",
            "2.5 km, 1 kg, 12 °C",
            "two point five kilometres, one kilogram, twelve degrees Celsius",
        ),
        ("en", "pages 3-5", "pages three to five"),
        ("en", "#1 rule", "number one rule"),
        ("de", "#1 Regel", "Nummer eins Regel"),
        ("de", "1.084 Äpfel", "eintausendvierundachtzig Äpfel"),
        ("de", "-5 und 3,25", "minus fünf und drei Komma zwei fünf"),
        ("de", "am 3. Mai 1984", "am dritten Mai neunzehnhundertvierundachtzig"),
        ("de", "um 10:30 Uhr", "um zehn Uhr dreißig"),
        ("de", "15 % und 5,50 €", "fünfzehn Prozent und fünf Euro und fünfzig Cent"),
        ("de", "2,5 km", "zwei Komma fünf Kilometer"),
        ("fr", "1 084 pommes", "mille quatre-vingt-quatre pommes"),
        ("fr", "le 1er mai, la 1re, la 2e", "le premier mai, la première, la deuxième"),
        ("fr", "à 10h30 et 15 %", "à dix heures trente et quinze pour cent"),
        ("fr", "5,50 €", "cinq euros et cinquante centimes"),
        ("es", "1.084 manzanas", "mil ochenta y cuatro manzanas"),
        ("es", "el 3º y la 2ª", "el tercero y la segunda"),
        (
            "es",
            "a las 10:30, 15 %, 5,50 €",
            "a las diez y treinta, quince por ciento, cinco euros con cincuenta céntimos",
        ),
        ("es", "12 °C en 1984", "doce grados Celsius en mil novecientos ochenta y cuatro"),
    ],
)
def test_numbers_become_words_of_the_language(language, written, said):
    assert normalise_text(written, language) == said


def test_separators_are_read_as_the_language_writes_them():
    assert normalise_text("1.084", "en") == "one point zero eight four"
    assert normalise_text("1,084", "de") == "eins Komma null acht vier"


def test_other_languages_pass_through():
    assert normalise_text("Es 1984", "ja") == "Es 1984"


HEAD = """\
title: Numbers
cast:
  ANN: {lang: en}
  KLAUS: {lang: de}
  YUKI: {lang: ja}
"""


def write(folder: Path, body: str, extra: str = "") -> Path:
    path = folder / "play.yaml"
    path.write_text(HEAD + extra + "lines:\n" + body, encoding="utf-8")
    return path


def texts(script, mode: str = "clone") -> list[str]:
    return [plan.text for scene in script.scenes for plan in compile_scene(script, scene, mode)]


def test_each_voice_reads_in_its_own_language_and_the_script_language_is_the_default(tmp_path):
    path = write(tmp_path, "  - ANN: It costs 5 € {KLAUS} 5 €.\n", extra="language: de\n")
    script = load_script(str(path))
    assert texts(script) == ["<|speaker:0|> It costs five euros. <|speaker:1|> fünf Euro."]
    script.cast["ANN"].lang = None  # no lang: the script's language
    assert texts(script) == ["<|speaker:0|> It costs fünf Euro. <|speaker:1|> fünf Euro."]


def test_a_lines_own_lang_comes_before_its_speakers_and_holds_across_a_switch(tmp_path):
    body = "  - speaker: ANN\n    text: Es kostet 21 Euro {KLAUS} und 1 Buch.\n    lang: de\n  - ANN: 21 books.\n"
    script = load_script(str(write(tmp_path, body)))
    assert script.scenes[0].lines[0].lang == "de"
    assert texts(script) == [
        "<|speaker:0|> Es kostet einundzwanzig Euro. <|speaker:1|> und ein Buch.",
        "<|speaker:0|> twenty-one books.",
    ]


def test_check_numbers_reads_a_line_in_its_own_lang(tmp_path, drama, capsys):
    path = write(tmp_path, "  - speaker: ANN\n    text: Am 3. Mai.\n    lang: de\n")
    assert drama(["check", str(path), "--numbers"]) == 0
    assert "3. → dritten" in capsys.readouterr().out


def test_tags_notes_and_lexicon_entries_are_never_normalised(tmp_path):
    path = write(
        tmp_path,
        """\
  - speaker: ANN
    note: count 3 beats
    text: "[pause 2s] Agent 47 met R2D2 at 10:30."
""",
        extra="lexicon:\n  Agent 47: agent forty-seven\n  R2D2: {respelling: R2-D2}\n",
    )
    assert texts(load_script(str(path))) == [
        "<|speaker:0|> [count 3 beats] [pause 2s] agent forty-seven met R2-D2 at ten thirty."
    ]


def test_normalize_false_in_the_script_or_a_line_and_on_the_command_line(tmp_path):
    body = "  - ANN: Room 101.\n  - speaker: ANN\n    text: Room 101.\n    normalize: false\n"
    script = load_script(str(write(tmp_path, body)))
    assert texts(script) == ["<|speaker:0|> Room one hundred and one.", "<|speaker:0|> Room 101."]
    script = load_script(str(write(tmp_path, body, extra="normalize: false\n")))
    assert texts(script) == ["<|speaker:0|> Room 101.", "<|speaker:0|> Room 101."]


def test_a_language_without_rules_is_sent_as_written_with_one_notice(tmp_path):
    path = write(tmp_path, "  - YUKI: 部屋は101号室です。\n  - YUKI: 2025年。\n  - ANN: 7 days.\n")
    plans = compile_scene(load_script(str(path)), "scene-1", "clone")
    assert [plan.text for plan in plans] == [
        "<|speaker:0|> 部屋は101号室です。",
        "<|speaker:0|> 2025年。",
        "<|speaker:1|> seven days.",
    ]
    notices = [w for plan in plans for w in plan.warnings if "sent as written" in w]
    assert notices == [
        "numbers in ja lines are sent as written: number and symbol rules cover en, de, fr, es"
    ]


@pytest.fixture
def drama():
    return cli.main


def test_compile_shows_the_normalised_text_and_no_normalize_turns_it_off(tmp_path, drama, capsys):
    path = write(
        tmp_path,
        "  - ANN: We met on the 3rd at 10:30, 1,084 of us.\n"
        "  - KLAUS: Am 3. Mai um 10:30 Uhr waren es 1.084.\n",
    )
    assert drama(["compile", str(path), "--mode", "clone"]) == 0
    out = capsys.readouterr().out
    assert (
        '"<|speaker:0|> We met on the third at ten thirty, one thousand and eighty-four of us."'
        in out
    )
    assert (
        '"<|speaker:1|> Am dritten Mai um zehn Uhr dreißig waren es eintausendvierundachtzig."'
        in out
    )
    assert drama(["compile", str(path), "--mode", "clone", "--no-normalize"]) == 0
    assert '"<|speaker:1|> Am 3. Mai um 10:30 Uhr waren es 1.084."' in capsys.readouterr().out


def test_normalisation_is_part_of_the_cache_key(tmp_path):
    path = write(tmp_path, "  - ANN: Room 101.\n  - ANN: No numbers here.\n")
    render(path, FakeBackend(), mode="clone")
    write(tmp_path, "  - ANN: Room 101.\n  - ANN: No numbers here.\n", extra="normalize: false\n")
    again = FakeBackend()
    render(path, again, mode="clone")
    assert [r.line_id for r in again.requests] == ["scene-1-1"]
    assert again.requests[0].text == "<|speaker:0|> Room 101."


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("We meet at 4.50 p.m. sharp.", "We meet at four fifty p.m. sharp."),
        ("We meet at 4:50 pm sharp.", "We meet at four fifty p.m. sharp."),
        ("We meet at 16:50 sharp.", "We meet at sixteen fifty sharp."),
        ("We meet at 9.05 a.m.", "We meet at nine oh five a.m."),
        ("We meet at 4.50 pm. Then", "We meet at four fifty p.m. Then"),
        ("It costs 4.50 today.", "It costs four point five zero today."),
    ],
)
def test_english_times_are_said_as_times(written, said):
    assert normalise_text(written, "en") == said


def test_normalised_pieces_join_to_the_normalised_text():
    from drama_cli.compile.normalise import normalised_pieces

    for text in [
        "On the 3rd, 2.5 km at 4.50 p.m.",
        "#1 costs $5.50, 30% off",
        "no digits",
        "5#3 in 1984",
    ]:
        pieces = normalised_pieces(text, "en")
        assert "".join(said for _, _, said in pieces) == normalise_text(text, "en")
        assert [(a, b) for a, b, _ in pieces] == list(
            zip([0] + [b for _, b, _ in pieces[:-1]], [b for _, b, _ in pieces])
        )


def test_a_line_in_another_writing_system_is_not_said_with_english_rules(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(
        "title: T\ncast:\n  JOHN: {}\nlines:\n  - JOHN: ジョン（20）\n  - JOHN: Room 20.\n",
        encoding="utf-8",
    )
    plans = compile_scene(load_script(str(path)), "scene-1", "clone")
    assert [plan.text for plan in plans] == [
        "<|speaker:0|> ジョン（20）",
        "<|speaker:0|> Room twenty.",
    ]
    assert "numbers in ja lines are sent as written" in plans[0].warnings[0]


def test_the_script_language_label_decides_how_a_date_reads(tmp_path):
    body = "  - speaker: ANN\n    text: On 3/2/2003.\n"
    head = "title: T\ncast:\n  ANN: {}\n"
    for label, said in [
        ("en-US", "On March second two thousand and three."),
        ("en-GB", "On the third of February two thousand and three."),
        ("en", "On 3/2/2003."),
    ]:
        path = tmp_path / "play.yaml"
        path.write_text(head + f"language: {label}\nlines:\n" + body, encoding="utf-8")
        assert texts(load_script(str(path))) == [f"<|speaker:0|> {said}"]


def test_check_numbers_lists_each_expression_said_or_left_with_its_place(tmp_path, drama, capsys):
    path = write(tmp_path, "  - ANN: At 10:00:00 p.m. r2d2 paid $5 million.\n  - YUKI: 2025年。\n")
    assert drama(["check", str(path), "--numbers"]) == 0
    captured = capsys.readouterr()
    assert "number expressions: 3, 1 left as written" in captured.out
    assert f"  {path}:7:13: 10:00:00 p.m. → ten p.m." in captured.out
    assert (
        f"  {path}:7:27: r2d2 → left as written (no number form of the language takes it whole)"
        in captured.out
    )
    assert f"  {path}:7:37: $5 million → five million dollars" in captured.out
    assert (
        f"warning: {path}:8:5: line scene-1-2: digits in a ja line are sent as written"
        in captured.err
    )
    assert drama(["check", str(path), "--numbers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["numbers"]
    assert [(r["written"], r["said"], r["form"], r["position"]) for r in rows] == [
        ("10:00:00 p.m.", "ten p.m.", "time", f"{path}:7:13"),
        ("r2d2", None, "unknown", f"{path}:7:27"),
        ("$5 million", "five million dollars", "amount", f"{path}:7:37"),
    ]


def test_compile_marks_each_number_rewrite(tmp_path, drama, capsys):
    path = write(tmp_path, "  - KLAUS: Am 3. Mai mit 1 Frau.\n")
    assert drama(["compile", str(path), "--mode", "clone"]) == 0
    assert "  numbers: 3. → dritten; 1 → einer\n" in capsys.readouterr().out


def test_a_fountain_title_page_language_is_the_script_language(tmp_path):
    (tmp_path / "play.fountain").write_text(
        "Title: T\nLanguage: de\n\nINT. HALL - NIGHT\n\nANN\nAm 3. Mai.\n", encoding="utf-8"
    )
    (tmp_path / "play.cast.yaml").write_text("cast:\n  ANN: {}\n", encoding="utf-8")
    assert texts(load_script(str(tmp_path / "play.fountain"))) == ["<|speaker:0|> Am dritten Mai."]


def test_check_numbers_gives_the_source_column_after_an_escaped_quote(tmp_path, drama, capsys):
    path = write(tmp_path, '  - ANN: "He was 5\'11\\" tall, 6\' wide."\n')
    assert drama(["check", str(path), "--numbers"]) == 0
    out = capsys.readouterr().out
    assert f"  {path}:7:18: 5'11\" → five feet eleven inches" in out
    assert f"  {path}:7:31: 6' → six feet" in out


@pytest.mark.parametrize(
    "extra, cast, where, message",
    [
        (
            "language: 7\n",
            "",
            "6:11",
            "language must be text, a language tag such as en, en-GB or de, not '7'",
        ),
        (
            "",
            "  BEN: {lang: xx-YY}\n",
            "6:15",
            "lang 'xx-YY' is not a language tag such as en, en-GB or de",
        ),
        ("", "", "9:11", "lang must be text, a language tag such as en, en-GB or de, not '7'"),
    ],
)
def test_check_refuses_a_language_label_that_is_not_a_language_tag(
    tmp_path, drama, capsys, extra, cast, where, message
):
    path = tmp_path / "play.yaml"
    line = "  - ANN: Hi.\n" if where != "9:11" else "  - speaker: ANN\n    text: Hi.\n    lang: 7\n"
    path.write_text(HEAD + cast + extra + "lines:\n" + line, encoding="utf-8")
    assert drama(["check", str(path)]) == 2
    assert f"{path}:{where}: {message}" in capsys.readouterr().err


@pytest.mark.parametrize("label", ["sw-KE", "yue", "zh-Hant-TW", "pt_BR", "no"])
def test_a_well_formed_language_tag_without_rules_is_allowed(tmp_path, label):
    path = write(tmp_path, "  - YUKI: 5\n", extra=f"language: {label}\n")
    assert load_script(str(path)).language == label


def test_check_refuses_a_fountain_title_page_language_that_is_not_a_language_tag(
    tmp_path, drama, capsys
):
    path = tmp_path / "play.fountain"
    path.write_text(
        "Title: T\nLanguage: xx-YY\n\nINT. HALL - NIGHT\n\nANN\nHi.\n", encoding="utf-8"
    )
    (tmp_path / "play.cast.yaml").write_text("cast:\n  ANN: {}\n", encoding="utf-8")
    assert drama(["check", str(path)]) == 2
    assert (
        f"{path}:2:11: Language 'xx-YY' is not a language tag such as en, en-GB or de"
        in capsys.readouterr().err
    )


def test_check_numbers_on_stdin_places_each_expression_at_its_own_column(
    tmp_path, drama, capsys, monkeypatch
):
    path = write(tmp_path, "  - ANN: At 10:00:00 p.m. r2d2 paid $5 million.\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(path.read_text(encoding="utf-8")))
    assert drama(["check", "-", "--numbers", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["numbers"]
    assert [r["position"] for r in rows] == ["<stdin>:7:13", "<stdin>:7:27", "<stdin>:7:37"]


def test_two_english_numbers_side_by_side_stay_two_while_spaced_millions_group():
    assert normalise_text("The scores of 120 135 and 140 were posted.", "en") == (
        "The scores of one hundred and twenty one hundred and thirty-five and one hundred and "
        "forty were posted."
    )
    assert normalise_text("He paid 1 000 000 dollars.", "en") == "He paid one million dollars."
    assert normalise_text("Über 17 000 Fans sahen das Endspiel.", "de") == (
        "Über siebzehntausend Fans sahen das Endspiel."
    )
