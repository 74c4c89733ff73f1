"""The language a text's writing system shows, for text no declaration gives a language to.

Letters are counted by Unicode block: kana is Japanese, Hangul Korean, Han without kana Chinese,
Cyrillic Russian, and so on. When letters of such a system outnumber Latin letters the text is
in that language; a text of Latin letters (or none) shows no language.
"""

from __future__ import annotations

import unicodedata

_SYSTEMS = (
    ("HIRAGANA", "ja"),
    ("KATAKANA", "ja"),
    ("HANGUL", "ko"),
    ("CJK", "zh"),
    ("CYRILLIC", "ru"),
    ("ARABIC", "ar"),
    ("HEBREW", "he"),
    ("GREEK", "el"),
    ("THAI", "th"),
    ("DEVANAGARI", "hi"),
    ("BENGALI", "bn"),
    ("TAMIL", "ta"),
    ("GEORGIAN", "ka"),
    ("ARMENIAN", "hy"),
)

LATIN_LANGUAGES = frozenset(
    "en de fr es it pt nl sv da no nb nn fi pl cs sk sl hr ro hu tr ca eu gl ga cy is "
    "et lv lt sq id ms vi tl sw".split()
)  # written in the Latin alphabet


def written_language(text: str) -> str | None:
    """The language code the letters of `text` show ("ja", "zh", "ko", "ru", …), or None when
    Latin letters are as many or there are no letters of another system."""
    counts: dict[str, int] = {}
    latin = 0
    for char in text:
        if not char.isalpha():
            continue
        name = unicodedata.name(char, "")
        if name.startswith("LATIN"):
            latin += 1
            continue
        for prefix, language in _SYSTEMS:
            if name.startswith(prefix):
                counts[language] = counts.get(language, 0) + 1
                break
    if "ja" in counts and "zh" in counts:  # kanji among kana: Japanese
        counts["ja"] += counts.pop("zh")
    if not counts:
        return None
    language, count = max(counts.items(), key=lambda item: item[1])
    return language if count > latin else None
