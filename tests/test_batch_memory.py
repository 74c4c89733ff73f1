"""The memory accounting of the engine's batch (engine/batch_memory.py): slot bytes from the
config, never more slots than the budget holds (with the prefill reserve), a stream that
cannot fit waits, one that never fits is refused."""

from types import SimpleNamespace

import pytest
import torch

from engine.batch import EngineBatch
from engine.batch_memory import BatchMemory, default_budget
from engine.config import Drama3Config
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.generate import Drama3
from engine.sampling import SamplingParams
from engine.testing.checkpoints import preset_config_dict, write_checkpoint
from engine.testing.reference_loop import reference_take

GREEDY = SamplingParams(temperature=0.0, ras_window=0)


def full_config() -> Drama3Config:
    return Drama3Config.from_dict(preset_config_dict("full"))


def test_slot_bytes_of_the_full_model_in_bfloat16():
    config = full_config()
    memory = BatchMemory.for_model(
        SimpleNamespace(config=config, dtype=torch.bfloat16), budget=1 << 40
    )
    assert memory.kv_bytes_per_row == 47_104 + 2  # K and V of 10 + 13 layers, plus two mask bytes
    per_stream = memory.state_bytes
    assert (
        per_stream > config.gdn_state_bytes(2) and per_stream - config.gdn_state_bytes(2) < 16_384
    )
    assert memory.slot_bytes(4096) == 4096 * (47_104 + 2) + per_stream


@pytest.mark.parametrize("budget", [10**6, 10**8, 7 * 10**9, 80 * 2**30])
@pytest.mark.parametrize("capacity", [512, 2048, 16_384])
def test_slots_never_exceed_the_budget(budget, capacity):
    memory = BatchMemory(budget, kv_bytes_per_row=47_106, state_bytes=3_200_000)
    slots = memory.slots(capacity, most=64)
    assert 0 <= slots <= 64
    if slots:
        assert memory.held(slots, capacity) <= budget
    if slots < 64:  # one more slot would not fit with the reserve
        assert memory.held(slots + 1, capacity) > budget


def test_the_budget_sizes_are_checked():
    with pytest.raises(EngineError):
        BatchMemory(0, 10, 10)
    assert default_budget(torch.device("cpu")) > 0


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Drama3:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0, with_codec=False)
    yield Drama3.load(folder, device="cpu")
    torch.set_num_threads(threads)


def line(text: str) -> Conversation:
    return Conversation(layout="clone", references=(), text=f"<|speaker:0|> {text}")


def test_streams_that_do_not_fit_wait_and_decode_the_same(model):
    memory = BatchMemory.for_model(model, budget=1)
    budget = memory.held(2, 512)  # two slots of 512 rows and the prefill reserve
    batch = EngineBatch(model, size=4, budget=budget)
    texts = ["Hi there.", "Yes.", "What time is it?", "No."]
    keys = {
        batch.submit(model.request(line(text), GREEDY, 0, max_frames=6 + i)): i
        for i, text in enumerate(texts)
    }
    results, most = {}, 0
    while batch.pending():
        results.update({keys[done.ticket]: done.generation for done in batch.step()})
        most = max(most, len(batch.live))
        assert batch.memory.held(batch.storage.slots, batch.storage.capacity) <= budget
    assert most == 2 and batch.storage.slots == 2
    for i, text in enumerate(texts):
        alone = reference_take(model, model.request(line(text), GREEDY, 0, max_frames=6 + i))
        assert torch.equal(results[i].codes, alone.codes)


def test_a_stream_larger_than_the_budget_is_refused(model):
    batch = EngineBatch(model, size=2, budget=BatchMemory.for_model(model, budget=1).held(1, 512))
    batch.submit(model.request(line("Hi."), GREEDY, 0, max_frames=8))  # fits 512 rows
    with pytest.raises(EngineError, match="budget"):
        batch.submit(model.request(line("Hi."), GREEDY, 0, max_frames=600))  # needs 1024 rows
