"""Benchmark: assemble a synthetic long book into ACX chapter MP3s and an M4B in bounded memory.

The takes and chapters come from `bench/mix_long.py`'s generator (speech-like synthetic takes);
each chapter goes through the same steps as `drama book`: the chapter mix (`mix_scene` with the
book's settings), MP3 encoding with ID3 tags, decoding and measuring against ACX's rules, and at
the end one M4B with chapter marks. Prints, per chapter, its ACX figures, and in the end the
time per step, the real-time factor, and the peak resident memory of this process and of the
largest ffmpeg it started.

    python bench/book_long.py                        # 10 h in 60-minute chapters
    python bench/book_long.py --hours 1 --chapter-minutes 30
    python bench/book_long.py --beds                 # every chapter under a rain and a music
                                                     # bed, ducked, an effect every 20th line

Goal: under 1 GB peak memory for a 10-hour book.
Measured (10.01 h in 60-minute chapters, 2 cores shared with other work): 1,523 s wall, peak RSS
212 MB; docs/guide/books.md §Speed and memory has the steps. With --beds (1.00 h in two
30-minute chapters, the machine heavily shared): peak RSS 216 MB, mix 63 s (57× real time),
every chapter passes ACX.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mix_long import make_take_pool, scene_entries, scene_sounds, write_sound_files  # noqa: E402

from drama_cli.book.acx import MAX_FILE_S  # noqa: E402
from drama_cli.book.assemble import chapter_settings, encode_checked  # noqa: E402
from drama_cli.book.m4b import write_m4b  # noqa: E402
from drama_cli.mix.export import require_encoder  # noqa: E402
from drama_cli.mix.sounds import SceneSounds  # noqa: E402
from drama_cli.mix.timeline import mix_scene  # noqa: E402
from drama_cli.script.document import SoundAnchor  # noqa: E402
from drama_cli.script.mix_settings import MIX_DEFAULTS  # noqa: E402


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident memory in MB (Linux reports kilobytes); RUSAGE_CHILDREN: the largest child."""
    return resource.getrusage(who).ru_maxrss / 1024


def chapter_beds(work: Path, entries: list) -> SceneSounds:
    """`mix_long`'s beds and effects as one scene's sounds in a chapter, the beds from the first
    line on (ACX's head stays room tone)."""
    first = SoundAnchor(entries[0].line_id)
    sounds = tuple(
        sound if sound.kind == "effect" else replace(sound, start=first)
        for sound in scene_sounds(work, entries)
    )
    return SceneSounds(
        sounds, tuple(entry.line_id for entry in entries), MIX_DEFAULTS.head_s, MIX_DEFAULTS.tail_s
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=10.0)
    parser.add_argument("--chapter-minutes", type=float, default=60.0)
    parser.add_argument(
        "--beds",
        action="store_true",
        help="ambience and music beds under every chapter, ducked, and effects",
    )
    args = parser.parse_args()

    ffmpeg = require_encoder("mp3")
    rng = np.random.default_rng(13)
    work = Path(tempfile.mkdtemp(prefix="drama-book-bench-"))
    script = SimpleNamespace(
        book=SimpleNamespace(
            author="A. Writer", narrator="N. Reader", year="2026", copyright=None, cover=None
        ),
        base_dir=str(work),
    )
    times = {"mix": 0.0, "encode and check": 0.0, "m4b": 0.0}
    try:
        pool = make_take_pool(work, rng)
        if args.beds:
            write_sound_files(work, rng)
        count = max(1, round(args.hours * 60 / args.chapter_minutes))
        masters, audio_s = [], 0.0
        for number in range(1, count + 1):
            entries = scene_entries(pool, args.chapter_minutes * 60, rng)
            chapter = SimpleNamespace(number=number, title=f"Chapter {number}")
            start = time.perf_counter()
            settings = chapter_settings(entries, {}, number)
            if args.beds:  # as `mix_chapter` gives a chapter of one scene its sounds
                settings = replace(settings, scene_sounds=(chapter_beds(work, entries),))
            result = mix_scene(entries, settings, work_dir=work / "masters")
            times["mix"] += time.perf_counter() - start
            start = time.perf_counter()
            target = work / f"{number:02d} Chapter {number}.mp3"
            check = encode_checked(
                result.audio_path,
                target,
                {
                    "title": chapter.title,
                    "album": "Bench",
                    "artist": "A. Writer",
                    "track": f"{number}/{count}",
                },
                ffmpeg,
                MAX_FILE_S,
                work,
            )
            times["encode and check"] += time.perf_counter() - start
            audio_s += check.duration_s
            masters.append((chapter, result.audio_path))
            print(
                f"chapter {number}/{count}: {check.duration_s / 60:.1f} min, RMS {check.rms_db:.1f} dB, "
                f"peak {check.peak_dbfs:.2f} dBFS, noise floor {check.noise_floor_db:.1f} dB, "
                f"head {check.head_s:.2f} s, tail {check.tail_s:.2f} s, "
                f"{'passes ACX' if check.passed else '; '.join(check.problems)}; "
                f"peak RSS {peak_rss_mb():.0f} MB",
                flush=True,
            )
            target.unlink()
        start = time.perf_counter()
        m4b = write_m4b(masters, work / "Bench.m4b", script, "Bench", False, ffmpeg)
        times["m4b"] += time.perf_counter() - start
        total = sum(times.values())
        print(
            f"assembled {audio_s / 3600:.2f} h in {total:.0f} s wall ({audio_s / total:.0f}x real time): "
            + ", ".join(f"{step} {seconds:.0f} s" for step, seconds in times.items())
        )
        print(
            f"M4B: {m4b['duration_s'] / 3600:.2f} h, {len(m4b['chapters'])} chapter marks, "
            f"{(work / 'Bench.m4b').stat().st_size / 1e6:.0f} MB"
        )
        print(
            f"peak RSS: this process {peak_rss_mb():.0f} MB, largest ffmpeg "
            f"{peak_rss_mb(resource.RUSAGE_CHILDREN):.0f} MB"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
