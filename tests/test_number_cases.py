"""Cases per class of number expression (identifiers, equations, headings, separators, garbled
forms and the common classes) in each language, written -> said; a case that must be left as
written has said == written. The tables live in tests/number_cases/ (`bench/number_cases.py`
scores them)."""

import re

import pytest
from number_cases import de, en, es, fr

from drama_cli.compile.normalise import normalise_text

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
