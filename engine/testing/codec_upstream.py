"""The upstream codec (PyPI `fish-speech==0.1.0`) built from our config, as a parity oracle.

Used only by tests and benchmarks (docs/internals/codec.md §4). fish-speech and descript-audio-codec are
installed without their dependencies, so the imports they never use (audiotools, librosa,
hydra, omegaconf, and the `dac` package's own `__init__`) are replaced by stubs first.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import types
from pathlib import Path

from torch import Tensor, nn

from engine.codec.config import CodecConfig


def available() -> bool:
    """True when fish-speech 0.1.0 and descript-audio-codec are installed."""
    return all(
        importlib.util.find_spec(name) is not None for name in ("fish_speech", "dac", "einops")
    )


def build(
    config: CodecConfig, encoder_positions: int = 16_384, quantizer_positions: int = 4_096
) -> nn.Module:
    """The upstream `DAC` with `config`'s shapes, random weights, in eval mode.

    encoder_positions / quantizer_positions: the RoPE table sizes (the longest sequence each
    transformer can take); smaller values build faster. The encoder window is fixed at 512
    upstream, so `config.encoder_window` must be 512.
    """
    stubbed = _install_stubs()
    try:
        dac_module = importlib.import_module("fish_speech.models.dac.modded_dac")
        rvq = importlib.import_module("fish_speech.models.dac.rvq")
    finally:  # a stub left behind has no spec, which breaks other libraries' find_spec
        for name in stubbed:
            sys.modules.pop(name, None)
    args = functools.partial(
        dac_module.ModelArgs,
        block_size=encoder_positions,
        n_local_heads=-1,
        head_dim=config.head_dim,
        rope_base=config.rope_base,
        norm_eps=config.norm_eps,
        channels_first=True,
    )

    def quantizer_transformer() -> nn.Module:
        model_args = dac_module.ModelArgs(
            block_size=quantizer_positions,
            n_layer=config.quantizer_layers,
            n_head=config.quantizer_heads,
            dim=config.latent_dim,
            intermediate_size=config.quantizer_intermediate,
            n_local_heads=-1,
            head_dim=config.head_dim,
            rope_base=config.rope_base,
            norm_eps=config.norm_eps,
            channels_first=True,
        )
        return dac_module.WindowLimitedTransformer(
            causal=True,
            window_size=config.quantizer_window,
            input_dim=config.latent_dim,
            config=model_args,
        )

    quantizer = rvq.DownsampleResidualVectorQuantize(
        input_dim=config.latent_dim,
        n_codebooks=config.residual_codebooks,
        codebook_size=config.codebook_size,
        codebook_dim=config.codebook_dim,
        semantic_codebook_size=config.semantic_codebook_size,
        downsample_factor=list(config.downsample_factors),
        pre_module=quantizer_transformer(),
        post_module=quantizer_transformer(),
    )
    model = dac_module.DAC(
        encoder_dim=config.encoder_dim,
        encoder_rates=list(config.encoder_rates),
        decoder_dim=config.decoder_dim,
        decoder_rates=list(config.decoder_rates),
        quantizer=quantizer,
        sample_rate=config.sample_rate,
        causal=True,
        encoder_transformer_layers=list(config.encoder_transformer_layers),
        decoder_transformer_layers=[0] * len(config.decoder_rates),
        transformer_general_config=args,
    )
    return model.eval().requires_grad_(False)


def load_weights(model: nn.Module, state: dict[str, Tensor]) -> None:
    """Load a `codec.pth` state dict into the upstream model; every learnable key must match.

    The leftover buffers are skipped (the oracle builds its own). Raises ValueError on any
    missing or unexpected learnable key.
    """
    learnable = {k: v for k, v in state.items() if not k.endswith((".freqs_cis", ".causal_mask"))}
    result = model.load_state_dict(learnable, strict=False)
    missing = [k for k in result.missing_keys if not k.endswith((".freqs_cis", ".causal_mask"))]
    if missing or result.unexpected_keys:
        raise ValueError(
            f"upstream key mismatch: missing {missing[:5]}, unexpected {result.unexpected_keys[:5]}"
        )


def _install_stubs() -> list[str]:
    """Put stand-ins for the unused heavy imports into `sys.modules` (docs/internals/codec.md §4 step 2);
    returns the names of the plain stubs (librosa, hydra, omegaconf) put there, which are only
    needed while the upstream modules import."""
    if "audiotools" not in sys.modules and importlib.util.find_spec("audiotools") is None:
        audiotools = types.ModuleType("audiotools")
        ml = types.ModuleType("audiotools.ml")

        class BaseModel(nn.Module):
            INTERN: list = []
            EXTERN: list = []

        ml.BaseModel = BaseModel
        audiotools.ml = ml
        audiotools.AudioSignal = type("AudioSignal", (), {})
        audiotools.STFTParams = type("STFTParams", (), {})
        sys.modules.update({"audiotools": audiotools, "audiotools.ml": ml})
    stubbed = []
    for name in ("librosa", "hydra", "omegaconf"):
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            stub = types.ModuleType(name)
            stub.OmegaConf = None
            sys.modules[name] = stub
            stubbed.append(name)
    if "dac" not in sys.modules or not hasattr(sys.modules["dac"], "__path__"):
        root = Path(importlib.util.find_spec("dac").origin).parent
        for name, folder in (("dac", root), ("dac.nn", root / "nn"), ("dac.model", root / "model")):
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            sys.modules[name] = package
    return stubbed
