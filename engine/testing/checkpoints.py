"""Random Drama 3 checkpoints in the exact real layout, for tests and benchmarks.

`write_checkpoint(folder, preset, seed)` writes `config.json`, `tokenizer.json`, sharded
safetensors with `model.safetensors.index.json` (every tensor of docs/internals/model.md §2.1 and §2.2, routed
experts as block-FP8 with fp32 scales) and a random `codec.pth` (`engine.testing.codec`). The
same preset and seed always give identical files.

Presets:
  * `tiny`: hidden 64, 4 layers (3 Gated DeltaNet + 1 full attention), 8 experts, the tiny
    tokenizer (4,702 ids); a few MB, seconds on CPU. For tests.
  * `small`: hidden 512, 8 layers, 32 experts; for CPU benchmarks.
  * `full`: the real shapes (about 35 B parameters, ~36 GB on disk); for GPU machines only.
Every preset keeps the semantic band at 4,096 codes and 10 codebooks. `overrides` (a dict of
`GEOMETRY_KEYS` -> int, see `preset_geometry`) changes a preset's sizes, e.g. experts made of
whole 128x128 FP8 blocks for a converter that needs them.

Command line: `python -m engine.testing PRESET DIR [--seed S] [--config-only] [--device cuda]
[--set KEY=INT ...]`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from engine.checkpoint import (
    FP8,
    INDEX_FILE,
    TensorSpec,
    expected_tensors,
    is_routed_expert,
)
from engine.config import Drama3Config
from engine.constants import CODEBOOK_SIZE, NUM_CODEBOOKS
from engine.testing.codec import write_random_codec
from engine.tokenizer import Drama3Tokenizer, build_tiny_tokenizer, save_tokenizer

FP8_MAX = 448.0  # largest finite float8_e4m3fn value


def _geometry(
    hidden: int,
    layers: int,
    heads: tuple[int, int],
    head_dim: int,
    experts: tuple[int, int],
    expert_width: int,
    linear_heads: tuple[int, int],
    linear_head_dim: int,
    tower_width: int,
    shard_bytes: int,
) -> dict[str, int]:
    """One preset's sizes under their config.json names (heads: query, key/value; experts:
    routed, per token; linear_heads: Gated DeltaNet key, value), plus the tower width and the
    shard size in bytes."""
    return dict(
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads[0],
        num_key_value_heads=heads[1],
        head_dim=head_dim,
        num_experts=experts[0],
        num_experts_per_tok=experts[1],
        moe_intermediate_size=expert_width,
        shared_expert_intermediate_size=expert_width,
        linear_num_key_heads=linear_heads[0],
        linear_num_value_heads=linear_heads[1],
        linear_key_head_dim=linear_head_dim,
        linear_value_head_dim=linear_head_dim,
        tower_intermediate_size=tower_width,
        shard_bytes=shard_bytes,
    )


_GEOMETRY = {
    "tiny": _geometry(64, 4, (4, 2), 32, (8, 2), 32, (2, 4), 16, 96, 4 << 20),
    "small": _geometry(512, 8, (8, 2), 64, (32, 4), 256, (4, 8), 64, 1024, 128 << 20),
    # Real shapes (docs/internals/model.md §1.2); the tower width is unknown [U], so a plausible 4096 is used.
    "full": _geometry(2048, 40, (16, 2), 256, (256, 8), 512, (16, 32), 128, 4096, 4 << 30),
}
PRESETS = tuple(_GEOMETRY)
GEOMETRY_KEYS = tuple(_GEOMETRY["tiny"])


def preset_geometry(preset: str, overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """The sizes of `preset` (config.json `text_config` names, plus `tower_intermediate_size`
    and `shard_bytes`), with `overrides` replacing any of them, e.g.
    `{"hidden_size": 128, "moe_intermediate_size": 128, "shared_expert_intermediate_size": 128}`
    for experts made of whole 128x128 FP8 blocks. The tower's width and heads follow the
    backbone's `hidden_size`, `num_attention_heads`, `num_key_value_heads` and `head_dim`.

    Raises ValueError for an unknown preset, a key outside `GEOMETRY_KEYS`, or a value that
    is not a positive integer.
    """
    if preset not in _GEOMETRY:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(GEOMETRY_KEYS))
    if unknown:
        raise ValueError(
            f"unknown geometry keys {', '.join(unknown)}; known: {', '.join(GEOMETRY_KEYS)}"
        )
    bad = sorted(
        k for k, v in overrides.items() if isinstance(v, bool) or not isinstance(v, int) or v < 1
    )
    if bad:
        raise ValueError(f"geometry overrides must be positive integers: {', '.join(bad)}")
    return {**_GEOMETRY[preset], **overrides}


def preset_tokenizer(preset: str):
    """The `tokenizers.Tokenizer` written beside a preset: the tiny vocabulary for `tiny` and
    `small`, the offline Qwen3.5 build (252,288 ids) for `full`."""
    if preset == "full":
        return Drama3Tokenizer.offline().tokenizer
    return build_tiny_tokenizer()


def preset_config_dict(
    preset: str, tokenizer=None, overrides: Mapping[str, int] | None = None
) -> dict:
    """The `config.json` object of a preset, with the token ids of `tokenizer` (built with
    `preset_tokenizer` when None) and the sizes of `preset_geometry(preset, overrides)`.
    Raises ValueError for an unknown preset or a bad override."""
    g = preset_geometry(preset, overrides)
    tokenizer = tokenizer or preset_tokenizer(preset)
    layers = g["num_hidden_layers"]
    text_keys = [k for k in g if k not in ("tower_intermediate_size", "shard_bytes")]
    text = {"model_type": "fish_omni_text", **{k: g[k] for k in text_keys}}
    text.update(
        vocab_size=tokenizer.get_vocab_size(),
        linear_conv_kernel_dim=4,
        rms_norm_eps=1e-6,
        layer_types=[
            "full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(layers)
        ],
        mlp_layer_types=["moe"] * layers,
        rope_parameters={"rope_type": "default", "rope_theta": 1e7, "partial_rotary_factor": 0.25},
        max_position_embeddings=262144,
        rotary_interleaved=False,
        use_qk_norm=True,
        attn_output_gate=True,
        layernorm_zero_centered_gamma=True,
        shared_expert_gate=True,
        hidden_act="silu",
        tie_word_embeddings=False,
    )
    tower = {
        "model_type": "fish_qwen3_audio_decoder",
        "decoder_type": "codebook_mtp_shared",
        "dim": g["hidden_size"],
        "text_dim": g["hidden_size"],
        "n_head": g["num_attention_heads"],
        "n_local_heads": g["num_key_value_heads"],
        "head_dim": g["head_dim"],
        "n_layer": 4,
        "shared_enrichment_layers": 4,
        "num_codebooks": NUM_CODEBOOKS,
        "vocab_size": CODEBOOK_SIZE,
        "max_seq_len": NUM_CODEBOOKS + 1,
        "intermediate_size": g["tower_intermediate_size"],
        "norm_eps": 1e-6,
        "rope_base": 1e7,
        "rotary_percent": 0.25,
        "rotary_interleaved": True,
        "attention_qk_norm": False,
        "attention_output_gate": True,
        "layernorm_zero_centered_gamma": True,
        "vq_feature_scope": "all_vq",
        "vq_feature_placement": "backbone_partial",
        "vq_backbone_codebooks": 1,
        "mtp_spec": None,
        "use_moe": False,
        "dropout": 0.0,
    }
    return {
        "model_type": "fish_omni",
        "architectures": ["FishOmniModel"],
        "text_config": text,
        "audio_decoder_config": tower,
        "semantic_start_token_id": tokenizer.token_to_id("<|semantic:0|>"),
        "semantic_end_token_id": tokenizer.token_to_id("<|semantic:4095|>"),
        "eos_token_id": tokenizer.token_to_id("<|im_end|>"),
        "speech_template_version": "reference-bracket-v1",
        "fish_schema_version": 1,
        "extra_samplable_token_ids": [],
        "quantization_config": {
            "quant_method": "bsgemm-moe",
            "activation_scheme": "dynamic",
            "weight_block_size": [128, 128],
        },
        "tie_word_embeddings": False,
        "dtype": "bfloat16",
    }


def write_checkpoint(
    folder: str | Path,
    preset: str = "tiny",
    seed: int = 0,
    config_only: bool = False,
    with_codec: bool = True,
    device: str = "cpu",
    overrides: Mapping[str, int] | None = None,
) -> dict:
    """Write a complete random model folder for `preset` into `folder` (created if needed);
    `with_codec=False` skips `codec.pth` (backbone-only tests); `device="cuda"` draws the
    random values on the GPU (much faster for `full`; different values from CPU draws);
    `overrides` changes sizes of the preset (see `preset_geometry`; the codec keeps the
    preset's).

    Returns a summary: folder, preset, seed, overrides, files written, tensor count, bytes,
    and notes (a list of remarks, empty so far).
    Raises ValueError for an unknown preset or a bad override.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    geometry = preset_geometry(preset, overrides)
    tokenizer = preset_tokenizer(preset)
    data = preset_config_dict(preset, tokenizer, overrides)
    (folder / "config.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    save_tokenizer(tokenizer, folder / "tokenizer.json")
    summary = {
        "folder": str(folder),
        "preset": preset,
        "seed": seed,
        "overrides": dict(overrides or {}),
        "files": ["config.json", "tokenizer.json"],
        "tensors": 0,
        "bytes": 0,
        "notes": [],
    }
    if config_only:
        return summary
    config = Drama3Config.from_dict(data)
    specs = expected_tensors(config)
    shards = _plan_shards(specs, geometry["shard_bytes"])
    weight_map = {}
    for number, names in enumerate(shards, start=1):
        shard = f"model-{number:05d}-of-{len(shards):05d}.safetensors"
        tensors = {
            name: random_tensor(name, specs[name], seed, config, device).cpu() for name in names
        }
        save_file(tensors, str(folder / shard), metadata={"format": "pt"})
        weight_map.update({name: shard for name in names})
        summary["files"].append(shard)
    total = sum(spec.nbytes for spec in specs.values())
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (folder / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    summary["files"].append(INDEX_FILE)
    summary.update(tensors=len(specs), bytes=total)
    if with_codec:
        _write_codec(folder, preset, seed, summary)
    return summary


def _write_codec(folder: Path, preset: str, seed: int, summary: dict) -> None:
    path = Path(write_random_codec(folder, preset, seed))
    codec_files = [path.name] + [p.name for p in sorted(folder.glob("codec*.json"))]
    summary["files"].extend(codec_files)


def _plan_shards(specs: dict[str, TensorSpec], shard_bytes: int) -> list[list[str]]:
    shards: list[list[str]] = [[]]
    used = 0
    for name, spec in specs.items():
        if shards[-1] and used + spec.nbytes > shard_bytes:
            shards.append([])
            used = 0
        shards[-1].append(name)
        used += spec.nbytes
    return shards


def _generator(name: str, seed: int, device: str = "cpu") -> torch.Generator:
    # Seeded per tensor, so a tensor's values do not depend on which others are generated.
    return torch.Generator(device).manual_seed(seed * 1_000_003 + zlib.crc32(name.encode()))


def random_tensor(
    name: str, spec: TensorSpec, seed: int, config: Drama3Config, device: str = "cpu"
) -> torch.Tensor:
    """The random value of one checkpoint tensor, drawn and returned on `device`, deterministic
    in (name, seed) for a given device (CUDA draws differ from CPU draws but are as reproducible).

    Scales keep activations O(1): linear weights ~ N(0, 1/in), zero-centred norm weights
    ~ N(0, 0.1) (applied as 1 + w), the Gated DeltaNet norm ~ 1 + N(0, 0.1), decay parameters
    in Qwen3.5's ranges. Routed experts come back as FP8 with per-block scales.
    """
    if is_routed_expert(name):
        weight_name = name.removesuffix("_scale_inv")
        shape = _weight_shape(name, spec, config)
        normal = _randn(_generator(weight_name, seed, device), shape) * shape[-1] ** -0.5
        weight, scale = quantize_fp8_blocks(normal, config.weight_block_size)
        return scale if name.endswith("weight_scale_inv") else weight
    values = _values_by_role(name, spec.shape, _generator(name, seed, device))
    return values.to(spec.dtypes[0])


def _weight_shape(name: str, spec: TensorSpec, config: Drama3Config) -> tuple[int, ...]:
    if not name.endswith("weight_scale_inv"):
        return spec.shape
    t = config.text
    inter, d = t.moe_intermediate_size, t.hidden_size
    return (d, inter) if ".down_proj." in name else (inter, d)


def _randn(gen: torch.Generator, shape: tuple[int, ...]) -> torch.Tensor:
    return torch.randn(shape, generator=gen, device=gen.device)


def _values_by_role(name: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    if name.endswith("linear_attn.norm.weight"):
        return 1.0 + 0.1 * _randn(gen, shape)
    if name.endswith("norm.weight"):  # every other norm is zero-centred (x̂·(1 + w))
        return 0.1 * _randn(gen, shape)
    if name.endswith("A_log"):
        return torch.empty(shape, device=gen.device).uniform_(1.0, 16.0, generator=gen).log()
    if name.endswith("dt_bias"):
        return 0.5 * _randn(gen, shape)
    if "embed" in name:  # token, codebook and per-layer code embeddings
        return _randn(gen, shape)
    return _randn(gen, shape) * shape[-1] ** -0.5  # linear and conv weights: fan-in scaling


def quantize_fp8_blocks(
    weight: torch.Tensor, block: tuple[int, int]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Block-FP8 quantisation: weight [rows, cols] float → (float8_e4m3fn [rows, cols], fp32
    scales [ceil(rows/b0), ceil(cols/b1)]) with weight ≈ fp8 × scale per block; each block's
    largest magnitude maps to 448."""
    rows, cols = weight.shape
    grid = (math.ceil(rows / block[0]), math.ceil(cols / block[1]))
    padded = weight.new_zeros(grid[0] * block[0], grid[1] * block[1])
    padded[:rows, :cols] = weight
    blocks = padded.reshape(grid[0], block[0], grid[1], block[1])
    scale = blocks.abs().amax(dim=(1, 3)).clamp_min(1e-12) / FP8_MAX
    quantized = (blocks / scale[:, None, :, None]).reshape(padded.shape)[:rows, :cols]
    return quantized.to(FP8).contiguous(), scale.float().contiguous()


def round_block_scales(folder: str | Path) -> None:
    """Round every FP8 block scale (`*weight_scale_inv`) of the shards in `folder` to a power of
    two, so FP8 x scale is exact in bfloat16 too. mlx-audio's converter rounds dequantised experts
    to bfloat16 while the engine keeps them in the activation dtype; with these scales both hold
    the same expert weights, and a parity test compares the models, not the rounding."""
    for shard in Path(folder).glob("model-*.safetensors"):
        tensors = load_file(str(shard))
        for name, value in tensors.items():
            if name.endswith("weight_scale_inv"):
                tensors[name] = torch.exp2(torch.round(torch.log2(value)))
        save_file(tensors, str(shard), metadata={"format": "pt"})


def main(argv: list[str] | None = None) -> int:
    """`python -m engine.testing PRESET DIR [--seed S] [--config-only] [--device D] [--set KEY=INT]`;
    prints the summary. Returns the exit status (argparse exits with 2 on bad arguments)."""
    parser = argparse.ArgumentParser(
        prog="python -m engine.testing", description=__doc__.split("\n")[0]
    )
    parser.add_argument("preset", choices=PRESETS)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--config-only", action="store_true", help="write only config.json and tokenizer.json"
    )
    parser.add_argument(
        "--device", default="cpu", help="where to draw the random values (cpu, cuda)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=INT",
        type=_override,
        help=f"change one size of the preset ({', '.join(GEOMETRY_KEYS)})",
    )
    args = parser.parse_args(argv)
    try:
        summary = write_checkpoint(
            args.folder,
            args.preset,
            args.seed,
            args.config_only,
            device=args.device,
            overrides=dict(args.set),
        )
    except ValueError as err:
        parser.error(str(err))
    print(json.dumps(summary, indent=2))
    return 0


def _override(text: str) -> tuple[str, int]:
    key, _, value = text.partition("=")
    try:
        return key.strip(), int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected KEY=INT, got {text!r}") from None


if __name__ == "__main__":
    sys.exit(main())
