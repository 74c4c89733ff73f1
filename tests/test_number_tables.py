"""A line of many numbers (a table pasted into a script): each number of a run of three-digit
groups longer than one number's groups is read on its own, and normalising stays linear in the
length of the line."""

import random

import pytest

from drama_cli.compile.normalise import normalise_text
from drama_cli.compile.numbers.recognise import Recogniser


def _three_digit_line(count: int) -> str:
    rng = random.Random(7)
    return " ".join(str(rng.randint(100, 999)) for _ in range(count))


@pytest.mark.parametrize("language", ["en", "de", "fr", "es"])
def test_a_line_of_five_thousand_numbers_is_said_with_no_digit_left(language):
    said = normalise_text(_three_digit_line(5000), language)
    assert not any(c.isdigit() for c in said)


@pytest.mark.parametrize(
    "language, written, said",
    [
        (
            "en",
            "120 135 150 175 190 205",
            "one hundred and twenty one hundred and thirty-five "
            "one hundred and fifty one hundred and seventy-five one hundred and ninety two hundred "
            "and five",
        ),
        (
            "de",
            "Werte: 120 135 150 175 190 205",
            "Werte: einhundertzwanzig einhundertfünfunddreißig "
            "einhundertfünfzig einhundertfünfundsiebzig einhundertneunzig zweihundertfünf",
        ),
        ("fr", "1 000 000 habitants", "un million d'habitants"),
        ("en", "It cost 1 000 000 dollars.", "It cost one million dollars."),
        (
            "en",
            "Earth has 7 800 000 000 people.",
            "Earth has seven billion eight hundred million people.",
        ),
    ],
)
def test_a_run_of_groups_longer_than_a_number_is_a_table(language, written, said):
    assert normalise_text(written, language) == said


def test_the_work_per_number_does_not_grow_with_the_line(monkeypatch):
    """Each number of a table is tried once, with no more following groups on a long line than
    on a short one: the work is linear in the line (bench/number_speed.py prints the times)."""
    tried = []
    expression = Recogniser._expression

    def counted(self, text, tokens, i, groups):
        tried.append(groups)
        return expression(self, text, tokens, i, groups)

    monkeypatch.setattr(Recogniser, "_expression", counted)
    widest = {}
    for count in (500, 4000):
        tried.clear()
        normalise_text(_three_digit_line(count), "en")
        assert len(tried) == count
        widest[count] = max(tried)
    assert widest[4000] == widest[500]
