"""The KV cache and causal attention shared by the backbone's gated attention and the tower.

Both keep keys and values as `[B, kv_heads, rows, head_dim]` (the backbone with B = 1), append
the new rows of each call in place, and attend causally: a new row at position p sees keys
0..p. Row positions are the prompt's frame rows, the same for backbone and tower.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


class KVCache:
    """Keys and values of one attention layer for rows `[0, length)`, grown in place.

    Storage: keys, values `[B, kv_heads, capacity, head_dim]`, allocated by the first `append`
    in the dtype and on the device of its rows (at least `capacity` rows) and doubled when full,
    so a decode step writes one row instead of concatenating the whole history.
    """

    def __init__(self, capacity: int = 256):
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None
        self.length = 0
        self.capacity = capacity

    def append(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store rows `[B, kv_heads, T, head_dim]` at `[length, length + T)`; return every row
        so far, keys and values `[B, kv_heads, length, head_dim]` (views of the storage)."""
        end = self.length + keys.shape[2]
        if self.keys is None or end > self.keys.shape[2]:
            held = self.capacity if self.keys is None else 2 * self.keys.shape[2]
            self._grow(keys, max(end, held))
        self.keys[:, :, self.length : end] = keys
        self.values[:, :, self.length : end] = values
        self.length = end
        return self.keys[:, :, :end], self.values[:, :, :end]

    def attend(
        self, query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scale: float
    ) -> torch.Tensor:
        """Append the new rows' keys and values `[B, kv_heads, T, head_dim]` and return the
        causal attention of their queries `[B, heads, T, head_dim]` over every row held
        (`causal_attention`): `[B, heads, T, head_dim]`."""
        all_keys, all_values = self.append(keys, values)
        return causal_attention(query, all_keys, all_values, scale)

    def _grow(self, like: torch.Tensor, capacity: int) -> None:
        shape = (like.shape[0], like.shape[1], capacity, like.shape[3])
        keys, values = like.new_empty(shape), like.new_empty(shape)
        if self.keys is not None:
            keys[:, :, : self.length] = self.keys[:, :, : self.length]
            values[:, :, : self.length] = self.values[:, :, : self.length]
        self.keys, self.values = keys, values

    def clone(self) -> KVCache:
        """An independent copy holding the same rows (e.g. a prefilled system block)."""
        copy = KVCache(self.capacity)
        copy.length = self.length
        if self.keys is not None:
            copy.keys, copy.values = self.keys.clone(), self.values.clone()
        return copy


class StaticKVCache:
    """Keys and values of one attention layer in storage of a fixed size, for a decode step
    whose shapes never change (under torch.compile and in a CUDA graph).

    keys, values: `[B, kv_heads, capacity, head_dim]`, rows `[0, position)` valid. position:
    an int64 device tensor `[1]`, shared by every cache of a stack and advanced by the caller
    after each step (never read by the host). visible: a bool device tensor `[capacity]`, shared
    too, True for rows `[0, position]` (the caller sets row `position` before the step).
    """

    def __init__(
        self,
        keys: torch.Tensor,
        values: torch.Tensor,
        position: torch.Tensor,
        visible: torch.Tensor,
    ):
        self.keys, self.values, self.position, self.visible = keys, values, position, visible

    @classmethod
    def from_cache(
        cls, cache: KVCache, capacity: int, position: torch.Tensor, visible: torch.Tensor
    ) -> StaticKVCache:
        """A static copy of a filled `KVCache` with room for `capacity` rows.
        Raises ValueError when the cache is empty or holds more than `capacity` rows."""
        if cache.keys is None or cache.length > capacity:
            raise ValueError(
                f"a static cache of {capacity} rows cannot hold this cache ({cache.length} rows)"
            )
        shape = (*cache.keys.shape[:2], capacity, cache.keys.shape[3])
        keys, values = cache.keys.new_zeros(shape), cache.values.new_zeros(shape)
        keys[:, :, : cache.length] = cache.keys[:, :, : cache.length]
        values[:, :, : cache.length] = cache.values[:, :, : cache.length]
        return cls(keys, values, position, visible)

    def attend(
        self, query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scale: float
    ) -> torch.Tensor:
        """Write one new row `[B, kv_heads, 1, head_dim]` at `position` and attend its query
        `[B, heads, 1, head_dim]` over rows `[0, position]`: `[B, heads, 1, head_dim]`."""
        self.keys.index_copy_(2, self.position, keys)
        self.values.index_copy_(2, self.position, values)
        return F.scaled_dot_product_attention(
            query,
            self.keys,
            self.values,
            attn_mask=self.visible.view(1, 1, 1, -1),
            scale=scale,
            enable_gqa=query.shape[1] != self.keys.shape[1],
        )


def causal_mask(start: int, steps: int, device: torch.device | str) -> torch.Tensor:
    """Boolean `[steps, start + steps]` mask: new row i (position start + i) sees keys
    0..start + i (True = attend)."""
    rows = torch.arange(start, start + steps, device=device)[:, None]
    return torch.arange(start + steps, device=device)[None, :] <= rows


def causal_attention(
    query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scale: float
) -> torch.Tensor:
    """Causal grouped-query attention of T new rows over S cached rows, the last T being the new.

    query: `[B, heads, T, head_dim]`; keys, values: `[B, kv_heads, S, head_dim]` (as `KVCache.append`
    returns them), heads a multiple of kv_heads (query head h reads kv head h // (heads / kv_heads)).
    Returns `[B, heads, T, head_dim]` in the query's dtype (SDPA, softmax in fp32). One new row
    sees every key (no mask); rows from position 0 use SDPA's own causal mask, others
    `causal_mask`.
    """
    steps, total = query.shape[2], keys.shape[2]
    start = total - steps
    mask = causal_mask(start, steps, query.device) if steps > 1 and start > 0 else None
    return F.scaled_dot_product_attention(
        query,
        keys,
        values,
        attn_mask=mask,
        is_causal=steps > 1 and start == 0,
        scale=scale,
        enable_gqa=query.shape[1] != keys.shape[1],
    )


class SlotKVCache:
    """Keys and values of one attention layer for a batch of independent streams, one slot
    each, in fixed storage (the decode step, `engine.step`).

    keys, values: `[B, kv_heads, capacity, head_dim]`, slot b holding rows `[0, position[b])`.
    position: int64 `[B]` the row each slot writes next (advanced by the caller). visible: bool
    `[B, capacity]`, True for rows `[0, position[b]]` of slot b (set by the caller before the
    step). streams_axis: where `attend` finds the streams in its inputs: 0 (the tower's
    `[B, heads, 1, head_dim]`) or 2 (the backbone's one-row-per-stream `[1, heads, B, head_dim]`).
    span: rows attended over, None for all `capacity` (the static shape a compiled step needs);
    an eager step sets it just past the furthest live row, so no stream attends over empty rows
    (masked rows add nothing, so the result is the same but for rounding).
    """

    def __init__(
        self,
        keys: torch.Tensor,
        values: torch.Tensor,
        position: torch.Tensor,
        visible: torch.Tensor,
        streams_axis: int,
    ):
        self.keys, self.values, self.position, self.visible = keys, values, position, visible
        self.streams_axis = streams_axis
        self.span: int | None = None

    def attend(
        self, query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scale: float
    ) -> torch.Tensor:
        """Write each stream's new key and value at its slot's position and attend its query
        over its slot's visible rows. Inputs and output laid out as `streams_axis` says."""
        if self.streams_axis == 2:
            query, keys, values = (t.transpose(0, 2) for t in (query, keys, values))
        index = self.position.view(-1, 1, 1, 1).expand(keys.shape)
        self.keys.scatter_(2, index, keys)
        self.values.scatter_(2, index, values)
        rows = slice(None, self.span)
        out = F.scaled_dot_product_attention(
            query,
            self.keys[:, :, rows],
            self.values[:, :, rows],
            attn_mask=self.visible[:, None, None, rows],
            scale=scale,
            enable_gqa=query.shape[1] != self.keys.shape[1],
        )
        return out.transpose(0, 2) if self.streams_axis == 2 else out
