"""A long mix holds no more memory than a short one: a chapter under a looped, ducked bed with
an effect every 20th line, mixed at two lengths, peaks at the same traced memory (numpy's
arrays included). Anything kept per sample or per block (an envelope, the bed looped out to
the mix's length) would grow with the length and fail the ratio. A long bed is read a block
at a time, so it costs what a short one does."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import soundfile as sf

from drama_cli.mix.sound_stream import SoundStream
from drama_cli.mix.sounds import SceneSounds
from drama_cli.mix.timeline import MixEntry, mix_scene, read_take
from drama_cli.script.document import Sound, SoundAnchor
from drama_cli.script.mix_settings import MixSettings

SR = 44_100
TAKE_S = 3.0


def noise_file(path, seconds: float, seed: int):
    audio = np.random.default_rng(seed).standard_normal(int(seconds * SR)).astype(np.float32)
    sf.write(str(path), 0.05 * audio, SR, subtype="FLOAT")
    return path


def peak_traced_mb(folder, minutes: float) -> float:
    """Traced peak (MB) of mixing `minutes` of lines under a bed, as a book chapter."""
    take, rain, door = (
        noise_file(folder / name, seconds, seed)
        for name, seconds, seed in (
            ("take.wav", TAKE_S, 1),
            ("rain.wav", 20.0, 2),
            ("door.wav", 1.0, 3),
        )
    )
    entries = [
        MixEntry(f"l{i}", "A", "Words.", take, 1) for i in range(int(minutes * 60 / (TAKE_S + 0.5)))
    ]
    sounds = (
        Sound(str(rain), "ambience", SoundAnchor(), loop=True, duck=True, name="rain"),
        *(
            Sound(str(door), "effect", SoundAnchor(e.line_id, "end"), name="door")
            for e in entries[::20]
        ),
    )
    settings = MixSettings(
        scene_sounds=(SceneSounds(sounds, tuple(e.line_id for e in entries), 0.5, 1.0),)
    )
    tracemalloc.start()
    try:
        result = mix_scene(entries, settings, work_dir=folder / "mix")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.duration_s > minutes * 60 - TAKE_S and len(result.sounds) > 1
    result.audio_path.unlink()
    return peak / 1e6


def test_a_long_chapter_with_beds_mixes_in_the_memory_of_a_short_one(tmp_path):
    short, long = peak_traced_mb(tmp_path, 1.0), peak_traced_mb(tmp_path, 3.0)
    assert long < 1.1 * short, f"1 min: {short:.1f} MB, 3 min: {long:.1f} MB"
    assert long < 40.0


def test_a_long_bed_costs_the_memory_of_a_short_one(tmp_path):
    """A 2-minute bed at 48 kHz is resampled a block at a time, not read whole."""
    rng = np.random.default_rng(4)
    take = noise_file(tmp_path / "take.wav", TAKE_S, 1)
    entries = [MixEntry(f"l{i}", "A", "Words.", take, 1) for i in range(3)]

    def peak_mb(bed_s: float) -> float:
        bed = tmp_path / f"bed-{bed_s:g}.wav"
        sf.write(
            str(bed), 0.05 * rng.standard_normal(int(bed_s * 48_000)), 48_000, subtype="PCM_16"
        )
        sounds = (Sound(str(bed), "ambience", SoundAnchor(), loop=True, duck=True, name="bed"),)
        tracemalloc.start()
        try:
            result = mix_scene(entries, MixSettings(sounds=sounds), work_dir=tmp_path / "mix")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        result.audio_path.unlink()
        return peak / 1e6

    short, long = peak_mb(20.0), peak_mb(120.0)
    assert long < short + 3.0, f"20 s bed: {short:.1f} MB, 2-minute bed: {long:.1f} MB"


@pytest.mark.parametrize("rate", [44_100, 48_000])
def test_a_long_sound_read_in_blocks_is_the_sound_read_whole(tmp_path, rate):
    path = tmp_path / "long.wav"
    audio = np.random.default_rng(5).standard_normal((int(40 * rate), 2)) * 0.1
    sf.write(str(path), audio, rate, subtype="PCM_16")
    whole = read_take(path)
    stream = SoundStream(str(path), read_take)
    assert stream.whole is None and stream.size == whole.size
    blocks = [
        stream.read(start, min(100_000, stream.size - start))
        for start in range(0, stream.size, 100_000)
    ]
    assert np.array_equal(np.concatenate(blocks), whole)
    assert np.array_equal(stream.read(1_000, 5_000), whole[1_000:6_000])  # a loop comes round
    stream.close()
