"""One backend contract: every registered backend has the members the `Backend` protocol
declares, `--engine` choices come from the registry, capabilities are read (never probed), and
stop reasons reach take records in the render layer's vocabulary."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from fakes import FakeBackend, render, voice, write_script

from drama_cli.backends.base import Backend, Capabilities, Generation
from drama_cli.backends.drama3 import ENGINE_STOP_REASONS, stop_reason
from drama_cli.backends.registry import (
    BACKENDS,
    BackendEntry,
    BackendOptions,
    engine_help,
    engine_names,
    make_backend,
)
from drama_cli.backends.scratch import ScratchBackend
from drama_cli.qc.take_checks import STOP_REASONS
from drama_cli.render.line import Progress
from engine.errors import EngineError

PACKAGE = Path(__file__).resolve().parents[1] / "drama_cli"


def declared_members(protocol) -> set[str]:
    """The attributes and methods a protocol declares (dunders aside)."""
    methods = {
        name
        for name, value in vars(protocol).items()
        if callable(value) and not name.startswith("_")
    }
    return set(protocol.__annotations__) | methods


def test_the_protocol_declares_what_callers_use():
    assert declared_members(Backend) == {
        "name",
        "scratch",
        "capabilities",
        "identity",
        "generate",
        "open_batch",
        "generate_scene",
        "encode_audio",
        "decode_codes",
        "close",
    }
    assert {f for f in Capabilities.__dataclass_fields__} == {
        "scene_layout",
        "codes",
        "infill",
        "streaming_frames",
        "batch_streams",
    }


@pytest.mark.parametrize("entry", BACKENDS, ids=lambda e: e.name)
def test_every_registered_backend_has_the_declared_members(entry, tmp_path):
    cls = entry.backend_class()
    assert cls.name == entry.name and isinstance(entry.capabilities, Capabilities)
    assert entry.description and "\n" not in entry.description
    for member in declared_members(Backend):
        assert hasattr(cls, member), f"{cls.__name__} has no {member}"
    for member in declared_members(Backend) - set(Backend.__annotations__):
        got = inspect.signature(getattr(cls, member)).parameters
        wanted = inspect.signature(vars(Backend)[member]).parameters
        assert list(got) == list(wanted), member
        assert [p.default for p in got.values()] == [p.default for p in wanted.values()], member
    backend = entry.create(BackendOptions(model_folder=tmp_path if entry.needs_model else None))
    assert isinstance(backend, Backend)


def test_a_backend_without_a_capability_says_so():
    scratch = ScratchBackend()
    assert not scratch.capabilities.codes
    with pytest.raises(EngineError, match="scratch engine has no codec"):
        scratch.encode_audio(np.zeros(100, np.float32))
    with pytest.raises(EngineError, match="scratch engine has no codec"):
        scratch.decode_codes(np.zeros((10, 2), np.int64))
    with pytest.raises(EngineError, match="fake engine cannot voice a whole scene"):
        FakeBackend().generate_scene(None, ["x"])


def test_engine_help_lists_the_registry(capsys, monkeypatch):
    from drama_cli.cli import main
    from drama_cli.commands import options

    names = engine_names()
    assert names == ("auto", *(entry.name for entry in BACKENDS))
    assert engine_help() == "auto, scratch, drama3 or mlx."
    assert (
        options.ENGINE_OF_PROJECT.help == "auto, scratch, drama3 or mlx (default: the project's)."
    )
    monkeypatch.setenv("COLUMNS", "200")
    for command in ("render", "revise", "edit"):
        assert main([command, "--help"]) == 0
        line = next(row for row in capsys.readouterr().out.splitlines() if "--engine" in row)
        assert all(name in line for name in names), line


def test_a_new_backend_is_one_registry_line(monkeypatch):
    entry = BackendEntry("fake", "a test double", "fakes:FakeBackend")
    monkeypatch.setattr("drama_cli.backends.registry.BACKENDS", (*BACKENDS, entry))
    assert engine_names()[-1] == "fake"
    backend = make_backend("fake")
    assert isinstance(backend, FakeBackend) and isinstance(backend, Backend)


def test_nothing_probes_a_backend_for_members():
    probe = re.compile(r"\b(hasattr|getattr)\((self\.)?backend\b")
    found = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, row in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if probe.search(row)
    ]
    assert found == []


def test_stop_reasons_are_the_render_layers_words():
    from engine.generate import STOP_REASONS as ENGINE_STOP_NAMES

    assert set(ENGINE_STOP_REASONS) == set(ENGINE_STOP_NAMES)
    assert set(ENGINE_STOP_REASONS.values()) <= set(STOP_REASONS)
    assert stop_reason("max_frames") == "length" and stop_reason("eos") == "eos"


class StreamingFake(FakeBackend):
    """Reports frame progress through the `on_frames` argument, as drama3 does."""

    capabilities = Capabilities(infill=True, streaming_frames=True)

    def generate(self, request, on_frames=None):
        for frames in (8, 16):
            on_frames(frames, 100)
        return super().generate(request)


class FrameLog(Progress):
    def __init__(self):
        self.seen = []

    def frames(self, job, frames, budget):
        self.seen.append((job.line_id, frames, budget))


def test_frame_progress_goes_through_the_generate_argument(tmp_path):
    from drama_cli.render.scheduler import render_script
    from drama_cli.script.load import load_script
    from drama_cli.takes.jobs import RenderSettings
    from drama_cli.takes.store import TakeStore

    path = write_script(tmp_path, ["We leave at six.", "Fine."])
    log = FrameLog()
    report = render_script(
        load_script(str(path)),
        TakeStore(tmp_path / "p.drama"),
        StreamingFake(),
        RenderSettings(),
        log,
    )
    assert report.exit_code == 0
    assert log.seen == [
        ("boathouse-1", 8, 100),
        ("boathouse-1", 16, 100),
        ("boathouse-2", 8, 100),
        ("boathouse-2", 16, 100),
    ]


def test_the_render_checks_each_generation_once(tmp_path, monkeypatch):
    import drama_cli.render.line as line

    checked = []
    real = line.check_generation

    def counting(generation: Generation, text: str):
        checked.append(text)
        return real(generation, text)

    monkeypatch.setattr(line, "check_generation", counting)
    silent_first = lambda request, n: (voice(1.0) * (n > 1), "eos")  # noqa: E731
    path = write_script(tmp_path, ["We leave at six."])
    backend = FakeBackend(answer=silent_first)
    report, store = render(path, backend)
    takes = store.takes("boathouse", "boathouse-1")
    assert len(backend.requests) == 2 == len(checked) == len(takes)
    assert [t.status for t in takes] == ["unusable", "ok"] and report.exit_code == 0
