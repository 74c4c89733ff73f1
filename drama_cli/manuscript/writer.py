"""An imported manuscript written as a YAML book script, with the import's report."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from drama_cli.manuscript.attribution import AttributionOptions, attribute_chapter
from drama_cli.manuscript.characters import NameUsage, cluster_speakers
from drama_cli.manuscript.dialogue import RULES, gender_of
from drama_cli.manuscript.imported import (
    BREAK,
    NARRATOR,
    OPENING,
    ImportedLine,
    Manuscript,
    add_break,
)
from drama_cli.script.book import UNATTRIBUTED

GENDER_WORDS = {"f": "female", "m": "male"}  # the cast's `gender:` of a learnt gender
DOUBTFUL = 0.75  # a quote attributed with less confidence is listed in the report to check


@dataclass
class ImportReport:
    """What an import wrote: per chapter (title, counts: lines, quotes, each rule's count,
    unattributed), the cast with line counts, and what was left out (kind → count)."""

    chapters: list[tuple[str, Counter]] = field(default_factory=list)
    cast: Counter = field(default_factory=Counter)
    left_out: Counter = field(default_factory=Counter)
    aliases: dict[str, list[str]] = field(default_factory=dict)  # cast key → other names
    doubtful: list[tuple[str, str, float]] = field(
        default_factory=list
    )  # (speaker, text, confidence)

    def total(self, key: str) -> int:
        """The sum of one count over the chapters."""
        return sum(counts[key] for _, counts in self.chapters)

    def attribution(self) -> dict:
        """The attribution report: quotes, the share given a speaker, quotes by rule, the
        characters (lines, aliases), the quotes attributed with little confidence and the
        speaker names that may be no one (`suspicious`)."""
        quotes = self.total("quotes")
        by_rule = {rule: self.total(rule) for rule in RULES if self.total(rule)}
        attributed = sum(by_rule.values())
        characters = {
            name: {"lines": count, "aliases": self.aliases.get(name, [])}
            for name, count in self.cast.most_common()
            if name not in (NARRATOR, UNATTRIBUTED)
        }
        return {
            "quotes": quotes,
            "attributed": attributed,
            "attributed_share": round(attributed / quotes, 3) if quotes else 0.0,
            "by_rule": by_rule,
            "characters": characters,
            "low_confidence": [
                {"speaker": who, "text": text, "confidence": p} for who, text, p in self.doubtful
            ],
            "suspicious": suspicious_names(characters),
        }

    def attribution_lines(self) -> list[str]:
        """The attribution report as lines for stderr (nothing without quotes)."""
        report = self.attribution()
        if not report["quotes"]:
            return []
        rules = ", ".join(f"{rule} {n}" for rule, n in report["by_rule"].items())
        rows = [
            f"attribution: {report['attributed']} of {report['quotes']} quote piece(s) "
            f"({report['attributed_share']:.0%}) given a speaker" + (f": {rules}" if rules else "")
        ]
        for name, row in list(report["characters"].items())[:20]:
            aka = f" (also {', '.join(row['aliases'])})" if row["aliases"] else ""
            rows.append(f"  {name}: {row['lines']} line(s){aka}")
        if len(report["characters"]) > 20:
            rows.append(f"  … and {len(report['characters']) - 20} more character(s)")
        if report["low_confidence"]:
            rows.append(
                f"{len(report['low_confidence'])} line(s) attributed with confidence under "
                f"{DOUBTFUL:g}; the first:"
            )
            rows += [
                f"  {row['speaker']} ({row['confidence']:.2f}): {row['text'][:60]}"
                for row in report["low_confidence"][:5]
            ]
        if report["suspicious"]:
            rows.append("names that may be no one: " + ", ".join(report["suspicious"]))
        return rows

    def to_dict(self) -> dict:
        """The report as JSON-ready data."""
        return {
            "per_chapter": [{"title": title, **dict(counts)} for title, counts in self.chapters],
            "cast": dict(self.cast),
            "left_out": dict(self.left_out),
        }


# A speaker key that is a common word, a place or a time rather than a person.
_NOT_PEOPLE = re.compile(
    r"(?:MONDAY|TUESDAY|WEDNESDAY|THURSDAY|FRIDAY|SATURDAY|SUNDAY|JANUARY|FEBRUARY|MARCH|APRIL|"
    r"MAY|JUNE|JULY|AUGUST|SEPTEMBER|OCTOBER|NOVEMBER|DECEMBER|ENGLISH|FRENCH|GERMAN|LONDON|"
    r"PARIS|STREET|ROAD|SQUARE|HOUSE|HALL|PARK|LANE|CHURCH|GOD|HEAVEN|HUMPH|HUM|HA|OH|AH)"
)


def suspicious_names(characters: dict) -> list[str]:
    """Speaker keys that may be no one: one with a word that is a day, a month, a language, a
    place word or an interjection ("BAKER STREET", "TUESDAY", "HUMPH"), or a single line."""
    return [
        name
        for name, row in characters.items()
        if any(_NOT_PEOPLE.fullmatch(word) for word in name.split()) or row["lines"] == 1
    ]


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
        options.aliases = _one_voice_each(result, options.genders, options.usage)
    return result


def _one_voice_each(chapters, genders: dict[str, str], usage: NameUsage) -> dict[str, list[str]]:
    """One key per character across the book ("HOLMES", "SHERLOCK HOLMES" and "MR. HOLMES" are
    one person, `characters.cluster_speakers`, a bare name with its own gender's title): every
    line and candidate takes its person's key; returns key → aliases for the cast."""
    lines = [line for _, scenes, _ in chapters for _, chapter in scenes for line in chapter]
    speakers = Counter(
        line.speaker for line in lines if line.speaker not in (None, NARRATOR, UNATTRIBUTED)
    )
    clusters = cluster_speakers(speakers, genders, usage)
    key_of = {alias: key for key, aliases in clusters.items() for alias in aliases}
    for line in lines:
        line.speaker = key_of.get(line.speaker, line.speaker)
        if line.candidates:
            line.candidates = [(key_of.get(who, who), p) for who, p in line.candidates]
    return {key: aliases for key, aliases in clusters.items() if aliases}


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
    options = options or AttributionOptions()
    chapters = chapter_scenes(manuscript, dialogue, options)
    report = ImportReport(left_out=Counter(manuscript.left_out), aliases=dict(options.aliases))
    for title, scenes, counts in chapters:
        report.chapters.append((title, counts))
        for _, lines in scenes:
            report.cast.update(line.speaker or NARRATOR for line in lines)
            report.doubtful += [
                (line.speaker, line.text, line.confidence)
                for line in lines
                if line.confidence is not None and line.confidence < DOUBTFUL
            ]
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
    cast = cast_lines(manuscript, report.cast, report.aliases, options.genders)
    out += ["cast:", *cast, "chapters:"]
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


def cast_lines(
    manuscript: Manuscript,
    counts: Counter,
    aliases: dict[str, list[str]] | None = None,
    genders: dict[str, str] | None = None,
) -> list[str]:
    """The YAML rows of the cast: NARRATOR, the play's cast with descriptions, then the other
    speakers of `counts` (name → lines), most lines first, UNATTRIBUTED last; a member with
    other names in the book (`aliases`: key → names) lists them under `aliases:`, and one whose
    gender the import learnt (a title, the pronouns of its speech tags: `genders`, name → 'm'
    or 'f') has `gender: female` or `gender: male` (read by `drama cast suggest`)."""
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
        others = (aliases or {}).get(name)
        gender = None if name in (NARRATOR, UNATTRIBUTED) else gender_of(name, genders or {})
        fields = (
            (f"\n    description: {_quoted(description)}" if description else "")
            + (f"\n    aliases: [{', '.join(_quoted(a) for a in others)}]" if others else "")
            + (f"\n    gender: {GENDER_WORDS[gender]}" if gender in GENDER_WORDS else "")
        )
        out.append(f"  {_key(name)}:" + (fields or " {}"))
    return out


def _line_yaml(line: ImportedLine) -> str:
    text = _quoted(speakable(line.text))
    if line.speaker is None:
        return f"          - action: {text}"
    if not line.note and not line.overlap and line.pause_after is None:
        return f"          - {_key(line.speaker)}: {text}" + _candidates_comment(line)
    extra = (
        (f"\n            note: {_quoted(line.note)}" if line.note else "")
        + ("\n            overlap: true" if line.overlap else "")
        + (
            f"\n            pause_after: {line.pause_after:g}"
            if line.pause_after is not None
            else ""
        )
    )
    return (
        f"          - speaker: {_quoted(line.speaker)}{_candidates_comment(line)}"
        f"\n            text: {text}{extra}"
    )


def _candidates_comment(line: ImportedLine) -> str:
    """A quote's best two speakers as a YAML comment after its line, for a person (or the
    studio) to choose from: `# candidates: HOLMES 0.80, WATSON 0.20 (pronoun)`; nothing for a
    narrator's line or a quote a speech tag names."""
    if not line.candidates or line.rule == "tag":
        return ""
    ranked = ", ".join(f"{who} {p:.2f}" for who, p in line.candidates)
    return f"  # candidates: {ranked}" + (f" ({line.rule})" if line.rule else "")
