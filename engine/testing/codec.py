"""Random codec checkpoints in the exact `codec.pth` layout, for tests and benchmarks.

`write_random_codec(folder, preset, seed)` writes `folder/codec.pth` with the real key
names and weight-norm styles (codec-state-dict-keys.tsv), the 6 leftover buffers included;
shrunken presets also get a `codec_config.json`. No real weights are involved.
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from torch import Tensor, nn

from engine.codec.codec import Codec
from engine.codec.config import CONFIG_FILE, CodecConfig, small_config, tiny_config
from engine.codec.loading import CHECKPOINT_FILE
from engine.codec.weight_norm import unfold, weight_normed_modules
from engine.files import atomic_path

PRESETS = {"tiny": tiny_config, "small": small_config, "full": CodecConfig}


def write_random_codec(folder: Path, preset: str = "tiny", seed: int = 0) -> Path:
    """Write a random codec to `folder` and return the path of its `codec.pth`.

    preset: "tiny" (latent 64, ~0.8 M parameters), "small" (latent 128) or "full" (the
    released shapes, 391 M parameters, ~1.9 GB). Same seed -> same weights.
    Raises ValueError for an unknown preset.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown codec preset {preset!r}; expected one of {', '.join(PRESETS)}")
    config = PRESETS[preset]()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = random_checkpoint(config, seed)
    path = folder / CHECKPOINT_FILE
    with atomic_path(path, mode=0o644) as temp:
        torch.save(state, temp)
    config_path = folder / CONFIG_FILE
    if preset == "full":
        config_path.unlink(missing_ok=True)
    else:
        config_path.write_text(config.to_json())
    return path


def random_checkpoint(config: CodecConfig, seed: int) -> dict[str, Tensor]:
    """A state dict in the file layout (weight norm as (g, v), buffers included)."""
    with torch.device("meta"):
        model = Codec(config)
    generator = torch.Generator().manual_seed(seed)
    transposed = {
        f"{name}.weight"
        for name, module in model.named_modules()
        if isinstance(module, nn.ConvTranspose1d)
    }
    folded = {
        key: _random_tensor(key, tuple(t.shape), generator, key in transposed)
        for key, t in model.state_dict().items()
    }
    state = unfold(folded, weight_normed_modules(model))
    state.update(_leftover_buffers(config))
    return state


def _random_tensor(
    key: str, shape: tuple[int, ...], generator: torch.Generator, transposed: bool
) -> Tensor:
    """Values of a plausible scale for each kind of parameter, so signals stay in range."""
    leaf = key.rsplit(".", 1)[-1]

    def uniform(low: float, high: float) -> Tensor:
        return low + (high - low) * torch.rand(shape, generator=generator)

    if leaf == "alpha":
        return uniform(0.5, 1.5)
    if leaf == "gamma":
        return uniform(0.05, 0.2)
    if leaf == "bias":
        return 0.01 * torch.randn(shape, generator=generator)
    if len(shape) == 1:  # RMSNorm / LayerNorm weights
        return uniform(0.8, 1.2)
    if "codebook" in key:
        return torch.randn(shape, generator=generator)
    # a transposed conv [C_in, C_out, 2s] sums about 2 * C_in inputs per output sample
    fan_in = 2 * shape[0] if transposed else math.prod(shape[1:])
    # residual units end in a k1 conv ("block.3"); a small one keeps x + f(x) from growing
    # and a small output conv keeps the tanh out of saturation
    gain = 0.3 if key.endswith("block.3.conv.weight") or shape[0] == 1 else 1.0
    return torch.randn(shape, generator=generator) * (gain / math.sqrt(fan_in))


def _leftover_buffers(config: CodecConfig) -> dict[str, Tensor]:
    """The S1-era RoPE tables and causal masks that `codec.pth` carries (docs/internals/codec.md §1.6)."""
    full = config == CodecConfig()
    buffers = {}
    owners = [
        f"encoder.block.{i + 1}.block.5"
        for i, n in enumerate(config.encoder_transformer_layers)
        if n
    ]
    for owner in owners + ["quantizer.pre_module", "quantizer.post_module"]:
        size = (16_384 if owner.startswith("encoder") else 4_096) if full else 64
        buffers[f"{owner}.freqs_cis"] = torch.zeros(
            size, config.head_dim // 2, 2, dtype=torch.bfloat16
        )
        buffers[f"{owner}.causal_mask"] = torch.ones(size, size, dtype=torch.bool).tril()
    return buffers
