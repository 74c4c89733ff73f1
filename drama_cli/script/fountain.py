"""The Fountain screenplay reader (https://fountain.io syntax), into a Script.

Elements: title page; scene headings (`INT.`/`EXT.`/`EST.`/`I/E`, any case, forced `.`, scene
numbers `#1A#`); character cues (all capitals with at least one letter, or forced `@`; any number
of extensions in any case, `(as ...)`; dual dialogue `^`); parentheticals after the cue and
mid-speech; dialogue (a line of exactly two spaces continues it); action (forced `!`);
transitions (`... TO:`, forced `>`); centered `>text<`; lyrics `~`; notes `[[...]]`; boneyard
`/*...*/` (removed anywhere, also inline and across lines); sections `#`; synopses `=`; page
breaks `===`; emphasis `*`, `**`, `_` (stripped). A UTF-8 BOM and CR/CRLF line ends read the same
as LF.

How screenplay elements become performance:
* each cue's speech is one Line; a mid-speech parenthetical starts a new Line, so a direction
  applies exactly to the words after it (case T1). `(beat)` and `(pause)` add 0.5 s to the
  pause after the previous Line (`beat_s`, on top of the gap) instead of a direction; other
  parentheticals become the next Line's notes (compiled to a bracket direction `[whispering]`);
* notes are kept for display (scene elements, and the Line's `remarks` when inside speech), never
  spoken; action is spoken only when the cast names a narrator;
* dual dialogue (`^`) marks the Line `overlap=True`, `pair` = the previous dialogue line's id.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.characters import invisible_character_warnings, refuse_control_characters
from drama_cli.script.direction import (
    MARKDOWN_MARKS,
    check_model_tokens,
    parse_directions,
)
from drama_cli.script.document import (
    DialogueNumbers,
    Element,
    Line,
    Scene,
    Script,
    Warning_,
)
from drama_cli.script.fountain_sounds import sound_cue
from drama_cli.script.language_tags import LANGUAGE_NAMES, is_language_label
from drama_cli.script.problems import Problems
from drama_cli.script.resolve import name_key

PAUSE_S = 0.5
_TITLE_KEYS = (
    "title",
    "credit",
    "author",
    "authors",
    "source",
    "draft date",
    "date",
    "contact",
    "copyright",
    "notes",
    "revision",
    "format",
    "font",
    # book keys (drama_cli.script.book)
    "subtitle",
    "narrator",
    "publisher",
    "year",
    "language",
    "cover",
    "credits",
    "chapter headings",
)
_HEADING = re.compile(r"^(?:int\.?/ext|int|ext|est|i/e)(?:\.|\s)", re.IGNORECASE)
_SCENE_NUMBER = re.compile(r"\s*#([\w.-]+)#\s*$")
_TRANSITION = re.compile(r"^[^a-z]*TO:$")
_EXTENSION = re.compile(r"\(([^()]*)\)")
_PAUSE_WORDS = {
    "beat",
    "pause",
    "a beat",
    "long beat",
    "long pause",
    "short pause",
    "beat.",
    "pause.",
}
# Parentheses of a parenthetical: ASCII, or full width as Chinese and Japanese scripts write them.
_PAREN_PAIRS = (("(", ")"), ("\uff08", "\uff09"))
# The start of a scene heading as screenplays in Russian, Chinese and Japanese write it: Fountain
# does not take these as headings unless forced with '.', so `drama check` hints at forcing them.
# Latin `INT。`/`EXT．` with a full-width stop, as Japanese and Chinese scripts type them, too.
_OTHER_SCRIPT_HEADING = re.compile(
    r"^(?:ИНТ|НАТ|ЭКСТ|ИНТ\./НАТ|内景|外景|内/外景|内外景|室内|屋外|内|外)"
    r"(?:[.．。:：/]|\s)"
    r"|^(?i:int\.?/ext|int|ext|est|i/e)[．。：]"
)
_SENTINEL = "\x01"


@dataclass
class _Row:
    """One source line after boneyard and notes are taken out: 1-based number and its text."""

    number: int
    text: str


def read_fountain(
    source: str,
    path: str = "<script>",
    base_dir: str | None = None,
    problems: Problems | None = None,
) -> Script:
    """Read Fountain text into a Script with an empty cast (speakers unresolved).

    source: the file's text. path: the name used in positions. base_dir: folder for reference
    paths (default: the folder of `path`). problems: a collector for errors in paragraphs (the
    reader goes on after them); without one they are raised at the end (ScriptErrors when several).
    Raises ScriptError (file:line:col) for a control character anywhere in the text, for an
    unclosed boneyard or note and for bad directions in dialogue.
    """
    own = problems is None
    problems = Problems() if own else problems
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    refuse_control_characters(text, path)
    source_text = text
    text = text.replace("\ufeff", "")
    text, notes = _remove_boneyard_and_notes(text, path)
    rows = [
        _Row(n, line.replace(_SENTINEL, ""))
        for n, line in enumerate(text.split("\n"), start=1)
        if not (_SENTINEL in line and not line.replace(_SENTINEL, "").strip())
    ]
    script = Script(
        source=path,
        base_dir=base_dir if base_dir is not None else os.path.dirname(path) or ".",
        format="fountain",
    )
    script.warnings.extend(invisible_character_warnings(source_text, path))
    rows = _read_title_page(rows, script)
    builder = _Builder(script, path, notes)
    for block in _blocks(rows):
        with problems.collect():
            builder.block(block)
    builder.finish()
    if own:
        problems.raise_if_any()
    return script


def _remove_boneyard_and_notes(text: str, path: str) -> tuple[str, list[Element]]:
    """Blank out `/*...*/` (boneyards nest, as afterwriting and Highland read them) and
    `[[...]]`, keeping line numbers; a line left empty by a removal is marked with a sentinel so
    it is dropped rather than read as a blank line. An escaped `\\/*` opens nothing.
    Raises ScriptError at an opener that is never closed."""
    notes: list[Element] = []

    def position(index: int) -> SourcePosition:
        return SourcePosition(
            path, text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)
        )

    def blank(part: str) -> str:
        return _SENTINEL + part.count("\n") * ("\n" + _SENTINEL)

    pieces, start = [], 0
    for begin, end in _boneyards(text, position):
        pieces += [text[start:begin], blank(text[begin:end])]
        start = end
    text = "".join(pieces) + text[start:]
    pieces, start = [], 0
    while (begin := text.find("[[", start)) >= 0:
        end = text.find("]]", begin + 2)
        if end < 0:
            raise ScriptError("unclosed note [[", position(begin), "close it with ]]")
        notes.append(Element("note", " ".join(text[begin + 2 : end].split()), position(begin)))
        pieces += [text[start:begin], blank(text[begin : end + 2])]
        start = end + 2
    return "".join(pieces) + text[start:], notes


def _boneyards(text: str, position) -> list[tuple[int, int]]:
    """(start, end) of each outermost boneyard `/* ... */` in `text`, inner ones nested in it.
    Raises ScriptError at the outermost opener left open."""
    found, depth, opened = [], 0, 0
    for match in re.finditer(r"\\[\s\S]|/\*|\*/", text):
        mark = match.group()
        if mark == "/*":
            opened = match.start() if depth == 0 else opened
            depth += 1
        elif mark == "*/" and depth:
            depth -= 1
            if depth == 0:
                found.append((opened, match.end()))
    if depth:
        raise ScriptError(
            "unclosed boneyard /*",
            position(opened),
            f"close it with */ ({depth} left open: boneyards nest)"
            if depth > 1
            else "close it with */",
        )
    return found


def _read_title_page(rows: list[_Row], script: Script) -> list[_Row]:
    """Consume the title page (`Key: value`, indented continuation lines) if the text opens with one."""
    index = 0
    while index < len(rows) and not rows[index].text.strip():
        index += 1
    if index >= len(rows) or not _title_key(rows[index].text):
        return rows
    key = None
    while index < len(rows) and rows[index].text.strip():
        line = rows[index].text
        match = _title_key(line) if not line[:1].isspace() else None
        if match:
            key = match.group(1).strip()
            script.title_page[key] = match.group(2).strip()
            if key.lower() == "language":
                _check_language(script, rows[index], match)
        elif key is not None:
            joined = script.title_page[key] + "\n" + line.strip()
            script.title_page[key] = joined.strip("\n")
        index += 1
    title = script.title_page.get("Title") or script.title_page.get("title") or ""
    script.title = " ".join(_strip_emphasis(title).split())
    return rows[index:]


def _check_language(script: Script, row: _Row, match: re.Match) -> None:
    """Raises ScriptError at a title page `Language:` that is not a well-formed language tag."""
    label = match.group(2).strip()
    if label and not is_language_label(label, LANGUAGE_NAMES):
        column = match.start(2) + len(match.group(2)) - len(match.group(2).lstrip()) + 1
        raise ScriptError(
            f"Language {label!r} is not a language tag such as en, en-GB or de",
            SourcePosition(script.source, row.number, column),
        )


def _title_key(line: str) -> re.Match | None:
    match = re.match(r"^([A-Za-z][A-Za-z ]*)[:\uff1a](.*)$", line)  # ASCII or full-width colon
    if match and (match.group(1).strip().lower() in _TITLE_KEYS):
        return match
    return match if match and line.strip().lower().startswith(_TITLE_KEYS) else None


def _blocks(rows: list[_Row]) -> list[list[_Row]]:
    """Rows grouped into paragraphs separated by blank lines (a line of exactly two spaces is not blank)."""
    blocks: list[list[_Row]] = []
    current: list[_Row] = []
    for row in rows:
        if row.text.strip() or (row.text == "  " and current):
            current.append(row)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def parse_cue(line: str) -> tuple[str, list[str], bool] | None:
    """(name, extensions, dual) when `line` is a character cue, else None (case F1, F2).

    A cue is `@` + name, or a name in capitals with at least one letter, followed only by
    parenthesised extensions (any case; `(as the PRIEST)` too) and an optional `^`.
    """
    text = line.strip()
    dual = text.endswith("^")
    if dual:
        text = text[:-1].rstrip()
    forced = text.startswith("@")
    if forced:
        text = text[1:].strip()
    name, _, rest = text.partition("(")
    rest = "(" + rest if _ else ""
    name = " ".join(name.split())
    extensions = [e.strip() for e in _EXTENSION.findall(rest)]
    if _EXTENSION.sub("", rest).strip():
        return None
    if not name:
        return None
    if not forced and (
        not any(c.isalpha() for c in name) or name != name.upper() or name.endswith(":")
    ):
        return None
    return name, extensions, dual


class _Builder:
    """Turns blocks into scenes, lines and display elements."""

    def __init__(self, script: Script, path: str, notes: list[Element]):
        self.script, self.path = script, path
        self.pending_notes = sorted(notes, key=lambda e: (e.position.line, e.position.column))
        self.all_notes = list(self.pending_notes)
        self.note_lines = [note.position.line for note in self.all_notes]
        self.scene: Scene | None = None
        self.scene_count = 0
        self.numbers = DialogueNumbers()
        self.last_dialogue: Line | None = None

    def at(self, row: _Row, column: int = 1) -> SourcePosition:
        """Position of `row` (1-based column)."""
        return SourcePosition(self.path, row.number, column)

    def at_text(self, row: _Row) -> SourcePosition:
        """Position of the first non-blank character of `row`."""
        return self.at(row, len(row.text) - len(row.text.lstrip()) + 1)

    def current(self, row: _Row) -> Scene:
        """The scene being filled; an implicit `scene-0` before the first heading."""
        if self.scene is None:
            self.scene = Scene(id="scene-0", position=self.at(row))
            self.script.scenes.append(self.scene)
        return self.scene

    def add(self, element: Element | Line, row: _Row) -> None:
        """Append a display element, after the notes that come before it (a note after its
        text on its row comes after it)."""
        self._flush_notes(row.number, self.at_text(row).column)
        self.current(row).elements.append(element)

    def _flush_notes(self, before_line: int, before_column: int | None = None) -> None:
        """Place the pending notes that start on source lines up to `before_line` (on that
        line, only those starting at or before `before_column` when given)."""

        def due(note: Element) -> bool:
            line, column = note.position.line, note.position.column
            return line < before_line or (
                line == before_line and (before_column is None or column <= before_column)
            )

        while self.pending_notes and due(self.pending_notes[0]):
            note = self.pending_notes.pop(0)
            scene = self.scene or self.current(_Row(note.position.line, ""))
            cue = sound_cue(
                note.text,
                SourcePosition(note.position.file, note.position.line, note.position.column + 2),
            )
            if cue is not None:
                scene.elements.append(cue[0])
                scene.sounds.append(cue[1])
            else:
                scene.elements.append(note)

    def finish(self) -> None:
        """Flush notes; structure before the first heading (sections, synopses) joins the first
        scene when nothing is spoken there."""
        self._flush_notes(10**9)
        scenes = self.script.scenes
        if scenes and scenes[0].id == "scene-0" and not scenes[0].lines and len(scenes) > 1:
            scenes[1].elements[:0] = scenes[0].elements
            scenes.pop(0)

    def block(self, rows: list[_Row]) -> None:
        """Read one paragraph (rows between blank lines)."""
        while rows:
            rows = self._one(rows)

    def _one(self, rows: list[_Row]) -> list[_Row]:
        """Read the element(s) at the start of `rows`; return the rows left to read."""
        first = rows[0]
        text = first.text.strip()
        if re.fullmatch(r"={3,}", text):
            self.add(Element("page_break", "", self.at(first)), first)
        elif text.startswith("#"):
            depth = len(text) - len(text.lstrip("#"))
            self.add(Element("section", text[depth:].strip(), self.at(first), depth), first)
        elif text.startswith("=") and not text.startswith("=="):
            self.add(Element("synopsis", text[1:].strip(), self.at(first)), first)
        elif (text.startswith(".") and not text.startswith("..")) or _HEADING.match(text):
            self._heading(first, text[1:] if text.startswith(".") else text)
        elif text.startswith(">") and text.endswith("<"):
            self.add(
                Element("centered", _strip_emphasis(text[1:-1].strip()), self.at(first)), first
            )
        elif text.startswith(">") or (_TRANSITION.match(text) and len(rows) == 1):
            self.add(Element("transition", text.lstrip(">").strip(), self.at(first)), first)
        elif text.startswith("~"):
            self.add(Element("lyric", _strip_emphasis(text[1:].strip()), self.at(first)), first)
        elif (
            not text.startswith("!") and len(rows) > 1 and parse_cue(text) and rows[1].text.strip()
        ):
            self._dialogue(rows)
            return []
        else:
            return self._action(rows)
        return rows[1:]

    def _heading(self, row: _Row, text: str) -> None:
        number = None
        match = _SCENE_NUMBER.search(text)
        if match:
            number, text = match.group(1), text[: match.start()]
        self.scene_count += 1
        scene_id = f"scene-{number}" if number else f"scene-{self.scene_count}"
        first = next((s for s in self.script.scenes if s.id == scene_id), None)
        if first is not None:  # read on under a free id; the error stops the command
            scene_id = f"{scene_id}-{self.scene_count}-duplicate"
        self._flush_notes(row.number - 1)
        self.scene = Scene(id=scene_id, title=text.strip(), number=number, position=self.at(row))
        self.script.scenes.append(self.scene)
        self.scene.elements.append(Element("heading", text.strip(), self.at(row)))
        self.last_dialogue = None
        if first is not None:
            raise self._duplicate_scene(row, number, first)

    def _duplicate_scene(self, row: _Row, number: str | None, first: Scene) -> ScriptError:
        """The error of a heading whose scene id another heading has: two headings numbered
        alike, or a number that is another unnumbered heading's automatic id (`scene-N` for
        the Nth heading)."""
        where = f"line {first.position.line}"
        if number is None:
            return ScriptError(
                f"this heading's automatic id scene-{self.scene_count} is the number "
                f"of the heading at {where}",
                self.at_text(row),
                "number this heading too (#N# at the end of the heading)",
            )
        column = row.text.rfind(f"#{number}#") + 1
        if first.number is None:
            return ScriptError(
                f"scene number #{number}# is the automatic id of the unnumbered heading at {where}",
                self.at(row, column),
                "number that heading too, or give this one another number",
            )
        return ScriptError(
            f"duplicate scene number #{number}# (first at {where})",
            self.at(row, column),
            "give each scene its own number",
        )

    def _action(self, rows: list[_Row]) -> list[_Row]:
        """Action runs until a line that starts another single-line element (heading, transition...)."""
        taken = [rows[0]]
        for row in rows[1:]:
            stripped = row.text.strip()
            if _HEADING.match(stripped) or re.fullmatch(r"={3,}", stripped):
                break
            taken.append(row)
        if len(taken) == 1 and _OTHER_SCRIPT_HEADING.match(taken[0].text.strip()):
            self.script.warnings.append(
                Warning_(
                    f"{taken[0].text.strip()!r} reads like a scene heading, but Fountain takes only INT, EXT, "
                    "EST, INT./EXT. and I/E as headings, so it is read as action: to make it a scene "
                    f"heading, force it with a leading '.' (.{taken[0].text.strip()})",
                    self.at(taken[0]),
                )
            )
        cue = sound_cue(taken[0].text, self.at(taken[0])) if len(taken) == 1 else None
        if cue is not None:
            self.add(cue[0], taken[0])
            self.current(taken[0]).sounds.append(cue[1])
            return rows[1:]
        body = "\n".join(r.text.rstrip() for r in taken)
        forced = body.lstrip().startswith("!")
        body = body.lstrip()[1:] if forced else body.strip("\n")
        element = Element("action", _strip_emphasis(body, spoken=True).strip(), self.at(taken[0]))
        self.add(element, taken[0])
        self.last_dialogue = None  # dual dialogue pairs speeches with nothing between them
        if not forced:
            self.script.action_openings.append((element.position, taken[0].text.strip()))
        self.script.buried_cues += [
            (self.at_text(row), row.text.strip())
            for row in taken[1:-1]
            if parse_cue(row.text) and not row.text.strip().startswith("@")
        ]
        if len(taken) == 1 and not forced and parse_cue(taken[0].text.strip()):
            self.script.lone_cues.append(element)
        return rows[len(taken) :]

    def _dialogue(self, rows: list[_Row]) -> None:
        cue_row = rows[0]
        name, extensions, dual = parse_cue(cue_row.text)
        self._flush_notes(cue_row.number)
        scene = self.current(cue_row)
        for row in rows[1:]:
            if _is_parenthetical(row.text.strip()):  # a note, sent as a direction
                check_model_tokens(row.text, self.at(row))
        parts = _speech_parts(rows[1:])
        first_line = None
        parts_made = 0
        for notes, text_rows, pause in parts:
            if not _speech_text(text_rows).strip():
                text_rows = []
            if not text_rows:
                if pause and scene.lines:  # a beat before the words: silence after the line before
                    scene.lines[-1].beat_s += PAUSE_S
                elif notes:
                    scene.elements.append(
                        Element("parenthetical", f"({'; '.join(notes)})", self.at(cue_row))
                    )
                    self._warn_unperformed_notes(notes, rows, name)
                continue
            words_at = self.at_text(text_rows[0])  # a note before the words comes before the line
            self._flush_notes(words_at.line, words_at.column)
            line = self._line(scene, name, extensions, notes, text_rows, cue_row)
            line.part = parts_made
            parts_made += 1
            if pause:
                line.beat_s += PAUSE_S
            first_line = first_line or line
        if first_line is not None:
            if dual and self.last_dialogue is not None:
                first_line.overlap = True
                first_line.pair = self.last_dialogue.id
            elif dual:
                self.script.warnings.append(
                    Warning_(
                        f"dual dialogue '^' on {name}'s cue has no speech right before it to speak with, so it "
                        f"is an ordinary speech: put it right after the speech it goes with",
                        self.at_text(cue_row),
                    )
                )
            self.last_dialogue = first_line
        self._flush_notes(rows[-1].number)

    def _line(
        self,
        scene: Scene,
        name: str,
        extensions: list[str],
        notes: list[str],
        text_rows: list[_Row],
        cue_row: _Row,
    ) -> Line:
        number = self.numbers.next(scene)
        lyric = all(r.text.strip().startswith("~") for r in text_rows if r.text.strip())
        text = _speech_text(text_rows)
        first = text_rows[0]
        where = self.at_text(first)
        line = Line(
            id=f"{scene.id}-{number}",
            speaker=name,
            text=text,
            cue=name,
            extensions=list(extensions),
            notes=notes + (["singing"] if lyric else []),
            position=where,
            cue_position=self.at_text(cue_row),
        )
        line.remarks = [n.text for n in self.notes_between(cue_row.number, text_rows[-1].number)]
        line.spans = parse_directions(text, where)
        self._warn_open_parentheticals(text_rows, line)
        for row in text_rows[1:]:
            if parse_cue(row.text) and not row.text.strip().startswith("@"):
                self.script.cue_like_rows.append((self.at_text(row), row.text.strip(), line))
        scene.lines.append(line)
        scene.elements.append(line)
        return line

    def _warn_unperformed_notes(self, notes: list[str], rows: list[_Row], speaker: str) -> None:
        """Warn of parentheticals with no words after them in their speech: a direction is sent
        before the words it directs, so these direct nothing."""
        row = next(r for r in reversed(rows) if _is_parenthetical(r.text.strip()))
        note = "; ".join(notes)
        self.script.warnings.append(
            Warning_(
                f"parenthetical '({note})' of {speaker} has no words after it, so it directs nothing: put it "
                f"before the words it directs, or write it in the speech as a tag ([{note}])",
                self.at_text(row),
            )
        )

    def _warn_open_parentheticals(self, text_rows: list[_Row], line: Line) -> None:
        """Warn of a dialogue row that opens a parenthetical without ending it on that row: the
        spec reads it as dialogue, so the direction would be spoken as words."""
        for row in text_rows:
            stripped = row.text.strip()
            opening = next((b for a, b in _PAREN_PAIRS if stripped.startswith(a)), None)
            if opening is None:
                continue
            why = (
                "is not closed" if opening not in stripped else "has words after it on the same row"
            )
            self.script.warnings.append(
                Warning_(
                    f"parenthetical {stripped!r} of {line.speaker} (line {line.id}) {why}, so Fountain "
                    f"reads the row as dialogue and the direction would be spoken: put the whole "
                    f"parenthetical, closed, on a row of its own",
                    self.at_text(row),
                )
            )

    def notes_between(self, first: int, last: int) -> list[Element]:
        """Writer's notes that start on source lines first..last."""
        lo = bisect.bisect_left(self.note_lines, first)
        hi = bisect.bisect_right(self.note_lines, last)
        return self.all_notes[lo:hi]


def _speech_text(rows: list[_Row]) -> str:
    """The words of a stretch of speech: rows stripped, lyric marks and emphasis removed."""
    return "\n".join(
        _strip_emphasis(r.text.strip().lstrip("~").strip(), spoken=True) if r.text.strip() else ""
        for r in rows
    ).strip()


def _speech_parts(rows: list[_Row]) -> list[tuple[list[str], list[_Row], bool]]:
    """Split speech at parentheticals: [(notes before, text rows, pause after), ...]."""
    parts: list[tuple[list[str], list[_Row], bool]] = []
    notes: list[str] = []
    text_rows: list[_Row] = []
    for row in rows:
        stripped = row.text.strip()
        if _is_parenthetical(stripped):
            content = " ".join(_strip_emphasis(stripped[1:-1]).split())
            is_pause = content.lower() in _PAUSE_WORDS
            if text_rows:
                parts.append((notes, text_rows, is_pause))
                notes, text_rows = [], []
            elif is_pause and parts:
                parts[-1] = (parts[-1][0], parts[-1][1], True)
            elif is_pause:
                parts.append(([], [], True))
            if not is_pause and content:
                notes.append(content)
            continue
        text_rows.append(row)
    if text_rows or notes:
        parts.append((notes, text_rows, False))
    return parts


def _is_parenthetical(stripped: str) -> bool:
    """True for a row of speech (stripped) that is a parenthetical: `(whispering)`."""
    return any(stripped.startswith(a) and stripped.endswith(b) for a, b in _PAREN_PAIRS)


def _strip_emphasis(text: str, spoken: bool = False) -> str:
    """Remove Fountain emphasis markers (`*italic*`, `**bold**`, `_underline_`) and undo the
    backslash escapes (`\\*` is `*`, `\\!` is `!`). In `spoken` text (speech and action) an
    escaped markdown mark stays escaped, `\\*`, so the markup clean-up keeps the character
    (`direction.clean_markup`)."""
    kept = {}

    def hold(match: re.Match) -> str:
        key = chr(0xE100 + len(kept))  # a private-use character no emphasis rule touches
        char = match.group(1)
        kept[key] = "\\" + char if spoken and char in MARKDOWN_MARKS else char
        return key

    text = re.sub(r"\\([^\sA-Za-z0-9])", hold, text)
    text = re.sub(r"\*{1,3}", "", text)
    text = re.sub(r"(?<!\w)_(?=\S)|(?<=\S)_(?!\w)", "", text)
    return "".join(kept.get(char, char) for char in text)


def cue_like_warnings(script: Script) -> list[Warning_]:
    """Warnings for dialogue rows that are exactly a cast member's name (or alias): the spec reads
    them as dialogue, but they are most likely the next cue after a missing blank line. Also for
    a cast member's cue with no dialogue after it (a lone `HOLMES` before a note or the end): the
    spec reads it as action; it becomes a `cue` element, never narrated. And for action that opens
    with a cast member's name not written as a cue (`Holmes` over a speech, `HOLMES: Come in.`),
    or holds a cast member's cue with no blank line before it: the spec reads it as action, which
    stays action."""
    names = {
        name_key(written): member.name
        for member in script.cast.values()
        for written in [member.name, *member.aliases]
    }
    warnings = []
    for element in script.lone_cues:
        name = parse_cue(element.text)
        member = names.get(name_key(name[0])) if name else None
        if member is not None:
            element.kind = "cue"  # not action: never narrated
            warnings.append(
                Warning_(
                    f"character cue {element.text!r} ({member}) has no dialogue after it, so nothing "
                    f"is spoken for it: write the speech on the line after the cue, or remove the cue",
                    element.position,
                )
            )
    for position, row, line in script.cue_like_rows:
        member = names.get(name_key(row))
        if member is not None:
            warnings.append(
                Warning_(
                    f"dialogue line {row!r} of {line.speaker} (line {line.id}) is a cast member's name: "
                    f"Fountain reads it as dialogue; if it is {member}'s cue, put a blank line before it",
                    position,
                )
            )
    for position, row in script.buried_cues:
        member = names.get(name_key(row))
        if member is not None:
            warnings.append(
                Warning_(
                    f"character cue {row!r} ({member}) is inside action, so Fountain reads it and the "
                    f"speech under it as action: put a blank line before it",
                    position,
                )
            )
    for position, row in script.action_openings:
        head, colon, _ = row.partition(":")
        member = names.get(name_key(head if colon else row))
        if member is not None and (colon or row != row.upper()):
            warnings.append(
                Warning_(
                    f"action {row!r} opens with {member}'s name, but Fountain reads it as action, not "
                    f"as a cue: write the cue in capitals on a row of its own ({member.upper()}) and the "
                    f"speech on the rows under it",
                    position,
                )
            )
    return warnings
