"""Facts about a line's text that the engine needs: the words it speaks and how long it should
take to say them (the frame budget of `engine.generate` is a multiple of that estimate).

`spoken_text` drops every tag; `expected_duration_s` estimates the spoken length, counting the
pause a `[pause]`-like tag asks for (`PAUSE_TAG_S`).
"""

from __future__ import annotations

import re

# Speaking rate for English read speech: about 15 spoken characters per second (~150 words per
# minute); punctuation adds a short pause. Deliberately generous: the estimate only has to be
# right within a factor of a few (for the frame budget and the runaway check).
CHARS_PER_SECOND = 15.0
PAUSE_PER_PUNCT_S = 0.2
MIN_EXPECTED_S = 0.6
PAUSE_TAG_S = {"pause": 0.6, "short pause": 0.3, "long pause": 1.2, "beat": 0.5, "silence": 1.0}

_TAG = re.compile(r"<\|[^|]*\|>|</?[A-Za-z][^<>]*>|\[([^\[\]]*)\]")
_SPOKEN = re.compile(r"[^\W_]", re.UNICODE)
_PUNCT = re.compile(r"[.!?;:,\u2026]+")


def spoken_text(text: str) -> str:
    """The words of a line with every tag removed: `[..]`, `<..>`, `</..>` and `<|..|>`."""
    return " ".join(_TAG.sub(" ", text).split())


def expected_duration_s(text: str) -> float:
    """Rough duration in seconds of `text` read aloud at a normal pace.

    Spoken characters (letters and digits, any script) at 15 per second, 0.2 s per run of
    punctuation, plus the pause a `[pause]`-like tag asks for; at least 0.6 s.
    Tags are not spoken and count only as pauses.
    """
    pauses = sum(PAUSE_TAG_S.get(m.group(1).strip().lower(), 0.0)
                 for m in _TAG.finditer(text) if m.group(1) is not None)
    words = spoken_text(text)
    chars = len(_SPOKEN.findall(words))
    punct = len(_PUNCT.findall(words))
    return max(MIN_EXPECTED_S, chars / CHARS_PER_SECOND + punct * PAUSE_PER_PUNCT_S + pauses)
