"""Speaker resolution: map the names lines use onto cast members.

Names match ignoring Unicode normal form, case, repeated whitespace, a trailing `:` or `^` and cue extensions such as
`(V.O.)`, `(cont'd)` or `(as the PRIEST)`; aliases are explicit in the cast. A name that matches
nothing is a ScriptError at the line, naming the closest cast name (difflib).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager

from drama_cli.errors import ScriptError, ScriptErrors, SourcePosition
from drama_cli.script.direction import parse_directions
from drama_cli.script.document import CastMember, Element, Line, Script
from drama_cli.script.problems import Problems
from engine.constants import NUM_SPEAKERS

_EXTENSIONS = re.compile(r"\s*\([^()]*\)\s*")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


def name_key(name: str) -> str:
    """The matching key of a speaker name: in Unicode normal form NFC (an `ë` typed as `e` and a
    combining diaeresis is the one character), extensions, `^`, `:` and `@` stripped, case
    folded, whitespace collapsed, curly apostrophes made straight (`O’BRIEN` is `O'BRIEN`).
    `"  Algernon (V.O.) ^"` -> `"ALGERNON"`."""
    name = unicodedata.normalize("NFC", name)
    name = name.translate(_APOSTROPHES).strip().lstrip("@").rstrip(":^ ").strip()
    name = _EXTENSIONS.sub(" ", name)
    return " ".join(name.split()).upper()


class CastIndex:
    """Lookup from any written name (name or alias) to the canonical cast name.

    Raises ScriptError at the member for a name or alias with nothing to match (empty once
    extensions are stripped) or one two members share."""

    def __init__(self, cast: dict[str, CastMember]):
        self.by_key: dict[str, str] = {}
        for member in cast.values():
            for written in [member.name, *member.aliases]:
                key = name_key(written)
                if not key:
                    kind = "cast name" if written == member.name else "alias"
                    raise ScriptError(
                        f"{kind} {written!r} has nothing a line could call it by",
                        member.position or SourcePosition("<cast>", 1, 1),
                        "give it a letter or digit outside extensions such as (V.O.)",
                    )
                owner = self.by_key.get(key)
                if owner is not None and owner != member.name:
                    raise ScriptError(
                        f"name {written!r} is used by both {owner} and {member.name}",
                        member.position or SourcePosition("<cast>", 1, 1),
                        "names and aliases must be unique",
                    )
                self.by_key[key] = member.name

    def resolve(self, written: str, where: SourcePosition | None) -> str:
        """Canonical cast name for `written`; raises ScriptError naming the closest name."""
        key = name_key(written)
        if key in self.by_key:
            return self.by_key[key]
        close = difflib.get_close_matches(key, list(self.by_key), n=1, cutoff=0.5)
        hint = f"did you mean {self.by_key[close[0]]}?" if close else None
        hint = (hint + " " if hint else "") + "add the name to the cast or as an alias"
        raise ScriptError(
            f"unknown speaker {written.strip()!r}", where or SourcePosition("<script>", 1, 1), hint
        )


def resolve_speakers(script: Script, problems: Problems | None = None) -> Script:
    """Replace every line's speaker and switch target with its canonical cast name (in place).

    Also checks fixed speaker indices (0..15, unique). Unknown names are collected across all
    lines into `problems` when given; without it they are raised at the end (the one ScriptError,
    or ScriptErrors when several). Returns `script` for chaining.
    """
    own = problems is None
    problems = Problems() if own else problems
    with problems.collect():
        check_fixed_indices(script)
    index = CastIndex(script.cast)
    for scene in script.scenes:
        for line in scene.lines:
            with problems.collect():
                _resolve_line(line, index, script.sounds)
    if own:
        problems.raise_if_any()
    return script


def _resolve_line(line: Line, index: CastIndex, sounds: dict) -> None:
    """Resolve one line's speaker and switch targets; raises ScriptError at the first unknown
    name (a switch naming a sound of the `sounds` table says how a sound cue is written)."""
    unknown: list[ScriptError] = []
    with _record(unknown):
        line.speaker = index.resolve(line.speaker, line.cue_position or line.position)
    for span in line.spans:
        if span.kind == "switch":
            with _record(unknown):
                span.value = _switch_target(span, index, sounds, line.position)
    if unknown:
        raise unknown[0] if len(unknown) == 1 else ScriptErrors(unknown)
    if len(line.speakers()) > NUM_SPEAKERS:
        raise ScriptError(
            f"line {line.id} has {len(line.speakers())} voices; one line holds at most "
            f"{NUM_SPEAKERS}",
            line.position,
            "split it into several lines",
        )


def _switch_target(span, index: CastIndex, sounds: dict, where) -> str:
    """The cast name a switch span names; its ScriptError says how a sound cue is written when
    the name is one of `sounds` rather than a voice."""
    try:
        return index.resolve(span.value, span.position or where)
    except ScriptError as err:
        if span.value not in sounds:
            raise
        raise ScriptError(
            err.message,
            err.position,
            f"{span.text} switches the voice; a sound cue is written {{sfx: {span.value}}}",
        ) from None


@contextmanager
def _record(errors: list[ScriptError]) -> Iterator[None]:
    try:
        yield
    except ScriptError as err:
        errors.append(err)


def check_fixed_indices(script: Script) -> None:
    """Raise ScriptError when a fixed speaker index is outside 0..15 or used twice."""
    seen: dict[int, str] = {}
    for member in script.cast.values():
        k = member.speaker_index
        if k is None:
            continue
        where = member.position or SourcePosition(script.source or "<cast>", 1, 1)
        if not 0 <= k < NUM_SPEAKERS:
            raise ScriptError(f"speaker index {k} of {member.name} is outside 0..15", where)
        if k in seen:
            raise ScriptError(
                f"speaker index {k} is given to both {seen[k]} and {member.name}", where
            )
        seen[k] = member.name


def assign_indices(names: list[str], cast: dict[str, CastMember]) -> dict[str, int]:
    """Speaker indices for the voices of one conversation (case B2).

    names: canonical cast names in order of first appearance (duplicates ignored). Fixed indices
    from the cast are kept; the others get the lowest free index in order of appearance.
    Raises ValueError when more than 16 voices are given (callers split first).
    """
    unique = list(dict.fromkeys(names))
    if len(unique) > NUM_SPEAKERS:
        raise ValueError(f"{len(unique)} voices in one conversation; at most {NUM_SPEAKERS}")
    mapping: dict[str, int] = {}
    for name in unique:
        member = cast.get(name)
        if member is not None and member.speaker_index is not None:
            mapping[name] = member.speaker_index
    taken = set(mapping.values())
    free = (k for k in range(NUM_SPEAKERS) if k not in taken)
    for name in unique:
        if name not in mapping:
            mapping[name] = next(free)
    return dict(sorted(mapping.items(), key=lambda item: item[1]))


def add_narration(script: Script) -> Script:
    """Make every action element a line spoken by `script.narrator` (in place).

    Narrated lines get ids `<scene>-a<m>` (m counts action in the scene) so dialogue ids do not
    move when a narrator is added. Returns `script`.
    """
    for scene in script.scenes:
        lines, actions = [], 0
        for entry in scene.elements:
            if isinstance(entry, Line):
                if entry.kind == "dialogue":
                    lines.append(entry)
            elif isinstance(entry, Element) and entry.kind == "action" and entry.text.strip():
                actions += 1
                line = Line(
                    id=f"{scene.id}-a{actions}",
                    speaker=script.narrator,
                    text=entry.text,
                    cue=script.narrator,
                    kind="action",
                    position=entry.position,
                )
                line.spans = parse_directions(entry.text, entry.position)
                lines.append(line)
        scene.lines = lines
    return script
