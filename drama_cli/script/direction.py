"""The direction grammar inside a line's text, and the clean-up of markdown and emoji in its words.

A line's text is words plus markup:

* point tag `[sighs]`: a bracket direction placed where the event happens; its content is free
  natural language (`[voice tight, holding back tears]`) and passes through unchanged;
* style prefix: a bracket at the very start of the line (`[icy calm] Fine.`), same syntax;
* scoped tag `<whisper>…</whisper>`: opens and closes a manner of speaking; tags must nest;
* speaker switch `{NAME}`: the rest of the line (until the next switch) is spoken by NAME, a
  cast name or alias; it compiles to `<|speaker:k|>`;
* sound cue `{sfx: NAME}` (also `{sound: NAME}`, `{music: NAME}`): a sound of the script's
  `sounds:` table that starts at the word after it (`drama_cli.script.line_sounds`); never sent
  to the model, so the line compiles as if it were not there. It sits between words, may stand
  inside a scoped tag, and `{sfx}`, `{sound}` and `{music}` without a name are refused rather
  than read as switches to a voice of that name.

Refused with a `ScriptError` at the offending column: model tokens (anything from `<|`, e.g.
`<|im_end|>`, `<|speaker:1|>`), the pseudo-tag `<speaker:1>` (never taken as a switch), an
unclosed `[`, `{` or scoped tag, a closing tag that does not match the innermost open one, a
switch inside a scoped tag, and a sound cue without a name or inside a word. Any other `<` is
text (`a < b`, `a < b > c`: a scoped tag is written `<name>` and `</name>`, with no space
inside).

Director's notes (YAML `note`, Fountain parentheticals) are compiled to bracket directions before
the text (`note_direction`). The markup clean-up (`clean_markup`) runs on text spans only, so tags
reach the model untouched (cases B4, T2).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from drama_cli.errors import ScriptError, ScriptErrors, SourcePosition
from drama_cli.script.document import Span
from engine.constants import SPEAKER_TAG, SPEAKER_TAG_PATTERN
from engine.text import PHONEME_PAIR, SCOPED_TAG_PARTS, TAG_NAME, spoken_text

# Looser than engine.text.MODEL_TOKEN on purpose: refuses whatever the tokenizer might read as a
# token, `|` inside included.
_MODEL_TOKEN = re.compile(r"<\|[^<>\n]{0,40}?\|>")
_PSEUDO_SPEAKER = re.compile(r"<\s*/?\s*speaker\s*[:=_ ]?\s*\d*\s*/?\s*>", re.IGNORECASE)
_SCOPED = re.compile(SCOPED_TAG_PARTS)  # the documented syntax only: `a < b > c` is text
_MARKUP_START = re.compile(r"[\[{<]")
_STRUCTURAL = (
    "<|im_start|>",
    "<|im_end|>",
    "<|voice|>",
    "<|text|>",
    "<|interleave|>",
    "<|semantic:",
)

SWITCH_HINT = "write {NAME} to switch the voice mid-line"
SOUND_CUE_PREFIX = r"SFX|SOUND|MUSIC"  # a sound cue's kinds, inside a line and on a Fountain row
_SOUND_CUE = re.compile(rf"\s*({SOUND_CUE_PREFIX})\s*(?::(?P<name>.*))?", re.IGNORECASE)
CUE_HINT = "write {sfx: NAME} with NAME from the sounds: table"

# Every tag name the grammar knows, once, with its roles:
# * known: a bracket Drama 3 / S2 is known to read (model card, release notes); other brackets
#   still pass through, `--strict-tags` only warns about them;
# * event: a non-verbal event; a bracket of one at the start of a line is a point tag voiced
#   once, not a style prefix that every chunk of a long line repeats;
# * paired: one of the scoped tags Fish documents for Drama 3, a closed list;
# * language: a scoped language tag (`<french>…</french>`), documented as experimental.
_TAG_ROWS = (
    (
        "known event",
        """
        laughs laugh laughing chuckles chuckle giggles sighs sigh gasps gasp breath breathes
        inhale exhale coughs cough clears-throat sniffs sobs crying cries screams pause
        short-pause long-pause groans moans yawns""",
    ),
    (
        "known",
        """
        shouting shouts yelling whispers whispering softly loud angry sad happy excited surprised
        scared nervous calm serious sarcastic break long-break hesitation hesitant tired sleepy
        gentle warm cold icy tense panicked relieved singing humming murmurs mumbles""",
    ),
    ("known paired", "whisper soft emphasis"),
    ("paired", "fast slow stress forceful"),
    ("known language", "french german spanish italian japanese chinese english"),
    (
        "event",
        """
        giggle clears-his-throat clears-her-throat sniff sob sneezes sneeze yawn groan moan
        inhales exhales breathing hiccups gulps gulp scoffs scoff snorts snort scream whistles
        whistle hums grunts grunt swallows sniffles long-exhale deep-breath sharp-inhale beat""",
    ),
)


def roles_by_name(rows: tuple[tuple[str, str], ...]) -> dict[str, frozenset[str]]:
    """{tag name: its roles} from rows of (roles, names); a name in two rows is an error."""
    table: dict[str, frozenset[str]] = {}
    for roles, names in rows:
        for name in names.split():
            if name in table:
                raise ValueError(f"tag {name!r} is in two rows of the tag table")
            table[name] = frozenset(roles.split())
    return table


TAG_ROLES = roles_by_name(_TAG_ROWS)


def tags_with(role: str) -> frozenset[str]:
    """The tag names of `TAG_ROLES` that have `role` (known, event, paired, language)."""
    return frozenset(name for name, roles in TAG_ROLES.items() if role in roles)


KNOWN_TAGS = tags_with("known")
EVENT_TAGS = tags_with("event")
PAIRED_TAGS = tags_with("paired")
LANGUAGE_TAGS = tags_with("language")


def is_event(content: str) -> bool:
    """True for a bracket that names a non-verbal event (`[sighs]`, `[clears throat]`), by
    `EVENT_TAGS`; a manner (`[icy calm]`) is not one."""
    return "-".join(content.lower().strip(" .!").split()) in EVENT_TAGS


def _at(base: SourcePosition | None, text: str, offset: int) -> SourcePosition:
    """The source position of `offset` in `text`, which starts at `base`."""
    base = base or SourcePosition("<text>", 1, 1)
    before = text[:offset]
    newlines = before.count("\n")
    if newlines:
        return SourcePosition(base.file, base.line + newlines, offset - before.rfind("\n"))
    return SourcePosition(base.file, base.line, base.column + offset)


def check_model_tokens(text: str, where: SourcePosition | None = None) -> None:
    """Raise ScriptError when `text` holds a model token (`<|...|>`) or the pseudo-tag `<speaker:N>`
    (the first of `model_token_errors`).

    Applies to every caller string that reaches a prompt (line text, notes, transcripts), per
    docs/internals/model.md §4.1 "Caller text may not contain ...".
    """
    errors = model_token_errors(text, where)
    if errors:
        raise errors[0]


def model_token_errors(text: str, where: SourcePosition | None = None) -> list[ScriptError]:
    """Every model token (`<|...|>`, a structural token's start, a bare `<|`) and pseudo-tag
    `<speaker:N>` in `text`, as located ScriptErrors in text order; each is reported once."""
    found: list[tuple[int, ScriptError]] = []
    masked = text
    for match in _MODEL_TOKEN.finditer(text):
        kind = "structural model token" if match.group().startswith(_STRUCTURAL) else "model token"
        found.append(
            (
                match.start(),
                ScriptError(
                    f"{kind} {match.group()!r} is not allowed in script text",
                    _at(where, text, match.start()),
                    SWITCH_HINT if "speaker" in match.group() else "remove it",
                ),
            )
        )
        masked = masked[: match.start()] + " " * len(match.group()) + masked[match.end() :]
    for prefix in _STRUCTURAL:
        for index in _find_all(masked, prefix):
            found.append(
                (
                    index,
                    ScriptError(
                        f"structural model token {prefix!r} is not allowed in script text",
                        _at(where, text, index),
                    ),
                )
            )
            masked = masked[:index] + " " * len(prefix) + masked[index + len(prefix) :]
    for index in _find_all(masked, "<|"):
        found.append(
            (
                index,
                ScriptError(
                    "'<|' starts a model token and is not allowed in script text",
                    _at(where, text, index),
                    "write it as '< |' if you mean the characters",
                ),
            )
        )
    for match in _PSEUDO_SPEAKER.finditer(masked):
        found.append(
            (
                match.start(),
                ScriptError(
                    f"{match.group()!r} is not a speaker switch",
                    _at(where, text, match.start()),
                    SWITCH_HINT + ", or remove the angle brackets",
                ),
            )
        )
    return [err for _, err in sorted(found, key=lambda item: item[0])]


def _cleaned_token_errors(
    spans: list[Span], text: str, where: SourcePosition | None, found: list[ScriptError]
) -> list[ScriptError]:
    """The model tokens the markup clean-up would make in `text`'s words (`<*|speaker:1|>`
    sends `<|speaker:1|>`), located at their `<` in `text` (the clean-up removes no `<`);
    tokens already in `found` are not repeated."""
    reported = {(e.position.line, e.position.column) for e in found if e.position}
    errors = []
    for span in spans:
        if span.kind != "text" or "<" not in span.text:
            continue
        openings = [span.column + i for i in _find_all(span.text, "<")]
        cleaned = clean_markup(span.text)
        for err in model_token_errors(cleaned, SourcePosition("", 1, 1)):
            at = _at(where, text, openings[cleaned[: err.position.column - 1].count("<")])
            if (at.line, at.column) not in reported:
                errors.append(
                    ScriptError(f"{err.message} once its markdown is removed", at, err.hint)
                )
    return errors


def sent_text_errors(text: str, where: SourcePosition | None = None) -> list[ScriptError]:
    """Every model token in `text` as it is sent, other than the tokens the compiler writes
    itself (speaker tags `<|speaker:N|>` and lexicon pronunciations between the phoneme tokens),
    as ScriptErrors located at `where` (the place the text came from)."""
    mine = re.sub(PHONEME_PAIR, " ", SPEAKER_TAG.sub(" ", text))
    return [
        ScriptError(
            err.message.replace("in script text", "in the text sent for this line"),
            where or err.position,
            "the lexicon, the number rules or the markup clean-up made it: change the words around it",
        )
        for err in model_token_errors(mine)
    ]


def _find_all(text: str, part: str) -> list[int]:
    indices, index = [], text.find(part)
    while index >= 0:
        indices.append(index)
        index = text.find(part, index + len(part))
    return indices


def parse_directions(text: str, where: SourcePosition | None = None) -> list[Span]:
    """Parse a line's text into spans (see the module docstring for the grammar).

    text: the line's text as written. where: the position of its first character, used for
    errors. Returns spans in order; concatenating their `text` gives `text` back.
    Raises ScriptError (with file:line:col) for the refused forms listed above: ScriptErrors
    when the line has several (every model token, then the tag errors found before the first one
    that stops the parse).
    """
    errors = model_token_errors(text, where)
    try:
        spans = _parse_spans(text, where, errors)
        errors += _cleaned_token_errors(spans, text, where, errors)
    except ScriptError as err:
        errors.append(err)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ScriptErrors(sorted(errors, key=lambda e: (e.position.line, e.position.column)))
    return spans


def _parse_spans(text: str, where: SourcePosition | None, errors: list[ScriptError]) -> list[Span]:
    """The grammar of `parse_directions`; raises ScriptError at a fault that stops the parse and
    adds the others (empty scoped tags, switches with nothing after them) to `errors`."""
    spans: list[Span] = []
    open_tags: list[Span] = []
    buffer_start = 0
    i = 0

    def flush(upto: int) -> None:
        if upto > buffer_start:
            spans.append(Span("text", text[buffer_start:upto], column=buffer_start))

    while True:
        found = _MARKUP_START.search(text, i)  # plain words between markup are skipped at once
        if found is None:
            break
        i = found.start()
        char = text[i]
        if char == "[":
            end = _closing(text, i, "[", "]", where, "bracket direction")
            flush(i)
            content = text[i + 1 : end].strip()
            if not content:
                raise ScriptError(
                    "empty bracket direction '[]'",
                    _at(where, text, i),
                    "write the direction inside the brackets or remove them",
                )
            leading = not any(s.kind in ("text", "switch") and s.text.strip() for s in spans)
            kind = (
                "style"
                if leading and not any(s.kind == "style" for s in spans) and not is_event(content)
                else "tag"
            )
            spans.append(Span(kind, text[i : end + 1], " ".join(content.split()), i))
            i = buffer_start = end + 1
            continue
        if char == "{":
            end = _closing(text, i, "{", "}", where, "speaker switch")
            flush(i)
            cue = _SOUND_CUE.fullmatch(text, i + 1, end)
            if cue:
                spans.append(_sound_cue(cue, text, i, end, where))
                i = buffer_start = end + 1
                continue
            name = " ".join(text[i + 1 : end].split())
            if not name:
                raise ScriptError("empty speaker switch '{}'", _at(where, text, i), SWITCH_HINT)
            if open_tags:
                raise ScriptError(
                    f"speaker switch {{{name}}} inside <{open_tags[-1].value}>",
                    _at(where, text, i),
                    f"close </{open_tags[-1].value}> before the switch",
                )
            spans.append(
                Span(
                    "switch",
                    text[i : end + 1],
                    name,
                    i,
                    position=_at(where, text, i) if where else None,
                )
            )
            i = buffer_start = end + 1
            continue
        if char == "<":
            match = _SCOPED.match(text, i)
            if match:
                flush(i)
                name = match["name"].lower()
                if match["close"]:
                    _close_scope(open_tags, name, text, i, where)
                    spans.append(Span("close", match.group(), name, i))
                else:
                    span = Span("open", match.group(), name, i)
                    open_tags.append(span)
                    spans.append(span)
                i = buffer_start = match.end()
                continue
        i += 1
    flush(len(text))
    if open_tags:
        tag = open_tags[-1]
        raise ScriptError(
            f"unclosed scoped tag <{tag.value}>",
            _at(where, text, tag.column),
            f"add </{tag.value}> where the manner ends",
        )
    _check_something_to_say(spans, text, where, errors)
    return spans


def _sound_cue(cue: re.Match, text: str, start: int, end: int, where) -> Span:
    """The `sound` span of the cue `text[start:end + 1]` (`{sfx: NAME}`): value NAME, position
    where the `{` is. Raises ScriptError for a cue without a name or inside a word."""
    written = text[start : end + 1]
    if cue.group("name") is None:
        raise ScriptError(
            f"{written} names no sound (it is not a speaker switch)",
            _at(where, text, start),
            CUE_HINT,
        )
    name = " ".join(cue.group("name").split())
    if not name:
        raise ScriptError(f"empty sound cue {written}", _at(where, text, start), CUE_HINT)
    if start > 0 and end + 1 < len(text) and (text[start - 1] + text[end + 1]).isalnum():
        raise ScriptError(
            f"sound cue {written} inside a word",
            _at(where, text, start),
            "put a space before or after it: a cue starts at a word",
        )
    return Span("sound", written, name, start, position=_at(where, text, start))


def has_content(span: Span) -> bool:
    """True for a span the model can voice: words, or a point tag / style prefix (a non-verbal cue
    such as `[sighs]`). Switches and the scoped tags' own markup are not content."""
    if span.kind == "text":
        return bool(clean_markup(span.text).strip())
    return span.kind in ("tag", "style")


def _check_something_to_say(spans: list[Span], text: str, where, errors: list[ScriptError]) -> None:
    """Every switch needs words or a direction after it; the line needs something besides switches;
    every scoped tag must enclose words or a point tag. Each fault after the first check is added
    to `errors`."""
    if not any(has_content(span) for span in spans):
        empty = next((span for span in spans if span.kind == "open"), None)
        if empty is not None:
            raise ScriptError(
                f"scoped tag <{empty.value}> has nothing inside",
                _at(where, text, empty.column),
                f"write the words to speak between <{empty.value}> and </{empty.value}>",
            )
        raise ScriptError(
            "the line has nothing to say", _at(where, text, 0), "write the words to speak"
        )
    errors.extend(_empty_scopes(spans, text, where))
    for index, span in enumerate(spans):
        if span.kind != "switch":
            continue
        following = []
        for later in spans[index + 1 :]:
            if later.kind == "switch":
                break
            following.append(later)
        if not any(has_content(later) for later in following):
            errors.append(
                ScriptError(
                    f"speaker switch {span.text} has nothing to say after it",
                    _at(where, text, span.column),
                    "write the words after the switch, or remove it",
                )
            )


def _empty_scopes(spans: list[Span], text: str, where) -> list[ScriptError]:
    """An error at the opening tag of each scoped tag with nothing inside (`<whisper></whisper>`)."""
    empty: list[ScriptError] = []
    stack: list[tuple[Span, bool]] = []
    for span in spans:
        if span.kind == "open":
            stack.append((span, False))
        elif span.kind == "close" and stack:
            opened, filled = stack.pop()
            if not filled:
                empty.append(
                    ScriptError(
                        f"scoped tag <{opened.value}> has nothing inside",
                        _at(where, text, opened.column),
                        f"write the words to speak between <{opened.value}> and "
                        f"</{opened.value}>, or remove the tags",
                    )
                )
            if stack:
                stack[-1] = (stack[-1][0], True)
        elif has_content(span) and stack:
            stack[-1] = (stack[-1][0], True)
    return empty


def _closing(text: str, start: int, opener: str, closer: str, where, what: str) -> int:
    """Index of the `closer` matching `text[start] == opener` on the same line; raises ScriptError
    for one never closed there, and, at the inner one, for an `opener` inside the first
    (`[[note]]`, `[a [b] c]`)."""
    for j in range(start + 1, len(text)):
        if text[j] == closer:
            return j
        if text[j] == opener:
            raise ScriptError(
                f"{what} {opener!r} inside another (opened at column "
                f"{_at(where, text, start).column}): "
                f"they do not nest",
                _at(where, text, j),
                f"close the first with {closer!r} before opening another; a revision "
                f"note is `notes:` in YAML and [[note]] on a line of its own in Fountain",
            )
        if text[j] == "\n":
            break
    raise ScriptError(
        f"unclosed {what} {opener!r}",
        _at(where, text, start),
        f"close it with {closer!r} on the same line (no nesting)",
    )


def _close_scope(open_tags: list[Span], name: str, text: str, offset: int, where) -> None:
    """Pop the innermost open tag if it is `name`; raise ScriptError for crossed or stray closes."""
    if not open_tags:
        raise ScriptError(
            f"closing tag </{name}> without an open <{name}>",
            _at(where, text, offset),
            f"add <{name}> where the manner starts, or remove </{name}>",
        )
    top = open_tags[-1]
    if top.value != name:
        opened = _at(where, text, top.column)
        raise ScriptError(
            f"closing tag </{name}> crosses <{top.value}> opened at {opened.line}:{opened.column}",
            _at(where, text, offset),
            f"close </{top.value}> first: tags must nest",
        )
    open_tags.pop()


def note_direction(note: str) -> str:
    """A director's note as a bracket direction: `(whispering)` or `whispering` -> `[whispering]`.

    Whitespace collapses; outer parentheses or brackets are dropped; inner brackets become
    parentheses so the direction stays one bracket.
    """
    body = " ".join(note.split()).strip()
    while len(body) >= 2 and body[0] + body[-1] in ("()", "[]"):
        body = body[1:-1].strip()
    body = body.replace("[", "(").replace("]", ")")
    return f"[{body}]" if body else ""


_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
    }
)
_MARKDOWN = re.compile(
    r"\*+(?!\s?\d)|(?<!\d)(?<!\d\s)\*+|`+|~~|_{2,}|(?<![\w])_(?=\w)|(?<=\w)_(?![\w])|#{2,}|(?:(?<=\s)|^)#(?=\s|$)"
)
MARKDOWN_MARKS = "*`~_#"  # the characters the markup clean-up removes; `\\*` keeps one
_MARKDOWN_MARK = re.compile(r"[*`~_#]")  # a character every _MARKDOWN match starts with
_ESCAPED_MARK = re.compile(r"\\([*`~_#\\])")
_HELD = {mark: chr(0xE000 + n) for n, mark in enumerate(MARKDOWN_MARKS + "\\")}  # private use
_WHITESPACE = re.compile(r"\s+")
_END_PUNCT_NEEDED = re.compile(r"(?:\w|<\|phoneme_end\|>)$")  # a word, or a lexicon pronunciation
_CJK_END = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]$")


def _is_emoji(char: str) -> bool:
    code = ord(char)
    if code in (0x200D, 0x20E3) or 0xFE00 <= code <= 0xFE0F or 0x1F3FB <= code <= 0x1F3FF:
        return True
    if 0xE0020 <= code <= 0xE007F:  # tag characters of flag sequences
        return True
    return unicodedata.category(char) == "So" and code >= 0x2190


def _joins_letters(text: str, index: int) -> bool:
    """Whether the character at `index` is a zero-width joiner between two characters that are
    not emoji (a joiner inside a word of an Indic script): kept there, removed with an emoji."""
    if text[index] != "\u200d" or index == 0 or index + 1 >= len(text):
        return False
    return not _is_emoji(text[index - 1]) and not _is_emoji(text[index + 1])


def clean_markup(text: str) -> str:
    """Clean one text span for the model (case B4): curly quotes straightened, markdown markers
    (`*`, `**`, `_x_`, `` ` ``, `~~`, `#` headings; a `*` between numbers, `2*3`, is kept) and
    emoji removed, whitespace runs and line breaks collapsed to one space. A mark escaped with a
    backslash (`5 \\* 5`, `\\_`, `\\\\`)
    is kept as the character, without the backslash. Leading/trailing spaces are kept as one space so spans join.
    """
    text = text.translate(_QUOTES)
    escaped = "\\" in text and _ESCAPED_MARK.search(text) is not None
    if escaped:  # `\\*` is a literal `*`: held out of the clean-up
        text = _ESCAPED_MARK.sub(lambda m: _HELD[m.group(1)], text)
    if _MARKDOWN_MARK.search(text):  # the full pattern is slow; most spans hold no marker
        text = _MARKDOWN.sub("", text)
    if escaped:
        text = text.translate({ord(held): mark for mark, held in _HELD.items()})
    if not text.isascii():  # no ASCII character is an emoji: most lines skip the scan
        text = "".join(
            " " if _is_emoji(c) and not _joins_letters(text, n) else c for n, c in enumerate(text)
        )
    return _WHITESPACE.sub(" ", text)


def render_spans(
    spans: Iterable[Span],
    speaker_index: int,
    index_of: Callable[[str], int],
    notes: Iterable[str] = (),
    speaker: str | None = None,
) -> str:
    """The model text of a line: `<|speaker:k|> [note] text ...` with switches as speaker tags.

    speaker_index: k of the line's speaker. index_of: speaker index of a switch target (canonical
    cast name). Text spans are cleaned (`clean_markup`); tags pass through unchanged and in order; end
    punctuation `.` is added to each speaker's part when it ends in a letter or digit. A switch
    to the voice already speaking (by name: `speaker` is the line's own, a canonical cast name)
    starts no part. Sound
    cues are left out, the text on either side joined as if they were not written.
    """
    spans = without_cues(spans)
    parts: list[str] = [f"<|speaker:{speaker_index}|>"]
    parts += [d for d in (note_direction(n) for n in notes) if d]
    leading = next((i for i, span in enumerate(spans) if span.kind == "switch"), len(spans))
    if len(parts) == 1 and not any(has_content(span) for span in spans[:leading]):
        parts, spans = [], spans[leading:]  # the line opens with a switch: no empty first voice
    segment: list[str] = []
    speaking = speaker if parts else None

    def close_segment() -> None:
        _add_end_punctuation(segment)
        parts.extend(segment)
        segment.clear()

    for span in spans:
        if span.kind == "switch":
            if span.value == speaking:
                continue  # the voice already speaking: no new part, no `.` mid-sentence
            close_segment()
            speaking = span.value
            parts.append(f"<|speaker:{index_of(span.value)}|>")
        elif span.kind == "text":
            segment.append(clean_markup(span.text))
        else:
            segment.append(f" {span.text} " if span.kind in ("tag", "style") else span.text)
    close_segment()
    return _join(parts)


def without_cues(spans: Iterable[Span]) -> list[Span]:
    """`spans` without sound cues, the text spans that met at a cue joined into one (the
    spans of the line as if no cue were written; a joined span keeps the first one's column)."""
    kept: list[Span] = []
    joining = False
    for span in spans:
        if span.kind == "sound":
            joining = bool(kept) and kept[-1].kind == "text"
            continue
        if joining and span.kind == "text":
            kept[-1] = Span("text", kept[-1].text + span.text, kept[-1].value, kept[-1].column)
        else:
            kept.append(span)
        joining = False
    return kept


def _add_end_punctuation(segment: list[str]) -> None:
    """Append '.' to the last text piece with words when it ends in a letter or digit."""
    for index in range(len(segment) - 1, -1, -1):
        piece = segment[index]
        if piece.startswith(("<", " [")) and not piece.startswith("<|phoneme_start|>"):
            continue
        stripped = piece.rstrip()
        if not stripped:
            continue
        if _END_PUNCT_NEEDED.search(stripped):
            full_stop = (
                "。" if _CJK_END.search(stripped) else "."
            )  # Chinese and Japanese end with 。
            segment[index] = stripped + full_stop + piece[len(stripped) :]
        return


def _join(parts: list[str]) -> str:
    """Join rendered pieces, collapsing whitespace; a speaker tag is always followed by one space."""
    text = " ".join(p for p in parts if p)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(rf"({SPEAKER_TAG_PATTERN})(?=\S)", r"\1 ", text)
    text = re.sub(rf"(<{TAG_NAME}>) ", r"\1", text)
    text = re.sub(rf" (</{TAG_NAME}>)", r"\1", text)
    return re.sub(r" ([.,!?;:])", r"\1", text)


def unknown_tags(spans: Iterable[Span]) -> list[tuple[Span, str]]:
    """The tags `--strict-tags` warns about (never dropped), each with why: a bracket whose
    name is not in KNOWN_TAGS, a scoped tag outside the closed `PAIRED_TAGS` list, or a scoped
    language tag (experimental)."""
    result = []
    for span in spans:
        if span.kind in ("tag", "style") and span.value.lower().replace(" ", "-") not in KNOWN_TAGS:
            result.append((span, "is not in the known vocabulary"))
        elif span.kind == "open" and span.value in LANGUAGE_TAGS:
            result.append((span, "is a language tag, experimental in Drama 3"))
        elif span.kind == "open" and span.value not in PAIRED_TAGS:
            result.append(
                (span, f"is not one of Drama 3's paired tags ({', '.join(sorted(PAIRED_TAGS))})")
            )
    return result


def to_prefix_form(text: str) -> str:
    """Scoped tags rewritten as bracket prefixes for models without paired tags (case T4, S2-Pro):
    `<angry>Get out.</angry>` -> `[angry] Get out.`; closing tags are removed."""
    text = re.sub(rf"<({TAG_NAME})>", r"[\1] ", text)
    text = re.sub(rf"</{TAG_NAME}>", "", text)
    return re.sub(r"\s+", " ", text).strip()


def display_text(line) -> str:
    """The words of a script line for tables, labels and subtitles: its text spans only (no
    tags, directions or `{NAME}` switches), whitespace collapsed; the raw text as a fallback."""
    spans = getattr(line, "spans", None) or []
    words = " ".join(_shown(spans).split())
    return words or spoken_text(line.text) or line.text


def _shown(spans: Iterable[Span]) -> str:
    """The text spans of `spans` joined as written, escaped marks unescaped; the spaces around
    a sound cue that stands before punctuation are dropped (`that {sfx: x}?` shows `that?`,
    as the line is said)."""
    shown, after_cue = "", False
    for span in spans:
        if span.kind == "sound":
            after_cue = True
        elif span.kind == "text":
            text = span.text
            if after_cue and _PUNCTUATION_FIRST.match(text) and shown:
                shown, text = shown.rstrip(), text.lstrip()
            shown += text
            after_cue = False
    return _ESCAPED_MARK.sub(r"\1", shown)


_PUNCTUATION_FIRST = re.compile(r"\s*[.,!?;:…)]")


def cue_word(spans: list[Span], cue: Span) -> int:
    """The index, among the words of `display_text`, of the word the sound cue `cue` (one of
    `spans`) starts at: the word after it, or the word it touches when no space stands on
    either side of it (`left{sfx: door},`); the number of words when none follows."""
    at = next(n for n, span in enumerate(spans) if span is cue)
    before, after = _shown(spans[:at]), _shown(spans[at + 1 :])
    glued = before[-1:].strip() and after[:1].strip()
    return len(before.split()) - (1 if glued else 0)
