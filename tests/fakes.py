"""Shared test doubles: fake backends, script writers and the scenes the render, revise and
edit tests use."""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

import numpy as np
import soundfile as sf
import torch

from drama_cli.backends.base import BackendDefaults, Capabilities, Generation
from drama_cli.cli import main
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.script.mix_settings import MixSettings
from drama_cli.takes.jobs import RenderSettings
from drama_cli.takes.store import TakeStore
from engine.constants import HOP_SAMPLES, SAMPLE_RATE
from engine.layers.moe import SparseMoE
from engine.testing.checkpoints import quantize_fp8_blocks
from engine.text import expected_duration_s

SR = 44_100


def random_moe(d: int = 16, experts: int = 6, inter: int = 8, top_k: int = 2, seed: int = 0):
    """A `SparseMoE` of random weights (routed experts in block-FP8, 128×128 blocks) and the
    weights dict it was built from."""
    gen = torch.Generator().manual_seed(seed)
    shapes = (("gate_proj", (inter, d)), ("up_proj", (inter, d)), ("down_proj", (d, inter)))
    weights = {"gate.weight": torch.randn(experts, d, generator=gen)}
    for e in range(experts):
        for proj, shape in shapes:
            q, s = quantize_fp8_blocks(torch.randn(*shape, generator=gen) * 0.3, (128, 128))
            (
                weights[f"experts.{e}.{proj}.weight"],
                weights[f"experts.{e}.{proj}.weight_scale_inv"],
            ) = q, s
    for proj, shape in shapes:
        weights[f"shared_expert.{proj}.weight"] = torch.randn(*shape, generator=gen) * 0.3
    weights["shared_expert_gate.weight"] = torch.randn(1, d, generator=gen)
    return SparseMoE(weights, experts, top_k, (128, 128)), weights


TWO_VOICE_TEMPLATE = """\
title: Boathouse
cast:
  MARGOT:
    description: a rower
  DESMOND:
    description: her coach
scenes:
  - id: boathouse
    lines:
{lines}
"""


def write_script(folder: Path, texts, name="scene.yaml") -> Path:
    speakers = ["MARGOT", "DESMOND"]
    lines = "".join(
        f'      - speaker: {speakers[i % 2]}\n        text: "{t}"\n' for i, t in enumerate(texts)
    )
    path = folder / name
    path.write_text(TWO_VOICE_TEMPLATE.format(lines=lines), encoding="utf-8")
    return path


def voice(seconds: float, f0: float = 150.0, level: float = 0.2) -> np.ndarray:
    """A periodic, syllable-modulated tone that passes the signal checks."""
    t = np.arange(int(seconds * SR)) / SR
    phase = 2 * np.pi * f0 * t
    wave = sum(np.sin(k * phase) / k for k in range(1, 6))
    return (level * wave * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t) ** 2)).astype(np.float32)


class FakeBackend(BackendDefaults):
    """Records every request; answers with canned audio whose length follows the text.

    answer(request, call_number) -> (audio, stop_reason) overrides the audio;
    fail_on: raise RuntimeError on that call number (1-based).
    """

    name = "fake"
    scratch = False
    capabilities = Capabilities(infill=True)

    def __init__(self, answer=None, fail_on=None, revision="r1"):
        self.requests = []
        self.answer = answer
        self.fail_on = fail_on
        self.revision = revision

    def identity(self):
        return {"engine": "fake", "revision": self.revision}

    def generate(self, request, on_frames=None):
        self.requests.append(request)
        if self.fail_on == len(self.requests):
            raise RuntimeError("backend crashed")
        if self.answer:
            audio, stop = self.answer(request, len(self.requests))
        else:
            seconds = expected_duration_s(request.text)
            audio, stop = voice(seconds, 120 + (request.seed % 50)), "eos"
        return Generation(audio, None, stop, {"fake": True})


def render(path, backend, out=None, formats=(), **settings):
    script = load_script(str(path))
    store = TakeStore(out or path.with_suffix(".drama"))
    report = render_script(
        script, store, backend, RenderSettings(**settings), mix=MixSettings(formats=formats)
    )
    return report, store


def cues(store, scene="boathouse"):
    return json.loads((store.scene_dir(scene) / "mix.cues.json").read_text())


def cue_rows(sheet):
    return sheet["cues"] if isinstance(sheet, dict) else sheet


def fake_render(monkeypatch, backend=None):
    import drama_cli.backends.registry as registry

    monkeypatch.setattr(registry, "make_backend", lambda *a, **k: backend or FakeBackend())


def rendered_with_selection(tmp_path: Path, monkeypatch, contents: str) -> tuple[Path, Path]:
    """A one-line scene rendered with the fake, then its `selected.json` overwritten with
    `contents`: (script path, selection file)."""
    fake_render(monkeypatch)
    path = write_script(tmp_path, ["We leave at six."])
    assert main(["render", str(path)]) == 0
    selected = tmp_path / "scene.drama" / "boathouse" / "selected.json"
    selected.write_text(contents)
    return path, selected


def mix_rows(folder: Path) -> tuple[dict, list[dict]]:
    sheet = json.loads((folder / "boathouse" / "mix.cues.json").read_text())
    return sheet, sheet["cues"]


TWO_VOICE_SCENE = """\
title: {title}
cast:
  A: {{}}
  B: {{}}
scenes:
  - id: s1
    lines:
{lines}"""


def two_voice_scene(title: str, lines: list[str]) -> str:
    """The YAML of a script titled `title` with one scene, `s1`, for the voices A and B (no
    descriptions); `lines`: each line's YAML as written at the margin (`A: Indeed I do.`, or a
    mapping of several keys, one per text line), set under `lines:` here."""
    entries = "".join("      - " + line.replace("\n", "\n        ") + "\n" for line in lines)
    return TWO_VOICE_SCENE.format(title=title, lines=entries)


SHORT_SCRIPT = two_voice_scene("Short", ["A: Indeed I do.", "B: We never said goodbye."])


def render_with_edit_fake(tmp_path, monkeypatch, script_text, name):
    """Render `script_text` (written to `tmp_path/name`) with the edit tests' fake backend and
    no speech recognition; returns the script path and the fake."""
    fake = FakeWithCodes()
    fake_render(monkeypatch, fake)
    monkeypatch.setattr("drama_cli.edit.project_edit.recognise_words", lambda audio: None)
    path = tmp_path / name
    path.write_text(script_text, encoding="utf-8")
    assert main(["render", str(path)]) == 0
    return path, fake


def edit_json(capsys, args):
    capsys.readouterr()
    code = main(args + ["--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


class FakeWithCodes(BackendDefaults):
    """Tones whose pitch follows the seed; lengths a whole number of frames; codes kept. It has
    no codec (`capabilities.codes` false): edits splice its audio as generated."""

    name = "fake"
    scratch = False
    capabilities = Capabilities(infill=True)

    def __init__(self):
        self.requests = []

    def identity(self):
        return {"engine": "fake"}

    def generate(self, request, on_frames=None):
        self.requests.append(request)
        frames = 40 if request.layout != "infill" else 12
        t = np.arange(frames * HOP_SAMPLES) / SAMPLE_RATE
        audio = (0.2 * np.sin(2 * np.pi * (150 + 7 * (request.seed % 50)) * t)).astype(np.float32)
        codes = np.full((10, frames), request.seed % 1000, dtype=np.int64)
        return Generation(audio, codes, "eos")


BOATHOUSE_TEMPLATE = """\
title: Boathouse
cast:
  MARGOT:
    description: tired
  DESMOND:
    description: stubborn
scenes:
  - id: s1
    lines:
      - id: l1
        speaker: MARGOT
        text: {first}
      - id: l2
        speaker: DESMOND
        text: Not without the oars.
      - id: l3
        speaker: MARGOT
        text: Fine.
"""


def boathouse_script(first: str = "We leave at six.") -> str:
    """The scene's YAML with `first` as MARGOT's opening line."""
    return BOATHOUSE_TEMPLATE.format(first=first)


def mix_segments(store, scene_id: str = "s1") -> dict:
    """line id -> (start in seconds, float32 samples of the line in `mix.wav`), from the cue sheet."""
    folder = store.scene_dir(scene_id)
    audio, _ = sf.read(folder / "mix.wav", dtype="float32")
    cues = json.loads((folder / "mix.cues.json").read_text())["cues"]
    return {
        c["line"]: (
            c["start_s"],
            audio[round(c["start_s"] * SAMPLE_RATE) : round(c["end_s"] * SAMPLE_RATE)],
        )
        for c in cues
    }


MIX_SETTINGS_TEMPLATE = """\
title: Boathouse
gap: 1.0
room_tone: {room_tone}
room_tone_db: {room_tone_db}
cast:
  MARGOT: {{}}
  DESMOND: {{}}
scenes:
  - id: boathouse
    head: 0
    lines:
      - MARGOT: We leave at six.
      - DESMOND: Fine then.
"""


def mix_settings_script(room_tone: str, room_tone_db: float) -> str:
    """A two-line scene whose script sets the mix: a 1 s gap, no head, and a room tone."""
    return MIX_SETTINGS_TEMPLATE.format(room_tone=room_tone, room_tone_db=room_tone_db)


def wait_for(condition, child, timeout_s: float, what: str) -> None:
    """Poll `condition()` until true; fail clearly if the child process exits or time runs out."""
    import time

    import pytest

    deadline = time.monotonic() + timeout_s
    while not condition():
        if child.poll() is not None:
            pytest.fail(f"the render exited with code {child.returncode} before {what}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"no {what} after {timeout_s:.0f} s")
        time.sleep(0.05)


# A drama command line whose scratch engine holds every generation for which `{hold}` (an
# expression of `request` and `calls`, the line ids asked for so far) is true: it touches
# `<folder>/<line id>` and waits to be killed.
GATED_SCRATCH = """\
import pathlib, sys, time
from drama_cli.backends.scratch import ScratchBackend
from drama_cli.cli import main

folder = pathlib.Path(sys.argv[1])
real_generate = ScratchBackend.generate
calls = []

def gated_generate(self, request, on_frames=None):
    calls.append(request.line_id)
    if {hold}:
        (folder / request.line_id).touch()
        while True:
            time.sleep(1)
    return real_generate(self, request, on_frames)

ScratchBackend.generate = gated_generate
sys.exit(main(sys.argv[2:]))
"""


def kill_render_when(hold: str, folder: Path, args: list, ready, what: str) -> None:
    """Run the drama command line `args` with a scratch engine that holds the generations for
    which `hold` is true (`GATED_SCRATCH`, marking them in `folder`), and kill -9 it once
    `ready()` is true."""
    import os
    import signal
    import subprocess
    import sys

    folder.mkdir(exist_ok=True)
    child = subprocess.Popen(
        [sys.executable, "-c", GATED_SCRATCH.format(hold=hold), str(folder), *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(ready, child, 600, what)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()


def first_take_hashes(store, scene_id: str, line_ids) -> dict:
    """line id -> the WAV hash of its first take, for the lines that have one."""
    return {
        line: store.takes(scene_id, line)[0].record.wav_sha256
        for line in line_ids
        if store.takes(scene_id, line)
    }


def take_records(store: TakeStore, script) -> dict:
    """(line, slot, attempt) -> what a take is: seed, texts, key, audio and codes hashes, checks;
    and each line's selected (slot, attempt). Take numbers and creation times left out."""
    found = {}
    for scene in script.scenes:
        for line in scene.lines:
            for take in store.takes(scene.id, line.id):
                r = take.record.to_json()
                codes = take.codes()
                audio = hashlib.sha256(take.audio().tobytes()).hexdigest()  # (the WAV has a date)
                found[(line.id, r["slot"], r["attempt"])] = (
                    r["seed"],
                    r["text"],
                    r["display_text"],
                    r["cache_key"],
                    audio,
                    hashlib.sha256(codes.tobytes()).hexdigest() if codes is not None else None,
                    r["status"],
                    r["stop_reason"],
                )
            chosen = store.selected_take(scene.id, line.id)
            if chosen is not None:
                found[(line.id, "selected")] = (chosen.record.slot, chosen.record.attempt)
    return found


def fountain_play(tmp_path, body, cast="cast:\n  ALGERNON: {}\n  JACK: {}\n"):
    """`play.fountain` holding `body`, with the cast file beside it."""
    (tmp_path / "play.cast.yaml").write_text(cast)
    path = tmp_path / "play.fountain"
    path.write_text(body)
    return path


def margot_scene(folder: Path, texts) -> Path:
    """`scene.yaml`: the boathouse scene with every line spoken by MARGOT."""
    lines = "".join(f'      - speaker: MARGOT\n        text: "{t}"\n' for t in texts)
    path = folder / "scene.yaml"
    path.write_text(TWO_VOICE_TEMPLATE.format(lines=lines), encoding="utf-8")
    return path


# The cast of the Holmes scripts the script-reading tests write.
CAST = "cast:\n  HOLMES: {}\n  WATSON: {}\n"


def one_error_line(capsys) -> str:
    """What the command wrote to stderr, stripped; never a traceback."""
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err


def single_error_line(capsys) -> str:
    """The one line the command wrote to stderr, warnings and progress lines aside."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [
        line for line in err.splitlines() if not line.startswith(("drama: warning:", "drama: ["))
    ]
    assert len(lines) == 1, err
    return lines[0]


def help_text(capsys, *args) -> str:
    """`drama ARGS --help` as one line of words (the help panel's borders removed)."""
    capsys.readouterr()
    assert main([*args, "--help"]) == 0
    return " ".join(capsys.readouterr().out.replace("│", " ").split())


def write_dedented(folder, name, text):
    """`folder/name` holding `text` dedented."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# The example scripts' reference clips.
REFS = Path(__file__).resolve().parents[1] / "scripts_examples" / "refs"


def tone(seconds: float, freq: float = 220.0, amplitude: float = 0.3, rate: int = SR):
    """A sine tone, float32."""
    t = np.arange(int(round(seconds * rate))) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def rendered_with_sounds(tmp_path, monkeypatch, lines: str, *flags) -> tuple:
    """A scene of A and B under a looped 0.7 s rain bed, with a door effect, rendered with the
    fake and mixed with `flags`: (script path, scene folder)."""
    fake_render(monkeypatch)
    sf.write(str(tmp_path / "rain.wav"), tone(0.7, freq=300, amplitude=0.05), SR, subtype="FLOAT")
    sf.write(str(tmp_path / "door.wav"), tone(0.4, freq=900, amplitude=0.2), SR, subtype="FLOAT")
    path = tmp_path / "play.yaml"
    path.write_text(
        "cast:\n  A: {}\n  B: {}\nscenes:\n  - id: s1\n    ambience: rain.wav\n    lines:\n" + lines
    )
    assert main(["render", str(path), *flags]) == 0
    return path, tmp_path / "play.drama" / "s1"


def record_requests(monkeypatch) -> list:
    """The list every request sent to a backend that `registry.make_backend` makes from now on
    is appended to, in the order sent; the real backend still voices each."""
    import drama_cli.backends.registry as registry

    requests = []
    make = registry.make_backend

    def recording(*args, **kwargs):
        backend = make(*args, **kwargs)
        generate = backend.generate

        def record(request, on_frames=None):
            requests.append(request)
            return generate(request, on_frames)

        backend.generate = record
        return backend

    monkeypatch.setattr(registry, "make_backend", recording)
    return requests
