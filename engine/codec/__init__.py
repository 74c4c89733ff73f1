"""The Fish Audio S2 codec (ModifiedDAC) used by Drama 3: `Codec.load(path)`, then
`encode`, `decode` and `decode_stream` (docs/internals/codec.md)."""

from engine.codec.codec import Codec
from engine.codec.config import CodecConfig
from engine.codec.streaming import DecodeStream

__all__ = ["Codec", "CodecConfig", "DecodeStream"]
