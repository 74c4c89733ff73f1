"""The mlx backend (drama_cli/backends/mlx.py): Drama 3 through mlx-audio's port on mlx's CPU
build, against the embedded engine on one tiny random checkpoint in the real layout.

The checkpoint's experts are whole 128x128 FP8 blocks (the only shape mlx-audio's converter
dequantises) with power-of-two block scales (`round_block_scales`), so both sides hold the same
weights and greedy decoding must give the same codes.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

pytest.importorskip("mlx.core")
pytest.importorskip("mlx_audio")

from fakes import take_records, write_script

from drama_cli.backends.base import GenerationRequest
from drama_cli.backends.drama3 import Drama3Backend
from drama_cli.backends.mlx import MISSING_EXTRA, MlxBackend
from drama_cli.backends.registry import BackendOptions, backend_entry, make_backend
from drama_cli.cli import main
from drama_cli.commands.rendered import refuse_unvoiced
from drama_cli.errors import UsageError
from drama_cli.render.plan import layout_for_backend
from drama_cli.script.load import load_script
from drama_cli.takes.store import TakeStore
from engine.clip import AudioClip
from engine.conversation import Conversation, Exchange, Reference
from engine.errors import EngineError
from engine.testing.checkpoints import round_block_scales, write_checkpoint

WHOLE_BLOCKS = {
    "hidden_size": 128,
    "moe_intermediate_size": 128,
    "shared_expert_intermediate_size": 128,
}
GREEDY = {"temperature": 0.0, "top_k": 1, "ras_top_k": 1}  # the engine's greedy, RAS retry included
FRAMES = 12  # random weights seldom end a take: short budgets keep the tests fast


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    """A tiny random Drama 3 model folder (seed 0, codec included) whose experts mlx-audio's
    converter reads; the converted copy goes to this module's own cache folder."""
    folder = tmp_path_factory.mktemp("tiny-drama3-whole-blocks")
    write_checkpoint(folder, "tiny", seed=0, overrides=WHOLE_BLOCKS)
    round_block_scales(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield folder


@pytest.fixture(scope="module")
def backends(model_folder, tmp_path_factory):
    """(the mlx backend, the drama3 backend on the CPU) over `model_folder`."""
    references = tmp_path_factory.mktemp("reference-codes")
    mlx = MlxBackend(model_folder, cache_dir=references)
    engine = Drama3Backend(model_folder, device="cpu", cache_dir=references)
    yield mlx, engine
    mlx.close()
    engine.close()


@pytest.fixture
def short_takes(monkeypatch):
    monkeypatch.setattr("engine.generate.Drama3.frame_budget", lambda self, c, rows: FRAMES)
    monkeypatch.setattr(MlxBackend, "frame_budget", lambda self, c, rows: FRAMES)


def random_codes(frames: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    semantic = rng.integers(0, 4096, (1, frames))
    return np.concatenate([semantic, rng.integers(0, 1024, (9, frames))]).astype(np.int64)


def conversation(layout: str) -> Conversation:
    reference = Reference(0, "A short reference.", AudioClip(codes=random_codes(16, 0)))
    second = Reference(1, None, AudioClip(codes=random_codes(10, 1)))
    context = (
        Exchange("<|speaker:1|> Where were you?", AudioClip(codes=random_codes(9, 2))),
        Exchange("At the boathouse.", AudioClip(codes=random_codes(7, 3))),
    )
    return Conversation(
        layout=layout,
        references=(reference, second),
        context=context if layout == "history" else (),
        text="<|speaker:0|> Hello there.",
    )


def request(layout: str, sampling=GREEDY, seed: int = 5) -> GenerationRequest:
    return GenerationRequest(
        "scene",
        "line",
        "MARGOT",
        "Hello there.",
        conversation(layout),
        sampling=sampling,
        seed=seed,
    )


@pytest.mark.parametrize("layout", ["clone", "history"])
def test_the_prompt_rows_equal_the_engines(backends, layout):
    mlx, engine = backends
    rows, system_rows = mlx.frames(conversation(layout))
    prompt = engine.model.build_prompt(conversation(layout))
    assert system_rows == prompt.system_rows
    assert np.array(rows).tolist() == np.asarray(prompt.rows).tolist()
    assert (len(prompt.rows) > 150) == (layout == "history")  # the history turns are in


@pytest.mark.parametrize("layout", ["clone", "history"])
def test_greedy_codes_equal_the_embedded_engines(backends, short_takes, layout):
    mlx, engine = backends
    ours = mlx.generate(request(layout))
    theirs = engine.generate(request(layout))
    assert ours.codes.shape == theirs.codes.shape == (10, FRAMES)
    assert ours.codes.tolist() == theirs.codes.tolist()
    assert ours.stop_reason == theirs.stop_reason == "length"
    assert ours.audio.dtype == np.float32
    assert np.allclose(ours.audio, theirs.audio, atol=1e-5)  # the same codec decodes both
    assert ours.info["engine"] == "mlx" and ours.info["frames"] == FRAMES


def test_sampled_takes_depend_on_the_seed_alone(backends, short_takes):
    mlx, _ = backends
    first = mlx.generate(request("clone", sampling={}, seed=11)).codes
    again = mlx.generate(request("clone", sampling={}, seed=11)).codes
    other = mlx.generate(request("clone", sampling={}, seed=12)).codes
    assert first.tolist() == again.tolist()
    assert first.tolist() != other.tolist()


def test_the_frame_budget_is_the_engines(backends):
    mlx, engine = backends
    rows, _ = mlx.frames(conversation("history"))
    assert mlx.frame_budget(conversation("history"), len(rows)) == engine.model.frame_budget(
        conversation("history"), len(rows)
    )


def test_progress_is_reported_every_eight_frames(backends, short_takes):
    mlx, _ = backends
    seen = []
    mlx.generate(request("clone"), on_frames=lambda frames, budget: seen.append((frames, budget)))
    assert seen == [(8, FRAMES)]


@pytest.mark.parametrize("layout", ["revise", "scene", "infill"])
def test_layouts_other_than_clone_and_history_are_refused(backends, layout):
    mlx, _ = backends
    with pytest.raises(EngineError, match=f"clone and history layouts, not {layout}"):
        mlx.frames(Conversation(layout=layout, text="Hello.", note="softer"))


def test_a_repetition_window_mlx_audio_cannot_follow_is_refused(backends):
    mlx, _ = backends
    with pytest.raises(EngineError, match="16 main tokens"):
        mlx.generate(request("clone", sampling={"ras_window": 8}))


def test_a_reference_transcript_tagged_for_another_speaker_is_refused(backends):
    mlx, _ = backends
    reference = Reference(0, "<|speaker:1|> Not mine.", AudioClip(codes=random_codes(4, 0)))
    with pytest.raises(EngineError, match="speaker 0"):
        mlx.frames(Conversation(layout="clone", references=(reference,), text="Hi."))


def test_the_registry_builds_it_from_the_model_folder(model_folder):
    entry = backend_entry("mlx")
    assert entry.needs_model
    assert entry.capabilities.codes and not entry.capabilities.scene_layout
    backend = make_backend("mlx", model=str(model_folder))
    assert isinstance(backend, MlxBackend) and backend.folder == model_folder
    assert backend.identity()["engine"] == "mlx"
    assert backend.identity() != make_backend("drama3", model=str(model_folder)).identity()


@pytest.mark.parametrize("mode", ["clone", "history"])
def test_a_render_with_engine_mlx_stores_takes_with_codes(
    model_folder, tmp_path, short_takes, mode
):
    path = write_script(tmp_path, ["We leave at six.", "Not without the oars."])
    project = tmp_path / "project.drama"
    code = main(
        [
            "render",
            str(path),
            "--engine",
            "mlx",
            "--model",
            str(model_folder),
            "--mode",
            mode,
            "--takes",
            "1",
            "--retries",
            "0",
            "--out",
            str(project),
        ]
    )
    assert code in (0, 1)  # random weights may fail the signal checks; the takes are stored
    store = TakeStore(project)
    records = take_records(store, load_script(str(path)))
    takes = {k: v for k, v in records.items() if k[1] != "selected"}
    assert len(takes) == 2 and all(v[5] is not None for v in takes.values())
    for scene in load_script(str(path)).scenes:
        for line in scene.lines:
            (take,) = store.takes(scene.id, line.id)
            assert take.codes().shape == (10, FRAMES)
            assert len(take.audio()) == FRAMES * 2048
            assert take.record.drama3_model is True and take.record.engine == "mlx"


def test_its_layouts_are_checked_while_planning():
    capabilities = MlxBackend.capabilities
    assert capabilities.layouts == frozenset({"clone", "history"})
    assert layout_for_backend(capabilities, "mlx", "history") == ("history", [])
    assert layout_for_backend(capabilities, "mlx", "scene") == (
        "history",
        ["the mlx engine cannot voice a whole scene at once; using history mode"],
    )
    backend = types.SimpleNamespace(name="mlx", capabilities=capabilities)
    with pytest.raises(UsageError, match="^the mlx engine cannot revise a take against"):
        refuse_unvoiced(backend, "revise")
    refuse_unvoiced(backend, "infill")  # an edit speaks the new words alone and splices them


def test_without_mlx_audio_engine_mlx_says_which_extra_to_install(
    model_folder, tmp_path, monkeypatch, capsys
):
    for module in ("mlx", "mlx.core", "mlx.nn", "mlx_audio"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(UsageError, match=r"pip install 'drama\[mlx\]'"):
        MlxBackend.from_options(BackendOptions(model_folder))
    path = write_script(tmp_path, ["We leave at six."])
    code = main(["render", str(path), "--engine", "mlx", "--model", str(model_folder)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert MISSING_EXTRA in err and len(err.splitlines()) == 1 and "Traceback" not in err
