"""Designed voices: `design:` in the cast, `drama cast audition` and `drama cast lock`."""

import json

import numpy as np
import pytest
import soundfile as sf
from fakes import FakeBackend, fake_render, one_error_line, record_requests, render

from drama_cli.backends.reference_audio import load_audio
from drama_cli.cli import main
from drama_cli.compile.conversations import compile_scene
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import read_voice

DESIGN = "a gravelly old sea captain, West Country"
SCRIPT = f"""title: Harbour
# the cast, in the order the director wants it
cast:
  CAPTAIN:
    # the old man
    design: "{DESIGN}"
    description: Master of the Mary Rose.
  BOY: {{}}
scenes:
  - id: quay
    lines:
      - CAPTAIN: Fetch the rope, lad.
      - BOY: Aye, sir.
      - CAPTAIN: "[gruff] The tide turns at six, and we sail with it or not at all."
"""


@pytest.fixture
def harbour(tmp_path, monkeypatch):
    path = tmp_path / "harbour.yaml"
    path.write_text(SCRIPT, encoding="utf-8")
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    return path, backend


def test_a_designed_voice_is_sent_as_the_style_prefix_without_a_reference(harbour):
    path, _ = harbour
    plans = compile_scene(load_script(path), "quay", "clone")
    captain = plans[2].conversations[0]
    assert captain.text.startswith(f"<|speaker:0|> [{DESIGN}] [gruff] The tide turns")
    assert captain.references == ()
    assert plans[1].conversations[0].text == "<|speaker:1|> Aye, sir."
    assert not any("CAPTAIN has no reference clip" in w for p in plans for w in p.warnings)


def test_audition_makes_n_candidates_of_the_longest_plain_line_with_their_own_seeds(
    harbour, capsys
):
    path, backend = harbour
    assert main(["cast", "audition", str(path), "captain", "--candidates", "3"]) == 0
    folder = path.with_name("harbour.auditions") / "captain"
    record = json.loads((folder / "auditions.json").read_text())
    assert record["design"] == DESIGN
    assert [t["take"] for t in record["takes"]] == [1, 2, 3]
    assert {t["line_id"] for t in record["takes"]} == {"quay-3"}
    assert len({r.seed for r in backend.requests}) == 3
    assert all(r.conversation.references == () for r in backend.requests)
    assert all(f"[{DESIGN}]" in r.text for r in backend.requests)
    takes = [sf.read(folder / f"take-{k}.wav", dtype="float32")[0] for k in (1, 2, 3)]
    assert not np.array_equal(takes[0], takes[1])


def test_lock_writes_the_cast_in_place_and_the_next_render_clones_the_take(harbour, capsys):
    path, backend = harbour
    library = path.parent / "lib"
    assert main(["cast", "audition", str(path), "CAPTAIN", "--candidates", "2"]) == 0
    take = path.with_name("harbour.auditions") / "captain" / "take-2.wav"
    assert (
        main(["cast", "lock", str(path), "CAPTAIN", "--take", "2", "--library", str(library)]) == 0
    )
    text = path.read_text()
    assert text.startswith("title: Harbour\n# the cast, in the order the director wants it\n")
    assert (
        "  CAPTAIN:\n    # the old man\n"
        '    voice: "refs/captain-designed.wav"\n'
        '    transcript: "The tide turns at six, and we sail with it or not at all."\n'
        '    voice_source: {kind: synthetic, note: "designed from a description"}\n'
        f'    design: "{DESIGN}"\n'
    ) in text
    voice = read_voice(library, "harbour-captain")
    assert (voice.source, voice.description) == ("designed", DESIGN)
    assert voice.transcript == "The tide turns at six, and we sail with it or not at all."

    backend.requests.clear()
    render(path, backend)
    captain = [r for r in backend.requests if r.speaker == "CAPTAIN"]
    assert len(captain) == 2
    for request in captain:
        assert DESIGN not in request.text
        (reference,) = request.conversation.references
        assert reference.transcript.endswith("we sail with it or not at all.")
        assert np.array_equal(load_audio(reference.clip.path), sf.read(take, dtype="float32")[0])
    member = load_script(path).cast["CAPTAIN"]
    assert (member.voice_source.kind, member.design) == ("synthetic", DESIGN)


def test_lock_writes_a_fountain_plays_cast_file(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    play = tmp_path / "quay.fountain"
    play.write_text("INT. QUAY - DAY\n\nCAPTAIN\nFetch the rope, lad.\n", encoding="utf-8")
    cast = tmp_path / "quay.cast.yaml"
    cast.write_text(f"cast:\n  CAPTAIN:  # keep me\n    design: {DESIGN}\n", encoding="utf-8")
    assert main(["cast", "audition", str(play), "CAPTAIN", "--candidates", "1"]) == 0
    args = ["cast", "lock", str(play), "CAPTAIN", "--take", "1", "--library", str(tmp_path / "l")]
    assert main(args) == 0
    assert cast.read_text().startswith(
        'cast:\n  CAPTAIN:  # keep me\n    voice: "refs/captain-designed.wav"\n'
    )
    assert load_script(play).cast["CAPTAIN"].references[0].transcript == "Fetch the rope, lad."


def test_audition_and_lock_refuse_bad_requests_in_one_line(harbour, capsys):
    path, _ = harbour
    cases = [
        (["cast", "audition", str(path), "BOY"], "BOY has no design"),
        (["cast", "audition", str(path), "MATE"], "'MATE' is not in the cast"),
        (["cast", "audition", str(path), "CAPTAIN", "--line", "quay-2"], "line quay-2 is BOY's"),
        (["cast", "audition", str(path), "CAPTAIN", "--candidates", "0"], "must be 1..16"),
        (["cast", "lock", str(path), "CAPTAIN", "--take", "1"], "no audition of CAPTAIN"),
    ]
    for args, message in cases:
        assert main(args) == 2, args
        assert message in one_error_line(capsys)
    assert path.read_text() == SCRIPT


def test_a_flow_entry_is_not_rewritten(tmp_path, monkeypatch, capsys):
    fake_render(monkeypatch)
    path = tmp_path / "flow.yaml"
    source = f'cast:\n  CAPTAIN: {{design: "{DESIGN}"}}\nlines:\n  - CAPTAIN: Fetch the rope.\n'
    path.write_text(source, encoding="utf-8")
    assert main(["cast", "audition", str(path), "CAPTAIN", "--candidates", "1"]) == 0
    library = str(tmp_path / "l")
    assert main(["cast", "lock", str(path), "CAPTAIN", "--take", "1", "--library", library]) == 2
    assert f"{path}:2: CAPTAIN's entry is not a block of keys" in one_error_line(capsys)
    assert path.read_text() == source
    assert not (tmp_path / "l").exists() and not (tmp_path / "refs").exists()  # nothing added


@pytest.mark.slow
def test_with_a_tiny_drama3_model_the_locked_take_is_the_reference_of_the_next_render(
    tmp_path, tiny_model, monkeypatch, capsys
):
    requests = record_requests(monkeypatch)
    path = tmp_path / "quay.yaml"
    path.write_text(
        f'cast:\n  CAPTAIN:\n    design: "{DESIGN}"\nlines:\n  - CAPTAIN: Rope, lad.\n',
        encoding="utf-8",
    )
    engine = ["--engine", "drama3", "--model", str(tiny_model), "--device", "cpu"]
    assert main(["cast", "audition", str(path), "CAPTAIN", "--candidates", "2", *engine]) == 0
    assert [r.seed for r in requests] == [7001, 7002]
    assert all(r.conversation.references == () for r in requests)
    take = path.with_name("quay.auditions") / "captain" / "take-1.wav"
    library = ["--library", str(tmp_path / "lib")]
    assert main(["cast", "lock", str(path), "CAPTAIN", "--take", "1", *library]) == 0
    (plan,) = compile_scene(load_script(path), "scene-1", "clone")  # what the next render sends
    (reference,) = plan.conversations[0].references
    assert np.array_equal(load_audio(reference.clip.path), sf.read(take, dtype="float32")[0])
    assert reference.transcript == "<|speaker:0|> Rope, lad."
