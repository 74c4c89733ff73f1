"""Sound cues inside a line (`{sfx: NAME}`): the grammar (its refusals are in test_direction),
the `sounds:` table they name, the compiled text without them, and where the mix starts them
(word times, chunk edges, proportion). Every sound is generated here."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import soundfile as sf
from fakes import FakeBackend, fake_render, one_error_line

from drama_cli.cli import main
from drama_cli.compile.conversations import compile_scene
from drama_cli.mix.options import scene_sounds
from drama_cli.mix.timeline import MixEntry, mix_scene
from drama_cli.mix.word_place import word_start_sample
from drama_cli.script.direction import cue_word, display_text, parse_directions, render_spans
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MixSettings
from drama_cli.script.spoken import Word

SR = 44_100


def write_sound(path, samples):
    sf.write(str(path), np.asarray(samples, np.float32), SR, subtype="FLOAT")
    return path


def click(path):
    """Ten samples at 0.5, then silence: its first sample is easy to find in a mix."""
    return write_sound(path, np.r_[np.full(10, 0.5), np.zeros(90)])


def test_a_cue_is_a_sound_span_between_the_words():
    spans = parse_directions("Open the {sfx: door-slam} door, <soft>{MUSIC:theme} now</soft>.")
    cues = [(s.kind, s.text, s.value, s.column) for s in spans if s.kind == "sound"]
    assert cues == [
        ("sound", "{sfx: door-slam}", "door-slam", 9),
        ("sound", "{MUSIC:theme}", "theme", 38),
    ]
    assert [s.kind for s in spans] == [
        "text",
        "sound",
        "text",
        "open",
        "sound",
        "text",
        "close",
        "text",
    ]


@pytest.mark.parametrize(
    "text, word",
    [
        ("Open the {sfx: x} door.", 2),
        ("{sfx: x} Open the door.", 0),
        ("Open the door. {sfx: x}", 3),
        ("He left{sfx: x}, quietly.", 1),  # no space on either side: the word it touches
        ("[sighs] Well, {B} <soft>so {sfx: x} be</soft> it.", 2),  # tags and switches are no words
    ],
)
def test_a_cue_starts_at_the_index_of_the_displayed_word_after_it(text, word):
    spans = parse_directions(text)
    assert cue_word(spans, next(s for s in spans if s.kind == "sound")) == word


@pytest.mark.parametrize(
    "with_cue, without",
    [
        ("Open the {sfx: door-slam} door.", "Open the door."),
        ("He left{sfx: door}, **quietly**", "He left, **quietly**"),
        ("{sfx: door} [angry] Get out.", "[angry] Get out."),
        (
            "<whisper>Get {sfx: x} out</whisper> {B} Fine {music: m}",
            "<whisper>Get out</whisper> {B} Fine",
        ),
    ],
)
def test_a_cue_compiles_as_the_line_without_it(with_cue, without):
    def model_text(text):
        return render_spans(parse_directions(text), 0, lambda name: 1)

    assert model_text(with_cue) == model_text(without)


@pytest.mark.parametrize(
    "with_cue, shown",
    [
        ("What was that {sfx: thunder}?", "What was that?"),
        ("Listen {sfx: clock} .", "Listen."),
        ("Hi {sfx: a} there {music: b}, friend.", "Hi there, friend."),
        ("Wait . . . {sfx: x} now", "Wait . . . now"),  # the writer's own spaces stay
        ("Ha [laughs] {sfx: x}!", "Ha!"),
    ],
)
def test_a_cue_before_punctuation_leaves_no_space_in_the_shown_words(with_cue, shown):
    line = SimpleNamespace(spans=parse_directions(with_cue), text=with_cue)
    assert display_text(line) == shown


LINE = '"We leave at {sfx: door-slam} six, and {B} not {music: theme} a minute later."'
SCRIPT = """\
cast: {A: {}, B: {}}
sounds:
  door-slam: sfx/door.wav
  theme: {file: sfx/theme.wav, gain_db: -6}
scenes:
  - id: s1
    lines:
      - A: LINE
      - B: Fine then.
""".replace("LINE", LINE)


def test_a_yaml_cue_is_a_sound_of_its_scene_with_the_table_file_and_its_word(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT)
    script = load_script(str(path))
    found = [
        (
            s.name,
            s.path,
            s.kind,
            s.loop,
            s.duck,
            s.gain_db,
            s.start.line,
            s.start.word,
            str(s.position),
            s.file_position.line,
        )
        for s in script.scenes[0].sounds
    ]
    assert found == [
        ("door-slam", "sfx/door.wav", "effect", False, False, 0.0, "s1-1", 3, f"{path}:8:31", 3),
        ("theme", "sfx/theme.wav", "music", True, True, -6.0, "s1-1", 6, f"{path}:8:67", 4),
    ]
    plan = compile_scene(script, script.scenes[0], "clone")[0]
    assert plan.text == "<|speaker:0|> We leave at six, and. <|speaker:1|> not a minute later."


def test_a_lexicon_term_across_a_cue_is_said_as_without_it(tmp_path):
    path = tmp_path / "play.yaml"
    body = (
        "cast: {A: {}}\nsounds: {door: door.wav}\nlexicon: {New York: noo-YORK}\n"
        'scenes:\n  - id: s1\n    lines:\n      - A: "LINE"\n'
    )
    texts = []
    for line in ("From New {sfx: door} York, 2000 miles.", "From New York, 2000 miles."):
        path.write_text(body.replace("LINE", line))
        script = load_script(str(path))
        texts.append(compile_scene(script, script.scenes[0], "clone")[0].text)
    assert texts[0] == texts[1]
    assert "noo-YORK" in texts[0]


@pytest.mark.parametrize(
    "line, place, message",
    [
        ('"Go {sfx: thunder} now."', "8:22", "no sound named 'thunder' in the sounds: table"),
        ('"Go {sfx: B} now."', "8:22", "no sound named 'B' in the sounds: table"),
        ('"Go {door-slam} now."', "8:16", "unknown speaker 'door-slam'"),
        ('"Go {sfx} now."', "8:16", "{sfx} names no sound (it is not a speaker switch)"),
    ],
)
def test_a_cue_that_names_no_sound_is_a_check_error_at_its_place(
    tmp_path, capsys, line, place, message
):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace(LINE, line))
    assert main(["check", str(path)]) == 2
    error = one_error_line(capsys)
    assert f"{path}:{place}: {message}" in error
    if "door-slam" in line:
        assert "a sound cue is written {sfx: door-slam}" in error


def test_a_fountain_cue_in_dialogue_resolves_against_the_cast_files_table(tmp_path):
    (tmp_path / "play.cast.yaml").write_text(
        "cast:\n  JACK: {}\nsounds:\n  door-slam: ../sfx/door.wav\n"
    )
    path = tmp_path / "play.fountain"
    path.write_text("INT. HALL - NIGHT\n\nJACK\nFine {sfx: door-slam} then.\n")
    (sound,) = load_script(str(path)).scenes[0].sounds
    assert (sound.name, sound.path, sound.start.line, sound.start.word, sound.position.column) == (
        "door-slam",
        "../sfx/door.wav",
        "scene-1-1",
        1,
        12,
    )


def heard(text, times):
    """The `Word`s of `text` at `times` ((start s, end s) per word)."""
    return tuple(Word(word, a, b) for word, (a, b) in zip(text.split(), times))


def placed_line(text, start=1000, end=1000 + 4 * SR, words=(), segments=()):
    return SimpleNamespace(
        start_sample=start,
        end_sample=end,
        text=text,
        words=heard(text, words),
        segments=tuple(segments),
    )


def test_with_word_times_a_cue_starts_at_its_words_start():
    line = placed_line("We leave at six.", words=[(0.1, 0.3), (0.35, 0.6), (0.7, 0.8), (1.0, 1.4)])
    assert word_start_sample(line, 2) == 1000 + round(0.7 * SR)
    assert word_start_sample(line, 4) == 1000 + round(1.4 * SR)  # after the last word


def test_without_word_times_a_cue_of_a_chunked_take_starts_at_the_nearest_chunk_edge():
    # characters of "one two three four five six": words start at 0 4 8 14 19 24, length 27
    segments = [("one two three", 0.0, 1.5), ("four five six", 1.6, 3.2)]
    line = placed_line("one two three four five six", segments=segments)
    assert word_start_sample(line, 1) == 1000  # "two" (4): nearer the start (0) than 14
    assert word_start_sample(line, 2) == 1000 + round(1.6 * SR)  # "three" (8): 6 from 14
    assert word_start_sample(line, 5) == 1000 + round(3.2 * SR)  # "six" (24): 3 from the end


def test_without_word_times_or_chunks_a_cue_starts_in_proportion_to_the_characters():
    line = placed_line("We leave at six, and not a minute later.")  # "six," at 12 of 40
    assert word_start_sample(line, 3) == 1000 + round(4 * SR * 12 / 40)
    assert word_start_sample(line, 0) == 1000
    assert word_start_sample(line, 9) == 1000 + 4 * SR


def test_the_mix_starts_a_cue_at_its_word_to_the_sample(tmp_path):
    write_sound(tmp_path / "take.wav", np.zeros(2 * SR))
    click(tmp_path / "door.wav")
    script_path = tmp_path / "play.yaml"
    script_path.write_text(
        "cast:\n  A: {}\nsounds:\n  door: door.wav\nscenes:\n  - id: s1\n"
        '    lines:\n      - A: "One two {sfx:door} three."\n'
    )
    script = load_script(str(script_path))
    sounds = scene_sounds(script, script.scenes[0])
    timed = MixEntry(
        "s1-1",
        "A",
        "One two three.",
        tmp_path / "take.wav",
        1,
        words=heard("One two three.", ((0.1, 0.4), (0.5, 0.8), (1.25, 1.7))),
    )
    for entry, at in (
        (timed, round(0.5 * SR) + round(1.25 * SR)),
        (
            MixEntry("s1-1", "A", "One two three.", tmp_path / "take.wav", 1),
            round(0.5 * SR) + round(2 * SR * 8 / 14),
        ),
    ):
        result = mix_scene(
            [entry], MixSettings(head_s=0.5, tail_s=0.5, sounds=sounds), work_dir=tmp_path
        )
        audio = result.samples()
        assert np.flatnonzero(audio)[0] == at == result.sounds[0].start_sample
        np.testing.assert_allclose(audio[at : at + 10], 0.5, atol=1e-6)
        result.audio_path.unlink()


def test_adding_or_moving_a_cue_never_renders_a_take_again(tmp_path, monkeypatch):
    backend = FakeBackend()
    fake_render(monkeypatch, backend)
    click(tmp_path / "door.wav")
    path = tmp_path / "play.yaml"
    plain = (
        "cast:\n  A: {}\nsounds:\n  door: door.wav\nscenes:\n  - id: s1\n    lines:\n"
        '      - A: "We leave at six, then."\n'
    )
    path.write_text(plain)
    assert main(["render", str(path)]) == 0
    calls = len(backend.requests)
    sheet = tmp_path / "play.drama" / "s1" / "mix.cues.json"
    starts = []
    for line in ("We leave {sfx: door} at six, then.", "We leave at six, {sfx: door} then."):
        path.write_text(plain.replace("We leave at six, then.", line))
        assert main(["render", str(path)]) == 0
        (row,) = json.loads(sheet.read_text())["sounds"]
        starts.append(row["start_s"])
        assert row["sound"] == "door"
    assert len(backend.requests) == calls
    cue = json.loads(sheet.read_text())["cues"][0]
    length = cue["end_s"] - cue["start_s"]  # "at" is character 9 and "then." 17 of 22
    assert starts == [
        pytest.approx(cue["start_s"] + length * 9 / 22, abs=1 / SR),
        pytest.approx(cue["start_s"] + length * 17 / 22, abs=1 / SR),
    ]


def test_a_rendered_scene_mixes_a_cue_at_its_word_with_its_stem_labels_and_subtitle(
    tmp_path, monkeypatch
):
    fake_render(monkeypatch)
    click(tmp_path / "door.wav")
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A: {}\nsounds:\n  door: door.wav\nscenes:\n  - id: s1\n"
        '    lines:\n      - A: "Open the {sfx: door} door."\n'
    )
    assert main(["render", str(path), "--stems", "--export-session", "rpp"]) == 0
    folder = tmp_path / "play.drama" / "s1"
    sheet = json.loads((folder / "mix.cues.json").read_text())
    (cue,) = sheet["cues"]
    take = sf.info(str(folder / cue["take_path"]))
    assert take.samplerate == SR  # no resampling: the take's length is its frame count
    at = round(cue["start_s"] * SR) + round(take.frames * 9 / 14)  # "door." at 9 of 14 characters
    effects, _ = sf.read(str(folder / "mix.stem-effects.wav"), dtype="float32")
    assert np.flatnonzero(np.abs(effects) > 0.1)[0] == at
    assert sheet["sounds"][0]["start_s"] == round(at / SR, 6)
    assert (
        f"{at / SR:.6f}\t{(at + 100) / SR:.6f}\tEFFECT: door"
        in (folder / "mix.labels.txt").read_text().splitlines()
    )
    assert "\n[door]\n" in (folder / "mix.srt").read_text()
    assert '"door"' in (folder / "mix.rpp").read_text()


def test_a_cue_in_a_pause_line_keeps_the_pause_and_starts_where_the_line_before_ends(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast: {A: {}}\nsounds: {door: door.wav}\nscenes:\n  - id: s1\n    lines:\n"
        '      - A: Wait.\n      - A: "... {sfx: door} ..."\n      - A: Now.\n'
    )
    scene = load_script(str(path)).scenes[0]
    assert [line.id for line in scene.lines] == ["s1-1", "s1-3"]
    assert (scene.lines[0].beat_s, scene.lines[0].pauses) == (1.0, [("... ...", 1.0)])
    (sound,) = scene.sounds
    assert (sound.start.line, sound.start.edge, sound.start.word) == ("s1-1", "end", None)


def test_a_cue_that_names_a_sound_in_another_case_says_which_sound_was_meant(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text(SCRIPT.replace(LINE, '"Go {sfx: DOOR-SLAM} now."'))
    assert main(["check", str(path)]) == 2
    assert (
        "no sound named 'DOOR-SLAM' in the sounds: table (did you mean door-slam? sound names "
        "match exactly; add" in one_error_line(capsys)
    )
