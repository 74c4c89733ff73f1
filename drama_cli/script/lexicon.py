"""The pronunciation lexicon: entries written in the script (`lexicon:`) or in shared
`*.lexicon.yaml` files (`lexicons:`), where they apply in a line, and what `drama check` says
about them (docs/guide/pronunciation.md).

An entry maps a term (a word or a few words) to a respelling (plain text said instead) or to
phonemes (sent between the phoneme tokens by `drama_cli.compile.normalise`). Terms match whole
words only, case-insensitively unless `case: sensitive`, inside a line's text spans: tags, notes
and `{NAME}` switches are other spans and are never touched. Where several terms match at one
place the longest wins. An entry with `lang:` applies only to lines spoken by a voice of that
language (`speaker_language`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import ScalarNode, SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.direction import check_model_tokens
from drama_cli.script.document import Line, Script, Span, Warning_
from drama_cli.script.language_tags import NAMES, read_language_label
from drama_cli.script.writing import LATIN_LANGUAGES, written_language
from drama_cli.script.yaml_reader import YamlReader, compose

DEFAULT_LANGUAGE = "en"
LEXICON_SUFFIX = ".lexicon.yaml"
ENTRY_KEYS = ("respelling", "phonemes", "lang", "case")

# ARPAbet as the CMU Pronouncing Dictionary writes it (docs/guide/pronunciation.md): 15 vowels, each
# with a stress digit 0 (none), 1 (primary) or 2 (secondary), and 24 consonants.
ARPABET_VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
ARPABET_CONSONANTS = frozenset("B CH D DH F G HH JH K L M N NG P R S SH T TH V W Y Z ZH".split())

_MARKUP_CHARS = "[]{}<>|"


@dataclass(frozen=True)
class LexiconEntry:
    """One lexicon entry.

    term: the words as written in the lexicon. respelling: the text said instead, or None.
    phonemes: the phoneme string (ARPAbet for English), or None; exactly one of the two is set.
    lang: the language code the entry is limited to (None: every language).
    case_sensitive: match the term's exact case only. position: where the term is written;
    value_position: where its respelling or phonemes start (for errors inside them).
    """

    term: str
    respelling: str | None = None
    phonemes: str | None = None
    lang: str | None = None
    case_sensitive: bool = False
    position: SourcePosition | None = None
    value_position: SourcePosition | None = None

    @property
    def key(self) -> tuple[str, str | None, bool]:
        """What makes two entries the same: the term (folded unless case-sensitive), lang, case."""
        term = " ".join(unicodedata.normalize("NFC", self.term).split())
        return (term if self.case_sensitive else term.casefold(), self.lang, self.case_sensitive)

    def describe(self) -> str:
        """The entry as `drama compile` shows it: `Hermione → her-MY-oh-nee` or `→ /HH ER0 …/`."""
        said = self.respelling if self.respelling is not None else f"/{self.phonemes}/"
        return f"{self.term} → {said}"


@dataclass(frozen=True)
class LexiconMatch:
    """Where an entry applies in a piece of text: text[start:end] is the matched term."""

    start: int
    end: int
    entry: LexiconEntry


def language_code(label: str | None) -> str | None:
    """A language label as a lower-case primary code: `en-GB` → `en`, `German` → `de`; None for None."""
    if label is None or not label.strip():
        return None
    label = label.strip().lower()
    if label in NAMES:
        return NAMES[label]
    return re.split(r"[-_]", label)[0]


def speaker_language(script: Script, name: str) -> str:
    """The language of a voice: its cast member's `lang:`, else the script's `language:`, else en."""
    return language_code(declared_language(script, name)) or DEFAULT_LANGUAGE


def declared_language(script: Script, name: str) -> str | None:
    """The language label a voice is given as written (`en-GB` kept whole): its cast member's
    `lang:`, else the script's `language:`, else its book's language (a Fountain title page's
    `Language:`); None when none gives one."""
    member = script.cast.get(name)
    book = script.book.language if script.book else None
    title_page = next(
        (value for key, value in script.title_page.items() if key.strip().lower() == "language"),
        None,
    )
    for label in (member.lang if member else None, script.language, book, title_page):
        if label is not None and label.strip():
            return label.strip()
    return None


def text_language(script: Script, name: str, text: str, line_lang: str | None = None) -> str:
    """The language label a text span spoken by `name` is said in: the line's own `lang:`
    (`line_lang`), else the declared one (`declared_language`), unless the span is written in
    another writing system than the Latin
    alphabet (`writing.written_language`: Japanese, Chinese, Russian…) while the declared one is
    written in Latin letters; what the writing shows also decides when nothing is declared; else
    English."""
    declared = line_lang or declared_language(script, name)
    shown = written_language(text)
    if shown and (declared is None or language_code(declared) in LATIN_LANGUAGES):
        return shown
    return declared or DEFAULT_LANGUAGE


def text_spans_with_language(script: Script, line: Line) -> list[tuple[Span, str]]:
    """Every text span of a line with its language: the line's `lang:`, else that of the voice
    speaking it (switches change it)."""
    language = language_code(line.lang) or speaker_language(script, line.speaker)
    result = []
    for span in line.spans:
        if span.kind == "switch":
            language = language_code(line.lang) or speaker_language(script, span.value)
        elif span.kind == "text":
            result.append((span, language))
    return result


class Lexicon:
    """The entries of a script in precedence order (the script's own first, then each shared file
    in order), with one matcher per language."""

    def __init__(self, entries: list[LexiconEntry]):
        self.entries = list(entries)
        self._patterns: dict[str, tuple[re.Pattern | None, list[LexiconEntry]]] = {}

    def active(self, language: str) -> list[LexiconEntry]:
        """The entries that apply to `language`: one per key (the first written wins), longest
        term first."""
        chosen: dict[tuple, LexiconEntry] = {}
        for entry in self.entries:
            if entry.lang in (None, language) and entry.key not in chosen:
                chosen[entry.key] = entry
        return sorted(
            chosen.values(),
            key=lambda e: (-len(" ".join(e.term.split())), not e.case_sensitive, e.lang is None),
        )

    def find(self, text: str, language: str) -> list[LexiconMatch]:
        """Non-overlapping matches in `text`, left to right; at each place the longest term wins."""
        if language not in self._patterns:
            entries = self.active(language)
            alternatives = [f"(?P<e{n}>{_term_pattern(e)})" for n, e in enumerate(entries)]
            pattern = (
                re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)") if entries else None
            )
            self._patterns[language] = (pattern, entries)
        pattern, entries = self._patterns[language]
        if pattern is None:
            return []
        return [
            LexiconMatch(m.start(), m.end(), entries[int(m.lastgroup[1:])])
            for m in pattern.finditer(text)
        ]


def _term_pattern(entry: LexiconEntry) -> str:
    """The pattern of an entry's term: its words apart by any whitespace, each accented letter
    matched whether the text writes it composed (NFC `ë`) or decomposed (NFD `e` + U+0308), so a
    term and a text typed on different systems still meet."""
    words = unicodedata.normalize("NFC", entry.term).split()
    body = r"\s+".join("".join(_either_form(char) for char in word) for word in words)
    return body if entry.case_sensitive else f"(?i:{body})"


def _either_form(char: str) -> str:
    """`char` (NFC) as a pattern that also matches its decomposition."""
    decomposed = unicodedata.normalize("NFD", char)
    if decomposed == char:
        return re.escape(char)
    return f"(?:{re.escape(char)}|{re.escape(decomposed)})"


def script_lexicon(script: Script) -> Lexicon:
    """The script's lexicon as a matcher (cached on the script)."""
    cached = getattr(script, "_lexicon_matcher", None)
    if cached is None or cached.entries != script.lexicon:
        cached = Lexicon(script.lexicon)
        script._lexicon_matcher = cached
    return cached


def line_matches(script: Script, line: Line) -> list[tuple[Span, LexiconMatch]]:
    """Every lexicon match in a line's text spans, in order, with the span it is in."""
    if not script.lexicon:
        return []
    lexicon = script_lexicon(script)
    return [
        (span, match)
        for span, language in text_spans_with_language(script, line)
        for match in lexicon.find(span.text, language)
    ]


# ---- reading ------------------------------------------------------------------------------


def read_language_keys(reader: YamlReader, fields: dict, base: Path, script: Script) -> None:
    """The script's `lexicon:`, `lexicons:`, `language:` and `normalize:` keys (a script's top level,
    or a Fountain script's cast file), added to `script`."""
    script.lexicon += read_lexicon_keys(reader, fields, base)
    if "language" in fields:
        label = read_language_label(
            reader, fields["language"][1], "language"
        )  # `en-GB` kept: dates read by it
        script.language = label or script.language
    if "normalize" in fields:
        script.normalize = reader.boolean(fields["normalize"][1], "normalize")


def read_lexicon_keys(reader, fields: dict, base: Path) -> list[LexiconEntry]:
    """The entries of a script's `lexicon:` (first) and `lexicons:` files (in order), from the
    keys of its top-level mapping. Raises ScriptError at file:line:col for a bad entry, a missing
    or unreadable file, or a file that is not a lexicon."""
    entries: list[LexiconEntry] = []
    if "lexicon" in fields:
        entries += read_entries(reader, fields["lexicon"][1])
    if "lexicons" in fields:
        node = fields["lexicons"][1]
        paths = node.value if isinstance(node, SequenceNode) else [node]
        for item in paths:
            path = reader.scalar(item, "lexicon file").strip()
            if not path:
                raise reader.error("lexicon file path is empty", item)
            entries += read_lexicon_file(base / path, reader.at(item))
    return entries


def read_entries(reader, node) -> list[LexiconEntry]:
    """Entries of a `term: respelling` / `term: {phonemes: …, lang: …, case: sensitive}` mapping.
    A bad entry's error goes to `reader.problems` and the next entry is read, so one run lists
    every bad entry."""
    entries = []
    for term, (key_node, value_node) in reader.mapping(node, None, "the lexicon").items():
        with reader.problems.collect():
            entries.append(_read_entry(reader, term, key_node, value_node))
    return entries


def _read_entry(reader, term: str, key_node, value_node) -> LexiconEntry:
    """One lexicon entry; raises ScriptError at file:line:col when it is bad."""
    where = reader.at(key_node)
    _check_term(term, _value_start(reader, key_node))
    if isinstance(value_node, ScalarNode):
        fields = {"respelling": (key_node, value_node)}
    else:
        fields = reader.mapping(value_node, ENTRY_KEYS, f"lexicon entry {term!r}")
    said = [key for key in ("respelling", "phonemes") if key in fields]
    if len(said) != 1:
        raise reader.error(
            f"lexicon entry {term!r} needs exactly one of 'respelling' or 'phonemes'",
            value_node,
            'write e.g. Hermione: her-MY-oh-nee or Hermione: {phonemes: "HH ER0 M AY1 AH0 N IY0"}',
        )
    value_node = fields[said[0]][1]
    value = " ".join(reader.scalar(value_node, said[0]).split())
    value_at = _value_start(reader, value_node)
    _check_value(value, said[0], term, value_at)
    case = (
        reader.scalar(fields["case"][1], "case").strip().lower()
        if "case" in fields
        else "insensitive"
    )
    if case not in ("sensitive", "insensitive"):
        raise reader.error(
            f"case must be 'sensitive' or 'insensitive', got {case!r}", fields["case"][1]
        )
    lang = (
        language_code(read_language_label(reader, fields["lang"][1], "lang"))
        if "lang" in fields
        else None
    )
    return LexiconEntry(
        term=term,
        respelling=value if said[0] == "respelling" else None,
        phonemes=value if said[0] == "phonemes" else None,
        lang=lang,
        case_sensitive=case == "sensitive",
        position=where,
        value_position=value_at,
    )


def read_lexicon_file(path: Path, where: SourcePosition) -> list[LexiconEntry]:
    """The entries of a shared lexicon file: a `lexicon:` mapping, or the entry mapping itself.
    Raises ScriptError at `where` (the path in the script) when it cannot be read, else at the
    problem inside the file."""
    try:
        source = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise ScriptError(
            f"cannot read lexicon file {path.name}: {err.strerror}",
            where,
            f"write the path relative to the script; shared lexicons are named *{LEXICON_SUFFIX}",
        ) from None
    except UnicodeDecodeError:
        raise ScriptError(
            f"lexicon file {path.name} is not UTF-8 text", where, "save the file as UTF-8"
        ) from None
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    reader = YamlReader(source, str(path))
    root = compose(source, str(path))
    if root is None:
        return []
    top = reader.mapping(root, None, "the lexicon file")
    if "lexicon" in top:
        reader.mapping(root, ("lexicon",), "the lexicon file")
    entries = read_entries(reader, top["lexicon"][1] if "lexicon" in top else root)
    reader.problems.raise_if_any()
    return entries


def _value_start(reader, node) -> SourcePosition:
    where = reader.at(node)
    if getattr(node, "style", None) in ("'", '"'):
        return SourcePosition(where.file, where.line, where.column + 1)
    return where


def _check_term(term: str, where: SourcePosition) -> None:
    if not re.search(r"\w", term):
        raise ScriptError(
            f"lexicon term {term!r} has no letters or digits",
            where,
            "write the word as it appears in lines",
        )
    for index, char in enumerate(term):
        if char in _MARKUP_CHARS:
            raise ScriptError(
                f"lexicon term {term!r} holds {char!r}: tags and switches are never matched",
                SourcePosition(where.file, where.line, where.column + index),
                "write the words only",
            )


def _check_value(value: str, kind: str, term: str, where: SourcePosition) -> None:
    if not value:
        raise ScriptError(f"lexicon entry {term!r} has an empty {kind}", where)
    check_model_tokens(value, where)
    for index, char in enumerate(value):
        if char in _MARKUP_CHARS:
            raise ScriptError(
                f"the {kind} of {term!r} holds {char!r}; write plain text",
                SourcePosition(where.file, where.line, where.column + index),
                "tags belong in the line, not in the lexicon",
            )


# ---- checks -------------------------------------------------------------------------------


def invalid_arpabet(phonemes: str) -> list[tuple[int, str]]:
    """(offset, symbol) of every symbol of a space-separated ARPAbet string that is not one:
    vowels need a stress digit 0, 1 or 2; consonants take none."""
    bad = []
    for match in re.finditer(r"\S+", phonemes):
        symbol = match.group()
        vowel = symbol[:-1] in ARPABET_VOWELS and symbol[-1] in "012"
        if not vowel and symbol not in ARPABET_CONSONANTS:
            bad.append((match.start(), symbol))
    return bad


def lexicon_warnings(script: Script) -> list[Warning_]:
    """What `drama check` says about the lexicon: entries no line uses, phonemes that are not
    ARPAbet in an English entry, and entries that overlap (the same term twice, or a term that
    holds another's words, where the longest wins)."""
    if not script.lexicon:
        return []
    warnings: list[Warning_] = []
    used = {id(match.entry) for line in script.lines() for _, match in line_matches(script, line)}
    for entry in script.lexicon:
        if id(entry) not in used:
            warnings.append(
                Warning_(f"lexicon entry {entry.term!r} is not used by any line", entry.position)
            )
        language = entry.lang or language_code(script.language) or DEFAULT_LANGUAGE
        if entry.phonemes is not None and language == DEFAULT_LANGUAGE:
            for offset, symbol in invalid_arpabet(entry.phonemes):
                where = entry.value_position
                at = (
                    SourcePosition(where.file, where.line, where.column + offset) if where else None
                )
                hint = (
                    "add the stress digit 0, 1 or 2"
                    if symbol.upper() in ARPABET_VOWELS
                    else "ARPAbet symbols are upper case, e.g. AH0 or HH"
                    if symbol.upper() != symbol
                    else "see docs/guide/pronunciation.md for the symbol set"
                )
                warnings.append(
                    Warning_(
                        f"lexicon entry {entry.term!r}: {symbol!r} is not an ARPAbet symbol ({hint})",
                        at,
                    )
                )
    warnings += _overlaps(script.lexicon)
    return warnings


def _overlaps(entries: list[LexiconEntry]) -> list[Warning_]:
    warnings = []
    for i, later in enumerate(entries):
        for earlier in entries[:i]:
            if later.lang not in (None, earlier.lang) and earlier.lang is not None:
                continue
            if later.key == earlier.key:
                warnings.append(
                    Warning_(
                        f"lexicon entry {later.term!r} repeats the entry at {earlier.position}, "
                        "which is the one used",
                        later.position,
                    )
                )
                continue
            short, long_ = sorted((earlier, later), key=lambda e: len(e.term))
            if Lexicon([short]).find(long_.term, short.lang or DEFAULT_LANGUAGE):
                warnings.append(
                    Warning_(
                        f"lexicon entries {long_.term!r} and {short.term!r} overlap: where "
                        f"{long_.term!r} is written it wins",
                        later.position,
                    )
                )
    return warnings


def read_cast_file_language(path: Path, script: Script) -> None:
    """A cast file's `lexicon:`, `lexicons:` (relative to the cast file), `language:` and
    `normalize:` keys, added to `script` (how a Fountain script gets them). The file has been read
    once already, so it is known to be readable YAML."""
    source = Path(path).read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    reader = YamlReader(source, str(path))
    root = compose(source, str(path))
    top = reader.mapping(root, None, "the cast file") if root is not None else {}
    if "cast" in top:
        read_language_keys(reader, top, Path(path).parent, script)
