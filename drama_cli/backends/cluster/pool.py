"""Ray and the workers of a cluster render: connecting (`connect`), starting one actor per
worker slot (`WorkerPool`), replacing an actor that died, and each slot's counts and times.

A slot holds one GPU (`num_gpus=1`) when the cluster has GPUs and the engine runs its model on
a local GPU (`Capabilities.local_gpu`), else one CPU core. Ray is imported here, on first use.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import threading
from collections.abc import Callable

from drama_cli.backends.cluster.address import ClusterTarget, check_reachable
from drama_cli.backends.cluster.slot import Slot
from drama_cli.backends.cluster.worker import BackendWorker
from drama_cli.backends.registry import AUTO, BackendChoice, auto_entry, backend_entry
from drama_cli.errors import UsageError

MAX_REPLACEMENTS_PER_SLOT = 3  # actors a slot may start after its first one died
START_TIMEOUT_S = 300.0  # longest wait for the workers to start and build their backends


def import_ray():
    """The `ray` module. Raises UsageError when Ray is not installed."""
    try:
        import ray  # optional: ray (the cluster extra)
    except ImportError:
        raise UsageError("--cluster needs Ray: pip install -e '.[cluster]'") from None
    return ray


def connect(target: ClusterTarget) -> bool:
    """Join the cluster of `target`, or start a local Ray instance; nothing when this process
    is already connected. Returns True when this call connected (the caller disconnects).
    Raises UsageError when Ray is missing or the cluster cannot be reached."""
    check_reachable(target)
    if target.local:
        # Token authentication on by name, before Ray is imported: the driver reads the mode at
        # import, while the local instance it starts turns it on anyway, so a driver that read
        # the mode unset is refused by its own instance.
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    ray = import_ray()
    if ray.is_initialized():
        return False
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        with hold_interrupts():
            if target.local:
                ray.init(num_cpus=target.workers, include_dashboard=False, **quiet)
            else:
                ray.init(address=target.address, **quiet)
    except KeyboardInterrupt:
        ray.shutdown()
        raise
    except (ConnectionError, ValueError, RuntimeError) as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        where = target.address or "local"
        if target.address == "auto" and isinstance(err, ConnectionError):
            raise UsageError(
                "--cluster auto: this machine has joined no Ray cluster (start one with "
                "ray start --head, or give the head's HOST:PORT)"
            ) from None
        raise UsageError(f"--cluster {where}: cannot join the Ray cluster: {first}") from None
    return True


@contextlib.contextmanager
def hold_interrupts():
    """Hold Ctrl-C back until the block ends, then raise KeyboardInterrupt: `ray.init` or
    `ray.shutdown` interrupted part way leaves the processes of a local instance running.
    Outside the main thread the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def slot_resources(target: ClusterTarget, engine: str) -> tuple[int, dict]:
    """(worker slots, Ray resources of one slot) for `engine` on the connected cluster: one GPU
    a slot when it has GPUs and the engine (for `auto`, the one it picks with a model folder)
    runs on a local GPU (`Capabilities.local_gpu`), else one CPU core. `target.workers` caps
    the count (at most what the cluster has)."""
    import ray  # optional: ray (the cluster extra), which connect() found installed

    entry = auto_entry(True) if engine == AUTO else backend_entry(engine)
    total = ray.cluster_resources()
    gpus = int(total.get("GPU", 0))
    if gpus and entry.capabilities.local_gpu:
        count, resources = gpus, {"num_gpus": 1, "num_cpus": 1}
    else:
        count, resources = max(1, int(total.get("CPU", os.cpu_count() or 1))), {"num_cpus": 1}
    return (min(count, target.workers) if target.workers else count), resources


class WorkerPool:
    """The actors of a render, one per slot, each built from the render's `BackendChoice`
    (`drama_cli.backends.registry.build_backend`) on its node. Raises UsageError from `start`
    when a worker cannot build its backend (the message names the node) or the workers
    disagree on the engine. The workers' one-line notices go to `notice`, each message once,
    with the node that said it first."""

    def __init__(
        self,
        count: int,
        resources: dict,
        choice: BackendChoice,
        notice: Callable[[str], None] = lambda message: None,
    ):
        self.resources, self.choice = resources, choice
        self.slots = [Slot(number) for number in range(1, count + 1)]
        self.facts: dict = {}
        self.notice, self._said = notice, set()
        self._tickets = itertools.count(1)

    def next_ticket(self) -> int:
        """A stream ticket unique among all the batches of this pool (a late answer to a
        closed batch never matches a stream of a later one)."""
        return next(self._tickets)

    def tell(self, slot: Slot, messages: list[str]) -> None:
        """Pass on a worker's notices, each message once per render."""
        for message in messages:
            if message not in self._said:
                self._said.add(message)
                self.notice(f"{slot.node}: {message}")

    def _new_actor(self):
        import ray  # optional: ray (the cluster extra), which connect() found installed

        remote = ray.remote(**self.resources)(BackendWorker)
        return remote.remote(self.choice)

    def start(self) -> dict:
        """Start every slot's actor and wait until each has built its backend; returns the
        first worker's `describe()` facts (the engine's name, capabilities, identity). Raises
        UsageError when they have not started within START_TIMEOUT_S seconds."""
        import ray  # optional: ray (the cluster extra), which connect() found installed

        for slot in self.slots:
            slot.actor = self._new_actor()
        try:
            described = ray.get(
                [slot.actor.describe.remote() for slot in self.slots], timeout=START_TIMEOUT_S
            )
        except ray.exceptions.GetTimeoutError:
            raise UsageError(
                f"{len(self.slots)} workers of {self.resources} each did not start "
                f"within {START_TIMEOUT_S:.0f} s: the cluster has no room for them "
                f"(ray status shows what is free)"
            ) from None
        for slot, facts in zip(self.slots, described):
            slot.node = facts["node"]
            if facts["error"]:
                raise UsageError(facts["error"])
        streams = described[0]["capabilities"].batch_streams if "num_gpus" in self.resources else 1
        for slot, facts in zip(self.slots, described):
            slot.streams = max(1, streams)
            self.tell(slot, facts["notices"])
        engines = {(f["name"], repr(f["identity"])) for f in described}
        if len(engines) > 1:
            found = "; ".join(f"{f['node']}: {f['name']} {f['identity']}" for f in described)
            raise UsageError(f"the workers run different engines or models: {found}")
        self.facts = described[0]
        return self.facts

    def free(self, avoid: set) -> Slot | None:
        """The slot with the most room for another stream, one not in `avoid` (slot numbers)
        when there is one; None when every slot is full."""
        free = [slot for slot in self.slots if slot.room() > 0]
        fresh = [slot for slot in free if slot.number not in avoid]
        return max(fresh or free, key=Slot.room, default=None)

    def replace(self, slot: Slot) -> None:
        """Kill the slot's actor (it died, is unreachable or its batch broke), forget its
        streams (the caller sends them again) and start a new actor in its place; after
        MAX_REPLACEMENTS_PER_SLOT the slot is left empty."""
        import ray  # optional: ray (the cluster extra), which connect() found installed

        try:
            ray.kill(slot.actor)
        except Exception:  # already gone
            pass
        slot.clear()
        slot.actor = None
        if slot.restarts < MAX_REPLACEMENTS_PER_SLOT:
            slot.restarts += 1
            slot.actor = self._new_actor()

    def alive(self) -> int:
        """Slots that have an actor."""
        return sum(1 for slot in self.slots if slot.actor is not None)

    def close(self) -> None:
        """Kill every actor (work still running on them stops)."""
        import ray  # optional: ray (the cluster extra), which connect() found installed

        for slot in self.slots:
            if slot.actor is not None:
                try:
                    ray.kill(slot.actor)
                except Exception:  # already gone
                    pass
                slot.actor = None
