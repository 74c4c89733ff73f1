"""The codec's convolutional encoder: waveform at 44,100 Hz -> latent at 86.13 Hz (docs/internals/codec.md §1.3)."""

from __future__ import annotations

from torch import Tensor, nn

from engine.codec.config import CodecConfig
from engine.codec.convs import CausalConv1d, ResidualUnit, Snake, State, run_layers
from engine.codec.transformer import WindowedTransformer


class EncoderBlock(nn.Module):
    """Three residual units at dim/2 (dilations 1, 3, 9), Snake, strided conv dim/2 -> dim
    (kernel 2*stride), then an optional windowed transformer (`block.5`)."""

    def __init__(self, dim: int, stride: int, n_layers: int, config: CodecConfig):
        super().__init__()
        half = dim // 2
        layers = [ResidualUnit(half, d) for d in (1, 3, 9)]
        layers += [Snake(half), CausalConv1d(half, dim, 2 * stride, stride=stride)]
        if n_layers:
            layers.append(
                WindowedTransformer(
                    dim,
                    n_layers,
                    dim // config.head_dim,
                    config.head_dim,
                    3 * dim,
                    config.encoder_window,
                    config.rope_base,
                    config.norm_eps,
                )
            )
        self.block = nn.Sequential(*layers)

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, dim / 2, 1, L] -> [B, dim, 1, L / stride]` (L a multiple of the stride)."""
        return run_layers(self.block, x, state)


class Encoder(nn.Module):
    """Planes `[B, 1, 1, L] -> [B, latent_dim, 1, L / prod(encoder_rates)]` (L a multiple of the hop)."""

    def __init__(self, config: CodecConfig):
        super().__init__()
        dim = config.encoder_dim
        layers: list[nn.Module] = [CausalConv1d(1, dim, 7)]
        for stride, n_layers in zip(config.encoder_rates, config.encoder_transformer_layers):
            dim *= 2
            layers.append(EncoderBlock(dim, stride, n_layers, config))
        layers += [Snake(dim), CausalConv1d(dim, config.latent_dim, 3)]
        self.block = nn.Sequential(*layers)

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """Waveform planes -> latent planes (shapes in the class docstring); `state` streams chunks."""
        return run_layers(self.block, x, state)
