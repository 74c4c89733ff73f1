"""Plays in EPUB with Standard Ebooks' semantics: speech rows, the dramatis personae, acts and
scenes, stage directions.

A speech is a table row whose first cell is marked `z3998:persona` (the speaker's name as the
play prints it) and whose second cell holds the speech, stage directions inside it marked
`z3998:stage-direction`. A row with an empty first cell is a direction of its own, as is a
paragraph of an act outside the rows ("Scene: Morning-room…"). A top-level section with a
heading is a chapter (an act: "Act I" read as "Act One"); a section with a heading inside it is
a scene. The section marked `z3998:dramatis-personae` gives the cast and its descriptions
(`manuscript.cast_names`).

A short direction of manner at the start of a speech ("Languidly.") becomes the line's note,
sent as the style prefix `[languidly]`; every other direction is a NARRATOR `action:` item at
its place with `directions="narrate"`, or left out (and counted) with `directions="drop"`.
A character never speaks a direction.
"""

from __future__ import annotations

import re
from collections import Counter

from drama_cli.manuscript.cast_names import CastEntry, parse_entries, resolve, split_joint
from drama_cli.manuscript.epub import (
    HEADINGS,
    INVISIBLE,
    Epub,
    bodies,
    dropped_kind,
    epub_types,
    left_out_here,
    local,
    text_of,
)
from drama_cli.manuscript.headings import spoken_heading
from drama_cli.manuscript.imported import (
    ImportedChapter,
    ImportedLine,
    ImportedScene,
    Manuscript,
)
from drama_cli.script.resolve import name_key

DIRECTIONS = ("narrate", "drop")
# Speech headings that name a chorus, not a character: "All" is every character who speaks in
# the scene, "Both" the last two who spoke before it.
CHORUS = {
    "all": "all",
    "all together": "all",
    "omnes": "all",
    "both": "both",
    "both together": "both",
    "ambo": "both",
}
STAGE_DIRECTION = "z3998:stage-direction"
PERSONA = "z3998:persona"
DRAMATIS = "z3998:dramatis-personae"
# Words that qualify a manner without being one ("very sweetly", "rather shy and confidingly").
_MANNER_FILLERS = {
    "very",
    "rather",
    "quite",
    "somewhat",
    "more",
    "most",
    "still",
    "and",
    "but",
    "a",
    "little",
    "bit",
    "too",
    "so",
    "almost",
    "half",
}
# Participles and adjectives of voice or mood that direct how a line is said, not what is done.
_MANNER_WORDS = {
    "laughing",
    "smiling",
    "sighing",
    "sobbing",
    "weeping",
    "crying",
    "stammering",
    "whispering",
    "shouting",
    "frowning",
    "surprised",
    "astounded",
    "amazed",
    "shocked",
    "crushed",
    "indignant",
    "angry",
    "puzzled",
    "shy",
    "bored",
    "hurt",
    "amused",
    "annoyed",
    "nervous",
    "sad",
    "cheerful",
    "excited",
    "coldly",
    "aside",
    "earnestly",
    "eagerly",
}


def manner_note(direction: str) -> str | None:
    """The note a direction of manner gives its speech ("Very sweetly." → "very sweetly"),
    None for business ("Rising.", "Hands them on a salver."). A manner is at most four words,
    each an adverb in -ly, a word of voice or mood, or a qualifier; or "In a … voice/manner/tone"."""
    words = re.findall(r"[\w’']+", direction.lower())
    if not words or len(words) > 5:
        return None
    phrase = " ".join(words)
    spoken = re.fullmatch(r"in an? (?:[\w’']+ ){0,2}(?:voice|manner|tone|whisper)", phrase)
    plain = (
        len(words) <= 4
        and all(w.endswith("ly") or w in _MANNER_WORDS or w in _MANNER_FILLERS for w in words)
        and not all(w in _MANNER_FILLERS for w in words)
    )
    return phrase if spoken or plain else None


def read_play(epub: Epub, manuscript: Manuscript, directions: str) -> None:
    """Fill `manuscript` with the play in `epub`: its cast (key → description) and one chapter
    per act. Front and back matter are counted in `manuscript.left_out`."""
    reader = _PlayReader(manuscript.left_out)
    for _, body in bodies(epub, manuscript.left_out):
        reader.document(body)
    finish_play(manuscript, reader.entries, reader.labels, reader.chapters, directions)


def finish_play(
    manuscript: Manuscript,
    entries: list[CastEntry],
    labels: Counter,
    chapters: list[ImportedChapter],
    directions: str,
) -> None:
    """Fill `manuscript` from a play as read: `chapters` whose scenes hold raw items
    ((label, [(kind, words)]) for a speech, (None, words) for a direction), the dramatis
    personae `entries` and the count of each speech label. Resolves the speakers, sets the
    cast, and narrates or drops (and counts) the directions."""
    chorus = {label for label in labels if _chorus(label)}
    keys, entry_keys = _cast_keys(
        entries, labels - Counter({label: labels[label] for label in chorus})
    )
    manuscript.cast = _cast(entries, entry_keys, keys)
    for chapter in chapters:
        for scene in chapter.scenes:
            scene.lines = _scene_lines(scene.lines, keys, manuscript.cast)
            if directions == "drop":
                manuscript.left_out["stage direction"] += sum(
                    line.speaker is None for line in scene.lines
                )
                scene.lines = [line for line in scene.lines if line.speaker is not None]
        chapter.scenes = [scene for scene in chapter.scenes if scene.lines]
    manuscript.chapters = [c for c in chapters if c.scenes]


def _chorus(label: str) -> str | None:
    """'all' or 'both' for a chorus heading ("ALL.", "Both together"), else None."""
    return CHORUS.get(" ".join(label.lower().strip(" .:").split()))


def _scene_lines(raws: list, keys: dict[str, list[str]], cast: dict) -> list[ImportedLine]:
    """A scene's raw items as lines; a chorus speech is said by each character it names (one
    line each, all but the first overlapping): "All", everyone who speaks in the scene, "Both",
    the last two who spoke before it (else the scene's first two)."""
    present: list[str] = []
    for label, _ in raws:
        for key in keys.get(label, []) if label is not None else []:
            if key not in present:
                present.append(key)
    lines: list[ImportedLine] = []
    recent: list[str] = []
    for raw in raws:
        label = raw[0]
        kind = _chorus(label) if label is not None else None
        if kind == "all":
            speakers = present
        elif kind == "both":
            speakers = recent[:2][::-1] if len(recent) >= 2 else present[:2]
        else:
            speakers = keys.get(label, []) if label is not None else []
        if label is not None and not speakers:  # a chorus with no one to say it
            speakers = [name_key(label)]
            cast.setdefault(speakers[0], None)
        lines += _lines(raw, speakers)
        for key in speakers if not kind else []:
            recent = [key] + [other for other in recent if other != key]
    return lines


class _PlayReader:
    """Walks a play's documents: chapters of scenes whose `lines` hold raw items until the cast
    is known ((label, segments) for a speech, (None, text) for a direction)."""

    def __init__(self, left_out: Counter):
        self.left_out = left_out
        self.entries: list[CastEntry] = []
        self.labels: Counter = Counter()
        self.chapters: list[ImportedChapter] = []

    def document(self, body) -> None:
        self._walk(body, depth=0)

    def _walk(self, element, depth: int) -> None:
        for child in element:
            name = local(child.tag)
            if not name:
                continue
            if DRAMATIS in epub_types(child):
                self._dramatis(child)
            elif left_out_here(child, self.left_out):
                continue
            elif name in HEADINGS:
                self._heading(text_of(child, self.left_out), depth)
            elif name == "tr":
                self._row(child)
            elif name in ("section", "article", "div", "table", "tbody", "thead", "body", "header"):
                nested = name in ("section", "article") and any(
                    local(c.tag) in HEADINGS for c in child
                )
                self._walk(child, depth + 1 if nested else depth)
            else:
                words = text_of(child, self.left_out)
                if words:
                    self._direction(words)

    def _dramatis(self, section) -> None:
        self.left_out["dramatis personae (made the cast)"] += 1
        for item in section.iter():
            if local(item.tag) == "li" and not any(local(c.tag) in ("ul", "ol") for c in item):
                words = text_of(item)
                if words:
                    self.entries += parse_entries(words)

    def _heading(self, words: str, depth: int) -> None:
        if not words:
            return
        if depth <= 1 or not self.chapters:
            self.chapters.append(
                ImportedChapter(spoken_heading(words, "act"), scenes=[ImportedScene(None)])
            )
        else:
            scenes = self.chapters[-1].scenes
            title = spoken_heading(words, "scene")
            if scenes[-1].title is None and not scenes[-1].lines:
                scenes[-1].title = title
            else:
                scenes.append(ImportedScene(title))

    def _scene(self) -> ImportedScene:
        if not self.chapters:
            self.chapters.append(ImportedChapter("Prologue", scenes=[ImportedScene(None)]))
        return self.chapters[-1].scenes[-1]

    def _direction(self, words: str) -> None:
        self._scene().lines.append((None, words))

    def _row(self, row) -> None:
        cells = [cell for cell in row if local(cell.tag) in ("td", "th")]
        persona = next((cell for cell in cells if PERSONA in epub_types(cell)), None)
        speech = [cell for cell in cells if cell is not persona]
        segments = [segment for cell in speech for segment in speech_segments(cell, self.left_out)]
        label = text_of(persona) if persona is not None else ""
        if not label:
            for _, words in segments:
                self._direction(words)
            return
        self.labels[label] += 1
        self._scene().lines.append((label, segments))


def speech_segments(cell, left_out: Counter) -> list[tuple[str, str]]:
    """A speech cell as ('speech' | 'direction', words) segments in order, adjacent speech joined."""
    segments: list[list[str]] = []

    def add(kind: str, words: str) -> None:
        if not words.strip():
            if segments and segments[-1][0] == "speech":
                segments[-1][1] += words
            return
        if segments and segments[-1][0] == kind == "speech":
            segments[-1][1] += words
        else:
            segments.append([kind, words])

    def walk(node) -> None:
        add("speech", node.text or "")
        for child in node:
            if STAGE_DIRECTION in epub_types(child):
                add("direction", text_of(child, left_out))
            elif dropped_kind(child) is not None:
                if dropped_kind(child):
                    left_out[dropped_kind(child)] += 1
            else:
                if local(child.tag) in ("p", "br", "div"):
                    add("speech", " ")
                walk(child)
            add("speech", child.tail or "")

    walk(cell)
    return [
        (kind, " ".join(words.translate(INVISIBLE).split()))
        for kind, words in segments
        if words.strip()
    ]


def _cast_keys(entries: list[CastEntry], labels: Counter) -> tuple[dict[str, list[str]], list[str]]:
    """(row label → the cast keys who speak it, several for a joint heading; each entry's key,
    in the entries' order). An entry's key is the label its rows use most, so lines read as the
    play prints them."""
    by_entry: dict[int, Counter] = {}
    resolved: dict[str, list] = {}
    for label in labels:
        entry = resolve(label, entries)
        parts = [label] if entry else split_joint(label)
        resolved[label] = [entry] if entry else [resolve(part, entries) or part for part in parts]
        for who in resolved[label]:
            if isinstance(who, CastEntry):
                by_entry.setdefault(id(who), Counter())[
                    label if entry else _part_label(who, parts, entries)
                ] += labels[label]
    entry_key = {
        id(e): name_key(by_entry[id(e)].most_common(1)[0][0])
        if id(e) in by_entry
        else name_key(e.name)
        for e in entries
    }
    keys = {
        label: [entry_key[id(who)] if isinstance(who, CastEntry) else name_key(who) for who in whos]
        for label, whos in resolved.items()
    }
    return keys, [entry_key[id(e)] for e in entries]


def _part_label(entry: CastEntry, parts: list[str], entries: list[CastEntry]) -> str:
    return next(part for part in parts if resolve(part, entries) is entry)


def _cast(
    entries: list[CastEntry], entry_keys: list[str], keys: dict[str, list[str]]
) -> dict[str, str | None]:
    """Cast key → description: dramatis personae first, in their order, then the other speakers
    by their first row. The description is the entry's ("Butler"), or the whole entry where the
    key is not the entry's name ("JACK": "John Worthing, J. P.")."""
    cast: dict[str, str | None] = {}
    for entry, key in zip(entries, entry_keys):
        cast[key] = entry.description if key == name_key(entry.name) else entry.printed
    for whos in keys.values():
        for key in whos:
            cast.setdefault(key, None)
    return cast


def _lines(raw, speakers: list[str]) -> list[ImportedLine]:
    """The script lines of a raw item: a direction as an action, a speech as the lines of its
    `speakers` (a manner direction at its start as their note, other directions as actions)."""
    label, body = raw
    if label is None:
        return [ImportedLine(None, body)]
    lines: list[ImportedLine] = []
    note = None
    for index, (kind, words) in enumerate(body):
        if kind == "direction":
            manner = manner_note(words) if index == 0 else None
            if manner:
                note = manner
            else:
                lines.append(ImportedLine(None, words))
            continue
        for number, speaker in enumerate(speakers):
            lines.append(
                ImportedLine(speaker, words, note=note, overlap=number > 0, rule="persona")
            )
        note = None
    return lines
