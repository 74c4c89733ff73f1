"""`drama book`: a two-chapter book rendered with a fake engine, assembled into ACX MP3s, a
retail sample and an M4B, and measured with tools that are not ours: ffmpeg's `astats`,
`silencedetect` and its own reading of the M4B's chapters, and mutagen for formats, tags and
chapter marks."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
import scipy.signal
import soundfile as sf
from fakes import FakeBackend, voice
from mutagen.id3 import ID3
from mutagen.mp3 import MP3, BitrateMode
from mutagen.mp4 import MP4

import drama_cli.backends.registry as registry
from drama_cli.book.acx import FileCheck, judge
from drama_cli.book.assemble import (
    BookOptions,
    assemble_book,
    encode_book_mp3,
    encode_checked,
)
from drama_cli.cli import main
from drama_cli.script.load import load_script
from drama_cli.takes.store import TakeStore

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()
LONG = (
    "The lantern swung in the wind while the old keeper climbed the stairs, counting each "
    "step under his breath as he had done every night for forty years. "
) * 3

BOOK = f"""\
title: The Lantern
narrator: NARRATOR
book:
  author: Ada Finch
  narrator: Sam Reader
  year: "1901"
  cover: cover.png
  copyright: Public domain.
cast:
  NARRATOR: {{}}
  ANNA: {{}}
chapters:
  - title: Chapter One
    scenes:
      - id: stairs
        lines:
          - NARRATOR: "{LONG}"
          - ANNA: Who is there, at this hour?
          - NARRATOR: "{LONG}"
      - id: lamp
        lines:
          - NARRATOR: "{LONG}"
  - title: Chapter Two
    scenes:
      - id: dawn
        lines:
          - NARRATOR: Morning came over the water, grey and still.
          - ANNA: Nobody. Nobody at all.
"""
FILES = [
    "00 Opening Credits.mp3",
    "01 Chapter One.mp3",
    "02 Chapter Two.mp3",
    "03 Closing Credits.mp3",
]


def _png(width: int = 2, height: int = 2) -> bytes:
    """A tiny valid PNG (grey), written here so the test needs no image library."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The book rendered and assembled once: (script path, exit code, JSON report)."""
    folder = tmp_path_factory.mktemp("book")
    path = folder / "lantern.yaml"
    path.write_text(BOOK, encoding="utf-8")
    (folder / "cover.png").write_bytes(_png())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
        out = io.StringIO()
        patch.setattr("sys.stdout", out)
        code = main(["book", str(path), "--sample-length", "60", "--json"])
    return path, code, json.loads(out.getvalue())


def _astats(path: Path) -> dict:
    """Overall RMS level and peak level in dB from ffmpeg's astats, and the noise floor: the
    lowest RMS level of its 0.5 s windows (astats reset on every 22,050-sample frame)."""
    done = subprocess.run(
        [
            FFMPEG,
            "-hide_banner",
            "-nostats",
            "-i",
            str(path),
            "-af",
            "astats=measure_perchannel=none",
            "-f",
            "null",
            "-",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    overall = done.stderr.split("Overall")[-1]

    def value(name):
        return float(re.search(rf"{name}:\s*(-?[\d.]+)", overall).group(1))

    windows = subprocess.run(
        [
            FFMPEG,
            "-hide_banner",
            "-nostats",
            "-i",
            str(path),
            "-af",
            "asetnsamples=n=22050:p=0,astats=metadata=1:reset=1:"
            "measure_perchannel=none,ametadata=print:"
            "key=lavfi.astats.Overall.RMS_level",
            "-f",
            "null",
            "-",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    levels = [float(x) for x in re.findall(r"RMS_level=(-?[\d.]+)", windows)]
    return {
        "rms": value("RMS level dB"),
        "peak": value("Peak level dB"),
        "floor": min(levels[:-1]),
    }  # the last frame is shorter than 0.5 s


def _speech_bounds(path: Path, duration: float) -> tuple[float, float]:
    """Seconds of quiet at the head and the tail, by ffmpeg's silencedetect at −50 dB."""
    done = subprocess.run(
        [
            FFMPEG,
            "-hide_banner",
            "-nostats",
            "-i",
            str(path),
            "-af",
            "silencedetect=noise=-50dB:d=0.2",
            "-f",
            "null",
            "-",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    starts = [float(x) for x in re.findall(r"silence_start: (-?[\d.]+)", done.stderr)]
    ends = [float(x) for x in re.findall(r"silence_end: ([\d.]+)", done.stderr)]
    head = ends[0] if starts and starts[0] <= 0.01 else 0.0
    open_at_end = starts and (len(starts) > len(ends) or ends[-1] >= duration - 0.05)
    tail = duration - starts[-1] if open_at_end else 0.0
    return head, tail


def test_the_book_folder_holds_every_deliverable(book):
    path, code, report = book
    folder = path.with_suffix(".drama") / "book"
    assert code == 0, report["failures"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        FILES + ["Retail Sample.mp3", "The Lantern.m4b", "acx-report.json", "provenance.json"]
    )
    saved = json.loads((folder / "acx-report.json").read_text())
    assert saved["files"] == report["files"] and saved["passed"] is True
    assert [row["file"] for row in report["files"]] == [
        FILES[0],
        FILES[1],
        "Retail Sample.mp3",
        FILES[2],
        FILES[3],
    ]
    assert all(row["passed"] for row in report["files"])


@pytest.mark.parametrize("name", FILES)
def test_each_file_meets_acx_measured_by_ffmpeg_and_mutagen(book, name):
    path, _, report = book
    mp3 = path.with_suffix(".drama") / "book" / name
    row = next(r for r in report["files"] if r["file"] == name)
    info = MP3(str(mp3)).info
    assert (round(info.bitrate / 1000), info.sample_rate, info.channels) == (192, 44_100, 1)
    assert info.bitrate_mode == BitrateMode.CBR and row["cbr"]  # from LAME's Info tag
    probe = subprocess.run(
        [FFMPEG, "-hide_banner", "-i", str(mp3)], capture_output=True, text=True
    ).stderr
    assert re.search(r"Audio: mp3\b.*, 44100 Hz, mono, fltp, 192 kb/s", probe)
    stats = _astats(mp3)
    assert -23.0 <= stats["rms"] <= -18.0
    assert stats["peak"] <= -3.0
    assert stats["floor"] <= -60.0
    assert abs(stats["rms"] - row["rms_db"]) <= 0.2
    assert abs(stats["peak"] - row["peak_dbfs"]) <= 0.2
    # ffmpeg's windows start every 0.5 s, ours every 0.1 s: ours may find a slightly quieter one
    assert -0.05 <= stats["floor"] - row["noise_floor_db"] <= 0.2
    head, tail = _speech_bounds(mp3, info.length)
    assert 0.5 <= head <= 1.0 and 1.0 <= tail <= 5.0
    assert abs(head - row["head_s"]) <= 0.1 and abs(tail - row["tail_s"]) <= 0.1
    assert abs(info.length - row["duration_s"]) <= 0.06


def test_id3_tags_name_the_chapter_and_the_book(book):
    path, _, _ = book
    tags = ID3(str(path.with_suffix(".drama") / "book" / FILES[1]))
    assert str(tags["TIT2"]) == "Chapter One"
    assert str(tags["TRCK"]) == "2/4"  # the second of four files
    assert str(tags["TALB"]) == "The Lantern"
    assert str(tags["TPE1"]) == "Ada Finch"
    assert str(tags["TCOM"]) == "Sam Reader"
    assert str(tags["TCOP"]) == "Public domain."
    assert not tags.getall("COMM")  # not a scratch take: no SCRATCH label


def test_retail_sample_is_from_the_first_chapter(book):
    path, _, report = book
    folder = path.with_suffix(".drama") / "book"
    sample = MP3(str(folder / "Retail Sample.mp3")).info
    chapter = MP3(str(folder / FILES[1])).info
    assert 60.0 <= sample.length <= 60.1
    assert chapter.length > sample.length
    row = next(r for r in report["files"] if r["kind"] == "sample")
    assert row["number"] == 1 and row["rules"]["length"] and row["passed"]
    # its first minute is the chapter's first minute: the same words at the same level
    first, rate = sf.read(io.BytesIO(_decode(folder / "Retail Sample.mp3")), dtype="float32")
    whole, _ = sf.read(io.BytesIO(_decode(folder / FILES[1])), dtype="float32")
    window = slice(rate, 20 * rate)
    assert np.corrcoef(first[window], whole[window])[0, 1] > 0.99


def _decode(path: Path) -> bytes:
    return subprocess.run(
        [FFMPEG, "-hide_banner", "-loglevel", "error", "-i", str(path), "-f", "wav", "-"],
        capture_output=True,
        check=True,
    ).stdout


def test_m4b_has_chapter_marks_tags_and_cover(book):
    path, _, report = book
    folder = path.with_suffix(".drama") / "book"
    m4b = MP4(str(folder / "The Lantern.m4b"))
    assert m4b.info.codec == "mp4a.40.2" and m4b.info.channels == 1
    titles = [c.title for c in m4b.chapters]
    assert titles == ["Opening Credits", "Chapter One", "Chapter Two", "Closing Credits"]
    lengths = [sf.info(io.BytesIO(_decode(folder / name))).duration for name in FILES]  # gapless
    expected = np.cumsum([0.0] + lengths[:-1])
    assert np.allclose([c.start for c in m4b.chapters], expected, atol=0.01)
    assert abs(m4b.info.length - sum(lengths)) <= 0.2
    assert m4b.tags["\xa9nam"] == ["The Lantern"] and m4b.tags["\xa9ART"] == ["Ada Finch"]
    assert m4b.tags["\xa9wrt"] == ["Sam Reader"] and m4b.tags["\xa9day"] == ["1901"]
    assert bytes(m4b.tags["covr"][0]) == _png()
    # ffmpeg reads the same marks
    probe = subprocess.run(
        [FFMPEG, "-hide_banner", "-i", str(folder / "The Lantern.m4b")],
        capture_output=True,
        text=True,
    ).stderr
    starts = [float(x) for x in re.findall(r"Chapter #0:\d+: start (\d+\.\d+)", probe)]
    assert np.allclose(starts, expected, atol=0.01)
    assert [c["title"] for c in report["m4b"]["chapters"]] == titles


def test_a_failed_rule_exits_1_naming_the_file_and_rule(book, capsys):
    path, _, _ = book  # chapter 2 lasts seconds: the sample, clamped to its end, is too short
    assert main(["book", str(path), "--chapter", "2", "--sample-from", "2"]) == 1
    err = capsys.readouterr().err
    assert "Retail Sample.mp3: length: a retail sample must last 1 to 5 minutes" in err
    assert "Traceback" not in err


def test_a_chapter_over_the_limit_fails_the_length_rule(book, tmp_path):
    path, _, _ = book
    script = load_script(str(path))
    store = TakeStore(tmp_path / "copy.drama")
    shutil.copytree(path.with_suffix(".drama"), store.root)
    (store.root / "book" / ".work-killed").mkdir()  # what a killed run leaves
    (store.root / "book" / ".work-killed" / "chapters.ffmeta").write_text("x")
    report = assemble_book(
        script, store, BookOptions(chapters=(1,), m4b=False, max_file_s=30.0, sample_s=60.0)
    )
    assert report.exit_code == 1
    assert report.failures == [
        f"01 Chapter One.mp3: length: {report.files[0].check.duration_s / 60:.1f} minutes long; "
        "ACX takes at most 0.5 minutes per file: split the chapter"
    ]
    assert not list((store.root / "book").glob(".work-*"))


def test_one_chapter_to_stdout(book, capsysbinary):
    path, _, _ = book
    assert main(["book", str(path), "--chapter", "2", "-o", "-"]) == 0
    audio, rate = sf.read(io.BytesIO(capsysbinary.readouterr().out), dtype="float32")
    chapter = MP3(str(path.with_suffix(".drama") / "book" / FILES[2])).info.length
    assert rate == 44_100 and audio.ndim == 1
    assert abs(audio.size / rate - chapter) <= 0.06
    rms = 10 * np.log10(np.mean(np.square(audio, dtype=np.float64)))
    assert -23.0 <= rms <= -18.0 and np.isfinite(audio).all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--chapter", "7"], "no chapter 7 in this script"),
        (["--sample-from", "one"], "--sample-from must be CHAPTER[:SECONDS]"),
        (["-o", "out.wav"], "-o takes only '-'"),
        (["-o", "-"], "give exactly one --chapter N"),
        (["--format", "flac"], "--format is the format of -o -"),
        (["--chapter", "2", "-o", "-", "--json"], "with -o - stdout holds the chapter's audio"),
    ],
)
def test_bad_options_are_one_line_errors(book, capsys, args, message):
    path, _, _ = book
    assert main(["book", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_chapter_piped_to_a_terminal_is_refused(book, capsysbinary, monkeypatch):
    path, _, _ = book
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["book", str(path), "--chapter", "2", "-o", "-"]) == 2
    out, err = capsysbinary.readouterr()
    assert out == b"" and err.decode().startswith(
        "drama: -o - writes audio to stdout, which is a terminal"
    )


def test_a_missing_cover_fails_before_rendering(tmp_path, monkeypatch, capsys):
    path = tmp_path / "nocover.yaml"
    path.write_text(BOOK, encoding="utf-8")
    fake = FakeBackend()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: fake)
    assert main(["book", str(path)]) == 2
    assert "cover image 'cover.png' not found" in capsys.readouterr().err
    assert fake.requests == []


def test_a_chapter_asked_for_twice_is_assembled_once(book):
    from drama_cli.book.assemble import pick_chapters
    from drama_cli.script.load import load_script

    path, _, _ = book
    script = load_script(str(path))
    assert [c.number for c in pick_chapters(script, [2, 1, 2, 1])] == [2, 1]


def test_judge_names_every_failed_rule():
    check = FileCheck("x.mp3", 7300.0, -25.0, -2.0, -55.0, 48_000, 128, 2, False, 0.2, 6.0)
    judge(check)
    assert check.rules == {
        "format": False,
        "rms": False,
        "peak": False,
        "noise_floor": False,
        "head": False,
        "tail": False,
        "length": False,
    }
    good = FileCheck("y.mp3", 600.0, -20.0, -3.5, -65.0, 44_100, 192, 1, True, 0.75, 2.5)
    assert judge(good).passed and judge(good, sample=True).problems == [
        "length: a retail sample must last 1 to 5 minutes, this one 600.0 s"
    ]


def test_mp3_overshoot_above_minus_3_is_encoded_again_quieter(tmp_path):
    rng = np.random.default_rng(3)
    rate = 44_100
    b, a = scipy.signal.butter(4, 3000 / (rate / 2))
    loud = scipy.signal.lfilter(b, a, rng.standard_normal(8 * rate))
    loud = np.clip(loud * 10 ** (-22 / 20) / np.sqrt(np.mean(loud**2)), -0.5, 0.5)
    t = np.arange(int(0.015 * rate)) / rate  # with the noise: speech RMS about −18.5 dB
    burst = 10 ** (-3.02 / 20) * np.sign(np.sin(2 * np.pi * 500 * t))  # square: MP3 overshoots it
    for second in range(8):
        loud[second * rate : second * rate + burst.size] = burst
    bed = rng.standard_normal(int(3.25 * rate)) * 10 ** (-66 / 20)
    master = np.concatenate([bed[: int(0.75 * rate)], loud, bed[int(0.75 * rate) :]])
    first = tmp_path / "first.mp3"
    sf.write(tmp_path / "master.wav", master.astype(np.float32), rate, subtype="PCM_24")
    encode_book_mp3(tmp_path / "master.wav", first, {"title": "x", "track": "1/1"})
    assert _astats(first)["peak"] > -2.0  # encoded as it is, the peaks would fail
    target = tmp_path / "x.mp3"
    check = encode_checked(
        tmp_path / "master.wav", target, {"title": "x", "track": "1/1"}, FFMPEG, 7200.0, tmp_path
    )
    stats = _astats(target)
    assert check.passed, check.problems
    assert stats["peak"] <= -3.0 and abs(stats["peak"] - check.peak_dbfs) <= 0.2
    assert -23.0 <= stats["rms"] <= -18.0


def test_a_two_chapter_scratch_book_end_to_end(tmp_path, capsys):
    """The scratch engine (CPU, bundled voice), two short chapters, no credits: every file
    passes ACX, is labelled SCRATCH, and the M4B has both chapter marks."""
    path = tmp_path / "scratch.yaml"
    path.write_text(
        "title: Two Doors\nnarrator: N\nbook:\n  author: Ada Finch\n"
        "  opening_credits: none\n  closing_credits: none\ncast:\n  N: {}\n"
        "chapters:\n  - title: The First Door\n    scenes:\n      - lines: [N: The first door was open.]\n"
        "  - title: The Second Door\n    scenes:\n      - lines: [N: The second door was shut.]\n",
        encoding="utf-8",
    )
    assert main(["book", str(path), "--engine", "scratch", "--no-sample", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(f["file"], f["passed"], f["scratch"]) for f in report["files"]] == [
        ("01 The First Door.mp3", True, True),
        ("02 The Second Door.mp3", True, True),
    ]
    folder = tmp_path / "scratch.drama" / "book"
    assert str(ID3(str(folder / "01 The First Door.mp3"))["TIT2"]) == "The First Door [SCRATCH]"
    for name in ("01 The First Door.mp3", "02 The Second Door.mp3"):
        stats = _astats(folder / name)
        assert -23.0 <= stats["rms"] <= -18.0 and stats["peak"] <= -3.0 and stats["floor"] <= -60.0
    m4b = MP4(str(folder / "Two Doors.m4b"))
    assert [c.title for c in m4b.chapters] == ["The First Door", "The Second Door"]
    assert m4b.tags["\xa9nam"] == ["Two Doors [SCRATCH]"]


def test_book_qc_writes_one_exception_report_with_a_chapter_column(tmp_path, capsys):
    """`drama book --qc` on the example book's second chapter, scratch engine: the project's
    voice limit (kept in project.json, and kept by the render) fails the takes, and the book
    folder holds one report whose rows name their chapter."""
    pytest.importorskip("resemblyzer")
    pytest.importorskip("speechmos")
    examples = Path(__file__).resolve().parent.parent / "scripts_examples"
    shutil.copy(examples / "pride-book.yaml", tmp_path / "pride-book.yaml")
    shutil.copytree(examples / "refs", tmp_path / "refs")
    path = tmp_path / "pride-book.yaml"
    project = TakeStore(tmp_path / "pride-book.drama")
    project.root.mkdir()
    project.write_project({"qc": {"min_similarity": 0.99}})
    args = ["book", str(path), "--engine", "scratch", "--chapter", "2", "--no-sample"]
    assert main([*args, "--no-m4b", "--qc", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    folder = tmp_path / "pride-book.drama" / "book"
    assert report["qc"]["html"] == str(folder / "qc-report.html")
    second = next(c for c in load_script(path).chapters if c.number == 2)
    assert second.scenes == ["netherfield"]
    table = list(csv.DictReader((folder / "qc-report.csv").open(encoding="utf-8")))
    assert table and len(table) == report["qc"]["attention"] <= report["qc"]["lines"]
    assert {row["chapter"] for row in table} == {"2"}
    assert {row["scene"] for row in table} == {"netherfield"}
    assert all("voice: similarity" in row["reason"] for row in table)
    page = (folder / "qc-report.html").read_text(encoding="utf-8")
    assert "<th>chapter</th>" in page and '<td class="chapter">2 Chapter Two</td>' in page
    assert project.project()["qc"] == {"min_similarity": 0.99}


def test_a_run_stopped_before_the_end_leaves_the_earlier_book_whole(tmp_path, monkeypatch, capsys):
    """The book's files switch together: a run stopped while writing the M4B (after every
    chapter was encoded) replaces none of the earlier files and leaves no new ones."""
    import drama_cli.book.assemble as assemble

    path = tmp_path / "two.yaml"
    path.write_text(
        "title: Two\nnarrator: N\nbook:\n  opening_credits: none\n  closing_credits: none\n"
        "cast:\n  N: {}\nchapters:\n  - title: One\n    scenes:\n      - lines: [N: First door.]\n"
        "  - title: Two\n    scenes:\n      - lines: [N: Second door.]\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["book", str(path), "--no-sample"]) == 0
    folder = tmp_path / "two.drama" / "book"
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()}
    assert sorted(before) == [
        "01 One.mp3",
        "02 Two.mp3",
        "Two.m4b",
        "acx-report.json",
        "provenance.json",
    ]

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(assemble, "write_m4b", killed)
    assert main(["book", str(path), "--sample-length", "60"]) == 130
    capsys.readouterr()
    after = {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in folder.iterdir()
        if not p.name.startswith(".work-")
    }
    assert after == before  # no file replaced, no retail sample added


THREE = (
    "title: Three\nnarrator: N\nbook:\n  author: Ada Finch\ncast:\n  N: {}\nchapters:\n"
    + "".join(
        f"  - title: Part {n}\n    scenes:\n      - lines: [N: Door number {n}.]\n"
        for n in (1, 2, 3)
    )
)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sample-length", "20"], "--sample-length must be between 60 and 300, not 20"),
        (["--sample-length", "301"], "--sample-length must be between 60 and 300, not 301"),
        (
            ["--sample-from", "9"],
            "--sample-from 9: no chapter 9 in this script (chapters: 0 (Opening",
        ),
        (
            ["--sample-from", "7:30", "--no-sample"],
            "--sample-from 7:30: no chapter 7 in this script",
        ),
    ],
)
def test_sample_options_outside_the_book_fail_before_anything_is_voiced(
    tmp_path, monkeypatch, capsys, args, message
):
    path = tmp_path / "three.yaml"
    path.write_text(THREE, encoding="utf-8")
    fake = FakeBackend()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: fake)
    assert main(["book", str(path), "--no-m4b", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert fake.requests == []


def test_a_sample_start_past_its_chapter_names_the_length_and_keeps_the_takes(
    tmp_path, monkeypatch, capsys
):
    path = tmp_path / "three.yaml"
    path.write_text(THREE, encoding="utf-8")
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["book", str(path), "--no-m4b", "--sample-from", "2:9999"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert [line for line in err if "sample" in line] == err[-1:]  # one line, the last
    match = re.fullmatch(
        r"drama: --sample-from 2:9999: chapter 2 \(Part 2\) lasts (\d+\.\d) s; give a "
        r"start before its end \(every rendered take is kept for the next run\)",
        err[-1],
    )
    assert match, err[-1]
    folder = tmp_path / "three.drama" / "book"
    assert sorted(p.name for p in folder.iterdir()) == []  # nothing published, no work folder left
    again = FakeBackend()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: again)
    assert main(["book", str(path), "--no-m4b", "--sample-from", "2:0.5", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert again.requests == []  # every take of the first run is used
    chapter = next(f for f in report["files"] if f["file"] == "02 Part 2.mp3")
    sample = next(f for f in report["files"] if f["kind"] == "sample")
    assert abs(float(match.group(1)) - chapter["duration_s"]) <= 0.1
    assert abs(sample["duration_s"] - (chapter["duration_s"] - 0.5)) <= 0.1  # clamped to its end


def test_a_voice_without_a_reference_is_warned_about_once(tmp_path, monkeypatch, capsys):
    path = tmp_path / "three.yaml"
    path.write_text(THREE, encoding="utf-8")
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["book", str(path), "--no-sample", "--no-m4b"]) == 0
    err = capsys.readouterr().err
    assert err.count("N has no reference clip") == 1  # five scenes, one warning


def test_ctrl_c_says_what_was_kept_and_how_to_go_on(tmp_path, monkeypatch, capsys):
    path = tmp_path / "three.yaml"
    path.write_text(THREE, encoding="utf-8")

    def answer(request, call):
        if call == 3:
            raise KeyboardInterrupt
        return voice(1.0), "eos"

    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend(answer))
    assert main(["book", str(path), "--no-sample", "--no-m4b"]) == 130
    err = capsys.readouterr().err
    assert (
        "drama: interrupted: every finished take is kept and the book folder holds the files "
        "of the last complete run; run the same command again to continue" in err
    )
    again = FakeBackend()
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: again)
    assert main(["book", str(path), "--no-sample", "--no-m4b"]) == 0
    assert len(again.requests) == 9 - 2  # nine lines; the two finished takes are not rendered again


def _speech_rms(path: Path, head: float, tail: float) -> float:
    """RMS level in dB of the decoded file without `head` and `tail` seconds, by ffmpeg's astats."""
    duration = MP3(str(path)).info.length
    done = subprocess.run(
        [
            FFMPEG,
            "-hide_banner",
            "-nostats",
            "-i",
            str(path),
            "-af",
            f"atrim=start={head}:end={duration - tail},astats=measure_perchannel=none",
            "-f",
            "null",
            "-",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(
        re.search(r"RMS level dB:\s*(-?[\d.]+)", done.stderr.split("Overall")[-1]).group(1)
    )


def test_short_credits_and_a_one_line_chapter_reach_the_level(tmp_path, capsys):
    """A one-word opening credit and a one-line chapter are mostly room tone: their speech is
    brought to ACX's level, and the book's own files pass its checks."""
    path = tmp_path / "rep.yaml"
    path.write_text(
        "title: Rep\nnarrator: N\nbook: {}\ncast:\n  N: {}\n"
        "chapters:\n  - title: Part Two\n    scenes:\n      - lines: [N: Middle.]\n",
        encoding="utf-8",
    )
    assert (
        main(["book", str(path), "--engine", "scratch", "--no-sample", "--no-m4b", "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    rows = {f["file"]: f for f in report["files"]}
    assert list(rows) == ["00 Opening Credits.mp3", "01 Part Two.mp3", "02 Closing Credits.mp3"]
    for name, row in rows.items():
        assert row["passed"] and row["rules"]["rms"], (name, row["problems"])
        speech = _speech_rms(tmp_path / "rep.drama" / "book" / name, row["head_s"], row["tail_s"])
        assert -23.0 <= speech <= -18.0, (name, speech)
        # a span of a fraction of a second: 10 ms of the decoder's alignment moves it by tenths
        assert abs(speech - row["speech_rms_db"]) <= 0.6, (name, speech, row["speech_rms_db"])
        assert row["speech_rms_db"] - row["rms_db"] >= 0.0
    # a one-word file: the whole-file RMS is lower than the speech's by what the ends add
    assert rows["00 Opening Credits.mp3"]["rms_db"] < -23.0


def test_a_line_without_a_usable_take_stops_the_book_with_json(tmp_path, monkeypatch, capsys):
    path = tmp_path / "silent.yaml"
    path.write_text(
        "cast:\n  N: {}\nscenes:\n  - id: s1\n    lines:\n      - N: Quiet now.\n", encoding="utf-8"
    )
    silent = FakeBackend(answer=lambda request, n: (np.zeros(44_100, np.float32), "eos"))
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: silent)
    assert main(["book", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["exit_code"] == 1
    assert "s1-1" in report["errors"][0]["message"]
    assert not (tmp_path / "silent.drama" / "book").exists()


def test_a_fountain_book_with_sections_as_chapters(tmp_path, monkeypatch, capsys):
    path = tmp_path / "lantern.fountain"
    path.write_text(
        "Title: The Lantern\nAuthor: Ada Finch\nNarrator: Sam Reader\n\n"
        "# Chapter One: Night\n\nINT. HALL - NIGHT\n\nThe wind blows.\n\nANNA\nWho is there?\n\n"
        "# Chapter Two: Day\n\nEXT. GARDEN - DAY\n\nANNA\nMorning.\n",
        encoding="utf-8",
    )
    (tmp_path / "lantern.cast.yaml").write_text(
        "narrator: NARRATOR\ncast:\n  NARRATOR: {}\n  ANNA: {}\n"
    )
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["book", str(path), "--no-sample", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [f["file"] for f in report["files"]] == [
        "00 Opening Credits.mp3",
        "01 Chapter One- Night.mp3",
        "02 Chapter Two- Day.mp3",
        "03 Closing Credits.mp3",
    ]  # ':' is not allowed in file names everywhere
    m4b = MP4(str(tmp_path / "lantern.drama" / "book" / "The Lantern.m4b"))
    assert [c.title for c in m4b.chapters][1:3] == ["Chapter One: Night", "Chapter Two: Day"]
    assert m4b.tags["\xa9ART"] == ["Ada Finch"] and m4b.tags["\xa9wrt"] == ["Sam Reader"]


def test_book_json_has_ok_and_exit_code(tmp_path, monkeypatch, capsys):
    import drama_cli.backends.registry as registry

    path = tmp_path / "door.yaml"
    path.write_text(
        "title: Door\nnarrator: N\nbook:\n  author: Ada Finch\n  opening_credits: none\n"
        "  closing_credits: none\ncast:\n  N: {}\nchapters:\n  - title: The Door\n"
        "    scenes:\n      - lines: [N: The door was open.]\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: FakeBackend())
    assert main(["book", str(path), "--no-sample", "--no-m4b", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["exit_code"] == 0 and report["passed"] is True


def test_book_file_names_never_start_with_a_dash():
    from types import SimpleNamespace

    from drama_cli.book.assemble import file_name
    from drama_cli.book.m4b import m4b_name

    assert m4b_name("--rm -rf") == "rm -rf.m4b"
    assert m4b_name("/-. Title") == "Title.m4b"
    assert m4b_name("---") == "book.m4b"
    assert file_name(SimpleNamespace(number=3, title="-- Interlude")) == "03 Interlude.mp3"


def test_a_run_of_one_chapter_keeps_the_others_and_names_the_m4b_it_left_stale(tmp_path, capsys):
    """After a full run, `--chapter 2` for a changed line: provenance.json and acx-report.json
    keep chapter 1 as it was and hold chapter 2's new line; the M4B, not written again, is
    reported stale for chapter 2."""
    path = tmp_path / "doors.yaml"
    text = (
        "title: Two Doors\nnarrator: N\nbook:\n  author: Ada Finch\n"
        "  opening_credits: none\n  closing_credits: none\ncast:\n  N: {}\n"
        "chapters:\n  - title: The First Door\n    scenes:\n      - lines: [N: The first door was open.]\n"
        "  - title: The Second Door\n    scenes:\n      - lines: [N: The second door was shut.]\n"
    )
    path.write_text(text, encoding="utf-8")
    args = ["book", str(path), "--engine", "scratch", "--no-sample", "--json"]
    assert main(args) == 0
    folder = tmp_path / "doors.drama" / "book"
    first = json.loads((folder / "provenance.json").read_text())
    capsys.readouterr()
    path.write_text(text.replace("was shut", "was locked"), encoding="utf-8")
    assert main([*args, "--chapter", "2"]) == 0
    err = capsys.readouterr().err
    provenance = json.loads((folder / "provenance.json").read_text())
    assert [part["chapter"] for part in provenance["chapters"]] == [1, 2]
    assert provenance["chapters"][0] == first["chapters"][0]
    assert provenance["chapters"][1]["lines"] != first["chapters"][1]["lines"]
    report = json.loads((folder / "acx-report.json").read_text())
    assert [(row["file"], row["passed"]) for row in report["files"]] == [
        ("01 The First Door.mp3", True),
        ("02 The Second Door.mp3", True),
    ]
    assert report["m4b"]["stale"] is True and report["m4b"]["stale_chapters"] == [2]
    assert (
        "drama: note: Two Doors.m4b was not written again and still holds the earlier audio of "
        "chapter(s) 2: run drama book without --chapter to rebuild it"
    ) in err.splitlines()
    assert main(["takes", str(path), "--at", "1:0.9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["file"] == "01 The First Door.mp3"
    assert main(["book", str(path), "--engine", "scratch", "--no-sample", "--json"]) == 0
    report = json.loads((folder / "acx-report.json").read_text())
    assert "stale" not in report["m4b"]
    assert [c["title"] for c in report["m4b"]["chapters"]] == ["The First Door", "The Second Door"]
