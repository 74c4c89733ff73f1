"""The tag grammar (engine.text) and the forms a line's spoken words are compared in
(drama_cli.script.spoken): one definition of each, shared by chunking, edits, take
selection and the speech-recognition check."""

from __future__ import annotations

from drama_cli.compile.normalise import normalise_text
from drama_cli.qc.asr import wer
from drama_cli.script.spoken import (
    Word,
    model_words,
    normalise_word,
    spoken_tokens,
    spoken_words,
    wer_words,
)
from engine.text import LINE_MARKUP, TAG, spoken_text


def test_every_kind_of_tag_is_one_pattern():
    text = "<|speaker:1|> [sighs] <whisper>Go</whisper> {ANNA} now"
    assert TAG.findall(text) == ["<|speaker:1|>", "[sighs]", "<whisper>", "</whisper>"]
    assert LINE_MARKUP.findall(text) == [*TAG.findall(text), "{ANNA}"]


def test_a_scoped_tag_is_read_as_the_script_grammar_reads_it():
    assert spoken_text("a <b c> d </b>") == "a <b c> d"  # `<b c>` is text in a script line


def test_model_words_drop_only_speaker_tags():
    assert model_words("<|speaker:3|>  [sighs]  Fine. <|speaker:0|> Go") == "[sighs] Fine. Go"
    assert model_words(None) == ""


def test_spoken_words_of_a_script_line_skip_tags_and_switches():
    line = "[sighs] Well, <whisper>goodbye</whisper> {ANNA} — then!"
    assert spoken_tokens(line) == ["Well,", "goodbye", "then!"]
    assert spoken_words(line) == ["well", "goodbye", "then"]
    assert normalise_word("'Twas,") == "twas"


def test_the_wer_says_numbers_as_the_compiler_writes_them():
    said = normalise_text("We met 105 times.", "en")
    assert wer_words(said) == wer_words("We met 105 times.")
    assert wer(said, "We met 105 times.") == 0.0


def test_a_word_keeps_its_times_and_confidence():
    heard = Word("Hello", 0.12345, 0.5, 0.98765)
    assert heard.to_dict() == {
        "text": "Hello",
        "start_s": 0.123,
        "end_s": 0.5,
        "probability": 0.988,
    }
    assert Word("Hello", 0.0, 0.5).probability is None
