"""Revision of a line's take by a director's note (`docs/internals/layouts.md`, **revise**).

The line's earlier takes are kept as context exchanges (user text, assistant audio) and the new
user turn carries the note as a relative direction before the line's text. Each requested take
is exactly one backend call; nothing else in the scene is rendered. The new take records its
parent take and the note, and the chain of notes that led to it, so revising a revision keeps
the whole chain in context.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import asdict, dataclass, replace

import numpy as np

from drama_cli.backends.base import Backend, Generation, GenerationRequest
from drama_cli.errors import UsageError
from drama_cli.mix.project_mix import (
    mix_scene_from_store,
    project_metadata,
    project_mix,
)
from drama_cli.qc.signal import CheckReport
from drama_cli.qc.take_checks import check_generation, failed_checks, outcome_fields
from drama_cli.takes.jobs import MAX_SEED, ScenePlanner, cache_key, project_settings
from drama_cli.takes.keys import ReferenceHasher, stable_hash
from drama_cli.takes.project import command_text
from drama_cli.takes.selection import is_stale, numbered_take, stale_note, take_text
from drama_cli.takes.store import Take, TakeStore, check_new_takes
from engine.clip import AudioClip
from engine.conversation import Conversation, Exchange
from engine.errors import EngineError
from engine.layouts import STRINGS, check_text, get_layout, split_leading_tag
from engine.prompt import segments

MAX_CONTEXT_TAKES = 3  # earlier takes kept in the prompt: the chain's most recent ones
RELATIVE_SUFFIX = (
    " versus previous"  # docs/internals/layouts.md: the note reads against the earlier take
)


def clean_note(note: str) -> str:
    """A note as one line without brackets (they would end the direction early).
    Raises UsageError when nothing is left, or when the note holds a `<|...|>` token (the
    engine's text rule, `engine.layouts.check_text`, docs/internals/model.md §4.1): checked before any backend work.
    A bracket that does not pair (`[unclosed`, `stray]`, `[a [b]]`) is refused as in a script,
    never silently dropped."""
    _refuse_unpaired_brackets(note or "")
    text = " ".join(re.sub(r"[\[\]]", " ", note or "").split())
    if not text:
        raise UsageError("the note is empty; say how the line should change, e.g. --note 'softer'")
    try:
        check_text(text, "--note")
    except EngineError as err:
        raise UsageError(str(err)) from err
    if "<|" in text or "|>" in text:
        raise UsageError("--note: a note must not contain <|...|> tokens; write plain words")
    return text


def _refuse_unpaired_brackets(note: str) -> None:
    """Raise UsageError for the first `[` left open, nested or `]` with no `[` in a note."""
    opened = None
    for column, char in enumerate(note, start=1):
        if char == "[":
            if opened is not None:
                raise UsageError(
                    f"--note: bracket direction '[' at column {column} inside another "
                    f"(opened at column {opened}): they do not nest; close the first with ']'"
                )
            opened = column
        elif char == "]":
            if opened is None:
                raise UsageError(
                    f"--note: ']' at column {column} closes no bracket direction; remove it"
                )
            opened = None
    if opened is not None:
        raise UsageError(
            f"--note: unclosed bracket direction '[' at column {opened}; close it with ']' "
            "or write the note without brackets"
        )


def relative_note(note: str) -> str:
    """The note as a relative direction: `softer` -> `softer versus previous` (docs/internals/layouts.md,
    revise); a note that already says `versus previous` is kept as it is."""
    text = clean_note(note)
    return text if text.lower().endswith(RELATIVE_SUFFIX.strip()) else text + RELATIVE_SUFFIX


def with_note(tagged_text: str, note: str) -> str:
    """The user text of a revision as the engine writes it (`engine.layouts.STRINGS["note"]`):
    the relative note right after the speaker tag, e.g.
    `<|speaker:0|> [softer versus previous] Fine.`."""
    direction = STRINGS["note"].format(note=relative_note(note))
    tag, rest = split_leading_tag(tagged_text)
    if tag:
        return f"{tag} {direction} {rest.lstrip()}"
    return f"{direction} {tagged_text.strip()}"


def prompt_hash(conversation: Conversation) -> str | None:
    """SHA-256 of a request's exact prompt: its literal strings and audio clips in order
    (`engine.prompt.segments`; audio by its codes, else by file and duration). None when the
    engine refuses the conversation."""
    try:
        parts = segments(conversation)
    except EngineError:
        return None
    return stable_hash(
        [
            p
            if isinstance(p, str)
            else {"codes": np.asarray(p.codes)}
            if p.codes is not None
            else {"file": p.path, "duration_s": p.duration_s}
            for p in parts
        ]
    )


def start_take(store: TakeStore, scene_id: str, line_id: str, from_take: int | None = None) -> Take:
    """The take a revision reads its note against: `from_take` when given, else the selected
    take, else the line's latest valid take. Raises UsageError when there is none, or when
    take `from_take` is damaged (`numbered_take`)."""
    if from_take is not None:
        return numbered_take(store, scene_id, line_id, from_take)
    take = store.selected_take(scene_id, line_id)
    if take is None:
        valid = store.takes(scene_id, line_id)
        if not valid:
            raise UsageError(f"line {line_id!r} has no takes yet; render it first")
        take = valid[-1]
    return take


def refuse_stale(script, store: TakeStore, scene_id: str, line, take: Take, keep: bool) -> None:
    """Raise UsageError when `take` was made for older words of `line` than the script's
    (`drama_cli.takes.selection.is_stale`) and `keep` is False: a new take made from it would
    say the old words, or an edit would lay the new words over the old audio."""
    if keep or not is_stale(script, store, scene_id, line, take):
        return
    raise UsageError(
        f"line {line.id!r}: {stale_note(take, line)}; render the line again "
        f"({command_text('render', script.source, store.root, '--line', line.id)}), or pass "
        "--keep to work from the old take anyway"
    )


def revision_chain(store: TakeStore, scene_id: str, line_id: str, take: Take) -> list[Take]:
    """The chain of takes `take` was revised from, oldest first, ending with `take` itself
    (follows each record's `parent_take`; stops at a missing parent or a loop)."""
    by_number = {t.number: t for t in store.takes(scene_id, line_id)}
    chain, seen = [take], {take.number}
    parent = take.record.parent_take
    while parent is not None and parent in by_number and parent not in seen:
        chain.append(by_number[parent])
        seen.add(parent)
        parent = by_number[parent].record.parent_take
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
    return take.record.prompt_text or line_text


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


def revision_record(
    parent: Take,
    note: str,
    request: GenerationRequest,
    generation: Generation,
    checks: CheckReport,
    backend: Backend,
    key: str | None = None,
) -> dict:
    """The record of a revised take (`checks`: the signal checks on `generation`), in the form
    `drama_cli.render.line.take_record` writes, plus
    the revision's facts: its parent take, the note, the chain of notes, the user text sent
    and the context takes. Its cache key is `key` (the line's current key), else the parent's:
    a revision answers for the same line, so a later render finds it and renders nothing. It
    has no render slot."""
    record = parent.record
    notes = list(record.notes or ([record.note] if record.note else []))
    return {
        "speaker": request.speaker,
        "text": request.text if record.text is None else record.text,
        "display_text": take_text(parent),
        "seed": request.seed,
        "slot": None,
        "attempt": 0,
        "layout": "revise",
        "layout_version": request.layout_version,
        "sampling": dict(request.sampling),
        "prompt_text": with_note(request.conversation.text, note),
        "prompt_hash": prompt_hash(request.conversation),
        "note": clean_note(note),
        "notes": notes + [clean_note(note)],
        "parent_take": parent.number,
        "context_takes": list(request.conversation.meta.get("context_takes", [])),
        "cache_key": key or parent.cache_key,
        "backend_info": dict(generation.info),
        **outcome_fields(checks, generation.stop_reason, backend),
    }


def free_render_slot(store: TakeStore, scene_id: str, line_id: str, key: str | None) -> int | None:
    """0 when no take with `key` fills the render's first slot yet (a note or edit written into
    the script changes the line's key: the new take then stands for the line's render), else
    None (an extra take, never counted as a render attempt)."""
    taken = any(t.slot == 0 for t in store.takes(scene_id, line_id, key))
    return None if taken or key is None else 0


@dataclass
class Revision:
    """The outcome of `revise_line`: the take revised (`parent`) and the new takes, in order."""

    parent: Take
    takes: list[Take]


def revise_line(
    backend: Backend,
    store: TakeStore,
    base: GenerationRequest,
    note: str,
    takes: int = 1,
    seed: int | None = None,
    from_take: int | None = None,
    select: bool = False,
    key: str | None = None,
) -> Revision:
    """Revise one line: exactly one `backend.generate` call per requested take.

    base: the line's ordinary request (scene/line ids, speaker-tagged text, compiled
    conversation, sampling); its conversation gives the references and text. The new takes
    are stored with their parent and note; with `select`, the first new take becomes the
    line's selected take (`by: "user"`). Seeds: `seed`, `seed + 1`, ... (default:
    `new_take_seeds`, derived from the parent's seed and each new take's number). `key`: the cache
    key to record (default: the parent's).
    Raises UsageError for an empty note, takes outside 1..100 or a missing take.
    """
    check_new_takes(takes)
    parent = start_take(store, base.scene_id, base.line_id, from_take)
    chain = revision_chain(store, base.scene_id, base.line_id, parent)
    conversation = revise_conversation(base.conversation, chain, note)
    kept = [t.number for t in chain[-MAX_CONTEXT_TAKES:]]
    conversation = replace(conversation, meta={**conversation.meta, "context_takes": kept})
    seeds = new_take_seeds(store, base.scene_id, base.line_id, parent, takes, seed)
    made: list[Take] = []
    for k in range(takes):
        request = replace(base, conversation=conversation, seed=seeds[k])
        generation = backend.generate(request)
        checks = check_generation(generation, request.text)
        record = revision_record(parent, note, request, generation, checks, backend, key)
        record["slot"] = free_render_slot(
            store, base.scene_id, base.line_id, key or parent.cache_key
        )
        made.append(
            store.add_take(base.scene_id, base.line_id, generation.audio, record, generation.codes)
        )
    if select:
        store.select(base.scene_id, base.line_id, made[0], by="user")
    return Revision(parent, made)


def child_seed(parent_seed: int, take_number: int) -> int:
    """The seed of new take `take_number` made from a take with `parent_seed`: a CRC-32 of
    both (31 bits), never equal to the parent's seed."""
    value = zlib.crc32(f"{int(parent_seed)}:{int(take_number)}".encode()) & 0x7FFFFFFF
    return value if value != parent_seed else value ^ 1


def new_take_seeds(
    store: TakeStore, scene_id: str, line_id: str, parent: Take, count: int, seed: int | None = None
) -> list[int]:
    """Seeds of the next `count` takes of a line made from `parent` (a revision or an edit):
    `seed`, `seed + 1`, ... (mod 2^31) when given, else `child_seed(parent seed, take number)` for the
    numbers the takes will get, so a second revision never repeats the first one's seed."""
    if seed is not None:
        return [(seed + k) % (MAX_SEED + 1) for k in range(count)]
    first = store.scan(scene_id, line_id).next_number
    parent_seed = int(parent.record.seed or 0)
    return [child_seed(parent_seed, first + k) for k in range(count)]


# -- in a project: script, store, render settings and the mix -------------------------------------


def find_line(script, line_id: str):
    """(scene, index in the scene, line) of the line with `line_id`.
    Raises UsageError naming some known ids when there is none."""
    for scene in script.scenes:
        for index, line in enumerate(scene.lines):
            if line.id == line_id:
                return scene, index, line
    known = [line.id for line in script.lines()]
    shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
    raise UsageError(f"no line {line_id!r} in the script (lines: {shown or 'none'})")


@dataclass
class LinePlanned:
    """A line as the render sees it now: the ordinary request (clone-like conversation with the
    line's references and full text) and its current cache key."""

    scene: object
    line: object
    request: GenerationRequest
    cache_key: str


def plan_line(
    script, store: TakeStore, backend: Backend, line_id: str, settings=None
) -> LinePlanned:
    """Compile one line as the render would (`drama_cli.takes.jobs.ScenePlanner`) and compute its
    cache key. The request's conversation holds the references and the whole line's text
    (long lines are not chunked for revisions and edits). Raises UsageError for an unknown line."""
    settings = settings or project_settings(store)
    scene, index, line = find_line(script, line_id)
    job = ScenePlanner(script, scene, settings, store).job(index)
    key = cache_key(job, backend.identity(), settings, ReferenceHasher())
    references = job.chunks[0].references if job.chunks else ()
    base = Conversation(
        layout="clone",
        references=references,
        text=job.text,
        meta={"line_id": line.id, "scene_id": scene.id},
    )
    request = GenerationRequest(
        scene_id=scene.id,
        line_id=line.id,
        speaker=job.speaker,
        text=job.text,
        conversation=base,
        layout_version=get_layout("revise").version,
        sampling=dict(settings.sampling),
        seed=0,
        speaker_names=dict(job.speaker_names),
    )
    return LinePlanned(scene, line, request, key)


def remix_scene(store: TakeStore, scene, script) -> dict:
    """Mix `scene` again from its selections with the project's saved mix settings
    (`drama_cli.mix.project_mix.mix_scene_from_store`), so a rebuilt mix sounds like the
    render's; returns the JSON-ready scene outcome (files, duration, loudness)."""
    outcome = mix_scene_from_store(
        store, script, scene, project_mix(store), project_metadata(store)
    )
    return asdict(outcome)


def revise_in_project(
    script,
    store: TakeStore,
    backend: Backend,
    line_id: str,
    note: str,
    takes: int = 1,
    seed: int | None = None,
    from_take: int | None = None,
    select: bool = False,
    keep: bool = False,
) -> dict:
    """`drama revise SCRIPT LINE --note ...`: revise one line under the project lock; with
    `select`, make the first new take the line's selection and mix its scene again (other
    lines' takes are untouched, so their audio in the mix is unchanged; later lines shift).
    New takes carry the line's current cache key, so a following render reuses them.
    Returns a JSON-ready summary. Raises UsageError for an unknown line, missing takes, an
    empty note, or a take made for older words unless `keep` (`refuse_stale`)."""
    clean_note(note)
    with store.lock():
        planned = plan_line(script, store, backend, line_id)
        parent = start_take(store, planned.scene.id, line_id, from_take)
        refuse_stale(script, store, planned.scene.id, planned.line, parent, keep)
        result = revise_line(
            backend,
            store,
            planned.request,
            note,
            takes,
            seed,
            from_take,
            select=select,
            key=planned.cache_key,
        )
        mix = remix_scene(store, planned.scene, script=script) if select else None
    return _summary(planned, result, note, mix)


def _summary(planned: LinePlanned, result: Revision, note: str, mix: dict | None) -> dict:
    return {
        "scene": planned.scene.id,
        "line": planned.line.id,
        "note": clean_note(note),
        "parent_take": result.parent.number,
        "takes": [
            {
                "take": t.number,
                "seed": t.record.seed,
                "duration_s": t.duration_s,
                "status": t.status,
                "notes": None if t.record.notes is None else list(t.record.notes),
                "file": str(t.wav_path),
                "failures": failed_checks(t.record),
            }
            for t in result.takes
        ],
        "selected": result.takes[0].number if mix is not None else None,
        "mix": mix,
    }


def script_notes(script) -> list[tuple[str, str]]:
    """(line id, note) for every line with revision notes in the script (YAML `notes:`,
    Fountain `[[...]]` attached to the line; `Line.remarks`), joined with "; ". Director's
    notes (YAML `note`, parentheticals) are render-time directions and are not listed."""
    found = []
    for line in script.lines():
        if line.remarks:
            found.append((line.id, "; ".join(" ".join(p.split()) for p in line.remarks)))
    return found


def applied_notes(take: Take | None) -> list[str]:
    """The notes a take already answers: its chain of notes when it is a revision (a rendered
    take answers none: its `note` is the script's render-time direction, not a revision note)."""
    if take is None:
        return []
    return list(take.record.notes or ())


def pending_script_notes(script, store: TakeStore) -> list[tuple[str, str]]:
    """The (line id, note) revision notes of the script (`script_notes`) that the line's
    selected take does not answer yet: what `revise_from_script` applies."""
    pending = []
    for line_id, note in script_notes(script):
        scene, _, _ = find_line(script, line_id)
        current = store.selected_take(scene.id, line_id)
        if current is not None and clean_note(note) not in applied_notes(current):
            pending.append((line_id, note))
    return pending


def revise_from_script(
    script,
    store: TakeStore,
    backend: Backend,
    seed: int | None = None,
    select: bool = True,
    pending: list[tuple[str, str]] | None = None,
) -> list[dict]:
    """`drama revise SCRIPT --from-script`: revise every line whose script notes its selected
    take does not answer yet (one call per such line; running it again does nothing), then
    mix each touched scene once. `pending`: those notes (`pending_script_notes`), when already
    found. Returns one summary per revised line."""
    done, scenes = [], {}
    for line_id, note in pending_script_notes(script, store) if pending is None else pending:
        scene, _, _ = find_line(script, line_id)
        with store.lock():
            planned = plan_line(script, store, backend, line_id)
            result = revise_line(
                backend,
                store,
                planned.request,
                note,
                1,
                seed,
                None,
                select=select,
                key=planned.cache_key,
            )
        scenes[scene.id] = scene
        done.append(_summary(planned, result, note, {} if select else None))
    if select:
        with store.lock():
            mixes = {sid: remix_scene(store, scene, script=script) for sid, scene in scenes.items()}
        for item in done:
            item["mix"] = mixes[item["scene"]]
    return done
