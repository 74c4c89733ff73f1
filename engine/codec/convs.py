"""Causal convolution building blocks of the codec (spec codec.md §1.2).

Every layer takes `x [B, C, L]` and an optional streaming `state` dict. With `state=None`
a layer processes a whole clip; with a dict it processes the next chunk of a stream and
keeps what it needs (left context, transposed-conv overlap) under its own key, so that
concatenated chunk outputs equal the whole-clip output (codec.md §2.3).

Weight-normed convs hold their folded weight in `conv.weight`; `weight_norm_style` on the
inner conv tells the checkpoint loader how the file stores it ("parametrizations": `.conv.
parametrizations.weight.original0/1`, "legacy": `.weight_g/.weight_v`).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

State = dict | None


class Snake(nn.Module):
    """Snake activation y = x + sin(alpha x)^2 / (alpha + 1e-9), per channel (codec.md §1.2).

    Parameter `alpha [1, C, 1]`. `[B, C, L] -> [B, C, L]`, any float dtype.
    """

    def __init__(self, channels: int):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1, channels, 1))

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        wave = torch.sin(self.alpha * x)
        wave.square_()
        wave.mul_((self.alpha + 1e-9).reciprocal())
        return wave.add_(x)


class Tanh(nn.Module):
    """Tanh output stage; keeps the streaming signature of the other layers."""

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        return torch.tanh(x)


class CausalConv1d(nn.Module):
    """Causal conv: left zero pad (k-1)d+1-s, right pad to complete the last window.

    Child `conv` is a plain `nn.Conv1d` (no own padding). Output length ceil(L / stride).
    Streaming (stride 1 or chunks that are multiples of the stride): the layer keeps the last
    (k-1)d+1-s input samples of the stream as the left context of the next chunk.
    """

    def __init__(self, c_in: int, c_out: int, kernel: int, stride: int = 1,
                 dilation: int = 1, groups: int = 1, weight_norm: str | None = "parametrizations"):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, kernel, stride=stride, dilation=dilation, groups=groups)
        self.conv.weight_norm_style = weight_norm
        self.stride = stride
        self.left_pad = (kernel - 1) * dilation + 1 - stride

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        if state is None:
            length = x.shape[-1]
            right = math.ceil(length / self.stride) * self.stride - length
            return self.conv(F.pad(x, (self.left_pad, right)))
        return self.conv(self._with_history(x, state))

    def _with_history(self, x: Tensor, state: dict) -> Tensor:
        history = state.get(self)
        if history is None:
            history = x.new_zeros(*x.shape[:-1], self.left_pad)
        joined = torch.cat([history, x], dim=-1)
        state[self] = joined[..., joined.shape[-1] - self.left_pad:]
        return joined


class CausalConvTranspose1d(nn.Module):
    """Causal transposed conv: full transposed conv, keep the first L*stride samples.

    Child `conv` is a plain `nn.ConvTranspose1d`. `[B, C_in, L] -> [B, C_out, L*stride]`.
    Streaming: the (k - stride) samples past the chunk end are the overlap with the next
    chunk; they are kept (without bias) and added to its first samples (codec.md §2.3).
    """

    def __init__(self, c_in: int, c_out: int, kernel: int, stride: int,
                 weight_norm: str | None = "parametrizations"):
        super().__init__()
        self.conv = nn.ConvTranspose1d(c_in, c_out, kernel, stride=stride)
        self.conv.weight_norm_style = weight_norm
        self.stride = stride
        self.overlap = kernel - stride

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        keep = x.shape[-1] * self.stride
        if state is None or self.overlap == 0:
            return self.conv(x)[..., :keep]
        y = F.conv_transpose1d(x, self.conv.weight, None, stride=self.stride)
        tail = state.get(self)
        if tail is not None:
            y[..., : self.overlap] += tail
        state[self] = y[..., keep:].clone()
        return y[..., :keep] + self.conv.bias[:, None]


class ResidualUnit(nn.Module):
    """x + conv1(snake(conv7_dilated(snake(x)))) at C channels (codec.md §1.2)."""

    def __init__(self, channels: int, dilation: int):
        super().__init__()
        self.block = nn.Sequential(
            Snake(channels),
            CausalConv1d(channels, channels, 7, dilation=dilation),
            Snake(channels),
            CausalConv1d(channels, channels, 1),
        )

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        return x + run_layers(self.block, x, state)


class ConvNeXtBlock(nn.Module):
    """ConvNeXt block of the quantizer resamplers (codec.md §1.2).

    Causal depthwise conv k7 (no weight norm) -> LayerNorm(eps 1e-6) -> Linear C->4C ->
    exact GELU -> Linear 4C->C -> * gamma -> + input. `[B, C, L] -> [B, C, L]`.
    """

    def __init__(self, channels: int):
        super().__init__()
        self.dwconv = CausalConv1d(channels, channels, 7, groups=channels, weight_norm=None)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.pwconv1 = nn.Linear(channels, 4 * channels)
        self.pwconv2 = nn.Linear(4 * channels, channels)
        self.gamma = nn.Parameter(torch.ones(channels))

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        h = self.dwconv(x, state).transpose(1, 2)
        h = self.pwconv2(F.gelu(self.pwconv1(self.norm(h))))
        return x + (self.gamma * h).transpose(1, 2)


def run_layers(layers: nn.Sequential, x: Tensor, state: State = None) -> Tensor:
    """Apply `layers` in order, passing the streaming state to each."""
    for layer in layers:
        x = layer(x, state)
    return x
