"""Audio inside a prompt (`AudioClip`): codec codes once known, else a source file and its
length for estimates. Below both `engine.conversation`, whose fields hold clips, and
`engine.layouts`, whose bodies place them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.constants import FRAMES_PER_SECOND


@dataclass(frozen=True)
class AudioClip:
    """Audio inside a prompt.

    codes: `[10, T]` int64 codec codes when known.
    path: the source file when the codes are not computed yet (a reference clip, a take).
    duration_s: the clip's length in seconds, for estimates before encoding.
    """

    codes: np.ndarray | None = None
    path: str | None = None
    duration_s: float | None = None

    def frames(self) -> int:
        """Number of codec frames T: exact from codes, else estimated from `duration_s`."""
        if self.codes is not None:
            return int(self.codes.shape[1])
        if self.duration_s is None:
            return 0
        return int(math.ceil(self.duration_s * FRAMES_PER_SECOND))
