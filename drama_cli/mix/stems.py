"""A scene mix's stems: one WAV per character, one for effects, one for music and ambience and
one for room tone, beside the mix (`mix.stem-<name>.wav`), with the map of which file holds what
(`mix.stems.json`), switched into place with it as one set (`drama_cli.mix.mix_set`).

The stems are the parts of the mix after the preset's gain and before the final limiter: each
is rendered from the same timeline (`timeline.timeline_parts`) with the gain the mix applied,
the room tone at its own level, so their sum equals the mix before the limiter sample for
sample (the limiter only touches peaks above the preset's ceiling). Sample-aligned, at
44,100 Hz, as long as the mix, in the mix's WAV subtype.
"""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.mix import export
from drama_cli.mix.mix_set import MIX_BASENAME
from drama_cli.mix.sounds import EFFECTS, MUSIC
from drama_cli.mix.timeline import (
    BLOCK_SAMPLES,
    MixResult,
    RoomTone,
    timeline_parts,
)
from engine import files
from engine.constants import SAMPLE_RATE

ROOM_TONE = "room-tone"
STEM_PREFIX = f"{MIX_BASENAME}.stem-"
STEMS_MAP_NAME = f"{MIX_BASENAME}.stems.json"
STEM_KINDS = {EFFECTS: "effects", MUSIC: "music and ambience", ROOM_TONE: "room tone"}


def stem_name(part: str) -> str:
    """The file-name form of a stem (a speaker's name lower-cased, anything but letters, digits,
    '-' and '_' made '-'): `mix.stem-<name>.wav`."""
    return re.sub(r"[^\w-]+", "-", part.strip().lower(), flags=re.UNICODE).strip("-") or "voice"


def stem_names(parts: list[str]) -> dict[str, str]:
    """Each of `parts`' file-name form (`stem_name`), no two alike: effects, music and room tone
    keep theirs, and a speaker whose name gives one already taken (`ANNE MARIE` after
    `ANNE-MARIE`, a speaker called `MUSIC`) gets `~2`, `~3`… in order of first line. No name's
    own form holds `~`, so a numbered one never meets another's (`MUSIC` is `music~2`, `MUSIC 2`
    is `music-2`)."""
    names = {part: stem_name(part) for part in parts if part in (EFFECTS, MUSIC, ROOM_TONE)}
    taken = set(names.values())
    for part in parts:
        if part in names:
            continue
        base = name = stem_name(part)
        count = 1
        while name in taken:
            count += 1
            name = f"{base}~{count}"
        names[part] = name
        taken.add(name)
    return names


def stem_parts(result: MixResult) -> list[str]:
    """The stems of `result`, in order: each speaker in order of first line, then effects and
    music when the scene has such sounds, then room tone when the mix has one."""
    speakers = list(dict.fromkeys(cue.speaker for cue in result.cues))
    kinds = {sound.stem for sound in result.sounds}
    sounds = [stem for stem in (EFFECTS, MUSIC) if stem in kinds]
    tone = [ROOM_TONE] if result.settings.room_tone is not None else []
    return [*speakers, *sounds, *tone]


def stage_stems(result: MixResult, folder: str | Path) -> dict[str, tuple[Path, Path]]:
    """Write the stems of a finished mix under temporary names in `folder`, to switch into
    place with the mix (`timeline.write_mix`'s `extra`). Returns {"stem:<name>": (temporary,
    target)}. Raises AudioError for unreadable takes or sounds (the temporaries removed)."""
    folder = Path(folder)
    parts = stem_parts(result)
    names = stem_names(parts)
    targets = {part: folder / f"{STEM_PREFIX}{names[part]}.wav" for part in parts}
    gain = np.float32(10.0 ** (result.gain_db / 20.0))
    tone = RoomTone(result.settings.room_tone, result.settings.room_tone_db, result.settings.seed)
    staged = {part: files.staged_path(target) for part, target in targets.items()}
    try:
        with ExitStack() as stack:
            writers = {
                part: stack.enter_context(
                    sf.SoundFile(
                        str(staged[part]),
                        "w",
                        SAMPLE_RATE,
                        1,
                        result.settings.wav_subtype,
                        format="WAV",
                    )
                )
                for part in parts
            }
            for start, blocks in timeline_parts(
                result.cues, result.total_samples, result.sounds, result.settings, by_speaker=True
            ):
                size = min(BLOCK_SAMPLES, result.total_samples - start)
                for part, writer in writers.items():
                    block = blocks.get(part, np.zeros(size, np.float32))
                    if part == ROOM_TONE:
                        tone.add(block, start)
                    else:
                        block = block * gain
                    export.write_block(writer, block)
    except BaseException:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
        raise
    staged_files = {f"stem:{names[part]}": (staged[part], targets[part]) for part in parts}
    target = folder / STEMS_MAP_NAME
    try:
        staged_files["stems"] = (files.stage_text(target, stems_map_text(parts, names)), target)
    except BaseException:
        for tmp, _target in staged_files.values():
            tmp.unlink(missing_ok=True)
        raise
    return staged_files


def stems_map_text(parts: list[str], names: dict[str, str]) -> str:
    """`mix.stems.json`: `{"stems": {file name: {"speaker": NAME} or {"sound": KIND}}}`, in the
    order of `parts` (`stem_parts`), with `names` their file-name forms (`stem_names`)."""
    rows = {
        f"{STEM_PREFIX}{names[part]}.wav": (
            {"sound": STEM_KINDS[part]} if part in STEM_KINDS else {"speaker": part}
        )
        for part in parts
    }
    return json.dumps({"stems": rows}, indent=2, ensure_ascii=False) + "\n"
