"""Whether a language label is one `drama` can take: a BCP 47-like tag (`en`, `en-GB`, `pt_BR`,
`zh-Hant-TW`, `yue`) whose two-letter primary subtag is an ISO 639-1 code, or a language name
the number rules know (`German`). A well-formed tag of a language without rules is allowed: its
text is sent as written.
"""

from __future__ import annotations

import re

# ISO 639-1 codes, with the withdrawn `iw`, `in` and `ji` still found in older labels.
ISO_639_1 = frozenset(
    """
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en
eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv
ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne
ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st
su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu iw in ji
""".split()
)

# Language names a label may give instead of a tag, with the code they stand for.
NAMES = {
    "english": "en",
    "german": "de",
    "deutsch": "de",
    "french": "fr",
    "français": "fr",
    "francais": "fr",
    "spanish": "es",
    "español": "es",
    "espanol": "es",
}
LANGUAGE_NAMES = frozenset(NAMES)

_TAG = re.compile(
    r"(?P<lang>[a-z]{2,3})(?:[-_][a-z]{4})?(?:[-_](?:[a-z]{2}|\d{3}))?"
    r"(?:[-_](?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:[-_]x(?:[-_][a-z\d]{1,8})+)?"
)


def is_language_label(label: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether `label` is a well-formed BCP 47-like tag (`_` may stand for `-`, any case) with a
    known two-letter primary subtag, or one of `names` (lower case)."""
    label = label.strip().lower()
    if label in names:
        return True
    match = _TAG.fullmatch(label)
    return match is not None and (len(match.group("lang")) == 3 or match.group("lang") in ISO_639_1)


def read_language_label(reader, node, what: str) -> str:
    """A `language:` or `lang:` value read by `reader` (a `yaml_reader.YamlReader`), as written
    (stripped; '' when empty). Raises ScriptError at the value when it is not text
    (`language: 7`) or not a well-formed language tag (`xx-YY`)."""
    label = reader.scalar(node, what).strip()
    if not label:
        return label
    if node.tag not in (
        "tag:yaml.org,2002:str",
        "tag:yaml.org,2002:bool",
    ):  # `lang: no` is Norwegian
        raise reader.error(
            f"{what} must be text, a language tag such as en, en-GB or de, not {label!r}", node
        )
    if not is_language_label(label, LANGUAGE_NAMES):
        raise reader.error(f"{what} {label!r} is not a language tag such as en, en-GB or de", node)
    return label
