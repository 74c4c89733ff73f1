"""Sentences per language, written -> said, each spoken form checked by hand; the tables live in
tests/number_sentences/, one module per language, with the genre and source of each row."""

import pytest
from number_sentences import de, en, es, fr

from drama_cli.compile.normalise import normalise_text

TABLES = {"en": en.ROWS, "de": de.ROWS, "fr": fr.ROWS, "es": es.ROWS}
CASES = [
    pytest.param(language, genre, written, said, id=f"{language}-{index}")
    for language, rows in TABLES.items()
    for index, (genre, source, written, said) in enumerate(rows)
]


@pytest.mark.parametrize("language, genre, written, said", CASES)
def test_sentences_are_said_as_a_reader_says_them(language, genre, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize("language", sorted(TABLES))
def test_every_row_names_its_genre_and_source(language):
    for genre, source, written, _said in TABLES[language]:
        assert genre in {"news", "recipe", "timetable", "sports", "novel", "invoice", "other"}, (
            written
        )
        assert source.strip(), written


@pytest.mark.parametrize("language", sorted(TABLES))
def test_at_least_two_hundred_rows_name_a_real_source(language):
    sourced = [
        written for genre, source, written, said in TABLES[language] if source != "written here"
    ]
    assert len(sourced) >= 200
