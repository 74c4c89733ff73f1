"""A scene mix handed to a DAW: every take and sound as a clip at its place, on tracks per
character, effects and music (`stage_sessions`), switched into place with the mix as one set
(`drama_cli.mix.mix_set`).

Two formats: an OpenTimelineIO timeline (`mix.otio`, written with the ASWF's `opentimelineio`,
whose adapters convert it to other editors' formats), and a REAPER project (`mix.rpp`, plain
text, read by REAPER as is). Clips point at the files themselves (takes in the project folder,
sounds where the script names them), by paths relative to the scene folder, so the folder can
move with its project. Times are whole samples at 44,100 Hz. Gains and fades are written where
the format has them (REAPER: item volume, fades and loops; OTIO: each clip's `drama` metadata);
ducking and the loudness preset are not: the DAW mixes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import opentimelineio as otio

from drama_cli.mix.mix_set import MIX_BASENAME
from drama_cli.mix.sounds import EFFECTS, MUSIC, SoundCue
from drama_cli.mix.timeline import MixResult, take_length_samples
from drama_cli.script.mix_settings import MIX_FIELDS, check_session_format
from engine import files
from engine.constants import SAMPLE_RATE

SESSION_FORMATS = MIX_FIELDS["sessions"].allowed


@dataclass(frozen=True)
class SessionClip:
    """One clip: the take or sound (`SoundCue`: name, where it sits and how long it plays in
    samples, gain, fades, loop; its `path` relative to the scene folder) and its file's length
    in samples at 44,100 Hz."""

    cue: SoundCue
    file_length: int

    @property
    def length(self) -> int:
        """Samples the clip plays on the timeline."""
        return self.cue.end_sample - self.cue.start_sample


def session_tracks(result: MixResult, folder: Path) -> list[tuple[str, list[SessionClip]]]:
    """The tracks of `result` in order (each speaker in order of first line, then effects and
    music when the scene has them), each with its clips in order of start."""
    tracks: dict[str, list[SessionClip]] = {}
    for cue in result.cues:
        take = SoundCue(
            cue.line_id,
            _relative(cue.take_path, folder),
            "line",
            cue.start_sample,
            cue.end_sample,
            10.0 ** (cue.gain_db / 20.0),
        )
        tracks.setdefault(cue.speaker, []).append(
            SessionClip(take, take_length_samples(cue.take_path))
        )
    for stem in (EFFECTS, MUSIC):
        for sound in (s for s in result.sounds if s.stem == stem):
            tracks.setdefault(stem, []).append(
                SessionClip(
                    replace(sound, path=_relative(sound.path, folder)),
                    take_length_samples(sound.path),
                )
            )
    return [
        (name, sorted(clips, key=lambda clip: clip.cue.start_sample))
        for name, clips in tracks.items()
    ]


def _relative(path: str | Path, folder: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), folder.resolve())).as_posix()


def stage_sessions(result: MixResult, folder: str | Path, formats) -> dict[str, tuple[Path, Path]]:
    """Write `mix.<fmt>` for each of `formats` (SESSION_FORMATS) under a temporary name in the
    scene `folder`, to switch into place with the mix (`timeline.write_mix`'s `extra`; a
    session of a format not asked for is removed then). Returns {"session:<fmt>": (temporary,
    target)}. Raises UsageError for an unknown format (nothing written)."""
    folder = Path(folder)
    for fmt in formats:
        check_session_format(fmt)
    staged = {}
    try:
        for fmt in formats:
            tracks = session_tracks(result, folder)
            text = otio_text(tracks, result.total_samples) if fmt == "otio" else rpp_text(tracks)
            target = folder / f"{MIX_BASENAME}.{fmt}"
            staged[f"session:{fmt}"] = (files.stage_text(target, text), target)
    except BaseException:
        for tmp, _target in staged.values():
            tmp.unlink(missing_ok=True)
        raise
    return staged


def otio_text(tracks: list[tuple[str, list[SessionClip]]], total: int) -> str:
    """An OpenTimelineIO timeline (JSON text) of `tracks`: one audio track per lane of each
    (clips that overlap on one track go on a second lane, `NAME 2`), gaps between clips, a
    looped clip repeated until its end. Rates are 44,100 Hz."""

    def span(start: int, length: int):
        return otio.opentime.TimeRange(
            otio.opentime.RationalTime(start, SAMPLE_RATE),
            otio.opentime.RationalTime(length, SAMPLE_RATE),
        )

    timeline = otio.schema.Timeline(name="scene")
    timeline.global_start_time = otio.opentime.RationalTime(0, SAMPLE_RATE)
    for name, lanes in _lanes(tracks):
        track = otio.schema.Track(name=name, kind=otio.schema.TrackKind.Audio)
        cursor = 0
        for clip in lanes:
            for start, offset, length in _pieces(clip):
                if start > cursor:
                    track.append(otio.schema.Gap(source_range=span(0, start - cursor)))
                cue = clip.cue
                reference = otio.schema.ExternalReference(
                    target_url=cue.path, available_range=span(0, clip.file_length)
                )
                track.append(
                    otio.schema.Clip(
                        name=cue.name,
                        media_reference=reference,
                        source_range=span(offset, length),
                        metadata={
                            "drama": {
                                "gain": cue.gain,
                                "fade_in_samples": cue.fade_in,
                                "fade_out_samples": cue.fade_out,
                                "loop": cue.loop,
                            }
                        },
                    )
                )
                cursor = start + length
        if total > cursor:
            track.append(otio.schema.Gap(source_range=span(0, total - cursor)))
        timeline.tracks.append(track)
    return otio.adapters.write_to_string(timeline, "otio_json")


def _lanes(tracks) -> list[tuple[str, list[SessionClip]]]:
    """Each track split into lanes whose clips never overlap (OTIO tracks are sequences)."""
    out = []
    for name, clips in tracks:
        lanes: list[list[SessionClip]] = []
        for clip in clips:
            lane = next(
                (lane for lane in lanes if lane[-1].cue.end_sample <= clip.cue.start_sample), None
            )
            if lane is None:
                lanes.append(lane := [])
            lane.append(clip)
        out += [
            (name if number == 0 else f"{name} {number + 1}", lane)
            for number, lane in enumerate(lanes)
        ]
    return out


def _pieces(clip: SessionClip) -> list[tuple[int, int, int]]:
    """(start on the timeline, offset in the file, length) of each repetition of a clip."""
    start = clip.cue.start_sample
    if not clip.cue.loop or clip.file_length <= 0:
        return [(start, 0, clip.length)]
    return [
        (start + done, 0, min(clip.file_length, clip.length - done))
        for done in range(0, clip.length, clip.file_length)
    ]


def rpp_text(tracks: list[tuple[str, list[SessionClip]]]) -> str:
    """A REAPER project (`.rpp` text): one track per character, effects and music, one item per
    clip at its position (seconds, to the sample), with volume, fades and looping."""
    rows = ['<REAPER_PROJECT 0.1 "6.0" 0', f"  SAMPLERATE {SAMPLE_RATE} 0 0"]
    for name, clips in tracks:
        rows += ["  <TRACK", f"    NAME {_quoted(name)}"]
        for cue in (clip.cue for clip in clips):
            rows += [
                "    <ITEM",
                f"      POSITION {cue.start_s:.10f}",
                f"      LENGTH {cue.end_s - cue.start_s:.10f}",
                f"      LOOP {int(cue.loop)}",
                f"      FADEIN 1 {cue.fade_in / SAMPLE_RATE:.10f} 0",
                f"      FADEOUT 1 {cue.fade_out / SAMPLE_RATE:.10f} 0",
                f"      VOLPAN {cue.gain:.10f} 0 1 -1",
                f"      NAME {_quoted(cue.name)}",
                "      <SOURCE WAVE" if cue.path.lower().endswith(".wav") else "      <SOURCE FLAC",
                f"        FILE {_quoted(cue.path)}",
                "      >",
                "    >",
            ]
        rows.append("  >")
    rows.append(">")
    return "\n".join(rows) + "\n"


def _quoted(text: str) -> str:
    """A REAPER string: in double quotes, or in single quotes or backticks when it holds a
    double quote (REAPER has no escapes); newlines become spaces."""
    text = " ".join(str(text).split())
    for quote in ('"', "'", "`"):
        if quote not in text:
            return f"{quote}{text}{quote}"
    return '"' + text.replace('"', "'") + '"'
