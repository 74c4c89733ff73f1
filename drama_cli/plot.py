"""Pictures to direct by: a scene's timeline and a take's waveform and spectrogram.

matplotlib with the Agg backend (no display needed). Figures are built by `scene_figure` and
`take_figure` (so tests can inspect the drawn artists) and written by `save_figure` at an exact
pixel size: width x height = figure inches x dpi, no tight cropping.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyloudnorm  # noqa: E402
import soundfile as sf  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import MultipleLocator  # noqa: E402
from scipy.signal import stft  # noqa: E402

from drama_cli.edit.revise import find_line, start_take  # noqa: E402
from drama_cli.errors import UsageError  # noqa: E402
from drama_cli.mix.project_mix import mix_entry  # noqa: E402
from drama_cli.mix.timeline import plan_timeline  # noqa: E402
from drama_cli.script.mix_settings import MIX_DEFAULTS  # noqa: E402
from drama_cli.takes.scene_selection import scene_selection  # noqa: E402
from drama_cli.takes.selection import take_text  # noqa: E402
from drama_cli.takes.store import safe_name  # noqa: E402
from engine.constants import FRAMES_PER_SECOND, SAMPLE_RATE  # noqa: E402
from engine.files import atomic_path  # noqa: E402
from engine.text import spoken_text  # noqa: E402

DPI = 100
SCENE_WIDTH_PX = 1600
LANE_HEIGHT_PX = 110
SCENE_EXTRA_PX = 170  # title, time axis and margins
TAKE_SIZE_PX = (1600, 900)
IMAGE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
LABEL_WORDS = 5
LOUDNESS_RANGE_LUFS = (-45.0, -10.0)  # block colour scale
GAP_LABEL_MIN_S = 0.75
BLOCK_HEIGHT = 0.7
SOUND_LANES = {"effect": "(effects)", "music": "(music)", "ambience": "(music)"}


@dataclass(frozen=True)
class Block:
    """One take on a scene timeline: who speaks which line when (seconds) and how loud (LUFS,
    or dBFS RMS for takes too short to gate; None when unknown). A sound of the scene is a
    block with `sound` set: `line_id` is its name, `speaker` its lane (SOUND_LANES)."""

    line_id: str
    speaker: str
    text: str
    start_s: float
    end_s: float
    loudness_lufs: float | None = None
    sound: bool = False

    @property
    def duration_s(self) -> float:
        """Length of the take in seconds."""
        return self.end_s - self.start_s


def first_words(text: str, count: int = LABEL_WORDS) -> str:
    """The first `count` words of a line for a block label, tags removed, `…` when cut."""
    words = spoken_text(text).split()
    return " ".join(words[:count]) + (" …" if len(words) > count else "")


def take_loudness(audio: np.ndarray) -> float:
    """Integrated loudness of a take in LUFS (BS.1770 via pyloudnorm); takes shorter than one
    400 ms gating block, or that the gate silences, get their RMS in dBFS instead. Silence
    gives -120."""
    audio = np.asarray(audio, dtype=np.float64)
    if len(audio) >= int(0.4 * SAMPLE_RATE):
        value = pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(audio)
        if math.isfinite(value):
            return float(value)
    rms = float(np.sqrt(np.mean(audio**2))) if len(audio) else 0.0
    return 20 * math.log10(rms) if rms > 1e-6 else -120.0


def overlaps(blocks: Sequence[Block]) -> list[tuple[float, float]]:
    """Time ranges (seconds) where two or more blocks sound at once, merged."""
    edges = sorted(
        [(b.start_s, 1) for b in blocks] + [(b.end_s, -1) for b in blocks],
        key=lambda e: (e[0], e[1]),
    )
    ranges, depth, start = [], 0, 0.0
    for time, step in edges:
        if depth >= 2 and time > start:
            if ranges and abs(ranges[-1][1] - start) < 1e-9:
                ranges[-1] = (ranges[-1][0], time)
            else:
                ranges.append((start, time))
        depth += step
        start = time
    return ranges


def gaps(blocks: Sequence[Block]) -> list[tuple[float, float]]:
    """Time ranges (seconds) between the end of the sound so far and the next block's start."""
    ordered = sorted(blocks, key=lambda b: b.start_s)
    found, reach = [], None
    for block in ordered:
        if reach is not None and block.start_s > reach:
            found.append((reach, block.start_s))
        reach = block.end_s if reach is None else max(reach, block.end_s)
    return found


def as_written(text: str) -> str:
    """User text (names, ids, words) for a figure: each `$` escaped, so matplotlib draws it as
    written instead of reading `$...$` as mathematics (which can also fail to draw)."""
    return text.replace("$", r"\$")


def scene_figure(blocks: Sequence[Block], title: str = "", total_s: float | None = None) -> Figure:
    """The scene timeline: one lane per speaker (in order of first appearance), each take a
    block from its start to its end labelled with the line's first words and its loudness,
    coloured by loudness; the scene's sounds on their own lanes below, grey and hatched, labelled
    with their names; overlaps of lines shaded red, longer gaps between lines labelled; x axis in
    seconds. No two
    labels overlap: crowded labels take other rows of their lane or shorten to the line id
    (`_place_labels`).

    Size: 1600 px wide, 170 + 110 px per lane high at 100 dpi. Raises ValueError when there
    are no blocks.
    """
    if not blocks:
        raise ValueError("no takes to plot")
    speakers = list(dict.fromkeys(b.speaker for b in blocks if not b.sound))
    speakers += [
        lane
        for lane in dict.fromkeys(SOUND_LANES.values())
        if any(b.sound and b.speaker == lane for b in blocks)
    ]
    height_px = SCENE_EXTRA_PX + LANE_HEIGHT_PX * len(speakers)
    fig = Figure(figsize=(SCENE_WIDTH_PX / DPI, height_px / DPI), dpi=DPI)
    ax = fig.add_axes(
        [0.09, SCENE_EXTRA_PX * 0.55 / height_px, 0.88, 1 - SCENE_EXTRA_PX / height_px]
    )
    end = total_s if total_s is not None else max(b.end_s for b in blocks)
    cmap, (low, high) = plt.get_cmap("viridis"), LOUDNESS_RANGE_LUFS
    for block in blocks:
        lane = speakers.index(block.speaker)
        level = block.loudness_lufs
        shade = 0.5 if level is None else min(1.0, max(0.0, (level - low) / (high - low)))
        rect = Rectangle(
            (block.start_s, lane - BLOCK_HEIGHT / 2),
            block.duration_s,
            BLOCK_HEIGHT,
            facecolor="lightgray" if block.sound else cmap(shade),
            edgecolor="black",
            linewidth=0.8,
            alpha=0.85,
            hatch="//" if block.sound else None,
            label=f"{'sound' if block.sound else 'block'}:{block.line_id}",
        )
        ax.add_patch(rect)
    for start, stop in overlaps([block for block in blocks if not block.sound]):
        ax.axvspan(start, stop, color="red", alpha=0.18, label="overlap")
    ax.set_xlim(0, max(end * 1.01, 1e-3))
    ax.set_ylim(-0.6, len(speakers) - 0.4)
    ax.set_yticks(range(len(speakers)), [as_written(name) for name in speakers])
    ax.invert_yaxis()
    ax.set_xlabel("time (s)")
    _time_ticks(ax, end)
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.set_title(as_written(title) or "scene timeline", fontsize=10)
    _place_labels(fig, ax, blocks, speakers)
    return fig


LABEL_ROWS = (0.0, -0.15, 0.15, -0.3, 0.3)  # label rows in a lane, lane units from its middle
LABEL_STYLE = {
    "fontsize": 7.5,
    "va": "center",
    "ha": "left",
    "color": "black",
    "bbox": {
        "boxstyle": "square,pad=0.15",
        "facecolor": "white",
        "alpha": 0.75,
        "edgecolor": "none",
    },
}


def label_texts(block: Block) -> list[str]:
    """A block's label, longest first: line id, first words and loudness; line id and
    loudness; line id alone. The layout takes the longest that fits. A sound: its name."""
    if block.sound:
        return [block.line_id]
    loud = "" if block.loudness_lufs is None else f" ({block.loudness_lufs:.0f} LUFS)"
    return [
        f"{block.line_id}: {first_words(block.text)}{loud}",
        f"{block.line_id}{loud}",
        block.line_id,
    ]


def _place_labels(fig: Figure, ax, blocks: Sequence[Block], speakers: list[str]) -> None:
    """Label every block and long gap without two labels overlapping. Boxes are measured with
    the figure's renderer; a label goes in the first row of its lane (`LABEL_ROWS`) where it
    overlaps no label placed before it and stays inside the axes, starting at the block (or
    ending at its end, near the right edge). First every block gets its line id, in time
    order; then each label is lengthened (`label_texts`, longest first) where the longer form
    fits. A block with no room even for its id is left without one. Gap lengths go at the
    bottom edge where they fit."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    frame = ax.get_window_extent(renderer)
    placed: dict[object, object] = {}  # label artist -> its box

    def place(x: float, y: float, text: str, **style):
        artist = ax.text(x, y, as_written(text), clip_on=True, **style)
        box = artist.get_window_extent(renderer).expanded(1.02, 1.1)
        inside = (
            frame.x0 - 3 <= box.x0
            and box.x1 <= frame.x1 + 3
            and frame.y0 <= box.y0
            and box.y1 <= frame.y1
        )
        if inside and not any(box.overlaps(other) for other in placed.values()):
            placed[artist] = box
            return artist
        artist.remove()
        return None

    def label(block: Block, text: str):
        lane = speakers.index(block.speaker)
        anchors = (
            (block.start_s + 0.02 * min(block.duration_s, 1.0), "left"),
            (block.end_s, "right"),
        )
        return next(
            (
                artist
                for x, ha in anchors
                for row in LABEL_ROWS
                if (artist := place(x, lane + row, text, **{**LABEL_STYLE, "ha": ha}))
            ),
            None,
        )

    ordered = sorted(blocks, key=lambda b: (b.start_s, speakers.index(b.speaker)))
    labels = {id(block): label(block, label_texts(block)[-1]) for block in ordered}
    for block in ordered:
        short = labels[id(block)]
        if short is None:
            continue
        box = placed.pop(short)
        longer = next(
            (artist for text in label_texts(block)[:-1] if (artist := label(block, text))), None
        )
        if longer is None:
            placed[short] = box
        else:
            short.remove()
    for start, stop in gaps([block for block in blocks if not block.sound]):
        if stop - start >= GAP_LABEL_MIN_S:
            place(
                (start + stop) / 2,
                len(speakers) - 0.47,
                f"{stop - start:.1f} s",
                ha="center",
                va="center",
                fontsize=7,
                color="gray",
            )


def take_figure(
    audio: np.ndarray, title: str = "", shaded_s: tuple[float, float] | None = None
) -> Figure:
    """A take's waveform (top) and spectrogram (bottom, 0-11 kHz, dB) on one time axis in
    seconds, with a fine ruler (minor ticks down to 10 ms on short takes) and a frame ruler on
    top (44,100 / 2048 frames per second, for `--span ... --frames`); `shaded_s` (seconds) is
    shaded on both, e.g. an edited take's replaced span.

    audio: float32 mono `[samples]` at 44,100 Hz. Size: 1600 x 900 px at 100 dpi.
    Raises ValueError on empty audio.
    """
    audio = np.asarray(audio, dtype=np.float32)
    if audio.size == 0:
        raise ValueError("the take has no audio")
    duration = len(audio) / SAMPLE_RATE
    fig = Figure(figsize=(TAKE_SIZE_PX[0] / DPI, TAKE_SIZE_PX[1] / DPI), dpi=DPI)
    wave_ax = fig.add_axes([0.07, 0.56, 0.9, 0.34])
    spec_ax = fig.add_axes([0.07, 0.08, 0.9, 0.40], sharex=wave_ax)
    times = np.arange(len(audio)) / SAMPLE_RATE
    step = max(1, len(audio) // 20_000)  # enough points for 1600 px; the envelope keeps peaks
    wave_ax.plot(times[::step], audio[::step], linewidth=0.5, color="tab:blue", label="waveform")
    wave_ax.set_ylim(-1.0, 1.0)
    wave_ax.set_ylabel("amplitude")
    _spectrogram(spec_ax, audio, duration)
    for ax in (wave_ax, spec_ax):
        if shaded_s is not None:
            ax.axvspan(shaded_s[0], shaded_s[1], color="orange", alpha=0.3, label="edited span")
        _time_ticks(ax, duration)
        ax.grid(axis="x", which="major", alpha=0.35)
        ax.grid(axis="x", which="minor", alpha=0.08)
    wave_ax.set_xlim(0, duration)
    frames = wave_ax.secondary_xaxis(
        "top", functions=(lambda s: s * FRAMES_PER_SECOND, lambda f: f / FRAMES_PER_SECOND)
    )
    frames.set_xlabel("frame")
    spec_ax.set_xlabel("time (s)")
    fig.suptitle(as_written(title) or "take", fontsize=10)
    return fig


def _spectrogram(ax, audio: np.ndarray, duration: float) -> None:
    nper = 1024
    padded = np.pad(audio, (0, max(0, nper - len(audio))))
    freqs, _, spec = stft(
        padded, fs=SAMPLE_RATE, nperseg=nper, noverlap=nper - 256, boundary="zeros"
    )
    power = 20 * np.log10(np.abs(spec) + 1e-7)
    keep = freqs <= 11_025
    ax.imshow(
        power[keep],
        origin="lower",
        aspect="auto",
        cmap="magma",
        extent=(0.0, duration, 0.0, float(freqs[keep][-1])),
        vmin=float(power.max()) - 90,
        vmax=float(power.max()),
    )
    ax.set_ylabel("frequency (Hz)")


def _time_ticks(ax, duration: float) -> None:
    """Major/minor second ticks chosen so a 1600 px axis reads to about 1 % of its length."""
    steps = (
        (0.1, 0.01),
        (0.5, 0.05),
        (1.0, 0.1),
        (5.0, 1.0),
        (10.0, 2.0),
        (30.0, 5.0),
        (60.0, 10.0),
    )
    major, minor = next((step for step in steps if duration / step[0] <= 25), steps[-1])
    ax.xaxis.set_major_locator(MultipleLocator(major))
    ax.xaxis.set_minor_locator(MultipleLocator(minor))


def check_image_path(path: str | Path) -> Path:
    """`path` as a Path when it can take a picture: its suffix is one of `IMAGE_SUFFIXES`
    (png, svg, pdf, jpg), it is not a directory and its folder exists (none is made). Raises
    UsageError naming the path."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(
            f"{path} is a directory; give an image file name ending in {_suffix_list()}"
        )
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        found = f"'{path.suffix}' is not an image format" if path.suffix else "it has no extension"
        raise UsageError(f"cannot write the picture to {path}: {found}; use {_suffix_list()}")
    if not path.parent.is_dir():
        raise UsageError(f"cannot write the picture to {path}: there is no folder {path.parent}")
    return path


def _suffix_list() -> str:
    return ", ".join(s.lstrip(".") for s in IMAGE_SUFFIXES)


def save_figure(fig: Figure, path: str | Path) -> Path:
    """Write `fig` in the format its suffix names (png, svg, pdf, jpg) at its exact pixel
    size; returns the path. The file is written beside the target, fsynced and renamed into
    place (`engine.files.atomic_path`). Raises UsageError for an unsupported suffix, a
    directory or a folder that cannot be written."""
    path = check_image_path(path)
    try:
        with atomic_path(path) as tmp:  # the temporary's name has no image suffix: say the format
            fig.savefig(tmp, dpi=fig.dpi, format=path.suffix.lstrip(".").lower())
    except OSError as err:
        raise UsageError(f"cannot write the picture to {path}: {err.strerror or err}") from None
    return path


# -- from a project ------------------------------------------------------------------------------


def scene_blocks(script, store, scene_id: str) -> tuple[list[Block], float | None]:
    """The blocks of a scene and its total length (seconds): from the scene's cue sheet
    (`mix.cues.json`, its sounds included) when it was mixed, else laid out from the selected
    takes as the mixer would (without sounds). Raises UsageError for an unknown scene or one without selected takes."""
    try:
        scene = script.scene(scene_id)
    except KeyError:
        known = ", ".join(s.id for s in script.scenes)
        raise UsageError(f"no scene {scene_id!r} (scenes: {known})") from None
    folder = store.scene_dir(scene.id)
    speakers = {line.id: line for line in scene.lines}
    cues_path = folder / "mix.cues.json"
    if cues_path.exists():
        rows, total, sounds = _cue_sheet_rows(store, scene, folder, cues_path)
    else:
        rows, total, sounds = _planned_rows(script, store, scene), None, []
    if not rows:
        raise UsageError(f"scene {scene_id!r} has no selected takes; run drama render first")
    return _blocks(rows, speakers, sounds, total)


def _cue_sheet_rows(store, scene, folder: Path, cues_path: Path) -> tuple[list, float | None, list]:
    """The rows (line, speaker, text, start s, end s, take path), total length (s) and sound
    blocks of a scene's cue sheet. Raises UsageError naming the file when it is not JSON or not
    of the shape the mixer writes."""
    try:
        sheet = json.loads(cues_path.read_text(encoding="utf-8"))
        rows = [
            (
                c["line"],
                c["speaker"],
                c.get("text", ""),
                c["start_s"],
                c["end_s"],
                _cue_take_path(store, scene.id, folder, c),
            )
            for c in sheet.get("cues", [])
        ]
        total = sheet.get("summary", {}).get("duration_s") or sheet.get("duration_s")
        sounds = [
            Block(
                s["sound"],
                SOUND_LANES.get(s.get("kind"), "(effects)"),
                "",
                float(s["start_s"]),
                float(s["end_s"]),
                sound=True,
            )
            for s in sheet.get("sounds", [])
            if isinstance(s, dict)
        ]
        total = None if total is None else float(total)
        rows = [(str(a), str(b), str(c), float(d), float(e), f) for a, b, c, d, e, f in rows]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        shape = isinstance(err, (KeyError, TypeError, AttributeError))
        what = "its cues are not of the shape drama mix writes" if shape else str(err)
        raise UsageError(
            f"{cues_path} is damaged ({what}); mix the scene again "
            f"(drama mix SCRIPT --scene {scene.id}), which writes it anew"
        ) from None
    return rows, total, sounds


def _blocks(rows: list, speakers: dict, sounds: list, total: float | None):
    blocks = []
    for line_id, speaker, text, start, end, path in rows:
        loud = None
        if Path(path).exists():
            loud = take_loudness(sf.read(str(path), dtype="float32")[0])
        text = text or (speakers[line_id].text if line_id in speakers else "")
        blocks.append(Block(line_id, speaker, text, float(start), float(end), loud))
    return blocks + sounds, total


def _cue_take_path(store, scene_id: str, folder: Path, cue: dict) -> Path:
    """A cue's take file: `take_path` relative to the scene folder, else the line folder's
    `take_file`."""
    if cue.get("take_path"):
        return folder / cue["take_path"]
    return store.line_dir(scene_id, cue["line"]) / cue["take_file"]


def _planned_rows(script, store, scene) -> list[tuple]:
    entries = [
        mix_entry(choice)
        for choice in scene_selection(script, store, scene).lines
        if choice.take is not None
    ]
    if not entries:
        return []
    cues, _ = plan_timeline(entries, MIX_DEFAULTS)
    return [(c.line_id, c.speaker, c.text, c.start_s, c.end_s, c.take_path) for c in cues]


def scene_blocks_figure(script, store, scene_id: str) -> Figure:
    """`drama plot --scene`: the scene's timeline figure (see `scene_figure`)."""
    blocks, total = scene_blocks(script, store, scene_id)
    return scene_figure(blocks, title=f"scene {scene_id}", total_s=total)


def take_view_figure(script, store, line_id: str, take_number: int | None = None) -> Figure:
    """`drama plot --line [--take]`: a take's waveform and spectrogram (see `take_figure`),
    the selected take by default; an edited take has its new middle shaded. Raises
    UsageError for an unknown line or take."""
    scene, _, line = find_line(script, line_id)
    take = start_take(store, scene.id, line.id, take_number)
    if take is None:
        raise UsageError(f"line {line_id!r} has no takes")
    edit = take.record.edit
    shaded = edit.middle_s if edit is not None and edit.middle_s else None
    label = f"{line_id} take {take.number}" + (" (edited: new audio shaded)" if shaded else "")
    spoken = take_text(take, line)
    return take_figure(take.audio(), title=f"{label}: {first_words(spoken, 12)}", shaded_s=shaded)


def draw_project(
    script,
    store,
    scene_id: str | None,
    line_id: str | None,
    take_number: int | None,
    image: str | None,
) -> Path:
    """`drama plot`: the timeline of the scene `scene_id`, else the view of a take of `line_id`
    (`take_number`, default the selected one), saved to `image` (default `<id>.png`, the id
    made safe as a file name: it may hold `/` or `..`). Returns the path written."""
    if scene_id is not None:
        return save_figure(
            scene_blocks_figure(script, store, scene_id), image or f"{safe_name(scene_id)}.png"
        )
    return save_figure(
        take_view_figure(script, store, line_id, take_number), image or f"{safe_name(line_id)}.png"
    )
