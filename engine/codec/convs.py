"""Causal convolution building blocks of the codec (docs/internals/codec.md §1.2).

Activations travel as `[B, C, 1, L]` tensors in channels-last memory (`to_planes`), so the
oneDNN convolutions run without reordering their inputs and outputs, and the transformer
and ConvNeXt layers see `[B, L, C]` rows without copies. Parameters keep the checkpoint's
1-D shapes (`[C_out, C_in, k]`); weight-normed convs hold their folded weight, and the inner
conv's `weight_norm_style` tells the loader how the file stores it ("parametrizations":
`.conv.parametrizations.weight.original0/1`, "legacy": `.weight_g/.weight_v`).

Every layer takes an optional streaming `state` dict. With `state=None` it processes a
whole clip; with a dict it processes the next chunk of a stream and keeps its left context
under its own key, so concatenated chunk outputs equal the whole-clip output (docs/internals/codec.md §2.3).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

State = dict | None


def to_planes(x: Tensor) -> Tensor:
    """`[B, C, L]` -> `[B, C, 1, L]` in channels-last memory (the layers' layout)."""
    return x[:, :, None, :].contiguous(memory_format=torch.channels_last)


def from_planes(x: Tensor) -> Tensor:
    """`[B, C, 1, L]` -> `[B, C, L]` (a view)."""
    return x[:, :, 0, :]


def rows_of(x: Tensor) -> Tensor:
    """`[B, C, 1, L]` channels-last -> `[B, L, C]` (a view when the memory is contiguous)."""
    return x[:, :, 0, :].transpose(1, 2)


def planes_of(rows: Tensor) -> Tensor:
    """`[B, L, C]` -> `[B, C, 1, L]` channels-last (a view of contiguous rows)."""
    return rows.contiguous()[:, None].permute(0, 3, 1, 2)


class Snake(nn.Module):
    """Snake activation y = x + sin(alpha x)^2 / (alpha + 1e-9), per channel (docs/internals/codec.md §1.2).

    Parameter `alpha [1, C, 1]`. `[B, C, 1, L] -> [B, C, 1, L]`, any float dtype.
    """

    def __init__(self, channels: int):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1, channels, 1))

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, C, 1, L] -> [B, C, 1, L]`; `state` is unused (streaming signature)."""
        alpha = self.alpha[..., None]
        wave = torch.sin(alpha * x)
        wave.square_()
        return torch.addcmul(x, wave, (alpha + 1e-9).reciprocal())


class Tanh(nn.Module):
    """Tanh output stage; keeps the streaming signature of the other layers."""

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`tanh(x)`, same shape; `state` is unused (streaming signature)."""
        return torch.tanh(x)


def _left_context(owner: nn.Module, x: Tensor, state: dict, size: int) -> Tensor:
    """`x` with the last `size` samples of the stream before it (zeros at the start)."""
    history = state.get(owner)
    if history is None:
        history = x.new_zeros(*x.shape[:-1], size)
    joined = torch.cat([history, x], dim=-1)
    state[owner] = joined[..., joined.shape[-1] - size :]
    return joined


class CausalConv1d(nn.Module):
    """Causal conv: left zero pad (k-1)d+1-s, right pad to complete the last window.

    Child `conv` is a plain `nn.Conv1d` holding the weights. `[B, C_in, 1, L] ->
    [B, C_out, 1, ceil(L / s)]`. Streaming (chunks that are multiples of the stride): the
    layer keeps the last (k-1)d+1-s input samples as the left context of the next chunk.
    """

    def __init__(
        self,
        c_in: int,
        c_out: int,
        kernel: int,
        stride: int = 1,
        dilation: int = 1,
        groups: int = 1,
        weight_norm: str | None = "parametrizations",
    ):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, kernel, stride=stride, dilation=dilation, groups=groups)
        self.conv.weight_norm_style = weight_norm
        self.stride, self.dilation, self.groups = stride, dilation, groups
        self.left_pad = (kernel - 1) * dilation + 1 - stride

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, C_in, 1, L] -> [B, C_out, 1, ceil(L / stride)]`. With a streaming `state`, L must
        be a multiple of the stride (ValueError otherwise)."""
        if state is not None:
            if x.shape[-1] % self.stride:
                raise ValueError(f"stream chunks must be multiples of the stride {self.stride}")
            return self._conv(_left_context(self, x, state, self.left_pad), 0)
        length = x.shape[-1]
        out_length = math.ceil(length / self.stride)
        right = out_length * self.stride - length
        if right > self.left_pad:
            return self._conv(F.pad(x, (self.left_pad, right)), 0)
        # pad both sides inside the conv (no copy of x), then drop the extra outputs
        return self._conv(x, self.left_pad)[..., :out_length]

    def _conv(self, x: Tensor, pad: int) -> Tensor:
        weight = cached(self, self.conv.weight, _planes_weight)
        if weight.shape[-1] == 1 and self.stride == 1 and self.groups == 1:
            # a pointwise conv is a matmul over the channels-last rows
            return planes_of(F.linear(rows_of(x), weight[:, :, 0, 0], self.conv.bias))
        if x.shape[1] == 1:  # a mono input has no channel layout; the 1-D conv is faster
            y = F.conv1d(
                x[:, :, 0],
                self.conv.weight,
                self.conv.bias,
                stride=self.stride,
                padding=pad,
                dilation=self.dilation,
            )
            return to_planes(y)
        y = F.conv2d(
            x,
            weight,
            self.conv.bias,
            stride=(1, self.stride),
            padding=(0, pad),
            dilation=(1, self.dilation),
            groups=self.groups,
        )
        return y.contiguous(memory_format=torch.channels_last)


def _planes_weight(weight: Tensor) -> Tensor:
    return weight[:, :, None].contiguous(memory_format=torch.channels_last)


def cached(owner: nn.Module, weight: Tensor, derive) -> Tensor:
    """`derive(weight)`, computed once per weight value and kept on `owner`.

    oneDNN wants weights in channels-last order; converting them on every call would copy
    every weight of the codec on every chunk. The cache is keyed by the weight's storage
    and version, so loading or moving the weights recomputes it.
    """
    version = 0 if weight.is_inference() else weight._version  # inference tensors are frozen
    key = (weight.data_ptr(), version, weight.dtype, weight.device, weight.shape)
    entry = owner.__dict__.get("_derived")
    if entry is None or entry[0] != key:
        entry = (key, derive(weight))
        owner.__dict__["_derived"] = entry
    return entry[1]


class CausalConvTranspose1d(nn.Module):
    """Causal transposed conv: the full transposed conv, keeping the first L*s samples.

    Child `conv` is a plain `nn.ConvTranspose1d` (weight `[C_in, C_out, k]`, k = m*s).
    Computed as its polyphase form: a causal conv of kernel m with s*C_out outputs per
    input frame, y[o, N*s + r] = b[o] + sum_{d<m} sum_c x[c, N-d] w[c, o, d*s + r], whose
    outputs laid out (r, o) already are the interleaved samples in channels-last memory.
    `[B, C_in, 1, L] -> [B, C_out, 1, L*s]`. Streaming keeps the last m-1 input frames.
    """

    def __init__(
        self,
        c_in: int,
        c_out: int,
        kernel: int,
        stride: int,
        weight_norm: str | None = "parametrizations",
    ):
        super().__init__()
        if kernel % stride:
            raise ValueError(
                "a causal transposed conv needs a kernel that is a multiple of its stride"
            )
        self.conv = nn.ConvTranspose1d(c_in, c_out, kernel, stride=stride)
        self.conv.weight_norm_style = weight_norm
        self.stride, self.taps = stride, kernel // stride

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, C_in, 1, L] -> [B, C_out, 1, L * stride]`; with `state`, continues the previous chunk."""
        weight, bias = self.polyphase_weights()
        batch, _, _, length = x.shape
        if self.taps == 1:  # no overlap between frames: a matmul per input frame
            y = planes_of(F.linear(rows_of(x), weight[:, :, 0, 0], bias))
        elif state is None:
            y = F.conv2d(x, weight, bias, padding=(0, self.taps - 1))[..., :length]
        else:
            y = F.conv2d(_left_context(self, x, state, self.taps - 1), weight, bias)
        rows = y.permute(0, 2, 3, 1).reshape(batch, 1, length * self.stride, -1)
        return rows.permute(0, 3, 1, 2)

    def polyphase_weights(self) -> tuple[Tensor, Tensor]:
        """Weight `[s*C_out, C_in, 1, m]` (channels-last) and bias `[s*C_out]`, cached."""
        weight = cached(self, self.conv.weight, self._polyphase_weight)
        return weight, self.conv.bias.repeat(self.stride)

    def _polyphase_weight(self, w: Tensor) -> Tensor:
        c_in, c_out, _ = w.shape
        phases = w.reshape(c_in, c_out, self.taps, self.stride).flip(2)  # [c, o, j, r]
        weight = phases.permute(3, 1, 0, 2).reshape(self.stride * c_out, c_in, 1, self.taps)
        return weight.contiguous(memory_format=torch.channels_last)


class ResidualUnit(nn.Module):
    """x + conv1(snake(conv7_dilated(snake(x)))) at C channels (docs/internals/codec.md §1.2)."""

    def __init__(self, channels: int, dilation: int):
        super().__init__()
        self.block = nn.Sequential(
            Snake(channels),
            CausalConv1d(channels, channels, 7, dilation=dilation),
            Snake(channels),
            CausalConv1d(channels, channels, 1),
        )

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, C, 1, L] -> [B, C, 1, L]`."""
        return x + run_layers(self.block, x, state)


class ConvNeXtBlock(nn.Module):
    """ConvNeXt block of the quantizer resamplers (docs/internals/codec.md §1.2).

    Causal depthwise conv k7 (no weight norm) -> LayerNorm(eps 1e-6) -> Linear C->4C ->
    exact GELU -> Linear 4C->C -> * gamma -> + input. `[B, C, 1, L] -> [B, C, 1, L]`.
    """

    def __init__(self, channels: int):
        super().__init__()
        self.dwconv = CausalConv1d(channels, channels, 7, groups=channels, weight_norm=None)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.pwconv1 = nn.Linear(channels, 4 * channels)
        self.pwconv2 = nn.Linear(4 * channels, channels)
        self.gamma = nn.Parameter(torch.ones(channels))

    def forward(self, x: Tensor, state: State = None) -> Tensor:
        """`[B, C, 1, L] -> [B, C, 1, L]`."""
        h = rows_of(self.dwconv(x, state))
        h = self.pwconv2(F.gelu(self.pwconv1(self.norm(h))))
        return x + planes_of(self.gamma * h)


def run_layers(layers: nn.Sequential, x: Tensor, state: State = None) -> Tensor:
    """Apply `layers` in order, passing the streaming state to each."""
    for layer in layers:
        x = layer(x, state)
    return x
