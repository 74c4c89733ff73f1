"""Quoted speech in novels: quotes found in paragraphs and given to their speakers.

Rules, in the order they are tried for each quote (each counted in the import report):

* `tag`: a speech tag beside the quote naming a character, in either order ("said Holmes",
  "Holmes said", "cried Mrs. Bennet", "replied Elizabeth coolly", "hissed Holmes");
* `narrator`: "said I" (or "I said") when the first-person narrator is named (`narrator_is`);
* `continued`: a paragraph going on with the speech the paragraph before left open has its
  speaker (`manuscript.attribution`);
* `pronoun`: "he said" / "said she": the one person of that gender whom the quote before
  addressed, else named in the narration just before, else among the last three named
  speakers of the chapter (gender from titles: Mr, Sir, Lord… or Mrs, Miss, Lady…, else from
  the pronouns that follow the name in the book, else from the titles of a bare surname;
  unknown gender never resolves);
* `same paragraph`: a quote in a paragraph whose other quote has a speaker, with no other
  name in the narration between (one speaker per paragraph, as novels print dialogue);
* `beat`: the narration of the paragraph names one speaker already known ("Elizabeth smiled.");
* `vocative`: the quote right before, of another speaker, addresses a known speaker by name
  ("…, Mr. Darcy?"): that speaker answers;
* `turn-taking`: in a run of dialogue paragraphs between two speakers (no narration-only
  paragraph between), the speaker who did not speak last.

Other quotes go to UNATTRIBUTED. A quote split by its tag (`"Wedlock suits you," he
remarked. "I think…"`) is one line of one speaker; the tag stays narration after the line
(`keep_tags`), or is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from drama_cli.manuscript.cast_names import FAMILIAR

SPEECH_VERBS = (
    "said",
    "says",
    "asked",
    "asks",
    "cried",
    "replied",
    "answered",
    "returned",
    "whispered",
    "shouted",
    "called",
    "continued",
    "remarked",
    "exclaimed",
    "observed",
    "muttered",
    "added",
    "began",
    "repeated",
    "murmured",
    "told",
    "demanded",
    "snapped",
    "rejoined",
    "resumed",
    "inquired",
    "enquired",
    "responded",
    "retorted",
    "urged",
    "interrupted",
    "declared",
    "explained",
    "pursued",
    "thought",
    "went on",
    "persisted",
    "protested",
    "sighed",
    "laughed",
    "insisted",
    "suggested",
    "admitted",
)
TITLED = r"(?:Mr|Mrs|Ms|Miss|Dr|Sir|Lady|Lord|Captain|Colonel|Professor|General|Madam)\b\.?"
MALE_TITLES = {"MR", "SIR", "LORD", "CAPTAIN", "COLONEL", "GENERAL", "DR", "PROFESSOR"}
FEMALE_TITLES = {"MRS", "MISS", "LADY", "MS", "MADAM"}
# A capitalised word of a name, accented letters included (Zoë, José, Émile), and Irish or
# French prefixes (O'Brien, D’Arcy).
NAME_WORD = r"(?:[A-Z][’'])?[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+"
NAME = rf"((?:{TITLED}\s+)?{NAME_WORD}(?:\s+{NAME_WORD})?)"
PRONOUN = r"(he|she|I)"
VERBS = "|".join(SPEECH_VERBS)
_ADVERB = r"(?:\w+ly\s+)?"
# Right after a quote, a verb beside a name is a tag, whatever the verb ("hissed Holmes",
# "Holmes hissed").
_INVERTED_VERB = rf"(?:{VERBS}|[a-z]{{3,}}ed)"
# A character named by a capitalised description takes "the" ("said the Hatter", "the March Hare
# replied"): the key is the description's words.
_THE = r"(?:[Tt]he\s+)?"
_AFTER = [
    re.compile(rf"^[\s,;:—–-]*{_INVERTED_VERB}\s+{_THE}{NAME}\b"),  # said Holmes
    re.compile(rf"^[\s,;:—–-]*{_THE}{NAME}\s+{_ADVERB}{_INVERTED_VERB}\b"),
]  # Holmes said
_AFTER_PRONOUN = [
    re.compile(rf"^[\s,;:—–-]*(?:{VERBS})\s+{PRONOUN}\b"),
    re.compile(rf"^[\s,;:—–-]*{PRONOUN}\s+{_ADVERB}(?:{VERBS})\b"),
]
_BEFORE = [
    re.compile(rf"{NAME}\s+{_ADVERB}(?:{VERBS})[\s,:—–-]*$"),
    re.compile(rf"\b(?:{VERBS})\s+{_THE}{NAME}[\s,:—–-]*$"),
]
_BEFORE_PRONOUN = [
    re.compile(rf"\b([Hh]e|[Ss]he|I)\s+{_ADVERB}(?:{VERBS})[\s,:—–-]*$"),
    re.compile(rf"\b(?:{VERBS})\s+{PRONOUN}[\s,:—–-]*$"),
]
# A person named by what they are ("said the prince", "his wife replied", "continued our strange
# visitor"): the nouns a description's head may be, with the gender each tells (None: either).
PERSON_NOUNS = {
    **dict.fromkeys(
        "woman lady girl wife mother sister daughter aunt niece widow maid mistress hostess "
        "princess queen duchess countess baroness grandmother landlady housekeeper nurse".split(),
        "f",
    ),
    **dict.fromkeys(
        "man gentleman boy husband father brother son uncle nephew prince king duke count "
        "baron lord grandfather landlord footman butler priest clergyman vicomte abbé "
        "squire master fellow".split(),
        "m",
    ),
    **dict.fromkeys(
        "painter artist visitor companion stranger friend guest host doctor inspector "
        "lawyer officer soldier servant child colonel captain general professor judge "
        "detective sergeant constable driver coachman clerk old young elder younger "
        "other first second".split(),
        None,
    ),
}
# Heads that are titles: "the prince" is the one character the book calls "Prince …".
TITLE_NOUNS = {
    "prince", "princess", "king", "queen", "duke", "duchess", "count", "countess", "baron",
    "baroness", "lord", "lady", "doctor", "inspector", "colonel", "captain", "general",
    "professor", "judge", "sergeant", "abbé", "vicomte",
}  # fmt: skip
_OWNER = r"(the|his|her|their|our|my|its|your)"
_PHRASE = r"((?:[a-zà-ÿ]+\s+){0,2}[a-zà-ÿ]+)"
_DESCRIPTION_AFTER = [
    re.compile(rf"^[\s,;:—–-]*(?:{VERBS})\s+{_OWNER}\s+{_PHRASE}(?=[\s,;:.!?—–-]|$)"),
    re.compile(rf"^[\s,;:—–-]*{_OWNER}\s+{_PHRASE}\s+{_ADVERB}(?:{VERBS})\b"),
]
_DESCRIPTION_BEFORE = [
    re.compile(rf"\b(?i:{_OWNER})\s+{_PHRASE}\s+{_ADVERB}(?:{VERBS})[\s,:—–-]*$"),
    re.compile(rf"\b(?:{VERBS})\s+{_OWNER}\s+{_PHRASE}[\s,:—–-]*$"),
]
# A name spoken to: after the quote's start or a comma and before a comma, "!" or "?"
# ("Mr. Bennet, how can you…", "…, Lizzy?"), or after a comma at the quote's end.
VOCATIVE = re.compile(rf"(?:^|(?<=[,!?;—])\s*)(?:(?i:my\s+)?(?i:dear)\s+)?{NAME}(?=\s*[,!?]|\.$)")
# Double quotes (curly or straight), guillemets (« French », »German«), and single quotes
# (curly or straight) that open after a space or the start and close before a space,
# punctuation or the end: an apostrophe between letters (don't, don’t) or of a plural
# possessive before a word ('The boys' books…') stays inside, and one that ends a word
# (Holmes' hat) opens nothing.
# A quote never holds its own opening mark, so a paragraph of marks that never close is read
# in linear time.
QUOTE = re.compile(
    r"“([^“”]*)”|\"([^\"]*)\"|«\s*([^«»]*?)\s*»|»([^«»]*)«"
    r"|(?<![\w‘’'])‘((?:[^‘’]|(?<=\w)’(?=\w)|(?<=s)’(?=\s+[a-z]))+?)(?:(?<!s)’|(?<=s)’(?!\s+[a-z]))(?![\w’])"
    r"|(?<![\w'’])'((?:[^']|(?<=\w)'(?=\w)|(?<=s)'(?=\s+[a-z]))+?)(?:(?<!s)'|(?<=s)'(?!\s+[a-z]))(?![\w'])"
)
# A paragraph opening with an em dash or a quotation dash, as some books mark speech.
DASH_SPEECH = re.compile(r"^\s*[—―]\s*(?=\S)")
_INSIDE_SENTENCE = re.compile(r"[,.!?…;:—–]")  # a quote holding none of these reads as a title
NOT_A_NAME = {
    "The",
    "He",
    "She",
    "It",
    "They",
    "We",
    "I",
    "You",
    "His",
    "Her",
    "This",
    "That",
    "Then",
    "But",
    "And",
    "When",
    "What",
    "Yes",
    "No",
    "Oh",
    "Well",
    "There",
    "Here",
    "So",
    "Now",
    "If",
    "As",
    "At",
    "In",
    "On",
    "My",
    "Your",
    "Our",
    "Their",
    "Why",
    "How",
    "Ah",
    "Aye",
    "Nay",
    "Alas",
    "Pray",
    "Indeed",
    "God",
    "Heaven",
    "Heavens",
    "Dear",
    "Good",
    "La",
    "Lord",
}
_NAMES_IN = re.compile(rf"\b{NAME}")
_NAME_WORD = re.compile(NAME_WORD)
_WORD = re.compile(rf"{NAME_WORD}|[^\W\d_]+")  # a name's word, or any other word
# A capitalised word inside a sentence: after a word in lower case ("said the Hatter").
_INSIDE = re.compile(rf"\b[a-z]+\s+({NAME_WORD})\b")
NAME_LEAST = 5  # a word the book writes in lower case too is a name when written capitalised
NAME_RATIO = 5  # inside sentences this often, and this many times as often as in lower case
_TITLE_WORD = re.compile(rf"\b{TITLED}")
_TAG_CLAUSE = re.compile(
    rf"{_INVERTED_VERB}\s+{NAME}|(?:{VERBS})\b|(?:\w+\.?\s+){{1,3}}{_ADVERB}(?:{VERBS})\b"
)
RULES = (
    "tag",
    "narrator",
    "continued",
    "introduced",
    "description",
    "pronoun",
    "same paragraph",
    "beat",
    "vocative",
    "turn-taking",
)


@dataclass
class Piece:
    """A paragraph's piece: narration or a quote, with the speaker found for a quote."""

    kind: str
    text: str
    speaker: str | None = None
    rule: str | None = None
    tag: bool = False  # narration that is only the speech tag of a quote beside it
    pronoun: str | None = None  # a quote's pronoun tag ('he', 'she', 'i')
    tagged: bool = False  # a quote the narration before introduces with a speech verb
    open: bool = False  # a quote that the paragraph never closes: the speech goes on in the next
    description: tuple[str, str] | None = None  # a tag's description: ('the', 'prince')
    confidence: float = 0.0  # how sure the rule that found the speaker is, 0..1
    candidates: list[tuple[str, float]] | None = None  # the best two speakers, with confidences


def pieces_of(paragraph: str, dashes: bool = False) -> list[Piece]:
    """The paragraph as alternating narration and quote pieces; a quoted title inside a
    sentence ("She had read "The Times".") stays in its narration. A double quote the
    paragraph opens and never closes makes the rest of it a quote marked `open` (a speech
    going on in the next paragraph), quotes nested in it included. With `dashes` (a book that
    marks speech with a dash), a paragraph opening with a dash is speech (`_dash_pieces`)."""
    if dashes and DASH_SPEECH.match(paragraph):
        return _dash_pieces(DASH_SPEECH.sub("", paragraph, count=1))
    pieces: list[Piece] = []
    opened = _open_quote_at(paragraph)
    end = len(paragraph) if opened is None else opened
    last = 0
    for match in QUOTE.finditer(paragraph, 0, end):
        quote = next(group for group in match.groups() if group is not None)
        before, after = paragraph[last : match.start()], paragraph[match.end() :]
        titled = _quoted_words(quote, before, after)
        narration = before + (match.group(0) if titled else "")
        if pieces and pieces[-1].kind == "narration":
            pieces[-1].text += narration
        else:
            pieces.append(Piece("narration", narration))
        if not titled:
            pieces.append(Piece("quote", quote))
        last = match.end()
    if pieces and pieces[-1].kind == "narration":
        pieces[-1].text += paragraph[last:end]
    else:
        pieces.append(Piece("narration", paragraph[last:end]))
    if opened is not None:
        pieces.append(Piece("quote", paragraph[opened + 1 :].strip(), open=True))
    return pieces


def _dash_pieces(text: str) -> list[Piece]:
    """Pieces of a dash-led speech ("—Good morning, said Stephen."): the speech up to a speech
    tag after its comma or sentence mark, the tag, and what follows it, speech again when it
    opens with a dash, else narration."""
    for mark in re.finditer(r"(?<=[,.!?…])\s+", text):
        after = text[mark.end() :]
        clause = re.match(r"[^.!?—―]*[.!?]?", after).group(0)
        if (tag_name(" " + after, "") or tag_pronoun(" " + after, "")) and is_tag_only(clause):
            pieces = [
                Piece("narration", ""),
                Piece("quote", text[: mark.start()]),
                Piece("narration", " " + clause),
            ]
            rest = after[len(clause) :].strip()
            if DASH_SPEECH.match(rest):
                pieces.append(Piece("quote", DASH_SPEECH.sub("", rest, count=1)))
            elif rest:
                pieces[-1].text += " " + rest
            return pieces
    return [Piece("narration", ""), Piece("quote", text)]


def _open_quote_at(paragraph: str) -> int | None:
    """Where the paragraph opens a double quote it never closes (a curly “ with no ” after it,
    or the last of an odd number of straight quotes, at a word's start), else None."""
    at = paragraph.rfind("“")
    if at < 0 or "”" in paragraph[at:]:
        at = paragraph.rfind('"') if paragraph.count('"') % 2 else -1
    opens = at >= 0 and (at == 0 or not paragraph[at - 1].isalnum()) and paragraph[at + 1 :].strip()
    return at if opens else None


def _quoted_words(quote: str, before: str, after: str) -> bool:
    """A quote that is words named inside a sentence: no speech tag beside it, no comma or
    sentence mark inside, and the sentence going on before and after it."""
    if _INSIDE_SENTENCE.search(quote) or tag_name(after, before):
        return False
    if re.search(rf"\b(?:{VERBS})\W*$", before) or re.match(rf"\W*(?:\w+\s+)?(?:{VERBS})\b", after):
        return False  # he said "yes": speech
    return (
        bool(before.strip())
        and not before.rstrip().endswith((".", "!", "?", ":", "…"))
        and bool(after.strip())
        and not after.lstrip().startswith((",", ";", ":", "—", "–"))
    )


def is_name(name: str, names: set[str] | None = None) -> bool:
    """True when a capitalised match of NAME is a person's name: titled ("Mr. Bennet"), or its
    first word is in `names` (the book's names, `book_names`), or without `names` not a
    common sentence opener."""
    first = name.split()[0]
    if re.fullmatch(TITLED, first):
        return len(name.split()) > 1  # a title alone ("Sir,") names nobody
    return first in names if names is not None else first not in NOT_A_NAME


def tag_name(after: str, before: str, names: set[str] | None = None) -> str | None:
    """The name of a speech tag right after a quote or ending the narration before it, in
    capitals; None when there is none."""
    for pattern in _AFTER:
        match = pattern.match(after)
        if match and is_name(match.group(1), names):
            return match.group(1).upper()
    for pattern in _BEFORE:
        match = pattern.search(before)
        if match and is_name(match.group(1), names):
            return match.group(1).upper()
    return None


def tag_pronoun(after: str, before: str) -> str | None:
    """'he', 'she' or 'i' of a pronoun speech tag beside a quote, None without one."""
    for pattern in _AFTER_PRONOUN:
        match = pattern.match(after)
        if match:
            return match.group(1).lower()
    for pattern in _BEFORE_PRONOUN:
        match = pattern.search(before)
        if match:
            return match.group(1).lower()
    return None


def tag_description(after: str, before: str) -> tuple[str, str] | None:
    """(owner, words) of a speech tag naming someone by a description beside a quote ("said
    the prince" → ('the', 'prince'), "his wife replied" → ('his', 'wife'), "continued our
    strange visitor" → ('our', 'strange visitor')): the words end at the first person noun
    (`PERSON_NOUNS`); None when there is no such tag."""
    for patterns, text, first in (
        (_DESCRIPTION_AFTER, after, True),
        (_DESCRIPTION_BEFORE, before, False),
    ):
        for pattern in patterns:
            match = pattern.match(text) if first else pattern.search(text)
            if not match:
                continue
            words = match.group(2).split()
            for end, word in enumerate(words):
                if word in PERSON_NOUNS and not (
                    end + 1 < len(words) and words[end + 1] in PERSON_NOUNS
                ):
                    return match.group(1).lower(), " ".join(words[: end + 1])
    return None


def description_head(words: str) -> str:
    """The person noun a description ends with ("strange visitor" → 'visitor')."""
    return words.split()[-1]


def is_tag_only(narration: str) -> bool:
    """Narration that is nothing but a speech tag: a clause led by a speech verb or by its
    speaker and verb ("said Holmes;", "he remarked.", "said his lady to him one day"), of at
    most twelve words and one sentence."""
    text = narration.strip(" ,;:—–-")
    words = text.split()
    sentence = _TITLE_WORD.sub("Title", text).rstrip(".!?")
    if not words or len(words) > 12 or re.search(r"[.!?]\s", sentence):
        return False
    return bool(_TAG_CLAUSE.match(text))


def names_in(text: str, names: set[str] | None = None) -> list[str]:
    """Names in narration (titles kept), in capitals, in order (`is_name`)."""
    return [m.group(1).upper() for m in _NAMES_IN.finditer(text) if is_name(m.group(1), names)]


def book_names(paragraphs: list[str]) -> set[str]:
    """The words that are names in this book: capitalised and never written in lower case, or
    written capitalised inside a sentence (after a word in lower case: "said the Hatter") at
    least NAME_LEAST times and NAME_RATIO times as often as in lower case anywhere (the
    Hatter is a name though he says "I'm a hatter" once)."""
    lower: Counter = Counter()
    capitalised, inside = set(), Counter()
    for paragraph in paragraphs:
        for word in _WORD.findall(paragraph):
            if _NAME_WORD.fullmatch(word):
                capitalised.add(word)
            else:
                lower[word] += 1
        inside.update(_INSIDE.findall(paragraph))
    return {
        word
        for word in capitalised
        if word not in NOT_A_NAME
        and not _participle(word, lower)
        and (
            word.lower() not in lower
            or (inside[word] >= NAME_LEAST and inside[word] >= NAME_RATIO * lower[word.lower()])
        )
    }


def _participle(word: str, lower: set[str]) -> bool:
    """True for a verb's -ing form opening a sentence ("Observing his daughter, he…"): the
    book writes the verb in lower case ("observe", "observed"); "King" and "Darling" are no verb."""
    stem = word[:-3].lower()
    return word.endswith("ing") and any(
        form in lower
        for form in (stem, stem + "e", stem + "ed", stem + "s", stem + "es", word.lower())
    )


def gender_of(name: str, genders: dict[str, str]) -> str | None:
    """'m', 'f' or None for a speaker key: from its title, else from `genders` (a familiar
    form, "LIZZY", has the gender of its full name)."""
    if not name.split():
        return None
    title = name.split()[0].rstrip(".")
    if title in MALE_TITLES:
        return "m"
    if title in FEMALE_TITLES:
        return "f"
    return genders.get(name) or genders.get(FAMILIAR.get(name.lower(), "").upper())


_AFTER_TITLE = re.compile(rf"\b{TITLED}\s+$")
_QUOTE_MARK = re.compile(r"[“”\"]")  # "Nastasya, take it," he said: his words are past a quote


def book_genders(paragraphs: list[str], names: set[str] | None = None) -> dict[str, str]:
    """Name (capitals) → 'm' or 'f', from the pronouns in the six words after each mention
    (not past a quotation mark; a bare name right after a title is the titled name's), where
    one gender outnumbers the other two to one in at least three mentions, or is the only one
    in two or more; a name without such pronouns takes the gender of the titles written before
    it ("DARCY" from "Mr. Darcy") where one gender's titles outnumber the other's four to one."""
    counts: dict[str, Counter] = {}
    titled: dict[str, Counter] = {}
    for paragraph in paragraphs:
        for match in _NAMES_IN.finditer(paragraph):
            if not is_name(match.group(1), names):
                continue
            name = match.group(1).upper()
            if _AFTER_TITLE.search(paragraph, 0, match.start()):
                continue  # "While Mrs. Joe sat": Mrs. Joe's pronouns, not Joe's
            title = gender_of(name, {})
            if title and len(name.split()) > 1:
                titled.setdefault(name.split()[-1], Counter())[title] += 1
            window = _QUOTE_MARK.split(paragraph[match.end() : match.end() + 60])[0]
            following = re.findall(r"\w+", window.lower())[:6]  # not past a quotation mark
            he = sum(word in ("he", "his", "him", "himself") for word in following)
            she = sum(word in ("she", "her", "hers", "herself") for word in following)
            if he != she:
                counts.setdefault(name, Counter())["m" if he > she else "f"] += 1
    genders = {
        name: top
        for name, top in ((name, _majority(count, 3, 4)) for name, count in titled.items())
        if top
    }
    genders |= {
        name: top
        for name, top in ((name, _majority(count, 3, 2)) for name, count in counts.items())
        if top
    }
    genders |= {  # a name seldom followed by a pronoun: twice or more, and never the other's
        name: top
        for name, count in counts.items()
        if name not in genders and len(count) == 1
        for top, n in count.items()
        if n >= 2
    }
    return genders


def _majority(count: Counter, least: int, ratio: int) -> str | None:
    """The most counted key when it was counted at least `least` times and `ratio` times as
    often as all the others together, else None."""
    ((top, n),) = count.most_common(1)
    return top if n >= least and n >= ratio * (sum(count.values()) - n) else None
