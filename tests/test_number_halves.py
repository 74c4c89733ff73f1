"""A German half agrees with its noun and the case the words before call for, and a whole number
before it joins it as one word."""

import pytest

from drama_cli.compile.normalise import normalise_text


@pytest.mark.parametrize(
    "written, said",
    [
        ("Er wartete 1 ½ Stunden.", "Er wartete eineinhalb Stunden."),
        ("Es waren 101 ½ Kilo.", "Es waren einhunderteineinhalb Kilo."),
        ("Es dauerte 21 ½ Stunden.", "Es dauerte einundzwanzigeinhalb Stunden."),
        ("Nach 1/2 Stunde war er da.", "Nach einer halben Stunde war er da."),
        ("Er trank ½ Liter Milch.", "Er trank einen halben Liter Milch."),
        ("Dazu kommt 1/2 Päckchen Hefe.", "Dazu kommt ein halbes Päckchen Hefe."),
        ("Er aß 1/2 Apfel mit 1/2 Banane.", "Er aß einen halben Apfel mit einer halben Banane."),
    ],
)
def test_a_german_half_agrees_with_its_noun(written, said):
    assert normalise_text(written, "de") == said


def test_an_english_half_is_unchanged():
    assert (
        normalise_text("Add 1 1/2 cups and 1/2 cup.", "en")
        == "Add one and a half cups and one half cup."
    )
