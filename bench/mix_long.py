"""Benchmark: mix a synthetic 10-hour book (scenes of short takes) in bounded memory.

Prints the peak resident memory of the process and the real-time factor (seconds of audio
mixed per second of wall time, and per second of this process's CPU time), plus, on the
first scene, a ratio against an in-memory oracle (whole-scene numpy sum, pyloudnorm's
integrated loudness, one soundfile write) measured in the same run, with the two loudness
readings side by side.

    python bench/mix_long.py                       # 10 h in 30-minute scenes, preset r128
    python bench/mix_long.py --hours 1 --scene-minutes 60 --preset none
    python bench/mix_long.py --beds                # every scene under a rain and a music bed,
                                                   # ducked, with an effect after every 20th line

Goal: peak memory < 1 GB and ≥ 200× real time on a 2-core machine.
Measured (10.02 h in 30-minute scenes, r128): peak RSS 127 MB; 272× real time by CPU time,
74× by wall clock with the 2 cores shared (load average about 7).
With --beds (0.5 h, r128, a 20 s rain loop and a 3-minute music file looped and ducked under
every line, an effect after every 20th line): peak RSS 201 MB against 127 MB without, 166×
real time by CPU time against 178× without in the same session; 1 h: 201 MB, 128× with the
machine more loaded. Those 74 MB were the bench's own: it generated the 3-minute music file in
float64 after its baseline. With the files written before the baseline and long sounds read a
block at a time: 0.5 h, peak RSS 140 MB, all of it reached before the first mix (imports, take
pool, sound files), 181× real time by CPU time. 10.02 h with beds (20 scenes of 30 minutes, each
under the rain loop and the music bed, ducked, with an effect after every 20th line), idle
machine: peak RSS 141 MB (140 MB after imports and the take pool), 204× real time by wall clock,
211× by CPU time; every scene at −23.00 LUFS.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyloudnorm
import soundfile as sf

from drama_cli.mix.loudness import SAMPLE_RATE
from drama_cli.mix.timeline import (
    MixEntry,
    mix_scene,
    read_take,
    write_mix,
)
from drama_cli.script.document import Sound, SoundAnchor
from drama_cli.script.mix_settings import MIX_DEFAULTS, MixSettings

POOL_SIZE = 48


def make_take_pool(folder: Path, rng: np.random.Generator) -> list[Path]:
    """Write POOL_SIZE speech-like takes (1–6 s of syllable-modulated noisy tones), 24-bit."""
    paths = []
    for index in range(POOL_SIZE):
        seconds = rng.uniform(1.0, 6.0)
        t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
        pitch = rng.uniform(90, 220)
        voiced = sum(np.sin(2 * np.pi * pitch * k * t) / k for k in range(1, 6))
        syllables = np.clip(np.sin(2 * np.pi * rng.uniform(3, 5) * t), 0, None) ** 2
        noise = rng.standard_normal(t.size) * 0.05
        audio = (0.25 * voiced + noise) * syllables * rng.uniform(0.3, 1.0)
        path = folder / f"take-{index:03d}.wav"
        sf.write(path, audio.astype(np.float32), SAMPLE_RATE, subtype="PCM_24")
        paths.append(path)
    return paths


SOUND_FILES = {"rain.wav": 20.0, "music.wav": 180.0, "door.wav": 1.0}  # name: seconds


def write_sound_files(folder: Path, rng: np.random.Generator) -> None:
    """Write the sounds of `scene_sounds` into `folder`: noise at 0.05 RMS, 16-bit."""
    for name, seconds in SOUND_FILES.items():
        audio = rng.standard_normal(int(seconds * SAMPLE_RATE), dtype=np.float32) * np.float32(0.05)
        sf.write(folder / name, audio, SAMPLE_RATE, subtype="PCM_16")


def scene_sounds(folder: Path, entries: list[MixEntry]) -> tuple:
    """An ambience bed (a 20 s loop), a music bed (a 3-minute file, looped) and an effect
    (a 1 s burst) after every 20th line, from the files `write_sound_files` wrote."""
    beds = tuple(
        Sound(str(folder / name), kind, SoundAnchor(), loop=True, duck=True, name=name)
        for name, kind in (("rain.wav", "ambience"), ("music.wav", "music"))
    )
    effects = tuple(
        Sound(
            str(folder / "door.wav"), "effect", SoundAnchor(entry.line_id, "end"), name="door.wav"
        )
        for entry in entries[::20]
    )
    return beds + effects


def scene_entries(pool: list[Path], seconds: float, rng: np.random.Generator) -> list[MixEntry]:
    """Lines drawn from the pool until the scene is about `seconds` long."""
    lengths = {p: sf.info(str(p)).duration for p in pool}
    entries, total = [], 0.0
    while total < seconds:
        path = pool[int(rng.integers(len(pool)))]
        number = len(entries)
        entries.append(MixEntry(f"l{number}", f"SPEAKER{number % 3}", "line text", path, 1))
        total += lengths[path] + 0.5
    return entries


def oracle_mix(entries: list[MixEntry], settings: MixSettings, target: Path) -> tuple[float, float]:
    """Mix in memory the straightforward way; returns (seconds taken, measured LUFS)."""
    start = time.perf_counter()
    pieces = [np.zeros(int(settings.head_s * SAMPLE_RATE), np.float32)]
    for entry in entries:
        pieces.append(read_take(entry.take_path))
        pieces.append(np.zeros(int(settings.gap_s * SAMPLE_RATE), np.float32))
    audio = np.concatenate(pieces)
    lufs = pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(audio.astype(np.float64))
    sf.write(target, audio, SAMPLE_RATE, subtype="PCM_24")
    return time.perf_counter() - start, lufs


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=10.0)
    parser.add_argument("--scene-minutes", type=float, default=30.0)
    parser.add_argument("--preset", default="r128")
    parser.add_argument("--room-tone", default="noise")
    parser.add_argument(
        "--beds",
        action="store_true",
        help="ambience and music beds under every scene, ducked, and effects",
    )
    args = parser.parse_args()

    rng = np.random.default_rng(7)
    work = Path(tempfile.mkdtemp(prefix="drama-bench-"))
    try:
        pool = make_take_pool(work, rng)
        if args.beds:
            write_sound_files(work, rng)
        settings = MixSettings(preset=args.preset, room_tone=args.room_tone or None).resolved()
        scenes = max(1, round(args.hours * 60 / args.scene_minutes))
        baseline_mb = peak_rss_mb()
        audio_s = wall_s = cpu_s = 0.0
        for scene in range(scenes):
            entries = scene_entries(pool, args.scene_minutes * 60, rng)
            sounds = scene_sounds(work, entries) if args.beds else ()
            start, cpu_start = time.perf_counter(), time.process_time()
            result = mix_scene(entries, replace(settings, sounds=sounds), work_dir=work / "render")
            write_mix(result, work / "scene")
            wall_s += time.perf_counter() - start
            cpu_s += time.process_time() - cpu_start
            audio_s += result.duration_s
            if scene == 0:
                first = (entries, result, time.perf_counter() - start)
            print(
                f"scene {scene + 1}/{scenes}: {result.duration_s / 60:.1f} min, "
                f"{result.loudness.integrated_lufs} LUFS, peak RSS {peak_rss_mb():.0f} MB",
                flush=True,
            )
            shutil.rmtree(work / "scene")
        print(
            f"mixed {audio_s / 3600:.2f} h of audio in {wall_s:.1f} s wall, {cpu_s:.1f} s CPU: "
            f"{audio_s / wall_s:.0f}x real time by wall clock, {audio_s / cpu_s:.0f}x by CPU "
            f"time (the CPU figure is what a machine not shared with other work would see)"
        )
        print(
            f"peak RSS {peak_rss_mb():.0f} MB (after imports and take pool: {baseline_mb:.0f} MB)"
        )
        report_oracle(*first, settings, work)  # last: its whole-scene arrays raise the peak
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report_oracle(entries, result, ours_s: float, settings: MixSettings, work: Path) -> None:
    """Print our scene time against the in-memory oracle's, and both loudness readings."""
    oracle_s, oracle_lufs = oracle_mix(entries, MIX_DEFAULTS, work / "oracle.wav")
    print(
        f"first scene: ours {ours_s:.2f} s (two passes, preset {settings.preset}, limiter, "
        f"true peak), in-memory oracle {oracle_s:.2f} s (one pass, no processing): "
        f"ratio {ours_s / oracle_s:.2f}; raw loudness ours {result.measured.integrated_lufs:.2f} "
        f"LUFS, pyloudnorm {oracle_lufs:.2f} LUFS"
    )


if __name__ == "__main__":
    main()
