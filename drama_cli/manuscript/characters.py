"""The characters of a novel, learnt from the whole book before any quote is attributed.

* the first-person narrator (`narrator_of`): a book whose narration says "I" often has one;
  their name is the one the other speakers call them by most ("…, Watson?" next to the
  narrator's "said I"), else NARRATOR;
* one person, one voice (`cluster_speakers`): "HOLMES", "SHERLOCK HOLMES" and "MR. HOLMES" are
  one cast member, the other forms its aliases;
* names that are no one (`is_place_or_time`): a capitalised word the narration uses after "in",
  "at", "to", "from" or "on" ("in London", "on Tuesday") more often than as the subject of a
  verb is a place or a day, never a speaker.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from drama_cli.manuscript.cast_names import FAMILIAR
from drama_cli.manuscript.dialogue import (
    NAME_WORD,
    QUOTE,
    TITLED,
    VOCATIVE,
    gender_of,
    is_name,
    names_in,
    pieces_of,
    tag_pronoun,
)
from drama_cli.manuscript.imported import NARRATOR

_I = re.compile(r"\bI\b")
_WORDS = re.compile(r"[^\W\d_]+")
# The narration says "I" this often (per word, and at least this many times) in a book told in
# the first person; a third-person book's narration says it only in the odd quoted thought.
FIRST_PERSON_RATE = 0.008
FIRST_PERSON_LEAST = 5
_PLACE_BEFORE = re.compile(
    rf"\b(?:in|at|to|from|on|near|towards|through|of|across|into)\s+((?:{NAME_WORD}\s+)?{NAME_WORD})"
)
_ACTING = re.compile(
    rf"((?:{NAME_WORD}\s+)?{NAME_WORD})\s+(?:\w+ly\s+)?(?:[a-z]+ed|said|says|was|had)\b"
)
_AND = re.compile(rf"\b({NAME_WORD})\s+and\s+({NAME_WORD})\b")
# Titles of rank, written before a given name ("Lady Catherine", "Sir William")
_RANK = {"SIR", "LADY", "LORD"}
_DAYS_MONTHS = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    "January", "February", "April", "June", "July", "August", "September", "October",
    "November", "December", "Christmas", "Easter", "Michaelmas",
}  # fmt: skip


def narrator_of(paragraphs: list[str], names: set[str] | None) -> str | None:
    """The first-person narrator's cast key, or None for a book told in the third person: the
    narration (outside quotes) says "I" at least FIRST_PERSON_RATE of its words; the key is
    the name the quotes beside the narrator's own ("…," said I) call someone by, when one
    name is used so at least three times and twice as often as any other, else the name all
    the quotes call someone by so, among names the narration never writes, else NARRATOR."""
    narration = " ".join(QUOTE.sub(" ", p) for p in paragraphs)
    said_i = len(_I.findall(narration))
    if said_i < FIRST_PERSON_LEAST or said_i < FIRST_PERSON_RATE * len(_WORDS.findall(narration)):
        return None
    mine = [_says_i(p) for p in paragraphs]
    called: Counter = Counter()
    anywhere: Counter = Counter()
    for index, paragraph in enumerate(paragraphs):
        beside = mine[index - 1 : index] + mine[index + 1 : index + 2]
        for piece in pieces_of(paragraph):
            if piece.kind == "quote":
                vocatives = [
                    m.group(1).upper()
                    for m in VOCATIVE.finditer(piece.text)
                    if is_name(m.group(1), names)
                ]
                anywhere.update(vocatives)
                if not mine[index] and any(beside):
                    called.update(vocatives)
    ranked = called.most_common(2)
    if ranked and ranked[0][1] >= 3 and (len(ranked) == 1 or ranked[0][1] >= 2 * ranked[1][1]):
        return ranked[0][0]
    # Else the name the speakers call someone by most, when the narration never names them
    # (the narrator is "I" there): "Watson" said five times, "Holmes" twice but narrated.
    told = " ".join(q.text for p in paragraphs for q in pieces_of(p) if q.kind != "quote")
    named = Counter(w for n in names_in(told, names) for w in n.split())
    ranked = [(who, n) for who, n in anywhere.most_common() if not named[who.split()[-1]]]
    if ranked and ranked[0][1] >= 3 and (len(ranked) == 1 or ranked[0][1] >= 2 * ranked[1][1]):
        return ranked[0][0]
    return NARRATOR


def _says_i(paragraph: str) -> bool:
    """True when a quote of the paragraph has the tag "said I" or "I said"."""
    pieces = pieces_of(paragraph)
    return any(
        tag_pronoun(
            pieces[i + 1].text if i + 1 < len(pieces) else "", pieces[i - 1].text if i else ""
        )
        == "i"
        for i, piece in enumerate(pieces)
        if piece.kind == "quote"
    )


def places_and_times(paragraphs: list[str]) -> set[str]:
    """Capitalised words the narration uses as places or times, not people: days, months and
    feasts, and a name written after "in", "at", "to", "from", "on"… ("in London", "to Baker
    Street") at least twice and more often than before a verb ("Holmes said")."""
    where: Counter = Counter()
    acting: Counter = Counter()
    for paragraph in paragraphs:
        narration = QUOTE.sub(" ", paragraph)
        where.update(m.group(1) for m in _PLACE_BEFORE.finditer(narration))
        acting.update(m.group(1) for m in _ACTING.finditer(narration))
    places = {name for name, n in where.items() if n >= 2 and n > acting[name]}
    return {word for name in places for word in name.split()} | _DAYS_MONTHS


@dataclass
class NameUsage:
    """How the book writes its names: `narrated`, each name (titles kept) as the narration
    writes it whole, and how often ("CATHERINE" alone, "LADY CATHERINE"); `whole`, the names
    of two words or more written anywhere, quotes included, less their titles ("ELIZA
    BENNET" from "Miss Eliza Bennet"); `companions`, the names the narration joins by "and"
    ("Catherine and Lydia": CATHERINE → {LYDIA})."""

    narrated: Counter = field(default_factory=Counter)
    whole: set[str] = field(default_factory=set)
    companions: dict[str, set[str]] = field(default_factory=dict)


def name_usage(paragraphs: list[str], names: set[str] | None) -> NameUsage:
    """The book's `NameUsage`."""
    usage = NameUsage()
    for paragraph in paragraphs:
        narration = QUOTE.sub(" ", paragraph)
        usage.narrated.update(names_in(narration, names))
        for name in names_in(paragraph, names):
            words = _untitled(name)
            if len(words) > 1:
                usage.whole.add(" ".join(words))
        for match in _AND.finditer(narration):
            one, other = (w.upper() for w in match.groups())
            if is_name(one, names) and is_name(other, names) and one != other:
                usage.companions.setdefault(one, set()).add(other)
                usage.companions.setdefault(other, set()).add(one)
    return usage


def _untitled(name: str) -> list[str]:
    """The words of a name in capitals less its titles ("MISS ELIZA BENNET": ELIZA, BENNET)."""
    return [w for w in name.split() if not re.fullmatch(TITLED, w.title())]


def _tied(short: str, full: str, usage: NameUsage) -> bool:
    """True when the book ties a familiar form to its full given name: it writes both with
    one surname ("Miss Eliza Bennet", "Miss Elizabeth Bennet"), or its narration joins both
    by "and" to one same person ("Kitty and Lydia", "Catherine and Lydia")."""
    surnames = {n.split(" ", 1)[1] for n in usage.whole if n.split(" ", 1)[0] == short}
    if any(f"{full} {surname}" in usage.whole for surname in surnames):
        return True
    return bool(usage.companions.get(short, set()) & usage.companions.get(full, set()))


def cluster_speakers(
    speakers: Counter, genders: dict[str, str] | None = None, usage: NameUsage | None = None
) -> dict[str, list[str]]:
    """Cast key → its aliases, one key per person among `speakers` (key → line count): a
    titled or full name and its parts ("MR. SHERLOCK HOLMES", "SHERLOCK HOLMES", "HOLMES",
    "MR. HOLMES"), and a familiar form and its name ("LIZZY", "ELIZABETH"), where the short
    form fits exactly one longer name, or, among several, exactly one of its own gender
    (`genders`: "BINGLEY", a man, is "MR. BINGLEY", not "MISS BINGLEY"), and never one of
    the other gender ("JOE", a man, is not "MRS. JOE"). With the book's `usage`:

    * a given name the narration writes alone, twice or more, is not the one who bears it
      after a title of rank ("Catherine and Lydia" are sisters; Lady Catherine is always
      Lady Catherine): two people share it;
    * a titled familiar form joins its full name where the book ties the two (`_tied`:
      "MISS ELIZA" is "ELIZABETH" when it writes "Miss Eliza Bennet" and "Miss Elizabeth
      Bennet");
    * a bare surname whose own gender is not known, written alone in the narration twice or
      more, is the one man of that name who speaks ("BINGLEY" is "MR. BINGLEY", not "MISS
      BINGLEY"): the narration gives women their titles.

    The key is the form with the most lines (the longer on a tie)."""
    usage = usage or NameUsage()
    parent = {name: name for name in speakers}

    def root(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    def bare(name: str) -> list[str]:
        return [w for w in name.split() if not re.fullmatch(TITLED, w.title())]

    def title(name: str) -> str | None:
        first = name.split()[0]
        return first.rstrip(".") if re.fullmatch(TITLED, first.title()) else None

    def fits(one: str, other: str) -> bool:  # "MR. BENNET" is not "MRS. BENNET"
        return title(one) is None or title(other) is None or title(one) == title(other)

    for name in sorted(speakers, key=lambda n: (-len(bare(n)), -len(n), n)):  # longest first
        words = bare(name)
        if not words:
            continue
        familiar = FAMILIAR.get(name.lower(), "").upper()
        titled_familiar = (
            FAMILIAR.get(words[0].lower(), "").upper()
            if len(words) == 1 and title(name) and words[0] != name
            else ""
        )
        owners = [
            other
            for other in speakers
            if other != name
            and fits(name, other)
            and (
                other == familiar
                or (len(bare(other)) > len(words) and _ends_or_starts(bare(other), words))
                or (bare(other) == words and len(other) > len(name))
                or (bare(other) == [titled_familiar] and _tied(words[0], titled_familiar, usage))
            )
            and not (title(other) in _RANK and bare(other) == words and usage.narrated[name] >= 2)
        ]
        gender = gender_of(name, genders or {})
        if gender:  # "JOE", a man, is never "MRS. JOE"
            owners = [o for o in owners if gender_of(o, genders or {}) in (None, gender)]
        if len({root(o) for o in owners}) > 1 and gender:
            owners = [o for o in owners if gender_of(o, genders or {}) == gender]
        elif len({root(o) for o in owners}) > 1 and not title(name) and usage.narrated[name] >= 2:
            men = [o for o in owners if title(o) and gender_of(o, {}) == "m"]
            owners = men if len({root(o) for o in men}) == 1 else owners
        if len({root(o) for o in owners}) == 1:
            parent[root(name)] = root(owners[0])
    groups: dict[str, list[str]] = {}
    for name in speakers:
        groups.setdefault(root(name), []).append(name)
    result = {}
    for members in groups.values():
        key = max(members, key=lambda m: (speakers[m], len(m)))
        result[key] = sorted(m for m in members if m != key)
    return result


def _ends_or_starts(longer: list[str], shorter: list[str]) -> bool:
    """True when `shorter` is the start or the end of `longer` ("SHERLOCK" or "HOLMES" of
    "SHERLOCK HOLMES")."""
    n = len(shorter)
    return longer[:n] == shorter or longer[-n:] == shorter
