"""A scene mix's stems: one WAV per character, one for effects, one for music and ambience and
one for room tone, beside the mix (`mix.stem-<name>.wav`).

The stems are the parts of the mix after the preset's gain and before the final limiter: each
is rendered from the same timeline (`timeline.timeline_parts`) with the gain the mix applied,
the room tone at its own level, so their sum equals the mix before the limiter sample for
sample (the limiter only touches peaks above the preset's ceiling). Sample-aligned, at
44,100 Hz, as long as the mix, in the mix's WAV subtype.
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.mix import export
from drama_cli.mix.sounds import EFFECTS, MUSIC
from drama_cli.mix.timeline import (
    BLOCK_SAMPLES,
    MIX_BASENAME,
    MixResult,
    RoomTone,
    timeline_parts,
)
from engine import files
from engine.constants import SAMPLE_RATE

ROOM_TONE = "room-tone"
STEM_PREFIX = f"{MIX_BASENAME}.stem-"


def stem_name(part: str) -> str:
    """The file-name form of a stem (a speaker's name lower-cased, anything but letters, digits,
    '-' and '_' made '-'): `mix.stem-<name>.wav`."""
    return re.sub(r"[^\w-]+", "-", part.strip().lower(), flags=re.UNICODE).strip("-") or "voice"


def stem_parts(result: MixResult) -> list[str]:
    """The stems of `result`, in order: each speaker in order of first line, then effects and
    music when the scene has such sounds, then room tone when the mix has one."""
    speakers = list(dict.fromkeys(cue.speaker for cue in result.cues))
    kinds = {sound.stem for sound in result.sounds}
    sounds = [stem for stem in (EFFECTS, MUSIC) if stem in kinds]
    tone = [ROOM_TONE] if result.settings.room_tone is not None else []
    return [*speakers, *sounds, *tone]


def write_stems(result: MixResult, folder: str | Path) -> dict[str, Path]:
    """Write the stems of a finished mix into `folder` (each file atomically) and remove stems
    of an earlier mix that this one has not (a character no longer in the scene). Returns
    {"stem:<name>": path}. Raises AudioError for unreadable takes or sounds."""
    folder = Path(folder)
    parts = stem_parts(result)
    targets = {part: folder / f"{STEM_PREFIX}{stem_name(part)}.wav" for part in parts}
    gain = np.float32(10.0 ** (result.gain_db / 20.0))
    tone = RoomTone(result.settings.room_tone, result.settings.room_tone_db, result.settings.seed)
    staged = {part: files.staged_path(target) for part, target in targets.items()}
    try:
        with ExitStack() as stack:
            writers = {part: stack.enter_context(sf.SoundFile(
                str(staged[part]), "w", SAMPLE_RATE, 1, result.settings.wav_subtype, format="WAV"))
                for part in parts}
            for start, blocks in timeline_parts(result.cues, result.total_samples, result.sounds,
                                                result.settings, by_speaker=True):
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
    files.publish([(staged[part], targets[part]) for part in parts])
    remove_stems(folder, keep=set(targets.values()))
    return {f"stem:{stem_name(part)}": target for part, target in targets.items()}


def remove_stems(folder: str | Path, keep: set[Path] = frozenset()) -> None:
    """Remove the `mix.stem-*.wav` files in `folder` other than `keep` (a mix without stems
    leaves none from an earlier one)."""
    for path in Path(folder).glob(f"{STEM_PREFIX}*.wav"):
        if path not in keep:
            path.unlink(missing_ok=True)
