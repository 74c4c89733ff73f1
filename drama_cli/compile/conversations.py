"""Compile a scene into Drama 3 conversations, one plan per line (`docs/internals/layouts.md`).

Pure: no torch, no audio decoding. Reference durations are read from file headers (soundfile)
only to estimate prompt sizes; missing files give no duration and a warning (the render and
`drama check` refuse them).

Modes (`drama_cli.compile.modes`):
* `clone`: one conversation per chunk of a line: references + the line (layout `clone`).
* `history`: as `clone`, plus earlier lines of the scene as context turns: the scene's first
  line and the last `history_lines` lines, for those whose take audio is known (`takes`).
* `scene`: the whole scene in one `scene` conversation, split into groups of consecutive lines
  with at most 16 voices each.

Speaker indices: fixed indices from the cast are kept; others are given in order of first
appearance in the scene (scenes with more than 16 voices: per conversation).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import soundfile

from drama_cli.compile.chunking import DEFAULT_MAX_CHARS, split_text
from drama_cli.compile.modes import DEFAULT_MODE, MODES, get_mode
from drama_cli.compile.normalise import (
    SpokenLine,
    sent_token_errors,
    spoken_line,
    unsupported_notice,
)
from drama_cli.errors import ScriptError, ScriptErrors, SourcePosition
from drama_cli.script.clips import MAX_REFERENCE_S, MIN_REFERENCE_S, inspect_clip
from drama_cli.script.direction import has_content, note_direction, render_spans
from drama_cli.script.document import Line, Scene, Script
from drama_cli.script.resolve import assign_indices
from engine.clip import AudioClip
from engine.constants import NUM_SPEAKERS
from engine.conversation import Conversation, Exchange, Reference

DEFAULT_HISTORY_LINES = 2

TakeSource = Callable[[Line], AudioClip | None] | Mapping[str, AudioClip] | None


@dataclass
class LinePlan:
    """What will be sent for one line.

    text: the line's full model text (`<|speaker:k|> ...`). chunks: `text` cut for generation
    (one in `scene` mode). conversations: one per chunk (`clone`/`history`); in `scene` mode the
    group's single conversation, shared by every line of the group (`group` is its number).
    speakers: canonical cast name -> speaker index used in these conversations.
    lexicon: the lexicon entries the line uses, as `term → respelling` (or `→ /phonemes/`).
    numbers: the number expressions and abbreviations said in words, as `written → said`.
    """

    line: Line
    scene_id: str
    mode: str
    text: str
    chunks: list[str]
    conversations: list[Conversation]
    speakers: dict[str, int]
    warnings: list[str] = field(default_factory=list)
    group: int = 0
    lexicon: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)


def compile_scene(
    script: Script,
    scene: Scene | str,
    mode: str = DEFAULT_MODE,
    *,
    takes: TakeSource = None,
    history_lines: int = DEFAULT_HISTORY_LINES,
    max_chars: int = DEFAULT_MAX_CHARS,
    clip_duration: Callable[[str], float | None] | None = None,
) -> list[LinePlan]:
    """Compile `scene` (a Scene or its id) of a resolved `script` into one LinePlan per line.

    takes: earlier takes' audio, as a mapping line id -> AudioClip or a callable Line -> AudioClip
        or None; lines without audio are left out of `history` context (default: none known).
    max_chars: chunk cap in characters (chunking module). clip_duration: seconds of an audio file
        or None (default: soundfile header, None when unreadable).
    Raises UsageError for an unknown mode (`drama_cli.compile.modes`), KeyError for an unknown
    scene id.
    """
    get_mode(mode)
    if isinstance(scene, str):
        scene = script.scene(scene)
    return SceneCompiler(script, scene, takes, clip_duration).plans(mode, history_lines, max_chars)


def reference_duration(path: str) -> float | None:
    """Duration in seconds of an audio file from its header (soundfile), None when unreadable."""
    try:
        info = soundfile.info(path)
    except (RuntimeError, OSError, ValueError):
        return None
    return info.frames / info.samplerate if info.samplerate else None


def check_references(script: Script) -> None:
    """Raise ScriptError at the cast entry when a reference clip is missing, a directory,
    unreadable, or longer than the engine's 60 s (`script.clips.MAX_REFERENCE_S`)."""
    for member in script.cast.values():
        for clip in member.references:
            path = os.path.join(script.base_dir, clip.path)
            where = clip.position or member.position or SourcePosition(script.source, 1, 1)
            verdict = inspect_clip(path, MAX_REFERENCE_S, silence=False, min_s=MIN_REFERENCE_S)
            if verdict.error:
                hint = (
                    "record it or fix the path (relative to the script's folder)"
                    if verdict.error == "does not exist"
                    else None
                )
                raise ScriptError(
                    f"reference clip {clip.path!r} of {member.name} {verdict.error}", where, hint
                )


def _take_lookup(takes: TakeSource) -> Callable[[Line], AudioClip | None]:
    if takes is None:
        return lambda line: None
    if isinstance(takes, Mapping):
        return lambda line: takes.get(line.id)
    return takes


class SceneCompiler:
    """Compiles the lines of one scene, keeping what every line shares (the scene's speaker map,
    reference durations) so that lines can be compiled one at a time as a render reaches them.

    takes and clip_duration: as for `compile_scene`. `line_plan(i, ...)` reads the take audio of
    only the context lines of line i, so compiling a whole scene line by line in `history` mode
    costs time linear in its length.
    """

    def __init__(
        self,
        script: Script,
        scene: Scene,
        takes: TakeSource = None,
        clip_duration: Callable[[str], float | None] | None = None,
    ):
        self.script, self.scene = script, scene
        self.take_of = _take_lookup(takes)
        self.clip_duration = clip_duration or reference_duration
        voices = [name for line in scene.lines for name in line.speakers()]
        self.scene_voices = list(dict.fromkeys(voices))
        self.scene_map = (
            assign_indices(self.scene_voices, script.cast)
            if len(self.scene_voices) <= NUM_SPEAKERS
            else None
        )
        self._durations: dict[str, float | None] = {}
        self._spoken: dict[int, SpokenLine] = {}
        self._told: set[str] = set()

    def plans(
        self,
        mode: str,
        history_lines: int = DEFAULT_HISTORY_LINES,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> list[LinePlan]:
        """The plan of every line of the scene in `mode`."""
        if mode == "scene":
            return self.scene_plans()
        return [
            self.line_plan(i, mode, history_lines, max_chars) for i in range(len(self.scene.lines))
        ]

    def speaker_map(self, lines: list[Line]) -> dict[str, int]:
        """Speaker indices of the voices in `lines`: the scene map restricted to them, or a map of
        their own when the scene has more than 16 voices."""
        names = [name for line in lines for name in line.speakers()]
        if self.scene_map is not None:
            return {name: k for name, k in self.scene_map.items() if name in names}
        return assign_indices(names, self.script.cast)

    def spoken(self, line: Line) -> SpokenLine:
        """The line's spans after the lexicon and the number rules (`compile.normalise`)."""
        if id(line) not in self._spoken:
            spoken = spoken_line(self.script, line)
            errors = sent_token_errors(self.script, line, spoken)
            if errors:
                raise errors[0] if len(errors) == 1 else ScriptErrors(errors)
            self._spoken[id(line)] = spoken
        return self._spoken[id(line)]

    def notices(self, line: Line) -> list[str]:
        """What the compiler says about a line's words once per scene: numbers in a language without rules."""
        said = []
        for language in self.spoken(line).unsupported:
            if language not in self._told:
                self._told.add(language)
                said.append(unsupported_notice(language))
        return said

    def render(self, line: Line, speakers: dict[str, int]) -> str:
        """The line's full model text under `speakers`."""
        return render_spans(
            self.spoken(line).spans,
            speakers[line.speaker],
            speakers.__getitem__,
            line.notes,
            line.speaker,
        )

    def chunks(self, line: Line, speakers: dict[str, int], max_chars: int) -> list[str]:
        """The line cut by `split_text`; its notes and style prefix direct the whole line, so
        every chunk of the line's own speaker starts with them, after the speaker's designed
        voice (`design_direction`) when it has one."""
        k = speakers[line.speaker]
        if not _own_words(line):
            # the style prefix is all the line's own speaker says (`[sighs]`): it is the cue itself
            return split_text(self.render(line, speakers), max_chars)
        spans = self.spoken(line).spans
        prefix = " ".join(
            design_direction(self.script.cast.get(line.speaker))
            + [note_direction(note) for note in line.notes if note_direction(note)]
            + [span.text for span in spans if span.kind == "style"]
        )
        body = render_spans(
            [s for s in spans if s.kind != "style"], k, speakers.__getitem__, speaker=line.speaker
        )
        chunks = split_text(body, max_chars)
        tag = f"<|speaker:{k}|> "
        if prefix:
            chunks = [
                tag + prefix + " " + c[len(tag) :] if c.startswith(tag) else c for c in chunks
            ]
        return chunks

    def references(self, speakers: dict[str, int], warnings: list[str]) -> tuple[Reference, ...]:
        """References of every voice in `speakers`, in speaker-index order, transcripts tagged."""
        refs = []
        for name, k in sorted(speakers.items(), key=lambda item: item[1]):
            member = self.script.cast.get(name)
            clips = member.references if member else []
            if not clips and not (member and member.design):
                warnings.append(f"{name} has no reference clip: the voice is not cloned")
            for clip in clips:
                path = os.path.join(self.script.base_dir, clip.path)
                if path not in self._durations:
                    self._durations[path] = self.clip_duration(path)
                if self._durations[path] is None:
                    warnings.append(f"reference {clip.path} of {name} is missing or unreadable")
                elif self._durations[path] > MAX_REFERENCE_S:
                    warnings.append(
                        f"reference {clip.path} of {name} is {self._durations[path]:.1f} s long: "
                        f"render refuses clips over {MAX_REFERENCE_S:g} s (trim it to a shorter excerpt)"
                    )
                transcript = None
                if clip.transcript and clip.transcript.strip():
                    transcript = f"<|speaker:{k}|> " + " ".join(clip.transcript.split())
                else:
                    warnings.append(
                        f"reference {clip.path} of {name} has no transcript; sent without text "
                        "(add 'transcript:' to the cast)"
                    )
                refs.append(
                    Reference(k, transcript, AudioClip(path=path, duration_s=self._durations[path]))
                )
        return tuple(refs)

    def line_plan(
        self,
        index: int,
        mode: str,
        history_lines: int = DEFAULT_HISTORY_LINES,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> LinePlan:
        """The plan of line `index` in `clone` or `history` mode: one conversation per chunk."""
        line = self.scene.lines[index]
        context_lines = self.context(index, history_lines) if mode == "history" else []
        while (
            self.scene_map is None
            and len(_voices([line] + [c for c, _ in context_lines])) > NUM_SPEAKERS
        ):
            context_lines.pop(0)  # a crowd scene: keep the most recent context that fits 16 voices
        speakers = self.speaker_map([line] + [c for c, _ in context_lines])
        warnings: list[str] = self.notices(line)
        references = self.references(speakers, warnings)
        text = self.render(line, speakers)
        chunks = self.chunks(line, speakers, max_chars)
        context = tuple(Exchange(self.render(c, speakers), clip) for c, clip in context_lines)
        layout = MODES["history"].layout if context else MODES["clone"].layout
        conversations = [
            Conversation(
                layout,
                references=references,
                text=chunk,
                context=context,
                meta={
                    "line_id": line.id,
                    "chunk": n,
                    "chunks": len(chunks),
                    "mode": mode,
                    "context_lines": [c.id for c, _ in context_lines],
                },
            )
            for n, chunk in enumerate(chunks)
        ]
        return LinePlan(
            line,
            self.scene.id,
            mode,
            text,
            chunks,
            conversations,
            speakers,
            warnings,
            lexicon=[entry.describe() for entry in self.spoken(line).entries],
            numbers=[f"{written} → {said}" for written, said in self.spoken(line).rewrites],
        )

    def context(self, index: int, history_lines: int) -> list[tuple[Line, AudioClip]]:
        """The scene's first line and the last `history_lines` lines before `index`, with audio."""
        wanted = [0] if index > 0 else []
        wanted += range(max(1, index - history_lines), index)
        result = []
        for i in dict.fromkeys(wanted):
            clip = self.take_of(self.scene.lines[i])
            if clip is not None:
                result.append((self.scene.lines[i], clip))
        return result

    def scene_plans(self) -> list[LinePlan]:
        """Plans of every line in `scene` mode: one shared conversation per group of <= 16 voices."""
        plans: list[LinePlan] = []
        for group, lines in enumerate(_voice_groups(self.scene.lines)):
            speakers = self.speaker_map(lines)
            warnings: list[str] = []
            references = self.references(speakers, warnings)
            texts = [self.render(line, speakers) for line in lines]
            descriptions = tuple(
                (k, self.script.cast[name].description)
                for name, k in speakers.items()
                if name in self.script.cast and self.script.cast[name].description
            )
            conversation = Conversation(
                MODES["scene"].layout,
                references=references,
                lines=tuple(texts),
                descriptions=descriptions,
                meta={"group": group, "line_ids": [line.id for line in lines]},
            )
            for line, text in zip(lines, texts):
                plans.append(
                    LinePlan(
                        line,
                        self.scene.id,
                        "scene",
                        text,
                        [text],
                        [conversation],
                        speakers,
                        self.notices(line) + warnings,
                        group,
                        [entry.describe() for entry in self.spoken(line).entries],
                    )
                )
        return plans


def design_direction(member) -> list[str]:
    """`[description]` for a cast member designed from a description (`design:`) who has no
    reference clip yet: Drama 3 invents the voice from it; [] for any other member (a locked
    designed voice clones its clip instead)."""
    if member is None or not member.design or member.references:
        return []
    return [f"[{member.design}]"]


def _own_words(line: Line) -> bool:
    """True when the line's own speaker has content besides the style prefix (before any switch)."""
    for span in line.spans:
        if span.kind == "switch":
            return False
        if span.kind != "style" and has_content(span):
            return True
    return False


def _voices(lines: list[Line]) -> set[str]:
    return {name for line in lines for name in line.speakers()}


def _voice_groups(lines: list[Line]) -> list[list[Line]]:
    """Consecutive lines grouped so that no group has more than 16 distinct voices (case B2)."""
    groups: list[list[Line]] = []
    voices: set[str] = set()
    for line in lines:
        needed = set(line.speakers())
        if groups and len(voices | needed) <= NUM_SPEAKERS:
            groups[-1].append(line)
            voices |= needed
        else:
            groups.append([line])
            voices = set(needed)
    return groups
