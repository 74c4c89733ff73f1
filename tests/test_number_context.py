"""Numbers said by the words around them: scale words in another language's line, German case
after verbs and adjectives, game scores, amounts used as adjectives, days next to month names,
compounds, and the forms English and German texts write that were left as digits."""

import pytest

from drama_cli.compile.normalise import normalise_text, number_expressions


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("de", "5 million Menschen leben dort.", "fünf Millionen Menschen leben dort."),
        ("de", "1 million Menschen", "eine Million Menschen"),
        ("de", "2,5 million Menschen", "zwei Komma fünf Millionen Menschen"),
        ("de", "5 thousand Menschen", "fünftausend Menschen"),
        ("de", "3 billion Jahre", "drei Milliarden Jahre"),
    ],
)
def test_an_english_scale_word_after_a_bare_number_is_said_in_german(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, scale",
    [
        ("fr", "5 million personnes", "cinq millions"),
        ("es", "5 million personas", "cinco millones"),
    ],
)
def test_an_english_scale_word_is_said_in_the_line_language(language, written, scale):
    said = normalise_text(written, language)
    assert said.startswith(scale) and "million " not in said
    assert [e.written for e in number_expressions(written, language)] == [written.rsplit(" ", 1)[0]]


@pytest.mark.parametrize(
    "written, said",
    [
        ("Er hatte 1 Bruder.", "Er hatte einen Bruder."),
        ("Er hatte noch 1 Bruder.", "Er hatte noch einen Bruder."),
        ("Sie kaufte 1 Buch.", "Sie kaufte ein Buch."),
        ("Sie hatte 1 Tochter.", "Sie hatte eine Tochter."),
        ("Es gibt 1 Problem.", "Es gibt ein Problem."),
        ("Wir brauchen 1 Löffel.", "Wir brauchen einen Löffel."),
        ("Dann kam 1 Mann herein.", "Dann kam ein Mann herein."),
    ],
)
def test_a_german_one_after_a_transitive_verb_is_its_object(written, said):
    assert normalise_text(written, "de") == said


@pytest.mark.parametrize(
    "written, said",
    [
        ("etwa 1 gestrichener Esslöffel", "etwa ein gestrichener Esslöffel"),
        ("1 große Zwiebel", "eine große Zwiebel"),
        ("1 großes Ei", "ein großes Ei"),
        ("mit 1 großen Zwiebel", "mit einer großen Zwiebel"),
        ("Er nahm 1 kleinen Apfel.", "Er nahm einen kleinen Apfel."),
    ],
)
def test_a_german_one_before_an_adjective_agrees_with_the_noun(written, said):
    assert normalise_text(written, "de") == said


@pytest.mark.parametrize(
    "written, said",
    [
        ("Er war der Sohn von Ludwig XIII.", "Er war der Sohn von Ludwig dem Dreizehnten."),
        (
            "die Tochter von König Philipp IV. von Spanien",
            "die Tochter von König Philipp dem Vierten von Spanien",
        ),
        (
            "die Regierungszeit Ludwigs XIV. endete",
            "die Regierungszeit Ludwigs des Vierzehnten endete",
        ),
        ("Ludwig XIV. baute Versailles.", "Ludwig der Vierzehnte baute Versailles."),
        ("am Montag, 15. September", "am Montag, fünfzehnten September"),
        ("im späten 17. Jahrhundert", "im späten siebzehnten Jahrhundert"),
        ("in der 48.Minute", "in der achtundvierzigsten Minute"),
        ("Er wartet auf seinen 23. Titel.", "Er wartet auf seinen dreiundzwanzigsten Titel."),
        ("Mit seinem 17. Sieg in Serie", "Mit seinem siebzehnten Sieg in Serie"),
        ("sein 3. Sieg", "sein dritter Sieg"),
    ],
)
def test_german_ordinals_take_the_case_of_the_words_before_them(written, said):
    assert normalise_text(written, "de") == said


@pytest.mark.parametrize(
    "written, said",
    [
        ("Der 20-jährige Stürmer traf.", "Der zwanzigjährige Stürmer traf."),
        ("Götze traf zum 1:1-Ausgleich.", "Götze traf zum eins-zu-eins-Ausgleich."),
        ("ein 10-Minuten-Takt", "ein zehn-Minuten-Takt"),
        (
            "Daraus 2 x 8 cm große Stücke schneiden.",
            "Daraus zwei mal acht Zentimeter große Stücke schneiden.",
        ),
        (
            "Betrieb ruht von 23:42-03:28 Uhr.",
            "Betrieb ruht von dreiundzwanzig Uhr zweiundvierzig bis drei Uhr achtundzwanzig.",
        ),
        ("Bei 200° C backen.", "Bei zweihundert Grad Celsius backen."),
        (
            "Das kostet 12,50 Euro inkl. MwSt.",
            "Das kostet zwölf Euro und fünfzig Cent inklusive Mehrwertsteuer.",
        ),
        ("Er siegt nach 2:26 Stunden.", "Er siegt nach zwei Stunden und sechsundzwanzig Minuten."),
        ("Dann dreht er auf 40:30.", "Dann dreht er auf vierzig zu dreißig."),
        ("Es spielte die Nummer 1 Novak Djokovic.", "Es spielte die Nummer eins Novak Djokovic."),
    ],
)
def test_german_compounds_and_written_forms_are_said_whole(written, said):
    assert normalise_text(written, "de") == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("en", "The match ended 2-2.", "The match ended two all."),
        ("en", "They drew 0-0 at home.", "They drew nil nil at home."),
        ("en", "United won 1-0.", "United won one nil."),
        ("en", "They lost 0-3 at home.", "They lost nil three at home."),
        ("en", "a 1-1 draw", "a one all draw"),
        ("en-GB", "a 2-2 draw", "a two all draw"),
        ("en", "They won 3-1.", "They won three to one."),
        ("en", "The vote was 2-2.", "The vote was two to two."),
        ("en-US", "The game ended 0-0.", "The game ended nothing nothing."),
        ("en-US", "They won 1-0.", "They won one nothing."),
        ("en-US", "a 2-2 tie", "a two all tie"),
    ],
)
def test_a_game_score_with_a_draw_or_a_nought_is_said_as_the_game_says_it(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "written, said",
    [
        ("He had a 500-rupee note.", "He had a five-hundred-rupee note."),
        ("a 10-year-old boy", "a ten-year-old boy"),
        ("a 5-minute walk", "a five-minute walk"),
        ("a 25-point lead", "a twenty-five-point lead"),
        ("a 7.1-magnitude quake", "a seven point one-magnitude quake"),
        (
            "Apple unveiled a $100 billion buyback.",
            "Apple unveiled a one hundred billion dollar buyback.",
        ),
        ("the $1,000 barrier", "the one thousand dollar barrier"),
        ("a prepared 20cm cake tin", "a prepared twenty centimetre cake tin"),
        ("It cost $5 in total.", "It cost five dollars in total."),
        ("It earned $1.52 a share.", "It earned one dollar and fifty-two cents a share."),
        ("a 5 km run", "a five kilometre run"),
        ("He ran 5 km to work.", "He ran five kilometres to work."),
    ],
)
def test_an_amount_or_measure_before_a_noun_is_said_as_an_adjective(written, said):
    assert normalise_text(written, "en") == said


@pytest.mark.parametrize(
    "written, said",
    [
        (
            "For the quarter ending March 31, 2018.",
            "For the quarter ending March thirty-first, twenty eighteen.",
        ),
        ("Gracechurch-street, Monday, August 2.", "Gracechurch-street, Monday, August second."),
        ("It appeared since Dec 10, 1970.", "It appeared since December tenth, nineteen seventy."),
        ("She came on Feb. 14, 1946.", "She came on February fourteenth, nineteen forty-six."),
        ("Posted on 18 July 2009.", "Posted on the eighteenth of July two thousand and nine."),
        ("Kent, 15th October.", "Kent, the fifteenth of October."),
        ("on the 15th October", "on the fifteenth of October"),
        ("He was born in May 1990.", "He was born in May nineteen ninety."),
        (
            "The veteran died October 25 at a care home.",
            "The veteran died October twenty-fifth at a care home.",
        ),
        ("In March 12 people were hurt.", "In March twelve people were hurt."),
    ],
)
def test_an_english_day_next_to_a_month_name_is_an_ordinal(written, said):
    assert normalise_text(written, "en") == said


@pytest.mark.parametrize(
    "written, said",
    [
        ("He went 11-of-19 from the floor.", "He went eleven of nineteen from the floor."),
        (
            "It came to 70p, or 5.5p a slice.",
            "It came to seventy pence, or five point five pence a slice.",
        ),
        ("Brut, ’89; a fine wine.", "Brut, eighty-nine; a fine wine."),
        ("a dividend of $.73 per share", "a dividend of seventy-three cents per share"),
        ("Hotline #1,161 is out.", "Hotline number one thousand one hundred and sixty-one is out."),
        ("almost 1-1/2 hours earlier", "almost one and a half hours earlier"),
        ("a 2 x 3 m rug", "a two by three metres rug"),
        ("Bake at 180C (gas 5).", "Bake at one hundred and eighty degrees Celsius (gas five)."),
        ("She lives in Flat 12C.", "She lives in Flat twelve C."),
        ("Meringues need 2 - 3hrs.", "Meringues need two to three hours."),
        ("Bake for 18-23 mins.", "Bake for eighteen to twenty-three minutes."),
        (
            "Preheat oven to 350 degrees F (175 degrees C).",
            "Preheat oven to three hundred and fifty degrees Fahrenheit "
            "(one hundred and seventy-five degrees Celsius).",
        ),
        ("Measure out 2 1/4 cups flour.", "Measure out two and a quarter cups flour."),
        ("Prepare one 9x13-inch pan.", "Prepare one nine by thirteen-inch pan."),
        ("It is numbered 001-001.", "It is numbered zero zero one zero zero one."),
    ],
)
def test_english_written_forms_are_said_whole_or_left_as_written(written, said):
    assert normalise_text(written, "en") == said


@pytest.mark.parametrize(
    "language, written",
    [
        ("de", "zum 1:1-Ausgleich7"),
        ("de", "der 11-of-61898"),
        ("de", "die 48.Minute7"),
        ("en", "a 500-rupee2 note"),
    ],
)
def test_a_compound_whose_word_holds_a_digit_is_left_as_written(language, written):
    assert normalise_text(written, language) == written
