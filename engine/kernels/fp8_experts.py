"""Triton kernels for the block-FP8 routed experts of a few decode rows (docs/internals/engine.md, "Kernels").

For rows x `[N, D]` (N ≤ 16) routed to k experts each, two launches compute

    hidden[n, s] = silu(G_e · x_n) ⊙ (U_e · x_n)                  (gate/up kernel)
    out[n]       = Σ_s w[n, s] · D_e · hidden[n, s]               (down kernel)

with e = ids[n, s], reading the float8_e4m3fn weights G, U `[E, I, D]` and D `[E, D, I]` and
their fp32 block scales `[E, ceil(out / b), ceil(in / b)]` (b = 128) directly: each weight tile
is converted to fp32 in registers and multiplied by its block's scale; no dequantised copy is
made. Accumulation is fp32; `hidden` is kept in fp32 between the launches; `out` takes x's dtype.

Tiles are at most one scale block wide in each direction and divide the block size, so a tile
reads one scale. On a GPU the tile sizes are autotuned; under the Triton interpreter
(`TRITON_INTERPRET=1`, which runs kernels on CPU tensors and has no benchmarker) a fixed
configuration is used.

`fp8_experts_rows` is registered as the custom op `drama::fp8_experts_rows` so torch.compile
keeps it as one opaque call (no graph break).
"""

from __future__ import annotations

import os

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # the engine runs without triton; callers check `available()`
    triton = None

MAX_ROWS = 16  # decode rows the kernels are meant for (more rows: the grouped prefill path)
FIXED_CONFIG = {"BLOCK_OUT": 32, "BLOCK_IN": 64}  # the interpreter's configuration
TUNED_CONFIGS = (
    (32, 128, 4),
    (64, 128, 4),
    (16, 128, 2),
    (64, 64, 4),
    (128, 128, 8),
)  # out, in, warps


def interpreting() -> bool:
    """True when Triton runs kernels in its CPU interpreter (`TRITON_INTERPRET=1`)."""
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def available(device: torch.device) -> bool:
    """Whether the kernels can run for tensors on `device`: Triton importable and either a
    CUDA device or the interpreter."""
    return triton is not None and (device.type == "cuda" or interpreting())


if triton is not None:

    def _gate_up_kernel(
        x_ptr,
        ids_ptr,
        gate_ptr,
        up_ptr,
        gate_scale_ptr,
        up_scale_ptr,
        hidden_ptr,
        top_k,
        dim,
        inter,
        scale_rows,
        scale_cols,
        SCALE_BLOCK: tl.constexpr,
        BLOCK_OUT: tl.constexpr,
        BLOCK_IN: tl.constexpr,
    ):
        pair = tl.program_id(0)  # row * top_k + slot
        out_block = tl.program_id(1)
        row = pair // top_k
        expert = tl.load(ids_ptr + pair).to(tl.int64)
        outs = out_block * BLOCK_OUT + tl.arange(0, BLOCK_OUT)
        out_ok = outs < inter
        gate_acc = tl.zeros((BLOCK_OUT,), dtype=tl.float32)
        up_acc = tl.zeros((BLOCK_OUT,), dtype=tl.float32)
        weight_base = expert * inter * dim
        scale_base = (
            expert * scale_rows * scale_cols + (out_block * BLOCK_OUT // SCALE_BLOCK) * scale_cols
        )
        for start in range(0, dim, BLOCK_IN):
            ins = start + tl.arange(0, BLOCK_IN)
            in_ok = ins < dim
            x = tl.load(x_ptr + row * dim + ins, mask=in_ok, other=0.0).to(tl.float32)
            offsets = weight_base + outs[:, None] * dim + ins[None, :]
            ok = out_ok[:, None] & in_ok[None, :]
            gate = tl.load(gate_ptr + offsets, mask=ok, other=0.0).to(tl.float32)
            up = tl.load(up_ptr + offsets, mask=ok, other=0.0).to(tl.float32)
            column = start // SCALE_BLOCK
            gate_acc += tl.sum(gate * x[None, :], axis=1) * tl.load(
                gate_scale_ptr + scale_base + column
            )
            up_acc += tl.sum(up * x[None, :], axis=1) * tl.load(up_scale_ptr + scale_base + column)
        hidden = gate_acc / (1.0 + tl.exp(-gate_acc)) * up_acc
        tl.store(hidden_ptr + pair * inter + outs, hidden, mask=out_ok)

    def _down_kernel(
        hidden_ptr,
        ids_ptr,
        weights_ptr,
        down_ptr,
        down_scale_ptr,
        out_ptr,
        top_k,
        dim,
        inter,
        scale_rows,
        scale_cols,
        SCALE_BLOCK: tl.constexpr,
        BLOCK_OUT: tl.constexpr,
        BLOCK_IN: tl.constexpr,
    ):
        row = tl.program_id(0)
        out_block = tl.program_id(1)
        outs = out_block * BLOCK_OUT + tl.arange(0, BLOCK_OUT)
        out_ok = outs < dim
        acc = tl.zeros((BLOCK_OUT,), dtype=tl.float32)
        for slot in range(0, top_k):
            pair = row * top_k + slot
            expert = tl.load(ids_ptr + pair).to(tl.int64)
            routing = tl.load(weights_ptr + pair).to(tl.float32)
            weight_base = expert * dim * inter
            scale_base = (
                expert * scale_rows * scale_cols
                + (out_block * BLOCK_OUT // SCALE_BLOCK) * scale_cols
            )
            part = tl.zeros((BLOCK_OUT,), dtype=tl.float32)
            for start in range(0, inter, BLOCK_IN):
                ins = start + tl.arange(0, BLOCK_IN)
                in_ok = ins < inter
                hidden = tl.load(hidden_ptr + pair * inter + ins, mask=in_ok, other=0.0)
                offsets = weight_base + outs[:, None] * inter + ins[None, :]
                down = tl.load(
                    down_ptr + offsets, mask=out_ok[:, None] & in_ok[None, :], other=0.0
                ).to(tl.float32)
                part += tl.sum(down * hidden[None, :], axis=1) * tl.load(
                    down_scale_ptr + scale_base + start // SCALE_BLOCK
                )
            acc += routing * part
        tl.store(out_ptr + row * dim + outs, acc.to(out_ptr.dtype.element_ty), mask=out_ok)

    _BODIES = {"gate_up": _gate_up_kernel, "down": _down_kernel}

_BUILT: dict[tuple[object, bool], object] = {}


def build_kernel(cache: dict, body, fixed_config: dict, configs) -> tuple:
    """(kernel, launch constants) for the Triton function `body`: under the interpreter the
    plain kernel with `fixed_config`, else its form autotuned over `configs` ((BLOCK_OUT,
    BLOCK_IN, warps, extra `triton.Config` options) each), keyed on `dim` and `inter`. Built on
    first use and kept in `cache`, so the interpreter setting of that moment counts."""
    interpret = interpreting()
    key = (body, interpret)
    if key not in cache:
        kernel = triton.jit(body)
        if not interpret:
            tuned = [
                triton.Config({"BLOCK_OUT": o, "BLOCK_IN": i}, num_warps=w, **extra)
                for o, i, w, extra in configs
            ]
            kernel = triton.autotune(tuned, key=["dim", "inter"])(kernel)
        cache[key] = kernel
    return cache[key], dict(fixed_config) if interpret else {}


def _kernel(name: str):
    """(kernel, launch constants) of the decode kernel `name` (`build_kernel`)."""
    return build_kernel(
        _BUILT, _BODIES[name], FIXED_CONFIG, [(o, i, w, {}) for o, i, w in TUNED_CONFIGS]
    )


def _check(x, ids, gate, gate_scale, block: int) -> None:
    if triton is None:
        raise RuntimeError("triton is not installed")
    if x.ndim != 2 or ids.shape[0] != x.shape[0] or x.shape[0] > MAX_ROWS:
        raise ValueError(
            f"expected x [N <= {MAX_ROWS}, D] and ids [N, k]; got {tuple(x.shape)}, {tuple(ids.shape)}"
        )
    if gate.dtype != torch.float8_e4m3fn or gate_scale.dtype != torch.float32:
        raise ValueError("expected float8_e4m3fn weights with float32 block scales")
    if block % FIXED_CONFIG["BLOCK_IN"] or any(block % o or block % i for o, i, _ in TUNED_CONFIGS):
        raise ValueError(f"scale block {block} must be a multiple of every tile size")


def fp8_experts_rows_triton(
    x: torch.Tensor,
    weights: torch.Tensor,
    ids: torch.Tensor,
    gate: torch.Tensor,
    up: torch.Tensor,
    down: torch.Tensor,
    gate_scale: torch.Tensor,
    up_scale: torch.Tensor,
    down_scale: torch.Tensor,
    block: int = 128,
) -> torch.Tensor:
    """Σ_s weights[n, s] · SwiGLU_{ids[n, s]}(x_n) for decode rows, in two Triton launches.

    x: `[N, D]` (N ≤ 16) any float dtype; weights: `[N, k]` routing weights; ids: `[N, k]`
    int64 expert ids; gate, up: `[E, I, D]` and down: `[E, D, I]` float8_e4m3fn; *_scale: their
    fp32 block scales `[E, ceil(rows / block), ceil(cols / block)]`; block: the square scale
    block (128). Returns `[N, D]` in x's dtype. Raises ValueError for other shapes or dtypes
    and RuntimeError without Triton.
    """
    _check(x, ids, gate, gate_scale, block)
    rows, dim = x.shape
    top_k, inter = ids.shape[1], gate.shape[1]
    x, ids = x.contiguous(), ids.contiguous()
    weights = weights.float().contiguous()
    hidden = torch.empty(rows * top_k, inter, dtype=torch.float32, device=x.device)
    out = torch.empty(rows, dim, dtype=x.dtype, device=x.device)
    kernel, config = _kernel("gate_up")
    kernel[lambda meta: (rows * top_k, triton.cdiv(inter, meta["BLOCK_OUT"]))](
        x,
        ids,
        gate,
        up,
        gate_scale,
        up_scale,
        hidden,
        top_k,
        dim,
        inter,
        gate_scale.shape[1],
        gate_scale.shape[2],
        SCALE_BLOCK=block,
        **config,
    )
    kernel, config = _kernel("down")
    kernel[lambda meta: (rows, triton.cdiv(dim, meta["BLOCK_OUT"]))](
        hidden,
        ids,
        weights,
        down,
        down_scale,
        out,
        top_k,
        dim,
        inter,
        down_scale.shape[1],
        down_scale.shape[2],
        SCALE_BLOCK=block,
        **config,
    )
    return out


@torch.library.custom_op("drama::fp8_experts_rows", mutates_args=())
def fp8_experts_rows(
    x: torch.Tensor,
    weights: torch.Tensor,
    ids: torch.Tensor,
    gate: torch.Tensor,
    up: torch.Tensor,
    down: torch.Tensor,
    gate_scale: torch.Tensor,
    up_scale: torch.Tensor,
    down_scale: torch.Tensor,
    block: int,
) -> torch.Tensor:
    """`fp8_experts_rows_triton` as a torch custom op (opaque to torch.compile, capturable in a
    CUDA graph). Arguments, result and errors as there."""
    return fp8_experts_rows_triton(
        x, weights, ids, gate, up, down, gate_scale, up_scale, down_scale, block
    )


@fp8_experts_rows.register_fake
def _(x, weights, ids, gate, up, down, gate_scale, up_scale, down_scale, block):
    return x.new_empty(x.shape)
