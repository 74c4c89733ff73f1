"""What `num2words` lacks: the forms a number takes from the words around it.

German: the case the word before calls for (a preposition, an article, a contraction such as
`am`) and the noun's gender give `ein`/`eine`/`einem`… and the ending of an ordinal (`am 3. Mai` →
"am dritten Mai", `der 3. Mai` → "der dritte Mai", `3. Mai` → "dritter Mai"). Spanish: a number
before a feminine noun ends in `una`/`-ientas` (`veintiuna personas`, `doscientas mujeres`) and
before a masculine noun `uno` drops to `un` (`veintiún años`); ordinals agree (`primera`,
`primer`). French: `un` before a feminine noun becomes `une` (`vingt et une femmes`).
"""

from __future__ import annotations

import re

_DE_DATIVE = frozenset(
    "mit von zu aus bei nach seit gegenüber ab in an auf über unter vor hinter neben zwischen "
    "dem einem am im vom zum beim zur".split()
)
_DE_ACCUSATIVE = frozenset("für durch gegen ohne um bis den einen ins ans aufs".split())
_DE_WEAK_EN = frozenset(
    "am im vom zum beim zur dem den des einem einen eines einer "
    "seinen seinem seiner seines ihren ihrem ihrer ihres meinen meinem meiner meines "
    "deinen deinem deiner deines unseren unserem unserer unseres euren eurem eurer eures "
    "keinen keinem keiner keines".split()
)
_DE_WEAK_E = frozenset(
    "ins ans aufs der die das dieser diese dieses jeder jede jedes seine ihre meine deine unsere eure keine".split()
)
# Nouns a number labels rather than counts (`Nummer 1`, `Formel 1`, `Gleis 1`): `1` is "eins".
DE_LABELS = frozenset(
    "nummer nr platz rang gleis linie formel band teil kapitel seite zimmer bahnsteig "
    "haus tor kanal folge runde stufe".split()
)
_DE_PREPOSITIONS = _DE_DATIVE | _DE_ACCUSATIVE
# Words that start a sentence and are never nouns: after `4.` or `IV.` the dot is a full stop.
_DE_SENTENCE_STARTS = (
    _DE_PREPOSITIONS
    | _DE_WEAK_EN
    | _DE_WEAK_E
    | frozenset(
        "ich du er sie es wir ihr man ein eine dann da dort hier so und aber doch denn oder als wenn "
        "weil dass ob wie was wer wo warum nun jetzt heute gestern danach später erst noch nicht nie "
        "auch schon ja nein".split()
    )
)
# Verb forms that take an object in the accusative (`Er hatte 1 Bruder` → "einen Bruder"): the
# commonest transitive verbs in the present and simple past. A number right after one is read as
# its object; where it is the subject after an inverted verb (`Dann kaufte 1 Mann ein Auto`) this
# is wrong (docs/guide/pronunciation.md).
_DE_TRANSITIVE = frozenset(
    "habe hast hat haben habt hatte hattest hatten hattet kaufe kaufst kauft kaufen kaufte kauften "
    "brauche brauchst braucht brauchen brauchte brauchten sehe siehst sieht sehen sah sahen "
    "nehme nimmst nimmt nehmen nahm nahmen bekomme bekommst bekommt bekommen bekam bekamen "
    "suche suchst sucht suchen suchte suchten finde findest findet finden fand fanden "
    "gibt gab bestelle bestellt bestellen bestellte bestellten trinke trinkt trinken trank tranken "
    "esse isst essen aß aßen schreibe schreibt schreiben schrieb schrieben lese liest lesen las lasen "
    "kenne kennst kennt kennen kannte kannten trage trägt tragen trug trugen bringe bringt bringen "
    "brachte brachten gewinne gewinnt gewinnen gewann gewannen verliere verliert verlieren verlor "
    "verloren erzielt erzielen erzielte erzielten schoss schossen holt holen holte holten baut bauen "
    "baute bauten kostet kosten kostete kosteten zahlt zahlen zahlte zahlten bezahlt bezahlte "
    "bezahlten hält halten hielt hielten mag mochte braucht".split()
)
_DE_WEEKDAYS = frozenset(
    "montag dienstag mittwoch donnerstag freitag samstag sonntag sonnabend".split()
)
_DE_ONE = {
    ("nom", "m"): "ein",
    ("nom", "n"): "ein",
    ("nom", "f"): "eine",
    ("acc", "m"): "einen",
    ("acc", "n"): "ein",
    ("acc", "f"): "eine",
    ("dat", "m"): "einem",
    ("dat", "n"): "einem",
    ("dat", "f"): "einer",
}
_DE_STRONG_BY_CASE = {
    "nom": {"m": "er", "f": "e", "n": "es"},
    "acc": {"m": "en", "f": "e", "n": "es"},
    "dat": {"m": "em", "f": "er", "n": "em"},
}


def german_sentence_start(word: str) -> bool:
    """True when `word` is capitalised and is a word that starts a sentence and is never a
    noun (`Am`, `Dann`, `Er`): a dot before it after a number ends the sentence."""
    return word[:1].isupper() and word.lower() in _DE_SENTENCE_STARTS


def german_case(before: list[str]) -> str:
    """ "nom", "acc" or "dat": the case the words before a number (nearest last, lower case) call
    for; a preposition decides, two-way prepositions read as dative (where, not whither). After
    `und`/`oder` the preposition before the pair's first member counts (`mit 1 Koffer und 1 Tasche`)."""
    near = before[-4:] if before and before[-1] in ("und", "oder", "sowie") else before[-2:]
    for word in reversed(near):
        if word in _DE_DATIVE:
            return "dat"
        if word in _DE_ACCUSATIVE or word in _DE_TRANSITIVE:
            return "acc"
    return "nom"


def german_one(before: list[str], gender: str | None) -> str:
    """`1` said before a noun of `gender` after the words `before`: ein, eine, einen, einem, einer."""
    return _DE_ONE[(german_case(before), gender or "n")]


def german_half(before: list[str], gender: str | None) -> str:
    """`1/2` or `½` before a noun of `gender`: "ein halber", "eine halbe", "ein halbes", "einen
    halben", "einem halben"… as the words `before` call for."""
    case = german_case(before)
    one = _DE_ONE[(case, gender or "n")]
    ending = (
        "en" if one in ("einen", "einem", "einer") else _DE_STRONG_BY_CASE["nom"][gender or "n"]
    )
    return f"{one} halb{ending}"


def _adjective_after_article(before: list[str]) -> bool:
    """Whether the last word before an ordinal is an adjective after an article or contraction."""
    last, article = before[-1], before[-2]
    known = _DE_WEAK_EN | _DE_WEAK_E | _DE_PREPOSITIONS
    return (
        last not in known
        and last.endswith(("e", "en", "er", "es", "em"))
        and article in _DE_WEAK_EN | _DE_WEAK_E
    )


def german_adjective_gender(adjective: str, case: str) -> str | None:
    """The gender an adjective's ending shows after `ein` (`1 gestrichener Esslöffel`): -er
    masculine, -es neuter, -e feminine, -en masculine in the accusative; None where it does not
    tell (the dative)."""
    for ending, gender in (
        ("er", "m"),
        ("es", "n"),
        ("en", "m" if case == "acc" else None),
        ("e", "f"),
    ):
        if adjective.endswith(ending):
            return gender if case != "dat" or ending not in ("en",) else None
    return None


def german_ordinal(stem: str, before: list[str], gender: str | None) -> str:
    """An ordinal (`num2words`' form ending in -e, such as "dritte") with the ending the words
    before and the noun's gender call for: weak -e / -en after an article or contraction, strong
    -er / -e / -es without one."""
    base = stem.removesuffix("e")
    while before and before[-1] in _DE_WEEKDAYS:  # `am Montag, 15. September`: as after `am`
        before = before[:-1]
    if len(before) > 1 and _adjective_after_article(before):  # `im späten 17. Jahrhundert`
        before = before[:-1]
    if before and before[-1] in ("und", "oder", "bis", "sowie"):  # `am 3. und 4. Mai`: as the first
        first = [i for i, w in enumerate(before[:-1]) if w in _DE_WEAK_EN | _DE_WEAK_E]
        before = before[: first[-1] + 1] if first else before
    last = before[-1] if before else ""
    if last == "der":
        return base + ("en" if len(before) > 1 and before[-2] in _DE_PREPOSITIONS else "e")
    if last in _DE_WEAK_EN:
        return base + "en"
    if last in _DE_WEAK_E:
        return base + "e"
    return base + _DE_STRONG_BY_CASE[german_case(before)][gender or "m"]


def spanish_gender(words: str, gender: str | None) -> str:
    """A Spanish cardinal before a noun: feminine `una`, `-ientas` after the last `millón`
    (`doscientas mil mujeres`, but `doscientos millones de mujeres`); masculine `uno` → `un`
    (`veintiún años`). Unchanged when the gender is not known."""
    if gender is None:
        return words
    head, tail = _after_last_scale(words, ("millón", "millones", "billón", "billones"))
    if gender == "f":
        tail = re.sub(r"ientos\b", "ientas", tail)
        tail = re.sub(r"\bquinientos\b", "quinientas", tail)
        tail = re.sub(r"\b(veinti)?(uno|ún)\b", lambda m: (m.group(1) or "") + "una", tail)
        tail = re.sub(r"\bun\b(?= mil\b)", "una", tail)
    else:
        tail = re.sub(r"\bveintiuno$", "veintiún", tail)
        tail = re.sub(r"\buno$", "un", tail)
    return head + tail


def spanish_ordinal(words: str, gender: str | None, before_noun: bool) -> str:
    """A Spanish ordinal (`num2words`' masculine form) agreeing with its noun: every word in -o
    ends in -a for a feminine noun; `primero` and `tercero` drop the -o before a masculine one."""
    if gender == "f":
        return re.sub(r"o\b", "a", words)
    if before_noun:
        return re.sub(r"\b(primer|tercer)o$", r"\1", words)
    return words


def french_gender(words: str, gender: str | None) -> str:
    """A French cardinal before a feminine noun: a final `un` is `une` (`vingt et une femmes`)."""
    if gender != "f":
        return words
    return re.sub(r"(?<![\w-])un$|(?<=-)un$", "une", words)


def french_elision(before: str, said: str) -> tuple[int, str] | None:
    """French `de`/`que` right before a number said from "un"/"une" elide ("d'un", "qu'une").
    `before`: the text before the number; returns (where the elided word starts in `before`,
    the word as said: "d'", "qu'"), or None."""
    if not re.match(r"une?\b", said):
        return None
    match = re.search(r"(?<![\w'’-])([dD]e|[qQ]ue) $", before)
    if match is None:
        return None
    return match.start(), match.group(1)[:-1] + "'"


def _after_last_scale(words: str, scales: tuple[str, ...]) -> tuple[str, str]:
    """`words` cut after its last scale word: (head with the scale word, the rest)."""
    found = [m.end() for m in re.finditer(rf"\b(?:{'|'.join(scales)})\b", words)]
    cut = found[-1] if found else 0
    return words[:cut], words[cut:]
