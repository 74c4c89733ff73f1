"""Expert offload for a whole backbone: one host store, one `ExpertCache` per layer."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.offload.cache import POLICIES, CacheCounters, ExpertCache
from engine.offload.store import HostExpertStore
from engine.offload.transfer import SlotCopier


@dataclass(frozen=True)
class OffloadSettings:
    """How routed experts are kept: `slots` experts per layer on the device (at least
    `num_experts_per_tok`), evicted by `policy` (`lru` or `lfu`); `prefetch` predicts each next
    layer's experts from the current layer's MoE input and copies them early."""

    slots: int
    policy: str = "lru"
    prefetch: bool = False

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(
                f"unknown eviction policy {self.policy!r}; choose one of {', '.join(POLICIES)}"
            )


class ExpertOffload:
    """The routed experts of `checkpoint` in host memory (`HostExpertStore`, pinned on CUDA)
    and a cache of `settings.slots` experts per layer on `device`.

    Use `cache(layer)` while building the layers, then `link(moes)`; `counters()` sums the
    counts of all layers. Raises ValueError for settings the config cannot meet.
    """

    def __init__(self, checkpoint, settings: OffloadSettings, device: str | torch.device):
        self.settings = settings
        self.device = torch.device(device)
        self.config = checkpoint.config
        if settings.slots < self.config.text.num_experts_per_tok:
            raise ValueError(
                f"an expert cache needs at least {self.config.text.num_experts_per_tok} slots "
                f"per layer (the experts of one token); got {settings.slots}"
            )
        self.store = HostExpertStore.from_checkpoint(checkpoint, pin=self.device.type == "cuda")
        self._stream = torch.cuda.Stream(self.device) if self.device.type == "cuda" else None
        self.caches: list[ExpertCache] = []

    def cache(self, layer: int) -> ExpertCache:
        """A new (empty) cache for backbone layer `layer`."""
        cache = ExpertCache(
            self.store,
            layer,
            self.settings.slots,
            self.config.text.num_experts_per_tok,
            self.config.weight_block_size,
            self.device,
            self.settings.policy,
            SlotCopier(self.device, self._stream),
        )
        self.caches.append(cache)
        return cache

    def link(self, moes: list) -> None:
        """With `settings.prefetch`, let each layer's cache prefetch for the next layer
        (`moes`: the layers' `SparseMoE` in order)."""
        if self.settings.prefetch:
            for moe, following in zip(moes, moes[1:]):
                moe.experts.link_next(following.router, following.experts)

    @property
    def slots(self) -> int:
        """Experts held per layer on the device."""
        return (
            self.caches[0].slots
            if self.caches
            else min(self.settings.slots, self.config.text.num_experts)
        )

    def counters(self) -> CacheCounters:
        """The counts of all layers' caches, summed."""
        return sum((cache.counters for cache in self.caches), CacheCounters())

    def reset_counters(self) -> None:
        """Start counting afresh (the caches keep their experts)."""
        for cache in self.caches:
            cache.counters = CacheCounters()
