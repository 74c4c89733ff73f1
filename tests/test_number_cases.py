"""Cases per class of number expression (identifiers, equations, headings, separators, garbled
forms and the common classes) in each language, written -> said; a case that must be left as
written has said == written. The tables live in tests/number_cases/ (`bench/number_cases.py`
scores them)."""

import re

import pytest
from number_cases import de, en, es, fr

from drama_cli.compile.normalise import normalise_text, number_expressions

TABLES = {"en": en.ROWS, "de": de.ROWS, "fr": fr.ROWS, "es": es.ROWS}
CASES = [
    pytest.param(language, kind, written, said, id=f"{language}-{kind}-{index}")
    for language, rows in TABLES.items()
    for index, (kind, _genre, written, said) in enumerate(rows)
]


@pytest.mark.parametrize("language, kind, written, said", CASES)
def test_each_class_is_said_as_a_listener_expects(language, kind, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize("language, kind, written, said", CASES)
def test_nothing_is_half_converted(language, kind, written, said):
    got = normalise_text(written, language)
    assert got == written or not re.search(r"\d", got)


@pytest.mark.parametrize("language", sorted(TABLES))
def test_every_language_covers_every_class(language):
    kinds = {kind for kind, *_ in TABLES[language]}
    assert {"identifier", "equation", "heading", "separator", "time", "money"} <= kinds


@pytest.mark.parametrize(
    "language, text, written",
    [
        ("de", "Der Zug fährt um 24:45 Uhr.", "24:45"),
        ("en", "The clock read 24:45 in the film.", "24:45"),
        ("es", "Llegó a las 24:45 según el acta.", "24:45"),
        ("de", "am 17-18-19 Juni", "17-18-19"),
        ("de", "die 1.5+1.5=3 Regel", "1.5+1.5=3"),  # an English decimal mark
    ],
)
def test_what_cannot_be_read_with_confidence_is_listed_at_its_place_as_written(
    language, text, written
):
    found = number_expressions(text, language)
    left = [e for e in found if e.said is None]
    assert [(e.written, e.start) for e in left] == [(written, text.index(written))]
    assert normalise_text(text, language) == text
