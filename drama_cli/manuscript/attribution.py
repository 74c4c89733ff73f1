"""A novel chapter's paragraphs as script lines, each quote given its speaker by the rules of
`manuscript.dialogue` (tags, a speech going on, pronouns, the paragraph, beats, vocatives,
turn-taking)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from drama_cli.manuscript.cast_names import FAMILIAR
from drama_cli.manuscript.characters import NameUsage, name_usage, narrator_of, places_and_times
from drama_cli.manuscript.dialogue import (
    DASH_SPEECH,
    NAME,
    NAME_WORD,
    PERSON_NOUNS,
    QUOTE,
    TITLE_NOUNS,
    TITLED,
    VERBS,
    VOCATIVE,
    Piece,
    book_genders,
    book_names,
    description_head,
    gender_of,
    is_name,
    is_tag_only,
    names_in,
    pieces_of,
    tag_description,
    tag_name,
    tag_pronoun,
)
from drama_cli.manuscript.imported import BREAK, NARRATOR, ImportedLine, add_break
from drama_cli.script.book import UNATTRIBUTED

# Rules that read the speaker from the paragraph's own words: a speech begun unattributed in
# earlier paragraphs takes a speaker found so, never one guessed from the conversation.
_TOLD = ("tag", "narrator", "pronoun", "same paragraph", "introduced", "description")
# How sure each rule is of the speaker it finds (the line's `confidence`; `min_confidence`
# leaves a quote below it UNATTRIBUTED). Measured on the development set (bench/attribution.py):
# a tag naming the speaker is nearly always right, turn-taking and vocatives less often.
CONFIDENCE = {
    "tag": 0.95,
    "narrator": 0.9,
    "continued": 0.9,
    "same paragraph": 0.85,
    "introduced": 0.85,
    "pronoun": 0.8,
    "description": 0.75,
    "beat": 0.7,
    "turn-taking": 0.7,
    "vocative": 0.65,
}
_ON_SOMEONE = re.compile(
    rf"\b(?:to|towards|toward|with|at|on|upon)\s+{NAME}"
)  # "she turned to Tom": Tom is spoken to, not speaking
_PRONOUN_OF = {"m": "he", "f": "she"}  # a gender's pronoun in a speech tag
RECENT = 3  # speakers a pronoun may point back to: it resolves when one of them has its gender


# A title word and the name after it ("Prince Vasíli", "Inspector Lestrade"), for "the prince".
_TITLE_AND_NAME = re.compile(rf"\b([A-Z][a-zé]+)\s+({NAME_WORD}(?:\s+{NAME_WORD})?)")


# Kin a description names through its owner ("his wife", "her brother"): the kin's gender and
# the title the kin is written with when that title is the family's ("Mrs." for a wife).
_KIN = {
    "wife": ("f", "Mrs"), "lady": ("f", "Mrs"), "mother": ("f", "Mrs"),
    "husband": ("m", "Mr"), "father": ("m", "Mr"),
    "sister": ("f", None), "daughter": ("f", None), "brother": ("m", None), "son": ("m", None),
}  # fmt: skip
_FAMILY_TITLES = {"Mr", "Mrs", "Miss", "Master"}
_NOT_PEOPLE = {"old", "young", "elder", "younger", "other", "first", "second"}  # adjectives
# "My sister, Mrs. Joe Gargery," / "Basil Hallward, the painter,": a description and a name
# set side by side in the narration.
_DESCRIBED_NAME = re.compile(
    rf"\b((?i:the|his|her|my|our))\s+((?:[a-z]+\s+){{0,2}}[a-z]+)\s*,\s*[—–-]*\s*{NAME}(?=\s*[,;.—–)])"
)  # the name closed by punctuation: "to her aunt, Anna Pávlovna mentioned" is no apposition
_NAME_DESCRIBED = re.compile(
    rf"{NAME}\s*,\s*(the|his|her|my|our)\s+((?:[a-z]+\s+){{0,2}}[a-z]+)(?=\s*[,;.—–)])"
)


def _appositions(paragraphs: list[str], names: set[str] | None) -> dict[tuple[str, str], str]:
    """(owner, description) → the one name the book's narration sets beside it ("my sister,
    Mrs. Joe Gargery" and "My sister, Mrs. Joe": ('my', 'sister') → 'MRS. JOE', the shorter of
    two forms of one name); a description set beside two people is left out."""
    found: dict[tuple[str, str], set[str]] = {}
    for paragraph in paragraphs:
        text = QUOTE.sub(" ", paragraph)
        pairs = [(m.group(1), m.group(2), m.group(3)) for m in _DESCRIBED_NAME.finditer(text)]
        pairs += [(m.group(2), m.group(3), m.group(1)) for m in _NAME_DESCRIBED.finditer(text)]
        for owner, words, name in pairs:
            if words.split()[-1] in PERSON_NOUNS and is_name(name, names):
                found.setdefault((owner.lower(), words), set()).add(name.upper())
    relations = {}
    for key, named in found.items():
        shortest = min(named, key=len)
        if all(n == shortest or n.startswith(shortest + " ") for n in named):
            relations[key] = shortest
    return relations


# Someone the narration brings in without a name ("a young lady came across the court-yard",
# "two men in it with guns", "One of them says:", "somebody spoke out of a window").
_NEWCOMER = re.compile(
    r"\b(?:(?:[Aa]n?|[Tt]wo|[Tt]hree|[Aa]nother)\s+(?:[a-z]+\s+){0,2}("
    + "|".join(sorted(n for n, g in PERSON_NOUNS.items() if n not in _NOT_PEOPLE))
    + r")s?|[Oo]ne of them|[Ss]omebody|[Ss]omeone)\b"
)


_COMING = (
    r"(?:comes?|came|enter(?:s|ed)?|appear(?:s|ed)?|arrived?|walk(?:s|ed)|stepp?(?:s|ed)|"
    r"start(?:s|ed)|rush(?:es|ed)|ran|spoke|speaks|says|said|called|cried|knock(?:s|ed)|"
    r"approach(?:es|ed)|stood|demanded|answered|replied|sung)"
)
_ARRIVES = re.compile(rf"(?:\s+[a-z]+){{0,3}}?\s+{_COMING}\b")  # "…walked in", "…says:"
_COMES = re.compile(r"\b(?:comes?|came|enter(?:s|ed)|appear(?:s|ed)|arrived?)\b")  # "along
# comes a skiff with two men"
_PREDICATE = re.compile(r"\b(?:be|been|being|was|were|is|am|are|make|makes|made|as|like)\s+$")


@dataclass
class AttributionOptions:
    """`narrator_is`: the first-person narrator's cast key (or None); `keep_tags`: speech tags
    stay narration; `genders`: name → 'm'/'f' found in the whole book."""

    narrator_is: str | None = None
    keep_tags: bool = True
    genders: dict[str, str] = field(default_factory=dict)
    names: set[str] | None = None

    narrated: set[str] = field(default_factory=set)
    dashes: bool = False  # the book marks speech with a dash at a paragraph's start
    titled: dict[str, set[str]] = field(default_factory=dict)  # 'prince' → {'PRINCE VASÍLI'}
    min_confidence: float = 0.0  # quotes whose speaker's confidence is lower stay UNATTRIBUTED
    places: set[str] = field(default_factory=set)  # words the book uses as places and times
    aliases: dict[str, list[str]] = field(default_factory=dict)  # cast key → its other names
    people: set[str] = field(default_factory=set)  # titled names the narration writes
    relations: dict[tuple[str, str], str] = field(default_factory=dict)  # ('my', 'sister') → name
    usage: NameUsage = field(default_factory=NameUsage)  # how the book writes its names

    def is_person(self, name: str) -> bool:
        """False for a name that is a place or a time in this book ("LONDON", "TUESDAY")."""
        words = [w for w in name.split() if not re.fullmatch(TITLED, w.title())]
        return not words or not all(w.title() in self.places for w in words)

    def learn(self, paragraphs: list[str]) -> None:
        """Learn the book's names, their genders, the names its narration uses (a name only
        ever inside quotes, "Hello", is never taken for someone spoken to) and whether it
        marks speech with dashes (five paragraphs or more open with one, and fewer hold a
        quotation mark)."""
        dashed = sum(bool(DASH_SPEECH.match(p)) for p in paragraphs)
        self.dashes = dashed >= 5 and dashed > sum(bool(QUOTE.search(p)) for p in paragraphs)
        self.names = book_names(paragraphs)
        self.genders = book_genders(paragraphs, self.names)
        self.narrated = {
            word for p in paragraphs for word in re.findall(NAME_WORD, QUOTE.sub(" ", p))
        }
        self.places = places_and_times(paragraphs)
        if self.narrator_is is None:
            self.narrator_is = narrator_of(paragraphs, self.names)
        self.people = {
            name
            for p in paragraphs
            for name in names_in(QUOTE.sub(" ", p), self.names)
            if name.split()[0].rstrip(".").title() in _FAMILY_TITLES
        }
        self.relations = _appositions(paragraphs, self.names)
        self.usage = name_usage(paragraphs, self.names)
        for paragraph in paragraphs:
            for match in _TITLE_AND_NAME.finditer(QUOTE.sub(" ", paragraph)):
                if match.group(1).lower() in TITLE_NOUNS and is_name(match.group(2), self.names):
                    self.titled.setdefault(match.group(1).lower(), set()).add(
                        match.group(0).upper()
                    )


@dataclass
class _Conversation:
    """The run of dialogue paragraphs the chapter is in: who spoke in each, the last named
    speaker of each gender, and the speakers known in the chapter."""

    turns: list[str | None] = field(default_factory=list)
    recent: list[tuple[str, str]] = field(default_factory=list)  # (speaker, gender), newest last
    known: set[str] = field(default_factory=set)
    addressed: str | None = None  # whom the last quote addressed by name
    open_speech: list[ImportedLine] = field(
        default_factory=list
    )  # lines of a speech going on in the next paragraph
    narrated: list[str] = field(
        default_factory=list
    )  # names in the narration paragraph just before
    last_tagged: bool = False  # the last paragraph's quotes had a speech tag
    participants: list[str] = field(default_factory=list)  # the last two people who spoke
    introduced: str | None = None  # whom the narration paragraph just before leads in ("She says:")
    mentioned: list[str] = field(default_factory=list)  # names in the chapter's narration, in order
    stranger: str | None = None  # the gender ('m', 'f', '?') of someone unnamed who came in


def attribute_chapter(
    paragraphs: list[str], options: AttributionOptions
) -> tuple[list[ImportedLine], Counter]:
    """The chapter's lines (narration, and quotes with their speakers) and its counts:
    'quotes' and each rule's name (quote pieces), 'unattributed' (script lines) and 'said I'
    (quote pieces tagged "I said" left without a speaker, for want of `narrator_is`)."""
    stats: Counter = Counter()
    talk = _Conversation()
    lines: list[ImportedLine] = []
    for paragraph in paragraphs:
        if paragraph == BREAK:
            add_break(lines)
            talk.turns.clear()
            talk.stranger = None
            continue
        pieces = pieces_of(paragraph, options.dashes)
        quotes = [p for p in pieces if p.kind == "quote" and p.text.strip()]
        if not quotes:
            talk.narrated = names_in(paragraph, options.names)
            talk.mentioned += talk.narrated
            stranger = _stranger(paragraph, options)
            if stranger or any(not _among(n, talk.participants) for n in talk.narrated):
                talk.turns.clear()  # someone new: a new conversation may start
                talk.participants.clear()
            talk.stranger = stranger or talk.stranger
            talk.addressed = None
            talk.open_speech = []
            talk.introduced = _introduced(paragraph, talk, options)
            lines.append(ImportedLine(NARRATOR, paragraph))
            continue
        continued = talk.open_speech if not pieces[0].text.strip() else []
        if continued and continued[0].speaker != UNATTRIBUTED:
            quotes[0].speaker, quotes[0].rule = continued[0].speaker, "continued"
        _attribute_paragraph(pieces, talk, options, context=not continued)
        talk.introduced = None
        if any(q.rule in ("tag", "description") for q in quotes):
            talk.stranger = None  # someone is named: the newcomer, if any, has spoken or gone
        talk.mentioned += [
            name
            for piece in pieces
            if piece.kind == "narration" and not piece.tag
            for name in names_in(_ON_SOMEONE.sub("", piece.text), options.names)
        ]
        for quote in quotes:
            if quote.speaker and quote.confidence < options.min_confidence:
                quote.speaker = quote.rule = None  # the producer's threshold: a person decides
        if continued and talk.turns[-2:-1] == talk.turns[-1:]:
            talk.turns.pop()  # one speech over two paragraphs is one turn
        talk.narrated = []
        for quote in quotes:
            stats["quotes"] += 1
            if quote.rule:
                stats[quote.rule] += 1
            stats["said I"] += (
                quote.pronoun == "i" and not quote.speaker
            )  # --narrator-is would place it
        spoken = _paragraph_lines(pieces, options.keep_tags)
        if continued and quotes[0].rule in _TOLD and continued[0].rule not in _TOLD:
            for line in continued:  # the speech's speaker, told in a later paragraph of it
                stats["unattributed" if line.speaker == UNATTRIBUTED else line.rule] -= 1
                line.speaker, line.rule = quotes[0].speaker, "continued"
            stats["continued"] += len(continued)
        stats["unattributed"] += sum(line.speaker == UNATTRIBUTED for line in spoken)
        talk.open_speech = _open_speech(pieces, spoken, continued)
        lines += spoken
    return lines, +stats


def _open_speech(
    pieces: list[Piece], spoken: list[ImportedLine], continued: list[ImportedLine]
) -> list[ImportedLine]:
    """The lines of the speech a paragraph leaves open (its last quote never closes), with
    those of the paragraphs before it that the speech began in; [] when it closes."""
    if not pieces[-1].open:
        return []
    last = next(line for line in reversed(spoken) if line.speaker != NARRATOR)
    return [*continued, last] if len(pieces) == 2 and len(spoken) == 1 else [last]


def _stranger(paragraph: str, options: AttributionOptions) -> str | None:
    """The gender ('m', 'f', or '?' when unknown) of someone a narration paragraph brings in
    without naming them (the subject of a verb of coming or speaking, "a young lady came
    across the court-yard", "One of them says:", or what comes, "along comes a skiff with two
    men in it"), when no name follows in it; None otherwise ("he was an indolent man")."""
    found = None
    for match in _NEWCOMER.finditer(paragraph):
        before = re.split(r"[.!?;]\s", paragraph[: match.start()])[-1][-40:]
        if _PREDICATE.search(before):
            continue  # "he was an indolent man", "a match of affection, a good husband"
        if _ARRIVES.match(paragraph, match.end()) or _COMES.search(before):
            found = match
    if not found or names_in(paragraph[found.end() :], options.names):
        return None
    return PERSON_NOUNS.get(found.group(1) or "") or "?"


def _two_people(talk: _Conversation) -> bool:
    """True when the conversation going on is between two people: its turns with a known
    speaker name two people, no more."""
    people: list[str] = []
    for who in talk.turns:
        if who and not _among(who, people):
            people.append(who)
    return len(people) == 2 and len(talk.participants) == 2


def _among(name: str, people: list[str]) -> bool:
    """True when `name` is one of `people` (the same person, `same_person`)."""
    return any(same_person(name, who) for who in people)


def _introduced(text: str, talk: _Conversation, options: AttributionOptions) -> str | None:
    """The speaker that narration ending in a lead-in names ("She looked me all over, and
    says:", "Anna Pávlovna burst out:"): the first name of its last sentence (not one spoken
    to), else its pronoun ("I": the narrator; "he", "she": `_by_pronoun`); None when the
    narration does not end with a colon or a speech verb."""
    text = text.rstrip()
    if not (text.endswith(":") or re.search(rf"\b(?:{VERBS})[\s,]*$", text)):
        return None
    sentence = re.split(r"(?<=[.!?])\s+", text)[-1]
    named = names_in(_ON_SOMEONE.sub("", sentence), options.names)
    if named:
        return named[0]
    match = re.search(r"\b(I|[Hh]e|[Ss]he)\b", sentence)
    if not match:
        return None
    pronoun = match.group(1).lower()
    if pronoun == "i":
        return options.narrator_is
    return _by_pronoun("m" if pronoun == "he" else "f", sentence, talk, options)


def _by_description(
    description: tuple[str, str], before: str, talk: _Conversation, options: AttributionOptions
) -> str | None:
    """The speaker a description tag names: a title ("the prince") is the one character the
    book calls by it ("Prince Vasíli"), or one already speaking ("the King"); otherwise, in a
    conversation of two, the one who did not speak last (when the description's gender fits);
    else the one person of its gender the narration or the conversation points to
    (`_by_pronoun`), or, for a description without a gender ("the painter"), the one of the
    last two speakers who did not speak last; else, for "the woman", "the old lady", a
    character of that name."""
    owner, words = description
    head = description_head(words)
    for key in (words.upper(), head.upper()):
        if key in talk.known:
            return key
    related = options.relations.get((owner, words)) or _kin(owner, head, before, talk, options)
    if related:
        return related
    if head in TITLE_NOUNS and owner == "the":  # "his lady" is his wife, not Lady Lucas
        owners = options.titled.get(head, set())
        known = {who for who in owners if who in talk.known}
        for pool in (known, owners):
            if len(pool) == 1:
                return next(iter(pool))
    gender = PERSON_NOUNS.get(head)
    previous = talk.turns[-1] if talk.turns else None
    if _two_people(talk) and previous in talk.participants:
        other = talk.participants[0] if previous == talk.participants[1] else talk.participants[1]
        known = gender_of(other, options.genders)
        if gender is None or known == gender or (known is None and owner == "the"):
            return other
    if gender:
        found = _by_pronoun(gender, before, talk, options)
        if found and found != previous:
            return found
    else:  # "the painter": someone of the conversation, and not the one who spoke last
        others = [who for who in talk.participants if previous and not same_person(who, previous)]
        if len(others) == 1:
            return others[0]
    if owner == "the" and gender:  # "says the woman": someone the book has not named
        key = words.upper()
        if gender:
            options.genders.setdefault(key, gender)
        return key
    return None


def _kin(
    owner: str, head: str, before: str, talk: _Conversation, options: AttributionOptions
) -> str | None:
    """The person a kinship description names through its owner (the one who spoke last, when
    of the owner's gender, else `_by_pronoun`: "said his wife" after Mr. Bennet: MRS. BENNET;
    "cried her brother" after Miss Bingley: BINGLEY): the one person of
    the owner's surname, of the kin's gender (and of the family's title, "Mrs." for a wife),
    among the conversation's speakers, else among the titled names the narration writes."""
    if owner not in ("his", "her") or head not in _KIN:
        return None
    gender, title = _KIN[head]
    owner_gender = "m" if owner == "his" else "f"
    previous = talk.turns[-1] if talk.turns else None  # the kin answers the one who spoke
    if previous and gender_of(previous, options.genders) == owner_gender:
        whose = previous
    else:
        whose = _by_pronoun(owner_gender, before, talk, options)
    if not whose:
        return None
    surname = whose.split()[-1]
    if whose == surname and surname not in {n.split()[-1] for n in options.people}:
        return None  # "ELIZABETH": a first name, no family to look in
    for pool in (talk.known, options.people):
        kin = {
            who
            for who in pool
            if who.split()[-1] == surname
            and not same_person(who, whose)
            and gender_of(who, options.genders) == gender
            and (title is None or who.split()[0].rstrip(".").title() in (title, surname.title()))
        }
        if len(kin) == 1:
            return kin.pop()
        if kin:
            return None
    return None


def _attribute_paragraph(
    pieces: list[Piece], talk: _Conversation, options: AttributionOptions, context: bool = True
) -> None:
    """Give the paragraph's quotes their speakers: tags first, then (with `context`; not in a
    speech going on from the paragraph before) beats, vocatives and turn-taking."""
    for index, piece in enumerate(pieces):
        if piece.kind != "quote":
            continue
        after = pieces[index + 1].text if index + 1 < len(pieces) else ""
        before = pieces[index - 1].text if index else ""
        _by_tag(piece, after, before, talk, options)
        if after and is_tag_only(after):
            pieces[index + 1].tag = True
        elif index and re.search(rf"\b(?:{VERBS})[\s,:—–-]*$", before):
            pieces[index - 1].tag = is_tag_only(before)  # "Mrs. Bennet said only:"
            piece.tagged = True  # "…he withdrew his own and coldly said:": someone is named
    _within_paragraph(pieces, options)
    speakers = [p.speaker for p in pieces if p.kind == "quote" and p.speaker]
    quotes = [p for p in pieces if p.kind == "quote"]
    named_tag = any(p.tag for p in pieces) or any(q.tagged for q in quotes)
    named_tag = named_tag and not any(q.pronoun for q in quotes)
    named_tag = named_tag or any(q.description for q in quotes)
    if (
        context and not speakers and not named_tag
    ):  # "said her mother" names someone unnamed: left alone
        speaker, rule = _by_context(pieces, talk, options.names)
        pronouns = {q.pronoun for q in quotes if q.pronoun}
        if (
            speaker
            and pronouns
            and pronouns
            != {_PRONOUN_OF.get(gender_of(speaker, options.genders), pronouns.copy().pop())}
        ):
            speaker = rule = None  # "she said" for a man
        for piece in quotes:
            piece.speaker, piece.rule = speaker, rule
    spoken_to = _addressee(quotes, None, options)
    for quote in quotes:
        if quote.rule not in (None, "tag", "narrator") and same_person(quote.speaker, spoken_to):
            quote.speaker = quote.rule = None  # "…, dear Lizzy": not Lizzy speaking
    speaker = next((p.speaker for p in pieces if p.kind == "quote" and p.speaker), None)
    for quote in quotes:
        if quote.speaker:
            quote.confidence = CONFIDENCE.get(quote.rule, 0.5)
            other = _alternative(quote.speaker, talk, spoken_to)
            quote.candidates = [(quote.speaker, quote.confidence)] + (
                [(other, round(1 - quote.confidence, 2))] if other else []
            )
        else:
            quote.candidates = [(who, 0.5) for who in _guesses(talk)]
    talk.turns.append(speaker)
    for who in dict.fromkeys(q.speaker for q in quotes if q.speaker):
        if not _among(who, talk.participants):
            talk.participants = [*talk.participants, who][-2:]
    for who in dict.fromkeys(q.speaker for q in quotes if q.speaker):  # each speaker, in order
        talk.known.add(who)
        gender = gender_of(who, options.genders)
        if gender:
            talk.recent = [*(r for r in talk.recent if r[0] != who), (who, gender)][-RECENT:]
    talk.addressed = _addressee(quotes, speaker, options) or _told_to(pieces, speaker, options)
    talk.last_tagged = any(p.tag for p in pieces) or any(q.tagged or q.pronoun for q in quotes)


def _alternative(speaker: str, talk: _Conversation, spoken_to: str | None) -> str | None:
    """The second candidate for a quote given to `speaker`: the other one of the conversation,
    else the one spoken to, else the last other speaker."""
    for who in (*reversed(talk.participants), spoken_to, *reversed(talk.turns)):
        if who and not same_person(who, speaker):
            return who
    return None


def _guesses(talk: _Conversation) -> list[str]:
    """Two candidates for a quote no rule gave a speaker: the conversation's last two people."""
    return list(reversed(talk.participants))[:2]


def _by_tag(
    piece: Piece, after: str, before: str, talk: _Conversation, options: AttributionOptions
) -> None:
    name = tag_name(after, before, options.names)
    if name and options.is_person(name):
        piece.speaker, piece.rule = name, "tag"
        return
    pronoun = tag_pronoun(after, before)
    piece.pronoun = pronoun
    if not pronoun:
        piece.description = tag_description(after, before)
        if piece.description:
            found = _by_description(piece.description, before, talk, options)
            if found:
                piece.speaker, piece.rule = found, "description"
            return
        lead_in = before.rstrip().endswith(":") or re.search(rf"\b(?:{VERBS})[\s,—–-]*$", before)
        if lead_in:  # "…detained him with the words:", "Dorian looked at Lord Henry and said,"
            found = _introduced(before, talk, options)
            if found:
                piece.speaker, piece.rule = found, "introduced"
            return
    if pronoun == "i" and options.narrator_is:
        piece.speaker, piece.rule = options.narrator_is, "narrator"
    elif pronoun in ("he", "she"):
        found = _by_pronoun("m" if pronoun == "he" else "f", before, talk, options)
        if found:
            piece.speaker, piece.rule = found, "pronoun"


def _by_pronoun(
    gender: str, before: str, talk: _Conversation, options: AttributionOptions
) -> str | None:
    """The speaker a pronoun tag of `gender` points to: the one person of that gender whom the
    quote before addressed, else named in the narration just before the quote (in its
    paragraph, or the paragraph before), else among the chapter's recent speakers. The first
    of these that holds someone of that gender decides; two there leave it unresolved; after
    someone unnamed of that gender came in, the recent speakers are not looked at. With
    none of them, the character of that gender the chapter's narration named last."""
    narrated = names_in(_ON_SOMEONE.sub("", before), options.names) or talk.narrated
    for pool in (
        [talk.addressed] if talk.addressed else [],
        narrated,
        None,
        [who for who, _ in talk.recent],
    ):
        if pool is None:
            if talk.stranger in (gender, "?"):
                return None  # "he asked" after someone unnamed came in: maybe the newcomer
            continue
        fitting = {who for who in pool if gender_of(who, options.genders) == gender}
        if fitting:
            return fitting.pop() if len(fitting) == 1 else None
    for who in reversed(talk.mentioned):
        if gender_of(who, options.genders) == gender and options.is_person(who):
            return who
    return None


def _within_paragraph(pieces: list[Piece], options: AttributionOptions) -> None:
    """Quotes without a speaker take the speaker of a quote next to them in the paragraph when
    narration lies between and names nobody else, and never against their own pronoun tag
    ("Yes," she said. "No," he replied: two speakers)."""
    for _ in range(2):  # forwards, then backwards
        source = None
        for piece in pieces:
            if piece.kind == "narration" and not piece.text.strip():
                source = (
                    None  # quote upon quote ("I was going to—" "Don't," said Tom.): two speakers
                )
            elif (
                piece.kind == "narration"
                and not piece.tag
                and set(names_in(piece.text, options.names)) - {source and source.speaker}
            ):
                source = None
            elif piece.kind == "quote":
                if piece.speaker:
                    source = piece
                elif source and _may_share(piece, source, options.genders):
                    piece.speaker, piece.rule = source.speaker, "same paragraph"
        pieces.reverse()


def _may_share(quote: Piece, source: Piece, genders: dict[str, str]) -> bool:
    """True when `quote` may be spoken by `source`'s speaker: its pronoun tag, if any, is the
    source's own, or fits the speaker's gender."""
    if not quote.pronoun or quote.pronoun == source.pronoun:
        return True
    gender = gender_of(source.speaker, genders)
    return source.pronoun is None and gender is not None and quote.pronoun == _PRONOUN_OF[gender]


def _by_context(
    pieces: list[Piece], talk: _Conversation, names: set[str] | None
) -> tuple[str | None, str | None]:
    """The speaker of a paragraph whose quotes have no tag: a beat, a vocative, turn-taking."""
    named = {
        name
        for piece in pieces
        if piece.kind == "narration" and not piece.tag
        for name in names_in(piece.text, names)
    }
    beat = named & talk.known
    if len(beat) == 1 and len(named) == 1:
        return beat.pop(), "beat"
    if named:
        return None, None  # a new name: the conversation may have changed
    if talk.introduced:
        return talk.introduced, "introduced"
    previous = talk.turns[-1] if talk.turns else None
    if talk.addressed and not same_person(talk.addressed, previous):
        return talk.addressed, "vocative"
    if previous and _two_people(talk) and _among(previous, talk.participants):
        other = [who for who in talk.participants if not same_person(who, previous)]
        if len(other) == 1:
            return other[0], "turn-taking"  # two people talking: the other one answers
    if len(talk.turns) >= 2 and talk.turns[-2] and previous is None and not talk.last_tagged:
        return talk.turns[-2], "turn-taking"  # A, an untagged reply, A
    return None, None


def _addressee(quotes: list[Piece], speaker: str | None, options: AttributionOptions) -> str | None:
    """The name the paragraph's quotes speak to ("…, Lizzy?"), in capitals, or None."""
    for quote in quotes:
        for match in VOCATIVE.finditer(quote.text):
            name = match.group(1)
            if match.start() == 0 and quote.text[match.end() :].strip() in (".", "!", "?", ""):
                continue  # "Bingley." answers, "Mr. Darcy!" exclaims: no one is spoken to
            if (
                is_name(name, options.names)
                and not same_person(name.upper(), speaker)
                and (not options.narrated or name.split()[-1] in options.narrated)
            ):
                return name.upper()
    return None


def _told_to(pieces: list[Piece], speaker: str | None, options: AttributionOptions) -> str | None:
    """The person the paragraph's narration turns the speech to ("asked Lord Henry, walking
    across the studio towards Basil Hallward", "turning to Alice"), in capitals, or None."""
    for piece in pieces:
        if piece.kind != "narration":
            continue
        for match in _ON_SOMEONE.finditer(piece.text):
            name = match.group(1)
            if (
                is_name(name, options.names)
                and options.is_person(name)
                and not same_person(name.upper(), speaker)
            ):
                return name.upper()
    return None


def _paragraph_lines(pieces: list[Piece], keep_tags: bool) -> list[ImportedLine]:
    """Lines of an attributed paragraph: quotes of one speaker separated only by their tags
    joined into one line, each tag after that line (kept or left out), other narration in place."""
    lines: list[ImportedLine] = []
    tags: list[str] = []

    def flush_tags():
        if tags and keep_tags:
            lines.append(ImportedLine(NARRATOR, " ".join(tags)))
        tags.clear()

    open_quote: ImportedLine | None = None
    pronoun = (
        None  # the pronoun tag of the open quote: "she said" and "he replied" are two speeches
    )
    ended = False  # the last tag ended its sentence
    for piece in pieces:
        text = piece.text.strip()
        if piece.kind == "quote":
            speaker = piece.speaker or UNATTRIBUTED
            if (
                open_quote
                and open_quote.speaker == speaker
                and (speaker != UNATTRIBUTED or tags)
                and piece.pronoun in (None, pronoun)
            ):
                open_quote.text = _joined(open_quote.text, text, ended)
                continue
            flush_tags()
            open_quote = ImportedLine(
                speaker,
                text,
                rule=piece.rule,
                confidence=piece.confidence if piece.speaker else None,
                candidates=piece.candidates or None,
            )
            pronoun = piece.pronoun
            lines.append(open_quote)
        elif piece.tag and open_quote:  # "…," he remarked. "…": one speech, the tag after it
            tags.append(_tag_words(text))
            ended = text.endswith((".", "!", "?"))
        elif text.strip(" ,;:—–-"):
            flush_tags()
            open_quote = None
            lines.append(ImportedLine(NARRATOR, text.strip(" ,;:—–-").strip()))
    flush_tags()
    for line in lines:
        if line.speaker != NARRATOR and line.text.endswith(","):  # "Coming," said Elizabeth.
            line.text = line.text[:-1] + "."
    return [line for line in lines if line.text]


def _joined(first: str, second: str, sentence_ended: bool) -> str:
    """Two pieces of one speech as one text: where the tag between them ended a sentence
    ("Thank you," Watson replied. "It is cold."), the first piece's comma becomes a full stop;
    where the first piece is only the subject of a sentence the second goes on with ("I," he
    said, "am here."), the comma the tag needed goes."""
    if sentence_ended and first.endswith(",") and second[:1].isupper():
        first = first[:-1] + "."
    elif first.endswith(",") and first[:-1] in _SUBJECTS and second[:1].islower():
        first = first[:-1]
    return f"{first} {second}"


_SUBJECTS = {"I", "We", "You", "He", "She", "They", "It", "This", "That"}


def _tag_words(text: str) -> str:
    """A speech tag as narration: its punctuation at the edges trimmed, one full stop at the end."""
    words = text.strip(" ,;:—–-")
    return words if words.endswith((".", "!", "?")) else words + "."


def same_person(one: str | None, other: str | None) -> bool:
    """True when two speaker names are one character: equal, one a familiar form of the other
    ("LIZZY", "ELIZABETH"), or one the other without its title ("DARCY", "MR. DARCY")."""
    if not one or not other:
        return False
    if one == other:
        return True
    a, b = one.split(), other.split()
    if (
        FAMILIAR.get(one.lower(), "").upper() == other
        or FAMILIAR.get(other.lower(), "").upper() == one
    ):
        return True
    return (len(a) == 1 and a[0] in b[1:]) or (len(b) == 1 and b[0] in a[1:])
