"""The words a line speaks, in the forms they are compared in, and a word heard in a take.

Every form starts from the tag grammar of `engine.text`: `model_words` (model text without
speaker tags, to tell whether a take says a line), `spoken_tokens` / `spoken_words` (the words
of a script line as written and normalised, for edits), `wer_words` (what the word error rate
compares) and `number_words` (a number said in a language, with `num2words`). `Word` is one
spoken word with its time in a take, recognised or estimated.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import asdict, dataclass

from engine.constants import SPEAKER_TAG
from engine.text import LINE_MARKUP, TAG

_WORD_CHARS = re.compile(r"[^\w']+", re.UNICODE)


@dataclass(frozen=True)
class Word:
    """A spoken word and where it lies in the take, in seconds from the take's start;
    `probability` is the recogniser's confidence (None for a word whose time is estimated)."""

    text: str
    start_s: float
    end_s: float
    probability: float | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict, times rounded to milliseconds."""
        row = asdict(self)
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}

    @classmethod
    def from_dict(cls, data: dict) -> Word:
        """The word of a `to_dict` object (a take record's `asr.words`)."""
        probability = data.get("probability")
        return cls(
            str(data.get("text", "")),
            float(data["start_s"]),
            float(data["end_s"]),
            None if probability is None else float(probability),
        )


def model_words(text: str) -> str:
    """A model text without its speaker tags (their numbers depend on the context), whitespace
    collapsed: what two texts are compared by to tell whether a take says a line."""
    return " ".join(SPEAKER_TAG.sub(" ", text or "").split())


def normalise_word(word: str) -> str:
    """Lower-case a word and strip punctuation around it ("Goodbye," -> "goodbye")."""
    return _WORD_CHARS.sub("", word.lower()).strip("'")


def spoken_tokens(text: str) -> list[str]:
    """The spoken words of a line as written (case and punctuation kept): direction tags
    (`[sighs]`, `<whisper>`, `<|speaker:0|>`) and `{NAME}` switches removed, split on
    whitespace, pieces without a letter or digit dropped. One entry per `spoken_words` entry."""
    return [w for w in LINE_MARKUP.sub(" ", text).split() if normalise_word(w)]


def spoken_words(text: str) -> list[str]:
    """The normalised spoken words of a line (`spoken_tokens`, lower case, punctuation stripped)."""
    return [normalise_word(w) for w in spoken_tokens(text)]


@functools.lru_cache(maxsize=8192)
def number_words(number: int, language: str = "en", to: str = "cardinal") -> str:
    """`number` in words in `language` (`num2words`; `to`: cardinal, ordinal or year); cached, as
    `num2words` takes most of the time of saying a text's numbers. No commas: a comma is a pause
    (`num2words` writes "one thousand, two hundred")."""
    from num2words import num2words  # lazy: num2words, 17 ms at start-up

    return num2words(number, lang=language, to=to).replace(",", "")  # "one thousand, two hundred"


def wer_words(text: str) -> list[str]:
    """Words compared by the word error rate: lower case, accents folded, no tags or punctuation.

    Drops tags (`[bracket]`, `<tag>`, `<|token|>`), joins apostrophes (`don't` → `dont`), splits
    on hyphens and other punctuation, says integers below 10^9 in English words (`20` →
    `twenty`, `number_words`) and `%` as `percent`.
    """
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = TAG.sub(" ", text)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text).replace("%", " percent ")
    text = re.sub(r"['\u2019]", "", text)
    text = re.sub(r"\d{1,9}", lambda m: f" {number_words(int(m.group()))} ", text)
    return re.sub(r"[^\w]+|_", " ", text).split()
