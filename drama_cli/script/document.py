"""Plain data of a script: cast, scenes, lines and the structure kept for display.

Readers (`yaml_format`, `fountain`) build these; `resolve` fills canonical speaker names;
`drama_cli.compile` turns a `Scene` into conversations. Nothing here reads files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from drama_cli.errors import SourcePosition
from drama_cli.script.mix_settings import MixSettings

if TYPE_CHECKING:
    from drama_cli.script.lexicon import LexiconEntry
    from drama_cli.script.sound_table import SoundEntry

BOOK_FOLDER = "book"  # the folder of the project folder `drama book` writes the book in
# Folders the project folder holds beside its scenes' folders (one per scene id): no scene id may
# be one of them, in any case (a case-insensitive file system makes `Book` the same folder).
PROJECT_FOLDER_NAMES = (BOOK_FOLDER,)


@dataclass
class ReferenceClip:
    """One reference recording of a voice.

    path: the audio file as written in the script (relative to the script's folder) or absolute.
    transcript: the exact words spoken in the clip; None when unknown (never the line's text).
    """

    path: str
    transcript: str | None = None
    position: SourcePosition | None = None


VOICE_SOURCES = ("own", "licensed", "synthetic", "public-domain-recording")


@dataclass(frozen=True)
class Consent:
    """The consent of the person whose voice a cast member's reference clips hold.

    by: who gave it (as written). on: the date, ISO `YYYY-MM-DD`. note: free text, or None."""

    by: str
    on: str
    note: str | None = None


@dataclass(frozen=True)
class VoiceSource:
    """Where a cast member's voice comes from when no person's consent is recorded.

    kind: one of VOICE_SOURCES. note: free text (a licence, a recording's origin), or None."""

    kind: str
    note: str | None = None


@dataclass
class CastMember:
    """A voice in the cast.

    name: the canonical name lines refer to (as written in the cast).
    references: reference clips with their transcripts, in the order given.
    description: free text describing the character (used by the `scene` layout).
    speaker_index: a fixed `<|speaker:k|>` index 0..15, or None to assign by first appearance.
    aliases: other names that mean this member (matched like the name).
    lang: an optional language label, kept as the exact source string.
    consent, voice_source: where the voice comes from (`consent:`, `voice_source:` in the
    cast); records for the producer, never part of what is sent to the model or of a cache key.
    design: a written description to invent the voice from when there is no clip (`design:`):
    sent as the style prefix of each of the member's lines. library_voice: the name of the
    library voice its clip comes from (`voice: library:NAME`), or None. gender: "female", "male"
    or other free text (`gender:`), read only by `drama cast suggest`; None when not given.
    """

    name: str
    references: list[ReferenceClip] = field(default_factory=list)
    description: str | None = None
    speaker_index: int | None = None
    aliases: list[str] = field(default_factory=list)
    lang: str | None = None
    position: SourcePosition | None = None
    consent: Consent | None = None
    voice_source: VoiceSource | None = None
    design: str | None = None
    library_voice: str | None = None
    gender: str | None = None

    def voice_record(self) -> dict | None:
        """The member's consent or voice source as plain JSON data (`{"consent": {by, on,
        note}}`, `{"voice_source": {kind, note}}`, both when both are given), or None."""
        record = {}
        if self.consent is not None:
            record["consent"] = asdict(self.consent)
        if self.voice_source is not None:
            record["voice_source"] = asdict(self.voice_source)
        return record or None


@dataclass
class Span:
    """One piece of a line's text after the direction grammar (`direction.parse_directions`).

    kind: "text" (words to speak), "tag" (point tag `[sighs]`), "style" (bracket at the start
    of the line), "open" / "close" (scoped tag `<whisper>` / `</whisper>`), "switch" (a mid-line
    speaker switch; `value` is the speaker name as written, later the canonical cast name).
    text: the source text of the piece (for tags, the full markup, e.g. `[sighs]`).
    value: the tag name for open/close, the bracket content for tag/style, the speaker for switch.
    column: 0-based offset of the piece inside the line's text.
    position: where a switch is written in the source (for errors about its name); None for
        other pieces and for text parsed without a position.
    """

    kind: str
    text: str
    value: str = ""
    column: int = 0
    position: SourcePosition | None = field(default=None, compare=False, repr=False)


@dataclass
class Line:
    """One spoken line: what a take is rendered for.

    id: stable id (YAML `id`, else `<scene>-<n>`), used as the take folder name.
    speaker: the canonical cast name after resolution (the cue as written before it).
    text: the line's text exactly as in the source (tags included, notes excluded).
    spans: `text` parsed by the direction grammar.
    notes: director's notes (YAML `note`, Fountain parentheticals), each compiled to a bracket
        direction `[note]` before the text at render time.
    remarks: revision notes written in the script (YAML `notes:`, Fountain `[[...]]` inside the
        speech): never compiled into a render; `drama revise SCRIPT --from-script` applies them.
    pause_after_s: silence after the line in the mix, seconds (None: the mixer's default).
    beat_s: silence added to that pause (Fountain `(beat)` and `(pause)`: 0.5 s each).
    overlap: True when the line overlaps the previous one (Fountain dual dialogue `^`, YAML
        `overlap`). pair: id of the line it overlaps (the previous dialogue line), when known.
    cue: the speaker as written in the source (with extensions stripped).
    extensions: cue extensions as written, e.g. ["O.S.", "CONT'D"], ["as the PRIEST"].
    kind: "dialogue", or "action" for narrated action (spoken by the narrator).
    part: 0 for the first stretch of a cue's speech; 1, 2, ... for the stretches that follow
        mid-speech parentheticals (Fountain), so a cue's speech can be regrouped.
    generated: True for a line `drama` wrote from the book block (credits, a chapter heading
        read aloud), not the producer (`drama_cli.script.book`).
    normalize: False when the line's numbers and symbols are sent as written (YAML
        `normalize: false`); see `drama_cli.compile.normalise`.
    lang: the language label the line is written in (YAML `lang:` on the line), before its
        speaker's and the script's; None when the line gives none.
    pauses: the punctuation-only lines after this one, as (text, seconds), whose silence is in
        `beat_s` (`drama_cli.script.pauses`); shown in the cue sheet.
    position: where the line's words start. cue_position: where its speaker is written (a
        Fountain cue); None when that is `position`.
    """

    id: str
    speaker: str
    text: str
    spans: list[Span] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    remarks: list[str] = field(default_factory=list)
    pause_after_s: float | None = None
    beat_s: float = 0.0
    overlap: bool = False
    pair: str | None = None
    cue: str = ""
    extensions: list[str] = field(default_factory=list)
    kind: str = "dialogue"
    part: int = 0
    position: SourcePosition | None = None
    cue_position: SourcePosition | None = None
    generated: bool = False
    normalize: bool = True
    lang: str | None = None
    pauses: list[tuple[str, float]] = field(default_factory=list)

    @property
    def note(self) -> str | None:
        """All director's notes joined with "; ", or None when there are none."""
        return "; ".join(self.notes) if self.notes else None

    @property
    def dual(self) -> bool:
        """Alias of `overlap` in Fountain's terms (dual dialogue)."""
        return self.overlap

    def speakers(self) -> list[str]:
        """The line's speaker followed by every mid-line switch target, in order of appearance."""
        names = [self.speaker]
        for span in self.spans:
            if span.kind == "switch" and span.value not in names:
                names.append(span.value)
        return names


@dataclass
class Element:
    """A structural element kept for display, never spoken unless narrated.

    kind: "heading", "action", "transition", "centered", "lyric", "note", "section",
    "synopsis", "page_break", "parenthetical" (one after the last words of a speech),
    "direction" (a YAML scene direction), "cue" (a Fountain cast member's cue with no dialogue).
    depth: the section level (`#` = 1) for sections, else 0.
    """

    kind: str
    text: str
    position: SourcePosition | None = None
    depth: int = 0


@dataclass
class SoundAnchor:
    """A point on a scene's timeline that a sound starts or stops at.

    line: a line id of the scene, or None for the scene's own clock (0 is the first sample of
        the scene's mix, head padding included). edge: "start" or "end" of that line (of the
        scene without a line: "end" is the scene's last sample). offset_s: seconds added
        (negative: earlier). position: where the anchor is written (for errors). word: for a
        sound cue inside a line (`{sfx: NAME}`), the index of the word of the line's displayed
        words (`direction.display_text`) it starts at (the number of words: after the last);
        None for an edge of the line.
    """

    line: str | None = None
    edge: str = "start"
    offset_s: float = 0.0
    position: SourcePosition | None = None
    word: int | None = None


@dataclass
class Sound:
    """A sound in a scene: an effect among its lines (YAML `sound:` item, Fountain `SFX:`, a
    cue `{sfx: NAME}` inside a line) or a bed under it (YAML `music:` / `ambience:`, Fountain
    `MUSIC:`).

    path: the audio file as written, relative to `Script.base_dir`. kind: "effect", "music"
    or "ambience". start: where it starts. until: where it stops (None: at the end of its file,
    or at the scene's end when looped). gain_db: level change in dB. fade_in_s / fade_out_s:
    linear fades, seconds. loop: repeat the file until `until`. duck: lower it under dialogue
    (the scene's ducking settings). name: the name it was given (in a `sounds:` table), or
    the file name. position: where it is written. file_position: where its file is named when
    that is elsewhere (a Fountain cue's entry in the cast file's `sounds:` table), else None.
    """

    path: str
    kind: str = "effect"
    start: SoundAnchor = field(default_factory=SoundAnchor)
    until: SoundAnchor | None = None
    gain_db: float = 0.0
    fade_in_s: float = 0.0
    fade_out_s: float = 0.0
    loop: bool = False
    duck: bool = False
    name: str = ""
    position: SourcePosition | None = None
    file_position: SourcePosition | None = None

    def anchors(self) -> list[SoundAnchor]:
        """The anchors that name a line (start, then until)."""
        return [a for a in (self.start, self.until) if a is not None and a.line is not None]


@dataclass
class Scene:
    """A scene: its id, title, direction and lines.

    elements: everything in source order (Line and Element objects) for display.
    number: the Fountain scene number (`#1A#`) when given.
    mix: mix settings given in this scene (None when none); see `Script.mix_for`.
    chapter: the title of the book chapter the scene belongs to (YAML `chapter:` or
        `chapters:`, a Fountain `#` section), None when not given.
    sounds: the scene's effects and beds in the order written (never part of a line's take).
    chapter_entry: which YAML `chapters:` entry or Fountain `#` section (counted from 1) the
        scene comes from; scenes of one entry form one chapter, even when another entry has
        the same title. None for a scene's own `chapter:` (joined with others by title).
    """

    id: str
    title: str = ""
    direction: str | None = None
    lines: list[Line] = field(default_factory=list)
    elements: list[Line | Element] = field(default_factory=list)
    number: str | None = None
    position: SourcePosition | None = None
    mix: MixSettings | None = None
    chapter: str | None = None
    chapter_entry: int | None = None
    sounds: list[Sound] = field(default_factory=list)


class DialogueNumbers:
    """The number the next dialogue line of a scene gets while a reader appends its lines (one
    more than the dialogue lines it holds), counting only the lines added since the last call,
    so numbering a scene of n lines costs O(n) instead of O(n²)."""

    def __init__(self):
        self._counted: dict[
            int, tuple[int, int]
        ] = {}  # id(scene) -> (lines seen, dialogue among them)

    def next(self, scene: Scene) -> int:
        """1 + the number of `scene.lines` of kind `dialogue`."""
        seen, count = self._counted.get(id(scene), (0, 0))
        if seen > len(scene.lines):
            seen, count = 0, 0
        count += sum(1 for line in scene.lines[seen:] if line.kind == "dialogue")
        self._counted[id(scene)] = (len(scene.lines), count)
        return count + 1


@dataclass
class Book:
    """The `book:` block of a script (Fountain: its title page), and how its credits and chapter
    headings are made (`drama_cli.script.book`).

    title, subtitle, author, narrator (the person credited), publisher, year, language,
    copyright: texts for the credits and the files' tags, None when not given.
    cover: the cover image path as written, relative to `Script.base_dir`.
    opening_credits / closing_credits: "generated" (spoken by the narrator from this block),
        "none", or "lines" (the producer's own lines, in `opening_lines` / `closing_lines`).
    chapter_headings: read each chapter's title aloud at its start (default on for books).
    credit_engine: the generated closing credits also say "Built with Fish Audio." (off by default).
    """

    title: str | None = None
    subtitle: str | None = None
    author: str | None = None
    narrator: str | None = None
    publisher: str | None = None
    year: str | None = None
    language: str | None = None
    cover: str | None = None
    copyright: str | None = None
    opening_credits: str = "generated"
    closing_credits: str = "generated"
    opening_lines: list[Line | Element] = field(default_factory=list)
    closing_lines: list[Line | Element] = field(default_factory=list)
    chapter_headings: bool = True
    credit_engine: bool = False
    position: SourcePosition | None = None


@dataclass
class Chapter:
    """One deliverable file of a book: a chapter, or the opening or closing credits.

    number: 0 for the opening credits, 1.. for chapters, the last number for closing credits.
    title: the chapter title (`Opening Credits`, `Closing Credits` for the credits).
    scenes: ids of its scenes, in order. kind: "opening", "chapter" or "closing".
    """

    number: int
    title: str
    scenes: list[str] = field(default_factory=list)
    kind: str = "chapter"


@dataclass
class Warning_:
    """A non-fatal remark about the script, with its position."""

    message: str
    position: SourcePosition | None = None

    def __str__(self) -> str:
        return f"{self.position}: {self.message}" if self.position else self.message


@dataclass
class Script:
    """A whole script.

    source: the file it was read from ("<stdin>" for `-`); paths in the cast are relative to
        `base_dir`.
    cast: members by canonical name, in the order given.
    narrator: the cast member that voices action, or None (action is not spoken).
    title_page: Fountain title page keys and values, or {"Title": title} for YAML.
    warnings: non-fatal remarks collected while reading and resolving.
    mix: mix settings given at the script's top level (None when none).
    lexicon: the pronunciation entries (`drama_cli.script.lexicon.LexiconEntry`), the script's own
        `lexicon:` first, then each `lexicons:` file in order (docs/guide/pronunciation.md).
    language: the script's `language:` (the default language of every voice; None: English).
    normalize: False when no line's numbers and symbols become words (`normalize: false`,
        `--no-normalize`).
    cue_like_rows: Fountain dialogue rows that read like a character cue, as (position, the row,
        the line holding it); warned about once the cast is known (a missing blank line).
    lone_cues: Fountain action paragraphs of one row in the form of a character cue (not forced
        with `!`); one that names a cast member is a cue with no dialogue, warned about and never
        narrated once the cast is known.
    action_openings: the first row of each Fountain action paragraph not forced with `!`, as
        (position, row); one that opens with a cast member's name in another case or with a colon
        (`Holmes`, `HOLMES: Come in.`) is a cue Fountain does not read, warned about once the
        cast is known.
    buried_cues: rows inside Fountain action, after its first row and before another, in the
        form of a character cue, as (position, row); one that names a cast member is a cue
        missing the blank line before it, warned about once the cast is known.
    book: the book block (None: not a book; `drama book` still makes one file per chapter).
    chapters: the deliverable files in order, credits included (`drama_cli.script.book`).
    text_sha256: the SHA-256 of the script's text as read (hex), which tells two scripts piped
        on stdin apart.
    text: the script's text as read (BOM removed, line ends `\n`), stdin's included: what
        positions inside a line are found in (`drama check --words`, `--numbers`).
    sounds: the `sounds:` table that sound cues name (`drama_cli.script.sound_table`): name ->
        (file relative to `base_dir`, gain dB, where the file is named), None for a bad entry.
    """

    title: str = ""
    cast: dict[str, CastMember] = field(default_factory=dict)
    scenes: list[Scene] = field(default_factory=list)
    narrator: str | None = None
    title_page: dict[str, str] = field(default_factory=dict)
    source: str = ""
    base_dir: str = "."
    format: str = ""
    warnings: list[Warning_] = field(default_factory=list)
    mix: MixSettings | None = None
    cue_like_rows: list[tuple[SourcePosition, str, Line]] = field(default_factory=list)
    lone_cues: list[Element] = field(default_factory=list)
    action_openings: list[tuple[SourcePosition, str]] = field(default_factory=list)
    buried_cues: list[tuple[SourcePosition, str]] = field(default_factory=list)
    book: Book | None = None
    text_sha256: str = ""
    text: str = ""
    chapters: list[Chapter] = field(default_factory=list)
    lexicon: list[LexiconEntry] = field(default_factory=list)
    language: str | None = None
    normalize: bool = True
    sounds: dict[str, SoundEntry | None] = field(default_factory=dict)

    def mix_for(self, scene: Scene) -> MixSettings | None:
        """The mix settings of `scene`: its own fields over the script's; None when neither gives any."""
        if scene.mix is None:
            return self.mix
        return scene.mix.over(self.mix)

    def scene(self, scene_id: str) -> Scene:
        """The scene with `scene_id`; raises KeyError when there is none."""
        for scene in self.scenes:
            if scene.id == scene_id:
                return scene
        raise KeyError(scene_id)

    def lines(self) -> list[Line]:
        """Every line of every scene, in order."""
        return [line for scene in self.scenes for line in scene.lines]
