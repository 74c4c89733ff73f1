"""`Codec`: the S2 codec (ModifiedDAC) as the engine uses it: encode, decode, streaming decode.

44,100 Hz mono audio <-> codes `[10, T]` int64 at 21.53 frames/s (hop 2048 samples); row 0
is the semantic codebook (4096 entries), rows 1-9 the residual ones (1024 entries). Spec:
docs/internals/codec.md §2 and docs/internals/model.md §4.5.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine.codec.config import CodecConfig
from engine.codec.decoder import Decoder
from engine.codec.encoder import Encoder
from engine.codec.loading import check_and_fold, read_state_dict, resolve_path
from engine.codec.quantizer import DownsampleQuantizer
from engine.codec.streaming import DecodeStream
from engine.errors import AudioError, EngineError

# frames per encoder pass (about 11.9 s): bounds the activations of long references
ENCODE_CHUNK_FRAMES = 256


class Codec(nn.Module):
    """The codec's modules under the checkpoint's names (`encoder`, `quantizer`, `decoder`)."""

    def __init__(self, config: CodecConfig | None = None):
        super().__init__()
        self.config = config or CodecConfig()
        self.config.validate()
        self.encoder = Encoder(self.config)
        self.quantizer = DownsampleQuantizer(self.config)
        self.decoder = Decoder(self.config)
        self.source = "random"
        self.encode_chunk_frames = ENCODE_CHUNK_FRAMES

    @classmethod
    def load(
        cls,
        path: str | Path,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float32,
    ) -> Codec:
        """Load `codec.pth` (the file, or the folder holding it) strictly, weight norm folded.

        The config is `codec_config.json` beside the file when present, else the released
        codec's. Raises CheckpointError for a missing or unreadable file, or for any key
        whose name or shape does not match (all mismatches listed).
        """
        path = resolve_path(path)
        with torch.device("meta"):  # no memory, no random init: the file provides every tensor
            codec = cls(CodecConfig.for_folder(path.parent))
        state = check_and_fold(read_state_dict(path), codec, path)
        codec.load_state_dict(state, strict=True, assign=True)
        codec.source = str(path)
        return codec.to(device=device, dtype=dtype).eval().requires_grad_(False)

    @property
    def device(self) -> torch.device:
        """The device of the codec's weights."""
        return self.decoder.model[0].conv.weight.device

    @property
    def dtype(self) -> torch.dtype:
        """The dtype of the codec's weights (audio and latents are cast to it)."""
        return self.decoder.model[0].conv.weight.dtype

    @property
    def hop_samples(self) -> int:
        """Samples per code frame (2048)."""
        return self.config.hop_samples

    def frames_for(self, n_samples: int) -> int:
        """Code frames T for a clip of `n_samples` samples: ceil(n / 2048) (docs/internals/codec.md §2.1)."""
        return math.ceil(n_samples / self.hop_samples)

    @torch.inference_mode()
    def encode(self, samples: np.ndarray | Tensor) -> Tensor:
        """Mono float audio `[n]` at 44,100 Hz -> codes `[10, ceil(n / 2048)]` int64 (CPU).

        The clip is right-padded with zeros to a whole number of frames; values are used
        as given (no normalisation). Clips longer than `encode_chunk_frames` are encoded
        chunk by chunk through the causal layers' streaming state, so memory stays bounded;
        chunk boundaries are fixed, so a prefix of a clip still encodes to a prefix of its
        codes. Raises AudioError for a non-1-D or non-finite input.
        """
        audio = _as_audio(samples)
        if audio.numel() == 0:
            return torch.zeros(self.config.num_codebooks, 0, dtype=torch.long)
        pad = self.frames_for(audio.numel()) * self.hop_samples - audio.numel()
        audio = F.pad(audio, (0, pad)).to(self.device, self.dtype).view(1, 1, 1, -1)
        chunk = self.encode_chunk_frames * self.hop_samples
        if audio.shape[-1] <= chunk:
            return self.quantizer.encode(self.encoder(audio))[0].cpu()
        state: dict = {}
        codes = [
            self.quantizer.encode(self.encoder(audio[..., start : start + chunk], state), state)
            for start in range(0, audio.shape[-1], chunk)
        ]
        return torch.cat(codes, dim=-1)[0].cpu()

    @torch.inference_mode()
    def decode(self, codes: np.ndarray | Tensor) -> Tensor:
        """Codes `[N<=10, T]` -> audio `[T * 2048]` float32 (CPU), values in (-1, 1).

        Codebook 0 is clamped to <= 4095 and the residual ones to <= 1023 (on a copy).
        Raises EngineError for a bad shape or negative codes.
        """
        prepared = self.prepare_codes(codes)
        if prepared.shape[-1] == 0:
            return torch.zeros(0)
        latent = self.quantizer.decode(prepared)
        return self.decoder(latent).reshape(-1).float().cpu()

    def decode_stream(self) -> DecodeStream:
        """A stateful decoder: `push(codes [10, t]) -> samples [t * 2048]`, then `flush()`.

        The concatenated output equals `decode` of all pushed codes (within float rounding)
        for any chunking; every pushed frame is emitted at once (the codec is causal).
        """
        return DecodeStream(self)

    def prepare_codes(self, codes: np.ndarray | Tensor) -> Tensor:
        """Validate and clamp codes `[N, T]` -> `[1, N, T]` int64 on the codec device."""
        codes = torch.as_tensor(codes)
        limit = self.config.num_codebooks
        if codes.dim() != 2 or not 1 <= codes.shape[0] <= limit:
            raise EngineError(f"codes must have shape [1..{limit}, T], got {list(codes.shape)}")
        if codes.is_floating_point() or codes.is_complex() or codes.dtype == torch.bool:
            raise EngineError(f"codes must be integers, got {codes.dtype}")
        if codes.numel() and int(codes.min()) < 0:
            raise EngineError(f"codes must be >= 0, got {int(codes.min())}")
        clamped = codes.to(torch.long).clone()
        clamped[0].clamp_(max=self.config.semantic_codebook_size - 1)
        clamped[1:].clamp_(max=self.config.codebook_size - 1)
        return clamped[None].to(self.device)


def _as_audio(samples: np.ndarray | Tensor) -> Tensor:
    audio = torch.as_tensor(samples)
    if audio.dim() != 1:
        raise AudioError(f"audio must be mono samples [n], got shape {list(audio.shape)}")
    audio = audio.to(torch.float32)
    if not bool(torch.isfinite(audio).all()):
        raise AudioError("audio contains NaN or infinite samples")
    return audio
