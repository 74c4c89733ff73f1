"""Reading `codec.pth` strictly into the codec's modules (docs/internals/codec.md §1.7, §3.1).

Accepted wrappers: a bare state dict, `{"state_dict": ...}`, `{"generator": ...}`, and
keys prefixed `generator.` (training checkpoints). The 6 non-learnable buffers
(`*.freqs_cis`, `*.causal_mask`) are dropped by name; every other key must match the
modules by name and shape, else CheckpointError lists the mismatches.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import Tensor, nn

from engine.codec.weight_norm import (
    canonical_key,
    checkpoint_shapes,
    fold,
    weight_normed_modules,
)
from engine.errors import CheckpointError

CHECKPOINT_FILE = "codec.pth"
DROPPED_SUFFIXES = (".freqs_cis", ".causal_mask")
_LISTED = 8


def resolve_path(path: str | Path) -> Path:
    """The `codec.pth` file itself, or the one inside folder `path`; CheckpointError if absent."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT_FILE
    if not path.is_file():
        raise CheckpointError(f"codec checkpoint not found: {path}")
    return path


def read_state_dict(path: Path) -> dict[str, Tensor]:
    """Tensors of `path` with wrappers and prefixes removed and the buffers dropped."""
    try:
        data = torch.load(path, map_location="cpu", mmap=True, weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt or foreign files
        raise CheckpointError(f"{path}: not a readable codec checkpoint ({exc})") from exc
    for wrapper in ("state_dict", "generator"):
        if isinstance(data, dict) and isinstance(data.get(wrapper), dict):
            data = data[wrapper]
    if not isinstance(data, dict) or not all(isinstance(v, Tensor) for v in data.values()):
        raise CheckpointError(f"{path}: expected a dict of tensors")
    if any("generator." in key for key in data):
        data = {
            key.replace("generator.", "", 1): v for key, v in data.items() if "generator." in key
        }
    return {key: v for key, v in data.items() if not key.endswith(DROPPED_SUFFIXES)}


def check_and_fold(state: dict[str, Tensor], model: nn.Module, path: Path) -> dict[str, Tensor]:
    """Check `state` against `model` strictly (names and shapes) and fold its weight norm.

    Raises CheckpointError listing missing keys, unexpected keys and shape mismatches.
    """
    normed = weight_normed_modules(model)
    state = {canonical_key(key, normed): value for key, value in state.items()}
    expected = checkpoint_shapes(model)
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    wrong = sorted(
        f"{k} {tuple(state[k].shape)} (expected {expected[k]})"
        for k in set(state) & set(expected)
        if tuple(state[k].shape) != expected[k]
    )
    problems = [
        _listing(label, names)
        for label, names in (
            ("missing", missing),
            ("unexpected", unexpected),
            ("wrong shape", wrong),
        )
        if names
    ]
    if problems:
        hint = (
            ""
            if (path.parent / "codec_config.json").exists()
            else " (a shrunken codec needs its codec_config.json beside codec.pth)"
        )
        raise CheckpointError(f"{path}: codec weights do not match{hint}: " + "; ".join(problems))
    return fold(state, normed)


def _listing(label: str, names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    more = f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
    return f"{len(names)} {label}: {shown}{more}"
