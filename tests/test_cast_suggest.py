"""`drama cast suggest`: library voices proposed from what the cast says of each character, never
one voice for two characters of one scene, the narrator's voice no one else's, written into the
cast only with --apply (comments and order kept); and the import's `gender:` in the cast."""

import json
from collections import Counter

import pytest
import soundfile as sf
from fakes import one_error_line, voice

from drama_cli.cast.cast_file import voice_text
from drama_cli.cast.suggest import character_traits, suggest
from drama_cli.cli import main
from drama_cli.errors import UsageError
from drama_cli.manuscript.imported import Manuscript
from drama_cli.manuscript.writer import cast_lines
from drama_cli.script.document import CastMember
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import LIBRARY_ENV, list_voices

SR = 44_100
SCRIPT = """title: Manor
narrator: NARRATOR
# the household
cast:
  NARRATOR: {}
  LADY ASH:  # the mistress
    description: "an elderly Scottish widow"
  TOM:
    gender: male
    description: "a young footman"
  MAID: {}
  COOK:
    description: "the cook, a woman of fifty"
  GARDENER: {}
scenes:
  - id: hall
    lines:
      - LADY ASH: Where is the tea?
      - TOM: Coming, my lady.
      - MAID: At once.
      - action: The clock strikes four.
  - id: kitchen
    lines:
      - COOK: Mind the pot.
      - MAID: Yes, Cook.
  - id: garden
    lines:
      - GARDENER: Roses again.
"""
VOICES = {
    "heather": "female, old, Scottish",
    "lad": "male, young",
    "bright": "female, young",
    "matron": "female, 50s",
    "reader": "male, calm, narrator",
    "gruff": "male, old",
}


@pytest.fixture
def manor(tmp_path, monkeypatch):
    library = tmp_path / "lib"
    monkeypatch.setenv(LIBRARY_ENV, str(library))
    for number, (name, tags) in enumerate(VOICES.items()):
        clip = tmp_path / f"{name}.wav"
        sf.write(clip, voice(1.5, 120.0 + 20 * number), SR)
        args = ["voices", "add", str(clip), "--name", name, "--tags", tags]
        assert main([*args, "--transcript", "Hello.", "--library", str(library)]) == 0
    path = tmp_path / "manor.yaml"
    path.write_text(SCRIPT, encoding="utf-8")
    return path, library


def test_a_character_is_known_by_gender_description_and_title():
    lady = character_traits(CastMember("LADY ASH", description="an elderly Scottish widow"))
    assert (lady.gender, lady.age, lady.accents) == ("female", "old", frozenset({"scottish"}))
    assert character_traits(CastMember("MRS. LINDE")).gender == "female"
    assert character_traits(CastMember("HELMER", description="Torvald Helmer")).gender is None
    # a pronoun in a description is someone else's: "his wife" is a woman
    assert character_traits(CastMember("NORA", description="his wife")).gender == "female"
    assert character_traits(CastMember("TOM", gender="male", description="a girl")).gender == "male"


def test_proposals_fit_the_cast_and_no_scene_hears_one_voice_twice(manor):
    path, library = manor
    script = load_script(path)
    proposals = suggest(script, list_voices(library))
    chosen = {p.character: p.voice for p in proposals}
    assert chosen["LADY ASH"] == "heather"
    assert proposals[1].reasons == ("female", "old", "scottish")
    assert chosen["TOM"] == "lad"
    assert chosen["NARRATOR"] == "reader"
    assert chosen["COOK"] == "matron"
    for scene in script.scenes:
        speakers = {line.speaker for line in scene.lines}
        voices = [chosen[s] for s in speakers]
        assert len(voices) == len(set(voices)), scene.id
    assert Counter(chosen.values())["reader"] == 1  # the narrator's voice is no one else's
    assert suggest(script, list_voices(library)) == proposals  # the same every time


def test_without_a_free_voice_a_character_gets_none_and_says_so(manor):
    path, library = manor
    voices = [v for v in list_voices(library) if v.name in ("heather", "lad")]
    proposals = {p.character: p for p in suggest(load_script(path), voices)}
    assert (proposals["NARRATOR"].voice, proposals["MAID"].voice) == ("heather", "lad")
    assert proposals["TOM"].voice is None and proposals["LADY ASH"].voice is None
    assert proposals["TOM"].reasons == ("no other voice free",)
    assert proposals["GARDENER"].voice == "lad"  # MAID's voice: they share no scene


def test_suggest_prints_and_writes_only_with_apply(manor, capsys):
    path, library = manor
    assert main(["cast", "suggest", str(path), "--library", str(library)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("character  voice            score  reasons\n")
    assert "LADY ASH   heather" in out and "female, old, scottish" in out
    assert "COOK       matron             6  female, middle" in out
    assert path.read_text() == SCRIPT
    assert main(["cast", "suggest", str(path), "--library", str(library), "--apply"]) == 0
    text = path.read_text()
    assert text.startswith("title: Manor\nnarrator: NARRATOR\n# the household\ncast:\n")
    assert '  LADY ASH:  # the mistress\n    voice: "library:heather"\n' in text
    assert '  NARRATOR:\n    voice: "library:reader"\n' in text
    assert '  COOK:\n    voice: "library:matron"\n    description: "the cook, a woman' in text
    script = load_script(path)
    assert script.cast["TOM"].library_voice == "lad"
    assert script.cast["LADY ASH"].references[0].path.endswith("heather.wav")
    capsys.readouterr()
    assert main(["cast", "suggest", str(path), "--library", str(library), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["proposals"] == []


@pytest.mark.parametrize(
    "entry, expected",
    [
        ("  A: {}\n", '  A:\n    voice: "library:v"\n'),
        ("  A:  # kept\n", '  A:  # kept\n    voice: "library:v"\n'),
        (
            "  A:\n    # note\n    gender: male\n",
            '  A:\n    # note\n    voice: "library:v"\n    gender: male\n',
        ),
    ],
)
def test_a_voice_is_written_into_an_empty_or_block_entry(entry, expected):
    assert voice_text(f"cast:\n{entry}B: 1\n", "A", "library:v") == f"cast:\n{expected}B: 1\n"


def test_an_entry_written_otherwise_is_refused_at_its_line():
    with pytest.raises(UsageError, match=r"<cast>:2: A's entry is not a block of keys"):
        voice_text("cast:\n  A: {gender: male}\n", "A", "library:v")
    with pytest.raises(UsageError, match="A already has a voice"):
        voice_text("cast:\n  A:\n    voice: a.wav\n", "A", "library:v")


def test_suggest_with_an_empty_library_is_one_line_and_exit_2(manor, capsys):
    path, _ = manor
    assert main(["cast", "suggest", str(path), "--library", str(path.parent / "none")]) == 2
    assert one_error_line(capsys).endswith("has no voices: add some with 'drama voices add'")


def test_the_import_writes_the_gender_it_learnt_into_the_cast():
    book = Manuscript("Book", None, [])
    rows = cast_lines(book, Counter({"JOHN": 3, "MRS. GREY": 2, "PAT": 1}), None, {"JOHN": "m"})
    assert rows == [
        "  NARRATOR: {}",
        "  JOHN:\n    gender: male",
        "  MRS. GREY:\n    gender: female",
        "  PAT: {}",
    ]
