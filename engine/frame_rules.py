"""What the host does with a generated stream's decoded frames (docs/internals/model.md §3.6,
post-processing): when the stream stops and which frames it keeps; shared by
the decode loop (`engine.batch`) and the reference loop (`engine.testing.reference_loop`).

Frames arrive as (main token id, codes `[10]` int64, seconds). `<|im_end|>` ends the stream and
is not kept; a `<|semantic:0|>` frame is held back until the next frame shows it does not precede
EOS; a main token outside the semantic band (an extra samplable id such as
`<|audio_separator|>`) is a separator: its index among the kept frames is recorded, and the stream
ends there when asked to.
"""

from __future__ import annotations

import torch


class FrameRules:
    """The stop rules and kept frames of one stream.

    eos_id, semantic_start: token ids; band: codes per codebook (the semantic band's size);
    stop_at_separator: end at the first separator. `push` each frame until `reason` is set,
    then call `end` once. Afterwards `kept` holds the kept codes (`[10]` int64 on the CPU each),
    `times` their seconds, `separators` the separator indices and `reason` one of `eos`,
    `max_frames`, `separator`.
    """

    def __init__(self, eos_id: int, semantic_start: int, band: int, stop_at_separator: bool):
        self.eos_id, self.semantic_start, self.stop_at_separator = (
            eos_id,
            semantic_start,
            stop_at_separator,
        )
        self.band = range(semantic_start, semantic_start + band)
        self.kept: list[torch.Tensor] = []
        self.times: list[float] = []
        self.separators: list[int] = []
        self.reason: str | None = None
        self._held: tuple[torch.Tensor, float] | None = None

    def push(self, token: int, codes: torch.Tensor | None, seconds: float) -> list[torch.Tensor]:
        """Take one frame; return the codes released by it (kept from now on), in order.
        Sets `reason` when this frame ends the stream (EOS, or a separator when asked)."""
        if token == self.eos_id:
            self.reason = "eos"
            return []
        released = self._release()
        if token not in self.band:
            self.separators.append(len(self.kept))
            if self.stop_at_separator:
                self.reason = "separator"
        elif token == self.semantic_start:
            self._held = (codes.cpu(), seconds)  # dropped if EOS follows
        else:
            self.kept.append(codes.cpu()), self.times.append(seconds)
            released.append(self.kept[-1])
        return released

    def end(self) -> list[torch.Tensor]:
        """Close the stream (reason `max_frames` unless set); return the held frame when it is kept."""
        if self.reason is None:
            self.reason = "max_frames"
        return [] if self.reason == "eos" else self._release()

    def codes(self, width: int) -> torch.Tensor:
        """The kept codes `[width, T]` int64 (`[width, 0]` when none)."""
        return (
            torch.stack(self.kept, dim=1) if self.kept else torch.zeros(width, 0, dtype=torch.long)
        )

    def _release(self) -> list[torch.Tensor]:
        if self._held is None:
            return []
        codes, seconds = self._held
        self._held = None
        self.kept.append(codes), self.times.append(seconds)
        return [codes]
