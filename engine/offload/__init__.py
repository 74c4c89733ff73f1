"""Routed experts in host memory with a per-layer device cache, and the memory plan that sizes
it (docs/internals/engine.md, "Expert offload")."""

from engine.offload.cache import POLICIES, CacheCounters, ExpertCache
from engine.offload.offload import ExpertOffload, OffloadSettings
from engine.offload.store import HostExpertStore

__all__ = ["POLICIES", "CacheCounters", "ExpertCache", "ExpertOffload", "HostExpertStore", "OffloadSettings"]
