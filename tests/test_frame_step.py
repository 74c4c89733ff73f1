"""The static frame step (engine/frame_step.py) on the tiny preset: same greedy codes as the
eager loop, no host reads inside the step, one graph for torch.compile(fullgraph=True) without
breaks or recompiles over 64 frames, seeded reproducibility, and counter-based draws that
follow the same distribution as the generator-based sampler."""

import pytest
import torch
from torch._dynamo.utils import counters

from drama_cli.backends.registry import make_backend
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.frame_step import StaticDecoder, decode_frame, static_capacity
from engine.generate import Drama3
from engine.sampling import CounterRace, SamplingParams, kept_mask, sample_top_k_top_p
from engine.testing.checkpoints import write_checkpoint
from engine.testing.dispatch import OpCounter

GREEDY = SamplingParams(temperature=0.0, ras_window=0)  # RAS would redraw at temperature 1


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Drama3:
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0, with_codec=False)
    return Drama3.load(folder, device="cpu")


def line(text: str = "Hi there, how are you?") -> Conversation:
    return Conversation(layout="clone", references=(), text=f"<|speaker:0|> {text}")


def take(model: Drama3, mode: str, params=GREEDY, seed: int = 0, frames: int = 16, text: str = "Hi there"):
    model.set_decode_mode(mode)
    try:
        return model.generate(line(text), params, seed=seed, max_frames=frames, ignore_eos=True)
    finally:
        model.set_decode_mode("eager")


def loaded_decoder(model: Drama3, params=GREEDY, frames: int = 64) -> StaticDecoder:
    prompt = model.build_prompt(line())
    rows = torch.as_tensor(prompt.rows)
    state = model.start_state(rows, prompt.system_rows)
    decoder = StaticDecoder(model, static_capacity(state.rows + frames + 1), params, (), True)
    decoder.load(state, rows[:, 0], 0, frames)
    return decoder


def test_static_greedy_codes_equal_the_eager_loop(model):
    eager, static = take(model, "eager"), take(model, "static")
    assert static.frames == eager.frames == 16
    assert torch.equal(static.codes, eager.codes)


def test_a_reused_decoder_forgets_the_previous_take(model):
    take(model, "static", frames=8, text="A much longer line than the next one, to fill the caches.")
    model.set_decode_mode("static")
    try:  # the same decoder (same capacity and settings) now holds a shorter prompt
        static = model.generate(line("Hi there"), GREEDY, seed=0, max_frames=8, ignore_eos=True)
    finally:
        model.set_decode_mode("eager")
    eager = take(model, "eager", frames=8)
    assert torch.equal(static.codes, eager.codes)


def test_the_step_reads_nothing_back(model):
    decoder = loaded_decoder(model)
    with torch.no_grad(), OpCounter() as ops:
        decoder.step()
        decoder.step()
    assert ops.syncs == 0
    assert ops.total > 100  # the step really ran
    assert int(decoder.frame_index) == 2 and int(decoder.position) == decoder.model.build_prompt(line()).rows.shape[0] + 2


def test_the_step_traces_as_one_graph(model):
    decoder = loaded_decoder(model)
    with torch.no_grad():
        explained = torch._dynamo.explain(decode_frame)(decoder)
    assert explained.graph_break_count == 0
    assert explained.graph_count == 1


@pytest.mark.slow
def test_no_recompiles_over_64_frames_and_same_codes(model):
    """Sampled, not greedy: the compiled step must also draw the same counter-based noise."""
    reference = loaded_decoder(model, SamplingParams())
    decoder = loaded_decoder(model, SamplingParams())
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(decode_frame, fullgraph=True, dynamic=False, backend="aot_eager")
    with torch.no_grad():
        for _ in range(64):
            compiled(decoder)
            decode_frame(reference)
    assert counters["stats"]["unique_graphs"] == 1
    assert counters["stats"]["calls_captured"] > 0
    assert int(decoder.frame_index) == 64
    assert torch.equal(decoder.frames[:64], reference.frames[:64])


@pytest.mark.parametrize("mode", ["eager", "static"])
def test_sampled_takes_repeat_from_their_seed(model, mode):
    params = SamplingParams()
    first, again = take(model, mode, params, seed=7, frames=12), take(model, mode, params, seed=7, frames=12)
    other = take(model, mode, params, seed=8, frames=12)
    assert torch.equal(first.codes, again.codes)
    assert not torch.equal(first.codes, other.codes)


def test_counter_draws_follow_the_generator_sampler():
    """Chi-square test of homogeneity between the codes drawn by the two noise sources on the
    same logits (main-token settings: top-p 0.9, crossing token kept)."""
    logits = torch.randn(64, generator=torch.Generator().manual_seed(0)) * 1.5
    draws = 4000
    race, generator = CounterRace(123), torch.Generator().manual_seed(123)
    counter_codes = torch.stack([sample_top_k_top_p(logits, 1.0, None, 0.9, True, race) for _ in range(draws)])
    generator_codes = torch.stack([sample_top_k_top_p(logits, 1.0, None, 0.9, True, generator)
                                   for _ in range(draws)])
    a = torch.bincount(counter_codes, minlength=64).double()
    b = torch.bincount(generator_codes, minlength=64).double()
    used = (a + b) > 0
    a, b = a[used], b[used]
    expected_a, expected_b = (a + b) / 2, (a + b) / 2
    chi2 = (((a - expected_a) ** 2 / expected_a) + ((b - expected_b) ** 2 / expected_b)).sum()
    dof = used.sum().item() - 1
    p_value = torch.special.gammaincc(torch.tensor(dof / 2, dtype=torch.double), chi2 / 2).item()
    assert dof >= 10  # many codes in play, so the test has power
    assert p_value > 1e-3
    kept = kept_mask(logits, 1.0, None, 0.9, True)
    assert kept[counter_codes].all() and not kept.all()  # only kept candidates, and some are not


def test_counter_race_draws_exponential_variates():
    race = CounterRace(5)
    draws = torch.stack([race.exponential(torch.empty(1000)) for _ in range(20)])
    variates = draws.flatten()
    assert abs(variates.mean().item() - 1.0) < 0.03  # Exp(1): mean 1 (standard error 0.007)
    uniform = torch.exp(-variates.double()).sort().values  # Kolmogorov-Smirnov against U(0, 1)
    n = uniform.numel()
    steps = torch.arange(1, n + 1, dtype=torch.double) / n
    distance = torch.maximum(steps - uniform, uniform - (steps - 1 / n)).max().item()
    assert distance < 1.95 / n**0.5  # the 0.1 % critical value
    successive = torch.corrcoef(torch.stack((draws[:-1].flatten(), draws[1:].flatten())))[0, 1].item()
    assert abs(successive) < 0.05  # calls do not repeat or echo each other
    assert int(race.counter) == 20


def test_unknown_and_gpu_only_modes_are_refused(model):
    with pytest.raises(EngineError, match="unknown decode mode"):
        model.set_decode_mode("fast")
    with pytest.raises(EngineError, match="CUDA"):
        model.set_decode_mode("graph")
    assert model.decode_mode == "eager"


def test_no_graph_reaches_the_drama3_backend(tmp_path):
    write_checkpoint(tmp_path, "tiny", config_only=True)
    assert make_backend("drama3", tmp_path, device="cpu").graph is True
    assert make_backend("drama3", tmp_path, device="cpu", graph=False).graph is False


def test_a_failed_capture_warns_and_keeps_decoding(model):
    eager = take(model, "eager", frames=8)
    model.decode_mode = "graph"  # past set_decode_mode's device check: capture fails on the CPU
    try:
        with pytest.warns(RuntimeWarning, match="capturing the frame step failed"):
            captured = model.generate(line("Hi there"), GREEDY, seed=0, max_frames=8, ignore_eos=True)
        assert model.decode_mode == "static"
    finally:
        model.set_decode_mode("eager")
    assert torch.equal(captured.codes, eager.codes)
