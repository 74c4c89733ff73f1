"""Sound cues inside a line: `{sfx: NAME}`, `{sound: NAME}` (an effect that plays once) and
`{music: NAME}` (music that loops to the scene's end, ducked), the direction grammar's `sound`
spans, made sounds of their scene.

NAME is looked up in the script's `sounds:` table (`drama_cli.script.sound_table`); a name the
table lacks is an error at the name. The sound starts at the word after the cue: its anchor is
the line's start with the index of that word among the line's displayed words
(`SoundAnchor.word`), which the mix turns into a time (`drama_cli.mix.word_place`). The cue is
never part of what is sent: moving or changing one never renders a take again.
"""

from __future__ import annotations

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.direction import cue_word
from drama_cli.script.document import Line, Script, Sound, SoundAnchor, Span
from drama_cli.script.fountain_sounds import sound_cue
from drama_cli.script.sound_table import give_file


def resolve_line_cues(script: Script) -> list[ScriptError]:
    """Add every sound cue written inside a line to its scene's sounds, after those written
    among the lines, with its file from `script.sounds`. Returns an error at each name the
    table lacks (that cue is left out)."""
    errors = []
    for scene in script.scenes:
        for line in scene.lines:
            for span in (span for span in line.spans if span.kind == "sound"):
                sound = line_cue(line, span)
                missing = give_file(script, sound)
                if missing is not None:
                    errors.append(missing)
                elif sound.path:
                    scene.sounds.append(sound)
    return errors


def line_cue(line: Line, span: Span) -> Sound:
    """The Sound of the cue `span` of `line`, without its file: named `span.value`, anchored to
    the word it starts at."""
    brace = span.position or line.position or SourcePosition("<text>", 1, 1)
    _, sound = sound_cue(span.text[1:-1], SourcePosition(brace.file, brace.line, brace.column + 1))
    sound.name = span.value
    sound.start = SoundAnchor(
        line.id, "start", 0.0, sound.position, word=cue_word(line.spans, span)
    )
    return sound
