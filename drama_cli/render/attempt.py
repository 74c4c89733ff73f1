"""One attempt at a take, as the render layer sees it: why its generation stopped (the stop-reason
vocabulary of take records), the seed of each retry, and the signal checks, which run here once
on every generation (backends return facts only).

Stop reasons (`STOP_REASONS`, the `stop_reason` of a take record):
- `eos`: the model ended the speech;
- `length`: the frame budget ended the take before end of speech (the engine says
  `max_frames`; the drama3 backend translates, `drama_cli.backends.drama3.ENGINE_STOP_REASONS`);
- `separator`: a `scene` mode line that ended at the separator before the next line.
"""

from __future__ import annotations

import numpy as np

from drama_cli.backends.base import Generation
from drama_cli.qc.signal import CheckReport, check_take
from engine.constants import SAMPLE_RATE

EOS = "eos"
LENGTH = "length"
SEPARATOR = "separator"
STOP_REASONS = (EOS, LENGTH, SEPARATOR)
RETRY_SEED_STRIDE = 100_003


def retry_seed(first_seed: int, attempt_index: int) -> int:
    """Seed of retry `attempt_index` (0 = the first attempt): first_seed + 100003 * index, mod 2^31."""
    return (first_seed + RETRY_SEED_STRIDE * attempt_index) % (2 ** 31)


def check_audio(audio: np.ndarray, text: str, stop_reason: str | None) -> CheckReport:
    """The signal checks (`drama_cli.qc.signal.check_take`) on a take's float32 mono audio at
    44,100 Hz, against the text it speaks (tags allowed) and its stop reason."""
    return check_take(audio, SAMPLE_RATE, text, stop_reason)


def check_generation(generation: Generation, text: str) -> CheckReport:
    """The signal checks on what a backend generated for `text` (its audio and stop reason)."""
    return check_audio(generation.audio, text, generation.stop_reason)
