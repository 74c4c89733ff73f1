"""What `drama compile` shows: each conversation's prompt segments and their cost.

Text segments are counted in tokens with `engine.tokenizer` (the model folder's tokenizer.json,
else the offline Qwen3.5 vocabulary); when no tokenizer can be built, in characters, and the
report says so. Audio segments count one row per codec frame, estimated from the clip duration
at 44,100/2048 frames per second (`engine.conversation.FRAMES_PER_SECOND`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from engine.clip import AudioClip
from engine.constants import FRAMES_PER_SECOND
from engine.conversation import Conversation


@functools.lru_cache(maxsize=1)
def _offline_tokenizer():
    from engine.tokenizer import (
        Drama3Tokenizer,  # lazy: tokenizers, 25 ms at start-up (drama --help loads this module)
    )

    return Drama3Tokenizer.offline()


def text_counter(model_folder: Path | None = None) -> tuple[Callable[[str], int], str, str]:
    """(count function, unit, description): tokens when a tokenizer is available, else characters.
    The offline tokenizer is built once per process."""
    try:
        from engine.tokenizer import (
            Drama3Tokenizer,  # lazy: tokenizers, 25 ms at start-up (drama --help loads this module)
        )

        tokenizer = (
            Drama3Tokenizer.from_folder(model_folder) if model_folder else _offline_tokenizer()
        )
    except Exception as err:  # any failure to build a tokenizer falls back to characters
        if model_folder:
            raise
        return len, "chars", f"characters (no tokenizer: {err})"
    return (lambda text: len(tokenizer.encode(text))), "tokens", f"tokens ({tokenizer.source})"


def compile_report(
    script,
    mode: str,
    scene_id: str | None = None,
    max_chars: int = 300,
    model_folder: Path | None = None,
    counter: tuple | None = None,
    takes: Callable | None = None,
    no_takes: str | None = None,
) -> dict:
    """Compile the scenes (or one) and describe every conversation as plain JSON data.

    takes: `(scene id, Line) -> AudioClip | None`, the earlier take a line lends as `history`
    context (None: no takes known; `no_takes` says why, for the report).
    Returns {"mode", "unit", "counting", "frames_per_second", "lines": [...], "totals"}; each line
    has id, speaker, text (after the lexicon and the number rules), chunks, speakers, warnings,
    lexicon (the entries the line uses, `term → said`), numbers (each number expression or
    abbreviation said in words, `written → said`), conversations (segments with counts),
    total and total_rows, and in `history` mode its context (line ids with audio rows),
    context_rows and, when there is none, context_note saying why. totals: lines, text, rows
    (context rows included), context_rows, total.
    Raises EngineError when the engine's layout builder refuses a conversation.
    """
    from drama_cli.compile.conversations import (
        compile_scene,  # lazy: yaml and the script reader, 80 ms at start-up
    )

    count, unit, description = counter or text_counter(model_folder)
    scenes = [s for s in script.scenes if scene_id is None or s.id == scene_id]
    lines = []
    seen: dict[int, str] = {}
    for scene in scenes:
        lookup = (lambda line, scene=scene: takes(scene.id, line)) if takes is not None else None
        for plan in compile_scene(script, scene, mode, max_chars=max_chars, takes=lookup):
            conversations = []
            for conversation in plan.conversations:
                if id(conversation) in seen:
                    conversations.append(
                        {
                            "layout": conversation.layout,
                            "shared_with": seen[id(conversation)],
                            "cost": 0,
                            "segments": [],
                        }
                    )
                    continue
                seen[id(conversation)] = plan.line.id
                conversations.append(describe_conversation(conversation, count))
            entry = {
                "id": plan.line.id,
                "scene": plan.scene_id,
                "speaker": plan.line.speaker,
                "text": plan.text,
                "chunks": plan.chunks,
                "speakers": plan.speakers,
                "warnings": plan.warnings,
                "lexicon": plan.lexicon,
                "numbers": plan.numbers,
                "conversations": conversations,
                "total": sum(c["cost"] for c in conversations),
                "total_rows": sum(c.get("rows", 0) for c in conversations),
            }
            if mode == "history":
                entry.update(_context(plan, scene, no_takes))
            lines.append(entry)
    text = sum(line["total"] - line["total_rows"] for line in lines)
    rows = sum(line["total_rows"] for line in lines)
    totals = {
        "lines": len(lines),
        "text": text,
        "rows": rows,
        "context_rows": sum(line.get("context_rows", 0) for line in lines),
        "total": text + rows,
    }
    return {
        "mode": mode,
        "unit": unit,
        "counting": description,
        "frames_per_second": FRAMES_PER_SECOND,
        "lines": lines,
        "totals": totals,
    }


def _context(plan, scene, no_takes: str | None) -> dict:
    """The history context of a line: each earlier line it hears with its audio rows (in every
    chunk's conversation), their sum, and why there is none when there is none."""
    context, rows = [], 0
    for conversation in plan.conversations:
        ids = conversation.meta.get("context_lines", [])
        for line_id, exchange in zip(ids, conversation.context):
            rows += exchange.clip.frames()
            if conversation is plan.conversations[0]:
                context.append({"line": line_id, "rows": exchange.clip.frames()})
    result = {"context": context, "context_rows": rows}
    if not context:
        if scene.lines and plan.line is scene.lines[0]:
            result["context_note"] = "the scene's first line: nothing before it"
        elif no_takes:
            result["context_note"] = no_takes
        else:
            result["context_note"] = "no earlier line of the scene has a usable selected take yet"
    return result


def describe_conversation(conversation: Conversation, count: Callable[[str], int]) -> dict:
    """Segments of one conversation (`engine.prompt.segments`) with counts; `cost` sums text
    counts and audio rows; `rows` is the audio rows alone."""
    from engine.prompt import (
        segments,  # lazy: engine.prompt, 2 ms at start-up (drama --help loads this module)
    )

    described = []
    for segment in segments(conversation):
        if isinstance(segment, AudioClip):
            known = segment.codes is not None or segment.duration_s is not None
            described.append(
                {
                    "kind": "audio",
                    "rows": segment.frames(),
                    "estimated": segment.codes is None,
                    "source": (segment.path or "codes") + ("" if known else " (duration unknown)"),
                }
            )
        else:
            described.append({"kind": "text", "text": segment, "count": count(segment)})
    rows = sum(s["rows"] for s in described if s["kind"] == "audio")
    text = sum(s["count"] for s in described if s["kind"] == "text")
    return {
        "layout": conversation.layout,
        "segments": described,
        "rows": rows,
        "text_count": text,
        "cost": rows + text,
    }
