"""The Fish Audio S2 codec (ModifiedDAC) used by Drama 3: `Codec.load(path)`, then
`encode`, `decode` and `decode_stream` (docs/internals/codec.md)."""
