"""Hyperparameters of the S2 codec (ModifiedDAC), with the released values as defaults.

The released `codec.pth` ships without a config, so `CodecConfig()` is the real codec
(docs/internals/codec.md §1.1). A shrunken codec for tests is described by a `codec_config.json`
beside its `codec.pth`; it keeps hop 2048 and the 1 + 9 codebook layout.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from engine.config import read_json_object
from engine.constants import CODEBOOK_SIZE, NUM_CODEBOOKS, SAMPLE_RATE
from engine.errors import CheckpointError

CONFIG_FILE = "codec_config.json"


@dataclass(frozen=True)
class CodecConfig:
    """Codec hyperparameters (docs/internals/codec.md §1.1; defaults are the released S2 codec).

    Encoder: `encoder_dim` channels after the first conv, doubled by each of the
    `encoder_rates` blocks (latent = encoder_dim * 2**len(encoder_rates)); a windowed causal
    transformer (`encoder_window` frames) after block i when `encoder_transformer_layers[i]` > 0.
    Quantizer: `downsample_factors` causal convs + ConvNeXt blocks, `pre`/`post` windowed
    transformers of `quantizer_layers` layers (`quantizer_window` frames), 1 semantic codebook
    of `semantic_codebook_size` and `residual_codebooks` of `codebook_size`, all of
    `codebook_dim` dimensions. Decoder: `decoder_dim` channels halved by each of the
    `decoder_rates` upsampling blocks.
    """

    sample_rate: int = SAMPLE_RATE
    encoder_dim: int = 64
    encoder_rates: tuple[int, ...] = (2, 4, 8, 8)
    encoder_transformer_layers: tuple[int, ...] = (0, 0, 0, 4)
    encoder_window: int = 512
    decoder_dim: int = 1536
    decoder_rates: tuple[int, ...] = (8, 8, 4, 2)
    downsample_factors: tuple[int, ...] = (2, 2)
    residual_codebooks: int = NUM_CODEBOOKS - 1
    codebook_size: int = 1024
    semantic_codebook_size: int = CODEBOOK_SIZE
    codebook_dim: int = 8
    quantizer_layers: int = 8
    quantizer_heads: int = 16
    quantizer_intermediate: int = 3072
    quantizer_window: int = 128
    head_dim: int = 64
    rope_base: float = 10_000.0
    norm_eps: float = 1e-5

    @property
    def latent_dim(self) -> int:
        """Channels of the encoder output and of the quantizer (1024 for the real codec)."""
        return self.encoder_dim * 2 ** len(self.encoder_rates)

    @property
    def hop_samples(self) -> int:
        """Samples per code frame: prod(encoder_rates) * prod(downsample_factors) = 2048."""
        return math.prod(self.encoder_rates) * math.prod(self.downsample_factors)

    @property
    def num_codebooks(self) -> int:
        """Codebooks per frame: 1 semantic + the residual ones (10)."""
        return 1 + self.residual_codebooks

    def to_json(self) -> str:
        """The config as JSON text (the `codec_config.json` format)."""
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: dict) -> CodecConfig:
        """Build from a dict; raises CheckpointError on unknown keys or bad values."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise CheckpointError(f"unknown codec config keys: {', '.join(unknown)}")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        config = cls(**values)
        config.validate()
        return config

    @classmethod
    def for_folder(cls, folder: Path) -> CodecConfig:
        """The config of the codec in `folder`: its `codec_config.json`, else the real one."""
        path = Path(folder) / CONFIG_FILE
        if not path.exists():
            return cls()
        return cls.from_dict(read_json_object(path, "codec config"))

    def validate(self) -> None:
        """Raise CheckpointError if the values cannot build a codec."""
        problems = []
        if len(self.encoder_transformer_layers) != len(self.encoder_rates):
            problems.append("encoder_transformer_layers and encoder_rates differ in length")
        if self.latent_dim % self.head_dim or self.latent_dim % self.quantizer_heads:
            problems.append("latent_dim must be a multiple of head_dim and quantizer_heads")
        if self.quantizer_heads * self.head_dim != self.latent_dim:
            problems.append("quantizer_heads * head_dim must equal latent_dim")
        if self.decoder_dim % 2 ** len(self.decoder_rates):
            problems.append("decoder_dim must halve evenly through the decoder blocks")
        if math.prod(self.decoder_rates) * math.prod(self.downsample_factors) != self.hop_samples:
            problems.append("decoder_rates do not undo the encoder hop")
        if min(self.encoder_window, self.quantizer_window) < 1:
            problems.append("attention windows must be positive")
        if problems:
            raise CheckpointError("invalid codec config: " + "; ".join(problems))


def shrunken_config(width: int) -> CodecConfig:
    """A shrunken codec for CPU tests (docs/internals/codec.md §4): hop 2048 and 1 + 9 codebooks as released,
    latent 64 * width, `width` quantizer transformer layers of `width` heads."""
    return CodecConfig(
        encoder_dim=4 * width,
        decoder_dim=64 * width,
        quantizer_layers=width,
        quantizer_heads=width,
        quantizer_intermediate=192 * width,
    )


def tiny_config() -> CodecConfig:
    """The `tiny` test codec: `shrunken_config(1)` (latent 64, one quantizer layer)."""
    return shrunken_config(1)


def small_config() -> CodecConfig:
    """The `small` test codec: `shrunken_config(2)` (latent 128, two quantizer layers)."""
    return shrunken_config(2)
