"""Sampling rules of docs/internals/model.md §3.6 pinned on hand-made logits, plus mlx-audio's port as an oracle."""

import math

import pytest
import torch

from engine.errors import EngineError
from engine.sampling import (
    MainCandidates,
    SamplingParams,
    kept_mask,
    make_generator,
    ras_window,
    sample_codebook,
    sample_main,
    sample_top_k_top_p,
)

SEMANTIC_START, CODES, EOS, SEPARATOR = 1000, 64, 900, 901


def logits_of(*probs):
    return torch.tensor([math.log(p) for p in probs])


def kept(logits, **kwargs):
    return kept_mask(logits, **kwargs).nonzero().flatten().tolist()


@pytest.fixture
def candidates():
    return MainCandidates.build(
        SEMANTIC_START, SEMANTIC_START + CODES - 1, EOS, extra_ids=[SEPARATOR]
    )


def test_crossing_token_kept_for_main_dropped_for_codebooks():
    logits = logits_of(0.5, 0.3, 0.15, 0.05)  # cumulative 0.5, 0.8, 0.95, 1.0
    assert kept(logits, temperature=1.0, top_k=None, top_p=0.7, keep_crossing=True) == [0, 1]
    assert kept(logits, temperature=1.0, top_k=None, top_p=0.7, keep_crossing=False) == [0]
    assert kept(logits, temperature=1.0, top_k=None, top_p=0.9, keep_crossing=True) == [0, 1, 2]
    assert kept(logits, temperature=1.0, top_k=None, top_p=0.9, keep_crossing=False) == [0, 1]


def test_kept_set_follows_rank_not_position():
    logits = logits_of(0.05, 0.15, 0.5, 0.3)
    assert kept(logits, temperature=1.0, top_k=None, top_p=0.7, keep_crossing=True) == [2, 3]


def test_rank_zero_is_always_kept():
    logits = logits_of(0.4, 0.35, 0.25)
    for crossing in (True, False):
        assert kept(logits, temperature=1.0, top_k=None, top_p=0.01, keep_crossing=crossing) == [0]


def test_top_p_is_measured_on_the_full_distribution_before_top_k():
    # Renormalised over the top 2 the second token would cross 0.75 (0.571 + 0.429); over the
    # full distribution it does not (0.4 + 0.3 = 0.7).
    logits = logits_of(0.4, 0.3, 0.2, 0.1)
    assert kept(logits, temperature=1.0, top_k=2, top_p=0.75, keep_crossing=False) == [0, 1]


def test_temperature_applies_before_top_p():
    logits = logits_of(0.5, 0.3, 0.15, 0.05)
    # At T = 2 the distribution flattens (≈ 0.37, 0.29, 0.20, 0.12): three tokens fit under 0.9.
    assert kept(logits, temperature=2.0, top_k=None, top_p=0.9, keep_crossing=False) == [0, 1, 2]


def test_codebook_top_k_is_capped_at_30():
    logits = torch.zeros(4096)
    params = SamplingParams(top_p=1.0)
    assert params.codebook_k == 30
    assert kept_mask(logits, 1.0, params.codebook_k, 1.0, False).sum() == 30
    assert SamplingParams(top_k=10).codebook_k == 10
    assert SamplingParams(top_k=500).codebook_k == 30
    draws = sample_codebook(torch.linspace(0, 1, 4096).repeat(2000, 1), params, make_generator(0))
    assert draws.min() >= 4096 - 30  # the 30 largest logits sit at the end


def test_main_top_k_uncapped_by_default_and_applied_when_set(candidates):
    logits = torch.zeros(len(candidates.ids))
    assert kept_mask(logits, 1.0, None, 1.0, True).sum() == len(candidates.ids)
    assert kept_mask(logits, 1.0, 5, 1.0, True).sum() == 5


def test_draws_follow_the_renormalised_kept_probabilities():
    logits = logits_of(0.5, 0.3, 0.15, 0.05).repeat(40000, 1)
    main = sample_top_k_top_p(logits, 1.0, None, 0.9, True, make_generator(1))
    frequencies = torch.bincount(main, minlength=4).float() / len(main)
    expected = torch.tensor([0.5, 0.3, 0.15, 0.0]) / 0.95
    assert torch.allclose(frequencies, expected, atol=0.01)
    heads = sample_top_k_top_p(logits, 1.0, None, 0.9, False, make_generator(1))
    frequencies = torch.bincount(heads, minlength=4).float() / len(heads)
    assert torch.allclose(frequencies, torch.tensor([0.625, 0.375, 0.0, 0.0]), atol=0.01)


def test_temperature_zero_is_greedy(candidates):
    params = SamplingParams(temperature=0.0, top_p=1.0)
    no_history = torch.full((16,), -1)
    for seed in range(20):
        logits = torch.randn(len(candidates.ids), generator=torch.Generator().manual_seed(seed))
        token = sample_main(logits, no_history, params, make_generator(seed), candidates)
        assert token == candidates.ids[logits.argmax()]
        head = torch.randn(4096, generator=torch.Generator().manual_seed(seed))
        assert sample_codebook(head, params, make_generator(seed)) == head.argmax()


def test_greedy_survives_huge_logits():
    logits = torch.tensor([1e4, 1e4 - 1, -1e4])
    assert sample_top_k_top_p(logits, 0.0, None, 0.9, True, make_generator(0)) == 0


def split_draws(logits, params, seed):
    """The first and the RAS draw exactly as `sample_main` runs them on one generator."""
    generator = make_generator(seed)
    first = sample_top_k_top_p(
        logits, params.temperature, params.top_k, params.top_p, True, generator
    )
    retry = sample_top_k_top_p(
        logits, params.ras_temperature, params.ras_top_k, params.ras_top_p, True, generator
    )
    return first, retry


def peaked_logits(candidates, token):
    """Greedy picks `token`; the RAS draw (T = 1, top-30, 0.95) spreads over many codes."""
    logits = torch.zeros(len(candidates.ids))
    logits[candidates.ids.tolist().index(token)] = 0.5
    return logits


def test_ras_replaces_a_repeated_semantic_token(candidates):
    params = SamplingParams(temperature=0.0)
    logits = peaked_logits(candidates, SEMANTIC_START + 7)
    recent = ras_window(torch.tensor([5, 6, SEMANTIC_START + 7, 8]))
    outcomes = []
    for seed in range(50):
        first, retry = split_draws(logits, params, seed)
        assert candidates.ids[first] == SEMANTIC_START + 7
        token = sample_main(logits, recent, params, make_generator(seed), candidates)
        assert token == candidates.ids[retry]
        outcomes.append(int(token))
    assert sum(t != SEMANTIC_START + 7 for t in outcomes) > 35


def test_ras_keeps_a_new_semantic_token(candidates):
    params = SamplingParams(temperature=0.0)
    logits = peaked_logits(candidates, SEMANTIC_START + 7)
    recent = ras_window(torch.tensor([SEMANTIC_START + 6, SEMANTIC_START + 8]))
    for seed in range(10):
        assert (
            sample_main(logits, recent, params, make_generator(seed), candidates)
            == SEMANTIC_START + 7
        )


@pytest.mark.parametrize("token", [EOS, SEPARATOR])
def test_ras_never_replaces_eos_or_extra_tokens(candidates, token):
    params = SamplingParams(temperature=0.0)
    logits = peaked_logits(candidates, token)
    recent = ras_window(torch.tensor([token] * 16))
    for seed in range(10):
        assert sample_main(logits, recent, params, make_generator(seed), candidates) == token


def test_ras_window_is_the_last_16_main_tokens(candidates):
    params = SamplingParams(temperature=0.0)
    logits = peaked_logits(candidates, SEMANTIC_START + 7)
    old_repeat = torch.tensor([SEMANTIC_START + 7] + [SEMANTIC_START + 1] * 16)
    assert ras_window(old_repeat).tolist() == [SEMANTIC_START + 1] * 16
    assert (
        sample_main(logits, ras_window(old_repeat), params, make_generator(0), candidates)
        == SEMANTIC_START + 7
    )
    # A longer window passed in is cut to the last `ras_window` tokens.
    assert (
        sample_main(logits, old_repeat, params, make_generator(0), candidates) == SEMANTIC_START + 7
    )
    short = ras_window(torch.tensor([SEMANTIC_START + 7]))
    assert short.tolist() == [-1] * 15 + [SEMANTIC_START + 7]
    first, retry = split_draws(logits, params, 3)
    assert (
        sample_main(logits, short, params, make_generator(3), candidates) == candidates.ids[retry]
    )


def test_both_draws_always_run(candidates):
    """Whether or not RAS fires, a step consumes the same randomness."""
    params = SamplingParams()
    logits = torch.randn(len(candidates.ids), generator=torch.Generator().manual_seed(0))
    a, b = make_generator(9), make_generator(9)
    sample_main(logits, ras_window(torch.tensor([-1])), params, a, candidates)
    sample_main(logits, ras_window(candidates.ids[:16]), params, b, candidates)
    assert torch.equal(a.get_state(), b.get_state())


def test_ras_off(candidates):
    params = SamplingParams(temperature=0.0, ras_window=0)
    logits = peaked_logits(candidates, SEMANTIC_START + 7)
    recent = ras_window(torch.tensor([SEMANTIC_START + 7]))
    assert sample_main(logits, recent, params, make_generator(0), candidates) == SEMANTIC_START + 7


def test_same_seed_same_tokens_and_different_seeds_differ(candidates):
    params = SamplingParams()
    logits = torch.randn(8, len(candidates.ids), generator=torch.Generator().manual_seed(2))
    heads = torch.randn(8, 4096, generator=torch.Generator().manual_seed(3))
    recent = ras_window(torch.zeros(8, 0, dtype=torch.int64))

    def run(seed):
        generator = make_generator(seed)
        return [
            sample_main(logits, recent, params, generator, candidates).tolist()
            + sample_codebook(heads, params, generator).tolist()
            for _ in range(5)
        ]

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_batched_rows_are_sampled_independently(candidates):
    logits = torch.full((3, len(candidates.ids)), -30.0)
    logits[0, 1], logits[1, 0], logits[2, CODES + 1] = 0.0, 0.0, 0.0
    recent = ras_window(torch.zeros(3, 0, dtype=torch.int64))
    tokens = sample_main(logits, recent, SamplingParams(), make_generator(0), candidates)
    assert tokens.tolist() == [SEMANTIC_START, EOS, SEPARATOR]


def test_candidates_layout_and_checks(candidates):
    ids = candidates.ids.tolist()
    assert ids == [EOS, *range(SEMANTIC_START, SEMANTIC_START + CODES), SEPARATOR]
    assert candidates.is_semantic(
        torch.tensor([EOS, SEMANTIC_START, SEMANTIC_START + CODES])
    ).tolist() == [False, True, False]
    for bad in ([EOS], [SEMANTIC_START + 3], [SEPARATOR, SEPARATOR]):
        with pytest.raises(EngineError):
            MainCandidates.build(SEMANTIC_START, SEMANTIC_START + CODES - 1, EOS, extra_ids=bad)
    with pytest.raises(EngineError, match="candidates"):
        sample_main(
            torch.zeros(5),
            ras_window(torch.tensor([1])),
            SamplingParams(),
            make_generator(0),
            candidates,
        )


def test_candidates_from_the_tokenizer():
    from engine.tokenizer import Drama3Tokenizer, build_tiny_tokenizer

    tok = Drama3Tokenizer(build_tiny_tokenizer())
    built = MainCandidates.from_tokenizer(tok)
    assert built.ids.shape == (4097,)
    assert built.ids[0] == tok.eos_id and built.ids[1] == tok.semantic_start
    assert built.ids[-1] == tok.semantic_end


def test_params_defaults_and_validation():
    params = SamplingParams()
    assert (params.temperature, params.top_p, params.top_k, params.codebook_top_k) == (
        1.0,
        0.9,
        None,
        30,
    )
    assert (params.ras_window, params.ras_temperature, params.ras_top_k, params.ras_top_p) == (
        16,
        1.0,
        30,
        0.95,
    )
    assert SamplingParams.from_dict(params.to_dict()) == params
    bad = [
        dict(temperature=-0.1),
        dict(temperature=float("nan")),
        dict(temperature=float("inf")),
        dict(top_p=0.0),
        dict(top_p=1.5),
        dict(top_k=0),
        dict(top_k=2.5),
        dict(top_k=True),
        dict(codebook_top_k=0),
        dict(ras_window=-1),
        dict(ras_top_p=0),
        dict(temperature="1"),
    ]
    for values in bad:
        with pytest.raises(EngineError):
            SamplingParams(**values)
    with pytest.raises(EngineError, match="unknown"):
        SamplingParams.from_dict({"repetition_penalty": 1.1})


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, True])
def test_bad_seed(seed):
    with pytest.raises(EngineError):
        make_generator(seed)


def test_kept_sets_match_mlx_audio(monkeypatch):
    """mlx-audio's Drama 3 sampler on random logits: the same kept set, rank by rank."""
    mx = pytest.importorskip("mlx.core")
    import numpy as np
    from mlx_audio.tts.models.fish_drama3 import drama3

    captured = {}

    def capture(masked, *args, **kwargs):
        captured["values"] = np.array(masked)
        return mx.zeros(masked.shape[:-1], dtype=mx.int32)

    monkeypatch.setattr(drama3.mx.random, "categorical", capture)
    rng = np.random.default_rng(0)
    for trial in range(60):
        vocab = int(rng.choice([4096, 4097, 50]))
        logits = (rng.standard_normal(vocab) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)
        temperature = float(rng.choice([0.0, 0.3, 0.7, 1.0, 1.5]))
        top_k = [None, 30, 5, 1][trial % 4]
        top_p = float(rng.choice([0.1, 0.5, 0.9, 0.95, 1.0]))
        crossing = bool(trial % 2)
        drama3.sample_top_k_top_p(
            mx.array(logits[None]), temperature, top_k, top_p, keep_crossing=crossing
        )
        theirs = captured["values"][0]
        ours = kept_mask(torch.from_numpy(logits), temperature, top_k, top_p, crossing)
        assert ours.sum() == np.isfinite(theirs).sum(), (trial, temperature, top_k, top_p, crossing)
        scaled = torch.from_numpy(logits) / max(temperature, 1e-5)
        ours_sorted = torch.sort(scaled[ours], descending=True).values - scaled.max()
        assert np.allclose(ours_sorted.numpy(), theirs[np.isfinite(theirs)], rtol=1e-5, atol=1e-4)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_matches_itself_and_the_cpu_kept_sets(candidates):
    params = SamplingParams()
    logits = torch.randn(4, len(candidates.ids), generator=torch.Generator().manual_seed(5))
    recent = ras_window(torch.zeros(4, 0, dtype=torch.int64))
    cuda = logits.cuda()
    cuda_candidates = MainCandidates.build(
        SEMANTIC_START, SEMANTIC_START + CODES - 1, EOS, [SEPARATOR], device="cuda"
    )
    first = sample_main(cuda, recent.cuda(), params, make_generator(4, "cuda"), cuda_candidates)
    again = sample_main(cuda, recent.cuda(), params, make_generator(4, "cuda"), cuda_candidates)
    assert torch.equal(first, again)
    assert torch.equal(
        kept_mask(cuda, 1.0, None, 0.9, True).cpu(), kept_mask(logits, 1.0, None, 0.9, True)
    )


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    vocab=st.integers(2, 300),
    temperature=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    top_k=st.one_of(st.none(), st.integers(1, 40)),
    top_p=st.floats(0.05, 1.0),
    crossing=st.booleans(),
)
def test_kept_set_is_a_rank_prefix_holding_the_best_and_draws_stay_inside(
    seed, vocab, temperature, top_k, top_p, crossing
):
    logits = torch.randn(vocab, generator=torch.Generator().manual_seed(seed)) * 4
    mask = kept_mask(logits, temperature, top_k, top_p, crossing)
    order = torch.sort(logits, descending=True, stable=True).indices
    ranked = mask[order]
    count = int(ranked.sum())
    assert ranked[:count].all() and not ranked[count:].any()
    assert mask[logits.argmax()]
    assert count <= (vocab if top_k is None else min(top_k, vocab))
    draws = sample_top_k_top_p(
        logits.repeat(64, 1), temperature, top_k, top_p, crossing, make_generator(seed)
    )
    assert mask[draws].all()
