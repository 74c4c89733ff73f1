"""Spanish cases, written -> said, by class; each spoken form checked by hand. A row is (class,
genre, written, said); a said equal to the written means left as written."""

ROWS = [
    (
        "cardinal",
        "news",
        "Unas 4.500 personas marcharon.",
        "Unas cuatro mil quinientas personas marcharon.",
    ),
    ("ordinal", "sports", "Terminó en 1.ᵉʳ lugar.", "Terminó en primer lugar."),
    ("ordinal", "news", "Es la 3.ª edición.", "Es la tercera edición."),
    (
        "decimal",
        "science",
        "La muestra pesa 0,25 gramos menos.",
        "La muestra pesa cero coma veinticinco gramos menos.",
    ),
    (
        "money",
        "news",
        "La entrada cuesta 12,50 €.",
        "La entrada cuesta doce euros con cincuenta céntimos.",
    ),
    ("money", "news", "La deuda llegó a €2 billones.", "La deuda llegó a dos billones de euros."),
    ("measure", "recipe", "Estirar la masa a 5 mm.", "Estirar la masa a cinco milímetros."),
    (
        "date",
        "legal",
        "Firmado el 15/03/2021 en Madrid.",
        "Firmado el quince de marzo de dos mil veintiuno en Madrid.",
    ),
    ("time", "news", "Llegó a las 24:45 según el acta.", "Llegó a las 24:45 según el acta."),
    ("time", "news", "El tren sale a las 20:15.", "El tren sale a las veinte y quince."),
    ("identifier", "news", "El COVID-19 retrocede.", "El COVID diecinueve retrocede."),
    (
        "identifier",
        "news",
        "Un Boeing 737 aterrizó.",
        "Un Boeing setecientos treinta y siete aterrizó.",
    ),
    ("identifier", "news", "El Airbus A320 despegó.", "El Airbus A trescientos veinte despegó."),
    (
        "identifier",
        "news",
        "El vuelo IB3166 se retrasó.",
        "El vuelo I B treinta y uno sesenta y seis se retrasó.",
    ),
    (
        "separator",
        "news",
        "El premio fue de 1 000 000 euros.",
        "El premio fue de un millón de euros.",
    ),
    (
        "equation",
        "science",
        "Todos saben que 2+2=4.",
        "Todos saben que dos más dos igual a cuatro.",
    ),
    ("heading", "novel", "CAPÍTULO II.", "CAPÍTULO dos."),
    ("heading", "novel", "Acto III", "Acto tres"),
]
