"""Gaps of the script language: event tags in long lines, punctuation-only lines, Fountain in
non-Latin scripts, and `drama check` listing every problem at once."""

import json
from pathlib import Path

import pytest
from fakes import FakeBackend, render

from drama_cli.compile.conversations import compile_scene
from drama_cli.errors import ScriptError
from drama_cli.script.direction import is_event, parse_directions
from drama_cli.script.load import load_script
from drama_cli.script.pauses import pause_seconds
from drama_cli.script.problems import all_errors

LONG = (
    "[laughs] Well, that was the plan all along, and nobody in this room believed me when I said it. "
    "[coughs] Then the rain came down over the harbour and every boat went out anyway, one after another."
)


def yaml_script(folder: Path, lines: str, name: str = "play.yaml") -> Path:
    path = folder / name
    path.write_text("cast:\n  ANN: {}\n  BOB: {}\nlines:\n" + lines, encoding="utf-8")
    return path


def chunks(script, index: int = 0, max_chars: int = 60) -> list[str]:
    return compile_scene(script, script.scenes[0], "clone", max_chars=max_chars)[index].chunks


def test_an_event_tag_opening_a_long_line_is_voiced_once_and_tags_stay_with_their_words(tmp_path):
    path = yaml_script(tmp_path, f'  - ANN: "{LONG}"\n  - ANN: "[icy calm] {LONG[9:]}"\n')
    script = load_script(str(path))
    assert chunks(script, 0) == [
        "<|speaker:0|> [laughs] Well, that was the plan all along,",
        "<|speaker:0|> and nobody in this room believed me when I said it.",
        "<|speaker:0|> [coughs] Then the rain came down over the harbour and every",
        "<|speaker:0|> boat went out anyway, one after another.",
    ]
    styled = chunks(script, 1)
    assert len(styled) == 4 and all(
        chunk.startswith("<|speaker:0|> [icy calm] ") for chunk in styled
    )
    assert sum(chunk.count("[coughs]") for chunk in styled) == 1
    assert "[coughs] Then" in next(chunk for chunk in styled if "[coughs]" in chunk)


def test_which_brackets_are_events():
    assert [
        is_event(c) for c in ("sighs", "clears throat", "Laughs.", "icy calm", "whispering")
    ] == [True, True, True, False, False]
    assert [s.kind for s in parse_directions("[clears throat] [icy calm] Fine.")][:3] == [
        "tag",
        "text",
        "style",
    ]


def test_a_short_line_opening_with_an_event_compiles_as_before(tmp_path):
    path = yaml_script(
        tmp_path,
        '  - speaker: ANN\n    note: tired\n    text: "[sighs] Fine."\n  - ANN: "[sighs]"\n',
    )
    script = load_script(str(path))
    assert [plan.text for plan in compile_scene(script, "scene-1", "clone")] == [
        "<|speaker:0|> [tired] [sighs] Fine.",
        "<|speaker:0|> [sighs]",
    ]
    assert chunks(script, 0) == ["<|speaker:0|> [tired] [sighs] Fine."]


def test_a_punctuation_only_line_is_a_timed_pause_never_sent_to_the_engine(tmp_path):
    path = yaml_script(tmp_path, '  - ANN: Well.\n  - BOB: "— —"\n  - ANN: "…"\n  - BOB: Fine.\n')
    script = load_script(str(path))
    assert [line.id for line in script.lines()] == ["scene-1-1", "scene-1-4"]
    assert script.lines()[0].beat_s == pytest.approx(1.5)
    assert [(e.kind, e.text) for e in script.scenes[0].elements] == [
        ("dialogue", "Well."),
        ("pause", "— —"),
        ("pause", "…"),
        ("dialogue", "Fine."),
    ]
    warnings = [str(w) for w in script.warnings]
    assert (
        f"{path}:6:5: line scene-1-2 ('— —') has no words: a pause of 1 s after line scene-1-1, "
        "not sent to the engine" in warnings
    )
    backend = FakeBackend()
    report, store = render(path, backend)
    assert [r.line_id for r in backend.requests] == ["scene-1-1", "scene-1-4"]
    assert report.exit_code == 0
    rows = json.loads((store.scene_dir("scene-1") / "mix.cues.json").read_text(encoding="utf-8"))[
        "cues"
    ]
    assert [row["line"] for row in rows] == ["scene-1-1", "scene-1-4"]
    assert rows[0]["pauses_after"] == [
        {"text": "— —", "seconds": 1.0},
        {"text": "…", "seconds": 0.5},
    ]
    assert "pauses_after" not in rows[1]
    gap = 0.5  # the mixer's default gap
    assert rows[1]["start_s"] - rows[0]["end_s"] == pytest.approx(gap + 1.5, abs=1e-3)


def test_a_pause_right_after_an_action_item_pauses_after_its_narration(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(
        "narrator: N\ncast:\n  ANN: {}\n  N: {}\nlines:\n  - action: A door opens.\n"
        '  - ANN: "..."\n  - ANN: Who is there?\n',
        encoding="utf-8",
    )
    script = load_script(str(path))
    first, second = script.lines()
    assert (first.speaker, first.text, first.beat_s) == ("N", "A door opens.", pytest.approx(0.5))
    assert second.text == "Who is there?"
    assert not any("opens the scene" in str(w) for w in script.warnings)


def test_pause_lengths():
    assert [pause_seconds(t) for t in ("...", "…", "— —", "-- -- --", ". . . . . . . .")] == [
        0.5,
        0.5,
        1.0,
        1.5,
        3.0,
    ]


JAPANESE = """\
Title：東京の夜
Author：テスト

.室内。アパート — 夜

室内。台所 — 朝

ハナコ
（小声で）
起きてる？

タロウ
うん。今起きた

ハナコ
よかった。
"""

CHINESE = """\
Title：夜归
Author：测试

.内景。公寓 — 夜

外景。街道 — 日

小明
（低声）
你睡了吗？

小红
还没有！
"""

RUSSIAN = """\
Title: Ночь

ИНТ. КВАРТИРА — НОЧЬ

.ИНТ. КУХНЯ — УТРО

АННА
(шёпотом)
Ты спишь?

БОРИС
Нет…
"""


def fountain(folder: Path, name: str, text: str, cast: list[str]) -> Path:
    path = folder / f"{name}.fountain"
    path.write_text(text, encoding="utf-8")
    (folder / f"{name}.cast.yaml").write_text(
        "cast:\n" + "".join(f"  {c}: {{}}\n" for c in cast), encoding="utf-8"
    )
    return path


def texts(script) -> list[str]:
    return [plan.text for scene in script.scenes for plan in compile_scene(script, scene, "clone")]


def hints(script) -> list[str]:
    return [str(w) for w in script.warnings if "reads like a scene heading" in str(w)]


def test_japanese_fountain(tmp_path):
    path = fountain(tmp_path, "ja", JAPANESE, ["ハナコ", "タロウ"])
    script = load_script(str(path))
    assert script.title == "東京の夜" and script.title_page["Author"] == "テスト"
    assert [s.title for s in script.scenes] == ["室内。アパート — 夜"]
    assert texts(script) == [
        "<|speaker:0|> [小声で] 起きてる？",
        "<|speaker:1|> うん。今起きた。",
        "<|speaker:0|> よかった。",
    ]
    assert hints(script) == [
        f"{path}:6:1: '室内。台所 — 朝' reads like a scene heading, but Fountain takes only "
        "INT, EXT, EST, INT./EXT. and I/E as headings, so it is read as action: to make "
        "it a scene heading, force it with a leading '.' (.室内。台所 — 朝)"
    ]


def test_chinese_fountain(tmp_path):
    path = fountain(tmp_path, "zh", CHINESE, ["小明", "小红"])
    script = load_script(str(path))
    assert script.title == "夜归"
    assert texts(script) == ["<|speaker:0|> [低声] 你睡了吗？", "<|speaker:1|> 还没有！"]
    assert len(hints(script)) == 1 and f"{path}:6:1: '外景。街道 — 日'" in hints(script)[0]


@pytest.mark.parametrize("heading", ["INT。台所 — 朝", "EXT．街道 — 日", "int。公寓 — 夜"])
def test_a_latin_heading_with_a_full_width_stop_gets_a_located_hint(tmp_path, heading):
    path = fountain(
        tmp_path, "ja", JAPANESE.replace("室内。台所 — 朝", heading), ["ハナコ", "タロウ"]
    )
    script = load_script(str(path))
    assert hints(script) == [
        f"{path}:6:1: '{heading}' reads like a scene heading, but Fountain takes only "
        "INT, EXT, EST, INT./EXT. and I/E as headings, so it is read as action: to make "
        f"it a scene heading, force it with a leading '.' (.{heading})"
    ]


def test_russian_fountain(tmp_path):
    path = fountain(tmp_path, "ru", RUSSIAN, ["АННА", "БОРИС"])
    script = load_script(str(path))
    assert [s.title for s in script.scenes] == ["ИНТ. КУХНЯ — УТРО"]
    assert texts(script) == ["<|speaker:0|> [шёпотом] Ты спишь?", "<|speaker:1|> Нет…"]
    assert len(hints(script)) == 1 and f"{path}:3:1: 'ИНТ. КВАРТИРА — НОЧЬ'" in hints(script)[0]


def test_check_lists_every_bad_mix_field_and_every_duplicate_id(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        """\
cast:
  ANN: {}
head: 99
scenes:
  - id: a
    tail: -3
    gap: x
    lines:
      - speaker: ANN
        text: Hi.
        id: x
        pause_after: 100
        overlap: maybe
      - speaker: ANN
        text: Hi.
        id: x
  - id: a
    lines:
      - ANN: Yo.
""",
        encoding="utf-8",
    )
    with pytest.raises(ScriptError) as err:
        load_script(str(path))
    assert [
        (e.position.line, e.position.column, e.message.split(" must")[0].split(" '")[0])
        for e in all_errors(err.value)
    ] == [
        (3, 7, "head"),
        (6, 11, "tail"),
        (7, 10, "gap"),
        (12, 22, "pause_after"),
        (13, 18, "overlap"),
        (14, 9, "duplicate line id"),
        (17, 5, "duplicate scene id"),
    ]
