"""The host side of expert offload: every routed expert of every layer, in host memory.

Experts are read through the checkpoint's memory-mapped shards (safetensors maps each shard;
a tensor read on the CPU is a view of the mapping, so nothing is copied and pages load on
first use). For a CUDA device the experts of each layer are copied once into page-locked
(pinned) stacked buffers so that host-to-device copies can run asynchronously; that is the
only copy ever made on the host.
"""

from __future__ import annotations

import warnings

import torch

from engine.checkpoint import BACKBONE_PREFIX
from engine.layers.moe import tensor_names

# Pool tensor name -> checkpoint tensor name suffix under `…mlp.experts.E.`.
_FILE_NAMES = {
    name: (
        name.removesuffix("_scale")
        + (".weight_scale_inv" if name.endswith("_scale") else ".weight")
    )
    for name in tensor_names()
}


class HostExpertStore:
    """Routed experts on the host: `expert(layer, e)` → {"gate_proj": [I, D] float8_e4m3fn,
    "gate_proj_scale": [ceil(I/128), ceil(D/128)] fp32, "up_proj…", "down_proj…"}.

    Build with `from_checkpoint`. `expert_bytes` is the size of one expert (all six tensors)
    in bytes; `pinned` tells whether the tensors sit in page-locked memory.
    """

    def __init__(self, layers: list[list[dict[str, torch.Tensor]]], pinned: bool = False):
        self.layers = layers
        self.pinned = pinned
        first = layers[0][0]
        self.expert_bytes = sum(t.numel() * t.element_size() for t in first.values())

    @classmethod
    def from_checkpoint(cls, checkpoint, pin: bool = False) -> HostExpertStore:
        """Every routed expert of `checkpoint` (an `engine.checkpoint.Checkpoint` or any object
        with its `config` and `load_tensor`). pin: copy each layer once into pinned buffers
        (for CUDA); when the host cannot pin that much, a RuntimeWarning says so and the
        mapped tensors are kept. Raises CheckpointError for a missing expert tensor."""
        text = checkpoint.config.text
        layers = [
            [_read_expert(checkpoint, layer, e) for e in range(text.num_experts)]
            for layer in range(text.num_hidden_layers)
        ]
        if pin:
            try:
                return cls([_pinned(experts) for experts in layers], pinned=True)
            except RuntimeError as err:
                warnings.warn(
                    f"cannot pin the routed experts in host memory ({err}); copies will be slower",
                    RuntimeWarning,
                    stacklevel=2,
                )
        return cls(layers)

    def expert(self, layer: int, expert: int) -> dict[str, torch.Tensor]:
        """The six host tensors of `expert` in `layer` (see the class docstring)."""
        return self.layers[layer][expert]

    @property
    def total_bytes(self) -> int:
        """Bytes of all routed experts of all layers."""
        return self.expert_bytes * sum(len(experts) for experts in self.layers)


def _read_expert(checkpoint, layer: int, expert: int) -> dict[str, torch.Tensor]:
    prefix = f"{BACKBONE_PREFIX}layers.{layer}.mlp.experts.{expert}."
    return {
        name: checkpoint.load_tensor(prefix + suffix, "cpu") for name, suffix in _FILE_NAMES.items()
    }


def _pinned(experts: list[dict[str, torch.Tensor]]) -> list[dict[str, torch.Tensor]]:
    """The experts of one layer copied into pinned stacked buffers [E, ...], as views."""
    stacks = {
        name: torch.empty((len(experts), *t.shape), dtype=t.dtype, pin_memory=True)
        for name, t in experts[0].items()
    }
    for index, expert in enumerate(experts):
        for name, tensor in expert.items():
            stacks[name][index].copy_(tensor)
    return [{name: stack[index] for name, stack in stacks.items()} for index in range(len(experts))]
