"""One backend contract: every registered backend has the members the `Backend` protocol
declares, `--engine` choices come from the registry, capabilities are read (never probed), and
stop reasons reach take records in the render layer's vocabulary."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from fakes import FakeBackend, render, voice, write_script

from drama_cli.backends.base import Backend, Capabilities, Generation, backend_option
from drama_cli.backends.drama3 import ENGINE_STOP_REASONS, stop_reason
from drama_cli.backends.registry import (
    BACKENDS,
    BackendChoice,
    BackendEntry,
    BackendOptions,
    auto_entry,
    engine_help,
    engine_names,
    make_backend,
    option_table,
    persisted_options,
)
from drama_cli.backends.scratch import ScratchBackend
from drama_cli.errors import UsageError
from drama_cli.qc.take_checks import STOP_REASONS
from drama_cli.render.line import Progress
from drama_cli.render.plan import layout_for_backend
from drama_cli.takes.take_record import TakeRecord
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
        "options_type",
        "options",
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
        "layouts",
        "codes_in",
        "multi_speaker",
        "streaming",
        "drama3_model",
        "network",
        "local_gpu",
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
    assert engine_help() == "auto, scratch, drama3, mlx, sglang, vllm, llama or fish."
    assert (
        options.ENGINE_OF_PROJECT.help
        == "auto, scratch, drama3, mlx, sglang, vllm, llama or fish (default: the project's)."
    )
    monkeypatch.setenv("COLUMNS", "200")
    for command in ("render", "revise", "edit"):
        assert main([command, "--help"]) == 0
        line = next(row for row in capsys.readouterr().out.splitlines() if "--engine" in row)
        assert all(name in line for name in names), line


def test_a_new_backend_is_one_registry_line(monkeypatch):
    entry = BackendEntry("fake", "a test double", "fakes:FakeBackend")
    local = tuple(e for e in BACKENDS if not e.capabilities.network)  # theirs is this --server
    monkeypatch.setattr("drama_cli.backends.registry.BACKENDS", (*local, entry))
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


@dataclasses.dataclass(frozen=True)
class ServerOptions:
    """The options record a server backend would declare."""

    server: str | None = backend_option(None, "--server", "The server's URL.")
    timeout_s: float = backend_option(
        60.0, "--timeout", "Seconds to wait for one answer.", parse=float, kind=float
    )


class ServerFake(FakeBackend):
    """A backend that takes `--server` and `--timeout` and voices clone only."""

    name = "serverfake"
    options_type = ServerOptions
    capabilities = Capabilities(layouts=frozenset({"clone"}), network=True)

    @classmethod
    def from_options(cls, options):
        backend = cls()
        backend.options = options.own
        return backend


def with_server_fake(monkeypatch):
    entry = BackendEntry("serverfake", "a server double", "test_backend_contract:ServerFake")
    local = tuple(e for e in BACKENDS if not e.capabilities.network)  # theirs is this --server
    monkeypatch.setattr("drama_cli.backends.registry.BACKENDS", (*local, entry))


def test_a_backend_declares_its_options_and_the_command_line_offers_them(monkeypatch):
    with_server_fake(monkeypatch)
    table = option_table()
    assert table["server"][0].flag == "--server" and table["server"][2] == ("serverfake",)
    assert table["gpu_memory"][2] == ("drama3",)
    backend = make_backend("serverfake", server="http://127.0.0.1:1", timeout_s="5")
    assert backend.options == ServerOptions(server="http://127.0.0.1:1", timeout_s=5.0)
    assert persisted_options(backend) == {"server": "http://127.0.0.1:1", "timeout_s": 5.0}
    with pytest.raises(UsageError) as refused:
        make_backend("scratch", server="http://127.0.0.1:1")
    assert str(refused.value) == (
        "--server is not an option of the scratch engine (it is an option of serverfake)"
    )


def test_a_backend_choice_travels_as_one_plain_record():
    choice = BackendChoice("drama3", "/models/d3", "cuda:1", {"graph": False})
    assert pickle.loads(pickle.dumps(choice)) == choice


def test_auto_never_picks_a_backend_that_needs_the_network(monkeypatch):
    with_server_fake(monkeypatch)
    assert auto_entry(False).capabilities.network is False
    assert auto_entry(False).needs_model is False
    assert auto_entry(True).capabilities.drama3_model is True


def test_a_layout_the_backend_lacks_falls_back_or_is_refused_in_one_line():
    clone_only = Capabilities(layouts=frozenset({"clone"}))
    assert layout_for_backend(clone_only, "srv", "clone") == ("clone", [])
    assert layout_for_backend(clone_only, "srv", "history") == (
        "clone",
        [
            "the srv engine does not voice a line in the context of the ones before; using clone mode"
        ],
    )
    assert layout_for_backend(clone_only, "srv", "scene")[0] == "clone"  # a local backend
    server = Capabilities(layouts=frozenset({"clone"}), network=True)
    with pytest.raises(UsageError, match=r"^the srv engine cannot voice a whole scene at once"):
        layout_for_backend(server, "srv", "scene")
    assert layout_for_backend(server, "srv", "history")[0] == "clone"
    assert layout_for_backend(Capabilities(scene_layout=True), "x", "scene") == ("scene", [])
    with pytest.raises(UsageError, match="^the srv engine cannot revise a take"):
        layout_for_backend(clone_only, "srv", "revise")
    with pytest.raises(UsageError, match=r"^the srv engine cannot regenerate the middle"):
        layout_for_backend(clone_only, "srv", "infill")
    with pytest.raises(ValueError, match="unknown layouts"):
        Capabilities(layouts=frozenset({"duet"}))


def test_a_take_record_says_whether_the_drama3_model_voiced_it():
    assert TakeRecord.from_json({"drama3_model": True, "engine": "srv"}).by_drama3_model
    assert not TakeRecord.from_json({"drama3_model": False, "engine": "drama3"}).by_drama3_model
    assert TakeRecord.from_json({"engine": "drama3"}).by_drama3_model  # written before the fact
    assert not TakeRecord.from_json({"engine": "scratch"}).by_drama3_model
