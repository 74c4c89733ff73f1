"""Long-line chunking: sentence ends, abbreviations, numbers, caps, tails, tags and speakers."""

import random
import re

import pytest
from fakes import write_dedented

from drama_cli.compile.chunking import chunk_length, split_text
from drama_cli.errors import ScriptError
from drama_cli.script.direction import to_prefix_form
from drama_cli.script.load import load_script


def test_sentence_mode_one_sentence_per_chunk():
    assert split_text("One. Two! Three?", per_sentence=True) == ["One.", "Two!", "Three?"]


def test_short_text_is_one_chunk():
    assert split_text("<|speaker:2|> Hello there. How are you?") == [
        "<|speaker:2|> Hello there. How are you?"
    ]


def test_no_cut_inside_brackets_or_tags():
    text = "[a long direction. with a period inside] Hello. " * 20
    chunks = split_text(text.strip(), max_chars=100)
    for chunk in chunks:
        assert chunk.count("[") == chunk.count("]")
        assert chunk_length(chunk) <= 100


def test_clause_marks_before_spaces():
    text = ("word " * 20).strip() + ", " + ("more " * 20).strip() + "."
    chunks = split_text(text, max_chars=120)
    assert chunks[0].endswith(",")


def test_every_chunk_keeps_its_speaker_tag_across_switches():
    text = (
        "<|speaker:0|> "
        + "Alpha beta gamma. " * 10
        + "<|speaker:1|> "
        + "Delta epsilon zeta. " * 10
    )
    chunks = split_text(text.strip(), max_chars=80)
    assert all(c.startswith(("<|speaker:0|> ", "<|speaker:1|> ")) for c in chunks)
    assert chunks[-1].startswith("<|speaker:1|> ")
    assert sum(c.count("<|speaker:1|>") for c in chunks) >= 2


def test_scope_closed_and_reopened():
    chunks = split_text(
        "<|speaker:0|> <whisper>" + "Quiet now. " * 40 + "</whisper> Done.", max_chars=100
    )
    for chunk in chunks[:-1]:
        assert chunk.count("<whisper>") == chunk.count("</whisper>") == 1
    assert chunks[-1].endswith("Done.")


def test_dotted_abbreviation_before_capital_is_a_sentence_end():
    assert split_text("We met at 9 a.m. Then it rained.", per_sentence=True) == [
        "We met at 9 a.m.",
        "Then it rained.",
    ]


def test_hard_cut_only_for_a_word_longer_than_the_cap():
    chunks = split_text("x" * 250, max_chars=100)
    assert [len(c) for c in chunks] == [100, 100, 50]


def test_tail_rebalanced_when_it_cannot_merge():
    text = " ".join(["abcdefghi"] * 31)  # 309 characters
    chunks = split_text(text, max_chars=300)
    assert len(chunks) == 2
    assert min(len(c) for c in chunks) >= 20
    assert " ".join(chunks) == text


@pytest.mark.case("T4")
def test_T4_scoped_tags_close_and_reopen_across_chunks(tmp_path):
    chunks = split_text(
        "<|speaker:0|> <angry>Get out. Right now.</angry> Please.", per_sentence=True
    )
    assert chunks == [
        "<|speaker:0|> <angry>Get out.</angry>",
        "<|speaker:0|> <angry>Right now.</angry>",
        "<|speaker:0|> Please.",
    ]
    prefix = [to_prefix_form(c.replace("<|speaker:0|> ", "")) for c in chunks]
    assert prefix == ["[angry] Get out.", "[angry] Right now.", "Please."]
    assert not any(ch in p for p in prefix for ch in "<>") and not any(
        "/angry" in p for p in prefix
    )
    for text, column in (("<angry>Get out.", 12), ("<angry><whisper>no</angry></whisper>", 30)):
        path = write_dedented(tmp_path, "t4.yaml", f'lines:\n  - speaker: A\n    text: "{text}"\n')
        with pytest.raises(ScriptError) as info:
            load_script(path, resolve=False)
        assert (info.value.position.line, info.value.position.column) == (3, column)


@pytest.mark.case("M3")
def test_M3_sentence_splitter_respects_abbreviations_and_numbers():
    text = (
        "Dr. Okafor met Mrs. Lind at 9 a.m. on Elm St. near the pier. She paid $4.50 for two coffees... "
        "Then nothing.."
    )
    chunks = split_text(text, per_sentence=True)
    assert chunks == [
        "Dr. Okafor met Mrs. Lind at 9 a.m. on Elm St. near the pier.",
        "She paid $4.50 for two coffees...",
        "Then nothing..",
    ]
    assert all(re.search(r"\w", c) for c in chunks)
    assert sum("4.50" in c for c in chunks) == 1


def check_m4(text, chunks, cap=300):
    assert chunks and all(0 < len(c) <= cap for c in chunks)
    assert " ".join(chunks) == " ".join(text.split())
    if len(chunks) > 1 and len(chunks[-1]) < 20:
        assert len(chunks[-2]) + 1 + len(chunks[-1]) > cap


@pytest.mark.case("M4")
def test_M4_chunk_cap_and_word_boundaries():
    rng = random.Random(4)
    sentences = []
    for _ in range(9):
        words = " ".join(
            "".join(rng.choice("abcdefgh") for _ in range(rng.randint(3, 8))) for _ in range(16)
        )
        sentences.append((words[:98].rstrip() + ".").capitalize())
    paragraph = " ".join(sentences)
    assert 850 <= len(paragraph) <= 950
    chunks = split_text(paragraph, max_chars=300)
    check_m4(paragraph, chunks)
    assert all(c.endswith(".") for c in chunks)

    run = " ".join(
        "".join(rng.choice("klmnop") for _ in range(rng.randint(2, 9))) for _ in range(200)
    )[:700].strip()
    check_m4(run, split_text(run, max_chars=300))

    for _ in range(2000):
        length = rng.randint(1, 2000)
        words, size = [], -1
        while size < length:
            word = "".join(
                rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 20))
            )
            words.append(word)
            size += len(word) + 1
        text = " ".join(words)
        check_m4(text, split_text(text, max_chars=300))


def test_a_point_tag_longer_than_the_cap_is_never_cut_apart():
    tag = "[" + "very " * 30 + "angry]"
    chunks = split_text(f"<|speaker:0|> Hello there my friend. {tag} Fine.", max_chars=40)
    assert [c for c in chunks if "very" in c] == [f"<|speaker:0|> {tag}"]
    assert (
        chunks[0] == "<|speaker:0|> Hello there my friend." and chunks[-1] == "<|speaker:0|> Fine."
    )
