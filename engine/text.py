"""The grammar of a line's markup and the facts about its text that follow from it: the words
it speaks and how long it should take to say them (the frame budget of `engine.generate` is a
multiple of that estimate).

The tags, one pattern each (every module that looks for markup builds on these): model tokens
`<|speaker:0|>` (`MODEL_TOKEN`), scoped tags `<whisper>` / `</whisper>` (`SCOPED_TAG`, named
by `TAG_NAME`), point tags `[sighs]` (`POINT_TAG`), a pronunciation between the phoneme tokens
(`PHONEME_PAIR`) and, in a script line before it is compiled, speaker switches `{NAME}`
(`SWITCH`). `SCOPED_TAG_PARTS` and `POINT_TAG_PARTS` are the same tags with their parts named,
for readers that act on each tag. `spoken_text` drops every tag; `expected_duration_s` estimates the spoken length,
counting the pause a `[pause]`-like tag asks for (`PAUSE_TAG_S`).
"""

from __future__ import annotations

import re

# Speaking rate for English read speech: about 15 spoken characters per second (~150 words per
# minute); punctuation adds a short pause. Deliberately generous: the estimate only has to be
# right within a factor of a few (for the frame budget and the runaway check).
CHARS_PER_SECOND = 15.0
# Scripts written one syllable or mora per character are counted by their own rate
# (docs/internals/sampling.md, "Expected duration of a line"): a Han character is one Mandarin syllable
# (about 4.5 a second; in Japanese a kanji averages about two morae, which comes to the same),
# a kana one Japanese mora (about 7.5 a second), a Hangul block one Korean syllable (about 6).
HAN_PER_SECOND = 4.5
KANA_PER_SECOND = 7.5
HANGUL_PER_SECOND = 6.0
PAUSE_PER_PUNCT_S = 0.2
MIN_EXPECTED_S = 0.6
PAUSE_TAG_S = {"pause": 0.6, "short pause": 0.3, "long pause": 1.2, "beat": 0.5, "silence": 1.0}

TAG_NAME = r"[A-Za-z][A-Za-z0-9_-]*"  # a scoped tag's name, as the script grammar reads it
MODEL_TOKEN = r"<\|[^<>|]*\|>"
SCOPED_TAG = rf"</?{TAG_NAME}>"
POINT_TAG = r"\[[^\[\]]*\]"
SCOPED_TAG_PARTS = rf"<(?P<close>/?)(?P<name>{TAG_NAME})>"  # close: "/" or ""
POINT_TAG_PARTS = r"\[(?P<content>[^\[\]]*)\]"
SWITCH = r"\{[^{}]*\}"
# One pronunciation: the phoneme tokens around plain phoneme text (no markup, not empty).
PHONEME_PAIR = r"<\|phoneme_start\|>[^<>|\[\]{}\n]*[^<>|\[\]{}\s][^<>|\[\]{}\n]*<\|phoneme_end\|>"
TAG = re.compile(f"{MODEL_TOKEN}|{SCOPED_TAG}|{POINT_TAG}")  # every tag of model text
LINE_MARKUP = re.compile(f"{TAG.pattern}|{SWITCH}")  # every tag of a script line, switches too
_SPOKEN = re.compile(r"[^\W_]", re.UNICODE)
# ASCII and full-width punctuation (，。！？、；：．) alike pause.
_PUNCT = re.compile(r"[.!?;:,\u2026\u3001\u3002\uff01\uff0c\uff0e\uff1a\uff1b\uff1f]+")
_HAN = re.compile(r"[\u3005\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Kana, less the small ones that join the kana before them into one mora (きょ, ファ).
_KANA = re.compile(r"[\u3041-\u309f\u30a1-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_SMALL_KANA = re.compile(r"[ぁぃぅぇぉゃゅょゎァィゥェォャュョヮ]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def spoken_text(text: str) -> str:
    """The words of a line with every tag removed: `[..]`, `<..>`, `</..>` and `<|..|>`."""
    return " ".join(TAG.sub(" ", text).split())


def expected_duration_s(text: str) -> float:
    """Rough duration in seconds of `text` read aloud at a normal pace.

    Han characters at 4.5 per second, kana at 7.5, Hangul blocks at 6, other spoken characters
    (letters and digits) at 15; 0.2 s per run of punctuation, ASCII or full-width, plus the
    pause a `[pause]`-like tag asks for; at least 0.6 s. Tags are not spoken and count only as
    pauses.
    """
    pauses = sum(
        PAUSE_TAG_S.get(m.group()[1:-1].strip().lower(), 0.0)
        for m in TAG.finditer(text)
        if m.group().startswith("[")
    )
    words = spoken_text(text)
    han = len(_HAN.findall(words))
    kana = len(_KANA.findall(words)) - len(_SMALL_KANA.findall(words))
    hangul = len(_HANGUL.findall(words))
    small = len(_SMALL_KANA.findall(words))
    other = len(_SPOKEN.findall(words)) - han - kana - small - hangul
    punct = len(_PUNCT.findall(words))
    speech_s = (
        han / HAN_PER_SECOND
        + kana / KANA_PER_SECOND
        + hangul / HANGUL_PER_SECOND
        + other / CHARS_PER_SECOND
    )
    return max(MIN_EXPECTED_S, speech_s + punct * PAUSE_PER_PUNCT_S + pauses)
