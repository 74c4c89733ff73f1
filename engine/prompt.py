"""Conversation → prompt: the segments of a layout, then the frame rows `[N, 11]`.

Everything per layout (version string, provisional flag, special tokens, fields read, body,
extra samplable tokens) comes from its record in `engine.layouts` (docs/internals/layouts.md), and so do
the literal strings (`engine.layouts.STRINGS`). A prompt is first a list of segments (text
literals and audio clips, in order); each literal is then tokenized on its own, because
tokenizing the joined string changes the ids at the seams (docs/internals/model.md §1.4). Text rows are
`[id, 0 × 10]`; an audio frame becomes `[semantic_start + c0, c0, …, c9]` (docs/internals/model.md §4.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.clip import AudioClip
from engine.constants import NUM_CODEBOOKS
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.layouts import Layout, get_layout, system_block


@dataclass(frozen=True)
class Prompt:
    """A built prompt.

    rows: `[N, 11]` int64 frame rows (column 0 the backbone token, 1..10 codes c0..c9).
    system_rows: how many leading rows form the system block (instruction and references);
        they depend only on the references, so their caches can be reused across lines.
    layout, version: the layout name and its version string (`engine.layouts.Layout.version`).
    extra_ids: token ids this layout lets the main token emit besides EOS and the semantic band.
    """

    rows: np.ndarray
    system_rows: int
    layout: str
    version: str
    extra_ids: tuple[int, ...] = ()


def segments(conversation: Conversation) -> list[str | AudioClip]:
    """The exact literal strings and audio clips of the prompt, in order (docs/internals/model.md §4,
    `docs/internals/layouts.md`). Clips need not have codes yet, so prompt sizes can be estimated.
    Raises `EngineError` for text the model must not see (`engine.layouts.check_text`) or a
    malformed conversation."""
    return _build(conversation)[0]


def to_rows(conversation: Conversation, tokenizer) -> np.ndarray:
    """Frame rows `[N, 11]` int64 of a conversation; see `build_prompt`."""
    return build_prompt(conversation, tokenizer).rows


def build_prompt(conversation: Conversation, tokenizer) -> Prompt:
    """Tokenize each literal on its own and turn each audio frame into a row (docs/internals/model.md §4.1).

    tokenizer: an `engine.tokenizer.Drama3Tokenizer`. Raises `EngineError` when text is refused,
    a clip has no codes or bad codes, the tokenizer lacks a token the layout writes, or the
    prompt has fewer than 2 rows.
    """
    parts, system_parts = _build(conversation)
    layout = get_layout(conversation.layout)
    _require_layout_tokens(layout, tokenizer)
    blocks = [_segment_rows(part, tokenizer, index) for index, part in enumerate(parts)]
    rows = np.concatenate(blocks) if blocks else np.zeros((0, 1 + NUM_CODEBOOKS), np.int64)
    if len(rows) < 2:
        raise EngineError(f"a prompt needs at least 2 rows; this one has {len(rows)}")
    system_rows = sum(len(block) for block in blocks[:system_parts])
    return Prompt(
        rows, system_rows, layout.name, layout.version, extra_samplable_ids(conversation, tokenizer)
    )


def extra_samplable_ids(conversation: Conversation, tokenizer) -> tuple[int, ...]:
    """Ids the main token may emit for this layout besides EOS and the semantic band (its
    record's `samplable`: `<|audio_separator|>` for `scene`, nothing otherwise). Raises
    `EngineError` when the tokenizer lacks one of them."""
    layout = get_layout(conversation.layout)
    ids = []
    for token in layout.samplable:
        token_id = tokenizer.token_id(token)
        if token_id is None:
            hint = f"; {layout.hint}" if layout.hint else ""
            raise EngineError(
                f"the {layout.name} layout needs a {token} token, and this tokenizer has none{hint}"
            )
        ids.append(token_id)
    return tuple(ids)


# ---- segments ------------------------------------------------------------------------------


def _build(conversation: Conversation) -> tuple[list[str | AudioClip], int]:
    """(segments, number of leading segments that form the system block)."""
    layout = get_layout(conversation.layout)
    _refuse_unused_fields(conversation, layout)
    system = system_block(conversation)
    body = layout.body(conversation)
    return system + body, len(system)


def _refuse_unused_fields(conversation: Conversation, layout: Layout) -> None:
    given = {
        "text": conversation.text != "",
        "context": bool(conversation.context),
        "note": conversation.note is not None,
        "lines": bool(conversation.lines),
        "descriptions": bool(conversation.descriptions),
        "prefix": conversation.prefix is not None,
        "suffix": conversation.suffix is not None,
        "lookahead": conversation.lookahead is not None,
    }
    unused = sorted(name for name, set_ in given.items() if set_ and name not in layout.fields)
    if unused:
        raise EngineError(f"the {layout.name} layout does not use {', '.join(unused)}")


# ---- rows ----------------------------------------------------------------------------------


def _require_layout_tokens(layout: Layout, tokenizer) -> None:
    for token in layout.tokens:
        if not tokenizer.has_token(token):
            raise EngineError(
                f"the {layout.name} layout needs the token {token}, and this tokenizer has none"
            )


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
        raise EngineError(
            f"{where}: codes must have shape [{NUM_CODEBOOKS}, T]; got {list(codes.shape)}"
        )
    if not np.issubdtype(codes.dtype, np.integer):
        raise EngineError(f"{where}: codes must be integers; got {codes.dtype}")
    if codes.size and (codes.min() < 0 or codes.max() >= tokenizer.num_semantic):
        raise EngineError(f"{where}: codes must lie in [0, {tokenizer.num_semantic})")
    return codes.astype(np.int64)
