"""Routed experts in host memory with a per-layer device cache, and the memory plan that sizes
it (docs/internals/engine.md, "Expert offload")."""
