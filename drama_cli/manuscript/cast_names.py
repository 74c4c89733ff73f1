"""A play's cast: dramatis personae entries, and the names speech rows use resolved to them.

An entry is "Name, description" ("Merriman, Butler"); titles of address inside it (Rev., Hon.,
Lady) belong to the name, and letters after a comma that are only titles ("J. P.", "D.D.")
describe nobody. A row's name resolves to the one entry whose name holds each of its words,
ignoring case and titles, where a word may also be the entry word's initial ("Lady B.") or a
common familiar form of it ("Jack" for John). A name that resolves to no entry, or to several,
is a character of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TITLES = {
    "mr",
    "mrs",
    "ms",
    "miss",
    "master",
    "lady",
    "lord",
    "sir",
    "dame",
    "rev",
    "reverend",
    "canon",
    "hon",
    "dr",
    "doctor",
    "captain",
    "capt",
    "colonel",
    "col",
    "major",
    "general",
    "professor",
    "prof",
    "father",
    "mother",
    "sister",
    "brother",
    "madame",
    "monsieur",
    "mademoiselle",
    "count",
    "countess",
    "duke",
    "duchess",
    "king",
    "queen",
    "prince",
    "princess",
    "the",
    "of",
}
POST_NOMINALS = re.compile(
    r"^(?:[A-Z]\.\s?)+$|^(?:J\.\s?P|D\.\s?D|M\.\s?P|K\.\s?C|Q\.\s?C|Bart|Esq|M\.\s?D)\.?$"
)
# Familiar forms of English given names, as plays use them in speech headings.
FAMILIAR = {
    "jack": "john",
    "johnny": "john",
    "algy": "algernon",
    "bill": "william",
    "will": "william",
    "billy": "william",
    "bob": "robert",
    "rob": "robert",
    "dick": "richard",
    "ned": "edward",
    "ted": "edward",
    "harry": "henry",
    "hal": "henry",
    "tom": "thomas",
    "jim": "james",
    "jamie": "james",
    "sam": "samuel",
    "ben": "benjamin",
    "fred": "frederick",
    "charlie": "charles",
    "kate": "katherine",
    "kitty": "catherine",
    "bess": "elizabeth",
    "betty": "elizabeth",
    "lizzy": "elizabeth",
    "lizzie": "elizabeth",
    "eliza": "elizabeth",
    "beth": "elizabeth",
    "peggy": "margaret",
    "meg": "margaret",
    "molly": "mary",
    "polly": "mary",
    "nell": "eleanor",
    "nan": "anne",
    "nancy": "anne",
    "sukey": "susan",
    "sue": "susan",
    "tony": "anthony",
    "nick": "nicholas",
    "pip": "philip",
    "toby": "tobias",
    "kit": "christopher",
}


@dataclass
class CastEntry:
    """A dramatis personae entry: the name words (lower case, titles kept apart) and the
    description ("Butler"), with the entry as printed."""

    printed: str
    name: str
    description: str | None
    words: list[str] = field(default_factory=list)
    titles: set[str] = field(default_factory=set)


def words_of(name: str) -> tuple[list[str], set[str]]:
    """(name words, title words) of a name, lower case, dots and possessives stripped."""
    words, titles = [], set()
    for word in re.findall(r"[\w’']+\.?", name):
        bare = word.rstrip(".").lower().removesuffix("’s").removesuffix("'s")
        (titles.add(bare) if bare in TITLES else words.append(bare))
    return words, titles


def parse_entry(printed: str) -> CastEntry:
    """A dramatis personae entry as a CastEntry: the part before the first comma is the name,
    the rest its description unless it is only post-nominal letters."""
    name, _, rest = printed.partition(",")
    rest = rest.strip().rstrip(".")
    description = rest if rest and not POST_NOMINALS.match(rest) else None
    words, titles = words_of(name)
    return CastEntry(printed, name.strip(), description, words, titles)


def _word_matches(word: str, entry_word: str) -> bool:
    if word == entry_word or FAMILIAR.get(word) == entry_word:
        return True
    return len(word) == 1 and entry_word.startswith(word)  # an initial: "Lady B."


def resolve(name: str, entries: list[CastEntry]) -> CastEntry | None:
    """The one entry a row's `name` means, or None when none or several match."""
    words, titles = words_of(name)
    if not words:
        words, titles = sorted(titles), set()  # a name that is only a title ("The Duke")
    found = [
        entry
        for entry in entries
        if all(
            any(_word_matches(word, theirs) for theirs in entry.words + sorted(entry.titles))
            for word in words
        )
        and (not titles or not entry.titles or titles & entry.titles)
    ]
    return found[0] if len(found) == 1 else None


def split_joint(name: str) -> list[str]:
    """The speakers of a joint heading ("Jack and Algernon" → both), else [name]."""
    parts = [
        part.strip()
        for part in re.split(r"\s*(?:,|&|\band\b)\s*", name, flags=re.I)
        if part.strip()
    ]
    return parts if len(parts) > 1 else [name]
