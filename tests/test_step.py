"""The decode step (engine/step.py) and its graph bookkeeping (engine/graphs.py) on the tiny
preset: the loop's takes equal the reference loop's, a kept loop forgets the previous take, no
host reads inside the step, one graph for torch.compile(fullgraph=True) without breaks or
recompiles over 64 frames, seeded reproducibility, counter-based draws that follow the same
distribution as a generator's, and captured graphs per padded size (a stand-in capture on the
CPU)."""

import pytest
import torch
from torch._dynamo.utils import counters

from drama_cli.backends.registry import make_backend
from engine.batch import EngineBatch
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.generate import Drama3
from engine.graphs import StepGraphs
from engine.sampling import CounterRace, SamplingParams, SlotRace, kept_mask, sample_top_k_top_p
from engine.step import decode_step
from engine.testing.checkpoints import write_checkpoint
from engine.testing.dispatch import OpCounter
from engine.testing.graphs import ReplayedStep
from engine.testing.reference_loop import reference_take

GREEDY = SamplingParams(temperature=0.0, ras_window=0)  # RAS would redraw at temperature 1


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Drama3:
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0, with_codec=False)
    return Drama3.load(folder, device="cpu")


def line(text: str = "Hi there, how are you?") -> Conversation:
    return Conversation(layout="clone", references=(), text=f"<|speaker:0|> {text}")


def take(model: Drama3, params=GREEDY, seed: int = 0, frames: int = 16, text: str = "Hi there"):
    return model.generate(line(text), params, seed=seed, max_frames=frames, ignore_eos=True)


def reference(
    model: Drama3, params=GREEDY, seed: int = 0, frames: int = 16, text: str = "Hi there"
):
    return reference_take(model, model.request(line(text), params, seed, frames, ignore_eos=True))


def loaded_stack(model: Drama3, params=GREEDY, frames: int = 64, padded: bool = False):
    """A loop of one with its stream joined: the stack its next step runs (the whole capacity
    attended, as a compiled step needs, when `padded`)."""
    batch = EngineBatch(model, 1)
    batch.submit(model.request(line(), params, 0, frames, ignore_eos=True))
    batch._prefill()
    stack = batch.storage.stack(1)
    stack.attend_within(None if padded else stack.storage.capacity)
    return stack


def test_loop_greedy_codes_equal_the_reference_loop(model):
    loop, alone = take(model), reference(model)
    assert loop.frames == alone.frames == 16
    assert torch.equal(loop.codes, alone.codes)


def test_a_kept_loop_forgets_the_previous_take(model):
    take(model, frames=8, text="A much longer line than the next one, to fill the caches.")
    again = take(model, frames=8)  # the same loop (model.batch(1)) now holds a shorter prompt
    assert torch.equal(again.codes, reference(model, frames=8).codes)


def test_the_step_reads_nothing_back(model):
    stack = loaded_stack(model)
    start = int(stack.position[0])
    with torch.no_grad(), OpCounter() as ops:
        decode_step(stack)
        decode_step(stack)
    assert ops.syncs == 0
    assert ops.total > 100  # the step really ran
    assert int(stack.position[0]) == start + 2


def test_the_step_traces_as_one_graph(model):
    stack = loaded_stack(model, padded=True)
    with torch.no_grad():
        explained = torch._dynamo.explain(decode_step)(stack)
    assert explained.graph_break_count == 0
    assert explained.graph_count == 1


@pytest.mark.slow
def test_no_recompiles_over_64_frames_and_same_codes(model):
    """Sampled, not greedy: the compiled step must also draw the same counter-based noise."""
    expected, stack = (
        loaded_stack(model, SamplingParams(), padded=True),
        loaded_stack(model, SamplingParams(), padded=True),
    )
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(decode_step, fullgraph=True, dynamic=False, backend="aot_eager")
    rows, again = [], []
    with torch.no_grad():
        for _ in range(64):
            compiled(stack)
            decode_step(expected)
            rows.append(stack.row.clone())
            again.append(expected.row.clone())
    assert counters["stats"]["unique_graphs"] == 1
    assert counters["stats"]["calls_captured"] > 0
    assert torch.equal(torch.cat(rows), torch.cat(again))


def test_sampled_takes_repeat_from_their_seed_and_equal_the_reference(model):
    params = SamplingParams()
    first, again = take(model, params, seed=7, frames=12), take(model, params, seed=7, frames=12)
    other = take(model, params, seed=8, frames=12)
    assert torch.equal(first.codes, again.codes)
    assert not torch.equal(first.codes, other.codes)
    assert torch.equal(first.codes, reference(model, params, seed=7, frames=12).codes)


def test_counter_draws_follow_the_generator_sampler():
    """Chi-square test of homogeneity between the codes drawn by the two noise sources on the
    same logits (main-token settings: top-p 0.9, crossing token kept)."""
    logits = torch.randn(64, generator=torch.Generator().manual_seed(0)) * 1.5
    draws = 4000
    race, generator = CounterRace(123), torch.Generator().manual_seed(123)
    counter_codes = torch.stack(
        [sample_top_k_top_p(logits, 1.0, None, 0.9, True, race) for _ in range(draws)]
    )
    generator_codes = torch.stack(
        [sample_top_k_top_p(logits, 1.0, None, 0.9, True, generator) for _ in range(draws)]
    )
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
    successive = torch.corrcoef(torch.stack((draws[:-1].flatten(), draws[1:].flatten())))[
        0, 1
    ].item()
    assert abs(successive) < 0.05  # calls do not repeat or echo each other
    assert int(race.counter) == 20


def test_a_frames_planned_draws_equal_the_draws_made_one_call_at_a_time():
    seeds = [SlotRace.key_of(seed) for seed in (7, 2**40 + 3, 0)]
    widths = [4100, 30, 30, 30, 17, 30]
    one_by_one = SlotRace(torch.tensor(seeds), torch.tensor([[5], [0], [9]]))
    planned = SlotRace(torch.tensor(seeds), torch.tensor([[5], [0], [9]]))
    expected = [one_by_one.exponential(torch.empty(3, width)) for width in widths]
    draws = planned.planned(widths)
    for width, want in zip(widths, expected):
        assert torch.equal(draws.exponential(torch.empty(3, width)), want)
    assert torch.equal(planned.counter, one_by_one.counter) and planned.counter[:, 0].tolist() == [
        11,
        6,
        15,
    ]
    with pytest.raises(EngineError, match="not planned"):
        draws.exponential(torch.empty(3, 30))


def test_planned_draws_refuse_a_width_the_plan_does_not_hold():
    draws = SlotRace(
        torch.tensor([SlotRace.key_of(1)]), torch.zeros(1, 1, dtype=torch.int64)
    ).planned([30, 30])
    with pytest.raises(EngineError, match="draw 0 of width 31"):
        draws.exponential(torch.empty(1, 31))


def test_unknown_and_gpu_only_modes_are_refused(model):
    for mode in ("fast", "static", "compiled"):
        with pytest.raises(EngineError, match="unknown decode mode"):
            model.set_decode_mode(mode)
    with pytest.raises(EngineError, match="CUDA"):
        model.set_decode_mode("graph")
    with pytest.raises(EngineError, match="CUDA"):
        EngineBatch(model, 2, mode="graph")
    assert model.decode_mode == "eager"


def test_no_graph_reaches_the_drama3_backend(tmp_path):
    write_checkpoint(tmp_path, "tiny", config_only=True)
    assert make_backend("drama3", tmp_path, device="cpu").graph is True
    assert make_backend("drama3", tmp_path, device="cpu", graph=False).graph is False


def run_streams(batch: EngineBatch, model: Drama3, streams: dict) -> dict:
    tickets = {
        batch.submit(model.request(line(text), GREEDY, 0, frames)): key
        for key, (text, frames) in streams.items()
    }
    return {tickets[done.ticket]: done.generation for done in batch.run()}


STREAMS = {"a": ("Hi there", 6), "b": ("Yes.", 9), "c": ("What time is it now?", 4)}


def test_graphs_are_captured_once_per_padded_size_in_one_pool(model):
    captured, pools = [], []

    def capture(step, mutable, pool):
        captured.append(len(mutable))
        pools.append(pool)
        return ReplayedStep(step)

    batch, sizes = EngineBatch(model, 4), []
    batch._padded = (
        True  # as graph mode runs: padded sizes over the whole slot (uncompiled on the CPU)
    )
    batch.graphs = StepGraphs(
        lambda stack: (sizes.append(stack.size), decode_step(stack)),
        decode_step,
        capture,
        pool=lambda: "pool",
    )
    results = run_streams(batch, model, STREAMS)
    assert (
        sorted(batch.graphs.graphs) == sorted(set(sizes)) and 4 in sizes
    )  # three streams run as four slots
    assert len(captured) == len(set(sizes)) and set(pools) == {"pool"}  # each size captured once
    for key, (text, frames) in STREAMS.items():
        alone = reference_take(model, model.request(line(text), GREEDY, 0, frames))
        assert torch.equal(results[key].codes, alone.codes), key


def test_a_failed_capture_warns_and_keeps_decoding(model):
    batch = EngineBatch(model, 2)
    batch.graphs = StepGraphs(
        decode_step, decode_step
    )  # the real capture: no CUDA here, so it fails
    with pytest.warns(RuntimeWarning, match="capturing the decode step failed"):
        results = run_streams(batch, model, {"a": STREAMS["a"]})
    assert batch.graphs.failed
    alone = reference_take(model, model.request(line("Hi there"), GREEDY, 0, 6))
    assert torch.equal(results["a"].codes, alone.codes)
