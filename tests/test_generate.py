"""Generation (engine/generate.py, a batch of one through the decode loop) on a tiny random
checkpoint: caches, prefix cache, stop rules, frame budget, seeds, streaming, timed phases, and
the checked retry loop (case M1)."""

import numpy as np
import pytest
import torch

import engine.step as step_module
from engine.clip import AudioClip
from engine.constants import FRAMES_PER_SECOND
from engine.conversation import Conversation, Reference
from engine.errors import EngineError
from engine.generate import Drama3, default_frame_budget
from engine.sampling import SamplingParams, sample_codebook, sample_main
from engine.testing.checkpoints import write_checkpoint
from engine.text import expected_duration_s

LINE = "<|speaker:0|> Hi there, how are you?"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Drama3:
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0)
    return Drama3.load(folder, device="cpu")


def clip(frames: int, seed: int) -> AudioClip:
    rng = np.random.default_rng(seed)
    codes = np.concatenate([rng.integers(0, 4096, (1, frames)), rng.integers(0, 1024, (9, frames))])
    return AudioClip(codes=codes.astype(np.int64))


def clone(text: str = LINE, reference_seed: int = 1) -> Conversation:
    reference = Reference(0, "A short reference.", clip(12, reference_seed))
    return Conversation(layout="clone", references=(reference,), text=text)


def script_main(monkeypatch, model: Drama3, tokens: list) -> None:
    """Make the main-token draws return `tokens` in order (ints: ids; ('sem', c): band code c)."""
    queue = [model.semantic_start + t[1] if isinstance(t, tuple) else t for t in tokens]

    def scripted(logits, recent, params, generator, candidates):
        drawn = sample_main(
            logits, recent, params, generator, candidates
        )  # keep the real call exercised
        return torch.full_like(drawn, queue.pop(0))

    monkeypatch.setattr(step_module, "sample_main", scripted)


@torch.no_grad()
def test_incremental_decode_equals_full_recompute_over_32_frames(model):
    prompt = model.build_prompt(clone())
    rows = torch.as_tensor(prompt.rows)
    state = model.start_state(rows, prompt.system_rows)
    generator, params = torch.Generator().manual_seed(0), SamplingParams()
    main_logits, head_logits, new_rows = [], [], []
    for _ in range(32):
        logits = model.backbone.main_logits(state.last_hidden[0])[0]
        main_logits.append(logits)
        main = model.semantic_start + logits[1:].argmax()  # always an audio frame
        seen = []

        def sample(head, index, seen=seen):
            seen.append(head[0])
            return sample_codebook(head, params, generator)

        codes = model.tower.decode_frame(
            state.last_hidden, state.last_row, main.view(1), state.tower_cache, sample
        )[0]
        head_logits.append(torch.stack(seen))
        row = torch.cat((main.view(1), codes))
        new_rows.append(row)
        model.step(state, row[None, None])
    full = torch.cat((rows, torch.stack(new_rows)))
    hidden = model.backbone(model.backbone.embed_rows(full), model.backbone.new_cache())
    n = rows.shape[0]
    expected_main = model.backbone.main_logits(hidden[n - 1 : n + 31])
    assert torch.allclose(torch.stack(main_logits), expected_main, atol=1e-4, rtol=1e-4)
    tower_logits = model.tower.prefill(
        hidden[None, :-1],
        full[None, :-1],
        full[None, 1:],
        model.tower.new_cache(),
        with_logits=True,
    )[0, n - 1 :]
    assert torch.allclose(torch.stack(head_logits), tower_logits, atol=1e-4, rtol=1e-4)
    assert (
        state.tower_cache.length == full.shape[0] - 1
        and state.backbone_cache.length == full.shape[0]
    )


def test_prefix_cache_reuse_is_bit_identical_to_recompute(model):
    model.clear_prefix_cache()
    params = SamplingParams()
    first = model.generate(clone(), params, seed=5, max_frames=16)
    assert len(model._prefixes) == 1
    reused = model.generate(
        clone("<|speaker:0|> Another line entirely."), params, seed=6, max_frames=16
    )
    again = model.generate(clone(), params, seed=5, max_frames=16)  # the snapshot was not mutated
    model.use_prefix_cache = False
    try:
        recomputed = model.generate(
            clone("<|speaker:0|> Another line entirely."), params, seed=6, max_frames=16
        )
    finally:
        model.use_prefix_cache = True
    assert len(model._prefixes) == 1
    assert torch.equal(first.codes, again.codes)
    assert torch.equal(reused.codes, recomputed.codes)
    assert reused.frames > 0


def test_a_different_reference_gets_its_own_prefix(model):
    model.clear_prefix_cache()
    params = SamplingParams()
    model.generate(clone(reference_seed=1), params, seed=1, max_frames=2)
    model.generate(clone(reference_seed=2), params, seed=1, max_frames=2)
    assert len(model._prefixes) == 2


def test_same_seed_same_codes_and_new_seed_new_codes(model):
    params = SamplingParams()
    a = model.generate(clone(), params, seed=11, max_frames=12, ignore_eos=True)
    b = model.generate(clone(), params, seed=11, max_frames=12, ignore_eos=True)
    c = model.generate(clone(), params, seed=12, max_frames=12, ignore_eos=True)
    assert torch.equal(a.codes, b.codes)
    assert not torch.equal(a.codes, c.codes)
    assert a.codes.shape == (10, 12) and a.codes.dtype == torch.long
    assert a.seed == 11 and a.params is params and a.stop_reason == "max_frames"
    assert a.layout_version == "reference-bracket-v1"


def test_stops_at_eos_and_drops_a_semantic_zero_frame_before_it(model, monkeypatch):
    script_main(monkeypatch, model, [("sem", 5), ("sem", 0), ("sem", 7), ("sem", 0), model.eos_id])
    take = model.generate(clone(), SamplingParams(), seed=0, max_frames=20)
    assert take.stop_reason == "eos"
    assert take.codes[0].tolist() == [5, 0, 7]
    assert len(take.frame_times_s) == 3


def test_semantic_zero_at_the_budget_is_kept(model, monkeypatch):
    script_main(monkeypatch, model, [("sem", 1), ("sem", 0)])
    take = model.generate(clone(), SamplingParams(), seed=0, max_frames=2)
    assert take.stop_reason == "max_frames"
    assert take.codes[0].tolist() == [1, 0]


def test_eos_first_gives_an_empty_take(model, monkeypatch):
    script_main(monkeypatch, model, [model.eos_id])
    take = model.generate(clone(), SamplingParams(), seed=0, max_frames=5)
    assert take.stop_reason == "eos" and take.codes.shape == (10, 0)


def scene() -> Conversation:
    reference = Reference(0, "A short reference.", clip(12, 1))
    return Conversation(
        layout="scene",
        references=(reference,),
        lines=("<|speaker:0|> First line.", "<|speaker:0|> Second line."),
    )


def test_scene_separators_split_frames_or_stop(model, monkeypatch):
    separator = model.tokenizer.token_id("<|audio_separator|>")
    script_main(monkeypatch, model, [("sem", 1), separator, ("sem", 2), model.eos_id])
    take = model.generate(scene(), SamplingParams(), seed=0, max_frames=10)
    assert (take.stop_reason, take.codes[0].tolist(), take.separator_frames) == ("eos", [1, 2], [1])
    script_main(monkeypatch, model, [("sem", 1), separator, ("sem", 2), model.eos_id])
    take = model.generate(scene(), SamplingParams(), seed=0, max_frames=10, stop_at_separator=True)
    assert (take.stop_reason, take.codes[0].tolist()) == ("separator", [1])


def test_default_budget_covers_twice_the_expected_duration_and_fits_the_context():
    for text in ("Hi.", LINE, "word " * 100):
        expected_frames = expected_duration_s(text) * FRAMES_PER_SECOND
        budget = default_frame_budget(text, prompt_rows=100, context_rows=16384)
        assert budget >= 2 * expected_frames
        assert budget <= 16384 - 100
    assert default_frame_budget("word " * 100, prompt_rows=500, context_rows=2000) == 1500
    with pytest.raises(EngineError, match="context"):
        default_frame_budget("word " * 100, prompt_rows=1000, context_rows=2000)


@pytest.mark.case("M1")
def test_budget_bounds_a_take_that_never_ends(model):
    take = model.generate(
        clone("<|speaker:0|> Hi there."), SamplingParams(), seed=3, ignore_eos=True
    )
    expected = expected_duration_s("<|speaker:0|> Hi there.")
    assert take.stop_reason == "max_frames"
    assert take.frames == model.frame_budget(clone("<|speaker:0|> Hi there."), take.prompt_rows)
    assert 2 * expected <= take.duration_s <= 5 * expected + 3.0


def test_stream_yields_the_frames_of_the_take(model):
    stream = model.stream(clone(), SamplingParams(), seed=9, max_frames=6, ignore_eos=True)
    frames = list(stream)
    take = model.generate(clone(), SamplingParams(), seed=9, max_frames=6, ignore_eos=True)
    assert torch.equal(torch.stack(frames, dim=1), take.codes)
    assert torch.equal(stream.result.codes, take.codes)
    times = stream.result.frame_times_s
    assert len(times) == 6 and times == sorted(times)


def test_a_timed_take_splits_prefill_and_decode(model):
    take = model.generate(
        clone(), SamplingParams(), seed=9, max_frames=4, ignore_eos=True, timed=True
    )
    assert set(take.phase_s) == {"prefill", "decode"} and all(v > 0 for v in take.phase_s.values())


def test_prompt_too_long_for_the_context_is_refused(model):
    with pytest.raises(EngineError, match="context"):
        model.generate(clone(), SamplingParams(), seed=0, max_frames=model.context_rows)


def test_stream_audio_chunks_equal_decoding_the_whole_take(model):
    stream = model.stream_audio(clone(), SamplingParams(), seed=4, chunk_frames=3, max_frames=7)
    chunks = list(stream)
    take = stream.result
    assert take.frames == 7  # this seed does not reach EOS within 7 frames
    assert [len(c) for c in chunks] == [3 * 2048, 3 * 2048, 2048]
    whole = model.decode(take.codes)
    assert np.allclose(np.concatenate(chunks), whole, atol=1e-4)
    assert np.array_equal(take.audio, np.concatenate(chunks))
