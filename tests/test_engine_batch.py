"""The decode loop (engine/batch.py, engine/step.py) on the tiny preset in float32 on the CPU,
held against the reference loop (engine/testing/reference_loop.py): greedy codes equal each
stream's reference take whatever joins when, sampled codes equal the reference's for the same
counter draws and depend only on the stream's own seed, prefill interleaves with decoding
through the shared prefix cache, the storage grows for a longer stream, padded sizes, the step
traces as one graph, and on CUDA the host reads each step's rows a step late."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine.batch import EngineBatch, padded_size
from engine.clip import AudioClip
from engine.conversation import Conversation, Reference
from engine.errors import EngineError
from engine.generate import Drama3
from engine.layers.moe import SparseMoE
from engine.sampling import SamplingParams
from engine.step import decode_step
from engine.testing.checkpoints import write_checkpoint
from engine.testing.reference_loop import reference_take

GREEDY = SamplingParams(temperature=0.0, ras_window=0)
SAMPLED = SamplingParams()
TEXTS = (
    "Hi there.",
    "A much longer line than the others, to give this prompt more rows.",
    "Yes.",
    "What time is it now, do you know?",
)


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Drama3:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: one thread is fastest, above all on a busy machine
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0, with_codec=False)
    yield Drama3.load(folder, device="cpu")
    torch.set_num_threads(threads)


def line(text: str, reference_frames: int = 0) -> Conversation:
    references = ()
    if reference_frames:
        codes = np.random.default_rng(5).integers(0, 4096, (10, reference_frames)).astype(np.int64)
        references = (Reference(0, "A reference spoken slowly.", AudioClip(codes=codes)),)
    return Conversation(layout="clone", references=references, text=f"<|speaker:0|> {text}")


def alone(model: Drama3, text: str, params, seed: int, frames: int):
    """The reference loop's take: one stream, each frame read by the host."""
    return reference_take(model, model.request(line(text), params, seed, max_frames=frames))


def run(batch: EngineBatch, streams: dict, joins: dict | None = None, params=GREEDY) -> dict:
    """Submit `streams` (key -> (text, seed, frames)) now and `joins` (step -> streams) later;
    step to the end; key -> Generation."""
    keys, results, step = {}, {}, 0
    for key, (text, seed, frames) in streams.items():
        keys[batch.submit(batch.model.request(line(text), params, seed, max_frames=frames))] = key
    while batch.pending() or (joins and step <= max(joins)):
        for key, (text, seed, frames) in (joins or {}).get(step, {}).items():
            keys[batch.submit(batch.model.request(line(text), params, seed, max_frames=frames))] = (
                key
            )
        results.update({keys[done.ticket]: done.generation for done in batch.step()})
        step += 1
    return results


def test_greedy_codes_equal_each_streams_batch_1_run(model):
    streams = {i: (text, 0, 10 + 2 * i) for i, text in enumerate(TEXTS)}
    joins = {3: {2: streams.pop(2)}, 6: {3: streams.pop(3)}}
    batched = run(EngineBatch(model, 4), streams, joins)
    for key, (text, seed, frames) in {i: (t, 0, 10 + 2 * i) for i, t in enumerate(TEXTS)}.items():
        reference = alone(model, text, GREEDY, seed, frames)
        assert torch.equal(batched[key].codes, reference.codes), key
        assert batched[key].stop_reason == reference.stop_reason
        assert batched[key].prompt_rows == reference.prompt_rows


def test_a_sampled_stream_depends_only_on_its_seed(model):
    mine = (TEXTS[1], 7, 14)
    one = run(EngineBatch(model, 1), {"x": mine}, params=SAMPLED)["x"]
    first = run(
        EngineBatch(model, 4),
        {"a": (TEXTS[0], 1, 9), "x": mine, "c": (TEXTS[3], 3, 5)},
        params=SAMPLED,
    )["x"]
    second = run(EngineBatch(model, 2), {"d": (TEXTS[2], 9, 16)}, {2: {"x": mine}}, params=SAMPLED)[
        "x"
    ]
    assert torch.equal(one.codes, first.codes) and torch.equal(one.codes, second.codes)
    other = run(EngineBatch(model, 1), {"x": (TEXTS[1], 8, 14)}, params=SAMPLED)["x"]
    assert not torch.equal(one.codes, other.codes)


def test_sampled_codes_equal_the_reference_for_the_same_counter_draws(model):
    streams = {"x": (TEXTS[0], 11, 8), "y": (TEXTS[2], 4, 10)}
    batched = run(EngineBatch(model, 2), streams, params=SAMPLED)
    for key, (text, seed, frames) in streams.items():
        assert torch.equal(batched[key].codes, alone(model, text, SAMPLED, seed, frames).codes), key
        assert torch.equal(
            batched[key].codes, model.generate(line(text), SAMPLED, seed, max_frames=frames).codes
        )


def test_prefill_is_chunked_between_decode_steps_through_the_prefix_cache(model, monkeypatch):
    model.clear_prefix_cache()
    chunks = []
    original = Drama3._prefill_chunk
    monkeypatch.setattr(
        Drama3,
        "_prefill_chunk",
        lambda self, state, rows: (chunks.append(rows.shape[0]), original(self, state, rows))[1],
    )
    batch = EngineBatch(model, 4)
    batch.submit(model.request(line(TEXTS[0]), GREEDY, 0, max_frames=12))
    batch.step()  # the first stream joins at once and decodes its first frame
    chunks.clear()
    long_a = batch.submit(
        model.request(line(TEXTS[2], reference_frames=300), GREEDY, 0, max_frames=4)
    )
    frames = []
    while long_a not in [done.ticket for done in batch.step()]:
        frames.append(batch.live[0].frames if batch.live else None)
    assert chunks[0] == 256 and len(chunks) >= 2 and sum(chunks) > 300  # 256-row chunks
    assert frames[:3] == [2, 3, 4]  # the first stream kept decoding while the second was prefilled
    chunks.clear()
    again = EngineBatch(model, 2)
    again.submit(model.request(line(TEXTS[3], reference_frames=300), GREEDY, 0, max_frames=2))
    list(again.run())
    assert sum(chunks) < 300  # the reference block came from the prefix cache


def test_the_storage_grows_for_a_longer_stream(model):
    batch = EngineBatch(model, 4)
    keys = {batch.submit(model.request(line(TEXTS[0]), GREEDY, 0, max_frames=10)): "a"}
    results = {}
    for _ in range(3):
        results.update({keys[d.ticket]: d.generation for d in batch.step()})
    assert batch.storage.capacity == 512
    batch.min_rows = 600  # as if the next stream needed more than 512 rows
    keys[batch.submit(model.request(line(TEXTS[3]), GREEDY, 0, max_frames=8))] = "b"
    results.update({keys[d.ticket]: d.generation for d in batch.run()})
    assert batch.storage.capacity == 1024
    for key, text, frames in (("a", TEXTS[0], 10), ("b", TEXTS[3], 8)):
        assert torch.equal(results[key].codes, alone(model, text, GREEDY, 0, frames).codes)


def test_padded_sizes():
    assert [padded_size(n, 16) for n in (1, 2, 3, 5, 8, 9, 16)] == [1, 2, 4, 8, 8, 16, 16]
    assert padded_size(5, 6) == 6


def test_streams_with_other_settings_wait_for_an_empty_batch(model):
    batch = EngineBatch(model, 4)
    first = batch.submit(model.request(line(TEXTS[0]), GREEDY, 0, max_frames=6))
    other = batch.submit(model.request(line(TEXTS[2]), SAMPLED, 3, max_frames=4))
    order = [done.ticket for done in batch.run()]
    assert order == [first, other]


def dense_experts(self, x, weights, ids):
    """Every routed expert on every row, mixed by the routing weights: the routed sum without
    reading the picked experts on the host (a compile-clean stand-in for the CPU path)."""
    gate, up, down = self.experts.dequantized(torch.arange(self.num_experts), x.dtype)
    hidden = F.silu(torch.einsum("nd,eid->nei", x, gate)) * torch.einsum("nd,eid->nei", x, up)
    mix = torch.zeros(x.shape[0], self.num_experts, dtype=x.dtype).scatter_add(1, ids, weights)
    return torch.einsum("ne,ned->nd", mix, torch.einsum("nei,edi->ned", hidden, down))


@pytest.mark.parametrize("live", [1, 3])
def test_the_batched_step_traces_as_one_graph(model, monkeypatch, live):
    # On the CPU the routed experts of several rows read which experts were picked (a graph
    # break inside SparseMoE); with a dense stand-in the rest of the step is one graph.
    monkeypatch.setattr(SparseMoE, "_many_rows", dense_experts)
    batch = EngineBatch(model, 4)
    for index in range(live):
        batch.submit(model.request(line(TEXTS[index]), GREEDY, index, max_frames=8))
    while len(batch.live) < live:
        batch.step()
    with torch.no_grad():
        explained = torch._dynamo.explain(decode_step)(batch.storage.stack(padded_size(live, 4)))
    assert explained.graph_break_count == 0
    assert explained.graph_count == 1


def test_an_eager_step_runs_the_live_slots_over_the_rows_they_reached(model):
    batch, seen = EngineBatch(model, 4), []

    def runner(stack):
        spans = {cache.span for cache in stack.backbone_states if hasattr(cache, "span")}
        seen.append((stack.size, int(stack.position.max()), spans))
        decode_step(stack)

    batch._runner = runner
    streams = {i: (text, 0, 4 + 2 * i) for i, text in enumerate(TEXTS[:3])}
    batched = run(batch, streams)
    assert {size for size, _, _ in seen} == {
        1,
        2,
        3,
    }  # three, then two, then one: never padded to 4
    for _size, furthest, spans in seen:
        (span,) = spans
        assert span % 128 == 0 and furthest < span <= batch.storage.capacity
    for key, (text, seed, frames) in streams.items():
        assert torch.equal(batched[key].codes, alone(model, text, GREEDY, seed, frames).codes)


def test_a_compiled_batch_pads_its_steps_and_keeps_the_counter_draws(model, monkeypatch):
    # the dense stand-in keeps several rows' experts compilable on the CPU (see the test above)
    monkeypatch.setattr(SparseMoE, "_many_rows", dense_experts)
    streams = {"x": (TEXTS[0], 11, 6), "y": (TEXTS[2], 4, 7), "z": (TEXTS[3], 2, 5)}
    eager = run(EngineBatch(model, 4), streams, params=GREEDY)
    batch, sizes = EngineBatch(model, 4), []
    batch.compile(fullgraph=False, backend="aot_eager")
    compiled = batch._runner
    batch._runner = lambda stack: (sizes.append(stack.size), compiled(stack))[1]
    results = run(batch, streams, params=GREEDY)
    assert set(sizes) <= {1, 2, 4} and 4 in sizes  # three live streams run as four slots
    for key in streams:
        assert torch.equal(results[key].codes, eager[key].codes), key


def test_the_decode_mode_chooses_the_step(model):
    assert not EngineBatch(model, 2)._padded  # eager on the CPU: the live slots only
    with pytest.raises(EngineError, match="CUDA"):
        EngineBatch(model, 2).compile(capture=True)


def test_on_cuda_the_host_reads_each_step_a_step_late(model):
    """The read lag without a GPU: the rows of step k are taken after step k+1 is queued; the
    loop runs at most one step more than reading at once, and the codes are the same."""
    streams = {"x": (TEXTS[0], 11, 6), "y": (TEXTS[2], 4, 9)}
    runs = {}
    for lag in (0, 1):
        batch, queued = EngineBatch(model, 2), []
        batch.read_lag = lag  # 1 is what a CUDA device gets
        launch = batch._launch
        batch._launch = lambda batch=batch, launch=launch, queued=queued: (
            queued.append(len(batch._reads)),
            launch(),
        )[1]
        runs[lag] = (run(batch, streams, params=SAMPLED), queued)
    (at_once, steps), (late, late_steps) = runs[0], runs[1]
    assert set(steps) == {0} and late_steps[1:4] == [
        1,
        1,
        1,
    ]  # each step queued before the last is read
    assert len(steps) <= len(late_steps) <= len(steps) + 1
    for key in streams:
        assert torch.equal(late[key].codes, at_once[key].codes), key


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
def test_captured_steps_give_the_eager_codes(tmp_path):
    write_checkpoint(tmp_path, "tiny", seed=0, with_codec=False, device="cuda")
    gpu = Drama3.load(tmp_path, device="cuda", dtype=torch.float32)
    streams = {"x": (TEXTS[0], 11, 6), "y": (TEXTS[2], 4, 9), "z": (TEXTS[3], 2, 5)}
    eager = run(EngineBatch(gpu, 4, mode="eager"), streams)
    batch = EngineBatch(gpu, 4, mode="graph")
    captured = run(batch, streams)
    assert (
        batch.graphs is not None and len(batch.graphs.graphs) >= 2
    )  # sizes 4, 2 and 1 as streams leave
    for key in streams:
        assert torch.equal(captured[key].codes, eager[key].codes), key
