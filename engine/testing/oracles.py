"""Reference models on the engine's own checkpoints, for parity tests and benchmarks.

`transformers_backbone(checkpoint)` builds transformers' Qwen3.5-MoE causal LM holding the same
weights as a Drama 3 checkpoint's backbone (the backbone oracle of DESIGN "Testing"): dense
tensors renamed from `model.language_model.` to `model.`, routed experts dequantised from block
FP8 and stacked the way transformers keeps them. Needs `transformers` (imported on call).
"""

from __future__ import annotations

import inspect

import torch

from engine.checkpoint import BACKBONE_PREFIX, Checkpoint
from engine.layers.fp8 import dequantize_blocks

# `text_config` keys that transformers' Qwen3_5MoeTextConfig takes as they are.
TEXT_CONFIG_KEYS = (
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "linear_conv_kernel_dim",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "num_experts_per_tok",
    "num_experts",
    "rms_norm_eps",
    "layer_types",
    "rope_parameters",
    "max_position_embeddings",
)
_TRANSFORMERS_PREFIX = "model."


def transformers_backbone(
    checkpoint: Checkpoint, dtype: torch.dtype = torch.float32, attention: str = "eager"
) -> torch.nn.Module:
    """transformers' `Qwen3_5MoeForCausalLM` with the backbone weights of `checkpoint` in
    `dtype`, on the CPU, in eval mode; `attention` is its `_attn_implementation` ("eager",
    "sdpa"). Called on input ids `[1, N]` it gives full-vocabulary logits `[1, N, vocab]`.

    Raises ImportError without transformers, CheckpointError for an unreadable tensor, and
    RuntimeError (from `load_state_dict`) when the two models' tensors do not match.
    """
    # optional: transformers (the test extra)
    from transformers import Qwen3_5MoeTextConfig
    from transformers.models.qwen3_5_moe import modeling_qwen3_5_moe as modeling

    # With flash-linear-attention installed, transformers binds its Triton kernels for the gated
    # delta rule when the module is imported, and those cannot run on the CPU; the oracle runs
    # the module's own torch functions, which the wrappers keep as `__wrapped__`.
    for name in ("torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule"):
        setattr(modeling, name, inspect.unwrap(getattr(modeling, name)))

    text = checkpoint.config.raw["text_config"]
    config = Qwen3_5MoeTextConfig(
        **{k: text[k] for k in TEXT_CONFIG_KEYS}, tie_word_embeddings=False
    )
    config._attn_implementation = attention
    with torch.device("meta"):  # the weights are assigned below; no random init
        model = modeling.Qwen3_5MoeForCausalLM(config)
    model.load_state_dict(transformers_state_dict(checkpoint, dtype), strict=True, assign=True)
    model.model.rotary_emb.__init__(config)  # its buffers are not in the state dict
    return model.to(dtype).eval()


def transformers_state_dict(
    checkpoint: Checkpoint, dtype: torch.dtype = torch.float32
) -> dict[str, torch.Tensor]:
    """The backbone tensors of `checkpoint` under transformers' Qwen3.5-MoE names, in `dtype`:
    experts of layer l as `model.layers.l.mlp.experts.gate_up_proj` `[E, 2·I, D]` (gate rows
    first) and `...down_proj` `[E, D, I]`, dequantised from block FP8 (docs/internals/model.md §2.1).
    Raises CheckpointError for an unreadable tensor.
    """
    config = checkpoint.config
    state = {}
    for name in checkpoint.names():
        if (
            name.startswith(BACKBONE_PREFIX) or name == "lm_head.weight"
        ) and ".experts." not in name:
            state[name.replace(BACKBONE_PREFIX, _TRANSFORMERS_PREFIX)] = checkpoint.load_tensor(
                name, dtype=dtype
            )
    for layer in range(config.num_layers):
        source = f"{BACKBONE_PREFIX}layers.{layer}.mlp.experts."

        def expert(index: int, projection: str, source: str = source) -> torch.Tensor:
            weight = checkpoint.load_tensor(f"{source}{index}.{projection}.weight")
            scale = checkpoint.load_tensor(f"{source}{index}.{projection}.weight_scale_inv")
            return dequantize_blocks(weight, scale, config.weight_block_size, dtype)

        experts = range(config.text.num_experts)
        target = f"{_TRANSFORMERS_PREFIX}layers.{layer}.mlp.experts."
        state[f"{target}gate_up_proj"] = torch.stack(
            [torch.cat((expert(e, "gate_proj"), expert(e, "up_proj"))) for e in experts]
        )
        state[f"{target}down_proj"] = torch.stack([expert(e, "down_proj") for e in experts])
    return state
