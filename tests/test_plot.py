"""Pictures: exact pixel sizes, plotted durations that match the takes, and `drama plot`'s
`--image` option and JSON report."""

from __future__ import annotations

import json

import matplotlib.image
import numpy as np
import pytest
from fakes import FakeBackend, fake_render, help_text, single_error_line, write_script
from matplotlib.patches import Rectangle

from drama_cli.cli import main
from drama_cli.plot import (
    Block,
    first_words,
    gaps,
    overlaps,
    save_figure,
    scene_figure,
    take_figure,
    take_loudness,
)
from engine.constants import SAMPLE_RATE

BLOCKS = [
    Block("l1", "MARGOT", "[sighs] We leave at six, before the tide turns.", 0.5, 2.1, -23.0),
    Block("l2", "DESMOND", "Not without the oars.", 2.6, 4.0, -30.0),
    Block("l3", "MARGOT", "Fine.", 3.7, 4.4, None),  # overlaps l2
    Block("l4", "DESMOND", "Then go.", 5.6, 6.3, -18.0),
]


def rectangles(fig):
    ax = fig.axes[0]
    return {
        p.get_label().removeprefix("block:"): p
        for p in ax.patches
        if isinstance(p, Rectangle) and p.get_label().startswith("block:")
    }


def test_scene_timeline_blocks_match_take_times_and_lanes(tmp_path):
    fig = scene_figure(BLOCKS, title="s1")
    rects = rectangles(fig)
    assert set(rects) == {"l1", "l2", "l3", "l4"}
    for block in BLOCKS:
        rect = rects[block.line_id]
        assert rect.get_x() == pytest.approx(block.start_s)
        assert rect.get_width() == pytest.approx(block.duration_s)
    lanes = {k: r.get_y() + r.get_height() / 2 for k, r in rects.items()}
    assert lanes["l1"] == lanes["l3"] != lanes["l2"] == lanes["l4"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["MARGOT", "DESMOND"]
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("l1: We leave at six, before …") and "-23 LUFS" in t for t in texts)
    assert any(t == "1.2 s" for t in texts)  # the gap before l4 is labelled
    path = save_figure(fig, tmp_path / "scene.png")
    assert matplotlib.image.imread(path).shape[:2] == (170 + 2 * 110, 1600)


def test_overlaps_and_gaps_are_found():
    assert overlaps(BLOCKS) == [pytest.approx((3.7, 4.0))]
    assert gaps(BLOCKS) == [pytest.approx((2.1, 2.6)), pytest.approx((4.4, 5.6))]
    assert overlaps([Block("a", "A", "x", 0, 1), Block("b", "B", "y", 1, 2)]) == []


def test_take_view_size_ruler_and_shaded_span(tmp_path):
    t = np.arange(int(1.5 * SAMPLE_RATE)) / SAMPLE_RATE
    audio = (0.4 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    fig = take_figure(audio, title="l2 take 3", shaded_s=(0.25, 0.75))
    wave_ax, spec_ax = fig.axes[0], fig.axes[1]
    line = wave_ax.lines[0]
    assert line.get_xdata()[0] == 0.0
    assert line.get_xdata()[-1] == pytest.approx(1.5, abs=2 / SAMPLE_RATE * 2)
    assert wave_ax.get_xlim() == pytest.approx((0.0, 1.5))
    image = spec_ax.images[0]
    assert image.get_extent()[:2] == pytest.approx([0.0, 1.5])
    for ax in (wave_ax, spec_ax):
        (span,) = [p for p in ax.patches if p.get_label() == "edited span"]
        assert span.get_x() == pytest.approx(0.25) and span.get_width() == pytest.approx(0.5)
    minor = wave_ax.xaxis.get_minor_locator()()
    assert np.min(np.diff(minor)) == pytest.approx(0.01)  # 10 ms ruler on a short take
    path = save_figure(fig, tmp_path / "take.png")
    assert matplotlib.image.imread(path).shape[:2] == (900, 1600)


def test_helpers():
    assert (
        first_words("<|speaker:0|> [sighs] One two three four five six")
        == "One two three four five …"
    )
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    loud = take_loudness((0.5 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32))
    quiet = take_loudness((0.05 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32))
    assert loud - quiet == pytest.approx(20.0, abs=0.1)
    assert take_loudness(np.zeros(1000, np.float32)) == -120.0
    with pytest.raises(ValueError):
        scene_figure([])
    with pytest.raises(ValueError):
        take_figure(np.zeros(0, np.float32))


def dense_scene(count: int = 60) -> list[Block]:
    """A long scene of short lines among three voices, some overlapping, for label layout."""
    rng = np.random.default_rng(1)
    blocks, start = [], 0.0
    for n in range(count):
        seconds = float(rng.uniform(0.6, 4.0))
        blocks.append(
            Block(
                f"scene-1-{n + 1}",
                ("JACK", "ALGERNON", "LANE")[int(rng.integers(3))],
                "Did you hear what I was playing, Lane?",
                start,
                start + seconds,
                float(rng.uniform(-35, -15)),
            )
        )
        start += seconds + float(rng.uniform(-0.3, 1.2))
    return blocks


def test_scene_labels_do_not_overlap_and_name_every_block():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    blocks = dense_scene()
    fig = scene_figure(blocks, title="dense")
    ax = fig.axes[0]
    renderer = FigureCanvasAgg(fig).get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]
    for i, (text, box) in enumerate(boxes):
        for other, other_box in boxes[i + 1 :]:
            assert not box.overlaps(other_box), (text, other)
    frame = ax.get_window_extent(renderer)
    assert all(frame.x0 - 4 <= box.x0 and box.x1 <= frame.x1 + 4 for _, box in boxes)
    labels = [text for text, _ in boxes]
    lanes = list(dict.fromkeys(block.speaker for block in blocks))  # in order of first line
    for block in blocks:  # each block keeps at least its line id, in its own lane
        (label,) = [
            t for t in ax.texts if t.get_text().split(":")[0].split(" (")[0] == block.line_id
        ]
        lane = lanes.index(block.speaker)
        assert abs(label.get_position()[1] - lane) <= 0.35  # within the block's height
    assert sum(": Did you hear" in text for text in labels) >= 0.8 * len(blocks)


def test_plot_json_lists_the_written_file_and_its_size(short_project, capsys, tmp_path):
    path, _ = short_project
    picture = tmp_path / "pictures" / "scene.png"
    picture.parent.mkdir()
    capsys.readouterr()
    assert main(["plot", str(path), "--scene", "s1", "-o", str(picture), "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert files == [{"path": str(picture), "bytes": picture.stat().st_size}]
    assert files[0]["bytes"] > 1000


def test_plot_image_option_is_image_and_output_is_refused_clearly(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    for flag in ("-o", "--image"):
        picture = tmp_path / f"scene{flag.strip('-')}.png"
        assert main(["plot", str(path), "--scene", "boathouse", flag, str(picture)]) == 0
        assert picture.read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    assert (
        main(["plot", str(path), "--scene", "boathouse", "--output", str(tmp_path / "x.png")]) == 2
    )
    err = single_error_line(capsys)
    assert err == (
        "drama: --output is now --image (or -o): the picture to write; --out is the project folder"
    )
    missing = tmp_path / "nowhere" / "deeper" / "x.png"
    assert main(["plot", str(path), "--scene", "boathouse", "-o", str(missing)]) == 2
    assert single_error_line(capsys) == (
        f"drama: cannot write the picture to {missing}: there is no folder {missing.parent}"
    )
    assert not (tmp_path / "nowhere").exists()
    text = help_text(capsys, "plot")
    assert "-o, --image" in text or "--image -o" in text
    assert "--output" not in text


def test_the_default_picture_name_stays_in_the_current_folder(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    path = work / "play.yaml"
    path.write_text(
        "cast:\n  A: {}\nscenes:\n  - id: ../../evil\n    lines:\n"
        "      - A: We leave at six.\n      - A: Fine.\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(work)
    assert main(["render", str(path)]) == 0
    capsys.readouterr()
    assert main(["plot", str(path), "--scene", "../../evil"]) == 0
    written = capsys.readouterr().out.strip()
    assert (work / written).parent == work and (work / written).read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "evil.png").exists()
    assert main(["plot", str(path), "--scene", "../../evil", "--line", "x"]) == 2  # one of them


def test_names_ids_and_words_with_dollars_are_drawn_as_written(tmp_path):
    blocks = [Block("$x^$", "Bob $\\foo$", "It costs $\\frac{$ and $6.", 0.0, 1.5, -20.0)]
    scene = scene_figure(blocks, title="scene $\\nope$")
    save_figure(scene, tmp_path / "scene.png")  # mathematics this bad would fail to draw
    take = take_figure(np.zeros(SAMPLE_RATE, np.float32), title="$x^$: $\\frac{$")
    save_figure(take, tmp_path / "take.png")
    labels = [t.get_text() for t in scene.axes[0].texts]
    assert any(t.startswith("\\$x^\\$: It costs \\$\\frac{\\$ and \\$6.") for t in labels)
    assert [t.get_text() for t in scene.axes[0].get_yticklabels()] == ["Bob \\$\\foo\\$"]


def test_a_damaged_cue_sheet_is_one_line_naming_it_not_a_traceback(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch, FakeBackend())
    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    assert main(["render", str(path)]) == 0
    sheet = tmp_path / "scene.drama" / "boathouse" / "mix.cues.json"
    fix = "mix the scene again (drama mix SCRIPT --scene boathouse), which writes it anew"
    shape = "its cues are not of the shape drama mix writes"
    for content, what in (
        ("[]", shape),
        ('{"cues": [5]}', shape),
        ('{"cues": [{"line": "boathouse-1"}]}', shape),
        ('{"cues": [', "Expecting value: line 1 column 11 (char 10)"),
    ):
        sheet.write_text(content)
        capsys.readouterr()
        assert main(["plot", str(path), "--scene", "boathouse", "-o", str(tmp_path / "x.png")]) == 2
        line = single_error_line(capsys)
        assert line == f"drama: {sheet} is damaged ({what}); {fix}"
