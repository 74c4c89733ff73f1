"""Products over weights packed for oneDNN on the CPU (engine/kernels/cpu_linear.py): the same
values as `F.linear`, packing only where it applies and within a byte budget, the state dict
unchanged, compiled graphs reading the plain weight, and a CPU model packed at load."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from engine.conversation import Conversation
from engine.generate import Drama3
from engine.kernels.cpu_linear import (
    PackedLinear,
    PackedWeights,
    pack,
    pack_linears,
    packed_linear,
    packing_works,
    product,
)
from engine.layers.moe import DenseBudget
from engine.sampling import SamplingParams
from engine.testing.checkpoints import write_checkpoint

pytestmark = pytest.mark.skipif(
    not packing_works(), reason="this torch build cannot pack weights for oneDNN"
)


@pytest.mark.parametrize("rows", [1, 2, 5, 8, 40])
def test_a_packed_product_equals_f_linear(rows):
    generator = torch.Generator().manual_seed(rows)
    weight, x = (
        torch.randn(300, 96, generator=generator),
        torch.randn(rows, 96, generator=generator),
    )
    packed = pack(weight)
    assert packed.is_mkldnn and packed.shape == weight.shape
    torch.testing.assert_close(packed_linear(x, packed), F.linear(x, weight), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(
        product(x[None], packed), F.linear(x, weight)[None], rtol=1e-5, atol=1e-5
    )
    assert torch.equal(product(x, weight), F.linear(x, weight))  # a plain weight goes to F.linear


def test_only_float32_cpu_matrices_are_packed():
    assert pack(torch.ones(4, 4, dtype=torch.bfloat16)) is None
    assert pack(torch.ones(4, 4, 4)) is None
    assert pack(torch.ones(4, 4)) is not None


class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.wide = nn.Linear(16, 64, bias=False)
        self.narrow = nn.Linear(64, 16, bias=False)
        self.biased = nn.Linear(16, 16)

    def forward(self, x):
        return self.biased(self.narrow(self.wide(x)))


def test_pack_linears_keeps_to_the_budget_widest_first_and_the_state_dict():
    torch.manual_seed(0)
    module, x = Two(), torch.randn(3, 16)
    before, keys = module(x), set(module.state_dict())
    budget = DenseBudget(64 * 16 * 4 + 10)  # room for one of the two weights
    assert pack_linears(module, budget.take) == 1
    assert isinstance(module.wide, PackedLinear) and type(module.narrow) is nn.Linear
    assert type(module.biased) is nn.Linear  # a bias is not what PackedLinear computes
    assert budget.left == 10 and set(module.state_dict()) == keys
    torch.testing.assert_close(module(x), before, rtol=1e-5, atol=1e-5)


class Mixer(PackedWeights, nn.Module):
    PACKED = ("proj",)

    def __init__(self):
        super().__init__()
        self.register_buffer("proj", torch.randn(32, 8, generator=torch.Generator().manual_seed(1)))

    def forward(self, x):
        return self.dense(x, "proj")


def test_packed_weights_serve_eager_calls_and_compiled_graphs_read_the_plain_weight():
    mixer, x = Mixer(), torch.randn(4, 8)
    plain = mixer(x)
    assert mixer.pack_weights(DenseBudget(0).take) == 0 and mixer.packed is None
    assert mixer.pack_weights(DenseBudget(10**6).take) == 1 and mixer.packed["proj"].is_mkldnn
    torch.testing.assert_close(mixer(x), plain, rtol=1e-5, atol=1e-5)
    torch._dynamo.reset()
    compiled = torch.compile(mixer, fullgraph=True, backend="eager")
    assert torch.equal(compiled(x), plain)  # F.linear on the plain weight, no graph break


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny")
    write_checkpoint(path, "tiny", seed=0, with_codec=False)
    return path


def test_a_cpu_model_packs_its_wide_weights_and_keeps_its_greedy_codes(folder, monkeypatch):
    model = Drama3.load(folder, device="cpu")
    assert all(isinstance(head, PackedLinear) for head in model.tower.heads)
    layer = model.backbone.layers[0]
    assert set(layer.mixer.packed) == set(layer.mixer.PACKED) and set(layer.moe.packed) == set(
        layer.moe.PACKED
    )
    monkeypatch.setattr("engine.generate.dense_copy_budget", lambda: 0)
    plain = Drama3.load(folder, device="cpu")
    assert type(plain.tower.heads[0]) is nn.Linear and plain.backbone.layers[0].mixer.packed is None
    params = SamplingParams(temperature=0.0, ras_window=0)
    for text in (
        "<|speaker:0|> Hello there.",
        "<|speaker:0|> A longer line, to give the prompt more rows.",
    ):
        conversation = Conversation(layout="clone", references=(), text=text)
        packed_codes = model.generate(conversation, params, seed=0, max_frames=12).codes
        assert torch.equal(
            packed_codes, plain.generate(conversation, params, seed=0, max_frames=12).codes
        )
