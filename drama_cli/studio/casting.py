"""The studio's Cast and Attribution views and what they write.

Cast: every character with its line count, its voice (a clip, a library voice, a design or
none), the library voice `drama cast suggest` proposes, and its auditions; an audition, a lock
and a proposal applied do what `drama cast audition | lock | suggest --apply` do.

Attribution (an imported book): every line spoken by UNATTRIBUTED or carrying the import's
`# candidates: A 0.70, B 0.30 (rule)` comment, with its candidates; a speaker chosen is written
into the script's row of that line, the comment dropped, the file replaced atomically (the
line keeps its id: imported lines are numbered by place, not by speaker).
"""

from __future__ import annotations

import json
import re
import stat
from collections import Counter
from pathlib import Path

import yaml

from drama_cli.cast.audition import RECORD, audition, audition_folder, cast_member, lock
from drama_cli.cast.cast_file import cast_file_of, script_library, write_voices
from drama_cli.cast.suggest import suggest
from drama_cli.errors import UsageError
from drama_cli.script.book import UNATTRIBUTED
from drama_cli.script.direction import display_text
from drama_cli.script.voice_library import LIBRARY_PREFIX, library_dir, list_voices
from engine.files import write_text_atomic

CANDIDATES = re.compile(r"\s+#\s*candidates:\s*(?P<list>[^()#]*?)\s*(?:\((?P<rule>[^)]*)\))?\s*$")
CANDIDATE = re.compile(r"(?P<name>.+?)\s+(?P<p>[01](?:\.\d+)?)$")
MAX_CANDIDATES = 16


def library_of(project, script) -> Path:
    """The voice library the project's cast names: its `voice_library:`, else the default."""
    return library_dir(script_library(cast_file_of(script)))


def auditions_of(script_path: Path, character: str) -> list[dict]:
    """The audition takes of `character` (`auditions.json`): take, words, seed, seconds."""
    try:
        record = json.loads((audition_folder(script_path, character) / RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return [
        {k: t.get(k) for k in ("take", "words", "seed", "duration_s")}
        for t in record.get("takes", [])
        if isinstance(t, dict)
    ]


def cast_view(project) -> dict:
    """Every cast member: name, lines, voice (`{kind, name}`: clip, library, design or none),
    the proposal (`{voice, reasons}` or None) and the auditions."""
    script = project.script()
    lines = Counter(s for scene in script.scenes for line in scene.lines for s in line.speakers())
    try:
        voices = list_voices(library_of(project, script))
    except UsageError:
        voices = []
    proposals = {p.character: p for p in suggest(script, voices)} if voices else {}
    members = []
    for name, member in script.cast.items():
        if name == UNATTRIBUTED:
            continue
        if member.library_voice:
            voice = {"kind": "library", "name": member.library_voice}
        elif member.references:
            voice = {"kind": "clip", "name": Path(member.references[0].path).name}
        elif member.design:
            voice = {"kind": "design", "name": member.design}
        else:
            voice = {"kind": "none", "name": ""}
        proposal = proposals.get(name)
        members.append(
            {
                "name": name,
                "lines": lines[name],
                "narrator": name == script.narrator,
                "voice": voice,
                "proposal": (
                    {"voice": proposal.voice, "reasons": list(proposal.reasons)}
                    if proposal is not None and proposal.voice
                    else None
                ),
                "auditions": auditions_of(project.script_path, name),
            }
        )
    return {"members": members}


def voice_clip(project, query) -> tuple[Path, Path]:
    """The audio of `character=NAME` (audition `take=K`, else the member's own clip) and the
    voice library. Found through the cast and the audition record only; the request never
    names a path."""
    script = project.script()
    library = library_of(project, script)
    member = cast_member(script, query.get("character", ""))
    take = query.get("take", "")
    if take:
        chosen = [
            a for a in auditions_of(project.script_path, member.name) if str(a["take"]) == take
        ]
        if not chosen:
            raise UsageError(f"{member.name} has no audition take {take}")
        folder = audition_folder(project.script_path, member.name)
        return folder / f"take-{chosen[0]['take']}.wav", library
    if not member.references:
        raise UsageError(f"{member.name} has no voice clip")
    path = Path(member.references[0].path)
    return (path if path.is_absolute() else project.script_path.parent / path), library


def run_audition(project, backend, body: dict) -> dict:
    """`drama cast audition` for `body["character"]` with `body["candidates"]` takes."""
    script = project.script()
    member = cast_member(script, str(body.get("character", "")))
    count = body.get("candidates", 4)
    if not isinstance(count, int) or isinstance(count, bool):
        raise UsageError("candidates must be a number")
    folder = audition_folder(project.script_path, member.name)
    audition(script, member.name, backend, folder, count)
    return cast_view(project)


def lock_take(project, body: dict) -> dict:
    """`drama cast lock` of take `body["take"]` of `body["character"]`."""
    script = project.script()
    member = cast_member(script, str(body.get("character", "")))
    take = body.get("take")
    if not isinstance(take, int) or isinstance(take, bool):
        raise UsageError("take must be a take number")
    folder = audition_folder(project.script_path, member.name)
    lock(script, member.name, take, folder, library_of(project, script))
    return cast_view(project)


def apply_proposal(project, body: dict) -> dict:
    """Write the proposed library voice of `body["character"]` into the cast."""
    script = project.script()
    member = cast_member(script, str(body.get("character", "")))
    proposals = {p.character: p for p in suggest(script, list_voices(library_of(project, script)))}
    proposal = proposals.get(member.name)
    if proposal is None or proposal.voice is None:
        raise UsageError(f"no library voice is proposed for {member.name}")
    write_voices(cast_file_of(script, member.name), {member.name: LIBRARY_PREFIX + proposal.voice})
    return cast_view(project)


def parse_candidates(row: str) -> tuple[list[tuple[str, float]], str | None]:
    """The candidates and rule of a row's `# candidates: A 0.70, B 0.30 (rule)` comment."""
    match = CANDIDATES.search(row)
    if match is None:
        return [], None
    found = []
    for part in match.group("list").split(","):
        item = CANDIDATE.match(part.strip())
        if item:
            found.append((item.group("name").strip(), float(item.group("p"))))
    return found[:MAX_CANDIDATES], match.group("rule")


def attribution_view(project) -> dict:
    """The lines to attribute: spoken by UNATTRIBUTED or with candidates, in script order:
    id, scene, speaker, text, candidates `[{name, p}]` (cast names only), rule; and the cast."""
    script = project.script()
    rows = project.script_path.read_text(encoding="utf-8").splitlines()
    found = []
    for scene in script.scenes:
        for line in scene.lines:
            where = line.cue_position or line.position
            row = rows[where.line - 1] if where is not None and 0 < where.line <= len(rows) else ""
            candidates, rule = parse_candidates(row)
            if line.speaker != UNATTRIBUTED and not candidates:
                continue
            found.append(
                {
                    "id": line.id,
                    "scene": scene.id,
                    "speaker": line.speaker,
                    "text": display_text(line),
                    "candidates": [{"name": n, "p": p} for n, p in candidates if n in script.cast],
                    "rule": rule,
                }
            )
    names = [n for n in script.cast if n not in (UNATTRIBUTED, script.narrator)]
    return {"lines": found, "cast": names}


def choose_speaker(project, body: dict) -> dict:
    """Write `body["speaker"]` as the speaker of line `body["line"]` into the script file:
    the line's row rewritten (`- NAME: text` or `speaker: NAME`), its candidates comment
    dropped, the file replaced atomically; refused unless the file then reads back with only
    that speaker changed."""
    script = project.script()
    line_id, speaker = str(body.get("line", "")), str(body.get("speaker", ""))
    if speaker not in script.cast or speaker == UNATTRIBUTED:
        raise UsageError(f"{speaker!r} is not a speaker of the cast")
    _, line = project.find_scene_line(line_id)
    if script.format != "yaml":
        raise UsageError("only a YAML script's speakers are chosen here")
    path = project.script_path
    source = path.read_text(encoding="utf-8")
    rows = source.splitlines(keepends=True)
    where = line.cue_position or line.position
    at = where.line - 1
    row = rows[at]
    ending = "\n" if row.endswith("\n") else ""
    body_row = CANDIDATES.sub("", row.rstrip("\n"))
    key = json.dumps(speaker) if not re.fullmatch(r"[A-Z][A-Z .'-]*", speaker) else speaker
    short = re.match(r"^(\s*-\s+)([^:]+?)(:\s.*)$", body_row)
    long = re.match(r"^(\s*-\s+speaker:\s+|\s*speaker:\s+)(.+)$", body_row)
    if long:
        rows[at] = long.group(1) + json.dumps(speaker) + ending
    elif short:
        rows[at] = short.group(1) + key + short.group(3) + ending
    else:
        raise UsageError(f"{path}:{at + 1}: the line's speaker is not written on one row here")
    updated = "".join(rows)
    if _speakers_changed(source, updated) != 1:
        raise UsageError(f"{path}:{at + 1}: writing the speaker would change more than the line")
    write_text_atomic(path, updated, mode=stat.S_IMODE(path.stat().st_mode))
    return attribution_view(project)


def _speakers_changed(before: str, after: str) -> int:
    """How many lines differ between two YAML scripts, or -1 when anything but a line's
    speaker differs."""
    old, new = yaml.safe_load(before), yaml.safe_load(after)

    def lines(data):
        found = []

        def walk(node):
            if isinstance(node, dict):
                if "lines" in node and isinstance(node["lines"], list):
                    found.extend(node["lines"])
                for key, value in node.items():
                    if key != "lines":
                        walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)

        walk(data)
        return found

    a, b = lines(old), lines(new)
    if len(a) != len(b):
        return -1
    changed = 0
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        if not (isinstance(x, dict) and isinstance(y, dict)):
            return -1
        if "speaker" in x:
            same = {k: v for k, v in x.items() if k != "speaker"} == {
                k: v for k, v in y.items() if k != "speaker"
            }
        else:
            same = len(x) == len(y) == 1 and list(x.values()) == list(y.values())
        if not same:
            return -1
        changed += 1
    return changed
