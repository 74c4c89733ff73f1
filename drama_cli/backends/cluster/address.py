"""The `--cluster` value: `local`, `local:N` (a Ray instance started on this machine with N
worker slots) or the address of a running cluster as Ray takes it (`auto`, `HOST:PORT` of the
head's GCS, `ray://HOST:PORT` for Ray Client). Read and checked here without importing Ray.
"""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass

from drama_cli.errors import UsageError

LOCAL = "local"
PROBE_TIMEOUT_S = 5.0  # how long a HOST:PORT may take to accept a connection
_HOST_PORT = re.compile(r"^(?:ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


@dataclass(frozen=True)
class ClusterTarget:
    """Where to render: `address` None for a local instance of `workers` slots (None: one per
    CPU core), else the address handed to `ray.init` (`workers` None: one per GPU, or per CPU
    on a cluster without GPUs)."""

    address: str | None = None
    workers: int | None = None

    @property
    def local(self) -> bool:
        """True for a Ray instance started by this process."""
        return self.address is None


def parse_cluster(value: str) -> ClusterTarget:
    """The target of `--cluster VALUE`. Raises UsageError for `local:` with a count that is
    not a positive whole number or is more than this machine's cores, an empty value, or a
    `HOST:PORT` that is malformed."""
    value = value.strip()
    if value == LOCAL:
        return ClusterTarget()
    if value.startswith(LOCAL + ":"):
        count = value[len(LOCAL) + 1 :]
        if not count.isdigit() or int(count) < 1:
            raise UsageError(
                f"--cluster {value}: local:N needs a whole number of workers, 1 or more"
            )
        cores = os.cpu_count() or 1
        if int(count) > cores:
            raise UsageError(
                f"--cluster {value}: this machine has {cores} cores, and a local worker "
                f"needs one; give local:{cores} or fewer"
            )
        return ClusterTarget(workers=int(count))
    if value == "auto":
        return ClusterTarget(address=value)
    if not _HOST_PORT.match(value) or not 0 < int(value.rsplit(":", 1)[1]) < 65536:
        raise UsageError(
            f"--cluster {value!r}: give local, local:N, auto, HOST:PORT or ray://HOST:PORT"
        )
    return ClusterTarget(address=value)


def check_reachable(target: ClusterTarget, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Try a TCP connection to a `HOST:PORT` target (Ray itself waits minutes for a head that
    is not there). Raises UsageError, saying why, when nothing accepts it within `timeout_s`
    seconds; local and `auto` targets pass unchecked."""
    if target.local or target.address == "auto":
        return
    match = _HOST_PORT.match(target.address)
    host, port = match.group(1).strip("[]"), int(match.group(2))
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise UsageError(
            f"--cluster {target.address}: no Ray head answers there ({reason})"
        ) from None
