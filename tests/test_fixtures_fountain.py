"""The Fountain reader on real scripts, held against Final Draft renderings and screenplain.

The fixtures live in the shared folder beside the clone (see its README); the test skips where
that folder is absent. The `.fdx` files give an independent expected structure; screenplain
(PyPI) is a second Fountain parser used as a differential oracle.
"""

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from drama_cli.script.document import Element
from drama_cli.script.fountain import read_fountain
from drama_cli.script.resolve import name_key

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "fountain"
SCRIPTS = ["Brick-and-Steel", "The-Last-Birthday-Card"]


def fixture(name: str) -> Path:
    path = FIXTURES / name
    if not path.is_file():
        pytest.skip(f"shared fixtures not found at {FIXTURES} (they sit beside the clone in CI)")
    return path


def flat(text: str) -> str:
    return " ".join(text.split())


def fdx_events(path: Path) -> list[tuple]:
    """(type, text, dual) for every paragraph of a Final Draft file, in order."""
    events = []

    def walk(node, dual=False):
        for child in node:
            if child.tag == "Paragraph" and child.get("Type"):
                text = "".join("".join(t.itertext()) for t in child.findall("Text"))
                events.append((child.get("Type"), flat(text), dual))
            elif child.tag in ("Paragraph", "DualDialogue", "Content"):
                walk(child, dual or child.tag == "DualDialogue")

    walk(ET.parse(path).getroot().find("Content"))
    return events


def fdx_dialogue(events) -> list[tuple[str, str]]:
    """(speaker key, text) per Dialogue paragraph: one per stretch of speech between parentheticals."""
    result, speaker, previous = [], None, None
    for kind, text, _ in events:
        if kind == "Character":
            speaker = name_key(text)
        elif kind == "Dialogue" and previous == "Dialogue":
            result[-1] = (speaker, result[-1][1] + " " + text)  # one paragraph per source line
        elif kind == "Dialogue":
            result.append((speaker, text))
        previous = kind
    return result


def fdx_dual_followers(events) -> list[tuple[str, str]]:
    """(speaker, first dialogue) of the second character of every dual-dialogue pair."""
    result, characters_in_pair, want = [], 0, False
    for kind, text, dual in events:
        if kind == "Character":
            characters_in_pair = characters_in_pair + 1 if dual else 0
            speaker, want = name_key(text), dual and characters_in_pair == 2
        elif kind == "Dialogue" and want:
            result.append((speaker, text))
            want = False
    return result


def ours(name: str):
    source = fixture(f"{name}.fountain").read_text(encoding="utf-8")
    return read_fountain(source, f"{name}.fountain")


@pytest.mark.parametrize("name", SCRIPTS)
def test_dialogue_speakers_and_text_match_final_draft(name):
    script = ours(name)
    expected = fdx_dialogue(fdx_events(fixture(f"{name}.fdx")))
    got = [(name_key(line.speaker), flat(line.text)) for line in script.lines()]
    assert got == expected


@pytest.mark.parametrize("name", SCRIPTS)
def test_headings_and_transitions_match_final_draft(name):
    script = ours(name)
    events = fdx_events(fixture(f"{name}.fdx"))
    elements = [e for s in script.scenes for e in s.elements if isinstance(e, Element)]
    assert [flat(e.text) for e in elements if e.kind == "heading"] == [
        t for k, t, _ in events if k == "Scene Heading"
    ]
    assert [flat(e.text) for e in elements if e.kind == "transition"] == [
        t for k, t, _ in events if k == "Transition"
    ]


@pytest.mark.parametrize("name", SCRIPTS)
def test_dual_dialogue_matches_final_draft(name):
    script = ours(name)
    expected = fdx_dual_followers(fdx_events(fixture(f"{name}.fdx")))
    got = [(name_key(line.speaker), flat(line.text)) for line in script.lines() if line.overlap]
    assert got == expected


@pytest.mark.parametrize(
    "name", SCRIPTS + ["element-Dialogue", "element-DualDialogue", "element-Indenting"]
)
def test_speakers_and_headings_match_screenplain(name):
    import screenplain.parsers.fountain as oracle
    from screenplain.types import Dialog, DualDialog, Slug

    source = fixture(f"{name}.fountain").read_text(encoding="utf-8")
    screenplay = oracle.parse(io.StringIO(source))
    cues, duals, slugs = [], [], []
    for paragraph in screenplay.paragraphs:
        if isinstance(paragraph, Dialog):
            cues.append(name_key(str(paragraph.character)))
        elif isinstance(paragraph, DualDialog):
            cues += [
                name_key(str(paragraph.left.character)),
                name_key(str(paragraph.right.character)),
            ]
            duals.append(cues[-1])
        elif isinstance(paragraph, Slug):
            slugs.append(flat(str(paragraph.line)))
    script = read_fountain(source, f"{name}.fountain")
    ours_cues = [name_key(line.speaker) for line in _first_line_per_cue(script)]
    assert ours_cues == cues
    assert [name_key(line.speaker) for line in script.lines() if line.overlap] == duals
    headings = [
        flat(e.text)
        for s in script.scenes
        for e in s.elements
        if isinstance(e, Element) and e.kind == "heading"
    ]
    assert [h.upper() for h in headings] == [s.upper() for s in slugs]


def _first_line_per_cue(script):
    """One line per character cue: a cue's speech is split into parts at parentheticals."""
    return [line for line in script.lines() if line.part == 0]


def test_scene_headers_fixture_against_screenplain_with_one_documented_divergence():
    """screenplain reads two heading lines without a blank line between them as a character cue
    and its dialogue; we read them as two headings (nothing is spoken). Everything else agrees."""
    import screenplain.parsers.fountain as oracle
    from screenplain.types import Dialog, Slug

    source = fixture("element-SceneHeaders.fountain").read_text(encoding="utf-8")
    screenplay = oracle.parse(io.StringIO(source))
    slugs = [flat(str(p.line)).upper() for p in screenplay.paragraphs if isinstance(p, Slug)]
    dialogs = [p for p in screenplay.paragraphs if isinstance(p, Dialog)]
    assert len(dialogs) == 1
    script = read_fountain(source, "element-SceneHeaders.fountain")
    headings = [
        flat(e.text).upper()
        for s in script.scenes
        for e in s.elements
        if isinstance(e, Element) and e.kind == "heading"
    ]
    expected = slugs[:14] + ["INT. HOUSE - DAY", "EXT. HOUSE - DAY"] + slugs[14:]
    assert headings == expected
    assert script.lines() == []


@pytest.mark.parametrize(
    "name, expected",
    [
        ("element-Boneyard", ["A line of action.", "This is an boneyard."]),
        (
            "element-MultilineAction",
            [
                "A normal line of action.",
                "This is a multi-line block of Action. Made famous by the great WALTER HILL "
                "but used by many other writers.",
                "A normal line of action.",
            ],
        ),
    ],
)
def test_action_fixtures(name, expected):
    script = ours(name)
    actions = [
        flat(e.text)
        for s in script.scenes
        for e in s.elements
        if isinstance(e, Element) and e.kind == "action"
    ]
    assert actions == expected


def test_notes_fixture_keeps_notes_out_of_text():
    script = ours("element-Notes")
    elements = [e for s in script.scenes for e in s.elements]
    assert [e.text for e in elements if e.kind == "note"] == [
        "A note.",
        "This line spans multiple lines.",
        "internal",
    ]
    assert [flat(e.text) for e in elements if e.kind == "action"] == ["A line.", "This is an note."]
