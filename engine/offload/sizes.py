"""Memory sizes: parsing `24GB`-style sizes and reading a device's free memory."""

from __future__ import annotations

import os
import re

import torch

_UNITS = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")


def parse_size(text: str) -> int:
    """Bytes in a size such as `24GB` (10^9), `24GiB` (2^30), `500MB`, `1.5TB` or `4096B`.
    Raises ValueError naming the accepted forms for anything else: zero, or a bare number (is
    `24` bytes or gigabytes? the unit is asked for)."""
    match = _SIZE.fullmatch(text)
    unit = match.group(2).upper() if match else None
    if unit not in _UNITS:
        raise ValueError(
            f"{text!r} is not a memory size; write e.g. 24GB, 24GiB or 500MB "
            "(units B, KB, MB, GB, TB or KiB, MiB, GiB, TiB)"
        )
    size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise ValueError(f"{text!r}: the memory size must be more than zero")
    return size


def format_size(size: int) -> str:
    """`size` bytes in GB, MB or kB (powers of ten) with two decimals, e.g. `24.00 GB`."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(size) >= scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size} B"


def device_free_bytes(device: torch.device) -> int | None:
    """Free memory of a CUDA `device` in bytes (`torch.cuda.mem_get_info`); None for other
    devices, which have no memory of their own to plan."""
    if device.type != "cuda":
        return None
    free, _total = torch.cuda.mem_get_info(device)
    return int(free)


def host_available_bytes() -> int | None:
    """Memory the system reports available to new allocations, in bytes; None where it does
    not say (`os.sysconf` without `SC_AVPHYS_PAGES`)."""
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None
