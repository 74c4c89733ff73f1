"""Routed experts kept once dequantised on the CPU (engine/layers/moe.py `DenseBudget`): the
same bits as dequantising at every use, never more bytes than the budget, never for a cache's
slot pool, and on by default for a CPU model."""

import numpy as np
import pytest
import torch
from fakes import random_moe

from engine.clip import AudioClip
from engine.conversation import Conversation, Reference
from engine.generate import Drama3
from engine.layers.moe import DenseBudget, FP8Experts, SparseMoE, tensor_names
from engine.sampling import SamplingParams
from engine.testing.checkpoints import write_checkpoint

D, EXPERTS, INTER, TOP_K = 16, 6, 8, 2
EXPERT_BYTES = 3 * INTER * D * 4  # gate, up and down in float32


def small_moe() -> SparseMoE:
    return random_moe(D, EXPERTS, INTER, TOP_K)[0]


def test_kept_experts_give_the_same_bits_within_the_budget():
    moe = small_moe()
    x = torch.randn(9, D, generator=torch.Generator().manual_seed(1))
    fresh_many, fresh_rows = moe(x), [moe(x[i : i + 1]) for i in range(3)]
    budget = DenseBudget(2 * EXPERT_BYTES + EXPERT_BYTES // 2)  # room for two experts and a half
    moe.experts.keep_dense(budget)
    assert torch.equal(moe(x), fresh_many)
    assert all(torch.equal(moe(x[i : i + 1]), row) for i, row in enumerate(fresh_rows))
    assert budget.kept == 2 and budget.left == EXPERT_BYTES // 2
    kept = [place for place, _ in moe.experts._dense]
    assert moe.experts.expert(kept[0], torch.float32) is moe.experts.expert(kept[0], torch.float32)
    assert torch.equal(moe(x), fresh_many) and budget.kept == 2  # a second pass keeps no more


def test_a_kept_expert_holds_gate_and_up_stacked_as_dequantised():  # packed for oneDNN where it can
    moe = small_moe()
    moe.experts.keep_dense(DenseBudget(EXPERT_BYTES))
    gate_up, down = (
        w.to_dense() if w.is_mkldnn else w for w in moe.experts.expert(3, torch.float32)
    )
    gate, up, expected_down = moe.experts.dequantized(torch.tensor([3]), torch.float32)
    assert torch.equal(gate_up, torch.cat((gate[0], up[0]))) and torch.equal(down, expected_down[0])


def test_a_slot_pool_never_keeps_dequantised_experts():
    moe = small_moe()
    like = {name: getattr(moe.experts, name)[0] for name in tensor_names()}
    pool = FP8Experts.empty(2, like, (128, 128), torch.device("cpu"))
    assert pool.dense_budget is None
    pool.expert(0, torch.float32)
    assert pool._dense == {}


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    write_checkpoint(folder, "tiny", seed=0, with_codec=False)
    return folder


def test_a_cpu_model_keeps_its_experts_and_takes_are_unchanged(tiny_folder):
    model = Drama3.load(tiny_folder, device="cpu")
    budgets = {id(layer.moe.experts.dense_budget) for layer in model.backbone.layers}
    assert (
        len(budgets) == 1 and model.backbone.layers[0].moe.experts.dense_budget is not None
    )  # one, shared
    codes = np.random.default_rng(2).integers(0, 4096, (10, 40)).astype(np.int64)
    conversation = Conversation(
        layout="clone",
        references=(Reference(0, "A line.", AudioClip(codes=codes)),),
        text="<|speaker:0|> Another line to say.",
    )
    kept = model.generate(conversation, SamplingParams(), seed=5, max_frames=12)
    assert model.backbone.layers[0].moe.experts.dense_budget.kept > 0
    model.backbone.keep_dense_experts(None)
    model.clear_prefix_cache()
    fresh = model.generate(conversation, SamplingParams(), seed=5, max_frames=12)
    assert torch.equal(kept.codes, fresh.codes)
