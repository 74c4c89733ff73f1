"""The studio's Cast and Attribution views over its JSON API: every character with its lines,
voice, proposal and auditions; an audition, a lock and a proposal written into the cast; the
imported lines without a sure speaker with their candidates, a speaker chosen written into the
script file with the line's id kept; the token and same-origin rules hold for the new routes."""

import pytest
import soundfile as sf
from fakes import voice
from starlette.testclient import TestClient

from drama_cli.backends.registry import make_backend
from drama_cli.cli import main
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import LIBRARY_ENV
from drama_cli.studio.app import Studio, make_app
from drama_cli.studio.casting import parse_candidates
from drama_cli.studio.project import StudioProject

TOKEN = "cast-token"
ORIGIN = {"origin": "http://testserver"}
SCRIPT = """title: Book
narrator: NARRATOR
cast:
  NARRATOR: {}
  ANNE:
    gender: female
  BEN:
    gender: male
  CAPTAIN:
    design: "a gravelly old sea captain"
  UNATTRIBUTED:
    description: "placeholder"
scenes:
  - id: chapter-1
    lines:
      - action: "It rained."
      - ANNE: "Come in."  # candidates: ANNE 0.70, BEN 0.30 (pronoun)
      - UNATTRIBUTED: "Who is there?"  # candidates: BEN 0.55, ANNE 0.45 (turn-taking)
      - CAPTAIN: "Fetch the rope, lad, and be quick about it."
"""


@pytest.fixture
def served(tmp_path, monkeypatch):
    library = tmp_path / "lib"
    monkeypatch.setenv(LIBRARY_ENV, str(library))
    for number, (name, tags) in enumerate([("sue", "female"), ("sam", "male"), ("ned", "calm")]):
        sf.write(tmp_path / f"{name}.wav", voice(1.5, 120.0 + 30 * number), 44_100)
        args = ["voices", "add", str(tmp_path / f"{name}.wav"), "--name", name, "--tags", tags]
        assert main([*args, "--transcript", "Hello."]) == 0
    path = tmp_path / "book.yaml"
    path.write_text(SCRIPT, encoding="utf-8")
    scratch = make_backend(engine="scratch", model=None, device=None, gpu_memory=None)
    studio = Studio(StudioProject(str(path), None, load_script), lambda: scratch)
    client = TestClient(make_app(studio, TOKEN))
    assert client.get(f"/?token={TOKEN}").status_code == 200
    yield client, path, library
    studio.close()


def test_the_cast_view_lists_lines_voices_and_proposals(served):
    client, _, _ = served
    members = {m["name"]: m for m in client.get("/api/cast").json()["members"]}
    assert list(members) == ["NARRATOR", "ANNE", "BEN", "CAPTAIN"]
    assert members["ANNE"]["lines"] == 1 and members["NARRATOR"]["narrator"] is True
    assert members["ANNE"]["proposal"] == {"voice": "sue", "reasons": ["female"]}
    assert members["BEN"]["proposal"]["voice"] == "sam"
    assert members["CAPTAIN"]["voice"] == {"kind": "design", "name": "a gravelly old sea captain"}
    assert members["CAPTAIN"]["proposal"] is None


def test_audition_lock_and_apply_write_the_cast(served):
    client, path, library = served
    made = client.post(
        "/api/cast/audition", json={"character": "CAPTAIN", "candidates": 2}, headers=ORIGIN
    )
    assert made.status_code == 200, made.text
    captain = {m["name"]: m for m in made.json()["members"]}["CAPTAIN"]
    assert [a["take"] for a in captain["auditions"]] == [1, 2]
    audio = client.get("/api/cast/audio?character=CAPTAIN&take=2")
    assert audio.status_code == 200 and audio.headers["content-type"] == "audio/wav"
    locked = client.post("/api/cast/lock", json={"character": "CAPTAIN", "take": 2}, headers=ORIGIN)
    assert locked.status_code == 200, locked.text
    assert '    voice: "refs/captain-designed.wav"\n' in path.read_text()
    assert (library / "book-captain.json").is_file()
    assert client.get("/api/cast/audio?character=CAPTAIN").status_code == 200
    applied = client.post("/api/cast/apply", json={"character": "ANNE"}, headers=ORIGIN)
    assert applied.status_code == 200, applied.text
    assert '  ANNE:\n    voice: "library:sue"\n    gender: female\n' in path.read_text()
    assert load_script(path).cast["ANNE"].library_voice == "sue"


def test_the_attribution_view_lists_doubtful_lines_and_a_choice_is_written(served):
    client, path, _ = served
    view = client.get("/api/attribution").json()
    assert [(line["id"], line["speaker"]) for line in view["lines"]] == [
        ("chapter-1-1", "ANNE"),
        ("chapter-1-2", "UNATTRIBUTED"),
    ]
    assert view["lines"][1]["candidates"] == [
        {"name": "BEN", "p": 0.55},
        {"name": "ANNE", "p": 0.45},
    ]
    assert view["lines"][1]["text"] == "Who is there?"
    chosen = client.post(
        "/api/attribution", json={"line": "chapter-1-2", "speaker": "BEN"}, headers=ORIGIN
    )
    assert chosen.status_code == 200, chosen.text
    assert '      - BEN: "Who is there?"\n' in path.read_text()
    script = load_script(path)
    line = script.scenes[0].lines[2]
    assert (line.id, line.speaker) == ("chapter-1-2", "BEN")
    assert [line["id"] for line in chosen.json()["lines"]] == ["chapter-1-1"]


def test_a_bad_choice_or_a_foreign_origin_changes_nothing(served):
    client, path, _ = served
    bad = client.post(
        "/api/attribution", json={"line": "chapter-1-2", "speaker": "ZED"}, headers=ORIGIN
    )
    assert bad.status_code == 400 and "'ZED' is not a speaker of the cast" in bad.json()["error"]
    foreign = client.post(
        "/api/attribution",
        json={"line": "chapter-1-2", "speaker": "BEN"},
        headers={"origin": "http://evil.example"},
    )
    assert foreign.status_code == 403
    assert (
        client.post(
            "/api/cast/lock", json={"character": "CAPTAIN", "take": 9}, headers=ORIGIN
        ).status_code
        == 400
    )
    assert path.read_text() == SCRIPT


def test_a_candidates_comment_is_read_with_its_rule():
    row = '      - X: "a"  # candidates: MR. HOLMES 0.80, WATSON 0.20 (pronoun)'
    assert parse_candidates(row) == ([("MR. HOLMES", 0.8), ("WATSON", 0.2)], "pronoun")
    assert parse_candidates('      - X: "a # candidates: no"') == ([], None)
