"""Layer maths: Gated DeltaNet forms, FP8 block dequantisation, RoPE variants, norms, MoE,
attention masks."""

from __future__ import annotations

import math
import re

import pytest
import torch
from fakes import random_moe
from torch._inductor.utils import run_and_get_code

from engine.layers.attention import causal_gqa_attention
from engine.layers.fp8 import dequantize_blocks, fp8_to_float
from engine.layers.gated_deltanet import (
    GatedDeltaNet,
    chunked_gated_delta_rule,
    l2_normalize,
    recurrent_gated_delta_rule,
)
from engine.layers.norms import GatedRMSNorm, ZeroCentredRMSNorm
from engine.layers.rope import (
    apply_interleaved_rope,
    apply_rotate_half_rope,
    rope_angles,
)


def _delta_inputs(length: int, heads: int = 3, dk: int = 8, dv: int = 6, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    q = l2_normalize(torch.randn(length, heads, dk, generator=gen)) * dk**-0.5
    k = l2_normalize(torch.randn(length, heads, dk, generator=gen))
    v = torch.randn(length, heads, dv, generator=gen)
    g = -torch.rand(length, heads, generator=gen) * 2
    beta = torch.rand(length, heads, generator=gen)
    state = torch.randn(heads, dk, dv, generator=gen)
    return q, k, v, g, beta, state


@pytest.mark.parametrize("length, chunk", [(1, 4), (5, 4), (16, 16), (37, 8), (130, 64)])
def test_chunked_delta_rule_equals_recurrent(length, chunk):
    q, k, v, g, beta, state = _delta_inputs(length)
    out_r, state_r = recurrent_gated_delta_rule(q, k, v, g, beta, state)
    out_c, state_c = chunked_gated_delta_rule(q, k, v, g, beta, state, chunk_size=chunk)
    assert out_c.shape == (length, 3, 6)
    assert torch.allclose(out_c, out_r, atol=1e-5)
    assert torch.allclose(state_c, state_r, atol=1e-5)


def test_recurrent_step_matches_the_update_rule_by_hand():
    q, k, v, g, beta, state = _delta_inputs(1, heads=1, dk=2, dv=2)
    s = state[0] * math.exp(g[0, 0])
    delta = (v[0, 0] - s.t() @ k[0, 0]) * beta[0, 0]
    s = s + torch.outer(k[0, 0], delta)
    out, final = recurrent_gated_delta_rule(q, k, v, g, beta, state)
    assert torch.allclose(final[0], s, atol=1e-6)
    assert torch.allclose(out[0, 0], s.t() @ q[0, 0], atol=1e-6)


def _gdn_weights(d=16, kh=2, vh=4, kd=8, vd=8, seed=0):
    gen = torch.Generator().manual_seed(seed)
    conv = 2 * kh * kd + vh * vd
    r = lambda *s: torch.randn(*s, generator=gen) * s[-1] ** -0.5  # noqa: E731
    return {
        "in_proj_qkv.weight": r(conv, d),
        "in_proj_z.weight": r(vh * vd, d),
        "in_proj_b.weight": r(vh, d),
        "in_proj_a.weight": r(vh, d),
        "conv1d.weight": r(conv, 1, 4),
        "dt_bias": torch.randn(vh, generator=gen),
        "A_log": torch.rand(vh, generator=gen) + 0.5,
        "norm.weight": 1 + 0.1 * torch.randn(vd, generator=gen),
        "out_proj.weight": r(d, vh * vd),
    }


def test_gated_deltanet_prefill_then_steps_equal_one_pass():
    layer = GatedDeltaNet(
        _gdn_weights(), key_heads=2, key_dim=8, value_heads=4, value_dim=8, eps=1e-6
    )
    x = torch.randn(90, 16, generator=torch.Generator().manual_seed(1))
    full = layer(x, layer.new_state())
    state = layer.new_state()
    parts = [layer(x[:70], state)] + [layer(x[i : i + 1], state) for i in range(70, 90)]
    assert torch.allclose(torch.cat(parts), full, atol=1e-5)
    assert state.conv.shape == (2 * 2 * 8 + 4 * 8, 3) and state.recurrent.dtype == torch.float32


def test_fp8_block_dequantisation_matches_hand_computation():
    gen = torch.Generator().manual_seed(0)
    weight = (torch.randn(150, 260, generator=gen) * 50).to(torch.float8_e4m3fn)
    scale = torch.tensor([[0.5, 2.0, 0.25], [3.0, 1.0, 0.125]])
    got = dequantize_blocks(weight, scale, (128, 128), torch.float32)
    for i, j in [
        (0, 0),
        (127, 127),
        (127, 128),
        (128, 0),
        (149, 259),
        (10, 200),
        (140, 255),
        (140, 256),
    ]:
        assert got[i, j].item() == float(weight[i, j].float()) * scale[i // 128, j // 128].item()
    assert torch.equal(got[:128, 128:256], weight[:128, 128:256].float() * 2.0)
    assert torch.equal(got[128:, 256:], weight[128:, 256:].float() * 0.125)
    stacked = dequantize_blocks(
        weight[None].repeat(2, 1, 1), torch.stack((scale, 2 * scale)), (128, 128), torch.float32
    )
    assert torch.equal(stacked[1], 2 * got)


def test_fp8_bit_conversion_is_exact_for_every_finite_value():
    every = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn)
    finite = ~torch.isnan(every.float())
    assert int(finite.sum()) == 254
    assert torch.equal(fp8_to_float(every)[finite], every.float()[finite])
    from engine.layers.fp8 import _FP32_FROM_E4M3, _scaled_float

    assert torch.equal((_scaled_float(every) * _FP32_FROM_E4M3)[finite], every.float()[finite])


def test_rotate_half_rope_rotates_pairs_i_and_i_plus_half():
    x = torch.randn(3, 2, 16)
    cos, sin = rope_angles(torch.tensor([0, 1, 7]), rotary_dim=8, theta=10_000.0)
    out = apply_rotate_half_rope(x, cos, sin)
    assert torch.equal(out[0], x[0])  # position 0 is the identity
    assert torch.equal(out[..., 8:], x[..., 8:])  # dims past the rotary part pass through
    angle = 7 * 10_000.0 ** (-2 * 1 / 8)  # position 7, frequency index 1: dims (1, 5)
    a, b = x[2, 0, 1], x[2, 0, 5]
    assert torch.allclose(out[2, 0, 1], a * math.cos(angle) - b * math.sin(angle), atol=1e-6)
    assert torch.allclose(out[2, 0, 5], b * math.cos(angle) + a * math.sin(angle), atol=1e-6)


def test_interleaved_rope_rotates_adjacent_pairs():
    x = torch.randn(2, 3, 12)
    cos, sin = rope_angles(torch.tensor([3, 11]), rotary_dim=4, theta=1e7)
    out = apply_interleaved_rope(x, cos, sin)
    angle = 11 * 1e7 ** (-2 * 1 / 4)  # position 11, frequency index 1: dims (2, 3)
    a, b = x[1, 2, 2], x[1, 2, 3]
    assert torch.allclose(out[1, 2, 2], a * math.cos(angle) - b * math.sin(angle), atol=1e-6)
    assert torch.allclose(out[1, 2, 3], b * math.cos(angle) + a * math.sin(angle), atol=1e-6)
    assert torch.equal(out[..., 4:], x[..., 4:])
    # Interleaved = rotate-half applied to the de-interleaved dims.
    order = torch.tensor([0, 2, 1, 3])
    via_half = apply_rotate_half_rope(x[..., :4][..., order], cos, sin)[..., order.argsort()]
    assert torch.allclose(out[..., :4], via_half, atol=1e-6)


def test_rotate_half_rope_matches_transformers():
    modeling = pytest.importorskip("transformers.models.qwen3_5_moe.modeling_qwen3_5_moe")
    q, k = torch.randn(1, 4, 5, 32), torch.randn(1, 2, 5, 32)
    cos, sin = rope_angles(torch.arange(5), rotary_dim=8, theta=1e7)
    ref_q, ref_k = modeling.apply_rotary_pos_emb(
        q, k, torch.cat((cos, cos), -1)[None], torch.cat((sin, sin), -1)[None]
    )
    assert torch.allclose(
        apply_rotate_half_rope(q[0].transpose(0, 1), cos, sin), ref_q[0].transpose(0, 1), atol=1e-6
    )
    assert torch.allclose(
        apply_rotate_half_rope(k[0].transpose(0, 1), cos, sin), ref_k[0].transpose(0, 1), atol=1e-6
    )


def test_norms():
    x = torch.randn(4, 8, dtype=torch.float64)
    w = torch.randn(8)
    rms = x.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt()
    assert torch.allclose(ZeroCentredRMSNorm(w, 1e-6)(x), x / rms * (1 + w.double()), atol=1e-6)
    gate = torch.randn(4, 8, dtype=torch.float64)
    expected = w.double() * (x / rms) * torch.nn.functional.silu(gate)
    assert torch.allclose(GatedRMSNorm(w.double(), 1e-6)(x, gate), expected, atol=1e-6)


def test_moe_matches_a_dense_reference_and_one_row_path():
    moe, w = random_moe()
    x = torch.randn(7, 16, generator=torch.Generator().manual_seed(2))
    silu = torch.nn.functional.silu

    def expert(e, row):
        g, u, dn = (
            dequantize_blocks(
                w[f"experts.{e}.{p}.weight"],
                w[f"experts.{e}.{p}.weight_scale_inv"],
                (128, 128),
                torch.float32,
            )
            for p in ("gate_proj", "up_proj", "down_proj")
        )
        return dn @ (silu(g @ row) * (u @ row))

    expected = []
    for row in x:
        probs = torch.softmax(w["gate.weight"] @ row, -1)
        top, ids = probs.topk(2)
        routed = sum(t / top.sum() * expert(int(e), row) for t, e in zip(top, ids))
        shared = w["shared_expert.down_proj.weight"] @ (
            silu(w["shared_expert.gate_proj.weight"] @ row)
            * (w["shared_expert.up_proj.weight"] @ row)
        )
        expected.append(routed + torch.sigmoid(w["shared_expert_gate.weight"] @ row) * shared)
    expected = torch.stack(expected)
    assert torch.allclose(moe(x), expected, atol=1e-5)
    assert torch.allclose(torch.cat([moe(x[i : i + 1]) for i in range(7)]), expected, atol=1e-5)
    assert moe.experts.gate_proj.dtype == torch.float8_e4m3fn


def test_the_compiled_moe_step_keeps_routed_experts_in_fp8():
    # The compiled one-row step must fuse the routed experts' dequantisation into their
    # products: a step that writes the picked experts out in float32 and hands them to a matmul
    # decoded about half as fast on the CPU (bench/backbone_cpu.py), with no graph break to show it.
    d, inter = 256, 128  # whole 128x128 blocks, as in the real model
    moe = random_moe(d, experts=4, inter=inter, top_k=2)[0]
    x = torch.randn(1, d, generator=torch.Generator().manual_seed(3))
    compiled = torch.compile(moe, fullgraph=True, dynamic=False)
    out, codes = run_and_get_code(compiled, x)
    allocations = [
        math.prod(int(n) for n in shape.split(",") if n.strip())
        for code in codes
        for shape in re.findall(r"empty_strided_cpu\(\(([^)]*)\)", code)
    ]
    assert allocations and max(allocations) < inter * d  # nothing the size of one expert's weight
    expected = moe(x)
    assert (out - expected).abs().max() <= 1e-5 * expected.abs().max()


def test_attention_chunk_after_cache_is_causal():
    q, k, v = torch.randn(10, 4, 8), torch.randn(2, 10, 8), torch.randn(2, 10, 8)
    full = causal_gqa_attention(q, k, v, 8**-0.5)
    assert torch.allclose(causal_gqa_attention(q[6:], k, v, 8**-0.5), full[6:], atol=1e-6)
    assert torch.allclose(causal_gqa_attention(q[9:], k, v, 8**-0.5), full[9:], atol=1e-6)
    # Query head 3 reads kv head 1 (heads 0-1 → kv 0, 2-3 → kv 1).
    scores = torch.softmax((q[3, 3] @ k[1, :4].t()) * 8**-0.5, -1)
    assert torch.allclose(full[3, 3], scores @ v[1, :4], atol=1e-6)
