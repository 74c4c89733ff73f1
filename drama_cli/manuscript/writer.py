"""An imported manuscript written as a YAML book script, with the import's report."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from drama_cli.manuscript.attribution import (
    AttributionOptions,
    attribute_chapter,
    merge_name_variants,
)
from drama_cli.manuscript.imported import (
    BREAK,
    NARRATOR,
    OPENING,
    ImportedLine,
    Manuscript,
    add_break,
)
from drama_cli.script.book import UNATTRIBUTED


@dataclass
class ImportReport:
    """What an import wrote: per chapter (title, counts: lines, quotes, each rule's count,
    unattributed), the cast with line counts, and what was left out (kind → count)."""

    chapters: list[tuple[str, Counter]] = field(default_factory=list)
    cast: Counter = field(default_factory=Counter)
    left_out: Counter = field(default_factory=Counter)

    def total(self, key: str) -> int:
        """The sum of one count over the chapters."""
        return sum(counts[key] for _, counts in self.chapters)

    def to_dict(self) -> dict:
        """The report as JSON-ready data."""
        return {
            "per_chapter": [{"title": title, **dict(counts)} for title, counts in self.chapters],
            "cast": dict(self.cast),
            "left_out": dict(self.left_out),
        }


def speakable(text: str) -> str:
    """Text as a script line reads it, also a title the credits or a heading read: brackets,
    braces and angle brackets (the direction grammar's marks) become parentheses, so prose is
    never read as a tag or a voice switch."""
    return text.translate(
        str.maketrans({"[": "(", "]": ")", "{": "(", "}": ")", "<": "(", ">": ")"})
    )


def _key(name: str) -> str:
    """A speaker name as a YAML key: plain when it is capitals, spaces and dots, else quoted."""
    return (
        name
        if re.fullmatch(r"[A-Z][A-Z .'-]*[A-Z.]", name)
        else json.dumps(name, ensure_ascii=False)
    )


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def chapter_scenes(manuscript: Manuscript, dialogue: bool, options: AttributionOptions):
    """[(chapter title, [(scene title or None, lines)], counts)] of the manuscript: a play's
    scenes as read, a novel's chapter as one scene of narration (quotes attributed with
    `dialogue`)."""
    if dialogue and not manuscript.is_play and options.names is None:
        options.learn([p for c in manuscript.chapters for p in c.paragraphs])
    result = []
    for chapter in manuscript.chapters:
        if chapter.scenes:
            scenes = [(scene.title, scene.lines) for scene in chapter.scenes]
            counts = Counter(lines=sum(len(lines) for _, lines in scenes))
        elif dialogue:
            lines, counts = attribute_chapter(chapter.paragraphs, options)
            scenes, counts["lines"] = [(None, lines)], len(lines)
        else:
            lines, counts = [], Counter()
            for paragraph in chapter.paragraphs:
                add_break(lines) if paragraph == BREAK else lines.append(
                    ImportedLine(NARRATOR, paragraph)
                )
            scenes, counts["lines"] = [(None, lines)], len(lines)
        untitled = (
            chapter.title == OPENING and len(manuscript.chapters) == 1
        )  # a text without headings
        result.append((manuscript.title if untitled else chapter.title, scenes, counts))
    if dialogue and not manuscript.is_play:
        _merge_variants(result)
    return result


def _merge_variants(chapters) -> None:
    """One key per character across the book ("DARCY" written as "MR. DARCY")."""
    speakers = Counter(
        line.speaker
        for _, scenes, _ in chapters
        for _, lines in scenes
        for line in lines
        if line.speaker not in (None, NARRATOR, UNATTRIBUTED)
    )
    merged = merge_name_variants(speakers)
    for _, scenes, _ in chapters:
        for _, lines in scenes:
            for line in lines:
                line.speaker = merged.get(line.speaker, line.speaker)


def script_yaml(
    manuscript: Manuscript,
    narrator: str | None,
    dialogue: bool,
    source: str,
    options: AttributionOptions | None = None,
) -> tuple[str, ImportReport]:
    """The YAML book script of a manuscript and the import's report: a book block, the cast
    (the narrator, the play's cast with descriptions or the speakers found, UNATTRIBUTED when
    a quote has none), one chapter per imported chapter with its scenes, lines in source order."""
    chapters = chapter_scenes(manuscript, dialogue, options or AttributionOptions())
    report = ImportReport(left_out=Counter(manuscript.left_out))
    for title, scenes, counts in chapters:
        report.chapters.append((title, counts))
        for _, lines in scenes:
            report.cast.update(line.speaker or NARRATOR for line in lines)
    title = _quoted(speakable(manuscript.title))  # read in the credits
    out = [
        f"# Imported from {source} by drama import.",
        f"title: {title}",
        f"narrator: {NARRATOR}",
        "book:",
        f"  title: {title}",
    ]
    for key, value in (
        ("author", manuscript.author),
        ("narrator", narrator),
        ("language", manuscript.language),
        ("publisher", manuscript.publisher),
    ):
        if value:
            out.append(f"  {key}: {_quoted(speakable(value))}")
    out += ["cast:", *cast_lines(manuscript, report.cast), "chapters:"]
    for number, (title, scenes, _) in enumerate(chapters, start=1):
        out += [
            f"  - title: {_quoted(speakable(title))}",
            "    scenes:",
        ]  # read as the chapter's heading
        for index, (scene_title, lines) in enumerate(scenes, start=1):
            out.append(
                f"      - id: chapter-{number}" + (f"-scene-{index}" if len(scenes) > 1 else "")
            )
            if scene_title:
                out.append(f"        title: {_quoted(speakable(scene_title))}")
            out.append("        lines:")
            out += [_line_yaml(line) for line in lines]
    return "\n".join(out) + "\n", report


def cast_lines(manuscript: Manuscript, counts: Counter) -> list[str]:
    """The YAML rows of the cast: NARRATOR, the play's cast with descriptions, then the other
    speakers of `counts` (name → lines), most lines first, UNATTRIBUTED last."""
    names = [NARRATOR] + [n for n in manuscript.cast if n != NARRATOR]
    names += sorted(
        (n for n in counts if n not in names), key=lambda n: (n == UNATTRIBUTED, -counts[n], n)
    )
    out = []
    for name in names:
        description = manuscript.cast.get(name)
        if name == UNATTRIBUTED:
            description = (
                "placeholder for quotes without a speaker; give each of its lines its speaker"
            )
        out.append(
            f"  {_key(name)}:"
            + (f"\n    description: {_quoted(description)}" if description else " {}")
        )
    return out


def _line_yaml(line: ImportedLine) -> str:
    text = _quoted(speakable(line.text))
    if line.speaker is None:
        return f"          - action: {text}"
    if not line.note and not line.overlap and line.pause_after is None:
        return f"          - {_key(line.speaker)}: {text}"
    extra = (
        (f"\n            note: {_quoted(line.note)}" if line.note else "")
        + ("\n            overlap: true" if line.overlap else "")
        + (
            f"\n            pause_after: {line.pause_after:g}"
            if line.pause_after is not None
            else ""
        )
    )
    return f"          - speaker: {_quoted(line.speaker)}\n            text: {text}{extra}"
