"""French cases, written -> said, by class; each spoken form checked by hand. A row is (class,
genre, written, said); a said equal to the written means left as written."""

ROWS = [
    (
        "cardinal",
        "news",
        "Quelque 4 500 personnes ont défilé.",
        "Quelque quatre mille cinq cents personnes ont défilé.",
    ),
    ("ordinal", "news", "Le 1ᵉʳ mai est férié.", "Le premier mai est férié."),
    ("ordinal", "sports", "Elle a fini 2ᵉ de la course.", "Elle a fini deuxième de la course."),
    ("ordinal", "sports", "C'est sa 1ʳᵉ victoire.", "C'est sa première victoire."),
    (
        "decimal",
        "science",
        "L'échantillon pèse 0,25 gramme de moins.",
        "L'échantillon pèse zéro virgule vingt-cinq gramme de moins.",
    ),
    (
        "money",
        "news",
        "Le billet coûte 12,50 €.",
        "Le billet coûte douze euros et cinquante centimes.",
    ),
    ("measure", "recipe", "Étaler la pâte sur 5 mm.", "Étaler la pâte sur cinq millimètres."),
    (
        "date",
        "news",
        "Le festival a lieu les 17-18-19 juin.",
        "Le festival a lieu les dix-sept, dix-huit et dix-neuf juin.",
    ),
    (
        "date",
        "legal",
        "Signé le 15/03/2021 à Paris.",
        "Signé le quinze mars deux mille vingt et un à Paris.",
    ),
    ("time", "news", "Le train part à 20 h 15.", "Le train part à vingt heures quinze."),
    ("identifier", "news", "Le COVID-19 recule.", "Le COVID dix-neuf recule."),
    (
        "identifier",
        "news",
        "Un Boeing 737 a atterri.",
        "Un Boeing sept cent trente-sept a atterri.",
    ),
    (
        "identifier",
        "news",
        "Le vol AF447 a disparu.",
        "Le vol A F quatre cent quarante-sept a disparu.",
    ),
    ("identifier", "news", "L'Airbus A320 est prêt.", "L'Airbus A trois cent vingt est prêt."),
    (
        "separator",
        "news",
        "Le prix était de 1 000 000 euros.",
        "Le prix était d'un million d'euros.",
    ),
    (
        "equation",
        "science",
        "Tout le monde sait que 2+2=4.",
        "Tout le monde sait que deux plus deux égale quatre.",
    ),
    ("heading", "novel", "CHAPITRE II", "CHAPITRE deux"),
    ("heading", "novel", "Acte III", "Acte trois"),
]
