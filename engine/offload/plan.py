"""The memory plan: how a device budget splits between resident weights, KV and activation
reserves, and the routed-expert cache (docs/internals/engine.md, "Expert offload").

Every size comes from the tensors the model folder's config implies (the list `Checkpoint.verify`
checks the shards against) and from the codec file's size; nothing about the release is
assumed here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from engine.checkpoint import expected_tensors, is_routed_expert
from engine.config import Drama3Config
from engine.errors import EngineError
from engine.offload.offload import OffloadSettings
from engine.offload.sizes import device_free_bytes, format_size

MARGIN_BYTES = 1 << 30  # CUDA context, allocator slack and the codec's workspaces (CUDA only)
CONTEXT_ROWS = 16_384  # the longest take's rows (prompt + frames) the KV reserve holds
PREFILL_ROWS = 256  # rows of one prefill chunk (engine.generate.PREFILL_CHUNK_ROWS)
CODEC_FILE = "codec.pth"


class ModelDoesNotFit(EngineError):
    """The model needs more device memory than the budget (or the device's free memory)."""


@dataclass(frozen=True)
class MemoryPlan:
    """One budget's split, all sizes in bytes.

    resident_bytes: every weight but the routed experts (with the codec); reserve_bytes: KV
    caches for `context_rows` rows at batch 1, the Gated DeltaNet state and a prefill chunk's
    activations; slots: routed experts per layer the cache holds (`num_experts` = all of them,
    no offload); kv_room_frames: rows of KV the memory left after the cache holds;
    full_bytes / minimum_bytes: the budget for full residency / for `top_k` slots per layer.
    """

    budget_bytes: int
    resident_bytes: int
    reserve_bytes: int
    margin_bytes: int
    expert_bytes: int
    layers: int
    num_experts: int
    top_k: int
    slots: int
    kv_bytes_per_frame: int
    kv_room_frames: int
    full_bytes: int
    minimum_bytes: int

    @property
    def cache_bytes(self) -> int:
        """Bytes of the expert cache on the device (all layers)."""
        return self.slots * self.layers * self.expert_bytes

    @property
    def fits(self) -> bool:
        """At least one token's experts fit per layer."""
        return self.slots >= self.top_k

    @property
    def offloaded(self) -> bool:
        """Some routed experts stay in host memory."""
        return self.slots < self.num_experts

    @property
    def uniform_hit_rate(self) -> float:
        """The hit rate when every expert is equally likely (slots / experts): the worst case."""
        return self.slots / self.num_experts

    def copied_bytes_per_frame(self, hit_rate: float) -> int:
        """Bytes copied to the device per decoded frame at `hit_rate` (0..1): each backbone
        layer looks up `top_k` experts per frame, and each miss copies one expert."""
        return int(round((1.0 - hit_rate) * self.top_k * self.layers * self.expert_bytes))

    def as_dict(self) -> dict:
        """The plan's fields and derived figures as a plain dict."""
        return {
            **asdict(self),
            "cache_bytes": self.cache_bytes,
            "offloaded": self.offloaded,
            "fits": self.fits,
            "uniform_hit_rate": self.uniform_hit_rate,
        }


def plan_memory(
    config: Drama3Config,
    budget_bytes: int,
    value_bytes: int = 2,
    codec_bytes: int = 0,
    margin_bytes: int = MARGIN_BYTES,
    context_rows: int = CONTEXT_ROWS,
) -> MemoryPlan:
    """Split `budget_bytes` for `config` with activations of `value_bytes` bytes (2: bf16).

    codec_bytes: the codec's weights (`codec_file_bytes`). The expert cache takes whole experts
    per layer from what is left after resident weights, reserve and margin; the KV room counts
    what remains after the cache.
    """
    layers, experts, top_k = (
        config.num_layers,
        config.text.num_experts,
        config.text.num_experts_per_tok,
    )
    resident, expert = _weight_bytes(config, value_bytes)
    resident += codec_bytes
    kv_frame = config.kv_bytes_per_frame(value_bytes)
    working = config.gdn_state_bytes(value_bytes) + _activation_bytes(config, context_rows)
    reserve = working + kv_frame * context_rows
    fixed = resident + reserve + margin_bytes
    slots = max(0, min(experts, (budget_bytes - fixed) // (layers * expert)))
    free_for_kv = budget_bytes - resident - working - margin_bytes - slots * layers * expert
    return MemoryPlan(
        budget_bytes=budget_bytes,
        resident_bytes=resident,
        reserve_bytes=reserve,
        margin_bytes=margin_bytes,
        expert_bytes=expert,
        layers=layers,
        num_experts=experts,
        top_k=top_k,
        slots=slots,
        kv_bytes_per_frame=kv_frame,
        kv_room_frames=max(0, free_for_kv // kv_frame),
        full_bytes=fixed + experts * layers * expert,
        minimum_bytes=fixed + top_k * layers * expert,
    )


def _weight_bytes(config: Drama3Config, value_bytes: int) -> tuple[int, int]:
    """(bytes of every non-expert weight as loaded, bytes of one routed expert as stored)."""
    resident = expert = 0
    prefix = None
    for name, spec in expected_tensors(config).items():
        if is_routed_expert(name):
            prefix = prefix or name[: name.index(".experts.") + len(".experts.0.")]
            expert += spec.nbytes if name.startswith(prefix) else 0
            continue
        rows = len(config.main_candidate_ids) if name == "lm_head.weight" else spec.shape[0]
        resident += rows * (spec.numel // spec.shape[0]) * value_bytes
    return resident, expert


def _activation_bytes(config: Drama3Config, context_rows: int) -> int:
    """An upper estimate of one prefill chunk's live activations: fp32 attention scores over
    the context, the routed experts' fp32 hidden rows and the widest projections, twice over
    for temporaries."""
    t = config.text
    scores = t.num_attention_heads * context_rows * 4
    experts = t.num_experts_per_tok * t.moe_intermediate_size * 4 * 3
    projections = (t.linear_conv_dim + 2 * t.num_attention_heads * t.head_dim) * 4
    return 2 * PREFILL_ROWS * (scores + experts + projections)


def codec_file_bytes(folder: str | Path | None) -> int:
    """Size in bytes of the folder's codec file (0 when there is none)."""
    path = Path(folder) / CODEC_FILE if folder is not None else None
    return path.stat().st_size if path is not None and path.is_file() else 0


def offload_settings(
    config: Drama3Config,
    folder,
    device: torch.device,
    dtype: torch.dtype,
    gpu_memory: int | str | None,
    policy: str = "lru",
) -> OffloadSettings | None:
    """The offload a load needs on `device`: None for full residency, else the cache size the
    plan gives. gpu_memory: a budget in bytes, `"auto"` (the device's free memory), or None
    (full residency; checked against free memory on CUDA).

    Raises ModelDoesNotFit when the budget cannot hold one token's experts per layer, is more
    than the device's free memory, or when
    no budget is given and the model does not fit the device's free memory (the message gives
    the sizes and suggests a budget); ValueError for another string.
    """
    free = device_free_bytes(device)
    if gpu_memory is None and free is None:
        return None
    if isinstance(gpu_memory, str) and gpu_memory != "auto":
        raise ValueError(
            f"gpu_memory must be a number of bytes, 'auto' or None; got {gpu_memory!r}"
        )
    budget = gpu_memory if isinstance(gpu_memory, int) else free
    if budget is None:
        return None
    if free is not None and budget > free:
        raise ModelDoesNotFit(
            f"a GPU memory budget of {format_size(budget)} is more than the "
            f"{format_size(free)} free on {device}; give at most --gpu-memory "
            f"{free // 10**9}GB, or auto"
        )
    margin = MARGIN_BYTES if device.type == "cuda" else 0  # a CPU "device" is a simulated pool
    plan = plan_memory(config, budget, dtype.itemsize, codec_file_bytes(folder), margin)
    if gpu_memory is None and plan.offloaded:
        raise ModelDoesNotFit(_no_room(plan, device, free))
    if not plan.fits:
        raise ModelDoesNotFit(
            f"a GPU memory budget of {format_size(budget)} cannot hold the model: it needs at "
            f"least {format_size(plan.minimum_bytes)} ({plan.top_k} experts per layer on the "
            f"device), {format_size(plan.full_bytes)} with every expert resident"
        )
    if not plan.offloaded:
        return None
    return OffloadSettings(plan.slots, policy, prefetch=device.type == "cuda")


def _no_room(plan: MemoryPlan, device: torch.device, free: int) -> str:
    needs = f"the model needs {format_size(plan.full_bytes)} on {device} but {format_size(free)} are free"
    if not plan.fits:
        return f"{needs}, and even with routed experts in host memory it needs {format_size(plan.minimum_bytes)}"
    return (
        f"{needs}; pass --gpu-memory {free // 10**9}GB to keep the routed experts in host memory "
        f"({plan.slots} of {plan.num_experts} per layer on the device)"
    )
