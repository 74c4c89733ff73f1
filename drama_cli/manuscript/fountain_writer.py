"""An imported play written as a Fountain screenplay and its cast file.

Acts are `#` sections, each scene a forced scene heading (`.ACT ONE`, `.SCENE TWO`), a line
its character's cue with the note as a parenthetical and the text as dialogue, a second voice
of a joint speech dual dialogue (`^`), a direction forced action (`!`). The cast (with
descriptions) and `narrator: NARRATOR` go to `<name>.cast.yaml` beside the screenplay, where
`drama` looks for a Fountain script's cast.
"""

from __future__ import annotations

import re
from collections import Counter

from drama_cli.manuscript.imported import NARRATOR, ImportedLine, Manuscript
from drama_cli.manuscript.writer import cast_lines, speakable


def cast_path_for(fountain_name: str) -> str:
    """`play.fountain` → `play.cast.yaml` (the cast file `drama` reads beside a screenplay)."""
    return re.sub(r"\.fountain$", "", fountain_name) + ".cast.yaml"


def fountain_text(manuscript: Manuscript, source: str) -> str:
    """The screenplay of an imported play (see the module)."""
    out = [f"Title: {speakable(manuscript.title)}"]
    if manuscript.author:
        out.append(f"Author: {manuscript.author}")
    out += ["", f"[[Imported from {source} by drama import.]]", ""]
    for chapter in manuscript.chapters:
        out += [f"# {speakable(chapter.title)}", ""]
        for scene in chapter.scenes:
            out += [f".{speakable(scene.title or chapter.title).upper()}", ""]
            out += [row for line in scene.lines for row in (*_element(line), "")]
    return "\n".join(out)


def _element(line: ImportedLine) -> list[str]:
    text = " ".join(speakable(line.text).split())
    if line.speaker is None or line.speaker == NARRATOR:
        return [f"!{text}"]
    cue = line.speaker + (" ^" if line.overlap else "")
    return [cue, *([f"({line.note})"] if line.note else []), text]


def cast_yaml(manuscript: Manuscript) -> str:
    """The cast file of the screenplay: the narrator (who reads the directions) and the cast."""
    return "\n".join([f"narrator: {NARRATOR}", "cast:", *cast_lines(manuscript, Counter())]) + "\n"
