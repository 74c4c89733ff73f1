"""Scripts made from valid pieces and junk, seeded: reading, checking and compiling them never
ends in a traceback, every problem is located as `file:line:col`, and no model token the
compiler does not write itself reaches a compiled request."""

from __future__ import annotations

import json
import random
import re

import pytest

from drama_cli.cli import main
from drama_cli.compile.conversations import compile_scene
from drama_cli.compile.normalise import script_token_errors
from drama_cli.errors import ScriptError
from drama_cli.script.check import check_script
from drama_cli.script.direction import sent_text_errors
from drama_cli.script.problems import all_errors
from engine.constants import SPEAKER_TAG
from engine.prompt import segments

SCRIPTS = 120  # about 10 s on one core

WORDS = [
    "Hello",
    "there",
    "we",
    "leave",
    "at",
    "six",
    "3",
    "$20.50",
    "1999",
    "10:30",
    "50%",
    "Dr.",
    "naïve",
    "nai\u0308ve",
    "Zoë",
    "Zoe\u0308",
    "東京",
    "—",
    "...",
    "…",
    "!",
    "?",
    ",",
    "'",
    '"',
    "Hermione",
]
MARKUP = [
    "[sighs]",
    "[icy calm]",
    "<whisper>soft</whisper>",
    "{B}",
    "*bold*",
    "**x**",
    "_u_",
    "`code`",
    "~~gone~~",
    "# head",
    "\\*",
    "\\_",
    "\\\\",
    "\U0001f600",
    ":x:",
    "[red]",
    "a < b",
    "<emphasis>yes</emphasis>",
]
JUNK = [
    "<|im_end|>",
    "<*|speaker:1|>",
    "<`|speaker:7|`>",
    "<_|im_start|_>",
    "<|",
    "<speaker:1>",
    "<|speaker:99|>",
    "<**|voice|**>",
    "<|phoneme_start|>HH<|phoneme_end|>",
    "[",
    "{",
    "<whisper>",
    "</soft>",
    "{}",
    "[]",
    "/*",
    "*/",
    "[[",
    "]]",
    "\t",
    "\x00",
    "\ufeff",
    "(",
    ")",
    "@",
    "^",
    "~",
    "!",
    ">",
    "<",
    "=",
    "===",
    "#",
    ".INT",
    "INT.",
    "CUT TO:",
    "\\",
    "\r\n",
    "\x07",
    "\x1b]0;title\x07",
    "\x9b",
    "\u2028",
    "\ud800",
]  # a lone surrogate: a YAML escape (`"\\ud800"`), in Fountain an ESC


def written(text: str, form: str) -> str:
    """`text` as a file of `form` can hold it: a lone surrogate is no UTF-8, so YAML writes it as
    an escape and Fountain, which has none, gets a control character in its place."""
    return text.replace("\ud800", "\\ud800" if form == "yaml" else "\x1b")


def phrase(rng: random.Random) -> str:
    """One line's words: mostly valid pieces, now and then markup or junk."""
    pieces = []
    for _ in range(rng.randint(1, 8)):
        pool = rng.choices([WORDS, MARKUP, JUNK], weights=[6, 2, 1])[0]
        pieces.append(rng.choice(pool))
    return " ".join(pieces)


def yaml_script(rng: random.Random) -> str:
    """A YAML script: text values are JSON strings (always valid YAML), keys now and then junk."""
    lines = []
    for _ in range(rng.randint(1, 5)):
        speaker = rng.choice(["A", "B", "A", "Z"])
        item = {"speaker": speaker, "text": phrase(rng)}
        if rng.random() < 0.2:
            item["note"] = phrase(rng)
        if rng.random() < 0.1:
            item[rng.choice(["pause_after", "lang", "bogus"])] = rng.choice([1, -99, "x", 60])
        if rng.random() < 0.15:
            item = {"action": phrase(rng)}
        lines.append("  - " + json.dumps(item, ensure_ascii=False))
    description = json.dumps(phrase(rng), ensure_ascii=False)
    head = (
        f"narrator: B\ncast:\n  A: {{description: {description}}}\n  B: {{}}\n"
        "lexicon:\n  Hermione: her-MY-oh-nee\n  Zoë: ZOH-ee\n"
    )
    body = "lines:\n" + "\n".join(lines) + "\n"
    if rng.random() < 0.15:
        body += rng.choice(JUNK + ["  - : :", "scenes: 3", "  -"]) + "\n"
    return head + body


def fountain_script(rng: random.Random) -> str:
    """A Fountain play of cues, parentheticals, dialogue, action and junk rows."""
    blocks = ["INT. ROOM - DAY"]
    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(["dialogue", "dialogue", "action", "junk"])
        if kind == "dialogue":
            rows = [rng.choice(["A", "B", "A (V.O.)", "@b"])]
            if rng.random() < 0.3:
                rows.append(f"({phrase(rng)})")
            rows.append(phrase(rng))
            blocks.append("\n".join(rows))
        elif kind == "action":
            blocks.append(phrase(rng))
        else:
            blocks.append(rng.choice(JUNK) + rng.choice(["", " " + phrase(rng)]))
    return "\n\n".join(blocks) + "\n"


def assert_located(errors: list[ScriptError], paths: tuple[str, ...]) -> None:
    for err in errors:
        assert re.match(rf"^({'|'.join(re.escape(p) for p in paths)}):\d+:\d+: ", str(err)), str(
            err
        )


def assert_compiled_clean(script) -> None:
    """Every conversation of every scene builds (the engine refuses no text) and its line text
    holds no model token but the speaker tags and pronunciations the compiler writes, nor a
    control character or a lone surrogate (no UTF-8, so no cache key or tokenizer takes it)."""
    for scene in script.scenes:
        for plan in compile_scene(script, scene, mode="clone", clip_duration=lambda path: 5.0):
            switches = sum(span.kind == "switch" for span in plan.line.spans)
            assert len(SPEAKER_TAG.findall(plan.text)) <= 1 + switches, plan.text
            for conversation in plan.conversations:
                segments(conversation)
                conversation.text.encode("utf-8")
                assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", conversation.text), repr(
                    conversation.text
                )
                assert sent_text_errors(conversation.text) == [], conversation.text


@pytest.mark.parametrize("form", ["yaml", "fountain"])
def test_generated_scripts_never_crash_and_every_problem_is_located(tmp_path, form):
    rng = random.Random(f"drama-fuzz-{form}")
    cast = tmp_path / "play.cast.yaml"
    cast.write_text("narrator: B\ncast:\n  A: {}\n  B: {}\n", encoding="utf-8")
    path = tmp_path / f"play.{form}"
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(SCRIPTS):
        text = yaml_script(rng) if form == "yaml" else fountain_script(rng)
        path.write_text(written(text, form), encoding="utf-8")
        try:
            report = check_script(str(path), sent=script_token_errors)
        except ScriptError as err:
            assert_located(all_errors(err), (str(path), str(cast)))
            outcomes["refused"] += 1
            continue
        assert_located(report.errors, (str(path), str(cast)))
        if report.errors:
            outcomes["refused"] += 1
            continue
        assert_compiled_clean(report.script)
        outcomes["ok"] += 1
    assert outcomes["ok"] >= 10 and outcomes["refused"] >= 10, outcomes  # both kinds were tried


def test_the_check_command_answers_generated_scripts_with_located_lines(tmp_path, capsys):
    rng = random.Random("drama-fuzz-cli")
    path = tmp_path / "play.yaml"
    for _ in range(3):
        path.write_text(written(yaml_script(rng), "yaml"), encoding="utf-8")
        capsys.readouterr()
        code = main(["check", str(path)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code in (0, 2), err
        problems = [row for row in err if not row.startswith(("drama: ", "warning: "))]
        assert all(
            row.startswith(f"{path}:") and re.match(r"^.+:\d+:\d+: ", row) for row in problems
        ), err
        assert code == 0 or problems, err
