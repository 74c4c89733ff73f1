"""Conversation → prompt: the literal strings of every layout, and the frame rows `[N, 11]`.

All strings a prompt is made of live in `STRINGS`, each layout has a version string recorded in
every take (`LAYOUT_VERSIONS`), and layouts that no released code builds are marked provisional
(`spec/layouts.md`). A prompt is first a list of segments (text literals and audio clips, in
order); each literal is then tokenized on its own, because tokenizing the joined string changes
the ids at the seams (spec §1.4). Text rows are `[id, 0 × 10]`; an audio frame becomes
`[semantic_start + c0, c0, …, c9]` (spec §4.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engine.constants import MAX_SPEAKER, NUM_CODEBOOKS
from engine.constants import SPEAKER_TAG as _SPEAKER_TAG
from engine.conversation import AudioClip, Conversation
from engine.errors import EngineError

LAYOUT_VERSIONS = {
    "clone": "reference-bracket-v1",
    "history": "reference-bracket-history-v1",
    "revise": "revise-note-provisional-v1",
    "scene": "scene-separator-provisional-v1",
    "infill": "infill-fim-provisional-v1",
    "stream": "stream-endofturn-provisional-v1",
}
PROVISIONAL_LAYOUTS = frozenset({"revise", "scene", "infill", "stream"})

STRINGS = {
    # reference-bracket-v1, spec §4.1 (verified)
    "system_open": "<|im_start|>system\n",
    "instruction": "convert the provided text to speech",
    "instruction_with_references": "convert the provided text to speech reference to the following:",
    "reference": "\n\n[Reference {n}]\nText: {transcript}\nSpeech: ",
    "turn_end": "<|im_end|>\n",
    "user_open": "<|im_start|>user\n",
    "assistant_voice": "<|im_start|>assistant\n<|voice|>",
    "default_speaker_prefix": "<|speaker:0|> ",
    # provisional layouts (launch teardown article; spec §4.3 and appendix)
    "character": "\n\n{tag} {description}",
    "note": "[{note}]",
    "audio_separator": "<|audio_separator|>",
    "fim_suffix": "<|fim_suffix|>",
    "fim_prefix": "<|fim_prefix|>",
    "end_of_turn": "<|endofturn|>",
}

# Special tokens a layout writes itself; each must be a single token of the tokenizer in use.
LAYOUT_TOKENS = {
    "clone": ("<|im_start|>", "<|im_end|>", "<|voice|>"),
    "history": ("<|im_start|>", "<|im_end|>", "<|voice|>"),
    "revise": ("<|im_start|>", "<|im_end|>", "<|voice|>"),
    "scene": ("<|im_start|>", "<|im_end|>", "<|voice|>", "<|audio_separator|>"),
    "infill": ("<|im_start|>", "<|im_end|>", "<|voice|>", "<|fim_suffix|>", "<|fim_prefix|>"),
    "stream": ("<|im_start|>", "<|im_end|>", "<|voice|>", "<|endofturn|>"),
}

# Written only by the prompt builder (spec §4.1, plus the provisional layouts' markers): caller
# text holding one would inject conversation structure or audio rows.
STRUCTURAL_TOKENS = (
    "<|im_start|>", "<|im_end|>", "<|voice|>", "<|text|>", "<|interleave|>", "<|semantic:",
    "<|endoftext|>", "<|pad|>", "<|audio_separator|>", "<|endofturn|>",
    "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
)

# Unicode White_Space (str.strip() would also strip U+001C..U+001F, which are not).
WHITE_SPACE = "".join(
    chr(c) for c in (*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                     0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
)
_ANY_SPEAKER_MARK = re.compile(r"<\|speaker")


@dataclass(frozen=True)
class Prompt:
    """A built prompt.

    rows: `[N, 11]` int64 frame rows (column 0 the backbone token, 1..10 codes c0..c9).
    system_rows: how many leading rows form the system block (instruction and references);
        they depend only on the references, so their caches can be reused across lines.
    layout, version: the layout name and its version string (`LAYOUT_VERSIONS`).
    extra_ids: token ids this layout lets the main token emit besides EOS and the semantic band.
    """

    rows: np.ndarray
    system_rows: int
    layout: str
    version: str
    extra_ids: tuple[int, ...] = ()


def layout_version(layout: str) -> str:
    """The version string of a layout (e.g. `clone` → `reference-bracket-v1`).
    Raises `EngineError` for an unknown layout."""
    if layout not in LAYOUT_VERSIONS:
        raise EngineError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUT_VERSIONS)}")
    return LAYOUT_VERSIONS[layout]


def segments(conversation: Conversation) -> list[str | AudioClip]:
    """The exact literal strings and audio clips of the prompt, in order (spec §4,
    `spec/layouts.md`). Clips need not have codes yet, so prompt sizes can be estimated.
    Raises `EngineError` for text the model must not see (see `check_text`) or a malformed
    conversation."""
    return _build(conversation)[0]


def to_rows(conversation: Conversation, tokenizer) -> np.ndarray:
    """Frame rows `[N, 11]` int64 of a conversation; see `build_prompt`."""
    return build_prompt(conversation, tokenizer).rows


def build_prompt(conversation: Conversation, tokenizer) -> Prompt:
    """Tokenize each literal on its own and turn each audio frame into a row (spec §4.1).

    tokenizer: an `engine.tokenizer.Drama3Tokenizer`. Raises `EngineError` when text is refused,
    a clip has no codes or bad codes, the tokenizer lacks a token the layout writes, or the
    prompt has fewer than 2 rows.
    """
    parts, system_parts = _build(conversation)
    _require_layout_tokens(conversation.layout, tokenizer)
    blocks = [_segment_rows(part, tokenizer, index) for index, part in enumerate(parts)]
    rows = np.concatenate(blocks) if blocks else np.zeros((0, 1 + NUM_CODEBOOKS), np.int64)
    if len(rows) < 2:
        raise EngineError(f"a prompt needs at least 2 rows; this one has {len(rows)}")
    system_rows = sum(len(block) for block in blocks[:system_parts])
    return Prompt(rows, system_rows, conversation.layout, layout_version(conversation.layout),
                  extra_samplable_ids(conversation, tokenizer))


def extra_samplable_ids(conversation: Conversation, tokenizer) -> tuple[int, ...]:
    """Ids the main token may emit for this layout besides EOS and the semantic band:
    `<|audio_separator|>` for `scene`, nothing otherwise. Raises `EngineError` when the
    tokenizer lacks the separator."""
    if conversation.layout != "scene":
        return ()
    separator = STRINGS["audio_separator"]
    token_id = tokenizer.token_id(separator)
    if token_id is None:
        raise EngineError(f"the scene layout needs a {separator} token, and this tokenizer has none; "
                          "render the scene line by line (history) instead")
    return (token_id,)


# ---- caller text ---------------------------------------------------------------------------


def check_text(text: str, where: str) -> None:
    """Refuse text the model must not see (spec §4.1): empty or White_Space-only text (speaker
    tags alone count as empty), structural tokens, and speaker tags other than `<|speaker:N|>`
    with N in 0..15 written without leading zeros. Raises `EngineError` naming `where`."""
    if not isinstance(text, str):
        raise EngineError(f"{where}: text must be a string, not {type(text).__name__}")
    for token in STRUCTURAL_TOKENS:
        if token in text:
            raise EngineError(f"{where}: text must not contain {token}")
    for mark in _ANY_SPEAKER_MARK.finditer(text):
        tag = _SPEAKER_TAG.match(text, mark.start())
        if tag is None or int(tag.group(1)) > MAX_SPEAKER:
            raise EngineError(f"{where}: speaker tags run from <|speaker:0|> to <|speaker:{MAX_SPEAKER}|> "
                              f"without leading zeros; found {text[mark.start():mark.start() + 16]!r}")
    if not _SPEAKER_TAG.sub("", text).strip(WHITE_SPACE):
        raise EngineError(f"{where}: text is empty")


def with_speaker_tag(text: str) -> str:
    """Text that starts (after white space) with a speaker tag: speaker 0 by default (spec §4.1)."""
    if _SPEAKER_TAG.match(text.lstrip(WHITE_SPACE)):
        return text
    return STRINGS["default_speaker_prefix"] + text


def _split_leading_tag(text: str) -> tuple[str, str]:
    """(tag, rest) of tagged text, the white space before the tag moved after it (spec §4.1)."""
    body = text.lstrip(WHITE_SPACE)
    tag = _SPEAKER_TAG.match(body)
    return tag.group(0), text[: len(text) - len(body)] + body[tag.end():]


def _reference_transcript(transcript: str | None, speaker: int, where: str) -> str:
    tag = f"<|speaker:{speaker}|>"
    if transcript is None:
        return tag
    check_text(transcript, where)
    body = transcript.lstrip(WHITE_SPACE)
    if not _SPEAKER_TAG.match(body):
        return f"{tag} {transcript}"
    found, rest = _split_leading_tag(transcript)
    if found != tag:
        raise EngineError(f"{where}: the transcript starts with {found} but the reference is speaker {speaker}")
    return found + rest


def _with_note(text: str, note: str | None, where: str) -> str:
    if note is None:
        raise EngineError(f"{where}: the revise layout needs a note")
    body = note.strip(WHITE_SPACE)
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1].strip(WHITE_SPACE)
    check_text(body, f"{where} note")
    if "[" in body or "]" in body:
        raise EngineError(f"{where}: a note must not contain square brackets")
    tag, rest = _split_leading_tag(with_speaker_tag(text))
    return f"{tag} {STRINGS['note'].format(note=body)}{rest}"


# ---- layouts -------------------------------------------------------------------------------


def _build(conversation: Conversation) -> tuple[list[str | AudioClip], int]:
    """(segments, number of leading segments that form the system block)."""
    layout = conversation.layout
    layout_version(layout)
    _refuse_unused_fields(conversation)
    system = _system_block(conversation)
    body = _BODY_BUILDERS[layout](conversation)
    return system + body, len(system)


def _system_block(conversation: Conversation) -> list[str | AudioClip]:
    references = conversation.references
    parts: list[str | AudioClip] = [STRINGS["system_open"]]
    parts.append(STRINGS["instruction_with_references" if references else "instruction"])
    for speaker, description in conversation.descriptions:
        _check_speaker_index(speaker, "description")
        check_text(description, f"description of speaker {speaker}")
        parts.append(STRINGS["character"].format(tag=f"<|speaker:{speaker}|>", description=description))
    for n, reference in enumerate(references, 1):
        where = f"reference {n}"
        _check_speaker_index(reference.speaker, where)
        transcript = _reference_transcript(reference.transcript, reference.speaker, where)
        parts.append(STRINGS["reference"].format(n=n, transcript=transcript))
        parts.append(_clip(reference.clip, where, allow_empty=False))
    parts.append(STRINGS["turn_end"])
    return parts


def _user_turn(*texts: str) -> list[str]:
    return [STRINGS["user_open"], *texts, STRINGS["turn_end"]]


def _context_turns(conversation: Conversation) -> list[str | AudioClip]:
    parts: list[str | AudioClip] = []
    for n, exchange in enumerate(conversation.context, 1):
        where = f"context turn {n}"
        check_text(exchange.text, where)
        parts += _user_turn(with_speaker_tag(exchange.text))
        parts += [STRINGS["assistant_voice"], _clip(exchange.clip, where, allow_empty=False),
                  STRINGS["turn_end"]]
    return parts


def _target(conversation: Conversation) -> str:
    check_text(conversation.text, "text")
    return with_speaker_tag(conversation.text)


def _clone_body(conversation: Conversation) -> list[str | AudioClip]:
    return [*_user_turn(_target(conversation)), STRINGS["assistant_voice"]]


def _history_body(conversation: Conversation) -> list[str | AudioClip]:
    return [*_context_turns(conversation), *_clone_body(conversation)]


def _revise_body(conversation: Conversation) -> list[str | AudioClip]:
    if not conversation.context:
        raise EngineError("the revise layout needs at least one earlier take as context")
    check_text(conversation.text, "text")
    text = _with_note(conversation.text, conversation.note, "text")
    return [*_context_turns(conversation), *_user_turn(text), STRINGS["assistant_voice"]]


def _scene_body(conversation: Conversation) -> list[str | AudioClip]:
    if not conversation.lines:
        raise EngineError("the scene layout needs at least one line")
    lines: list[str] = []
    for n, line in enumerate(conversation.lines, 1):
        check_text(line, f"scene line {n}")
        if lines:
            lines.append(STRINGS["audio_separator"])
        lines.append(with_speaker_tag(line))
    return [*_user_turn(*lines), STRINGS["assistant_voice"]]


def _infill_body(conversation: Conversation) -> list[str | AudioClip]:
    if conversation.prefix is None and conversation.suffix is None:
        raise EngineError("the infill layout needs the audio before or after the edited span")
    empty = AudioClip(codes=np.zeros((NUM_CODEBOOKS, 0), np.int64))
    suffix = _clip(conversation.suffix or empty, "infill suffix", allow_empty=True)
    prefix = _clip(conversation.prefix or empty, "infill prefix", allow_empty=True)
    return [*_user_turn(_target(conversation)), STRINGS["assistant_voice"],
            STRINGS["fim_suffix"], suffix, STRINGS["fim_prefix"], prefix]


def _stream_body(conversation: Conversation) -> list[str | AudioClip]:
    texts = [_target(conversation), STRINGS["end_of_turn"]]
    if conversation.lookahead is not None:
        check_text(conversation.lookahead, "lookahead")
        texts.append(with_speaker_tag(conversation.lookahead))
    return [*_context_turns(conversation), *_user_turn(*texts), STRINGS["assistant_voice"]]


_BODY_BUILDERS = {
    "clone": _clone_body, "history": _history_body, "revise": _revise_body,
    "scene": _scene_body, "infill": _infill_body, "stream": _stream_body,
}

# Conversation fields each layout reads beyond references; anything else set is refused, so
# nothing the caller meant is dropped silently.
_FIELDS = {
    "clone": {"text"}, "history": {"text", "context"}, "revise": {"text", "context", "note"},
    "scene": {"lines", "descriptions"}, "infill": {"text", "prefix", "suffix"},
    "stream": {"text", "context", "lookahead"},
}


def _refuse_unused_fields(conversation: Conversation) -> None:
    given = {
        "text": conversation.text != "", "context": bool(conversation.context),
        "note": conversation.note is not None, "lines": bool(conversation.lines),
        "descriptions": bool(conversation.descriptions), "prefix": conversation.prefix is not None,
        "suffix": conversation.suffix is not None, "lookahead": conversation.lookahead is not None,
    }
    unused = sorted(name for name, set_ in given.items() if set_ and name not in _FIELDS[conversation.layout])
    if unused:
        raise EngineError(f"the {conversation.layout} layout does not use {', '.join(unused)}")


def _check_speaker_index(speaker, where: str) -> None:
    if not isinstance(speaker, (int, np.integer)) or isinstance(speaker, bool) or not 0 <= speaker <= MAX_SPEAKER:
        raise EngineError(f"{where}: speaker index {speaker!r} is out of range 0..{MAX_SPEAKER}")


def _clip(clip: AudioClip | None, where: str, allow_empty: bool) -> AudioClip:
    if not isinstance(clip, AudioClip):
        raise EngineError(f"{where}: expected an AudioClip, got {type(clip).__name__}")
    if not allow_empty and clip.codes is not None and clip.frames() == 0:
        raise EngineError(f"{where}: the audio has no frames")
    return clip


# ---- rows ----------------------------------------------------------------------------------


def _require_layout_tokens(layout: str, tokenizer) -> None:
    for token in LAYOUT_TOKENS[layout]:
        if not tokenizer.has_token(token):
            raise EngineError(f"the {layout} layout needs the token {token}, and this tokenizer has none")


def _segment_rows(part: str | AudioClip, tokenizer, index: int) -> np.ndarray:
    if isinstance(part, str):
        ids = tokenizer.encode(part)
        rows = np.zeros((len(ids), 1 + NUM_CODEBOOKS), np.int64)
        rows[:, 0] = ids
        return rows
    codes = _checked_codes(part, tokenizer, f"audio segment {index}")
    return np.concatenate([codes[:1] + tokenizer.semantic_start, codes]).T.copy()


def _checked_codes(clip: AudioClip, tokenizer, where: str) -> np.ndarray:
    where = f"{where} ({clip.path})" if clip.path else where
    if clip.codes is None:
        raise EngineError(f"{where}: the audio has no codes yet; encode it with the codec first")
    codes = np.asarray(clip.codes)
    if codes.ndim != 2 or codes.shape[0] != NUM_CODEBOOKS:
        raise EngineError(f"{where}: codes must have shape [{NUM_CODEBOOKS}, T]; got {list(codes.shape)}")
    if not np.issubdtype(codes.dtype, np.integer):
        raise EngineError(f"{where}: codes must be integers; got {codes.dtype}")
    if codes.size and (codes.min() < 0 or codes.max() >= tokenizer.num_semantic):
        raise EngineError(f"{where}: codes must lie in [0, {tokenizer.num_semantic})")
    return codes.astype(np.int64)
