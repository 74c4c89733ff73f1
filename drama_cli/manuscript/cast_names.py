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
    "earl",
    "viscount",
    "marquis",
    "marquess",
    "baron",
    "viscountess",
    "marchioness",
    "baroness",
}
# A peer is "Lord" or "Lady" in speech headings whatever the rank the cast list gives
# ("The Earl of Caversham" speaks as "Lord Caversham", "the Countess of Basildon" as "Lady Basildon").
PEERAGE = {
    "lord": {"earl", "viscount", "marquis", "marquess", "baron", "duke", "count", "prince"},
    "lady": {"countess", "viscountess", "marchioness", "baroness", "duchess", "princess"},
}
# Title words that address a person by name ("Mrs. Marchmont"): after a comma or "the" in a cast
# row they open a second character, not a description.
_ADDRESS = {
    *("mr", "mrs", "ms", "miss", "master", "lady", "lord", "sir", "dame", "rev", "reverend"),
    *("dr", "doctor", "captain", "capt", "colonel", "col", "major", "general", "professor"),
    *("prof", "madame", "monsieur", "mademoiselle"),
}
POST_NOMINALS = re.compile(
    r"^(?:[A-Z]\.\s?)*[A-Z]\.?$|^(?:J\.\s?P|D\.\s?D|M\.\s?P|K\.\s?C|Q\.\s?C|Bart|Esq|M\.\s?D)\.?$"
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


def words_of(name: str, possessives: bool = True) -> tuple[list[str], set[str]]:
    """(name words, title words) of a name, lower case, dots and possessives stripped; without
    `possessives`, a possessive word is left out (it names someone else: "Helmer's children")."""
    words, titles = [], set()
    for word in re.findall(r"[\w’']+\.?", name):
        bare = word.rstrip(".").lower()
        if not possessives and bare.endswith(("’s", "'s")):
            continue
        bare = bare.removesuffix("’s").removesuffix("'s")
        (titles.add(bare) if bare in TITLES else words.append(bare))
    return words, titles


def parse_entry(printed: str) -> CastEntry:
    """A dramatis personae entry as a CastEntry: the part before the first comma (or a dash
    before an actor's name: "Sir Peter Teazle—Mr. King") is the name, the rest its description
    unless it is only post-nominal letters."""
    printed = " ".join(printed.split())
    if not re.search(r"\b[A-Z]\.$", printed):  # "Torvald Helmer." as a list prints it, not "J.P."
        printed = printed.rstrip(".;")
    mark = re.search(r",|\s*[—–]\s*", printed)
    name, rest = (printed[: mark.start()], printed[mark.end() :]) if mark else (printed, "")
    rest = rest.strip().rstrip(".")
    description = rest if rest and not POST_NOMINALS.match(rest) else None
    words, titles = words_of(name, possessives=False)
    return CastEntry(printed, name.strip().rstrip("."), description, words, titles)


def parse_entries(printed: str) -> list[CastEntry]:
    """The characters a cast row names: one, or two where the row joins two names ("Rosencrantz
    and Guildenstern, courtiers": the description is both's), or names a second character by
    title after the first ("Lady Markby the Countess of Basildon", "Lady Basildon, Mrs.
    Marchmont")."""
    printed = " ".join(printed.split())
    head, comma, rest = printed.partition(",")
    joined = re.fullmatch(r"(.+?)\s+(?:and|&)\s+(.+)", head)
    if joined and all(_is_name(part) for part in joined.groups()):
        first, second = joined.groups()
        if not words_of(first)[0]:  # "Mr. and Mrs. Hardcastle": the name is both's
            first += " " + second.split()[-1]
        return [parse_entry(first + comma + rest), parse_entry(second + comma + rest)]
    titled = re.fullmatch(r"(.+?)\s+((?:the|The)\s+\w+\s+of\s+[A-Z][\w’'-]*)", head)
    if titled and _is_name(titled.group(1)) and titled.group(2).split()[1].lower() in TITLES:
        return [parse_entry(titled.group(1)), parse_entry(titled.group(2) + comma + rest)]
    second = rest.strip()
    if comma and _is_name(head) and _addressed(second):
        return [parse_entry(head), *parse_entries(second)]
    return [parse_entry(printed)]


def _is_name(words: str) -> bool:
    """True for a short run of capitalised words (titles and "of" allowed): a person's name."""
    parts = words.split()
    return 0 < len(parts) <= 5 and all(
        part[0].isupper() or part.rstrip(".").lower() in TITLES for part in parts
    )


def _addressed(words: str) -> bool:
    """True for a title of address and a capitalised name, the whole of a cast row's part
    ("Mrs. Marchmont"), never a possessive ("Lord Goring’s Servant")."""
    parts = words.split(",")[0].split()
    return (
        len(parts) >= 2
        and parts[0].rstrip(".").lower() in _ADDRESS
        and _is_name(" ".join(parts))
        and not any(part.endswith(("’s", "'s")) or part == "of" for part in parts)
    )


def _word_matches(word: str, entry_word: str) -> bool:
    if word == entry_word or FAMILIAR.get(word) == entry_word:
        return True
    return len(word) == 1 and entry_word.startswith(word)  # an initial: "Lady B."


def resolve(name: str, entries: list[CastEntry]) -> CastEntry | None:
    """The one entry a row's `name` means, or None when none or several match; a heading that
    matches no name may be the title a description gives ("Queen": "Gertrude, the Queen")."""
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
        and (not titles or not entry.titles or _titles_agree(titles, entry.titles))
    ]
    if not found and len(words) <= 2:  # "Queen" for "Gertrude, the Queen" or "Queen of Denmark"
        found = [entry for entry in entries if _described_as(words, entry.description)]
    return found[0] if len(found) == 1 else None


def _described_as(words: list[str], description: str | None) -> bool:
    """True when a description names the person by `words` alone: "the Queen", "Queen of
    Denmark" for ["queen"]."""
    head = re.split(r"\bof\b|,", description or "")[0]
    tokens = [w for w in re.findall(r"[\w’']+", head.lower()) if w not in ("the", "a", "an")]
    return 0 < len(tokens) <= 2 and tokens[-len(words) :] == words


def _titles_agree(theirs: set[str], entry_titles: set[str]) -> bool:
    """True when a heading's titles fit an entry's: one in common, or a peer's rank and the
    "Lord" or "Lady" a heading gives it."""
    if theirs & entry_titles:
        return True
    return any(PEERAGE.get(title, set()) & entry_titles for title in theirs)


def split_joint(name: str) -> list[str]:
    """The speakers of a joint heading ("Jack and Algernon" → both), else [name]."""
    parts = [
        part.strip()
        for part in re.split(r"\s*(?:,|&|\band\b)\s*", name, flags=re.I)
        if part.strip()
    ]
    return parts if len(parts) > 1 else [name]
