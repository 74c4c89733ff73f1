"""Exact streaming decode (docs/internals/codec.md §2.3): codes arrive in chunks, audio leaves at once.

The codec is causal, so the samples of frame t depend only on codes <= t. The stream keeps
each layer's state (causal-conv left context, transposed-conv overlap, per-layer keys and
values of the last window-1 frames) in one dict keyed by layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import Tensor

from engine.errors import EngineError

if TYPE_CHECKING:
    from engine.codec.codec import Codec


class DecodeStream:
    """Stateful decoder of one stream; get one from `Codec.decode_stream()`."""

    def __init__(self, codec: Codec):
        self.codec = codec
        self.state: dict = {}
        self.frames = 0
        self.closed = False

    @torch.inference_mode()
    def push(self, codes: np.ndarray | Tensor) -> Tensor:
        """Decode the next frames `codes [N, t]` -> audio `[t * 2048]` float32 (CPU).

        Raises EngineError after `flush()` or for bad codes (see `Codec.prepare_codes`).
        """
        if self.closed:
            raise EngineError("decode stream already flushed")
        prepared = self.codec.prepare_codes(codes)
        if prepared.shape[-1] == 0:
            return torch.zeros(0)
        latent = self.codec.quantizer.decode(prepared, self.state)
        audio = self.codec.decoder(latent, self.state).reshape(-1).float().cpu()
        self.frames += prepared.shape[-1]
        return audio

    def flush(self) -> Tensor:
        """End the stream. Returns the samples still held back: none, since the codec is
        causal (the transposed-conv overlap past the last frame is dropped, as in `decode`)."""
        self.closed = True
        self.state.clear()
        return torch.zeros(0)
