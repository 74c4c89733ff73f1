"""A per-layer device cache of routed experts with a fixed number of slots.

`ExpertCache` is an expert source for `engine.layers.moe.SparseMoE` (as `FP8Experts` is):
`fetch(ids)` makes the experts `ids` resident, copying the missing ones from the
`HostExpertStore`, and answers the slot pool with each id's slot. The pool is an `FP8Experts`
of `slots` experts, so the MoE kernels read it exactly as they read the full stack.

Eviction (only of experts the current request does not need):
  * `lru`: the least recently requested expert;
  * `lfu`: the expert requested least often since load (ties: least recent).
With `link_next`, a layer predicts the next layer's experts from its own MoE input (the next
router applied to it) and prefetches them, so their copies overlap with the compute in between.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F
from torch import nn

from engine.layers.moe import FP8Experts
from engine.offload.transfer import SlotCopier

POLICIES = ("lru", "lfu")


@dataclass
class CacheCounters:
    """Counts of one cache (or a sum of several). A lookup is one distinct expert of one
    request: `hits` found resident, `misses` copied in. `copies` and `bytes_copied` (bytes)
    include prefetches; `prefetches` counts copies made on a prediction, `prefetch_hits` the
    prefetched experts later requested; `evictions` the experts dropped."""

    hits: int = 0
    misses: int = 0
    copies: int = 0
    bytes_copied: int = 0
    prefetches: int = 0
    prefetch_hits: int = 0
    evictions: int = 0

    @property
    def hit_rate(self) -> float:
        """hits / lookups (1.0 before any lookup)."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 1.0

    def __add__(self, other: CacheCounters) -> CacheCounters:
        return CacheCounters(
            *(getattr(self, f.name) + getattr(other, f.name) for f in fields(self))
        )

    def as_dict(self) -> dict:
        """The counts and `hit_rate` as a plain dict."""
        return {**{f.name: getattr(self, f.name) for f in fields(self)}, "hit_rate": self.hit_rate}


class ExpertCache(nn.Module):
    """`slots` experts of one layer on `device`, filled from `store` (a `HostExpertStore`).

    Raises ValueError for an unknown policy or fewer slots than `top_k` (one row's experts
    must fit at once); more slots than experts are cut to the expert count.
    """

    def __init__(
        self,
        store,
        layer: int,
        slots: int,
        top_k: int,
        block: tuple[int, int],
        device: torch.device,
        policy: str = "lru",
        copier: SlotCopier | None = None,
    ):
        super().__init__()
        experts = len(store.layers[layer])
        if policy not in POLICIES:
            raise ValueError(
                f"unknown eviction policy {policy!r}; choose one of {', '.join(POLICIES)}"
            )
        if slots < top_k:
            raise ValueError(
                f"an expert cache needs at least {top_k} slots per layer (the experts of one "
                f"token); got {slots}"
            )
        self.store, self.layer, self.policy, self.top_k = store, layer, policy, top_k
        self.pool = FP8Experts.empty(min(slots, experts), store.expert(layer, 0), block, device)
        self.register_buffer("table", torch.full((experts,), -1, dtype=torch.long, device=device))
        self.copier = copier or SlotCopier(torch.device(device))
        self.counters = CacheCounters()
        self._resident: OrderedDict[int, int] = OrderedDict()  # expert -> slot, least recent first
        self._free = list(range(self.slots - 1, -1, -1))
        self._uses = [0] * experts
        self._prefetched: set[int] = set()
        self._next = None  # (router [E', D], ExpertCache) of the following layer

    @property
    def slots(self) -> int:
        """Experts held at once."""
        return self.pool.slots

    def fetch(self, ids: torch.Tensor) -> tuple[FP8Experts, torch.Tensor]:
        """Make the experts `ids` (int64, any shape, on the device) resident; returns (the pool,
        each id's slot, same shape as `ids`). Reads `ids` on the host. Raises ValueError when
        they hold more distinct experts than `slots`."""
        wanted = ids.unique().tolist()
        if len(wanted) > self.slots:
            raise ValueError(
                f"{len(wanted)} distinct experts requested but the cache holds {self.slots}"
            )
        missing = [e for e in wanted if e not in self._resident]
        self.counters.hits += len(wanted) - len(missing)
        self.counters.misses += len(missing)
        self.counters.prefetch_hits += len(self._prefetched.intersection(wanted))
        self._prefetched.difference_update(wanted)
        for e in wanted:
            self._uses[e] += 1
        self._admit(missing, set(wanted))
        self.copier.wait()
        return self.pool, self.table[ids]

    def prefetch(self, ids: torch.Tensor) -> None:
        """Start copying the experts `ids` (predicted for a later request) without counting a
        lookup; ignored when they would not fit at once."""
        wanted = ids.unique().tolist()
        if len(wanted) > self.slots:
            return
        missing = [e for e in wanted if e not in self._resident]
        self.counters.prefetches += len(missing)
        self._prefetched.update(missing)
        self._admit(missing, set(wanted))

    def link_next(self, router: torch.Tensor, cache: ExpertCache) -> None:
        """Prefetch for the following layer (its `router` [E', D] and cache) on each forward."""
        self._next = (router, cache)

    def prefetch_next(self, x: torch.Tensor) -> None:
        """Prefetch the next layer's predicted experts for rows `x` [N, D] (its router's top-k
        on this layer's MoE input); no-op without `link_next`, and for more rows than the next
        cache could take at once (a prefill chunk)."""
        if self._next is not None and x.shape[0] * self._next[1].top_k <= self._next[1].slots:
            router, cache = self._next
            cache.prefetch(F.linear(x, router).topk(cache.top_k, dim=-1).indices)

    def _admit(self, missing: list[int], protected: set[int]) -> None:
        """Copy `missing` in, evicting unprotected experts as needed; mark `protected` as the
        most recently used and refresh the device slot table."""
        changed = {}
        for expert in self._victims(len(missing) - len(self._free), protected):
            self._free.append(self._resident.pop(expert))
            self._prefetched.discard(expert)
            self.counters.evictions += 1
            changed[expert] = -1
        for expert in missing:
            slot = self._free.pop()
            self._resident[expert] = slot
            self.copier.copy(self.pool, slot, self.store.expert(self.layer, expert))
            self.counters.copies += 1
            self.counters.bytes_copied += self.store.expert_bytes
            changed[expert] = slot
        for expert in sorted(protected):
            self._resident.move_to_end(expert)
        if changed:
            keys = torch.tensor(list(changed), dtype=torch.long)
            self.table[keys.to(self.table.device)] = torch.tensor(list(changed.values())).to(
                self.table.device
            )

    def _victims(self, count: int, protected: set[int]) -> list[int]:
        if count <= 0:
            return []
        candidates = [e for e in self._resident if e not in protected]  # least recent first
        if self.policy == "lru":
            return candidates[:count]
        return heapq.nsmallest(count, candidates, key=self._uses.__getitem__)
