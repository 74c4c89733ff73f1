"""The reference decode loop: one take, one frame at a time, each main token read by the host
before the tower runs (docs/internals/engine.md "The reference loop"). Nothing generates through
it; the parity tests hold the decode loop (`engine.batch.EngineBatch`) against it.

It runs on the model's one-stream caches (`Drama3.start_state`, `Drama3.step`, the tower's
growing `KVCache`s) and draws from a `CounterRace` keyed by the take's seed in the order the
decode step draws (main token, RAS retry, nine codebooks), so greedy and sampled codes equal
those of the decode loop for the same seed.
"""

from __future__ import annotations

import time

import torch

from engine.sampling import (
    CounterRace,
    MainCandidates,
    ras_window,
    sample_codebook,
    sample_main,
)
from engine.take import Generation, TakeRequest


@torch.no_grad()
def reference_take(model, request: TakeRequest) -> Generation:
    """Decode `request` with `model` (an `engine.generate.Drama3`) frame by frame and return
    its `Generation`: EOS ends the take before the tower runs, each frame's codes are read by
    the host, then one backbone step."""
    started = time.perf_counter()
    state = model.start_state(request.rows.to(model.device), request.system_rows)
    sampler = _Sampler(model, request)
    rules = request.rules(model)
    band = range(model.semantic_start, model.semantic_start + model.tower.config.vocab_size)
    for _ in range(request.max_frames):
        main = sampler.main(state.last_hidden)
        token = int(main)
        if token == model.eos_id:
            rules.push(token, None, time.perf_counter() - started)
            break
        codes = model.tower.decode_frame(
            state.last_hidden, state.last_row, main.view(1), state.tower_cache, sampler.codebook
        )[0]
        if token not in band:
            codes = torch.zeros_like(codes)
        rules.push(token, codes.cpu(), time.perf_counter() - started)
        if rules.reason is not None:
            break
        model.step(state, torch.cat((main.view(1), codes))[None, None])
        sampler.push(main)
    rules.end()
    return request.generation(rules)


class _Sampler:
    """The take's counter-based draws, its RAS window of main tokens, and the sampling calls."""

    def __init__(self, model, request: TakeRequest):
        self.model, self.params, self.extra_ids = model, request.params, request.extra_ids
        self.race = CounterRace(request.seed, model.device)
        config = model.config
        ids = model.backbone.candidate_token_ids(self.extra_ids)
        self.candidates = MainCandidates(
            ids, config.semantic_start_token_id, config.semantic_end_token_id, config.eos_token_id
        )
        self.blocked = (ids == config.eos_token_id) if request.ignore_eos else None
        self.recent = ras_window(
            request.rows[:, 0].to(model.device), max(self.params.ras_window, 1)
        )

    def main(self, hidden: torch.Tensor) -> torch.Tensor:
        """The next main token id (0-d int64 tensor) from the backbone hidden `[1, 1, dim]`."""
        logits = self.model.backbone.main_logits(hidden[0], self.extra_ids)[0]
        if self.blocked is not None:
            logits = logits.masked_fill(self.blocked, float("-inf"))
        return sample_main(logits, self.recent, self.params, self.race, self.candidates)

    def codebook(self, logits: torch.Tensor, index: int) -> torch.Tensor:
        """The tower's callback: head logits `[1, 4096]` -> code `[1]`."""
        return sample_codebook(logits, self.params, self.race)

    def push(self, main: torch.Tensor) -> None:
        """Record a sampled main token in the RAS window."""
        self.recent = torch.cat((self.recent[1:], main.view(1)))


__all__ = ["reference_take"]
