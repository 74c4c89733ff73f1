"""Casting a play from start to finish with the scratch engine, through the commands only: a
Gutenberg play imported, a library of tagged voices, `drama cast suggest --apply` casting every
character (never one voice twice in a scene, the narrator's voice no one else's), a character
given a designed voice instead, auditioned and locked, and the next render cloning the locked
take; `drama check` clean after every step."""

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from fakes import REFS, record_requests

from drama_cli.backends.reference_audio import load_audio
from drama_cli.cli import main
from drama_cli.script.load import load_script
from drama_cli.script.voice_library import LIBRARY_ENV, read_voice

PLAY = Path(__file__).parent / "data" / "plays" / "a-dolls-house-act-1.txt"
# name: (clip, its words, tags): each a gender and an age of its own
LIBRARY = {
    "reader": ("narrator", "The house stood at the end of a long and quiet lane.", "male, 40s"),
    "matron": ("mrs-bennet", "I have the most wonderful news for all of you.", "female, old"),
    "elder": ("mr-bennet", "I shall be in the library if anyone needs me.", "male, old"),
    "dandy": (
        "algernon",
        "The weather in town has been perfectly dreadful all week.",
        "male, young",
    ),
    "squire": ("jack", "I came up from the country by the early train.", "male, middle"),
    "lass": ("lane", "The carriage will be ready at half past four, sir.", "female, young"),
}
DESIGN = "a weary old London porter, hoarse from the cold"
SPEAKING = {"NARRATOR", "NORA", "HELMER", "PORTER"}


def check_warnings(path, capsys) -> list[str]:
    """`drama check PATH` passes; its warnings other than a listed member without lines."""
    capsys.readouterr()
    assert main(["check", str(path)]) == 0
    err = capsys.readouterr().err
    assert "error" not in err
    return [w for w in err.splitlines() if w.startswith("warning") and "has no lines" not in w]


@pytest.mark.slow
def test_a_play_is_cast_from_the_library_a_designed_voice_locked_and_cloned_by_the_render(
    tmp_path, monkeypatch, capsys
):
    library = tmp_path / "voices"
    monkeypatch.setenv(LIBRARY_ENV, str(library))
    path = tmp_path / "play.yaml"
    assert main(["import", str(PLAY), "-o", str(path)]) == 0
    imported = load_script(path)
    assert {line.speaker for scene in imported.scenes for line in scene.lines} == SPEAKING
    warned = check_warnings(path, capsys)
    assert {w.rsplit(": ", 1)[1] for w in warned} == {
        f"{name} has no reference clip" for name in imported.cast
    }

    for name, (clip, words, tags) in LIBRARY.items():
        args = ["voices", "add", str(REFS / f"{clip}.wav"), "--name", name, "--tags", tags]
        assert main([*args, "--transcript", words, "--source", "synthetic"]) == 0
    assert sorted(p.stem for p in library.glob("*.json")) == sorted(LIBRARY)

    assert main(["cast", "suggest", str(path), "--apply"]) == 0
    cast = load_script(path)
    voices = {name: member.library_voice for name, member in cast.cast.items()}
    assert set(voices) == set(imported.cast) and None not in voices.values()
    assert "female" in LIBRARY[voices["NORA"]][2]  # "his wife" in the dramatis personae
    assert "female" in LIBRARY[voices["MRS LINDE"]][2]  # her title
    narrator = voices[cast.narrator]
    assert [name for name, chosen in voices.items() if chosen == narrator] == [cast.narrator]
    for scene in cast.scenes:
        speakers = {line.speaker for line in scene.lines}
        assert len({voices[s] for s in speakers}) == len(speakers), scene.id
    for name, member in cast.cast.items():
        (reference,) = member.references
        assert reference.transcript == LIBRARY[voices[name]][1]
    assert check_warnings(path, capsys) == []

    # the porter gets a voice invented from a description instead of his library voice
    text = path.read_text(encoding="utf-8")
    entry = f'  PORTER:\n    voice: "library:{voices["PORTER"]}"\n'
    assert entry in text
    path.write_text(text.replace(entry, f'  PORTER:\n    design: "{DESIGN}"\n'), encoding="utf-8")
    assert load_script(path).cast["PORTER"].design == DESIGN
    assert check_warnings(path, capsys) == []  # a designed voice needs no clip until it is locked

    requests = record_requests(monkeypatch)
    args = ["cast", "audition", str(path), "PORTER", "--candidates", "2", "--engine", "scratch"]
    assert main(args) == 0
    folder = tmp_path / "play.auditions" / "porter"
    assert sorted(p.name for p in folder.glob("take-*.wav")) == ["take-1.wav", "take-2.wav"]
    assert [(r.speaker, r.seed) for r in requests] == [("PORTER", 7001), ("PORTER", 7002)]
    assert all(r.conversation.references == () and f"[{DESIGN}]" in r.text for r in requests)
    take = sf.read(folder / "take-1.wav", dtype="float32")[0]
    assert not np.array_equal(take, sf.read(folder / "take-2.wav", dtype="float32")[0])

    assert main(["cast", "lock", str(path), "PORTER", "--take", "1"]) == 0
    assert (
        '  PORTER:\n    voice: "refs/porter-designed.wav"\n    transcript: "Sixpence."\n'
        '    voice_source: {kind: synthetic, note: "designed from a description"}\n'
        f'    design: "{DESIGN}"\n'
    ) in path.read_text(encoding="utf-8")
    assert np.array_equal(
        sf.read(tmp_path / "refs" / "porter-designed.wav", dtype="float32")[0], take
    )
    assert read_voice(library, "play-porter").source == "designed"
    assert check_warnings(path, capsys) == []

    requests.clear()
    monkeypatch.chdir(PLAY.parent)  # the clip is found beside the script
    assert main(["render", str(path), "--engine", "scratch"]) == 0
    porter = [r for r in requests if r.speaker == "PORTER"]
    assert [r.line_id for r in porter] == ["chapter-2-3"]
    for request in porter:
        assert DESIGN not in request.text
        voiced = {
            request.speaker_names[ref.speaker]: ref for ref in request.conversation.references
        }
        assert voiced["PORTER"].transcript.endswith("Sixpence.")
        assert np.array_equal(load_audio(voiced["PORTER"].clip.path), take)
    assert {r.speaker for r in requests} == SPEAKING
    assert check_warnings(path, capsys) == []
