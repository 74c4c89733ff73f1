"""End to end: the CLI renders the example scripts with the scratch engine (all of them, once)
and a short line with a tiny random Drama 3 checkpoint; listen checks on the results."""

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from drama_cli.cli import main
from drama_cli.mix.options import layer_mix
from drama_cli.qc.signal import check_silence
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MIX_DEFAULTS, MixSettings
from drama_cli.takes.store import TakeStore

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts_examples"
SCRIPTS = sorted(
    p
    for p in EXAMPLES.iterdir()
    if p.suffix in (".yaml", ".fountain") and not p.name.endswith(".cast.yaml")
)
SR = 44_100


def test_there_are_examples_with_reference_clips():
    assert len(SCRIPTS) >= 3
    for path in SCRIPTS:
        script = load_script(str(path))
        for member in script.cast.values():
            for clip in member.references:
                audio, rate = sf.read(Path(script.base_dir) / clip.path)
                assert rate == SR and audio.ndim == 1 and 1.5 < len(audio) / SR < 8
                assert clip.transcript


@pytest.fixture(scope="module")
def scratch_renders(tmp_path_factory):
    pytest.importorskip("piper", reason="the scratch engine needs piper-tts")
    out = tmp_path_factory.mktemp("examples")
    results = {}
    for path in SCRIPTS:
        project = out / f"{path.name}.drama"
        code = main(["render", str(path), "--engine", "scratch", "--out", str(project), "--json"])
        results[path.name] = (code, project)
    return results


@pytest.mark.slow
@pytest.mark.parametrize("name", [p.name for p in SCRIPTS])
def test_scratch_renders_every_example_and_passes_the_listen_check(scratch_renders, name):
    code, project = scratch_renders[name]
    assert code == 0
    script = load_script(str(EXAMPLES / name))
    store = TakeStore(project)
    default_gap = MIX_DEFAULTS.gap_s
    mixed = 0
    for scene in script.scenes:
        if not scene.lines:
            continue
        takes = [store.selected_take(scene.id, line.id) for line in scene.lines]
        assert all(t is not None for t in takes)
        for take in takes:
            audio = take.audio()
            assert check_silence(audio, SR).passed, take.wav_path
            assert 20 * np.log10(np.sqrt(np.mean(audio.astype(np.float64) ** 2))) > -40
            assert take.record.scratch is True and take.record.engine == "scratch"
        gaps = sum(
            line.beat_s + (default_gap if line.pause_after_s is None else line.pause_after_s)
            for line in scene.lines[:-1]
        )
        padding = layer_mix(MixSettings(), script=script, scene=scene).resolved()
        expected = sum(t.duration_s for t in takes) + gaps + padding.head_s + padding.tail_s
        mix, rate = sf.read(store.scene_dir(scene.id) / "mix.wav")
        assert rate == SR
        assert abs(len(mix) / SR - expected) <= 0.2 * expected
        sheet = json.loads((store.scene_dir(scene.id) / "mix.cues.json").read_text())
        rows = sheet["cues"] if isinstance(sheet, dict) else sheet
        assert [r["line"] for r in rows] == [line.id for line in scene.lines]
        assert "scratch" in json.dumps(sheet)
        labels = (store.scene_dir(scene.id) / "mix.labels.txt").read_text().splitlines()
        assert labels[0].endswith("SCRATCH DRAFT – not a Drama 3 performance")
        assert len(labels) == len(scene.lines) + 1 + len(sheet.get("sounds", []))
        mixed += 1
    assert mixed >= 1


@pytest.mark.slow
def test_scratch_render_again_reuses_every_take(scratch_renders, capsys):
    name = SCRIPTS[0].name
    code, project = scratch_renders[name]
    capsys.readouterr()
    assert (
        main(
            ["render", str(EXAMPLES / name), "--engine", "scratch", "--out", str(project), "--json"]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["backend_calls"] == 0 and report["counts"]["rendered"] == 0
    assert report["counts"]["reused"] == len(report["lines"]) > 0


@pytest.mark.slow
def test_the_storm_clock_cue_starts_at_its_word_in_the_scratch_mix(scratch_renders):
    code, project = scratch_renders["storm.yaml"]
    folder = project / "boathouse"
    sheet = json.loads((folder / "mix.cues.json").read_text())
    line = next(row for row in sheet["cues"] if row["line"] == "clock")
    take = sf.info(str(folder / line["take_path"]))
    assert (code, take.samplerate, line["text"]) == (
        0,
        SR,
        "It is nearly midnight. Listen to that clock.",
    )
    # no word or chunk times in a scratch take: in proportion, "that" at 33 of 44 characters
    at = round(line["start_s"] * SR) + round(take.frames * 33 / 44)
    clock = next(row for row in sheet["sounds"] if row["sound"] == "clock")
    assert (clock["kind"], clock["gain_db"], clock["start_s"]) == (
        "effect",
        -6.0,
        round(at / SR, 6),
    )


def test_drama3_tiny_checkpoint_renders_a_line_with_codes(
    tiny_model, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    script_path = EXAMPLES / "cigarette-case.yaml"
    script = load_script(str(script_path))
    scene = script.scenes[0]
    line = min(scene.lines, key=lambda x: len(x.text))
    project = tmp_path / "d3.drama"
    code = main(
        [
            "render",
            str(script_path),
            "--engine",
            "drama3",
            "--model",
            str(tiny_model),
            "--line",
            line.id,
            "--retries",
            "0",
            "--out",
            str(project),
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    # Random weights never say end-of-speech: the take runs to its budget and is flagged.
    assert code in (0, 1, 3) and code == report["exit_code"]
    assert report["engine"] == "drama3" and report["backend_calls"] == 1
    store = TakeStore(project)
    (take,) = store.takes(scene.id, line.id)
    codes = take.codes()
    assert codes.dtype == np.int64 and codes.shape[0] == 10 and codes.shape[1] > 0
    assert take.record.samples == codes.shape[1] * 2048
    assert take.record.engine == "drama3" and take.record.model_revision
    assert take.record.scratch is False and take.record.layout in ("clone", "history")
    assert list((tmp_path / "cache").rglob("*.npy"))  # references went through the codec cache

    # Whatever the checks said, a take chosen by hand is mixed.
    assert (
        main(["takes", str(script_path), "--out", str(project), "--line", line.id, "--select", "1"])
        == 0
    )
    # The scene's other lines were never rendered: left out of the mix, so mix exits 1.
    assert main(["mix", str(script_path), "--out", str(project), "--scene", scene.id]) == 1
    mix, rate = sf.read(store.scene_dir(scene.id) / "mix.wav")
    assert rate == SR and len(mix) > codes.shape[1] * 2048


def test_auto_engine_without_a_model_falls_back_to_scratch(monkeypatch, tmp_path):
    from drama_cli.backends.registry import make_backend

    monkeypatch.delenv("DRAMA_MODEL", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    monkeypatch.setattr("drama_cli.backends.registry._cached_model", lambda: None)
    notices = []
    backend = make_backend("auto", notice=notices.append)
    assert backend.name == "scratch" and backend.scratch
    assert len(notices) == 1 and "scratch" in notices[0]


def test_drama3_engine_selection_needs_a_model_folder(monkeypatch, tmp_path, tiny_model):
    from drama_cli.backends.registry import make_backend
    from drama_cli.errors import UsageError

    monkeypatch.delenv("DRAMA_MODEL", raising=False)
    monkeypatch.setattr("drama_cli.backends.registry._cached_model", lambda: None)
    with pytest.raises(UsageError, match="--model"):
        make_backend("drama3")
    with pytest.raises(UsageError, match="config.json"):
        make_backend("drama3", tmp_path)
    with pytest.raises(UsageError):
        make_backend("espeak")
    monkeypatch.setenv("DRAMA_MODEL", str(tiny_model))
    backend = make_backend("auto")
    assert backend.name == "drama3" and backend.identity()["revision"]


def test_drama3_backend_codec_helpers_and_clip_encoding(tiny_model, tmp_path):
    from drama_cli.backends.drama3 import Drama3Backend, model_revision
    from engine.clip import AudioClip
    from engine.conversation import Conversation, Exchange, Reference

    backend = Drama3Backend(tiny_model, device="cpu", cache_dir=tmp_path / "codes")
    audio = (0.3 * np.sin(np.arange(SR) / SR * 2 * np.pi * 220)).astype(np.float32)
    codes = backend.encode_audio(audio)
    assert codes.dtype == np.int64 and codes.shape[0] == 10
    assert backend.decode_codes(codes).shape == (codes.shape[1] * 2048,)
    ref = EXAMPLES / "refs" / "jack.wav"
    conversation = Conversation(
        "history",
        references=(Reference(0, "<|speaker:0|> Hi.", AudioClip(path=str(ref))),),
        text="<|speaker:0|> Fine.",
        context=(Exchange("<|speaker:0|> Hi.", AudioClip(codes=codes)),),
    )
    filled = backend.encode_clips(conversation)
    ref_codes = filled.references[0].clip.codes
    frames = int(np.ceil(sf.info(ref).frames / 2048))
    assert ref_codes.shape[0] == 10 and abs(ref_codes.shape[1] - frames) <= 1
    assert filled.context[0].clip.codes is codes  # known codes are kept as they are
    assert len(list((tmp_path / "codes").glob("*.npy"))) == 1
    assert model_revision(tiny_model) == backend.identity()["revision"]
    snapshot = tmp_path / "snapshots" / "78e5ab7"
    snapshot.mkdir(parents=True)
    assert model_revision(snapshot) == "78e5ab7"


HOLMES_SCRIPT = """\
title: A Scandal in Bohemia
cast:
  HOLMES:
    voice: refs/holmes.wav
    transcript: You see, but you do not observe.
lines:
  - HOLMES: Come in!
"""


def test_make_refs_with_a_relative_folder_writes_the_clips(tmp_path, monkeypatch, capsys):
    import importlib.util
    from pathlib import Path

    import soundfile as sf

    module_path = Path(__file__).resolve().parents[1] / "scripts_examples" / "make_refs.py"
    spec = importlib.util.spec_from_file_location("make_refs", module_path)
    make_refs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_refs)
    (tmp_path / "holmes").mkdir()
    (tmp_path / "holmes" / "scandal.yaml").write_text(HOLMES_SCRIPT)
    monkeypatch.chdir(tmp_path)
    assert make_refs.main("holmes") == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote refs/holmes.wav: HOLMES, ")
    info = sf.info(str(tmp_path / "holmes" / "refs" / "holmes.wav"))
    assert info.samplerate == 44_100 and info.duration > 1.0
