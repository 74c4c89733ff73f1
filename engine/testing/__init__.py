"""Test and benchmark support for the engine; nothing here is used when generating.

`engine.testing.checkpoints`: random Drama 3 model folders in the exact real layout (presets
`tiny`, `small`, `full`; `python -m engine.testing PRESET DIR` writes one).
`engine.testing.codec`: random `codec.pth` files in the real layout.
`engine.testing.oracles`: transformers' Qwen3.5-MoE holding a checkpoint's backbone weights.
`engine.testing.codec_upstream`: the upstream fish-speech codec built from a `CodecConfig`.
"""
