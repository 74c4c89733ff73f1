"""The YAML reader: schema, exact strings, located errors (an unclosed quote, deep nesting),
cast files, stdin."""

import io
import json
import re
import textwrap
from pathlib import Path

import pytest
from fakes import CAST, one_error_line, write_dedented
from hypothesis import given, settings
from hypothesis import strategies as st

from drama_cli.cli import main
from drama_cli.compile.conversations import compile_scene
from drama_cli.errors import ScriptError
from drama_cli.script.load import load_script
from drama_cli.script.yaml_format import read_yaml


def read(text, path="play.yaml"):
    return read_yaml(textwrap.dedent(text), path, base_dir=".")


FULL = """\
title: Test play
narrator: NED
cast:
  ANA:
    voice: refs/ana.wav
    transcript: I am Ana.
    speaker: 3
    aliases: [ANNIE, "A."]
    description: The lead.
    lang: no
  BEN:
    references:
      - audio: refs/ben1.wav
        transcript: One.
      - refs/ben2.wav
  NED: refs/ned.wav
scenes:
  - id: opening
    title: The opening
    direction: Night, rain.
    lines:
      - ANA: Hello.
      - action: Ben enters.
      - speaker: BEN
        text: "[sighs] Hi."
        id: ben-hi
        note: tired
        pause_after: 500ms
        overlap: yes
      - remark: cut this later
      - speaker: ANNIE
        text: Yes
        notes: [quiet, slow]
"""


def test_every_field_is_read():
    script = read(FULL)
    assert script.title == "Test play" and script.narrator == "NED"
    ana = script.cast["ANA"]
    assert (ana.speaker_index, ana.aliases, ana.description, ana.lang) == (
        3,
        ["ANNIE", "A."],
        "The lead.",
        "no",
    )
    assert ana.references[0].path == "refs/ana.wav" and ana.references[0].transcript == "I am Ana."
    assert [(c.path, c.transcript) for c in script.cast["BEN"].references] == [
        ("refs/ben1.wav", "One."),
        ("refs/ben2.wav", None),
    ]
    scene = script.scenes[0]
    assert (scene.id, scene.title, scene.direction) == ("opening", "The opening", "Night, rain.")
    assert [line.id for line in scene.lines] == ["opening-1", "ben-hi", "opening-3"]
    ben = scene.lines[1]
    assert (ben.text, ben.notes, ben.pause_after_s, ben.overlap) == (
        "[sighs] Hi.",
        ["tired"],
        0.5,
        True,
    )
    # `notes:` are revision notes for `drama revise --from-script`, not render directions
    assert scene.lines[2].remarks == ["quiet", "slow"] and scene.lines[2].notes == []
    assert scene.lines[2].text == "Yes"
    assert [e.kind for e in scene.elements if not hasattr(e, "speaker")] == [
        "direction",
        "action",
        "note",
    ]


def test_positions_point_at_the_line():
    script = read(FULL)
    assert script.scenes[0].lines[1].position.line == 24


def test_aliases_resolve_and_narrator_voices_action(tmp_path):
    (tmp_path / "p.yaml").write_text(FULL)
    script = load_script(tmp_path / "p.yaml")
    lines = script.scenes[0].lines
    assert [line.speaker for line in lines] == ["ANA", "NED", "BEN", "ANA"]
    assert lines[1].id == "opening-a1" and lines[1].kind == "action"


def test_unknown_key_suggests_the_closest():
    with pytest.raises(ScriptError) as info:
        read("lines:\n  - speaker: A\n    txt: hi\n")
    assert info.value.position.line == 3 and "did you mean 'text'" in info.value.hint


def test_unknown_speaker_names_the_line_and_closest_cast_name(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("cast:\n  ALGERNON: a.wav\nlines:\n  - ALGERNO: Hi.\n")
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert info.value.position.line == 4
    assert "ALGERNO" in info.value.message and "ALGERNON" in info.value.hint


def test_line_without_text_is_an_error():
    with pytest.raises(ScriptError, match="has no text") as info:
        read("lines:\n  - speaker: A\n    text: ''\n")
    assert info.value.position.line == 3


def test_duplicate_line_ids_are_errors():
    with pytest.raises(ScriptError, match="duplicate line id"):
        read("lines:\n  - {speaker: A, text: a, id: x}\n  - {speaker: A, text: b, id: x}\n")


def test_ids_that_differ_only_in_case_are_errors_since_they_would_share_a_folder():
    with pytest.raises(ScriptError) as info:
        read("lines:\n  - {speaker: A, text: a, id: A-B}\n  - {speaker: A, text: b, id: a-b}\n")
    assert (info.value.message, info.value.position.line) == (
        "line ids 'A-B' and 'a-b' differ only in case",
        3,
    )
    assert "case-insensitive file system" in info.value.hint


@pytest.mark.parametrize("scene_id", ["book", "Book"])
def test_a_scene_id_that_is_the_book_folder_of_the_project_is_refused_at_its_scene(scene_id):
    text = f"cast:\n  A: {{}}\nscenes:\n  - id: x\n    lines: [A: Hi.]\n  - id: {scene_id}\n    lines: [A: Ho.]\n"
    with pytest.raises(ScriptError) as info:
        read(text)
    assert (info.value.message, info.value.position.line, info.value.hint) == (
        f"scene id {scene_id!r} is the name of the project folder's book/ folder, "
        "which drama book writes",
        6,
        "give the scene another id",
    )


@pytest.mark.parametrize("character", ["\x7f", "\x1b", "\x85", "\x9b", "\u2028"])
def test_a_control_character_is_one_located_error_at_its_column(character):
    with pytest.raises(ScriptError) as info:
        read(f"lines:\n  - speaker: A\n    text: Hel{character}lo\n")
    assert info.value.message == f"control character U+{ord(character):04X} in the script"
    assert (info.value.position.line, info.value.position.column) == (3, 14)


def test_a_lone_surrogate_escape_in_a_line_is_an_invalid_character_at_its_escape(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text('cast:\n  A: {}\nlines:\n  - A: "\\ud800 Hi"\n', encoding="utf-8")
    for command in (["check"], ["compile"], ["render", "--engine", "scratch"]):
        capsys.readouterr()
        assert main([*command, str(path)]) == 2
        err = one_error_line(capsys)
        assert err.splitlines()[0].removeprefix("drama: ") == (
            f"{path}:4:9: invalid character U+D800 (a lone surrogate) in the script "
            "(remove it: a surrogate is half of a character and cannot be written as text)"
        )


def test_a_lone_surrogate_in_a_cast_name_is_refused_before_anything_prints_it(tmp_path, capsys):
    path = tmp_path / "play.yaml"
    path.write_text('cast:\n  "Zo\\udcebe": {}\nlines:\n  - A: Hi\n', encoding="utf-8")
    assert main(["check", str(path)]) == 2
    assert (
        one_error_line(capsys).splitlines()[0].startswith(f"{path}:2:6: invalid character U+DCEB")
    )


@pytest.mark.parametrize(
    ("escape", "code"),
    [
        ("\\a", 0x07),
        ("\\e", 0x1B),
        ("\\x9b", 0x9B),
        ("\\u0007", 0x07),
        ("\\U0000001b", 0x1B),
        ("\\r", 0x0D),
    ],
)
def test_a_control_character_written_as_an_escape_is_located_at_the_escape(escape, code):
    with pytest.raises(ScriptError) as info:
        read(f'lines:\n  - speaker: A\n    text: "a\\\\b {escape}c"\n')
    assert info.value.message == f"control character U+{code:04X} in the script"
    assert (info.value.position.line, info.value.position.column) == (3, 17)


def test_an_escaped_backslash_before_letters_is_no_control_character():
    script = read('lines:\n  - speaker: A\n    text: "a\\\\ab\\tc"\n')
    assert script.scenes[0].lines[0].text == "a\\ab\tc"


def test_a_control_character_in_a_lexicon_file_is_located_in_that_file(tmp_path):
    (tmp_path / "names.lexicon.yaml").write_text(
        'lexicon:\n  Zoe: "zo\\x1b]0;x"\n', encoding="utf-8"
    )
    path = tmp_path / "play.yaml"
    path.write_text(
        "lexicons: [names.lexicon.yaml]\ncast:\n  A: {}\nlines:\n  - A: Zoe\n", encoding="utf-8"
    )
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(info.value).startswith(
        f"{tmp_path / 'names.lexicon.yaml'}:2:11: control character U+001B"
    )


def test_a_control_character_in_a_transcript_beside_a_clip_is_located_in_that_file(tmp_path):
    (tmp_path / "a.txt").write_text("\nI am \x1b[2JA.\n", encoding="utf-8")
    path = tmp_path / "play.yaml"
    path.write_text("cast:\n  A: {voice: a.wav}\nlines:\n  - A: Hi\n", encoding="utf-8")
    with pytest.raises(ScriptError) as info:
        load_script(path)
    assert str(info.value).startswith(f"{tmp_path / 'a.txt'}:2:6: control character U+001B")


def test_bad_pause_and_speaker_index_are_located():
    with pytest.raises(ScriptError, match="duration") as info:
        read("lines:\n  - speaker: A\n    text: a\n    pause_after: soon\n")
    assert info.value.position.line == 4
    with pytest.raises(ScriptError, match="0..15"):
        read("cast:\n  A:\n    voice: a.wav\n    speaker: 16\nlines:\n  - A: hi\n")


def test_transcript_sidecar_file_is_read(tmp_path):
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "kai.txt").write_text("The harbour lights were on.\n")
    script = read_yaml(
        "cast:\n  KAI: refs/kai.wav\nlines:\n  - KAI: Hi.\n", "p.yaml", base_dir=str(tmp_path)
    )
    assert script.cast["KAI"].references[0].transcript == "The harbour lights were on."


def test_string_lines_and_switches():
    script = read("lines:\n  - 'ANA: Hi {BEN} Yo'\n")
    line = script.scenes[0].lines[0]
    assert line.speaker == "ANA" and line.speakers() == ["ANA", "BEN"]


def test_stdin_is_read_and_sniffed(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("cast:\n  A: a.wav\nlines:\n  - A: Hi.\n"))
    script = load_script("-")
    assert script.source == "<stdin>" and script.lines()[0].text == "Hi."


def test_crlf_and_bom_read_like_lf(tmp_path):
    body = "cast:\n  A: a.wav\nlines:\n  - A: Hi.\n"
    (tmp_path / "a.yaml").write_bytes(b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode())
    (tmp_path / "b.yaml").write_text(body)
    assert (
        load_script(tmp_path / "a.yaml").lines()[0].text
        == load_script(tmp_path / "b.yaml").lines()[0].text
    )


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab: -#[]{}'\"\t\n*&!|>%@`,?<>/x")), max_size=80))
def test_random_yaml_gives_a_script_or_a_located_script_error(text):
    try:
        read_yaml(text, "r.yaml", base_dir=".")
    except ScriptError as err:
        assert err.position.file == "r.yaml" and err.position.line >= 1 and err.position.column >= 1


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60))
def test_random_line_text_gives_a_script_or_a_located_script_error(text):
    quoted = json.dumps(text, ensure_ascii=False)
    quoted = quoted.replace("\x85", "\\N").replace("\u2028", "\\L").replace("\u2029", "\\P")
    source = "lines:\n  - speaker: A\n    text: " + quoted + "\n"
    try:
        script = read_yaml(source, "r.yaml", base_dir=".")
    except ScriptError as err:
        assert err.position.line >= 1 and err.position.column >= 1
    else:
        assert script.lines()[0].text == text


def test_script_guide_yaml_example_reads():
    guide = Path(__file__).resolve().parents[1] / "docs" / "guide" / "scripts.md"
    if not guide.is_file():
        pytest.skip("docs/guide/scripts.md not found")
    section = (
        guide.read_text()
        .split("<!-- script-format:start -->")[1]
        .split("<!-- script-format:end -->")[0]
    )
    example = section.split("```yaml\n")[1].split("```")[0]
    script = read_yaml(
        example.replace("narrator: NARRATOR", "narrator: LANE"), "guide.yaml", base_dir="."
    )
    assert [line.id for line in script.lines()] == ["morning-room-1", "lane-polite"]
    assert script.cast["ALGERNON"].speaker_index == 0
    assert len(script.cast["JACK"].references) == 2


def test_direction_errors_in_block_scalars_point_at_the_content_line():
    with pytest.raises(ScriptError) as info:
        read("lines:\n  - speaker: A\n    text: >-\n      Well <whisper>then\n")
    assert (info.value.position.line, info.value.position.column) == (4, 12)


def test_more_than_sixteen_voices_in_one_line_is_an_error(tmp_path):
    names = [f"V{i}" for i in range(17)]
    text = (
        "cast:\n"
        + "".join(f"  {n}: {n}.wav\n" for n in names)
        + "lines:\n  - V0: a "
        + " ".join(f"{{{n}}} b" for n in names[1:])
        + "\n"
    )
    (tmp_path / "p.yaml").write_text(text)
    with pytest.raises(ScriptError, match="17 voices") as info:
        load_script(tmp_path / "p.yaml")
    assert info.value.position.line == 20


def test_yaml_without_lines_is_nothing_to_render(tmp_path, capsys):
    script = tmp_path / "empty.yaml"
    script.write_text(CAST + "scenes: []\n")
    assert main(["check", str(script)]) == 2
    assert "nothing to render" in one_error_line(capsys)


def test_yaml_unclosed_quote_is_reported_where_it_opens(tmp_path, capsys):
    script = tmp_path / "quote.yaml"
    script.write_text('cast:\n  A: {}\nlines:\n  - A: "Hello there\n  - A: Fine.\n')
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert err.splitlines()[0].startswith(f"{script}:4:8: unclosed quote")


@pytest.mark.parametrize("kind", ["brackets", "indent"])
def test_deeply_nested_yaml_is_bad_input_not_a_crash(tmp_path, capsys, kind):
    script = tmp_path / "deep.yaml"
    if kind == "brackets":
        script.write_text(CAST + "scenes: " + "[" * 5000 + "\n")
    else:
        script.write_text(
            CAST + "scenes:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(3000))
        )
    assert main(["check", str(script)]) == 2
    err = one_error_line(capsys)
    assert f"{script}:" in err and "nested too deeply" in err


@pytest.mark.case("Y1")
def test_Y1_scalars_stay_exact_source_strings(tmp_path):
    path = write_dedented(
        tmp_path,
        "ferry.yaml",
        """\
        cast:
          INGRID:
            voice: refs/ingrid.wav
            lang: no
          TOM:
            voice: refs/tom.wav
            lang: en
        lines:
          - speaker: TOM
            text: Are you coming?
          - speaker: INGRID
            text: No
          - speaker: TOM
            text: Yes
          - speaker: INGRID
            text: Null
          - speaker: TOM
            text: [sighs]
          - speaker: INGRID
            text: #1 rule, never look back
        """,
    )
    script = load_script(path)
    assert script.cast["INGRID"].lang == "no" and script.cast["TOM"].lang == "en"
    assert [line.text for line in script.lines()] == [
        "Are you coming?",
        "No",
        "Yes",
        "Null",
        "[sighs]",
        "#1 rule, never look back",
    ]
    plans = compile_scene(script, script.scenes[0], "clone", clip_duration=lambda p: 2.0)
    assert plans[5].text == "<|speaker:1|> #1 rule, never look back."
    assert any("#1 rule" in w.message and w.position.line == 20 for w in script.warnings)


Y3_FILES = {
    "a.yaml": (
        "lines:\n  - speaker: ROSA\n    text: First take of the line.\n    text: Second take of the line.\n",
        4,
        "duplicate key 'text'",
        "keep one",
    ),
    "b.yaml": ("lines:\n\t- {speaker: ROSA, text: Hi.}\n", 2, "tab", "spaces"),
    "c.yaml": (
        "lines:\n  - speaker: ROSA\n    text: [sighs] Fine, have it your way.\n",
        3,
        "YAML cannot read",
        "quotes",
    ),
    "d.yaml": (
        "lines:\n  - speaker: ROSA\n    text: *waves* Over here!\n",
        3,
        "YAML cannot read",
        "quotes",
    ),
    "e.yaml": (
        "lines:\n  - speaker: ROSA\n    text: Wait: you knew?\n",
        3,
        "YAML cannot read",
        "quotes",
    ),
}


@pytest.mark.case("Y3")
@pytest.mark.parametrize("name", sorted(Y3_FILES))
def test_Y3_yaml_errors_are_loud_and_located(tmp_path, name, capsys, monkeypatch):
    from drama_cli import cli

    text, line, words, hint = Y3_FILES[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScriptError) as info:
        load_script(path)
    err = info.value
    assert err.position.line == line and err.position.column >= 1
    assert words in err.message and hint in err.hint
    if name == "b.yaml":
        assert err.position.column == 1
    assert cli.main(["check", str(path)]) == 2
    assert f"{name}:{line}:" in capsys.readouterr().err


def test_yaml_merge_keys_share_settings_and_own_keys_win(tmp_path):
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A: &base {description: calm, lang: en}\n  B:\n    <<: *base\n"
        "    description: wry\n  C: {<<: [*base], aliases: [Cee]}\nlines:\n"
        "  - &line {speaker: A, text: Hello.}\n  - {<<: *line, speaker: B}\n  - C: Hi.\n"
    )
    script = load_script(str(path))
    assert [(m.name, m.description, m.lang, m.aliases) for m in script.cast.values()] == [
        ("A", "calm", "en", []),
        ("B", "wry", "en", []),
        ("C", "calm", "en", ["Cee"]),
    ]
    assert [(line.speaker, line.text) for line in script.lines()] == [
        ("A", "Hello."),
        ("B", "Hello."),
        ("C", "Hi."),
    ]


def test_every_code_fence_of_the_docs_stands_alone_and_is_closed():
    root = Path(__file__).resolve().parents[1]
    pages = sorted((root / "docs").rglob("*.md")) + [root / "README.md"]
    if not (root / "docs" / "guide" / "scripts.md").is_file():
        pytest.skip("docs/ not found")
    for page in pages:
        fences = [
            (n, row.strip())
            for n, row in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
            if row.lstrip().startswith("```")
        ]
        stray = [f"{page.name}:{n}" for n, row in fences if not re.fullmatch(r"```[\w+-]*", row)]
        assert stray == [] and len(fences) % 2 == 0, (page.name, stray, len(fences))


@pytest.mark.parametrize(
    "name, aliases, written",
    [
        ('""', "[]", "cast name ''"),
        ('"(V.O.)"', "[]", "cast name '(V.O.)'"),
        ("ANA", '["  "]', "alias '  '"),
        ("ANA", '["@"]', "alias '@'"),
    ],
)
def test_a_cast_name_or_alias_with_nothing_to_match_is_an_error(
    tmp_path, capsys, name, aliases, written
):
    script = tmp_path / "p.yaml"
    script.write_text(
        f"cast:\n  {name}: {{aliases: {aliases}}}\n  BEN: {{}}\nlines:\n  - BEN: Hello.\n"
    )
    assert main(["check", str(script)]) == 2
    assert one_error_line(capsys).splitlines()[0] == (
        f"{script}:2:3: {written} has nothing a line could call it by (give it a letter or digit "
        "outside extensions such as (V.O.))"
    )


def read_warned(folder: Path, lines: str):
    """The script of ANA's `lines` and its warnings as (place, message); the file is p.yaml."""
    (folder / "p.yaml").write_text("cast:\n  ANA: {}\nlines:\n" + lines)
    script = load_script(folder / "p.yaml")
    return script, [(str(w.position), w.message) for w in script.warnings]


def test_a_yaml_line_that_opens_with_a_parenthetical_is_warned_about(tmp_path):
    script, warned = read_warned(
        tmp_path,
        "  - ANA: (softly) Come in.\n"
        '  - ANA: "(He was wrong, of course, and everyone in the room knew it.) Yes."\n'
        "  - ANA: Come in (softly).\n",
    )
    assert script.lines()[0].text == "(softly) Come in."  # sent as written
    assert warned == [
        (
            f"{tmp_path / 'p.yaml'}:4:10",
            "the line opens with '(softly)', which a YAML script speaks as words: "
            "write it as a direction, [softly] or note: softly",
        )
    ]


def test_text_cut_short_by_a_hash_word_is_warned_about_and_a_spaced_comment_is_not(tmp_path):
    script, warned = read_warned(
        tmp_path, "  - ANA: We are #1 here.\n  - ANA: Did you hear?   # a comment for the writer\n"
    )
    assert [line.text for line in script.lines()] == [
        "We are",
        "Did you hear?",
    ]  # as YAML reads them
    assert warned == [
        (
            f"{tmp_path / 'p.yaml'}:4:10",
            "text 'We are' stops before '#1 here.', which YAML reads as a comment "
            "(quote the text to keep it, or write the comment as '# ...')",
        )
    ]


def test_overlap_on_a_scenes_first_line_is_warned_about(tmp_path):
    _, warned = read_warned(
        tmp_path,
        "  - speaker: ANA\n    text: Hello.\n    overlap: true\n"
        "  - speaker: ANA\n    text: Again.\n    overlap: true\n",
    )
    assert warned == [
        (
            f"{tmp_path / 'p.yaml'}:6:14",
            "overlap: true on the scene's first line overlaps nothing: it starts "
            "the scene as any first line does",
        )
    ]


@pytest.mark.parametrize("mark, kind", [("!", "a tag"), ("&", "an anchor")])
def test_a_line_opening_with_a_tag_or_anchor_word_warns_at_it_with_the_quoted_form(mark, kind):
    script = read(f'cast:\n  A: {{}}\nlines:\n  - A: {mark}Look out, he has "a" knife\n')
    assert script.scenes[0].lines[0].text == 'out, he has "a" knife'
    assert [(w.position.line, w.position.column, w.message) for w in script.warnings] == [
        (
            4,
            8,
            f"text starts with '{mark}Look', which YAML reads as {kind}, not a word: it would be "
            f"sent as 'out, he has \"a\" knife' (write it in double quotes: "
            f'"{mark}Look out, he has \\"a\\" knife")',
        )
    ]


def test_a_line_opening_with_an_alias_word_is_refused_with_the_quoted_form():
    with pytest.raises(ScriptError) as info:
        read("cast:\n  A: {}\nlines:\n  - A: *Look out, he has a knife\n")
    assert (str(info.value.position), info.value.hint) == (
        "play.yaml:4:8",
        'write it in double quotes: "*Look out, he has a knife"',
    )


@pytest.mark.parametrize("code", [0x202A, 0x202E, 0x2066, 0x2069, 0x200B])
def test_an_invisible_character_in_a_line_is_a_located_warning_naming_it(code):
    written = read(f'lines:\n  - A: "Right\\u{code:04x}to left."\n')
    raw = read(f"lines:\n  - A: Right{chr(code)}to left.\n")
    for script, column in ((written, 14), (raw, 13)):
        warned = [w for w in script.warnings if f"U+{code:04X}" in w.message]
        assert len(warned) == 1 and "invisible character" in warned[0].message
        assert (warned[0].position.line, warned[0].position.column) == (2, column)
    assert written.scenes[0].lines[0].text == f"Right{chr(code)}to left."


def test_a_control_character_on_each_of_several_lines_is_each_located():
    source = "lines:\n  - A: a\x01b\n  - A: c\x1bd\n  - A: e\x07f\n  - A: g\u2028h\n  - A: i\x85j\n"
    with pytest.raises(ScriptError) as info:
        read(source)
    assert [(e.position.line, e.message) for e in info.value.errors] == [
        (n, f"control character U+{code:04X} in the script")
        for n, code in zip(range(2, 7), (0x01, 0x1B, 0x07, 0x2028, 0x85), strict=True)
    ]
