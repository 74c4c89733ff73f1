"""The three-line boathouse scene that the revise and edit tests render (scene `s1`, lines
`l1`..`l3`), and reading a rendered scene mix back line by line."""

from __future__ import annotations

import json

import soundfile as sf

from engine.constants import SAMPLE_RATE

SCRIPT_TEMPLATE = """\
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
    return SCRIPT_TEMPLATE.format(first=first)


def mix_segments(store, scene_id: str = "s1") -> dict:
    """line id -> (start in seconds, float32 samples of the line in `mix.wav`), from the cue sheet."""
    folder = store.scene_dir(scene_id)
    audio, _ = sf.read(folder / "mix.wav", dtype="float32")
    cues = json.loads((folder / "mix.cues.json").read_text())["cues"]
    return {c["line"]: (c["start_s"], audio[round(c["start_s"] * SAMPLE_RATE): round(c["end_s"] * SAMPLE_RATE)])
            for c in cues}
