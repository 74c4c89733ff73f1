"""Grouped Triton matmuls for the block-FP8 routed experts of a prefill (docs/internals/engine.md, "Kernels").

For rows x `[N, D]` (any N, meant for N > 16) routed to k experts each, the N·k (row, slot)
pairs are grouped by expert and each expert's group is padded to whole row blocks of BLOCK_ROWS
(16, 32 or 64: the smallest holding the mean group).
Two launches then tile (row block, output block); each row block belongs to one expert:

    hidden[p] = silu(G_e · x_row(p)) ⊙ (U_e · x_row(p))     (gate/up kernel, tiles over I)
    part[p]   = w[p] · D_e · hidden[p]                       (down kernel, tiles over D)

and `out[n] = Σ_s part[n·k + s]` sums each row's k parts. Weight tiles are read as
float8_e4m3fn, converted in registers to x's dtype (exact: every e4m3 value is a bf16, fp16 and
fp32 value) and multiplied on the tensor cores against x's tile with fp32 accumulation; the
fp32 128×128 block scale multiplies the partial product of its tile, since a tile never
straddles a scale block. No dequantised copy of any expert is made. `hidden` is kept in x's
dtype (as the torch reference rounds it), the parts in fp32.

Grouping runs on the device without a host sync: the number of row blocks is bounded by
ceil(N·k / BLOCK_ROWS) + E, and blocks past the last expert's are skipped by the kernels.

`fp8_experts_grouped` is registered as the custom op `drama::fp8_experts_grouped`.
"""

from __future__ import annotations

import torch

from engine.kernels.fp8_experts import build_kernel, interpreting

try:
    import triton
    import triton.language as tl
except ImportError:  # the engine runs without triton; callers check `fp8_experts.available()`
    triton = None

ROW_BLOCKS = (16, 32, 64)  # rows of one tile (by the mean rows per expert); groups pad to it
FIXED_CONFIG = {"BLOCK_OUT": 128, "BLOCK_IN": 128}  # the interpreter's configuration
TUNED_CONFIGS = (
    (64, 64, 4, 3),
    (128, 64, 4, 3),
    (128, 128, 8, 3),
    (64, 128, 4, 4),
)  # out, in, warps, stages


if triton is not None:

    @triton.jit
    def _tile(
        pairs_ptr, block_expert_ptr, outputs, BLOCK_ROWS: tl.constexpr, BLOCK_OUT: tl.constexpr
    ):
        """This program's tile: (expert, padded positions, pairs, which are real, output
        indices, which are in range, output block)."""
        row_block = tl.program_id(0)
        out_block = tl.program_id(1)
        expert = tl.load(block_expert_ptr + row_block).to(tl.int64)
        slots = row_block * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
        pairs = tl.load(pairs_ptr + slots)
        outs = out_block * BLOCK_OUT + tl.arange(0, BLOCK_OUT)
        return expert, slots.to(tl.int64), pairs, pairs >= 0, outs, outs < outputs, out_block

    @triton.jit
    def _operands(
        act_ptr,
        act_rows,
        row_ok,
        weight_ptr,
        weight_base,
        outs,
        out_ok,
        start,
        width,
        BLOCK_IN: tl.constexpr,
    ):
        """The activation tile `[rows, BLOCK_IN]` (rows `act_rows` of a `[*, width]` matrix) and
        the weight tile `[BLOCK_IN, BLOCK_OUT]` (rows `outs` of the `[*, width]` FP8 matrix at
        `weight_base`), the weights converted to the activations' dtype; zeros outside."""
        ins = start + tl.arange(0, BLOCK_IN)
        in_ok = ins < width
        act = tl.load(
            act_ptr + act_rows[:, None] * width + ins[None, :],
            mask=row_ok[:, None] & in_ok[None, :],
            other=0.0,
        )
        offsets = weight_base + outs[None, :] * width + ins[:, None]
        weight = tl.load(weight_ptr + offsets, mask=in_ok[:, None] & out_ok[None, :], other=0.0)
        return act, weight.to(act.dtype), offsets, in_ok[:, None] & out_ok[None, :]

    def _gate_up_kernel(
        x_ptr,
        pairs_ptr,
        block_expert_ptr,
        gate_ptr,
        up_ptr,
        gate_scale_ptr,
        up_scale_ptr,
        hidden_ptr,
        num_experts,
        top_k,
        dim,
        inter,
        scale_rows,
        scale_cols,
        SCALE_BLOCK: tl.constexpr,
        BLOCK_ROWS: tl.constexpr,
        BLOCK_OUT: tl.constexpr,
        BLOCK_IN: tl.constexpr,
        PRECISION: tl.constexpr,
        DOT_FP32: tl.constexpr,
    ):
        expert, slots, pairs, row_ok, outs, out_ok, out_block = _tile(
            pairs_ptr, block_expert_ptr, inter, BLOCK_ROWS, BLOCK_OUT
        )
        if expert < num_experts:
            rows = tl.where(row_ok, pairs // top_k, 0).to(tl.int64)
            gate_acc = tl.zeros((BLOCK_ROWS, BLOCK_OUT), dtype=tl.float32)
            up_acc = tl.zeros((BLOCK_ROWS, BLOCK_OUT), dtype=tl.float32)
            weight_base = expert * inter * dim
            scale_base = (
                expert * scale_rows * scale_cols
                + (out_block * BLOCK_OUT // SCALE_BLOCK) * scale_cols
            )
            for start in range(0, dim, BLOCK_IN):
                x, gate, offsets, ok = _operands(
                    x_ptr, rows, row_ok, gate_ptr, weight_base, outs, out_ok, start, dim, BLOCK_IN
                )
                up = tl.load(up_ptr + offsets, mask=ok, other=0.0).to(x.dtype)
                if DOT_FP32:
                    x, gate, up = x.to(tl.float32), gate.to(tl.float32), up.to(tl.float32)
                column = start // SCALE_BLOCK
                gate_acc += tl.dot(x, gate, input_precision=PRECISION) * tl.load(
                    gate_scale_ptr + scale_base + column
                )
                up_acc += tl.dot(x, up, input_precision=PRECISION) * tl.load(
                    up_scale_ptr + scale_base + column
                )
            hidden = gate_acc / (1.0 + tl.exp(-gate_acc)) * up_acc
            tl.store(
                hidden_ptr + slots[:, None] * inter + outs[None, :],
                hidden.to(hidden_ptr.dtype.element_ty),
                mask=row_ok[:, None] & out_ok[None, :],
            )

    def _down_kernel(
        hidden_ptr,
        pairs_ptr,
        block_expert_ptr,
        weights_ptr,
        down_ptr,
        down_scale_ptr,
        parts_ptr,
        num_experts,
        dim,
        inter,
        scale_rows,
        scale_cols,
        SCALE_BLOCK: tl.constexpr,
        BLOCK_ROWS: tl.constexpr,
        BLOCK_OUT: tl.constexpr,
        BLOCK_IN: tl.constexpr,
        PRECISION: tl.constexpr,
        DOT_FP32: tl.constexpr,
    ):
        expert, slots, pairs, row_ok, outs, out_ok, out_block = _tile(
            pairs_ptr, block_expert_ptr, dim, BLOCK_ROWS, BLOCK_OUT
        )
        if expert < num_experts:
            safe_pairs = tl.where(row_ok, pairs, 0).to(tl.int64)
            acc = tl.zeros((BLOCK_ROWS, BLOCK_OUT), dtype=tl.float32)
            weight_base = expert * dim * inter
            scale_base = (
                expert * scale_rows * scale_cols
                + (out_block * BLOCK_OUT // SCALE_BLOCK) * scale_cols
            )
            for start in range(0, inter, BLOCK_IN):
                hidden, down, _, _ = _operands(
                    hidden_ptr,
                    slots,
                    row_ok,
                    down_ptr,
                    weight_base,
                    outs,
                    out_ok,
                    start,
                    inter,
                    BLOCK_IN,
                )
                if DOT_FP32:
                    hidden, down = hidden.to(tl.float32), down.to(tl.float32)
                acc += tl.dot(hidden, down, input_precision=PRECISION) * tl.load(
                    down_scale_ptr + scale_base + start // SCALE_BLOCK
                )
            routing = tl.load(weights_ptr + safe_pairs, mask=row_ok, other=0.0).to(tl.float32)
            tl.store(
                parts_ptr + safe_pairs[:, None] * dim + outs[None, :],
                acc * routing[:, None],
                mask=row_ok[:, None] & out_ok[None, :],
            )

    _BODIES = {"gate_up": _gate_up_kernel, "down": _down_kernel}

_BUILT: dict[tuple[object, bool], object] = {}


def _kernel(name: str):
    """(kernel, launch constants): under the interpreter the kernel with `FIXED_CONFIG`, else
    its autotuned form (`fp8_experts.build_kernel`)."""
    configs = [(o, i, w, {"num_stages": s}) for o, i, w, s in TUNED_CONFIGS]
    return build_kernel(_BUILT, _BODIES[name], FIXED_CONFIG, configs)


def row_block(pairs: int, num_experts: int) -> int:
    """The tile height for `pairs` (row, expert) pairs over `num_experts` experts: the smallest
    of `ROW_BLOCKS` holding the mean group, so small groups waste little padding."""
    mean = -(-pairs // num_experts)
    return next((b for b in ROW_BLOCKS if mean <= b), ROW_BLOCKS[-1])


def group_by_expert(
    ids: torch.Tensor, num_experts: int, block_rows: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The (row, slot) pairs of `ids` [N, k] grouped by expert, without a host sync.

    Returns (pairs [B·block_rows] int32: the flat pair index n·k + s at each padded position,
    −1 for padding; block_expert [B] int32: the expert of each row block, `num_experts` for
    blocks past the last group), where B = ceil(N·k / block_rows) + num_experts bounds the
    blocks any grouping needs. Each expert's pairs keep their order and start a fresh block.
    """
    flat = ids.reshape(-1)
    total = flat.numel()
    blocks = -(-total // block_rows) + num_experts
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=num_experts)
    padded = (counts + block_rows - 1) // block_rows * block_rows
    padded_end = torch.cumsum(padded, 0)
    group_start = torch.cumsum(counts, 0) - counts
    sorted_experts = flat[order]
    rank = torch.arange(total, device=ids.device) - group_start[sorted_experts]
    position = padded_end[sorted_experts] - padded[sorted_experts] + rank
    pairs = torch.full((blocks * block_rows,), -1, dtype=torch.int32, device=ids.device)
    pairs[position] = order.to(torch.int32)
    block_start = torch.arange(blocks, device=ids.device) * block_rows
    block_expert = torch.searchsorted(padded_end, block_start, right=True).to(torch.int32)
    return pairs, block_expert


def _check(x, ids, gate, gate_scale, block: int) -> None:
    if triton is None:
        raise RuntimeError("triton is not installed")
    if x.ndim != 2 or ids.ndim != 2 or ids.shape[0] != x.shape[0]:
        raise ValueError(
            f"expected x [N, D] and ids [N, k]; got {tuple(x.shape)}, {tuple(ids.shape)}"
        )
    if gate.dtype != torch.float8_e4m3fn or gate_scale.dtype != torch.float32:
        raise ValueError("expected float8_e4m3fn weights with float32 block scales")
    if x.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise ValueError(f"expected x in float32, bfloat16 or float16; got {x.dtype}")
    sizes = [FIXED_CONFIG["BLOCK_OUT"], FIXED_CONFIG["BLOCK_IN"]] + [
        s for c in TUNED_CONFIGS for s in c[:2]
    ]
    if any(block % s for s in sizes):
        raise ValueError(f"scale block {block} must be a multiple of every tile size")


def fp8_experts_grouped_triton(
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
    """Σ_s weights[n, s] · SwiGLU_{ids[n, s]}(x_n) for many rows, as two grouped Triton launches.

    x: `[N, D]` float32, bfloat16 or float16; weights: `[N, k]` routing weights; ids: `[N, k]`
    expert ids; gate, up: `[E, I, D]` and down: `[E, D, I]` float8_e4m3fn; *_scale: their fp32
    block scales `[E, ceil(rows / block), ceil(cols / block)]`; block: the square scale block
    (128). Returns `[N, D]` in x's dtype. Raises ValueError for other shapes or dtypes and
    RuntimeError without Triton.
    """
    if x.shape[0] == 0:
        _check(x, ids, gate, gate_scale, block)
        return x.new_zeros(x.shape)
    parts = fp8_expert_parts(
        x, weights, ids, gate, up, down, gate_scale, up_scale, down_scale, block
    )
    return parts.view(x.shape[0], ids.shape[1], x.shape[1]).sum(1).to(x.dtype)


def fp8_expert_parts(
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
    """The weighted output of every (row, slot) pair before the sum over slots: `[N·k, D]` fp32,
    row n·k + s = weights[n, s] · SwiGLU_{ids[n, s]}(x_n). Arguments and errors as
    `fp8_experts_grouped_triton` (N ≥ 1). Each pair's part depends only on its row, expert and
    weight, so parts computed in separate calls (e.g. one call per group of cached experts) sum
    to the same result."""
    _check(x, ids, gate, gate_scale, block)
    rows, dim = x.shape
    top_k, experts, inter = ids.shape[1], gate.shape[0], gate.shape[1]
    x = x.contiguous()
    weights = weights.float().contiguous()
    block_rows = row_block(ids.numel(), experts)
    pairs, block_expert = group_by_expert(ids, experts, block_rows)
    hidden = torch.empty(pairs.numel(), inter, dtype=x.dtype, device=x.device)
    parts = torch.empty(rows * top_k, dim, dtype=torch.float32, device=x.device)
    precision = "ieee" if x.dtype == torch.float32 else "tf32"  # tf32 is not used for 16-bit inputs
    # The interpreter's tl.dot misreads 16-bit floats: there the exact 16-bit operands are
    # multiplied in fp32 (same products, same fp32 accumulation).
    dot_fp32 = x.dtype != torch.float32 and interpreting()
    kernel, config = _kernel("gate_up")
    kernel[lambda meta: (block_expert.numel(), triton.cdiv(inter, meta["BLOCK_OUT"]))](
        x,
        pairs,
        block_expert,
        gate,
        up,
        gate_scale,
        up_scale,
        hidden,
        experts,
        top_k,
        dim,
        inter,
        gate_scale.shape[1],
        gate_scale.shape[2],
        SCALE_BLOCK=block,
        BLOCK_ROWS=block_rows,
        PRECISION=precision,
        DOT_FP32=dot_fp32,
        **config,
    )
    kernel, config = _kernel("down")
    kernel[lambda meta: (block_expert.numel(), triton.cdiv(dim, meta["BLOCK_OUT"]))](
        hidden,
        pairs,
        block_expert,
        weights,
        down,
        down_scale,
        parts,
        experts,
        dim,
        inter,
        down_scale.shape[1],
        down_scale.shape[2],
        SCALE_BLOCK=block,
        BLOCK_ROWS=block_rows,
        PRECISION=precision,
        DOT_FP32=dot_fp32,
        **config,
    )
    return parts


@torch.library.custom_op("drama::fp8_experts_grouped", mutates_args=())
def fp8_experts_grouped(
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
    """`fp8_experts_grouped_triton` as a torch custom op (opaque to torch.compile). Arguments,
    result and errors as there."""
    return fp8_experts_grouped_triton(
        x, weights, ids, gate, up, down, gate_scale, up_scale, down_scale, block
    )


@fp8_experts_grouped.register_fake
def _(x, weights, ids, gate, up, down, gate_scale, up_scale, down_scale, block):
    return x.new_empty(x.shape)
