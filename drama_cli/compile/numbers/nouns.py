"""The grammatical gender of the noun after a number, for German, French and Spanish.

No maintained noun-gender lexicon for all three languages installs from the package index as a
small library (the large ones are statistical taggers with model downloads), so the gender comes
from a list of the nouns numbers most often count or order (time, money, measures, people,
everyday things) and, for the rest, from endings. The list is checked first, and in German the
end of a compound counts (`Lieblingsbuch` is neuter like `Buch`). Known misses: a noun whose
gender its ending does not show (`la mano`, `le lycée`, `das Messer`) unless it is listed, and
words that are not nouns at all read as a noun by their ending. None means "not known".
"""

from __future__ import annotations

_DE = {
    "m": "Tag Monat Mann Euro Dollar Cent Franken Rubel Kilometer Meter Zentimeter Millimeter Liter Platz Stock "
    "Punkt Teil Schritt Versuch Sohn Bruder Vater Hund Apfel Wagen Zug Baum Brief Fall Grad Januar Februar "
    "März April Mai Juni Juli August September Oktober November Dezember Montag Dienstag Mittwoch "
    "Donnerstag Freitag Samstag Sonntag Sieg Preis Rang Band Akt Abschnitt Satz Weg Kaffee Becher Löffel "
    "Spieler Mensch Gast Freund Schüler Lehrer Kunde Kollege Junge Moment Schuss Stuhl Tisch Topf",
    "f": "Frau Woche Stunde Minute Sekunde Person Klasse Seite Runde Etage Auflage Reihe Tochter Schwester Mutter "
    "Katze Flasche Tasse Nacht Stadt Tür Hand Million Milliarde Mark Krone Rupie Lira Kopeke Sache Frage "
    "Antwort Stimme Liga Staffel Folge Szene Strophe Zeile Nummer Uhr Zeit Idee Kugel Dose Tafel "
    "Schule Straße Zahl Freundin Schülerin Lehrerin Mannschaft Meile Prise Scheibe Tablette Zwiebel Gabel "
    "Kartoffel Insel Regel Nadel Schachtel",
    "n": "Jahr Jahrhundert Jahrtausend Mal Buch Kind Haus Auto Zimmer Stück Glas Kapitel Spiel Tor Ei Brot Pfund "
    "Gramm Kilogramm Kilo Prozent Mädchen Land Dorf Bild Lied Wort Ziel Rennen Semester Quartal Viertel "
    "Drittel Heft Paar Dutzend Bier Fenster Schiff Pferd Tier Bett Hotel Konto Team Level Album Foto",
}
_FR = {
    "f": "personne femme fille heure minute seconde fois année semaine journée page chose vie ville maison "
    "voiture rue porte main tête mère sœur place table chambre étoile pomme bouteille tasse cuillère "
    "tonne nuit saison classe partie étape victoire place fille amie lettre ligne scène lune tranche "
    "gousse pincée boîte livre_sterling dent jambe soirée matinée médaille étape commune région victime "
    "cuiller c c.à.s c.à.c",  # `c.` of `1 c. à soupe`
    "m": "homme enfant jour an mois euro dollar centime kilo mètre litre garçon ami livre siècle étage "
    "chapitre acte point match but pas verre œuf morceau an degré frère père fils chien chat arbre "
    "musée lycée dollar franc rouble yen won kilomètre gramme centimètre millimètre tour",
}
_ES = {
    "f": "persona mujer hora vez semana mano noche página cosa vida ciudad casa calle puerta cabeza madre "
    "hermana mesa habitación estrella manzana botella taza cucharada libra rupia lira temporada "
    "clase parte etapa victoria chica niña amiga carta línea escena luna rebanada gente",
    "m": "hombre niño día año mes euro dólar centavo céntimo kilo metro litro chico amigo libro siglo piso "
    "capítulo acto punto partido gol paso vaso huevo trozo grado hermano padre hijo perro gato árbol "
    "mapa problema programa sistema tema idioma clima planeta poeta minuto segundo kilómetro gramo "
    "sobre diente",
}


def _table(words: dict[str, str]) -> dict[str, str]:
    return {
        word.replace("_", " ").lower(): gender
        for gender, row in words.items()
        for word in row.split()
    }


_KNOWN = {"de": _table(_DE), "fr": _table(_FR), "es": _table(_ES)}

_ENDINGS = {
    "de": (
        ("ung", "f"),
        ("heit", "f"),
        ("keit", "f"),
        ("schaft", "f"),
        ("ion", "f"),
        ("tät", "f"),
        ("ik", "f"),
        ("ei", "f"),
        ("ie", "f"),
        ("chen", "n"),
        ("lein", "n"),
        ("ment", "n"),
        ("um", "n"),
        ("tum", "n"),
        ("ling", "m"),
        ("ismus", "m"),
        ("or", "m"),
        ("er", "m"),
        ("e", "f"),
    ),
    "fr": (
        ("tion", "f"),
        ("sion", "f"),
        ("té", "f"),
        ("ette", "f"),
        ("ure", "f"),
        ("ence", "f"),
        ("ance", "f"),
        ("ie", "f"),
        ("ée", "f"),
        ("euse", "f"),
        ("rice", "f"),
        ("ade", "f"),
        ("aine", "f"),
        ("elle", "f"),
        ("esse", "f"),
        ("ise", "f"),
        ("ude", "f"),
        ("ière", "f"),
        ("aille", "f"),
        ("eille", "f"),
        ("ment", "m"),
        ("age", "m"),
        ("eau", "m"),
        ("isme", "m"),
        ("eur", "m"),
        ("ier", "m"),
        ("on", "m"),
        ("et", "m"),
    ),
    "es": (
        ("ción", "f"),
        ("sión", "f"),
        ("dad", "f"),
        ("tad", "f"),
        ("tud", "f"),
        ("umbre", "f"),
        ("ez", "f"),
        ("a", "f"),
        ("o", "m"),
        ("or", "m"),
        ("aje", "m"),
        ("ón", "m"),
        ("án", "m"),
        ("és", "m"),
    ),
}
_PLURALS = {"de": ("en", "n", "e", "er", "s"), "fr": ("s", "x"), "es": ("es", "s")}
_ES_PLURAL_ENDINGS = {
    "ciones": "ción",
    "siones": "sión",
    "dades": "dad",
    "tudes": "tud",
    "ores": "or",
}


# Words after a house number, which is not a count: `31 rue` is "trente et un rue".
STREET_WORDS = {"fr": frozenset("rue avenue av. bd boulevard allée impasse chemin quai".split())}


def listed_gender(word: str, language: str) -> str | None:
    """The gender of `word` from the list of common nouns only (not guessed from its ending), or
    None."""
    known = _KNOWN.get(language)
    if known is None or not word:
        return None
    return next((known[form] for form in _forms(word.lower(), language) if form in known), None)


def noun_gender(word: str, language: str) -> str | None:
    """The gender ("m", "f", "n") of the noun `word` in `language` (de, fr, es), or None when
    neither the list nor an ending tells it (also for other languages)."""
    known = _KNOWN.get(language)
    if known is None or not word or not word[0].isalpha():
        return None
    lower = word.lower()
    for form in _forms(lower, language):
        if form in known:
            return known[form]
    if language == "de":
        for noun, gender in sorted(known.items(), key=lambda item: -len(item[0])):
            if len(noun) > 3 and lower.endswith(noun):
                return gender
        if not word[0].isupper():
            return None
    for form in _forms(lower, language):
        for ending, gender in _ENDINGS[language]:
            if form.endswith(ending) and len(form) > len(ending) + 1:
                return gender
    return None


def _forms(lower: str, language: str) -> list[str]:
    """The word and the singulars it may be the plural of."""
    forms = [lower]
    if language == "es":
        forms += [
            lower[: -len(end)] + single
            for end, single in _ES_PLURAL_ENDINGS.items()
            if lower.endswith(end)
        ]
    for ending in _PLURALS[language]:
        if lower.endswith(ending) and len(lower) > len(ending) + 2:
            forms.append(lower[: -len(ending)])
    return forms
