"""Public bug cases for scripts, tags, prompts and chunking (`docs/internals/bug-cases.md`).

Each test is one case and checks what its Assert says. Where a case speaks of a fake backend,
the test inspects the compiled Conversations that would be sent to it.
"""

import json
import random
import re
import textwrap

import numpy as np
import pytest
import soundfile

from drama_cli.compile.chunking import split_text
from drama_cli.compile.conversations import compile_scene
from drama_cli.errors import ScriptError
from drama_cli.script.check import check_script
from drama_cli.script.direction import parse_directions, render_spans, to_prefix_form
from drama_cli.script.document import Element
from drama_cli.script.fountain import read_fountain
from drama_cli.script.load import load_script


def write(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def cast_file(folder, stem, names):
    entries = "".join(f"  {json.dumps(n)}: refs/{i}.wav\n" for i, n in enumerate(names))
    return write(folder, f"{stem}.cast.yaml", "cast:\n" + entries)


def request_strings(plans):
    """Every string a fake backend would receive for these plans."""
    strings = []
    for plan in plans:
        for conversation in plan.conversations:
            strings += [conversation.text, *conversation.lines, *(e.text for e in conversation.context)]
            strings += [r.transcript or "" for r in conversation.references]
            strings += [d for _, d in conversation.descriptions]
    return strings


def all_modes(script):
    return [plan for scene in script.scenes for mode in ("clone", "history", "scene")
            for plan in compile_scene(script, scene, mode, clip_duration=lambda path: 3.0)]


CUES = """\
INT. BOATHOUSE - NIGHT

MARGOT (cont'd)
We leave at six.

DESMOND (O.S.) (CONT'D)
Not without the oars.

MARGOT
Fine.

DESMOND^
Fine.
"""


@pytest.mark.parametrize("dual_cue", ["DESMOND^", "DESMOND ^"])
def test_F1_cue_variants_stay_one_voice_each(tmp_path, dual_cue):
    path = write(tmp_path, "cues.fountain", CUES.replace("DESMOND^", dual_cue))
    cast_file(tmp_path, "cues", ["MARGOT", "DESMOND"])
    script = load_script(path)
    scene = script.scenes[0]
    assert [e.kind for e in scene.elements if isinstance(e, Element)] == ["heading"]
    lines = scene.lines
    assert len(lines) == 4
    assert [line.speaker for line in lines] == ["MARGOT", "DESMOND", "MARGOT", "DESMOND"]
    voices = set().union(*(plan.speakers for plan in compile_scene(script, scene, "clone")))
    assert voices == {"MARGOT", "DESMOND"}
    assert [line.extensions for line in lines] == [["cont'd"], ["O.S.", "CONT'D"], [], []]
    assert lines[3].dual and lines[3].pair == lines[2].id
    assert "^" not in lines[3].speaker and "^" not in lines[3].cue


def test_F2_names_with_punctuation_and_digits_are_cues(tmp_path):
    text = """\
    EXT. LOADING DOCK - DAY

    GUARD #2
    Badge, please.

    R2-K9
    Beep.

    THE BAKER'S SON
    He's with me.

    NINA / THE DOUBLE
    Which one of us?

    DR. VOSS
    Neither.

    OSKAR (as the PRIEST)
    Peace be with you.

    1984
    The clock on the wall stops.
    """
    speakers = ["GUARD #2", "R2-K9", "THE BAKER'S SON", "NINA / THE DOUBLE", "DR. VOSS", "OSKAR"]
    script = read_fountain(textwrap.dedent(text), "dock.fountain")
    lines = script.lines()
    assert [line.speaker for line in lines] == speakers
    assert lines[5].extensions == ["as the PRIEST"]
    actions = [e.text for e in script.scenes[0].elements if isinstance(e, Element) and e.kind == "action"]
    assert actions == ["1984\nThe clock on the wall stops."]
    forced = read_fountain(textwrap.dedent(text).replace("1984", "@1984"), "dock.fountain")
    assert forced.lines()[-1].speaker == "1984"
    path = write(tmp_path, "dock.fountain", text)
    cast_file(tmp_path, "dock", speakers)
    assert [line.speaker for line in load_script(path).lines()] == speakers


F3_A = (b"\xef\xbb\xbfTitle: Night Ferry\r\nAuthor: A. Writer\r\n\r\nINT. FERRY DECK - NIGHT\r\n\r\n"
        b"CAPTAIN\r\nHold the rope.\r\n")


def shape(script):
    return (script.title_page,
            [[(type(e).__name__, e.kind, e.text, getattr(e, "speaker", None)) for e in s.elements] for s in script.scenes])


def test_F3_bom_and_crlf_read_like_lf(tmp_path):
    variants = {"a": F3_A, "b": F3_A[3:].replace(b"\r\n", b"\n"), "c": b"\xef\xbb\xbfINT. FERRY DECK - NIGHT\n\nCAPTAIN\nHold the rope.\n"}
    scripts = {}
    for name, data in variants.items():
        (tmp_path / f"{name}.fountain").write_bytes(data)
        cast_file(tmp_path, name, ["CAPTAIN"])
        scripts[name] = load_script(tmp_path / f"{name}.fountain")
    assert shape(scripts["a"]) == shape(scripts["b"])
    assert scripts["a"].title_page == {"Title": "Night Ferry", "Author": "A. Writer"}
    for key, value in scripts["a"].title_page.items():
        assert "\ufeff" not in key + value and "\r" not in key + value
    for name in ("a", "c"):
        first = scripts[name].scenes[0].elements[0]
        assert first.kind == "heading" and first.text == "INT. FERRY DECK - NIGHT"
        line = scripts[name].lines()[0]
        assert (line.speaker, line.text) == ("CAPTAIN", "Hold the rope.")


def test_F5_notes_and_boneyard_never_reach_the_model(tmp_path):
    path = write(tmp_path, "green.fountain", """\
        INT. GREENHOUSE - DAY

        LENA
        I planted them [[check: tulips or lilies?]] last spring.

        /* CUT FOR TIME
        OTTO
        You never told me.
        */

        [[note one]]
        [[note two]]

        OTTO
        They died anyway. /* alt: They're fine. */
        """)
    cast_file(tmp_path, "green", ["LENA", "OTTO"])
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "clone")
    assert [(p.line.speaker, p.text) for p in plans] == [
        ("LENA", "<|speaker:0|> I planted them last spring."), ("OTTO", "<|speaker:1|> They died anyway.")]
    sent = " ".join(request_strings(all_modes(script)))
    for word in ("check", "tulips", "note one", "note two", "You never told me", "fine"):
        assert word not in sent
    notes = [e.text for e in script.scenes[0].elements if isinstance(e, Element) and e.kind == "note"]
    assert notes == ["check: tulips or lilies?", "note one", "note two"]
    assert script.lines()[0].remarks == ["check: tulips or lilies?"]
    assert all(line.pause_after_s is None for line in script.lines())


def test_Y1_scalars_stay_exact_source_strings(tmp_path):
    path = write(tmp_path, "ferry.yaml", """\
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
        """)
    script = load_script(path)
    assert script.cast["INGRID"].lang == "no" and script.cast["TOM"].lang == "en"
    assert [line.text for line in script.lines()] == [
        "Are you coming?", "No", "Yes", "Null", "[sighs]", "#1 rule, never look back"]
    plans = compile_scene(script, script.scenes[0], "clone", clip_duration=lambda p: 2.0)
    assert plans[5].text == "<|speaker:1|> #1 rule, never look back."
    assert any("#1 rule" in w.message and w.position.line == 20 for w in script.warnings)


Y3_FILES = {
    "a.yaml": ("lines:\n  - speaker: ROSA\n    text: First take of the line.\n    text: Second take of the line.\n",
               4, "duplicate key 'text'", "keep one"),
    "b.yaml": ("lines:\n\t- {speaker: ROSA, text: Hi.}\n", 2, "tab", "spaces"),
    "c.yaml": ("lines:\n  - speaker: ROSA\n    text: [sighs] Fine, have it your way.\n", 3, "YAML cannot read", "quotes"),
    "d.yaml": ("lines:\n  - speaker: ROSA\n    text: *waves* Over here!\n", 3, "YAML cannot read", "quotes"),
    "e.yaml": ("lines:\n  - speaker: ROSA\n    text: Wait: you knew?\n", 3, "YAML cannot read", "quotes"),
}


@pytest.mark.parametrize("name", sorted(Y3_FILES))
def test_Y3_yaml_errors_are_loud_and_located(tmp_path, name, capsys, monkeypatch):
    from drama_cli import cli
    from drama_cli.commands import script as script_commands

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
    monkeypatch.setattr(cli, "_register_commands", lambda: script_commands.register(cli.app))
    assert cli.main(["check", str(path)]) == 2
    assert f"{name}:{line}:" in capsys.readouterr().err


def test_T1_parentheticals_become_directions_and_a_pause(tmp_path):
    path = write(tmp_path, "hall.fountain", """\
        INT. HALLWAY - NIGHT

        IVY
        (whispering)
        Is he asleep?
        (beat)
        Good. Then we go.
        """)
    cast_file(tmp_path, "hall", ["IVY"])
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "clone")
    assert plans[0].conversations[0].text == "<|speaker:0|> [whispering] Is he asleep?"
    assert plans[0].line.beat_s >= 0.3
    assert plans[1].conversations[0].text == "<|speaker:0|> Good. Then we go."
    for plan in plans:
        spoken = re.sub(r"\[[^\]]*\]|<\|[^|]*\|>", "", plan.conversations[0].text)
        assert "(" not in spoken and ")" not in spoken and "beat" not in spoken
    assert "whisper" not in plans[1].conversations[0].text


def test_T2_free_form_directions_stay_in_place_and_strict_mode_warns(tmp_path):
    line = "[voice tight, holding back tears] I'm fine. [long exhale] Really."
    path = write(tmp_path, "abe.yaml", f'cast:\n  ABE: refs/abe.wav\nlines:\n  - {{speaker: ABE, text: "{line}"}}\n')
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "clone", clip_duration=lambda p: 2.0)
    assert plans[0].conversations[0].text == "<|speaker:0|> " + line
    report = check_script(str(path), strict_tags=True)
    warned = [w.message for w in report.warnings if "vocabulary" in w.message]
    assert len(warned) == 2
    assert "scene-1-1" in warned[0] and "[voice tight, holding back tears]" in warned[0]
    assert "[long exhale]" in warned[1]
    assert load_script(path).lines()[0].text == line


def test_T4_scoped_tags_close_and_reopen_across_chunks(tmp_path):
    chunks = split_text("<|speaker:0|> <angry>Get out. Right now.</angry> Please.", per_sentence=True)
    assert chunks == ["<|speaker:0|> <angry>Get out.</angry>", "<|speaker:0|> <angry>Right now.</angry>",
                      "<|speaker:0|> Please."]
    prefix = [to_prefix_form(c.replace("<|speaker:0|> ", "")) for c in chunks]
    assert prefix == ["[angry] Get out.", "[angry] Right now.", "Please."]
    assert not any(ch in p for p in prefix for ch in "<>") and not any("/angry" in p for p in prefix)
    for text, column in (("<angry>Get out.", 12), ("<angry><whisper>no</angry></whisper>", 30)):
        path = write(tmp_path, "t4.yaml", f'lines:\n  - speaker: A\n    text: "{text}"\n')
        with pytest.raises(ScriptError) as info:
            load_script(path, resolve=False)
        assert (info.value.position.line, info.value.position.column) == (3, column)


def clip(path, seconds):
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(path, np.zeros(int(44100 * seconds), np.float32), 44100)


def test_B1_reference_transcript_is_never_the_line(tmp_path):
    clip(tmp_path / "refs" / "kai.wav", 4.0)
    clip(tmp_path / "refs" / "uma.wav", 3.0)
    kai_text = "The harbour lights were already on when we arrived."
    (tmp_path / "refs" / "kai.txt").write_text(kai_text)
    path = write(tmp_path, "b1.yaml", """\
        cast:
          UMA: refs/uma.wav
          KAI: refs/kai.wav
        lines:
          - UMA: Tell me where you hid it.
          - KAI: Under the third stair.
        """)
    script = load_script(path)
    for mode in ("clone", "history"):
        uma, kai = compile_scene(script, script.scenes[0], mode)
        kai_refs = [r for r in kai.conversations[0].references if r.speaker == kai.speakers["KAI"]]
        assert [r.transcript for r in kai_refs] == [f"<|speaker:{kai.speakers['KAI']}|> {kai_text}"]
        assert [r.transcript for r in uma.conversations[0].references] == [None]
        assert any("no transcript" in w for w in uma.warnings)
        for plan in (uma, kai):
            own = plan.line.text
            for reference in plan.conversations[0].references:
                assert reference.transcript is None or own not in reference.transcript
        assert kai_refs[0].clip.frames() == 87  # 4 s at 44,100/2048 frames per second, rounded up


def test_B2_speaker_tokens_syntax_order_and_range(tmp_path):
    path = write(tmp_path, "b2.yaml", """\
        cast: {ANA: a.wav, BEN: b.wav, CY: c.wav}
        lines:
          - ANA: One.
          - BEN: Two.
          - ANA: Three.
          - CY: Four.
        """)
    script = load_script(path)
    plans = compile_scene(script, script.scenes[0], "scene", clip_duration=lambda p: 2.0)
    conversation = plans[0].conversations[0]
    assert all(p.conversations[0] is conversation for p in plans)
    joined = " ".join(conversation.lines)
    tags = re.findall(r"<\|speaker:\d+\|>", joined)
    assert tags == ["<|speaker:0|>", "<|speaker:1|>", "<|speaker:0|>", "<|speaker:2|>"]
    assert [r.speaker for r in conversation.references] == [0, 1, 2]
    assert [r.clip.path.rsplit("/", 1)[-1] for r in conversation.references] == ["a.wav", "b.wav", "c.wav"]

    with pytest.raises(ScriptError, match="not a speaker switch"):
        parse_directions("I said <speaker:1> twice")

    names = [f"P{i:02d}" for i in range(17)]
    crowd = write(tmp_path, "crowd.yaml", "cast:\n" + "".join(f"  {n}: {n}.wav\n" for n in names)
                  + "lines:\n" + "".join(f"  - {n}: Line {n}.\n" for n in names))
    script = load_script(crowd)
    for mode in ("scene", "clone"):
        plans = compile_scene(script, script.scenes[0], mode, clip_duration=lambda p: 2.0)
        conversations = list({id(c): c for p in plans for c in p.conversations}.values())
        if mode == "scene":
            assert len(conversations) >= 2
        for conversation in conversations:
            text = " ".join([conversation.text, *conversation.lines])
            indices = {int(k) for k in re.findall(r"<\|speaker:(\d+)\|>", text)}
            assert "<|speaker:16|>" not in text and len(indices) <= 16 and max(indices) <= 15
            assert all(r.speaker <= 15 for r in conversation.references)


def test_B4_text_normalised_before_the_model():
    raw = "    Where were you?\n\n\n\tI looked   everywhere.  **Everywhere.** ### Honestly 🥲✨ I’m done"
    text = render_spans(parse_directions(raw), 0, None)
    body = text.removeprefix("<|speaker:0|> ")
    assert body == "Where were you? I looked everywhere. Everywhere. Honestly I'm done."
    for bad in ("\n", "\t", "  ", "*", "#", "🥲", "✨", "’"):
        assert bad not in body
    assert render_spans(parse_directions("[sighs] Okay"), 0, None) == "<|speaker:0|> [sighs] Okay."


def test_M3_sentence_splitter_respects_abbreviations_and_numbers():
    text = ("Dr. Okafor met Mrs. Lind at 9 a.m. on Elm St. near the pier. She paid $4.50 for two coffees... "
            "Then nothing..")
    chunks = split_text(text, per_sentence=True)
    assert chunks == ["Dr. Okafor met Mrs. Lind at 9 a.m. on Elm St. near the pier.",
                      "She paid $4.50 for two coffees...", "Then nothing.."]
    assert all(re.search(r"\w", c) for c in chunks)
    assert sum("4.50" in c for c in chunks) == 1


def check_m4(text, chunks, cap=300):
    assert chunks and all(0 < len(c) <= cap for c in chunks)
    assert " ".join(chunks) == " ".join(text.split())
    if len(chunks) > 1 and len(chunks[-1]) < 20:
        assert len(chunks[-2]) + 1 + len(chunks[-1]) > cap


def test_M4_chunk_cap_and_word_boundaries():
    rng = random.Random(4)
    sentences = []
    for _ in range(9):
        words = " ".join("".join(rng.choice("abcdefgh") for _ in range(rng.randint(3, 8))) for _ in range(16))
        sentences.append((words[:98].rstrip() + ".").capitalize())
    paragraph = " ".join(sentences)
    assert 850 <= len(paragraph) <= 950
    chunks = split_text(paragraph, max_chars=300)
    check_m4(paragraph, chunks)
    assert all(c.endswith(".") for c in chunks)

    run = " ".join("".join(rng.choice("klmnop") for _ in range(rng.randint(2, 9))) for _ in range(200))[:700].strip()
    check_m4(run, split_text(run, max_chars=300))

    for _ in range(2000):
        length = rng.randint(1, 2000)
        words, size = [], -1
        while size < length:
            word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 20)))
            words.append(word)
            size += len(word) + 1
        text = " ".join(words)
        check_m4(text, split_text(text, max_chars=300))
