"""`drama model info | verify | pull`: inspect, check and download Drama 3 model folders."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import platformdirs
import typer

from drama_cli.backends.drama3 import parse_gpu_memory
from drama_cli.backends.model_licence import LICENSE_FILE, README_FILE, read_folder_licence
from drama_cli.commands import (
    licence as licence_terms,  # through the module: tests replace terminal_question
)
from drama_cli.commands import options as opt
from drama_cli.commands.help_style import TidyHelpGroup
from drama_cli.commands.licence import acceptance_text, settle_acceptance
from drama_cli.errors import (
    ModelCheckFailed,
    ModelPullError,
    UsageError,
)
from engine.errors import CheckpointError

REPO_ID = "fishaudio/drama-3"
# The 2026-10-29 re-release (docs/internals/model.md §2); pinned so a pull always yields the same files.
DEFAULT_REVISION = "78e5ab7"

MODEL_PATH = typer.Argument(
    ..., help="A model folder, or a folder (or file) holding only config.json."
)
PLAN_GPU_MEMORY = typer.Option(
    None,
    "--gpu-memory",
    help="Plan the model for this much device memory (e.g. 24GB, "
    "24GiB, 500MB; default: what the GPU has free, when there is one).",
)
HIT_RATE = typer.Option(
    None,
    "--hit-rate",
    help="Expert cache hit rate (0..1) for the bytes copied per frame (default: a few rates).",
)

model_app = typer.Typer(
    help="Inspect, verify and download Drama 3 model folders.",
    no_args_is_help=True,
    cls=TidyHelpGroup,
)


def register(app: typer.Typer) -> None:
    """Add the `model` command group to the app."""
    app.add_typer(model_app, name="model")


@model_app.command("info")
def info(
    path: Path = MODEL_PATH,
    as_json: bool = opt.JSON,
    gpu_memory: str | None = PLAN_GPU_MEMORY,
    hit_rate: float | None = HIT_RATE,
) -> None:
    """Print sizes of a model: parameters (total, active per frame), bytes of weights read per
    frame, KV-cache bytes per frame and Gated DeltaNet state per stream (bf16 activations);
    with a GPU memory budget, the plan: resident bytes, expert cache slots per layer, KV room
    and bytes copied per frame. Also the folder's licence: its LICENSE, the README front
    matter's licence keys and where they disagree, and whether it was accepted."""
    # lazy: torch, 1.5 s at start-up
    from engine.checkpoint import footprint
    from engine.config import Drama3Config

    config = Drama3Config.from_file(_config_path(path))
    figures = footprint(config)
    plan = memory_plan(config, path, gpu_memory, hit_rate)
    summary = {
        "path": str(path),
        "layers": config.num_layers,
        "full_attention_layers": len(config.full_attention_layers),
        "tower_layers": config.audio_decoder.tower_layer_count,
        "experts": config.text.num_experts,
        "experts_per_token": config.text.num_experts_per_tok,
        "vocab_size": config.text.vocab_size,
        "semantic_band": [config.semantic_start_token_id, config.semantic_end_token_id],
        "eos_token_id": config.eos_token_id,
        **figures,
    }
    if plan is not None:
        summary["memory_plan"] = plan
    licence = read_folder_licence(path if path.is_dir() else path.parent)
    summary["license"] = licence.as_dict()
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    _print_info(summary)
    _print_licence(licence)
    if plan is not None:
        _print_plan(plan)


def _print_licence(licence) -> None:
    front = licence.front_matter
    readme = ", ".join(f"{key} {value}" for key, value in front.items()) or "no licence keys"
    rows = [
        (
            "licence",
            f"{licence.title} ({licence.licence_file})"
            if licence.licence_file
            else "no LICENSE file",
        ),
        ("README", readme),
        *[("disagrees", text) for text in licence.disagreements],
        ("accepted", acceptance_text(licence)),
    ]
    _print_rows(rows)


def _print_rows(rows: list[tuple[str, str]]) -> None:
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


def _print_info(s: dict) -> None:
    rows = [
        ("model", s["path"]),
        (
            "layers",
            f"{s['layers']} backbone ({s['full_attention_layers']} gated attention, "
            f"{s['layers'] - s['full_attention_layers']} Gated DeltaNet), {s['tower_layers']} tower",
        ),
        ("experts", f"{s['experts']} routed, {s['experts_per_token']} per token + 1 shared"),
        (
            "vocabulary",
            f"{s['vocab_size']:,} ids; semantic {s['semantic_band'][0]}..{s['semantic_band'][1]}, "
            f"eos {s['eos_token_id']}",
        ),
        (
            "parameters",
            f"{_count(s['params_total'])} total, {_count(s['params_active'])} active per frame "
            f"(backbone {_count(s['params_active_backbone'])}, tower {_count(s['params_active_tower'])})",
        ),
        (
            "weights",
            f"{_bytes(s['weight_bytes_total'])} stored, {_bytes(s['weight_bytes_per_frame'])} read per frame",
        ),
        ("KV cache", f"{s['kv_bytes_per_frame']:,} bytes per frame (bf16)"),
        (
            "GDN state",
            f"{s['gdn_state_bytes']:,} bytes per stream ({_bytes(s['gdn_state_bytes'])})",
        ),
    ]
    _print_rows(rows)


def memory_plan(config, path: Path, gpu_memory: str | None, hit_rate: float | None) -> dict | None:
    """The memory plan of `config` for `--gpu-memory` (default: the GPU's free memory; None
    without a GPU) in bf16, as a dict with `copied_bytes_per_frame` {hit rate: bytes}. Raises
    UsageError for a bad size or hit rate."""
    from engine.offload.plan import codec_file_bytes, plan_memory  # lazy: torch, 1.5 s at start-up

    budget = parse_gpu_memory(gpu_memory)
    if hit_rate is not None and not 0.0 <= hit_rate <= 1.0:
        raise UsageError(f"--hit-rate {hit_rate}: must be between 0 and 1")
    given = isinstance(budget, int)
    if not given:
        budget = _free_gpu_bytes()
    if budget is None and gpu_memory is not None:
        raise UsageError(
            "--gpu-memory auto plans against a CUDA GPU's free memory and there is none; give a size"
        )
    if budget is None and hit_rate is not None:
        raise UsageError(
            "--hit-rate applies to a memory plan and there is no CUDA GPU to plan "
            "against; give --gpu-memory SIZE"
        )
    if budget is None:
        return None
    plan = plan_memory(config, budget, 2, codec_file_bytes(path if path.is_dir() else None))
    rates = (
        [hit_rate]
        if hit_rate is not None
        else sorted({round(plan.uniform_hit_rate, 4), 0.5, 0.8, 0.9})
    )
    return {
        **plan.as_dict(),
        "gpu_memory_source": "--gpu-memory" if given else "free GPU memory",
        "copied_bytes_per_frame": {
            f"{rate:g}": plan.copied_bytes_per_frame(rate) for rate in rates
        },
    }


def _free_gpu_bytes() -> int | None:
    # lazy: torch, 1.5 s at start-up
    import torch

    from engine.offload.sizes import device_free_bytes

    return device_free_bytes(torch.device("cuda")) if torch.cuda.is_available() else None


def _print_plan(p: dict) -> None:
    slots = (
        f"all {p['num_experts']} experts per layer resident, nothing in host memory"
        if not p["offloaded"]
        else f"{p['slots']} of {p['num_experts']} experts per layer ({_bytes(p['cache_bytes'])}); the other "
        f"{p['num_experts'] - p['slots']} in host memory"
    )
    copies = "; ".join(
        f"{_bytes(v)} at {float(k):.0%} hits" for k, v in p["copied_bytes_per_frame"].items()
    )
    rows = [
        ("GPU budget", f"{_bytes(p['budget_bytes'])} ({p['gpu_memory_source']})"),
        (
            "resident",
            f"{_bytes(p['resident_bytes'])}: every weight but the routed experts (with codec.pth "
            "when the folder has it)",
        ),
        (
            "reserve",
            f"{_bytes(p['reserve_bytes'])}: KV for 16,384 rows, Gated DeltaNet state, prefill "
            f"activations; margin {_bytes(p['margin_bytes'])}",
        ),
        (
            "expert cache",
            slots
            if p["fits"]
            else f"does not fit: needs at least {_bytes(p['minimum_bytes'])} "
            f"({p['top_k']} experts per layer)",
        ),
        ("KV room", f"{p['kv_room_frames']:,} frames at batch 1"),
        ("copied/frame", copies if p["offloaded"] else "nothing (all experts resident)"),
        (
            "full residency",
            f"needs {_bytes(p['full_bytes'])}; one expert is {p['expert_bytes']:,} bytes",
        ),
    ]
    _print_rows(rows)


def _count(n: int) -> str:
    return f"{n / 1e9:.2f} B" if n >= 1e8 else f"{n / 1e6:.2f} M"


def _bytes(n: int) -> str:
    from engine.offload.sizes import format_size  # lazy: torch, 1.5 s at start-up

    return format_size(n)


def _config_path(path: Path) -> Path:
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    return path / "config.json" if path.is_dir() else path


@model_app.command("verify")
def verify(path: Path = MODEL_PATH, as_json: bool = opt.JSON) -> None:
    """Check a model folder: every file the engine reads is there (codec.pth included); every
    shard the index names exists and holds the tensors it claims with the shapes and dtypes the
    config implies; the tokenizer's ids agree with the config. Exit 1 on any mismatch."""
    from drama_cli.backends.drama3 import (
        missing_model_files,  # lazy: the drama3 backend, 50 ms at start-up
    )
    from engine.checkpoint import Checkpoint  # lazy: torch, 1.5 s at start-up

    if not path.is_dir():
        raise UsageError(f"{path}: not a model folder")
    if not (path / "config.json").exists() and not any(path.glob("*.safetensors*")):
        raise UsageError(f"{path}: not a model folder (no config.json, no *.safetensors)")
    problems, notes, facts = [], [], {}
    try:
        checkpoint = Checkpoint(path)
        facts = {
            "tensors": len(checkpoint.expected),
            "shards": len(set(checkpoint.weight_map.values())),
        }
        checkpoint.verify()
    except CheckpointError as err:
        problems.append(str(err))
    else:
        problems += _tokenizer_problems(path, checkpoint.config)
    problems += [
        f"{path}: the model folder has no {name}"
        for name in missing_model_files(path)
        if not any(name in problem for problem in problems)
    ]  # not said already
    _report_verify(path, problems, notes, facts, as_json)


def _tokenizer_problems(path: Path, config) -> list[str]:
    from engine.tokenizer import Drama3Tokenizer  # lazy: tokenizers, 10 ms at start-up

    try:
        tokenizer = Drama3Tokenizer.from_folder(path)
    except CheckpointError as err:
        return [str(err)]
    pairs = (
        ("semantic_start_token_id", "<|semantic:0|>", tokenizer.semantic_start),
        ("semantic_end_token_id", "<|semantic:4095|>", tokenizer.token_id("<|semantic:4095|>")),
        ("eos_token_id", "<|im_end|>", tokenizer.eos_id),
    )
    return [
        f"config.json: {key} is {getattr(config, key)} but tokenizer.json has {token} at {got}"
        for key, token, got in pairs
        if getattr(config, key) != got
    ]


def _report_verify(
    path: Path, problems: list[str], notes: list[str], facts: dict, as_json: bool
) -> None:
    if as_json:
        print(
            json.dumps(
                {
                    "path": str(path),
                    "ok": not problems,
                    "problems": problems,
                    "notes": notes,
                    **facts,
                },
                indent=2,
            )
        )
    else:
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        for problem in problems[1:]:
            print(f"drama: {problem}", file=sys.stderr)
        if not problems:
            print(
                f"ok: {path}: {facts['tensors']} tensors in {facts['shards']} shards match config.json; "
                "tokenizer ids agree"
            )
    if problems:
        raise ModelCheckFailed(
            problems[0]
            if not as_json
            else f"{path}: {len(problems)} problem(s), see the JSON report"
        )


@model_app.command("pull")
def pull(
    revision: str = typer.Option(
        DEFAULT_REVISION, "--revision", help="Hub revision (commit, tag or branch)."
    ),
    folder: Path | None = typer.Option(
        None, "--dir", help="Target folder (default: the user data folder)."
    ),
    accept_license: bool = typer.Option(
        False,
        "--accept-license",
        help="Accept the model's licence (its LICENSE file, summarised before the "
        "download) without being asked; needed the first time when not on a terminal.",
    ),
    as_json: bool = opt.JSON,
) -> None:
    """Download fishaudio/drama-3 at a pinned revision with huggingface_hub (resumable; a
    progress bar when stderr is a terminal). LICENSE and README.md come first: the first time,
    a summary of the licence is shown and the weights come only once it is accepted
    (`--accept-license`, or yes on a terminal); the acceptance is recorded in the folder.
    Prints the folder it wrote."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,127}", revision):
        raise UsageError(f"--revision {revision!r}: not a commit, tag or branch name")
    folder = folder or _default_folder(revision)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--dir {folder}: exists and is not a folder")
    what = f"{REPO_ID}@{revision}"
    licence = read_folder_licence(_download(revision, folder, [LICENSE_FILE, README_FILE]))
    settle_acceptance(licence, revision, accept_license, what, licence_terms.terminal_question())
    local = _download(revision, folder)
    if as_json:
        print(
            json.dumps(
                {
                    "repo": REPO_ID,
                    "revision": revision,
                    "path": str(local),
                    "license": read_folder_licence(local).as_dict(),
                }
            )
        )
    else:
        print(local)


@model_app.command("accept-license")
def accept_license_command(
    path: Path = typer.Argument(..., help="A model folder holding LICENSE."),
) -> None:
    """Show the summary of a model folder's licence and record its acceptance there (for a
    folder not downloaded with `drama model pull`, or after its LICENSE changed)."""
    from drama_cli.backends.drama3 import (
        model_revision,  # lazy: the drama3 backend, 50 ms at start-up
    )

    if not path.is_dir():
        raise UsageError(f"{path}: not a model folder")
    licence = read_folder_licence(path)
    if licence.licence_file is None:
        raise UsageError(f"{path}: no LICENSE file to accept")
    settle_acceptance(licence, model_revision(path), True, str(path))
    print(f"{path}: {acceptance_text(licence)}")


def _default_folder(revision: str) -> Path:
    return (
        Path(platformdirs.user_data_dir("drama"))
        / "models"
        / f"drama-3-{revision.replace('/', '-')}"
    )


def _download(revision: str, folder: Path, files: list[str] | None = None) -> Path:
    """Download the repository at `revision` into `folder` (only `files` when given) and return
    the folder. Raises ModelPullError when the hub cannot be reached or refuses."""
    from huggingface_hub import snapshot_download  # lazy: the hub client, 0.3 s at start-up
    from huggingface_hub.utils import disable_progress_bars

    if not sys.stderr.isatty():
        disable_progress_bars()
    try:
        return Path(
            snapshot_download(REPO_ID, revision=revision, local_dir=folder, allow_patterns=files)
        )
    except Exception as err:  # the hub raises many types (offline, HTTP, connection, disk)
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ModelPullError(
            f"cannot download {REPO_ID}@{revision}: {type(err).__name__}: {reason} "
            "(is the Hugging Face hub reachable? HF_HUB_OFFLINE must be unset)"
        ) from err
