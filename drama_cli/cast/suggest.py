"""Library voices proposed for a cast: every character without a voice gets the library voice
whose tags and description fit what the cast says of them best, and never the voice of another
character who speaks in one of their scenes; the narrator's voice is no one else's.

What is known of a character: `gender:` (an import writes it from titles and the pronouns of
speech tags), and the gender, age and accent words of its `description:` and name ("MRS.",
"an old man", "Scottish"). What is known of a voice: its tags and description. A proposal's
score adds GENDER_SCORE when the genders agree and subtracts it when they differ, AGE_SCORE
for an age word in common, ACCENT_SCORE for an accent, WORD_SCORE for each other word in
common. Characters are cast in order (the narrator, then most lines first); each takes the
free voice of the highest score, a voice used less often so far first on a tie, then by name.
The same script and library always give the same proposals.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from drama_cli.script.book import UNATTRIBUTED
from drama_cli.script.document import CastMember, Script
from drama_cli.script.voice_library import LibraryVoice

GENDER_SCORE = 4
AGE_SCORE = 2
ACCENT_SCORE = 2
WORD_SCORE = 1

# word -> gender; a cast's or a voice's word, a name's title, a tag
GENDER_WORDS = {
    **dict.fromkeys(
        "female f woman women girl lady mother wife sister daughter aunt maid housemaid "
        "mrs mrs. miss ms ms. madam queen duchess countess feminine".split(),
        "female",
    ),
    **dict.fromkeys(
        "male m man men boy gentleman father husband brother son uncle "
        "mr mr. sir lord king duke count masculine".split(),
        "male",
    ),
}
# age word -> age band
AGE_WORDS = {
    **dict.fromkeys("child kid boy girl 10s teen teens teenage teenager".split(), "child"),
    **dict.fromkeys("young youth youthful 20s twenties 30s thirties".split(), "young"),
    **dict.fromkeys("middle-aged 40s forties forty 50s fifties fifty mature".split(), "middle"),
    **dict.fromkeys(
        "old elderly aged 60s sixties sixty 70s seventies seventy 80s ancient".split(), "old"
    ),
}
ACCENTS = frozenset(
    "american australian british cockney english french german irish italian "
    "london northern rp russian scottish scots southern spanish welsh yorkshire "
    "west-country received-pronunciation".split()
)
# words that say nothing of a voice (pronouns in a description are often someone else's:
# "his wife")
IGNORED = frozenset(
    "a an the of and or with in to he she him his her their who is as at on for from by "
    "voice".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9.'-]*")


@dataclass(frozen=True)
class Traits:
    """What is known of a character or a voice: gender ("female", "male" or None), age band
    ("child", "young", "middle", "old" or None), accents, and every other word (lower case)."""

    gender: str | None
    age: str | None
    accents: frozenset[str]
    words: frozenset[str]


@dataclass(frozen=True)
class Proposal:
    """One character's proposal: the library voice (None when no voice was free), its score
    and the reasons, as short phrases ("female", "old", "Scottish", "warm", "no other voice
    free")."""

    character: str
    voice: str | None
    score: int
    reasons: tuple[str, ...]


def words_of(text: str) -> list[str]:
    """The lower-case words of `text`, "Received Pronunciation" and "West Country" as one."""
    text = text.lower().replace("received pronunciation", "received-pronunciation")
    text = text.replace("west country", "west-country").replace("middle aged", "middle-aged")
    return [w.rstrip(".'") if w not in GENDER_WORDS else w for w in _WORD.findall(text)]


def traits_of(words: list[str], gender: str | None = None) -> Traits:
    """The traits `words` tell (the first gender and age words win); `gender` given wins."""
    gender = GENDER_WORDS.get(gender or "", gender) if gender else None
    genders = [GENDER_WORDS[w] for w in words if w in GENDER_WORDS]
    ages = [AGE_WORDS[w] for w in words if w in AGE_WORDS]
    return Traits(
        gender or (genders[0] if genders else None),
        ages[0] if ages else None,
        frozenset(w for w in words if w in ACCENTS),
        frozenset(
            w
            for w in words
            if w not in GENDER_WORDS and w not in AGE_WORDS and w not in ACCENTS
            if w not in IGNORED and len(w) > 2
        ),
    )


def character_traits(member: CastMember) -> Traits:
    """A cast member's traits: its `gender:`, then its description's words, then its name's
    ("MRS. LINDE", "PORTER", "NARRATOR")."""
    words = words_of(member.description or "") + words_of(member.name)
    return traits_of(words, member.gender)


def voice_traits(voice: LibraryVoice) -> Traits:
    """A library voice's traits: its tags and description."""
    return traits_of(words_of(", ".join(voice.tags) + " " + (voice.description or "")))


def fit(character: Traits, voice: Traits) -> tuple[int, list[str]]:
    """The score of `voice` for `character` and its reasons."""
    score, reasons = 0, []
    if character.gender and voice.gender:
        agree = character.gender == voice.gender
        score += GENDER_SCORE if agree else -GENDER_SCORE
        reasons.append(character.gender if agree else f"{voice.gender}, not {character.gender}")
    if character.age and character.age == voice.age:
        score += AGE_SCORE
        reasons.append(character.age)
    for accent in sorted(character.accents & voice.accents):
        score += ACCENT_SCORE
        reasons.append(accent.replace("-", " "))
    for word in sorted(character.words & voice.words):
        score += WORD_SCORE
        reasons.append(word)
    return score, reasons


def scene_partners(script: Script) -> dict[str, set[str]]:
    """Cast name → the cast names who speak in a scene with it (the narrator: everyone)."""
    partners: dict[str, set[str]] = {name: set() for name in script.cast}
    for scene in script.scenes:
        speakers = {s for line in scene.lines for s in line.speakers() if s in partners}
        for name in speakers:
            partners[name] |= speakers - {name}
    if script.narrator in partners:
        others = set(partners) - {script.narrator}
        partners[script.narrator] = others
        for name in others:
            partners[name].add(script.narrator)
    return partners


def needs_voice(member: CastMember) -> bool:
    """A member without a clip, a library voice or a design (UNATTRIBUTED never needs one)."""
    return member.name != UNATTRIBUTED and not (
        member.references or member.library_voice or member.design
    )


def suggest(script: Script, voices: list[LibraryVoice]) -> list[Proposal]:
    """A proposal for every member that `needs_voice`, in cast order (see the module)."""
    partners = scene_partners(script)
    lines = Counter(s for scene in script.scenes for line in scene.lines for s in line.speakers())
    chosen: dict[str, str] = {
        name: member.library_voice for name, member in script.cast.items() if member.library_voice
    }
    used = Counter(chosen.values())
    wanting = [m for m in script.cast.values() if needs_voice(m)]
    order = sorted(wanting, key=lambda m: (m.name != script.narrator, -lines[m.name]))
    proposals = {}
    for member in order:
        taken = {chosen[p] for p in partners.get(member.name, ()) if p in chosen}
        traits = character_traits(member)
        ranked = sorted(
            (
                (-score, used[voice.name], voice.name, reasons)
                for voice in voices
                if voice.name not in taken
                for score, reasons in [fit(traits, voice_traits(voice))]
            ),
        )
        if not ranked:
            proposals[member.name] = Proposal(member.name, None, 0, ("no other voice free",))
            continue
        score, _, name, reasons = ranked[0]
        chosen[member.name] = name
        used[name] += 1
        proposals[member.name] = Proposal(member.name, name, -score, tuple(reasons))
    return [proposals[m.name] for m in wanting]
