"""A stretch of audio given in samples, read in seconds, and seconds as samples."""

from __future__ import annotations

from engine.constants import SAMPLE_RATE


class SampleSpan:
    """Base for records with `start_sample` / `end_sample` (half-open, at 44,100 Hz) that also
    need them in seconds. Declares no dataclass fields; subclasses define the two attributes."""

    start_sample: int
    end_sample: int

    @property
    def start_s(self) -> float:
        """`start_sample` in seconds."""
        return self.start_sample / SAMPLE_RATE

    @property
    def end_s(self) -> float:
        """`end_sample` in seconds."""
        return self.end_sample / SAMPLE_RATE


def seconds_to_samples(seconds: float) -> int:
    """`seconds` as the nearest whole number of samples at 44,100 Hz."""
    return round(seconds * SAMPLE_RATE)
