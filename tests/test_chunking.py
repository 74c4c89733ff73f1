"""Long-line chunking: sentence ends, abbreviations, numbers, caps, tails, tags and speakers."""

from drama_cli.compile.chunking import chunk_length, split_text


def test_sentence_mode_one_sentence_per_chunk():
    assert split_text("One. Two! Three?", per_sentence=True) == ["One.", "Two!", "Three?"]


def test_short_text_is_one_chunk():
    assert split_text("<|speaker:2|> Hello there. How are you?") == ["<|speaker:2|> Hello there. How are you?"]


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
    text = "<|speaker:0|> " + "Alpha beta gamma. " * 10 + "<|speaker:1|> " + "Delta epsilon zeta. " * 10
    chunks = split_text(text.strip(), max_chars=80)
    assert all(c.startswith(("<|speaker:0|> ", "<|speaker:1|> ")) for c in chunks)
    assert chunks[-1].startswith("<|speaker:1|> ")
    assert sum(c.count("<|speaker:1|>") for c in chunks) >= 2


def test_scope_closed_and_reopened():
    chunks = split_text("<|speaker:0|> <whisper>" + "Quiet now. " * 40 + "</whisper> Done.", max_chars=100)
    for chunk in chunks[:-1]:
        assert chunk.count("<whisper>") == chunk.count("</whisper>") == 1
    assert chunks[-1].endswith("Done.")


def test_dotted_abbreviation_before_capital_is_a_sentence_end():
    assert split_text("We met at 9 a.m. Then it rained.", per_sentence=True) == ["We met at 9 a.m.", "Then it rained."]


def test_hard_cut_only_for_a_word_longer_than_the_cap():
    chunks = split_text("x" * 250, max_chars=100)
    assert [len(c) for c in chunks] == [100, 100, 50]


def test_tail_rebalanced_when_it_cannot_merge():
    text = " ".join(["abcdefghi"] * 31)  # 309 characters
    chunks = split_text(text, max_chars=300)
    assert len(chunks) == 2
    assert min(len(c) for c in chunks) >= 20
    assert " ".join(chunks) == text
