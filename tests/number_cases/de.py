"""German cases, written -> said, by class; each spoken form checked by hand. A row is (class,
genre, written, said); a said equal to the written means left as written."""

ROWS = [
    (
        "cardinal",
        "news",
        "Rund 4.500 Menschen demonstrierten.",
        "Rund viertausendfünfhundert Menschen demonstrierten.",
    ),
    ("ordinal", "news", "Am 3. Oktober ist Feiertag.", "Am dritten Oktober ist Feiertag."),
    ("ordinal", "sports", "Sie wurde 2. im Finale.", "Sie wurde zweite im Finale."),
    (
        "decimal",
        "science",
        "Die Probe wog 0,25 Gramm weniger.",
        "Die Probe wog null Komma zwei fünf Gramm weniger.",
    ),
    (
        "money",
        "news",
        "Das Ticket kostet 12,50 €.",
        "Das Ticket kostet zwölf Euro und fünfzig Cent.",
    ),
    (
        "money",
        "news",
        "Die Schulden liegen bei 2 Bio. €.",
        "Die Schulden liegen bei zwei Billionen Euro.",
    ),
    (
        "measure",
        "recipe",
        "Den Teig 5 mm dick ausrollen.",
        "Den Teig fünf Millimeter dick ausrollen.",
    ),
    (
        "date",
        "legal",
        "Der Vertrag wurde am 15.03.2021 unterzeichnet.",
        "Der Vertrag wurde am fünfzehnten März zweitausendeinundzwanzig unterzeichnet.",
    ),
    ("time", "news", "Der Zug fährt um 24:45 Uhr.", "Der Zug fährt um 24:45 Uhr."),
    (
        "time",
        "news",
        "Das Konzert beginnt um 20:15 Uhr.",
        "Das Konzert beginnt um zwanzig Uhr fünfzehn.",
    ),
    (
        "time",
        "sports",
        "Das Spiel endete 24:25.",
        "Das Spiel endete vierundzwanzig zu fünfundzwanzig.",
    ),
    (
        "identifier",
        "news",
        "Seit COVID-19 ist alles anders.",
        "Seit COVID neunzehn ist alles anders.",
    ),
    (
        "identifier",
        "news",
        "Der Audi A7 kostet 60.000 €.",
        "Der Audi A sieben kostet sechzigtausend Euro.",
    ),
    (
        "identifier",
        "news",
        "Die Boeing 737 landete sicher.",
        "Die Boeing sieben drei sieben landete sicher.",
    ),
    (
        "identifier",
        "novel",
        "Er wohnte in der Baker Street 221B.",
        "Er wohnte in der Baker Street zweihunderteinundzwanzig B.",
    ),
    (
        "separator",
        "news",
        "Der Preis betrug 1 000 000 Euro.",
        "Der Preis betrug eine Million Euro.",
    ),
    ("equation", "science", "Jeder weiß: 2+2=4.", "Jeder weiß: zwei plus zwei gleich vier."),
    ("heading", "novel", "KAPITEL II.", "KAPITEL Zwei."),
    ("heading", "novel", "Akt III", "Akt Drei"),
]
