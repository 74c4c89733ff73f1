"""Validation behind `drama check`: load, resolve, check references and tags, collect warnings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from drama_cli.errors import ScriptError, ScriptErrors, SourcePosition
from drama_cli.script.clips import MAX_REFERENCE_S, MIN_REFERENCE_S, inspect_clip, inspect_sound
from drama_cli.script.direction import unknown_tags
from drama_cli.script.document import Script, Warning_
from drama_cli.script.lexicon import lexicon_warnings
from drama_cli.script.load import load_script
from drama_cli.script.number_check import number_rows
from drama_cli.script.problems import Problems
from drama_cli.script.unknown_words import source_position, source_rows, unknown_words
from engine.text import TAG_NAME

if TYPE_CHECKING:
    from drama_cli.script.number_check import NumberRow
    from drama_cli.script.unknown_words import UnknownWord


@dataclass
class CheckReport:
    """What `drama check` found: the script, errors (each a located ScriptError) and warnings."""

    script: Script
    errors: list[ScriptError] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    unknown_words: list[UnknownWord] | None = None  # `--words`
    numbers: list[NumberRow] | None = None  # `--numbers`

    def to_json(self) -> dict:
        """The report as plain JSON data (the `--json` output)."""
        script = self.script
        return (
            {
                "ok": not self.errors,
                "exit_code": 2 if self.errors else 0,
                "source": script.source,
                "format": script.format,
                "title": script.title,
                "narrator": script.narrator,
                "cast": [
                    {
                        "name": m.name,
                        "speaker_index": m.speaker_index,
                        "aliases": m.aliases,
                        "references": [
                            {"path": c.path, "transcript": c.transcript} for c in m.references
                        ],
                        **(m.voice_record() or {}),
                    }
                    for m in script.cast.values()
                ],
                "scenes": [
                    {
                        "id": s.id,
                        "title": s.title,
                        "lines": len(s.lines),
                        "line_ids": [line.id for line in s.lines],
                        "chapter": s.chapter,
                        "generated_lines": [line.id for line in s.lines if line.generated],
                        "sounds": [
                            {"name": sound.name, "path": sound.path, "kind": sound.kind}
                            for sound in s.sounds
                        ],
                    }
                    for s in script.scenes
                ],
                "chapters": [
                    {"number": c.number, "title": c.title, "kind": c.kind, "scenes": c.scenes}
                    for c in script.chapters
                ],
                "warnings": [_warning_json(w) for w in self.warnings],
            }
            | (
                {"unknown_words": [w.to_json() for w in self.unknown_words]}
                if self.unknown_words is not None
                else {}
            )
            | (
                {"numbers": [row.to_json() for row in self.numbers]}
                if self.numbers is not None
                else {}
            )
        )


def _warning_json(warning: Warning_) -> dict:
    """A warning as JSON data: message, file, line and column like an error (None when it has no
    place), and `position` as `file:line:col` text."""
    where = warning.position
    return {
        "message": warning.message,
        "file": where.file if where else None,
        "line": where.line if where else None,
        "column": where.column if where else None,
        "position": str(where) if where else None,
    }


def check_script(
    path: str,
    cast: str | Path | None = None,
    strict_tags: bool = False,
    words: bool = False,
    pieces=None,
    expressions=None,
    numbers: bool = False,
    clones: bool = True,
    strict_consent: bool = False,
    sent=None,
) -> CheckReport:
    """Load and validate a script. Raises ScriptError for a script that cannot be read (ScriptErrors,
    see `problems`, when several lines are wrong); reference clips that are missing, directories,
    unreadable, empty, hold non-finite samples or are longer than 60 s, and room-tone clips with
    any of those faults but length, and sounds with those faults or an unusable sample rate
    (`inspect_sound`), are collected in `errors`; silent clips are warnings. Warnings: reader warnings, members
    without reference or transcript, unused cast members, and with `strict_tags` every tag
    outside the known vocabulary (kept in the text; never dropped). `pieces`: the normaliser's
    text pieces (`drama_cli.compile.normalise.normalised_pieces`) for `words` to check numbers as
    the words they become. `expressions`: the normaliser's number expressions
    (`drama_cli.compile.normalise.number_expressions`): with it, a line with digits in a language
    without number rules is a warning, and `numbers` lists every expression (`report.numbers`).
    `clones`: the script is for an engine that clones the reference
    clips (drama3; not scratch), so each cast member with lines and a reference clip but
    neither `consent:` nor `voice_source:` is a warning, or with `strict_consent` an error.
    `sent`: Script -> the located errors of model tokens in the text as it will be sent
    (`drama_cli.compile.normalise.script_token_errors`), added to `errors`."""
    problems = Problems()
    script = load_script(path, cast, problems=problems)
    report = CheckReport(script, errors=problems.unique(), warnings=list(script.warnings))
    if sent is not None:
        report.errors += sent(script)
    if words:
        report.unknown_words = unknown_words(script, pieces=pieces)
    if expressions is not None:
        rows, number_warnings = number_rows(script, expressions, listed=numbers)
        report.warnings += number_warnings
        report.numbers = rows if numbers else None
    for member in script.cast.values():
        where = member.position
        if not member.references and not member.design:  # a designed voice needs no clip
            report.warnings.append(Warning_(f"{member.name} has no reference clip", where))
        for clip in member.references:
            position = clip.position or where
            _check_clip(
                report,
                Path(script.base_dir, clip.path),
                f"reference clip {clip.path!r} of {member.name}",
                position,
                MAX_REFERENCE_S,
                min_s=MIN_REFERENCE_S,
            )
            if not clip.transcript:
                report.warnings.append(
                    Warning_(f"reference {clip.path} of {member.name} has no transcript", position)
                )
    _check_room_tones(report, script, script.scenes)
    _check_sounds(report, script)
    report.warnings += lexicon_warnings(script)
    used = {name for line in script.lines() for name in line.speakers()}
    for name in script.cast:
        if name not in used:
            report.warnings.append(
                Warning_(f"cast member {name} has no lines", script.cast[name].position)
            )
    if clones:
        _check_consent(report, used, strict_consent)
    if script.book is not None:
        report.warnings += _long_pauses(script)
    report.warnings += _spaced_tag_warnings(script)
    if strict_tags:
        report.warnings += _unknown_tag_warnings(script)
    # in source order: the script's own file first, then the cast file and others
    report.errors.sort(
        key=lambda err: (
            err.position.file != script.source,
            err.position.file,
            err.position.line,
            err.position.column,
        )
    )
    return report


def scene_mix_errors(script, scenes, room_tones: bool = True) -> list[ScriptError]:
    """The located errors of the room tones (unless `room_tones` is False: a flag overrides
    them) and sounds the mixes of `scenes` use (missing, not audio, no or non-finite samples, a
    silent room tone, a sound's unusable sample rate), as `drama check` reports them: what a
    render checks before voicing the lines it mixes."""
    report = CheckReport(script)
    if room_tones:
        _check_room_tones(report, script, scenes)
    _check_sounds(report, script, scenes)
    return report.errors


def _check_room_tones(report: CheckReport, script, scenes) -> None:
    """The room-tone clip of the script's top level and of each of `scenes`, where one is given."""
    for mix in [script.mix] + [scene.mix for scene in scenes]:
        if mix is not None and mix.room_tone not in (None, "noise"):
            _check_clip(
                report,
                Path(script.base_dir, mix.room_tone),
                f"room tone {mix.room_tone!r}",
                mix.room_tone_position,
                None,
                silence_refused=True,
            )


def _check_sounds(report: CheckReport, script, scenes=None) -> None:
    """`inspect_sound` of each sound of the `scenes` (None: every scene, and then each
    `sounds:` table entry no cue uses, as a sound played once), a table entry once however
    many cues use it."""
    checked = set()
    sounds = [
        (s.path, s.loop, s.file_position or s.position)
        for scene in (script.scenes if scenes is None else scenes)
        for s in scene.sounds
    ]
    used = {str(where) for _, _, where in sounds}
    sounds += [
        (entry[0], False, entry[2])
        for entry in script.sounds.values()
        if scenes is None and entry is not None and str(entry[2]) not in used
    ]
    for path, loop, where in sounds:
        if (path, loop, str(where)) in checked:
            continue
        checked.add((path, loop, str(where)))
        file = Path(script.base_dir, path)
        _check_clip(
            report,
            file,
            f"sound {path!r}",
            where,
            None,
            inspect_sound(file, loop),
            relative_to="the cast file" if where and where.file != script.source else "the script",
        )


_SPACED_TAG = re.compile(rf"<(/?)(?:({TAG_NAME})\s+|(?<=/)\s+({TAG_NAME})\s*)>")  # not `a < b > c`


def _spaced_tag_warnings(script) -> list[Warning_]:
    """A warning at each scoped tag written with a space inside (`<whisper >`): the grammar
    reads it as text, so the model would get the characters, not a direction."""
    rows, warnings = source_rows(script), []
    for line in script.lines():
        for span in line.spans:
            for match in _SPACED_TAG.finditer(span.text) if span.kind == "text" else ():
                tag = f"<{match.group(1)}{match.group(2) or match.group(3)}>"
                warnings.append(
                    Warning_(
                        f"line {line.id}: {match.group()!r} has a space inside, so it is sent as text, not as a "
                        f"tag (write {tag})",
                        source_position(rows, line, match.group(), span.column + match.start()),
                    )
                )
    return warnings


def _unknown_tag_warnings(script) -> list[Warning_]:
    """A warning at each tag outside the known vocabulary, placed where the tag is written."""
    rows, warnings = source_rows(script), []
    for line in script.lines():
        for span, why in unknown_tags(line.spans):
            warnings.append(
                Warning_(
                    f"line {line.id}: tag {span.text} {why} (kept as written)",
                    source_position(rows, line, span.text, span.column),
                )
            )
    return warnings


CONSENT_HINT = (
    "add 'consent: {by: NAME, on: YYYY-MM-DD}' or "
    "'voice_source: own|licensed|synthetic|public-domain-recording'"
)


def _check_consent(report: CheckReport, used: set[str], strict: bool) -> None:
    """One warning (error when `strict`) per cast member who speaks, has a reference clip and
    says neither whose voice it is nor where it comes from."""
    for member in report.script.cast.values():
        if member.name not in used or not member.references or member.voice_record():
            continue
        message = f"{member.name}'s reference clip is cloned by drama3 with neither consent nor voice_source given"
        message += "" if strict else " (add one to the cast; --engine scratch skips this check)"
        position = member.position or SourcePosition(report.script.source, 1, 1)
        if strict:
            report.errors.append(ScriptError(message, position, CONSENT_HINT))
        else:
            report.warnings.append(Warning_(message, position))


def with_check_count(err: ScriptError, path: str, cast: str | Path | None = None) -> ScriptError:
    """`err`, the first problem a command met in the script at `path`, with a hint saying how
    many more `drama check` lists (reference clips included); `err` itself when there are no
    more, or when the script came from stdin and cannot be read again."""
    first = err.errors[0] if isinstance(err, ScriptErrors) else err
    if str(path) == "-":
        return err
    try:
        total = len(check_script(path, cast).errors)
    except ScriptErrors as full:
        total = len(full.errors)
    except ScriptError:
        total = 1
    more = max(total, len(getattr(err, "errors", [err]))) - 1
    if more < 1:
        return first
    hint = f"and {more} more problem{'s' if more != 1 else ''}: `drama check` lists them all"
    return ScriptError(
        first.message, first.position, f"{first.hint}; {hint}" if first.hint else hint
    )


ACX_LONGEST_PAUSE_S = 5.0  # longer silences inside a chapter pull its RMS under ACX's -23 dB


def _long_pauses(script) -> list[Warning_]:
    """A warning at each line of a book whose `pause_after` is longer than ACX_LONGEST_PAUSE_S."""
    return [
        Warning_(
            f"line {line.id}: pause_after {line.pause_after_s:g} s is a long silence for an "
            f"audiobook: ACX measures a chapter's RMS over its silences too, and a pause over "
            f"{ACX_LONGEST_PAUSE_S:g} s can pull it under -23 dB (drama book then fails the "
            "RMS rule)",
            line.position,
        )
        for line in script.lines()
        if (line.pause_after_s or 0.0) > ACX_LONGEST_PAUSE_S
    ]


def _check_clip(
    report: CheckReport,
    full: Path,
    what: str,
    position,
    max_s: float | None,
    verdict=None,
    min_s: float = 0.0,
    silence_refused: bool = False,
    relative_to: str = "the script",
) -> None:
    """Add the clip's error (located at `position`) or warning to `report`; `verdict`: the
    clip's `ClipVerdict` when already made (else `inspect_clip(full, max_s, min_s=min_s)`); with
    `silence_refused` (room tone: the mixer cannot set the level of silence) a silent clip is
    an error. `relative_to`: what a path that does not exist is relative to, for the hint."""
    verdict = verdict or inspect_clip(full, max_s, min_s=min_s)
    position = position or SourcePosition(report.script.source, 1, 1)
    if silence_refused and verdict.warning:
        verdict.error, verdict.warning = verdict.warning, None
    if verdict.error:
        hint = (
            f"record it or fix the path (relative to {relative_to})"
            if verdict.error == "does not exist"
            else "give a longer recording (a few seconds of clear speech)"
            if "needs at least" in verdict.error
            else "trim it to a shorter excerpt"
            if verdict.error.endswith(" s")
            else "export it again as a WAV or FLAC that holds the recording"
            if "samples" in verdict.error
            else "export it again as a WAV or FLAC at a usual rate (44,100 or 48,000 Hz)"
            if "real rate" in verdict.error
            else None
        )
        report.errors.append(ScriptError(f"{what} {verdict.error}", position, hint))
    elif verdict.warning:
        report.warnings.append(Warning_(f"{what} {verdict.warning}", position))
