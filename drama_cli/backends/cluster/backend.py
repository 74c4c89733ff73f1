"""`ClusterBackend`: the `Backend` of `drama render --cluster`. It holds no model itself: its
workers (Ray actors, `pool`) each hold one backend, and its batch (`ClusterBatch`) sends them
the render's streams. The render layer drives it like any backend, so planning, cache keys,
the take store, selection and resume stay on the producer's machine as they are.

Its name, scratch flag, options record, identity (part of every cache key) and capabilities
are its workers' (every worker must run the same engine and model); it reports no frame progress, and its
default batch is the sum of its workers' streams (one per CPU worker; a GPU worker's engine
batch).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from drama_cli.backends.base import (
    BackendDefaults,
    FrameCallback,
    Generation,
    GenerationRequest,
    StreamBatch,
)
from drama_cli.backends.cluster.address import parse_cluster
from drama_cli.backends.cluster.batch import ClusterBatch, Unit
from drama_cli.backends.cluster.clips import ClipShipper
from drama_cli.backends.cluster.pool import (
    WorkerPool,
    connect,
    hold_interrupts,
    slot_resources,
)
from drama_cli.backends.registry import AUTO, BackendChoice, backend_entry, given_options


class ClusterBackend(BackendDefaults):
    """A backend whose work runs on a started `WorkerPool`. owns_ray: disconnect from Ray on
    `close` (this process connected)."""

    def __init__(self, pool: WorkerPool, owns_ray: bool = False):
        facts = pool.facts
        self.pool, self.owns_ray = pool, owns_ray
        self.name, self.scratch = facts["name"], facts["scratch"]
        self.options = facts["options"]  # the workers' options record (saved with the project)
        self.options_type = type(self.options)
        self._identity = dict(facts["identity"])
        self.capabilities = dataclasses.replace(
            facts["capabilities"],
            streaming_frames=False,
            batch_streams=sum(s.streams for s in pool.slots),
        )
        self._shipper = ClipShipper()

    def identity(self) -> dict:
        """The workers' engine identity (the same on every worker)."""
        return dict(self._identity)

    def open_batch(self, size: int) -> StreamBatch:
        """Up to `size` streams in flight across the workers (`ClusterBatch`)."""
        return ClusterBatch(self.pool, size, self._shipper)

    def _one(self, unit: Unit):
        batch = ClusterBatch(self.pool, 1, self._shipper)
        try:
            batch.submit_unit(unit)
            done = batch.next_done()
        finally:
            batch.close()
        if done.error is not None:
            raise done.error
        return done.generation

    def generate(
        self, request: GenerationRequest, on_frames: FrameCallback | None = None
    ) -> Generation:
        """One attempt on some worker. Raises EngineError when the engine refuses it or it
        failed on every worker it was tried on."""
        return self._one(Unit("generate", request))

    def generate_scene(
        self, request: GenerationRequest, texts: list[str], on_frames: FrameCallback | None = None
    ) -> list[Generation] | None:
        """A scene group on some worker (`Backend.generate_scene`). Raises EngineError as
        `generate`."""
        return self._one(Unit("generate_scene", request, (texts,)))

    def encode_audio(self, audio: np.ndarray) -> np.ndarray:
        """Codes `[10, T]` int64 from a worker's codec (`Backend.encode_audio`). Raises
        EngineError when the engine has no codec."""
        if not self.capabilities.codes:
            return super().encode_audio(audio)
        return self._codec("encode_audio", audio)

    def decode_codes(self, codes: np.ndarray) -> np.ndarray:
        """Float32 audio at 44,100 Hz from a worker's codec (`Backend.decode_codes`). Raises
        EngineError when the engine has no codec."""
        if not self.capabilities.codes:
            return super().decode_codes(codes)
        return self._codec("decode_codes", codes)

    def _codec(self, method: str, array: np.ndarray) -> np.ndarray:
        import ray  # optional: ray (the cluster extra), which connect() found installed

        slot = next(s for s in self.pool.slots if s.actor is not None)
        return ray.get(slot.actor.codec.remote(method, np.asarray(array)))

    def worker_stats(self) -> list[dict]:
        """Each worker slot's node, units, busy and wall seconds, failures and restarts."""
        return [slot.stats() for slot in self.pool.slots]

    def close(self) -> None:
        """Stop the workers, and Ray when this process started or joined it (a Ctrl-C meanwhile
        is held back until both are done)."""
        with hold_interrupts():
            self.pool.close()
            if self.owns_ray:
                import ray  # optional: ray (the cluster extra), which connect() found installed

                ray.shutdown()


def make_cluster_backend(
    cluster: str,
    engine: str | BackendChoice = AUTO,
    model: str | None = None,
    device: str | None = None,
    notice: Callable[[str], None] = lambda message: None,
    **options: object,
) -> ClusterBackend:
    """Connect to `--cluster VALUE` (`address.parse_cluster`), start one worker per slot, each
    building the backend a `BackendChoice` names on its node (`engine` is one, or the engine
    name with `model`, `device` and backend `options` by field name as
    `drama_cli.backends.registry.make_backend` takes them), and return the backend. Raises
    UsageError for a bad value, an unknown engine, a cluster that cannot be reached, Ray not
    installed, a worker whose node has no model (named), or workers that disagree on the
    engine."""
    choice = (
        engine
        if isinstance(engine, BackendChoice)
        else BackendChoice(engine, model, device, given_options(options))
    )
    target = parse_cluster(cluster)
    if choice.engine != AUTO:
        backend_entry(choice.engine)  # an unknown name is refused before Ray starts
    owns = connect(target)
    pool = None
    try:
        count, resources = slot_resources(target, choice.engine)
        pool = WorkerPool(count, resources, choice, notice)
        pool.start()
    except BaseException:
        if pool is not None:
            pool.close()
        if owns:
            import ray  # optional: ray (the cluster extra), which connect() found installed

            ray.shutdown()
        raise
    backend = ClusterBackend(pool, owns)
    notice(f"cluster: {count} {backend.name} worker{'s' if count != 1 else ''}")
    return backend
