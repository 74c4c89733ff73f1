"""Number expressions said whole in English, German, French and Spanish: the forms and agreements
of docs/guide/pronunciation.md, each written form with the exact words it becomes."""

import random
import re

import pytest

from drama_cli.compile.normalise import (
    normalise_text,
    normalised_pieces,
    number_expressions,
)

# (language, written, said): the garbled, ungrammatical and unconverted forms reported from real
# texts, then one row per form the guide lists.
EXAMPLES = [
    ("en", "1:00a.m.", "one a.m."),
    ("en", "1,000th", "one thousandth"),
    ("en", "9,000,000th", "nine millionth"),
    ("en", "10:00:00 p.m.", "ten p.m."),
    ("de", "24:00 Uhr", "vierundzwanzig Uhr"),
    ("fr", "02.03.2003", "deux mars deux mille trois"),
    ("en", "2:45.5", "two minutes forty-five point five seconds"),
    ("en", "$5 million", "five million dollars"),
    ("en", "¥30 billion", "thirty billion yen"),
    ("en", "₩460 billion", "four hundred and sixty billion won"),
    ("de", "am 3. Mai", "am dritten Mai"),
    ("de", "der 3. Mai", "der dritte Mai"),
    ("de", "im 19. Jahrhundert", "im neunzehnten Jahrhundert"),
    ("de", "zum 2. Mal", "zum zweiten Mal"),
    ("de", "1 Buch", "ein Buch"),
    ("de", "mit 1 Frau", "mit einer Frau"),
    ("es", "1 dólar", "un dólar"),
    ("es", "21 años", "veintiún años"),
    ("es", "21 personas", "veintiuna personas"),
    ("es", "200 mujeres", "doscientas mujeres"),
    ("es", "la 1.ª", "la primera"),
    ("es", "el 1.er día", "el primer día"),
    ("fr", "1 personne", "une personne"),
    ("fr", "21 femmes", "vingt et une femmes"),
    ("fr", "le 1er mai", "le premier mai"),
    ("fr", "la 1re fois", "la première fois"),
    ("fr", "la 2e fois", "la deuxième fois"),
    ("en", "the 1990s", "the nineteen nineties"),
    ("de", "die 1990er", "die neunzehnhundertneunziger"),
    ("en", "at 7pm", "at seven p.m."),
    ("en", "at 7 p.m.", "at seven p.m."),
    ("en", ".5 of it", "point five of it"),
    ("en", "12KG", "twelve kilograms"),
    ("de", "um 19.30 Uhr", "um neunzehn Uhr dreißig"),
    ("fr", "à 22 h 30", "à vingt-deux heures trente"),
    ("es", "a las 22:30", "a las veintidós y treinta"),
    ("en", "on 2003-03-02", "on the second of March two thousand and three"),
    ("en-US", "on 3/2/2003", "on March second two thousand and three"),
    ("en-GB", "on 3/2/2003", "on the third of February two thousand and three"),
    ("de", "am 02.03.2003", "am zweiten März zweitausenddrei"),
    ("es", "el 02.03.2003", "el dos de marzo de dos mil tres"),
    ("en", "the '90s", "the nineties"),
    ("es", "los años 90", "los años noventa"),
    ("en", "pages 3-5", "pages three to five"),
    ("en", "pages 3–5", "pages three to five"),
    ("en", "1990-1995", "nineteen ninety to nineteen ninety-five"),
    ("de", "3-5", "drei bis fünf"),
    ("fr", "3-5", "trois à cinq"),
    ("es", "3-5", "tres a cinco"),
    ("en", "1/2 cup", "one half cup"),
    ("en", "½ cup", "one half cup"),
    ("en", "3 3/5 miles", "three and three fifths miles"),
    ("de", "€1 Mio.", "eine Million Euro."),
    ("fr", "5 millions d'euros", "cinq millions d'euros"),
    ("en", "₹5", "five rupees"),
    ("en", "₽100", "one hundred roubles"),
    ("en", "₺20", "twenty lira"),
    ("en", "CHF 5", "five Swiss francs"),
    ("en", "5 USD", "five dollars"),
    ("en", "EUR 10", "ten euros"),
    ("en", "50 km/h", "fifty kilometres per hour"),
    ("en", "20 m²", "twenty square metres"),
    ("en", "30 °C", "thirty degrees Celsius"),
    ("en", "5'11\" tall", "five feet eleven inches tall"),
    ("en", "60 mph", "sixty miles per hour"),
    ("en", "call 555-0199", "call five five five zero one nine nine"),
    ("en", "agent 007", "agent zero zero seven"),
    (
        "en",
        "ISBN 978-3-16-148410-0",
        "ISBN nine seven eight three one six one four eight four one zero zero",
    ),
    ("en", "Henry VIII", "Henry the Eighth"),
    ("en", "Act II", "Act Two"),
    ("fr", "Louis XIV", "Louis quatorze"),
    ("en", "Dr. Smith", "Doctor Smith"),
    ("en", "Mr Jones", "Mister Jones"),
    ("en", "Mrs Jones", "Missus Jones"),
    ("en", "St. Paul", "Saint Paul"),
    ("en", "Baker St.", "Baker Street."),
    ("en", "No. 5", "number five"),
    ("en", "e.g. tea", "for example tea"),
    ("en", "tea etc.", "tea et cetera."),
    ("en", "Ali vs. Frazier", "Ali versus Frazier"),
    ("de", "z. B. Tee", "zum Beispiel Tee"),
    ("de", "Nr. 5", "Nummer fünf"),
    ("de", "Tee usw.", "Tee und so weiter."),
    ("de", "in der Hauptstr. 5", "in der Hauptstraße fünf"),
    ("fr", "M. Dupont", "Monsieur Dupont"),
    ("fr", "Mme Dupont", "Madame Dupont"),
    ("fr", "n° 5", "numéro cinq"),
    ("es", "Sr. García", "Señor García"),
    ("es", "Sra. García", "Señora García"),
    ("es", "Ud. sabe", "Usted sabe"),
    ("es", "núm. 5", "número cinco"),
]


@pytest.mark.parametrize("language, written, said", EXAMPLES)
def test_number_expressions_are_said_whole(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("de", "die 3. Klasse", "die dritte Klasse"),
        ("de", "in der 3. Klasse", "in der dritten Klasse"),
        ("de", "3. Platz", "dritter Platz"),
        ("de", "am 3. und 4. Mai", "am dritten und vierten Mai"),
        ("de", "vom 3. bis 5. Mai", "vom dritten bis fünften Mai"),
        ("de", "ins 3. Jahr", "ins dritte Jahr"),
        ("de", "für 1 Mann", "für einen Mann"),
        ("de", "mit 1 Koffer und 1 Tasche", "mit einem Koffer und einer Tasche"),
        ("de", "1 Uhr", "ein Uhr"),
        ("de", "Es ist 1.", "Es ist eins."),
        ("es", "21 de mayo", "veintiuno de mayo"),
        ("es", "1 libra", "una libra"),
        ("es", "£21", "veintiuna libras"),
        ("es", "$21", "veintiún dólares"),
        ("es", "200.000 personas", "doscientas mil personas"),
        ("es", "la 1:15", "la una y quince"),
        ("fr", "1 homme", "un homme"),
        ("fr", "£1", "une livre"),
        ("fr", "1 h", "une heure"),
    ],
)
def test_numbers_agree_with_the_words_around_them(language, written, said):
    assert normalise_text(written, language) == said


def test_a_plain_english_date_is_read_only_when_the_order_is_certain():
    assert normalise_text("on 3/2/2003", "en") == "on 3/2/2003"
    assert (
        normalise_text("on 13/2/2003", "en")
        == "on the thirteenth of February two thousand and three"
    )
    assert normalise_text("on 2/13/2003", "en") == "on February thirteenth two thousand and three"


@pytest.mark.parametrize(
    "language, written",
    [
        ("en", "r2d2 and b2b"),  # an identifier in lower case: not read by the code rules
        ("en", "on 9/11"),
        ("de", "Es war 19.30."),
        ("en", "the 32/13/2003 date"),
        ("en", "3:1.5.2"),
        ("en", "code 2024-117"),
        ("en", "1" + ",000" * 200),
    ],
)
def test_what_no_form_takes_whole_is_left_exactly_as_written(language, written):
    assert normalise_text(written, language) == written


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("en", "won 3-1", "won three to one"),
        ("en", "Invoice No. 2024-117", "Invoice number two zero two four one one seven"),
        ("de", "Es steht 2:1.", "Es steht zwei zu eins."),
        ("en", "at 10:15:30", "at ten fifteen and thirty seconds"),
        ("en", "-3.5% and +2", "minus three point five percent and plus two"),
        ("en", "$2.5 billion", "two point five billion dollars"),
        ("es", "$5 millones", "cinco millones de dólares"),
        ("fr", "5 M€", "cinq millions d'euros"),
        ("de", "2,5 Mrd. €", "zwei Komma fünf Milliarden Euro"),
        ("de", "dreieinhalb", "dreieinhalb"),
        ("de", "3½ Stunden", "dreieinhalb Stunden"),
        ("fr", "3½", "trois et demi"),
        ("es", "3/4 taza", "tres cuartos de taza"),
        ("en", "24/7", "twenty-four seven"),
        ("de", "1 000 000 000 Sterne", "eine Milliarde Sterne"),
        ("fr", "1 000 000 000 €", "un milliard d'euros"),
        ("es", "$1.000.000", "un millón de dólares"),
        ("en", "World War II", "World War Two"),
        ("en", "then I left", "then I left"),
        ("en", "Rocky II", "Rocky II"),
        ("fr", "Le XXIe siècle. De plus, Ce Me", "Le vingt et unième siècle. De plus, Ce Me"),
        ("en", "Elizabeth I", "Elizabeth the First"),
    ],
)
def test_more_forms_are_said_whole(language, written, said):
    assert normalise_text(written, language) == said


_FRAGMENTS = [
    "1",
    "07",
    "12",
    "1,000",
    "1.000",
    "2 000",
    "3.25",
    "3,25",
    ".5",
    "10:00",
    "10:00:00",
    "2:45.5",
    "p.m.",
    "am",
    "pm",
    "Uhr",
    "h",
    "$",
    "€",
    "£",
    "¥",
    "₩",
    "CHF",
    "USD",
    "million",
    "Mio.",
    "Mrd.",
    "%",
    "km",
    "KG",
    "°C",
    "m²",
    "'",
    '"',
    "th",
    "st",
    "er",
    "e",
    "s",
    "º",
    "ª",
    ".",
    ",",
    ":",
    "/",
    "-",
    "–",
    "½",
    "Mai",
    "Buch",
    "años",
    "femmes",
    "the",
    "am",
    "Dr.",
    "St.",
    "No.",
    "VIII",
    "(",
    ")",
    "millions",
    "millones",
    "d'",
    "c. à s.",
    "c.c.",
    "cdas",
    "horas",
    "las",
    "tasses",
    "M€",
    "+ ",
    "'000",
    "x",
    "’",
    "p",
    "C",
    "of",
    "a",
    "won",
    "March",
    "Dec",
    "Minute",
    "jährige",
    "Ausgleich",
    "hatte",
]


def _random_text(rng) -> str:
    parts = [
        rng.choice(_FRAGMENTS) if rng.random() < 0.7 else str(rng.randint(0, 99999))
        for _ in range(rng.randint(1, 8))
    ]
    return "".join(part + rng.choice(["", "", " ", " "]) for part in parts)


def _separator_between_words(said: str) -> bool:
    """A `,`, `:`, `;` or `/` anywhere (`one thousand, two hundred`, `nine thousand,000`), or a `.`
    inside a word outside the meridiem spellings."""
    return bool(re.search(r"[,:;/]|\w\.\w", re.sub(r"\b[ap]\.m\.", "", said)))


def test_no_output_joins_a_digit_to_a_word_or_leaves_a_separator_between_number_words():
    rng = random.Random(20260401)
    for _ in range(250):
        text = _random_text(rng)
        for language in ("en", "de", "fr", "es"):
            pieces = normalised_pieces(text, language)
            out = "".join(said for _, _, said in pieces)
            for start, end, said in pieces:
                if said == text[start:end]:
                    continue
                assert not re.search(r"\d", said), (language, text, said)
                assert not _separator_between_words(said), (language, text, said)
                assert not (start and text[start - 1].isalnum()), (language, text, said)
                assert not (end < len(text) and text[end].isalnum() and said[-1].isalnum()), (
                    language,
                    text,
                    said,
                )
            written = set(text.split())
            for token in out.split():
                if re.search(r"\d", token):
                    assert token in written, (language, text, out)


@pytest.mark.parametrize(
    "language, written, said, listed",
    [
        ("de", "Es kostete $5 million.", "Es kostete fünf Millionen Dollar.", "$5 million"),
        ("de", "Es kostete $1 billion.", "Es kostete eine Milliarde Dollar.", "$1 billion"),
        ("de", "Es kostete 5 million $.", "Es kostete fünf Millionen Dollar.", "5 million $"),
        ("fr", "Il a coûté $2 billion.", "Il a coûté deux milliards de dollars.", "$2 billion"),
        ("es", "Costó $5 million.", "Costó cinco millones de dólares.", "$5 million"),
        ("es", "Costó $1 billion.", "Costó mil millones de dólares.", "$1 billion"),
    ],
)
def test_an_english_scale_word_after_an_amount_is_said_with_it_in_the_line_language(
    language, written, said, listed
):
    assert normalise_text(written, language) == said
    assert [e.written for e in number_expressions(written, language)] == [listed]


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("en", "1990-95", "nineteen ninety to ninety-five"),
        ("en", "1990–95", "nineteen ninety to ninety-five"),
        ("de", "1990-95", "neunzehnhundertneunzig bis fünfundneunzig"),
        ("fr", "1990–95", "mille neuf cent quatre-vingt-dix à quatre-vingt-quinze"),
        ("es", "1990-95", "mil novecientos noventa a noventa y cinco"),
    ],
)
def test_a_range_of_years_with_the_second_in_two_digits_is_read_as_years(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said, listed",
    [
        ("en", "6' wide", "six feet wide", "6'"),
        ("en", "6’ wide", "six feet wide", "6’"),
        ("en", "'give me 5' he said", "'give me five' he said", "5"),
        ("de", "6' breit", "6' breit", "6'"),
    ],
)
def test_a_foot_mark_is_said_with_its_number_or_left_with_it(language, written, said, listed):
    assert normalise_text(written, language) == said
    assert [e.written for e in number_expressions(written, language)] == [listed]


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("fr", "3½ tasses", "trois tasses et demie"),
        ("fr", "1 1/2 cuillère", "une cuillère et demie"),
        ("fr", "2 1/2 litres", "deux litres et demi"),
        ("fr", "1/2 litre", "un demi-litre"),
        ("fr", "1/2 c.c. de sel", "une demi-cuillère à café de sel"),
        ("fr", "1/4 litre", "un quart de litre"),
        ("fr", "1/2 de la pâte", "un demi de la pâte"),
        ("es", "1/2 taza", "media taza"),
        ("es", "1/2 kilo", "medio kilo"),
        ("es", "2 1/2 tazas", "dos tazas y media"),
        ("es", "1 ½ litro", "un litro y medio"),
        ("es", "2 ¾ tazas", "dos tazas y tres cuartos"),
        ("es", "3/4 de taza", "tres cuartos de taza"),
    ],
)
def test_a_fraction_is_said_around_the_noun_it_measures_in_french_and_spanish(
    language, written, said
):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("fr", "1 c. à soupe de sucre", "une cuillère à soupe de sucre"),
        ("fr", "2 c. à café de sel", "deux cuillères à café de sel"),
        ("fr", "3 c. à s. de lait", "trois cuillères à soupe de lait"),
        ("fr", "1 c.à.s. de lait", "une cuillère à soupe de lait"),
        ("fr", "1 c. à c. de sel", "une cuillère à café de sel"),
        ("fr", "2 cs d'huile", "deux cuillères à soupe d'huile"),
        ("fr", "1 C.S. de miel", "une cuillère à soupe de miel"),
        ("fr", "une moto de 125 cc", "une moto de cent vingt-cinq cc"),
        ("es", "1 cda. de aceite", "una cucharada de aceite"),
        ("es", "2 cdas. de azúcar", "dos cucharadas de azúcar"),
        ("es", "1 cdta. de sal", "una cucharadita de sal"),
        ("es", "21 cdas de agua", "veintiuna cucharadas de agua"),
    ],
)
def test_recipe_spoons_are_said_in_full_and_the_count_agrees_with_them(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("fr", "3 millions d'habitants", "trois millions d'habitants"),
        ("fr", "2 milliards de dollars", "deux milliards de dollars"),
        ("fr", "1 million de personnes", "un million de personnes"),
        ("fr", "1,5 million d'euros", "un million et demi d'euros"),
        ("fr", "2,5 milliards d'euros", "deux milliards et demi d'euros"),
        ("fr", "2,3 millions d'euros", "deux virgule trois millions d'euros"),
        ("fr", "-53 millions d'euros", "moins cinquante-trois millions d'euros"),
        ("fr", "1,5 M€", "un million et demi d'euros"),
        ("fr", "1,2 million d'habitants", "un virgule deux million d'habitants"),
        ("fr", "-2,5 milliards d'euros", "moins deux milliards et demi d'euros"),
        ("fr", "$2,5 milliards", "deux milliards et demi de dollars"),
        ("es", "3 millones de personas", "tres millones de personas"),
        ("es", "21 millones de personas", "veintiún millones de personas"),
        ("es", "1,5 millones de dólares", "un millón y medio de dólares"),
        ("es", "2,25 millones", "dos coma veinticinco millones"),
        ("es", "1 mil millones de euros", "mil millones de euros"),
        ("es", "$1,5 millones", "un millón y medio de dólares"),
        ("es", "-2,5 millones de euros", "menos dos millones y medio de euros"),
    ],
)
def test_a_count_of_millions_is_said_with_its_scale_word_in_french_and_spanish(
    language, written, said
):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("fr", "0,05", "zéro virgule zéro cinq"),
        ("fr", "3,14159", "trois virgule un quatre un cinq neuf"),
        ("es", "7,25", "siete coma veinticinco"),
        ("fr", "hausse de + 3,7 %", "hausse de plus trois virgule sept pour cent"),
        ("fr", "- 3 œufs", "- trois œufs"),
        ("fr", "- 5 % de remise", "- cinq pour cent de remise"),
        ("fr", "à 180 ° C", "à cent quatre-vingts degrés Celsius"),
        ("es", "las 12.30 h", "las doce y treinta horas"),
        ("fr", "grimpe d'1 %", "grimpe d'un pour cent"),
        ("fr", "une hausse de 1,5 %", "une hausse d'un virgule cinq pour cent"),
        ("fr", "moins que 1 fois", "moins qu'une fois"),
        ("fr", "de 11 ans", "de onze ans"),
        ("fr", "44'000 habitants", "quarante-quatre mille habitants"),
        ("fr", "à 7h51", "à sept heures cinquante et une"),
        ("fr", "au 31 rue Monge", "au trente et un rue Monge"),
        ("fr", "1 place assise", "une place assise"),
        ("fr", "chez Mme de Staël", "chez Madame de Staël"),
        ("es", "la Sra. de García", "la señora de García"),
        ("fr", "les années 80", "les années quatre-vingt"),
        ("fr", "du 30/04 au 04/05", "du trente avril au quatre mai"),
        ("fr", "le 2/3 des votants", "le deux tiers des votants"),
        ("fr", "3,40 euros", "trois euros quarante"),
        ("es", "2,50 euros", "dos euros con cincuenta"),
        ("fr", "+20 points", "plus vingt points"),
        ("fr", "Total HT : 35 €", "Total hors taxes : trente-cinq euros"),
        (
            "es",
            "las 7,45 y las 9.30 horas",
            "las siete y cuarenta y cinco y las nueve y treinta horas",
        ),
        ("es", "un 7,45 %", "un siete coma cuarenta y cinco por ciento"),
        ("es", "un 14'5%", "un catorce coma cinco por ciento"),
        ("es", "sus 1383 páginas", "sus mil trescientas ochenta y tres páginas"),
        ("es", "en 1383 hasta", "en mil trescientos ochenta y tres hasta"),
        ("es", "a 120º C", "a ciento veinte grados Celsius"),
        ("es", "3 tazas aprox.", "tres tazas aproximadamente."),
        ("fr", "(62e).", "(soixante-deuxième)."),
        ("en", "(5 km).", "(five kilometres)."),
    ],
)
def test_french_and_spanish_forms_from_real_texts(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("fr", "jusqu'à 22H", "jusqu'à vingt-deux heures"),
        ("fr", "en 5 h 28 min 58 s", "en cinq heures vingt-huit minutes cinquante-huit secondes"),
        ("fr", "il est à + 3 s", "il est à plus trois secondes"),
        ("fr", "Grégoire XII et Adrien VI", "Grégoire douze et Adrien six"),
        ("es", "Gregorio XIII", "Gregorio trece"),
        ("fr", "le 08 mai", "le huit mai"),
        ("es", "el 01 de febrero", "el uno de febrero"),
        ("es", "el 05 de la lista", "el cero cinco de la lista"),
        ("es", "desde la 1 de la tarde", "desde la una de la tarde"),
        ("es", "de 16 cm. de diámetro", "de dieciséis centímetros de diámetro"),
        ("es", "entre 36-39 grados", "entre treinta y seis y treinta y nueve grados"),
        ("fr", "entre 5-10 jours", "entre cinq et dix jours"),
    ],
)
def test_french_and_spanish_times_days_and_ranges_from_real_texts(language, written, said):
    assert normalise_text(written, language) == said


@pytest.mark.parametrize(
    "language, written, said",
    [
        ("en", "between 18-22 minutes", "between eighteen and twenty-two minutes"),
        ("de", "zwischen 3-5 Tagen", "zwischen drei und fünf Tagen"),
        ("fr", "entre 5-10 jours", "entre cinq et dix jours"),
        ("es", "entre 36-39 grados", "entre treinta y seis y treinta y nueve grados"),
        ("de", "von 3-5 Tagen", "von drei bis fünf Tagen"),
    ],
)
def test_a_range_after_between_is_joined_by_and_in_every_language(language, written, said):
    assert normalise_text(written, language) == said


# (language, written, said): readings a listener would notice were wrong, each group a rule.
SAID_AS_MEANT = [
    # minutes and seconds before a minutes word: a duration, never a score or a clock time
    ("en", "in 45:12 minutes", "in forty-five minutes twelve seconds"),
    ("en", "in 12:30 mins", "in twelve minutes thirty seconds"),
    ("de", "in 45:12 Minuten", "in fünfundvierzig Minuten zwölf Sekunden"),
    ("de", "Zeit: 1:01 Min.", "Zeit: eine Minute eine Sekunde."),
    ("fr", "en 45:12 minutes", "en quarante-cinq minutes douze secondes"),
    ("es", "en 21:01 minutos", "en veintiún minutos un segundo"),
    # German: a dot before a word that starts a sentence is a full stop, not an ordinal's
    ("de", "Kapitel IV. Am Morgen.", "Kapitel Vier. Am Morgen."),
    ("de", "Er las Band III.", "Er las Band Drei."),
    ("de", "Heinrich VIII. Dann kam Eduard.", "Heinrich der Achte. Dann kam Eduard."),
    ("de", "Es war Kapitel 4. Am Morgen regnete es.", "Es war Kapitel vier. Am Morgen regnete es."),
    ("de", "Sie wurde 3. Dann ging sie.", "Sie wurde drei. Dann ging sie."),
    ("de", "am 3. Mai", "am dritten Mai"),
    ("de", "Heinrich VIII. König von England", "Heinrich der Achte König von England"),
    ("en", "It was Henry VIII. So he wed.", "It was Henry the Eighth. So he wed."),
    # a thousand with a plural s
    ("en", "1000s of people", "thousands of people"),
    ("en", "In the 1000s, Europe", "In the 1000s, Europe"),  # no year reading: left as written
    ("en", "the 1100s", "the eleven hundreds"),
    # a whole number and a fraction before a hyphen are one number
    ("en", "a 5 1/2-inch tin", "a five-and-a-half-inch tin"),
    ("en", "a 2 1/4-mile walk", "a two-and-a-quarter-mile walk"),
    ("en", "a 1/2-inch gap", "a one-half-inch gap"),
    # `m` before a noun counted in millions
    ("en", "1.5m people watched.", "one point five million people watched."),
    ("en", "3m viewers", "three million viewers"),
    ("en", "It is 5m tall.", "It is five metres tall."),
    ("en", "a 5m wall", "a five metre wall"),
    # feet and inches written ft and in
    ("en", "He was 6ft 2in tall.", "He was six feet two inches tall."),
    ("en", "5ft 11in, he said", "five feet eleven inches, he said"),
    ("en", "He was 6 ft 2 in tall.", "He was six feet two inches tall."),
    ("en", "6 ft 2 in", "six feet two inches"),
    # a spaced s after a number is seconds
    ("en", "in 9.58 s", "in nine point five eight seconds"),
    ("de", "in 9,58 s", "in neun Komma fünf acht Sekunden"),
    ("es", "en 9,58 s", "en nueve coma cincuenta y ocho segundos"),
    ("es", "en 1 s", "en un segundo"),
    # English clock times with a dot after a clock word, and midnight
    ("en-GB", "See you at 7.30.", "See you at seven thirty."),
    ("en", "open until 10.15 tonight", "open until ten fifteen tonight"),
    ("en", "It rose 7.30 points", "It rose seven point three zero points"),  # no clock word before
    ("en", "It's 00:00.", "It's midnight."),
    ("en", "At 00:00 hours.", "At zero hundred hours."),
    # military times: a clock time before `hours`, and four digits with a leading zero or after a clock word
    ("en", "At 08:00 hours.", "At zero eight hundred hours."),
    ("en", "At 14:30 hours.", "At fourteen thirty hours."),
    ("en", "Report at 0800 hours.", "Report at zero eight hundred hours."),
    ("en", "0805 hours", "zero eight oh five hours"),
    ("en", "at 2300 hrs", "at twenty-three hundred hours"),
    ("en", "by 1400 hours", "by fourteen hundred hours"),
    ("en", "He did 2300 hours of service.", "He did two thousand three hundred hours of service."),
    ("en", "2300 hrs of footage", "two thousand three hundred hours of footage"),
    # cents alone, an abbreviated month before an ordinal day, an emergency number dialled
    ("en-US", "It was $0.50.", "It was fifty cents."),
    ("en", "$0.00", "zero dollars"),
    ("en", "Oct 3rd", "October third"),
    ("en-US", "Call 911 now.", "Call nine one one now."),
    # a noun counted in whole millions takes de
    ("fr", "1 000 000 personnes", "un million de personnes"),
    ("fr", "2 000 000 habitants", "deux millions d'habitants"),
    ("fr", "1 500 000 personnes", "un million cinq cent mille personnes"),
    ("fr", "1 000 000 de personnes", "un million de personnes"),
    ("es", "1.000.000 personas", "un millón de personas"),
    ("es", "3.000.000 habitantes", "tres millones de habitantes"),
    # an English day and month without a year after on, by, until…
    ("en-US", "See you on 3/4.", "See you on March fourth."),
    ("en-GB", "See you on 3/4.", "See you on the third of April."),
    ("en", "See you on 12/25.", "See you on December twenty-fifth."),
    ("en", "See you on 3/4.", "See you on 3/4."),  # either way round: left as written
    ("en-US", "Add 3/4 cup.", "Add three quarters cup."),
    # English ranks and titles before a name
    (
        "en",
        "Capt. Hastings and Sgt. Lewis met Lt. Col. Reid.",
        "Captain Hastings and Sergeant Lewis met Lieutenant Colonel Reid.",
    ),
    (
        "en",
        "Det. Insp. Morse and Rev. Green climbed Mt. Everest.",
        "Detective Inspector Morse and Reverend Green climbed Mount Everest.",
    ),
    ("en", "Read Gen. 1 and Col. 3.", "Read Gen. one and Col. three."),
    # a product written with *: never a markdown mark that joins the numbers
    ("en", "It is 5 * 5.", "It is five times five."),
    ("en", "2*3*4 is the answer", "two times three times four is the answer"),
    ("de", "Das ist 3 * 4.", "Das ist drei mal vier."),
    ("fr", "C'est 3*4.", "C'est trois fois quatre."),
    ("es", "Es 3 * 4.", "Es tres por cuatro."),
    # even odds
    ("en", "a 50-50 chance", "a fifty-fifty chance"),
    ("en", "It's 50/50.", "It's fifty-fifty."),
    ("en", "It ended 3-3.", "It ended three to three."),
    # a multiple written with x
    ("en", "Take 2 tablets 3x a day.", "Take two tablets three times a day."),
    ("en", "It's 10x faster.", "It's ten times faster."),
    ("en", "Play it at 1.5x speed.", "Play it at one point five times speed."),
    ("en", "I did it 1x.", "I did it once."),
    ("en", "a 4x4 and 0x1F", "a four by four and 0x1F"),
    # an amount with a capital scale letter
    ("en", "It's $1.5M.", "It's one point five million dollars."),
    ("en", "a £50K salary", "a fifty thousand pound salary"),
    ("en", "He ran a 5K race.", "He ran a five K race."),
    # a telephone number with a leading zero, in groups: every group digit by digit
    ("en", "Call 07700 900123.", "Call zero seven seven zero zero nine zero zero one two three."),
    ("en", "It's 020 7946 0958.", "It's zero two zero seven nine four six zero nine five eight."),
    ("de", "Ruf 030 1234567 an.", "Ruf null drei null eins zwei drei vier fünf sechs sieben an."),
    ("en", "Bond, 007, 2 times", "Bond, zero zero seven, two times"),
    ("en-GB", "Dial 999.", "Dial nine nine nine."),
    ("en", "Call 100 people.", "Call one hundred people."),
    # English years of the eleventh century after a word of time
    ("en-GB", "The Battle of Hastings in 1066.", "The Battle of Hastings in ten sixty-six."),
    ("en", "In the year 1066 William came.", "In the year ten sixty-six William came."),
    ("en", "Around 1050 AD.", "Around ten fifty AD."),
    ("en", "Crowned AD 1066.", "Crowned AD ten sixty-six."),
    (
        "en",
        "In the year 2525, if man is still alive",
        "In the year twenty-five twenty-five, if man is still alive",
    ),
    (
        "en",
        "They counted 2525 votes.",
        "They counted two thousand five hundred and twenty-five votes.",
    ),
    ("en", "In AD 800 he was crowned.", "In AD eight hundred he was crowned."),
    ("en", "in 1066 pages", "in one thousand and sixty-six pages"),
    # an English fraction before a unit says the unit's name
    ("en", "Add 3/4 tsp salt.", "Add three quarters of a teaspoon salt."),
    ("en", "Add ½ tsp salt.", "Add half a teaspoon salt."),
    ("en", "Add 1 1/2 tbsp oil.", "Add one and a half tablespoons oil."),
    ("en", "Add 2 1/2 kg flour.", "Add two and a half kilograms flour."),
    ("en", "Add 1½ oz sugar.", "Add one and a half ounces sugar."),
    ("en", "Add 1/4 oz sugar.", "Add one quarter of an ounce sugar."),
    ("de", "1/2 kg Mehl", "ein halbes Kilogramm Mehl"),
    ("de", "2 1/2 kg Mehl", "zweieinhalb Kilogramm Mehl"),
    ("de", "3/4 l Milch", "drei Viertel Liter Milch"),
    ("de", "mit 1½ TL Salz", "mit eineinhalb Teelöffel Salz"),
    # Roman numerals after a word that numbers an episode or a season
    ("en", "Episode IV begins", "Episode Four begins"),
    ("de", "Staffel II beginnt", "Staffel Zwei beginnt"),
    ("fr", "Saison III", "Saison trois"),
    ("es", "Episodio IV", "Episodio cuatro"),
]


@pytest.mark.parametrize("language, written, said", SAID_AS_MEANT)
def test_readings_a_listener_would_notice_are_said_as_meant(language, written, said):
    assert normalise_text(written, language) == said
