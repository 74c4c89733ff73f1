"""What one take is: the request the decode loop serves (`TakeRequest`) and what it gives back
(`Generation`), plus the phase clock that times it (docs/internals/engine.md "The decode loop")."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from engine.constants import FRAMES_PER_SECOND
from engine.conversation import Conversation
from engine.errors import EngineError
from engine.frame_rules import FrameRules
from engine.sampling import SamplingParams


@dataclass
class Generation:
    """One generated take.

    codes: `[10, T]` int64 codec codes (codebook 0 semantic, 1-9 residual), the EOS frame and
    a trailing `<|semantic:0|>` frame before EOS removed. stop_reason: `eos`, `max_frames` or
    `separator`. frame_times_s: for each kept frame, seconds from the take's start until the
    host had it (the first entry is the time to first frame). prompt_rows: rows in the prompt.
    separator_frames: frame indices at which the model emitted an extra samplable token (e.g.
    `<|audio_separator|>` in the `scene` layout; those rows carry no audio). phase_s: seconds
    spent in prefill / decode (filled when timing was asked for).
    layout_version: the prompt layout's version string (`engine.layouts.Layout.version`).
    audio: float32 mono `[T * 2048]` at 44,100 Hz once decoded, else None.
    """

    codes: torch.Tensor
    stop_reason: str
    frame_times_s: list[float]
    prompt_rows: int
    seed: int
    params: SamplingParams
    separator_frames: list[int] = field(default_factory=list)
    layout_version: str = ""
    phase_s: dict[str, float] = field(default_factory=dict)
    audio: np.ndarray | None = None

    @property
    def frames(self) -> int:
        """Number of codec frames T."""
        return int(self.codes.shape[1])

    @property
    def duration_s(self) -> float:
        """Duration of the decoded take in seconds (T frames at 44,100 / 2048 per second)."""
        return self.frames / FRAMES_PER_SECOND


@dataclass
class TakeRequest:
    """One take as the decode loop serves it: prompt rows `[N, 11]` int64 on the CPU (the first
    `system_rows` the system block, shared through the prefix cache), the layout's version and
    extra samplable ids, the frame budget, sampling settings and seed, the stop options and
    the codebooks per frame. Build with `TakeRequest.build`."""

    rows: torch.Tensor
    system_rows: int
    layout_version: str
    extra_ids: tuple[int, ...]
    max_frames: int
    params: SamplingParams
    seed: int
    stop_at_separator: bool = False
    ignore_eos: bool = False
    codebooks: int = 10

    @classmethod
    def build(
        cls,
        model,
        conversation: Conversation,
        params: SamplingParams,
        seed: int,
        max_frames: int | None = None,
        stop_at_separator: bool = False,
        ignore_eos: bool = False,
    ) -> TakeRequest:
        """The request of `conversation` for `model` (an `engine.generate.Drama3`): its prompt
        and its frame budget (default `model.frame_budget`). Raises EngineError for refused
        text, a malformed conversation, or a prompt and budget that do not fit the context."""
        prompt = model.build_prompt(conversation)
        rows = torch.as_tensor(prompt.rows, dtype=torch.long)
        frames = (
            model.frame_budget(conversation, rows.shape[0])
            if max_frames is None
            else int(max_frames)
        )
        if frames < 1 or rows.shape[0] + frames > model.context_rows:
            raise EngineError(
                f"max_frames {frames} with a {rows.shape[0]}-row prompt "
                f"does not fit the {model.context_rows}-row context"
            )
        return cls(
            rows,
            prompt.system_rows,
            prompt.version,
            tuple(prompt.extra_ids),
            frames,
            params,
            int(seed),
            stop_at_separator,
            ignore_eos,
            model.tower.config.num_codebooks,
        )

    @property
    def slot_rows(self) -> int:
        """Rows a slot must hold for this take: prompt, frame budget, and one more for the step
        the loop may run past the budget before the host reads the last frame."""
        return int(self.rows.shape[0]) + self.max_frames + 1

    def rules(self, model) -> FrameRules:
        """Fresh `FrameRules` (stop rules, kept frames) for this take on `model`."""
        return FrameRules(
            model.eos_id,
            model.semantic_start,
            model.tower.config.vocab_size,
            self.stop_at_separator,
        )

    def generation(self, rules: FrameRules, phase_s: dict[str, float] | None = None) -> Generation:
        """The `Generation` of this take once `rules` (its frames' `FrameRules`) has ended."""
        return Generation(
            rules.codes(self.codebooks),
            rules.reason,
            rules.times,
            int(self.rows.shape[0]),
            self.seed,
            self.params,
            separator_frames=rules.separators,
            layout_version=self.layout_version,
            phase_s=dict(phase_s or {}),
        )


class PhaseClock:
    """Accumulates wall seconds per phase; synchronises CUDA first so GPU time is attributed."""

    def __init__(self, enabled: bool, device: torch.device):
        self.enabled = enabled
        self.sync = enabled and device.type == "cuda"
        self.seconds: dict[str, float] = {}
        self._phase: str | None = None
        self._start = 0.0

    def switch(self, phase: str | None) -> None:
        """End the running phase (if any) and start `phase` (None: stop timing)."""
        if not self.enabled:
            return
        if self.sync:
            torch.cuda.synchronize()
        now = time.perf_counter()
        if self._phase is not None:
            self.seconds[self._phase] = self.seconds.get(self._phase, 0.0) + now - self._start
        self._phase, self._start = phase, now


__all__ = ["Generation", "PhaseClock", "TakeRequest"]
