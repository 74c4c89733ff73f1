"""The conversation layouts: one `Layout` record each, in `LAYOUTS` (docs/internals/layouts.md).

A record holds everything `engine.prompt` needs to know about a layout: its version string
(recorded with every take), whether it is provisional (no released code builds it), the special
tokens it writes, the conversation fields it reads, the tokens its main token may emit besides
EOS and the semantic band, and the function that writes its body (the segments after the shared
system block). Adding a layout is adding one record to `LAYOUTS` (plus, if the CLI builds it,
its compile mode in `drama_cli.compile.modes`).

The literal strings of every layout (`STRINGS`), the shared pieces the bodies are made of
(system block, user turn, context exchange) and the caller-text rules (`check_text`) live here
too, so that each body builder can be read next to its record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.clip import AudioClip
from engine.constants import MAX_SPEAKER, NUM_CODEBOOKS
from engine.constants import SPEAKER_TAG as _SPEAKER_TAG
from engine.errors import EngineError
from engine.text import PHONEME_PAIR

if TYPE_CHECKING:  # conversations are read, never built, here
    from engine.conversation import Conversation

Segment = str | AudioClip

STRINGS = {
    # reference-bracket-v1, docs/internals/model.md §4.1 (verified)
    "system_open": "<|im_start|>system\n",
    "instruction": "convert the provided text to speech",
    "instruction_with_references": "convert the provided text to speech reference to the following:",
    "reference": "\n\n[Reference {n}]\nText: {transcript}\nSpeech: ",
    "turn_end": "<|im_end|>\n",
    "user_open": "<|im_start|>user\n",
    "assistant_voice": "<|im_start|>assistant\n<|voice|>",
    "default_speaker_prefix": "<|speaker:0|> ",
    # provisional layouts (launch teardown article; docs/internals/model.md §4.3 and appendix)
    "character": "\n\n{tag} {description}",
    "note": "[{note}]",
    "audio_separator": "<|audio_separator|>",
    "fim_suffix": "<|fim_suffix|>",
    "fim_prefix": "<|fim_prefix|>",
    "end_of_turn": "<|endofturn|>",
    # a pronunciation from the script's lexicon (docs/guide/pronunciation.md; token ids from the tokenizer)
    "phoneme_start": "<|phoneme_start|>",
    "phoneme_end": "<|phoneme_end|>",
}

# The special tokens every layout writes (system block, user turn, assistant turn).
BASE_TOKENS = ("<|im_start|>", "<|im_end|>", "<|voice|>")

# Unicode White_Space (str.strip() would also strip U+001C..U+001F, which are not).
WHITE_SPACE = "".join(
    chr(c)
    for c in (
        *range(0x09, 0x0E),
        0x20,
        0x85,
        0xA0,
        0x1680,
        *range(0x2000, 0x200B),
        0x2028,
        0x2029,
        0x202F,
        0x205F,
        0x3000,
    )
)
_ANY_SPEAKER_MARK = re.compile(r"<\|speaker")
_PHONEME_PAIR = re.compile(PHONEME_PAIR)


@dataclass(frozen=True)
class Layout:
    """One conversation layout.

    name: what `Conversation.layout` holds. version: the version string recorded with every
        take (bumped whenever the layout's strings change).
    body: `Conversation -> [str | AudioClip]`, the segments after the system block; raises
        `EngineError` for a conversation the layout cannot voice.
    fields: the `Conversation` fields the layout reads besides references (`text`, `context`,
        `note`, `lines`, `descriptions`, `prefix`, `suffix`, `lookahead`); any other field set
        is refused, so nothing the caller meant is dropped silently.
    tokens: the special tokens the layout writes; each must be one token of the tokenizer.
    samplable: tokens the main token may emit besides EOS and the semantic band.
    provisional: no released code builds the layout (its strings follow third-party notes).
    hint: what to suggest when the tokenizer lacks a samplable token.
    """

    name: str
    version: str
    body: Callable[[Conversation], list[Segment]]
    fields: frozenset[str]
    tokens: tuple[str, ...] = BASE_TOKENS
    samplable: tuple[str, ...] = ()
    provisional: bool = False
    hint: str = ""


def get_layout(name: str) -> Layout:
    """The record of layout `name`. Raises `EngineError` for an unknown layout."""
    if name not in LAYOUTS:
        raise EngineError(f"unknown layout {name!r}; expected one of {', '.join(LAYOUTS)}")
    return LAYOUTS[name]


# ---- caller text ---------------------------------------------------------------------------


def check_text(text: str, where: str, phonemes: bool = False) -> None:
    """Refuse text the model must not see (docs/internals/model.md §4.1): empty or White_Space-only text (speaker
    tags alone count as empty), structural tokens, and speaker tags other than `<|speaker:N|>`
    with N in 0..15 written without leading zeros. With `phonemes` (the text a turn voices), the
    phoneme tokens may appear as whole pairs around plain phoneme text,
    `<|phoneme_start|>HH AY1<|phoneme_end|>` (docs/guide/pronunciation.md); anywhere else they are
    refused like every structural token. Raises `EngineError` naming `where`."""
    if not isinstance(text, str):
        raise EngineError(f"{where}: text must be a string, not {type(text).__name__}")
    outside = _PHONEME_PAIR.sub(" ", text) if phonemes else text
    for token in STRUCTURAL_TOKENS:
        if token in outside:
            raise EngineError(f"{where}: text must not contain {token}")
    for mark in _ANY_SPEAKER_MARK.finditer(text):
        tag = _SPEAKER_TAG.match(text, mark.start())
        if tag is None or int(tag.group(1)) > MAX_SPEAKER:
            raise EngineError(
                f"{where}: speaker tags run from <|speaker:0|> to <|speaker:{MAX_SPEAKER}|> "
                f"without leading zeros; found {text[mark.start() : mark.start() + 16]!r}"
            )
    if not _SPEAKER_TAG.sub("", text).strip(WHITE_SPACE):
        raise EngineError(f"{where}: text is empty")


def with_speaker_tag(text: str) -> str:
    """Text that starts (after white space) with a speaker tag: speaker 0 by default (docs/internals/model.md §4.1)."""
    if _SPEAKER_TAG.match(text.lstrip(WHITE_SPACE)):
        return text
    return STRINGS["default_speaker_prefix"] + text


def split_leading_tag(text: str) -> tuple[str, str]:
    """(tag, rest) of text that starts (after white space) with a speaker tag, the white space
    before the tag moved after it; ("", text) when it starts with none (docs/internals/model.md §4.1)."""
    body = text.lstrip(WHITE_SPACE)
    tag = _SPEAKER_TAG.match(body)
    if tag is None:
        return "", text
    return tag.group(0), text[: len(text) - len(body)] + body[tag.end() :]


def _reference_transcript(transcript: str | None, speaker: int, where: str) -> str:
    tag = f"<|speaker:{speaker}|>"
    if transcript is None:
        return tag
    check_text(transcript, where)
    body = transcript.lstrip(WHITE_SPACE)
    if not _SPEAKER_TAG.match(body):
        return f"{tag} {transcript}"
    found, rest = split_leading_tag(transcript)
    if found != tag:
        raise EngineError(
            f"{where}: the transcript starts with {found} but the reference is speaker {speaker}"
        )
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
    tag, rest = split_leading_tag(with_speaker_tag(text))
    return f"{tag} {STRINGS['note'].format(note=body)}{rest}"


# ---- shared pieces -------------------------------------------------------------------------


def system_block(conversation: Conversation) -> list[Segment]:
    """The system block every layout opens with: instruction, character descriptions,
    references. It depends only on those, so its rows can be cached across lines."""
    references = conversation.references
    parts: list[Segment] = [STRINGS["system_open"]]
    parts.append(STRINGS["instruction_with_references" if references else "instruction"])
    for speaker, description in conversation.descriptions:
        _check_speaker_index(speaker, "description")
        check_text(description, f"description of speaker {speaker}")
        parts.append(
            STRINGS["character"].format(tag=f"<|speaker:{speaker}|>", description=description)
        )
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


def _context_turns(conversation: Conversation) -> list[Segment]:
    parts: list[Segment] = []
    for n, exchange in enumerate(conversation.context, 1):
        where = f"context turn {n}"
        check_text(exchange.text, where, phonemes=True)
        parts += _user_turn(with_speaker_tag(exchange.text))
        parts += [
            STRINGS["assistant_voice"],
            _clip(exchange.clip, where, allow_empty=False),
            STRINGS["turn_end"],
        ]
    return parts


def _target(conversation: Conversation) -> str:
    check_text(conversation.text, "text", phonemes=True)
    return with_speaker_tag(conversation.text)


def _check_speaker_index(speaker, where: str) -> None:
    if (
        not isinstance(speaker, (int, np.integer))
        or isinstance(speaker, bool)
        or not 0 <= speaker <= MAX_SPEAKER
    ):
        raise EngineError(f"{where}: speaker index {speaker!r} is out of range 0..{MAX_SPEAKER}")


def _clip(clip: AudioClip | None, where: str, allow_empty: bool) -> AudioClip:
    if not isinstance(clip, AudioClip):
        raise EngineError(f"{where}: expected an AudioClip, got {type(clip).__name__}")
    if not allow_empty and clip.codes is not None and clip.frames() == 0:
        raise EngineError(f"{where}: the audio has no frames")
    return clip


# ---- bodies --------------------------------------------------------------------------------


def _clone_body(conversation: Conversation) -> list[Segment]:
    return [*_user_turn(_target(conversation)), STRINGS["assistant_voice"]]


def _history_body(conversation: Conversation) -> list[Segment]:
    return [*_context_turns(conversation), *_clone_body(conversation)]


def _revise_body(conversation: Conversation) -> list[Segment]:
    if not conversation.context:
        raise EngineError("the revise layout needs at least one earlier take as context")
    check_text(conversation.text, "text", phonemes=True)
    text = _with_note(conversation.text, conversation.note, "text")
    return [*_context_turns(conversation), *_user_turn(text), STRINGS["assistant_voice"]]


def _scene_body(conversation: Conversation) -> list[Segment]:
    if not conversation.lines:
        raise EngineError("the scene layout needs at least one line")
    lines: list[str] = []
    for n, line in enumerate(conversation.lines, 1):
        check_text(line, f"scene line {n}", phonemes=True)
        if lines:
            lines.append(STRINGS["audio_separator"])
        lines.append(with_speaker_tag(line))
    return [*_user_turn(*lines), STRINGS["assistant_voice"]]


def _infill_body(conversation: Conversation) -> list[Segment]:
    if conversation.prefix is None and conversation.suffix is None:
        raise EngineError("the infill layout needs the audio before or after the edited span")
    empty = AudioClip(codes=np.zeros((NUM_CODEBOOKS, 0), np.int64))
    suffix = _clip(conversation.suffix or empty, "infill suffix", allow_empty=True)
    prefix = _clip(conversation.prefix or empty, "infill prefix", allow_empty=True)
    return [
        *_user_turn(_target(conversation)),
        STRINGS["assistant_voice"],
        STRINGS["fim_suffix"],
        suffix,
        STRINGS["fim_prefix"],
        prefix,
    ]


def _stream_body(conversation: Conversation) -> list[Segment]:
    texts = [_target(conversation), STRINGS["end_of_turn"]]
    if conversation.lookahead is not None:
        check_text(conversation.lookahead, "lookahead", phonemes=True)
        texts.append(with_speaker_tag(conversation.lookahead))
    return [*_context_turns(conversation), *_user_turn(*texts), STRINGS["assistant_voice"]]


# ---- the registry --------------------------------------------------------------------------

LAYOUTS: dict[str, Layout] = {
    layout.name: layout
    for layout in (
        Layout("clone", "reference-bracket-v1", _clone_body, frozenset({"text"})),
        Layout(
            "history", "reference-bracket-history-v1", _history_body, frozenset({"text", "context"})
        ),
        Layout(
            "revise",
            "revise-note-provisional-v1",
            _revise_body,
            frozenset({"text", "context", "note"}),
            provisional=True,
        ),
        Layout(
            "scene",
            "scene-separator-provisional-v1",
            _scene_body,
            frozenset({"lines", "descriptions"}),
            tokens=(*BASE_TOKENS, STRINGS["audio_separator"]),
            samplable=(STRINGS["audio_separator"],),
            provisional=True,
            hint="render the scene line by line (history) instead",
        ),
        Layout(
            "infill",
            "infill-fim-provisional-v1",
            _infill_body,
            frozenset({"text", "prefix", "suffix"}),
            tokens=(*BASE_TOKENS, STRINGS["fim_suffix"], STRINGS["fim_prefix"]),
            provisional=True,
        ),
        Layout(
            "stream",
            "stream-endofturn-provisional-v1",
            _stream_body,
            frozenset({"text", "context", "lookahead"}),
            tokens=(*BASE_TOKENS, STRINGS["end_of_turn"]),
            provisional=True,
        ),
    )
}

# Written only by the prompt builder (docs/internals/model.md §4.1, plus every layout's own tokens): caller text
# holding one would inject conversation structure or audio rows.
STRUCTURAL_TOKENS = tuple(
    dict.fromkeys(
        (
            "<|im_start|>",
            "<|im_end|>",
            "<|voice|>",
            "<|text|>",
            "<|interleave|>",
            "<|semantic:",
            "<|endoftext|>",
            "<|pad|>",
            "<|audio_separator|>",
            "<|endofturn|>",
            "<|fim_prefix|>",
            "<|fim_middle|>",
            "<|fim_suffix|>",
            "<|fim_pad|>",
            STRINGS["phoneme_start"],
            STRINGS["phoneme_end"],
            *(
                token
                for layout in LAYOUTS.values()
                for token in (*layout.tokens, *layout.samplable)
            ),
        )
    )
)
