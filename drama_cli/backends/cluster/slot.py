"""One worker slot of a cluster render: its current Ray actor, the streams it has in hand and
its counts and times for the report."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Slot:
    """A worker slot. streams: how many streams its worker voices at once (its backend's
    batch); sent: tickets on the worker (ticket -> when sent, `time.perf_counter` seconds);
    outbox: tickets given to it, to go with its next call; pump: that call while in flight."""

    number: int
    actor: object = None
    node: str = ""
    streams: int = 1
    sent: dict[int, float] = field(default_factory=dict)
    outbox: list[int] = field(default_factory=list)
    pump: object = None
    units: int = 0  # units it finished (takes and scene groups)
    busy_s: float = 0.0  # seconds its backend spent on them
    wall_s: float = 0.0  # seconds from sending each unit to its result, on the driver
    failures: int = 0  # units it lost (died or raised)
    restarts: int = 0

    @property
    def busy(self) -> bool:
        """True while it has streams in hand."""
        return bool(self.sent or self.outbox)

    def room(self) -> int:
        """Streams it may still take (0 without an actor)."""
        return self.streams - len(self.sent) - len(self.outbox) if self.actor is not None else 0

    def clear(self) -> None:
        """Forget its streams and its call in flight."""
        self.sent, self.outbox, self.pump = {}, [], None

    def stats(self) -> dict:
        """Counts and times for the render report (seconds rounded to ms)."""
        return {
            "worker": self.number,
            "node": self.node,
            "streams": self.streams,
            "units": self.units,
            "busy_s": round(self.busy_s, 3),
            "wall_s": round(self.wall_s, 3),
            "failures": self.failures,
            "restarts": self.restarts,
        }
