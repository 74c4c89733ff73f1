"""Revision of a line's take by a director's note (`spec/layouts.md`, **revise**).

The line's earlier takes are kept as context exchanges (user text, assistant audio) and the new
user turn carries the note as a relative direction before the line's text. Each requested take
is exactly one backend call; nothing else in the scene is rendered. The new take records its
parent take and the note, and the chain of notes that led to it, so revising a revision keeps
the whole chain in context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from drama_cli.backends.base import Backend, Generation, GenerationRequest
from drama_cli.errors import UsageError
from drama_cli.takes import Take, TakeStore
from engine.conversation import AudioClip, Conversation, Exchange
from engine.prompt import STRINGS

MAX_CONTEXT_TAKES = 3  # earlier takes kept in the prompt: the chain's most recent ones
RELATIVE_SUFFIX = " versus previous"  # layouts.md: the note reads against the earlier take
_SPEAKER_TAG = re.compile(r"^\s*(<\|speaker:\d+\|>)\s*")


def clean_note(note: str) -> str:
    """A note as one line without brackets (they would end the direction early).
    Raises UsageError when nothing is left."""
    text = " ".join(re.sub(r"[\[\]]", " ", note or "").split())
    if not text:
        raise UsageError("the note is empty; say how the line should change, e.g. --note 'softer'")
    return text


def relative_note(note: str) -> str:
    """The note as a relative direction: `softer` -> `softer versus previous` (layouts.md,
    revise); a note that already says `versus previous` is kept as it is."""
    text = clean_note(note)
    return text if text.lower().endswith(RELATIVE_SUFFIX.strip()) else text + RELATIVE_SUFFIX


def with_note(tagged_text: str, note: str) -> str:
    """The user text of a revision as the engine writes it (`engine.prompt.STRINGS["note"]`):
    the relative note right after the speaker tag, e.g.
    `<|speaker:0|> [softer versus previous] Fine.`."""
    direction = STRINGS["note"].format(note=relative_note(note))
    match = _SPEAKER_TAG.match(tagged_text)
    if match:
        return f"{match.group(1)} {direction} {tagged_text[match.end():]}"
    return f"{direction} {tagged_text.strip()}"


def start_take(store: TakeStore, scene_id: str, line_id: str, from_take: int | None = None) -> Take:
    """The take a revision reads its note against: `from_take` when given, else the selected
    take, else the line's latest valid take. Raises UsageError when there is none."""
    if from_take is not None:
        found = {t.number: t for t in store.takes(scene_id, line_id)}
        if from_take not in found:
            have = ", ".join(str(n) for n in sorted(found)) or "none"
            raise UsageError(f"line {line_id!r} has no take {from_take} (takes: {have})")
        return found[from_take]
    take = store.selected_take(scene_id, line_id)
    if take is None:
        valid = store.takes(scene_id, line_id)
        if not valid:
            raise UsageError(f"line {line_id!r} has no takes yet; render it first")
        take = valid[-1]
    return take


def revision_chain(store: TakeStore, scene_id: str, line_id: str, take: Take) -> list[Take]:
    """The chain of takes `take` was revised from, oldest first, ending with `take` itself
    (follows each record's `parent_take`; stops at a missing parent or a loop)."""
    by_number = {t.number: t for t in store.takes(scene_id, line_id)}
    chain, seen = [take], {take.number}
    parent = take.record.get("parent_take")
    while parent is not None and parent in by_number and parent not in seen:
        chain.append(by_number[parent])
        seen.add(parent)
        parent = by_number[parent].record.get("parent_take")
    return chain[::-1]


def take_clip(take: Take) -> AudioClip:
    """A take as prompt audio: its exact codes when stored (drama3), else its WAV path and
    duration for the backend to encode."""
    codes = take.codes()
    if codes is not None:
        return AudioClip(codes=codes, duration_s=take.duration_s)
    return AudioClip(path=str(take.wav_path), duration_s=take.duration_s)


def exchange_text(take: Take, line_text: str) -> str:
    """The user text a take was generated from: recorded in revisions, else the line's text."""
    return take.record.get("prompt_text") or line_text


def revise_conversation(base: Conversation, chain: list[Take], note: str) -> Conversation:
    """The `revise` Conversation: `base`'s references and text (the line's compiled
    conversation), the chain's last `MAX_CONTEXT_TAKES` takes as context exchanges (oldest
    first, each with the user text it was made from), and `note`.

    Raises UsageError on an empty note.
    """
    kept = chain[-MAX_CONTEXT_TAKES:]
    context = tuple(Exchange(text=exchange_text(t, base.text), clip=take_clip(t)) for t in kept)
    meta = {**base.meta, "parent_take": chain[-1].number, "note": clean_note(note)}
    return Conversation(
        layout="revise",
        references=base.references,
        text=base.text,
        context=context,
        note=relative_note(note),
        meta=meta,
    )


def revision_record(parent: Take, note: str, request: GenerationRequest, generation: Generation,
                    backend: Backend) -> dict:
    """The record of a revised take: seed, layout, note, the chain of notes, its parent take
    and the parent's cache key (a revision answers for the same line, so a later render finds
    it cached), plus the backend's facts and checks."""
    notes = list(parent.record.get("notes") or ([parent.record["note"]] if parent.record.get("note") else []))
    return {
        "cache_key": parent.cache_key,
        "seed": request.seed,
        "sampling": dict(request.sampling),
        "layout": "revise",
        "layout_version": request.layout_version,
        "text": parent.record.get("text", request.text),
        "prompt_text": with_note(request.conversation.text, note),
        "note": clean_note(note),
        "notes": notes + [clean_note(note)],
        "parent_take": parent.number,
        "context_takes": [int(n) for n in _context_numbers(request.conversation)],
        "backend": backend.name,
        "scratch": bool(getattr(backend, "scratch", False)),
        "stop_reason": generation.stop_reason,
        "checks": _checks_dict(generation),
        "info": dict(generation.info),
    }


def _context_numbers(conversation: Conversation) -> list[int]:
    return list(conversation.meta.get("context_takes", []))


def _checks_dict(generation: Generation) -> dict:
    report = generation.checks
    failures = [f.name for f in report.failures] if report is not None else []
    severity = "ok"
    if report is not None and report.failures:
        severity = "unusable" if any(f.severity == "unusable" for f in report.failures) else "degraded"
    return {"passed": not failures, "failures": failures, "severity": severity}


@dataclass
class Revision:
    """The outcome of `revise_line`: the take revised (`parent`) and the new takes, in order."""

    parent: Take
    takes: list[Take]


def revise_line(backend: Backend, store: TakeStore, base: GenerationRequest, note: str,
                takes: int = 1, seed: int | None = None, from_take: int | None = None,
                select: bool = False) -> Revision:
    """Revise one line: exactly one `backend.generate` call per requested take.

    base: the line's ordinary request (scene/line ids, speaker-tagged text, compiled
    conversation, sampling); its conversation gives the references and text. The new takes
    are stored with their parent and note; with `select`, the first new take becomes the
    line's selected take (`by: "user"`). Seeds: `seed`, `seed + 1`, ... (default: the
    parent's seed + 1). Raises UsageError for an empty note, takes < 1 or a missing take.
    """
    if takes < 1:
        raise UsageError("--takes must be at least 1")
    parent = start_take(store, base.scene_id, base.line_id, from_take)
    chain = revision_chain(store, base.scene_id, base.line_id, parent)
    conversation = revise_conversation(base.conversation, chain, note)
    kept = [t.number for t in chain[-MAX_CONTEXT_TAKES:]]
    conversation = replace(conversation, meta={**conversation.meta, "context_takes": kept})
    first_seed = seed if seed is not None else int(parent.record.get("seed", 0)) + 1
    made: list[Take] = []
    for k in range(takes):
        request = replace(base, conversation=conversation, seed=first_seed + k)
        generation = backend.generate(request)
        record = revision_record(parent, note, request, generation, backend)
        made.append(store.add_take(base.scene_id, base.line_id, generation.audio, record, generation.codes))
    if select:
        store.select(base.scene_id, base.line_id, made[0], by="user")
    return Revision(parent, made)
