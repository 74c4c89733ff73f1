"""A model with random weights in the real layout, made directly on a device with no file
written: seconds for the `full` preset on a GPU instead of writing and reading ~36 GB.

`RandomCheckpoint` has the loader's interface (`engine.checkpoint.Checkpoint`: `config`,
`names`, `load_tensor`, `tensors`, `load_rows`, `close`) and draws each tensor on demand with
`engine.testing.checkpoints.random_tensor`, so its values are those `write_checkpoint` would
write when drawing on the same device. `random_model` builds a `Drama3` from it.
"""

from __future__ import annotations

import torch

from engine.checkpoint import expected_tensors, is_routed_expert
from engine.config import Drama3Config
from engine.generate import Drama3
from engine.testing.checkpoints import preset_config_dict, preset_tokenizer, random_tensor
from engine.tokenizer import Drama3Tokenizer


class RandomCheckpoint:
    """The tensors of `config` drawn on `device` (routed experts block-FP8 with fp32 scales,
    the rest in their checkpoint dtype), the same values at every call for one `seed`."""

    def __init__(self, config: Drama3Config, device: str | torch.device, seed: int = 0):
        self.config, self.device, self.seed = config, torch.device(device), seed
        self.specs = expected_tensors(config)

    def names(self) -> list[str]:
        return list(self.specs)

    def close(self) -> None:
        """Nothing to release (the loader's interface)."""

    def load_tensor(self, name: str, device=None, dtype: torch.dtype | None = None) -> torch.Tensor:
        """One tensor on `device` (default the drawing device); `dtype` applies to all but the
        FP8 experts and their scales."""
        value = random_tensor(name, self.specs[name], self.seed, self.config, self.device)
        if not is_routed_expert(name) and dtype is not None:
            value = value.to(dtype)
        return value.to(device) if device is not None else value

    def tensors(
        self, prefix: str, device=None, dtype: torch.dtype | None = None
    ) -> dict[str, torch.Tensor]:
        """Every tensor whose name starts with `prefix`, keyed by the rest of its name."""
        return {
            n[len(prefix) :]: self.load_tensor(n, device, dtype)
            for n in self.specs
            if n.startswith(prefix)
        }

    def load_rows(
        self, name: str, rows: list[int], device=None, dtype: torch.dtype | None = None
    ) -> torch.Tensor:
        """Rows `rows` of a 2-D tensor (e.g. `lm_head.weight`), as `load_tensor` gives them."""
        return self.load_tensor(name, device, dtype)[
            torch.tensor(rows, device=device or self.device)
        ]


def random_model(
    preset: str,
    device: str | torch.device,
    dtype: torch.dtype | None = None,
    seed: int = 0,
    offload=None,
):
    """A `engine.generate.Drama3` of `preset` with random weights drawn on `device` (no codec).
    dtype: default bfloat16 on CUDA, float32 on the CPU; offload: `engine.offload.offload.OffloadSettings`
    to keep the routed experts in host memory behind a cache. Raises ValueError for an unknown
    preset."""
    tokenizer = preset_tokenizer(preset)
    config = Drama3Config.from_dict(preset_config_dict(preset, tokenizer))
    return Drama3.from_checkpoint(
        RandomCheckpoint(config, device, seed),
        Drama3Tokenizer(tokenizer),
        device,
        dtype,
        offload=offload,
    )


__all__ = ["RandomCheckpoint", "random_model"]
