"""How each language writes and says numbers: separators, signs, currencies, units, scale words,
months, fractions and the words between the parts of an expression.

Genders are "m", "f" or "n" (German neuter); they decide the form of a number said before the
word (`grammar`).
"""

from __future__ import annotations

from dataclasses import dataclass

SPACES = (" ", "\u00a0", "\u202f")
YEAR_RANGE = (1100, 2099)  # four digits without separators in this range read as a year


@dataclass(frozen=True)
class LanguageRules:
    """How one language writes and says numbers.

    decimal: the decimal mark; groups: the thousands separators (a group is exactly 3 digits).
    point: the word said for the decimal mark; percent, minus, plus: the words for `%`, `-`, `+`.
    currencies: symbol or ISO code -> (singular, plural, cent singular, cent plural, gender).
    units: symbol -> (singular, plural, gender); symbols of two letters or more also match in
    capitals (`12KG`). scales: scale word as written -> (power of ten, singular, plural).
    scale_of: the word between a scale word and a currency (`de` in "cinco millones de euros").
    amount_joiner: between the whole units and the cents. range_word: `3-5`; score_word: `3:1`.
    months: the twelve month names. number_sign: `#1`, `No. 1`; number_marks: the written marks
    said as number_sign. meridiem: `am`/`pm` as written (lower case) -> as said.
    fraction_names: denominator -> (singular, plural) for the small ones; and_word joins a whole
    number and a fraction (`3 3/5`). digit_zero: how 0 is said in a digit string.
    """

    decimal: str
    groups: tuple[str, ...]
    point: str
    percent: str
    minus: str
    plus: str
    currencies: dict[str, tuple[str, str, str, str, str]]
    units: dict[str, tuple[str, str, str]]
    scales: dict[str, tuple[int, str, str]]
    scale_of: str
    amount_joiner: str
    range_word: str
    score_word: str
    months: tuple[str, ...]
    number_sign: str
    number_marks: tuple[str, ...]
    fraction_names: dict[int, tuple[str, str]]
    and_word: str
    meridiem: dict[str, str]


_MERIDIEM = {
    "am": "a.m.",
    "a.m.": "a.m.",
    "a.m": "a.m.",
    "pm": "p.m.",
    "p.m.": "p.m.",
    "p.m": "p.m.",
}

_EN_UNITS = {
    "km": ("kilometre", "kilometres", "m"),
    "m": ("metre", "metres", "m"),
    "cm": ("centimetre", "centimetres", "m"),
    "mm": ("millimetre", "millimetres", "m"),
    "kg": ("kilogram", "kilograms", "m"),
    "g": ("gram", "grams", "m"),
    "mg": ("milligram", "milligrams", "m"),
    "l": ("litre", "litres", "m"),
    "ml": ("millilitre", "millilitres", "m"),
    "km/h": ("kilometre per hour", "kilometres per hour", "m"),
    "mph": ("mile per hour", "miles per hour", "m"),
    "°C": ("degree Celsius", "degrees Celsius", "m"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit", "m"),
    "°": ("degree", "degrees", "m"),
    "kWh": ("kilowatt hour", "kilowatt hours", "m"),
    "ft": ("foot", "feet", "m"),
    "in.": ("inch", "inches", "m"),  # with its dot: `12 in the box` is no measure
    "lb": ("pound", "pounds", "m"),
    "lbs": ("pound", "pounds", "m"),
    "oz": ("ounce", "ounces", "m"),
    "mi": ("mile", "miles", "m"),
    "m²": ("square metre", "square metres", "m"),
    "km²": ("square kilometre", "square kilometres", "m"),
    "m³": ("cubic metre", "cubic metres", "m"),
    "GB": ("gigabyte", "gigabytes", "m"),
    "MB": ("megabyte", "megabytes", "m"),
    "TB": ("terabyte", "terabytes", "m"),
    "kW": ("kilowatt", "kilowatts", "m"),
    "Hz": ("hertz", "hertz", "m"),
    "GHz": ("gigahertz", "gigahertz", "m"),
    "ms": ("millisecond", "milliseconds", "m"),
    "min": ("minute", "minutes", "m"),
    "tbsp": ("tablespoon", "tablespoons", "m"),
    "tsp": ("teaspoon", "teaspoons", "m"),
    "hr": ("hour", "hours", "m"),
    "hrs": ("hour", "hours", "m"),
    "mins": ("minute", "minutes", "m"),
    "sec": ("second", "seconds", "m"),
    "secs": ("second", "seconds", "m"),
    " s": ("second", "seconds", "m"),  # spaced: `100s` is no time
    "° C": ("degree Celsius", "degrees Celsius", "m"),
    "° F": ("degree Fahrenheit", "degrees Fahrenheit", "m"),
}
_DE_UNITS = {
    "km": ("Kilometer", "Kilometer", "m"),
    "m": ("Meter", "Meter", "m"),
    "cm": ("Zentimeter", "Zentimeter", "m"),
    "mm": ("Millimeter", "Millimeter", "m"),
    "kg": ("Kilogramm", "Kilogramm", "n"),
    "g": ("Gramm", "Gramm", "n"),
    "mg": ("Milligramm", "Milligramm", "n"),
    "l": ("Liter", "Liter", "m"),
    "ml": ("Milliliter", "Milliliter", "m"),
    "km/h": ("Kilometer pro Stunde", "Kilometer pro Stunde", "m"),
    "°C": ("Grad Celsius", "Grad Celsius", "n"),
    "° C": ("Grad Celsius", "Grad Celsius", "n"),
    "°": ("Grad", "Grad", "n"),
    "kWh": ("Kilowattstunde", "Kilowattstunden", "f"),
    "m²": ("Quadratmeter", "Quadratmeter", "m"),
    "km²": ("Quadratkilometer", "Quadratkilometer", "m"),
    "m³": ("Kubikmeter", "Kubikmeter", "m"),
    "GB": ("Gigabyte", "Gigabyte", "n"),
    "MB": ("Megabyte", "Megabyte", "n"),
    "kW": ("Kilowatt", "Kilowatt", "n"),
    "Std.": ("Stunde", "Stunden", "f"),
    "min": ("Minute", "Minuten", "f"),
    " s": ("Sekunde", "Sekunden", "f"),
    "Min.": ("Minute", "Minuten", "f"),
    "h": ("Stunde", "Stunden", "f"),
    "EL": ("Esslöffel", "Esslöffel", "m"),
    "TL": ("Teelöffel", "Teelöffel", "m"),
}
_FR_UNITS = {
    "km": ("kilomètre", "kilomètres", "m"),
    "m": ("mètre", "mètres", "m"),
    "cm": ("centimètre", "centimètres", "m"),
    "mm": ("millimètre", "millimètres", "m"),
    "kg": ("kilogramme", "kilogrammes", "m"),
    "g": ("gramme", "grammes", "m"),
    "mg": ("milligramme", "milligrammes", "m"),
    "l": ("litre", "litres", "m"),
    "ml": ("millilitre", "millilitres", "m"),
    "km/h": ("kilomètre heure", "kilomètres heure", "m"),
    "°C": ("degré Celsius", "degrés Celsius", "m"),
    "°": ("degré", "degrés", "m"),
    "kWh": ("kilowattheure", "kilowattheures", "m"),
    "m²": ("mètre carré", "mètres carrés", "m"),
    "km²": ("kilomètre carré", "kilomètres carrés", "m"),
    "m³": ("mètre cube", "mètres cubes", "m"),
    "Go": ("gigaoctet", "gigaoctets", "m"),
    "min": ("minute", "minutes", "f"),
    "h": ("heure", "heures", "f"),
    "mn": ("minute", "minutes", "f"),
    "cl": ("centilitre", "centilitres", "m"),
    "° C": ("degré Celsius", "degrés Celsius", "m"),
    "ºC": ("degré Celsius", "degrés Celsius", "m"),
    "gr": ("gramme", "grammes", "m"),
    "pts": ("point", "points", "m"),
    "s": ("seconde", "secondes", "f"),
    "ME": ("million d'euros", "millions d'euros", "m"),
    # recipe spoons; `cc` is left out: it is also a cubic centimetre (`125 cc`)
    "cs": ("cuillère à soupe", "cuillères à soupe", "f"),
    "c.s.": ("cuillère à soupe", "cuillères à soupe", "f"),
    "C.S.": ("cuillère à soupe", "cuillères à soupe", "f"),
    "c.c.": ("cuillère à café", "cuillères à café", "f"),
    "C.C.": ("cuillère à café", "cuillères à café", "f"),
}
_ES_UNITS = {
    "km": ("kilómetro", "kilómetros", "m"),
    "m": ("metro", "metros", "m"),
    "cm": ("centímetro", "centímetros", "m"),
    "mm": ("milímetro", "milímetros", "m"),
    "kg": ("kilogramo", "kilogramos", "m"),
    "g": ("gramo", "gramos", "m"),
    "mg": ("miligramo", "miligramos", "m"),
    "l": ("litro", "litros", "m"),
    "ml": ("mililitro", "mililitros", "m"),
    "km/h": ("kilómetro por hora", "kilómetros por hora", "m"),
    "°C": ("grado Celsius", "grados Celsius", "m"),
    "°": ("grado", "grados", "m"),
    "kWh": ("kilovatio hora", "kilovatios hora", "m"),
    "m²": ("metro cuadrado", "metros cuadrados", "m"),
    "km²": ("kilómetro cuadrado", "kilómetros cuadrados", "m"),
    "m³": ("metro cúbico", "metros cúbicos", "m"),
    "GB": ("gigabyte", "gigabytes", "m"),
    "min": ("minuto", "minutos", "m"),
    " s": ("segundo", "segundos", "m"),
    "h": ("hora", "horas", "f"),
    "gr": ("gramo", "gramos", "m"),
    "gr.": ("gramo", "gramos", "m"),
    "ml.": ("mililitro", "mililitros", "m"),
    "cm.": ("centímetro", "centímetros", "m"),
    "cc": ("centímetro cúbico", "centímetros cúbicos", "m"),
    "°F": ("grado Fahrenheit", "grados Fahrenheit", "m"),
    **{
        f"{mark}{space}{scale}": (f"grado {name}", f"grados {name}", "m")
        for mark in "°º"
        for space in ("", " ")
        for scale, name in (("C", "Celsius"), ("F", "Fahrenheit"))
    },
    **{
        f"{short}{dot}": names
        for short, names in (
            ("cda", ("cucharada", "cucharadas", "f")),
            ("cdas", ("cucharada", "cucharadas", "f")),
            ("cdta", ("cucharadita", "cucharaditas", "f")),
            ("cdtas", ("cucharadita", "cucharaditas", "f")),
        )
        for dot in ("", ".")
    },
}


def _currencies(names: dict[str, tuple[str, str, str, str, str]], codes: dict[str, str]) -> dict:
    """The symbol table with each ISO code said like its symbol."""
    return names | {code: names[symbol] for code, symbol in codes.items() if symbol in names}


_CODES = {
    "USD": "$",
    "EUR": "€",
    "GBP": "£",
    "JPY": "¥",
    "KRW": "₩",
    "INR": "₹",
    "RUB": "₽",
    "TRY": "₺",
    "CHF": "CHF",
}

LANGUAGES: dict[str, LanguageRules] = {
    "en": LanguageRules(
        decimal=".",
        groups=(",", *SPACES),  # `1 000 000 dollars`: a space groups thousands too
        point="point",
        percent="percent",
        minus="minus",
        plus="plus",
        currencies=_currencies(
            {
                "$": ("dollar", "dollars", "cent", "cents", "m"),
                "€": ("euro", "euros", "cent", "cents", "m"),
                "£": ("pound", "pounds", "penny", "pence", "m"),
                "¥": ("yen", "yen", "sen", "sen", "m"),
                "₩": ("won", "won", "jeon", "jeon", "m"),
                "₹": ("rupee", "rupees", "paisa", "paise", "m"),
                "₽": ("rouble", "roubles", "kopek", "kopeks", "m"),
                "₺": ("lira", "lira", "kuruş", "kuruş", "m"),
                "CHF": ("Swiss franc", "Swiss francs", "centime", "centimes", "m"),
            },
            _CODES,
        ),
        units=_EN_UNITS,
        scales={
            "thousand": (3, "thousand", "thousand"),
            "million": (6, "million", "million"),
            "billion": (9, "billion", "billion"),
            "trillion": (12, "trillion", "trillion"),
            "m": (6, "million", "million"),
            "bn": (9, "billion", "billion"),
            "k": (3, "thousand", "thousand"),
            "M": (6, "million", "million"),
            "K": (3, "thousand", "thousand"),
        },
        scale_of=" ",
        amount_joiner=" and ",
        range_word="to",
        score_word="to",
        months=(
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
        number_sign="number",
        number_marks=("No.", "no.", "Nos.", "#"),
        fraction_names={2: ("half", "halves"), 4: ("quarter", "quarters")},
        and_word="and",
        meridiem=_MERIDIEM,
    ),
    "de": LanguageRules(
        decimal=",",
        groups=(".", *SPACES),
        point="Komma",
        percent="Prozent",
        minus="minus",
        plus="plus",
        currencies=_currencies(
            {
                "€": ("Euro", "Euro", "Cent", "Cent", "m"),
                "Euro": ("Euro", "Euro", "Cent", "Cent", "m"),
                "$": ("Dollar", "Dollar", "Cent", "Cent", "m"),
                "£": ("Pfund", "Pfund", "Penny", "Pence", "n"),
                "¥": ("Yen", "Yen", "Sen", "Sen", "m"),
                "₩": ("Won", "Won", "Jeon", "Jeon", "m"),
                "₹": ("Rupie", "Rupien", "Paisa", "Paise", "f"),
                "₽": ("Rubel", "Rubel", "Kopeke", "Kopeken", "m"),
                "₺": ("Lira", "Lira", "Kuruş", "Kuruş", "f"),
                "CHF": ("Franken", "Franken", "Rappen", "Rappen", "m"),
            },
            _CODES,
        ),
        units=_DE_UNITS,
        scales={
            "Tausend": (3, "tausend", "tausend"),
            "Tsd.": (3, "tausend", "tausend"),
            "Million": (6, "Million", "Millionen"),
            "Millionen": (6, "Million", "Millionen"),
            "Mio.": (6, "Million", "Millionen"),
            "Milliarde": (9, "Milliarde", "Milliarden"),
            "Milliarden": (9, "Milliarde", "Milliarden"),
            "Mrd.": (9, "Milliarde", "Milliarden"),
            "Billion": (12, "Billion", "Billionen"),
            "Billionen": (12, "Billion", "Billionen"),
            "Bio.": (12, "Billion", "Billionen"),
        },
        scale_of=" ",
        amount_joiner=" und ",
        range_word="bis",
        score_word="zu",
        months=(
            "Januar",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ),
        number_sign="Nummer",
        number_marks=("Nr.", "#"),
        fraction_names={2: ("halb", "halbe")},
        and_word="und",
        meridiem={},
    ),
    "fr": LanguageRules(
        decimal=",",
        groups=(*SPACES, ".", "'", "’"),
        point="virgule",
        percent="pour cent",
        minus="moins",
        plus="plus",
        currencies=_currencies(
            {
                "€": ("euro", "euros", "centime", "centimes", "m"),
                "$": ("dollar", "dollars", "cent", "cents", "m"),
                "£": ("livre", "livres", "penny", "pence", "f"),
                "¥": ("yen", "yens", "sen", "sen", "m"),
                "₩": ("won", "wons", "jeon", "jeon", "m"),
                "₹": ("roupie", "roupies", "paisa", "paise", "f"),
                "₽": ("rouble", "roubles", "kopeck", "kopecks", "m"),
                "₺": ("livre turque", "livres turques", "kuruş", "kuruş", "f"),
                "CHF": ("franc suisse", "francs suisses", "centime", "centimes", "m"),
            },
            _CODES,
        ),
        units=_FR_UNITS,
        scales={
            "million": (6, "million", "millions"),
            "millions": (6, "million", "millions"),
            "milliard": (9, "milliard", "milliards"),
            "milliards": (9, "milliard", "milliards"),
            "M": (6, "million", "millions"),
            "Md": (9, "milliard", "milliards"),
            "Mds": (9, "milliard", "milliards"),
            "G": (9, "milliard", "milliards"),
        },
        scale_of=" de ",
        amount_joiner=" et ",
        range_word="à",
        score_word="à",
        months=(
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ),
        number_sign="numéro",
        number_marks=("n°", "N°", "no", "#"),
        fraction_names={2: ("demi", "demis"), 3: ("tiers", "tiers"), 4: ("quart", "quarts")},
        and_word="et",
        meridiem={},
    ),
    "es": LanguageRules(
        decimal=",",
        groups=(".", *SPACES),
        point="coma",
        percent="por ciento",
        minus="menos",
        plus="más",
        currencies=_currencies(
            {
                "€": ("euro", "euros", "céntimo", "céntimos", "m"),
                "$": ("dólar", "dólares", "centavo", "centavos", "m"),
                "£": ("libra", "libras", "penique", "peniques", "f"),
                "¥": ("yen", "yenes", "sen", "sen", "m"),
                "₩": ("won", "wones", "jeon", "jeon", "m"),
                "₹": ("rupia", "rupias", "paisa", "paisas", "f"),
                "₽": ("rublo", "rublos", "kopek", "kopeks", "m"),
                "₺": ("lira", "liras", "kuruş", "kuruş", "f"),
                "CHF": ("franco suizo", "francos suizos", "céntimo", "céntimos", "m"),
            },
            _CODES,
        ),
        units=_ES_UNITS,
        scales={
            "millón": (6, "millón", "millones"),
            "millones": (6, "millón", "millones"),
            "mil millones": (9, "mil millones", "mil millones"),
            "billón": (12, "billón", "billones"),
            "billones": (12, "billón", "billones"),
            "M": (6, "millón", "millones"),
        },
        scale_of=" de ",
        amount_joiner=" con ",
        range_word="a",
        score_word="a",
        months=(
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ),
        number_sign="número",
        number_marks=("núm.", "nº", "n.º", "#"),
        fraction_names={
            2: ("medio", "medios"),
            3: ("tercio", "tercios"),
            4: ("cuarto", "cuartos"),
            5: ("quinto", "quintos"),
            6: ("sexto", "sextos"),
            7: ("séptimo", "séptimos"),
            8: ("octavo", "octavos"),
            9: ("noveno", "novenos"),
            10: ("décimo", "décimos"),
        },
        and_word="y",
        meridiem={},
    ),
}

# English scale words in a line of another language (`$5 million` copied into German text), said
# by their English value in the line's language: short scale, so "billion" is 10^9.
FOREIGN_SCALES: dict[str, dict[str, tuple[int, str, str]]] = {
    "de": {
        "thousand": (3, "tausend", "tausend"),
        "million": (6, "Million", "Millionen"),
        "billion": (9, "Milliarde", "Milliarden"),
        "trillion": (12, "Billion", "Billionen"),
    },
    "fr": {
        "thousand": (3, "mille", "mille"),
        "million": (6, "million", "millions"),
        "billion": (9, "milliard", "milliards"),
        "trillion": (12, "billion", "billions"),
    },
    "es": {
        "thousand": (3, "mil", "mil"),
        "million": (6, "millón", "millones"),
        "billion": (9, "mil millones", "mil millones"),
        "trillion": (12, "billón", "billones"),
    },
}

VULGAR_FRACTIONS = {
    "½": (1, 2),
    "⅓": (1, 3),
    "⅔": (2, 3),
    "¼": (1, 4),
    "¾": (3, 4),
    "⅕": (1, 5),
    "⅖": (2, 5),
    "⅗": (3, 5),
    "⅘": (4, 5),
    "⅙": (1, 6),
    "⅚": (5, 6),
    "⅛": (1, 8),
    "⅜": (3, 8),
    "⅝": (5, 8),
    "⅞": (7, 8),
}
