"""What is delivered from Drama 3 takes says so: "Built with Fish Audio" with the engine and
model revision in the cue sheet, the FLAC's Vorbis comment, the book's MP3 (ID3 comment and
TXXX) and M4B (comment atom), read back with mutagen; NOTICE.txt beside the book with the
licence's notice text from the model folder and the voices' consent; provenance.json entries
that match the cue sheet line by line; none of it on scratch-only mixes. Takes come from the
tiny random checkpoint on the CPU, a few frames each."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import torch
from mutagen.flac import FLAC
from mutagen.id3 import ID3
from mutagen.mp4 import MP4

from drama_cli.backends.drama3 import model_revision
from drama_cli.cli import main
from drama_cli.commands.licence import NOTICE_MARKER
from drama_cli.mix.project_mix import credit_text, engines_used
from drama_cli.qc.signal import CheckReport
from drama_cli.script.book import closing_credit_texts
from drama_cli.script.document import Book

FRAMES = 6
NOTICE = "Tiny test materials, notice kept for the tests, (c) Nobody."
BOOK = """\
title: Tiny
narrator: N
book:
  author: Ada Finch
  opening_credits: none
  closing_credits: none
  chapter_headings: false
cast:
  N:
    voice_source: synthetic
  ANNA:
    consent: {by: Anna Example, on: 2026-11-02}
chapters:
  - title: One
    scenes:
      - id: hall
        lines:
          - N: The hall was dark.
          - ANNA: Who is there?
"""


@pytest.fixture(scope="module")
def licensed_model(tiny_model):
    (tiny_model / "LICENSE").write_text(
        f'# A TEST LICENSE\nKeep this attribution notice in a "Notice" file: "{NOTICE}"\n'
    )
    return tiny_model


def drama3(model) -> list[str]:
    return ["--engine", "drama3", "--model", str(model), "--device", "cpu"]


@pytest.fixture(scope="module")
def rendered(licensed_model, tmp_path_factory):
    """The script rendered with the tiny checkpoint (6 frames a take; random weights make noise,
    so the signal checks are left out), its scene mixed as FLAC, then its book assembled."""
    folder = tmp_path_factory.mktemp("delivery")
    path = folder / "tiny.yaml"
    path.write_text(BOOK)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        patch.setattr("engine.generate.Drama3.frame_budget", lambda self, c, rows: FRAMES)
        patch.setattr(
            "drama_cli.render.line.check_generation", lambda generation, text: CheckReport([])
        )
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            assert main(["render", str(path), *drama3(licensed_model), "--format", "flac"]) == 0
            assert main(["book", str(path), *drama3(licensed_model), "--no-sample"]) in (
                0,
                1,
            )  # ACX: too short
        finally:
            torch.set_num_threads(threads)
    return folder / "tiny.drama"


def test_a_drama3_scene_mix_carries_the_credit_and_its_provenance(rendered, licensed_model):
    folder = rendered / "hall"
    assert (rendered / NOTICE_MARKER).is_file()  # the render said the licence was never accepted
    sheet = json.loads((folder / "mix.cues.json").read_text())
    revision = model_revision(licensed_model)
    assert sheet["credit"] == "Built with Fish Audio" and sheet["model_revisions"] == [revision]
    assert "credit=Built with Fish Audio" in FLAC(str(folder / "mix.flac"))["comment"][0]
    provenance = json.loads((folder / "provenance.json").read_text())
    assert [(p["line"], p["take"], p["start_s"]) for p in provenance["lines"]] == [
        (c["line"], c["take"], c["start_s"]) for c in sheet["cues"]
    ]
    first, second = provenance["lines"]
    assert first["engine"] == "drama3" and first["model_revision"] == revision
    assert first["voice"] == {"voice_source": {"kind": "synthetic", "note": None}}
    assert second["voice"]["consent"]["by"] == "Anna Example" and isinstance(second["seed"], int)


def test_a_scratch_mix_carries_no_credit(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(BOOK)
    assert main(["render", str(path), "--engine", "scratch", "--format", "flac"]) in (0, 1, 3)
    folder = tmp_path / "tiny.drama" / "hall"
    assert "credit" not in json.loads((folder / "mix.cues.json").read_text())
    assert "Fish Audio" not in FLAC(str(folder / "mix.flac"))["comment"][0]


def test_a_drama3_book_is_tagged_and_has_its_notice(rendered, licensed_model):
    folder = rendered / "book"
    credit = f"Built with Fish Audio (drama3, model revision {model_revision(licensed_model)})"
    id3 = ID3(str(folder / "01 One.mp3"))
    assert id3.getall("COMM")[0].text == [credit]
    assert (
        str(id3["TXXX:CREDIT"]) == "Built with Fish Audio" and str(id3["TXXX:ENGINE"]) == "drama3"
    )
    assert MP4(str(folder / "Tiny.m4b")).tags["\xa9cmt"] == [credit]
    notice = (folder / "NOTICE.txt").read_text()
    assert NOTICE in notice and "ANNA: consent given by Anna Example on 2026-11-02" in notice
    assert "N: voice source: synthetic" in notice
    provenance = json.loads((folder / "provenance.json").read_text())
    assert [p["line"] for p in provenance["chapters"][0]["lines"]] == ["hall-1", "hall-2"]


def test_the_closing_credits_say_built_with_fish_audio_when_asked():
    assert "Built with Fish Audio." not in closing_credit_texts(Book(title="T"))
    assert closing_credit_texts(Book(title="T", credit_engine=True))[-2:] == [
        "Built with Fish Audio.",
        "The end.",
    ]


def test_takes_at_names_the_line_heard_at_a_second_of_a_chapter(rendered, capsys):
    script = str(rendered.parent / "tiny.yaml")
    book = json.loads((rendered / "book" / "provenance.json").read_text())
    first, second = book["chapters"][0]["lines"]
    capsys.readouterr()
    assert main(["takes", script, "--at", f"1:{second['start_s'] + 0.01}", "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert (entry["line"], entry["take"], entry["file"]) == ("hall-2", second["take"], "01 One.mp3")
    assert entry["voice"]["consent"]["by"] == "Anna Example"
    at = round(first["start_s"] + 0.01, 3)
    assert main(["takes", script, "--at", f"1:{at}"]) == 0
    assert capsys.readouterr().out.startswith(
        f"chapter 1 (01 One.mp3) at {at:g} s: line hall-1, N, take 1 (drama3"
    )
    assert main(["takes", script, "--at", "7:1"]) == 2
    assert "no line of the book sounds there" in capsys.readouterr().err


def test_a_take_recorded_without_a_model_revision_is_credited_as_unknown_not_none():
    def choice(line_id, revision):
        record = SimpleNamespace(model_revision=revision)
        return SimpleNamespace(
            line=SimpleNamespace(id=line_id),
            scratch=False,
            engine="drama3",
            drama3_model=True,
            take=SimpleNamespace(record=record),
        )

    facts = engines_used([choice("a", None)])
    assert facts["model_revisions"] == []
    assert credit_text(facts) == "Built with Fish Audio (drama3, model revision unknown)"
    assert engines_used([choice("a", None), choice("b", "r1")])["model_revisions"] == ["r1"]
