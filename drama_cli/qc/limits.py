"""The limits of the voice and quality checks, their defaults and their command-line checking:
the commands read these before the checks' models are loaded (numpy only)."""

from __future__ import annotations

import math

from drama_cli.errors import UsageError

# Between the scores of takes in their own voice and in voices 1.8 semitones or more away on
# the example casts; the figures are in `drama_cli.qc.voice` and docs/guide/qc.md.
DEFAULT_MIN_SIMILARITY = 0.80
MOS_RANGE = (1.0, 5.0)  # DNSMOS scores


def check_qc_limits(min_similarity: float | None, min_quality: float | None) -> None:
    """UsageError for `--min-similarity` outside 0..1 or `--min-quality` outside 1..5."""
    if min_similarity is not None and not (
        math.isfinite(min_similarity) and 0.0 <= min_similarity <= 1.0
    ):
        raise UsageError(f"--min-similarity must be within 0..1, not {min_similarity}")
    if min_quality is not None and not (
        math.isfinite(min_quality) and MOS_RANGE[0] <= min_quality <= MOS_RANGE[1]
    ):
        raise UsageError(f"--min-quality must be within 1..5 (a MOS), not {min_quality}")
