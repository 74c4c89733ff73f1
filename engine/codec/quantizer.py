"""The codec's downsampling residual vector quantizer (docs/internals/codec.md §1.4, §2.1, §2.2).

Latent at 86.13 Hz -> two causal stride-2 convs with ConvNeXt blocks -> `pre_module`
windowed transformer -> codebook 0 (semantic) then 9 residual codebooks on what is left.
Decoding sums the codebook vectors through each `out_proj`, then `post_module` and two
transposed-conv upsamplers with ConvNeXt blocks.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine.codec.config import CodecConfig
from engine.codec.convs import (
    CausalConv1d,
    CausalConvTranspose1d,
    ConvNeXtBlock,
    State,
    from_planes,
    run_layers,
    to_planes,
)
from engine.codec.transformer import WindowedTransformer


class VectorQuantizer(nn.Module):
    """One codebook `[size, dim]` with 1x1 conv projections in/out of the latent (docs/internals/codec.md §1.2).

    Both projections are weight-normed in the checkpoint's legacy style (`weight_g`, `weight_v`).
    """

    def __init__(self, latent_dim: int, size: int, dim: int):
        super().__init__()
        self.in_proj = nn.Conv1d(latent_dim, dim, 1)
        self.out_proj = nn.Conv1d(dim, latent_dim, 1)
        self.in_proj.weight_norm_style = self.out_proj.weight_norm_style = "legacy"
        self.codebook = nn.Embedding(size, dim)

    def quantize(self, residual: Tensor) -> tuple[Tensor, Tensor]:
        """`residual [B, latent, T]` -> (codes `[B, T]` int64, quantized `[B, latent, T]`).

        Nearest codebook row by L2 distance between L2-normalised vectors; the raw row goes
        through `out_proj`, in the reference's straight-through form z_e + (z_q - z_e).
        """
        z_e = self.in_proj(residual)
        batch, dim, length = z_e.shape
        vectors = F.normalize(z_e.transpose(1, 2).reshape(batch * length, dim))
        rows = F.normalize(self.codebook.weight)
        distance = (
            vectors.pow(2).sum(1, keepdim=True)
            - 2 * vectors @ rows.t()
            + rows.pow(2).sum(1, keepdim=True).t()
        )
        codes = (-distance).max(1)[1].view(batch, length)
        z_q = self.codebook(codes).transpose(1, 2)
        return codes, self.out_proj(z_e + (z_q - z_e))

    def dequantize(self, codes: Tensor) -> Tensor:
        """`codes [B, T]` int64 -> `[B, latent, T]`."""
        return self.out_proj(self.codebook(codes).transpose(1, 2))


class ResidualQuantizer(nn.Module):
    """A stack of `VectorQuantizer`s, each quantising what the previous ones left."""

    def __init__(self, latent_dim: int, n_codebooks: int, size: int, dim: int):
        super().__init__()
        self.quantizers = nn.ModuleList(
            VectorQuantizer(latent_dim, size, dim) for _ in range(n_codebooks)
        )

    def quantize(self, z: Tensor) -> tuple[Tensor, Tensor]:
        """`z [B, latent, T]` -> (codes `[B, N, T]`, sum of quantized vectors `[B, latent, T]`)."""
        total, residual, codes = 0, z, []
        for quantizer in self.quantizers:
            codes_i, z_q = quantizer.quantize(residual)
            total = total + z_q
            residual = residual - z_q
            codes.append(codes_i)
        return torch.stack(codes, dim=1), total

    def dequantize(self, codes: Tensor) -> Tensor:
        """`codes [B, N<=len, T]` -> `[B, latent, T]`, summed in codebook order."""
        total = 0.0
        for i in range(codes.shape[1]):
            total = total + self.quantizers[i].dequantize(codes[:, i])
        return total


def _transformer(config: CodecConfig) -> WindowedTransformer:
    return WindowedTransformer(
        config.latent_dim,
        config.quantizer_layers,
        config.quantizer_heads,
        config.head_dim,
        config.quantizer_intermediate,
        config.quantizer_window,
        config.rope_base,
        config.norm_eps,
    )


class DownsampleQuantizer(nn.Module):
    """Latent planes `[B, D, 1, 4T]` at 86.13 Hz <-> codes `[B, 10, T]` at 21.53 Hz (docs/internals/codec.md §1.4)."""

    def __init__(self, config: CodecConfig):
        super().__init__()
        dim = config.latent_dim
        self.semantic_quantizer = ResidualQuantizer(
            dim, 1, config.semantic_codebook_size, config.codebook_dim
        )
        self.quantizer = ResidualQuantizer(
            dim, config.residual_codebooks, config.codebook_size, config.codebook_dim
        )
        self.downsample = nn.Sequential(
            *(
                nn.Sequential(
                    CausalConv1d(dim, dim, f, stride=f, weight_norm=None), ConvNeXtBlock(dim)
                )
                for f in config.downsample_factors
            )
        )
        self.upsample = nn.Sequential(
            *(
                nn.Sequential(
                    CausalConvTranspose1d(dim, dim, f, f, weight_norm=None), ConvNeXtBlock(dim)
                )
                for f in reversed(config.downsample_factors)
            )
        )
        self.pre_module = _transformer(config)
        self.post_module = _transformer(config)

    def encode(self, latent: Tensor, state: State = None) -> Tensor:
        """`latent [B, D, 1, 4T]` -> codes `[B, 10, T]` int64 (row 0 semantic).

        With a `state` dict, `latent` is the next chunk of a stream (see `Codec.encode`).
        """
        z = latent
        for stage in self.downsample:
            z = run_layers(stage, z, state)
        z = from_planes(self.pre_module(z, state))
        semantic_codes, semantic_z = self.semantic_quantizer.quantize(z)
        residual_codes, _ = self.quantizer.quantize(z - semantic_z)
        return torch.cat([semantic_codes, residual_codes], dim=1)

    def decode(self, codes: Tensor, state: State = None) -> Tensor:
        """`codes [B, N, T]` (already clamped) -> latent planes `[B, D, 1, 4T]`."""
        z = self.semantic_quantizer.dequantize(codes[:, :1])
        if codes.shape[1] > 1:
            z = z + self.quantizer.dequantize(codes[:, 1:])
        z = self.post_module(to_planes(z), state)
        for stage in self.upsample:
            z = run_layers(stage, z, state)
        return z
