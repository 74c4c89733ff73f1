"""Designed voices: candidate takes of one representative line auditioned for a character whose
cast entry has `design:` and no clip, and one of them locked as the character's reference clip.

`audition` renders N takes of the line, each with the description as its style prefix, no
reference and its own seed, into `<script stem>.auditions/<CHARACTER>/take-K.wav` with
`auditions.json` (the words each take says, its seed, the design, the engine). `lock` copies
take K beside the cast file (`refs/<character>-designed.wav`), adds it to the voice library
(source `designed`), and writes `voice:`, `transcript:` and `voice_source:` into the member's
entry of the cast (`cast_file.py`), so every later line clones it.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.backends.base import Backend, GenerationRequest
from drama_cli.cast.cast_file import cast_file_of, lock_member, locked_text
from drama_cli.cast.library import add_voice
from drama_cli.compile.conversations import SceneCompiler
from drama_cli.errors import UsageError
from drama_cli.script.direction import display_text
from drama_cli.script.document import Line, Scene, Script
from drama_cli.script.voice_library import LibraryVoice, voice_names
from engine.constants import SAMPLE_RATE
from engine.files import file_sha256, write_text_atomic

AUDITION_SEED = 7_000  # the first candidate's seed; candidate K has AUDITION_SEED + K
RECORD = "auditions.json"


@dataclass(frozen=True)
class AuditionTake:
    """One candidate: take number (1..N), file name in the audition folder, the line it says
    (id and words, directions left out), the seed, the engine, its length in seconds and the
    SHA-256 of its WAV."""

    take: int
    file: str
    line_id: str
    words: str
    seed: int
    engine: str
    duration_s: float
    sha256: str


def slug(name: str) -> str:
    """A file-name form of a cast name: lower case, runs of other characters as one `-`."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "voice"


def audition_folder(script_path: str | Path, character: str) -> Path:
    """`<script stem>.auditions/<character slug>/` beside the script."""
    path = Path(script_path)
    return path.with_name(f"{path.stem}.auditions") / slug(character)


def cast_member(script: Script, character: str):
    """The cast member `character` names (case ignored). Raises UsageError naming the cast."""
    for name, member in script.cast.items():
        if name.casefold() == character.casefold():
            return member
    raise UsageError(
        f"{character!r} is not in the cast of {script.source} ({', '.join(script.cast)})"
    )


def representative_line(
    script: Script, character: str, line_id: str | None = None
) -> tuple[Scene, Line]:
    """The line an audition says: `line_id` (a line of `character`), else the character's
    longest plain line (no switch to another voice; longest in words said, first on a tie).
    Raises UsageError for an unknown line, another speaker's line, or a character with none."""
    found = [(scene, line) for scene in script.scenes for line in scene.lines]
    if line_id is not None:
        for scene, line in found:
            if line.id == line_id:
                if line.speaker != character:
                    raise UsageError(f"line {line_id} is {line.speaker}'s, not {character}'s")
                return scene, line
        raise UsageError(f"no line {line_id!r} in {script.source}")
    own = [
        (scene, line)
        for scene, line in found
        if line.speaker == character and line.speakers() == [character]
    ]
    if not own:
        raise UsageError(f"{character} has no line of their own to audition: give --line ID")
    return max(own, key=lambda pair: len(display_text(pair[1])))


def audition(
    script: Script,
    character: str,
    backend: Backend,
    folder: Path,
    candidates: int = 4,
    line_id: str | None = None,
) -> list[AuditionTake]:
    """Render `candidates` takes of the representative line of `character` (a member with
    `design:` and no clip) into `folder`; returns them (also written to `auditions.json`).
    Raises UsageError for a character without a design, one that already has a clip, or a
    count outside 1..16."""
    member = cast_member(script, character)
    if not member.design:
        raise UsageError(
            f"{member.name} has no design: add 'design: \"a description of the voice\"' to the cast"
        )
    if member.references:
        raise UsageError(
            f"{member.name} already has a reference clip; auditions are for a designed voice "
            "without one (remove 'voice:' to audition again)"
        )
    if not 1 <= candidates <= 16:
        raise UsageError(f"--candidates must be 1..16, got {candidates}")
    scene, line = representative_line(script, member.name, line_id)
    compiler = SceneCompiler(script, scene)
    plan = compiler.line_plan(scene.lines.index(line), "clone")
    conversation = plan.conversations[0]
    folder.mkdir(parents=True, exist_ok=True)
    takes = []
    for take in range(1, candidates + 1):
        seed = AUDITION_SEED + take
        generation = backend.generate(
            GenerationRequest(
                scene.id,
                line.id,
                member.name,
                conversation.text,
                conversation,
                seed=seed,
                speaker_names={k: name for name, k in plan.speakers.items()},
            )
        )
        path = folder / f"take-{take}.wav"
        audio = np.asarray(generation.audio, dtype=np.float32)
        sf.write(path, audio, SAMPLE_RATE, subtype="FLOAT")
        takes.append(
            AuditionTake(
                take,
                path.name,
                line.id,
                display_text(line),
                seed,
                backend.name,
                round(audio.shape[0] / SAMPLE_RATE, 3),
                file_sha256(path),
            )
        )
    record = {
        "character": member.name,
        "design": member.design,
        "takes": [asdict(t) for t in takes],
    }
    write_text_atomic(folder / RECORD, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return takes


@dataclass(frozen=True)
class Locked:
    """What `lock` did: the clip written beside the cast (its path as the cast names it), the
    cast file edited, and the library voice added."""

    clip: str
    cast_file: Path
    voice: LibraryVoice


def lock(script: Script, character: str, take: int, folder: Path, library: Path) -> Locked:
    """Make audition `take` of `character` (from `folder`) the character's reference clip:
    copied to `refs/<character>-designed.wav` beside the cast file, added to `library` as a
    `designed` voice, and written into the cast (`cast_file.lock_member`). Raises UsageError
    when the audition or the take does not exist, or the take changed since it was made."""
    member = cast_member(script, character)
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        raise UsageError(
            f"no audition of {member.name} in {folder}: run 'drama cast audition' first"
        ) from None
    chosen = [t for t in record.get("takes", []) if t.get("take") == take]
    if not chosen:
        numbers = ", ".join(str(t.get("take")) for t in record.get("takes", []))
        raise UsageError(f"no take {take} in {folder / RECORD} (takes {numbers})")
    chosen = chosen[0]
    audio = folder / chosen["file"]
    if not audio.is_file() or file_sha256(audio) != chosen["sha256"]:
        raise UsageError(f"{audio} is missing or changed since the audition: audition again")
    cast_path = cast_file_of(script, member.name)
    relative = f"refs/{slug(member.name)}-designed.wav"
    # the cast must take the voice before anything is copied or added
    locked_text(
        cast_path.read_text(encoding="utf-8"),
        member.name,
        relative,
        chosen["words"],
        str(cast_path),
    )
    target = cast_path.parent / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(audio, target)
    name = f"{slug(Path(script.source).stem)}-{slug(member.name)}"[:56]
    name = unused_name(library, name)
    voice = add_voice(
        library,
        target,
        name,
        transcript=chosen["words"],
        transcript_from="take",
        source="designed",
        description=member.design,
    )
    lock_member(cast_path, member.name, relative, chosen["words"])
    return Locked(relative, cast_path, voice)


def unused_name(library: Path, name: str) -> str:
    """`name`, or `name-2`, `name-3`, … when the library has it already."""
    taken = set(voice_names(library))
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    return candidate
