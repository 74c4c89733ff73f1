"""A line of many numbers (a table pasted into a script): each number of a run of three-digit
groups longer than one number's groups is read on its own, and normalising stays linear in the
length of the line."""

import random
import time

import pytest

from drama_cli.compile.normalise import normalise_text


def _three_digit_line(count: int) -> str:
    rng = random.Random(7)
    return " ".join(str(rng.randint(100, 999)) for _ in range(count))


@pytest.mark.parametrize("language", ["en", "de", "fr", "es"])
def test_a_line_of_five_thousand_numbers_is_said_in_about_a_second(language):
    line = _three_digit_line(5000)
    normalise_text(_three_digit_line(50), language)  # warm the word caches
    start = time.perf_counter()
    said = normalise_text(line, language)
    assert time.perf_counter() - start < 3.0  # under a second on one idle core
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


def test_the_time_per_number_does_not_grow_with_the_line():
    normalise_text(_three_digit_line(50), "en")
    times = []
    for count in (500, 4000):
        line = _three_digit_line(count)
        best = min(_timed(line) for _ in range(2))
        times.append(best / count)
    assert times[1] < 3 * times[0]  # quadratic would be 8x


def _timed(line: str) -> float:
    start = time.perf_counter()
    normalise_text(line, "en")
    return time.perf_counter() - start
