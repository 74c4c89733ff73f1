"""The Gated DeltaNet decode step through flash-linear-attention's fused recurrent kernel
(docs/internals/model.md §3.2, "Gated DeltaNet mixer"; docs/internals/engine.md, "Kernels").

`gated_delta_step` is registered as the custom op `drama::gated_delta_step`: torch.compile keeps
it as one opaque call that updates the recurrent state in place (no graph break), and it can be
captured in a CUDA graph. It runs where flash-linear-attention's Triton kernels run: on CUDA, or
on CPU tensors under the Triton interpreter (`TRITON_INTERPRET=1` set before fla is imported).
"""

from __future__ import annotations

import torch


def fla_kernels():
    """(chunked, fused recurrent) gated delta rule functions of flash-linear-attention, or None
    when it (or Triton) cannot be imported."""
    try:
        # optional: flash-linear-attention (needs triton and a GPU, or the interpreter)
        from fla.ops.gated_delta_rule import (
            chunk_gated_delta_rule,
            fused_recurrent_gated_delta_rule,
        )
    except Exception:  # flash-linear-attention needs triton and a GPU (or the interpreter)
        return None
    return chunk_gated_delta_rule, fused_recurrent_gated_delta_rule


@torch.library.custom_op("drama::gated_delta_step", mutates_args=("state",))
def gated_delta_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    g: torch.Tensor,
    beta: torch.Tensor,
    state: torch.Tensor,
    scale: float,
) -> torch.Tensor:
    """T tokens of the gated delta rule from `state`, fused (q and k L2-normalised in the kernel).

    q, k: `[T, H, key_dim]` (heads already repeated to the value heads); v: `[T, H, value_dim]`;
    g (log decay ≤ 0), beta: `[T, H]` float32; state: `[H, key_dim, value_dim]` float32, replaced
    by the final state; scale: the query scale (key_dim^-1/2). Returns `[T, H, value_dim]` in v's
    dtype. Raises RuntimeError when flash-linear-attention is unavailable.
    """
    kernels = fla_kernels()
    if kernels is None:
        raise RuntimeError("flash-linear-attention is not importable")
    out, final = kernels[1](
        q[None],
        k[None],
        v[None],
        g=g[None],
        beta=beta[None].to(v.dtype),
        scale=scale,
        initial_state=state[None],
        output_final_state=True,
        use_qk_l2norm_in_kernel=True,
    )
    state.copy_(final[0])
    return out[0]


@gated_delta_step.register_fake
def _(q, k, v, g, beta, state, scale):
    return torch.empty_like(v)
