"""The codec's convolutional decoder: latent at 86.13 Hz -> waveform at 44,100 Hz (docs/internals/codec.md §1.5).

The reference builds a decoder transformer but never registers it, so there is none here
(docs/internals/codec.md §0, item 3).
"""

from __future__ import annotations

from torch import Tensor, nn

from engine.codec.config import CodecConfig
from engine.codec.convs import (
    CausalConv1d,
    CausalConvTranspose1d,
    ResidualUnit,
    Snake,
    State,
    Tanh,
    run_layers,
)


class DecoderBlock(nn.Module):
    """Snake, causal transposed conv c_in -> c_out (kernel 2*stride), three residual units."""

    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.block = nn.Sequential(
            Snake(c_in),
            CausalConvTranspose1d(c_in, c_out, 2 * stride, stride),
            *(ResidualUnit(c_out, d) for d in (1, 3, 9)),
        )

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, c_in, 1, L] -> [B, c_out, 1, L * stride]`."""
        return run_layers(self.block, x, state)


class Decoder(nn.Module):
    """Planes `[B, latent_dim, 1, L] -> [B, 1, 1, L * prod(decoder_rates)]`, values in (-1, 1) (tanh)."""

    def __init__(self, config: CodecConfig):
        super().__init__()
        dim = config.decoder_dim
        layers: list[nn.Module] = [CausalConv1d(config.latent_dim, dim, 7)]
        for stride in config.decoder_rates:
            layers.append(DecoderBlock(dim, dim // 2, stride))
            dim //= 2
        layers += [Snake(dim), CausalConv1d(dim, 1, 7), Tanh()]
        self.model = nn.Sequential(*layers)

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """Latent planes -> waveform planes (shapes in the class docstring); `state` streams chunks."""
        return run_layers(self.model, x, state)
