"""The voice-match check: how close a take's voice is to its character's reference clips.

The measure is the cosine similarity of two speaker embeddings, one of the take and one of the
character (the mean of its clips' embeddings, normalised). The embeddings come from
Resemblyzer's voice encoder (the optional `qc` extra): a three-layer LSTM over 40-band mel
frames whose trained weights (`pretrained.pt`, 17 MB) ship inside the `resemblyzer` wheel, so
nothing is downloaded, and which embeds a few seconds of speech in about 0.3 s on one CPU core.
Its embeddings are non-negative and unit length, so a similarity lies in [0, 1].

Measured on the example casts (`scripts_examples/refs/*.wav`, one piper voice per character
at its own pitch and rate; docs/guide/qc.md "Voice match"): scratch takes scored 0.83 to 0.94
against their own character's clip, 0.74 to 0.78 against a voice 1.8 to 2.4 semitones away,
0.52 to 0.60 against one 4 or more semitones away. `DEFAULT_MIN_SIMILARITY` (0.80) sits in the
gap between those groups (`drama_cli.qc.limits`).
"""

from __future__ import annotations

import functools
import importlib.util
import warnings
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from drama_cli.errors import QcUnavailableError, UsageError
from drama_cli.qc.limits import DEFAULT_MIN_SIMILARITY, MIN_JUDGED_S
from drama_cli.qc.signal import DEGRADED, CheckResult
from engine.constants import SAMPLE_RATE

ENCODER_RATE = 16_000  # Hz, the rate Resemblyzer's encoder was trained at
MODEL_NAME = "resemblyzer-0.1.4"
INSTALL_COMMAND = "pip install -e '.[qc]'"  # from the drama folder, as README installs extras
INSTALL_HINT = f"install the optional extra (in the drama folder): {INSTALL_COMMAND}"
MIN_SPEECH_S = 0.3  # less voiced audio than this gives no embedding


def require_voice() -> None:
    """Raise QcUnavailableError, naming the install command, when the voice encoder's package
    (`resemblyzer`, the `qc` extra) is missing."""
    if importlib.util.find_spec("resemblyzer") is None:
        raise QcUnavailableError(f"the voice check needs resemblyzer; {INSTALL_HINT}")


@functools.lru_cache(maxsize=1)
def _encoder():
    require_voice()
    with warnings.catch_warnings():
        # webrtcvad, which resemblyzer imports, reads its own version through pkg_resources
        warnings.simplefilter("ignore")
        # optional: resemblyzer (the qc extra), checked by require_voice
        from resemblyzer import VoiceEncoder, preprocess_wav
    return VoiceEncoder("cpu", verbose=False), preprocess_wav


def read_clip(path: str | Path) -> tuple[np.ndarray, int]:
    """A reference clip as float32 mono `[samples]` and its rate in Hz. Raises UsageError
    naming the file when it cannot be read."""
    try:
        audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, OSError) as err:
        raise UsageError(f"cannot read the reference clip {path}: {err}") from None
    return audio.mean(axis=1, dtype=np.float32), int(rate)


def embed(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray | None:
    """The speaker embedding of float32 mono `audio` `[samples]` at `sample_rate` Hz: float32
    `[256]`, unit length, or None when it holds under `MIN_SPEECH_S` of voiced audio (silence,
    a breath). Raises QcUnavailableError when the `qc` extra is missing."""
    return embed_voiced(audio, sample_rate)[0]


def embed_voiced(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> tuple:
    """(`embed`'s embedding or None, the seconds of voiced audio it was made from)."""
    encoder, preprocess = _encoder()
    audio = np.asarray(audio, dtype=np.float32)
    if audio.size and sample_rate != ENCODER_RATE:
        audio = soxr.resample(audio, sample_rate, ENCODER_RATE).astype(np.float32)
    if not np.isfinite(audio).all() or not np.abs(audio).max(initial=0.0) > 0:
        return None, 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # log10 of an all-zero window inside the trimming
        voiced = preprocess(np.clip(audio, -1.0, 1.0))
    voiced_s = round(voiced.size / ENCODER_RATE, 3)
    if voiced_s < MIN_SPEECH_S:
        return None, voiced_s
    return np.asarray(encoder.embed_utterance(voiced), dtype=np.float32), voiced_s


def voice_embedding(clips: list[np.ndarray]) -> np.ndarray | None:
    """One character's embedding from the embeddings of its clips (`[256]` each): their mean,
    normalised; None when no clip gave one."""
    usable = [clip for clip in clips if clip is not None]
    if not usable:
        return None
    mean = np.mean(usable, axis=0)
    return (mean / np.linalg.norm(mean)).astype(np.float32)


def similarity(take: np.ndarray | None, voice: np.ndarray | None) -> float | None:
    """Cosine similarity of two unit embeddings `[256]`, in [0, 1]; None when either is None."""
    if take is None or voice is None:
        return None
    return round(float(np.dot(take, voice)), 4)


class ReferenceVoices:
    """The embedding of each character's reference clips, computed once per clip file.

    clips: character name -> paths of its reference clips (`voice_clips`)."""

    def __init__(self, clips: dict[str, list[Path]]):
        self.clips = clips
        self._voices: dict[str, np.ndarray | None] = {}

    def voice(self, speaker: str) -> np.ndarray | None:
        """The embedding of `speaker`'s clips `[256]`, or None when it has none (a character
        voiced without a reference) or none holds speech."""
        if speaker not in self._voices:
            embeddings = [embed(*read_clip(path)) for path in self.clips.get(speaker, [])]
            self._voices[speaker] = voice_embedding(embeddings)
        return self._voices[speaker]


def voice_clips(script) -> dict[str, list[Path]]:
    """Each cast member's reference clip files (resolved against the script's folder), for the
    members that have any."""
    base = Path(script.base_dir)
    return {
        name: [base / clip.path for clip in member.references]
        for name, member in script.cast.items()
        if member.references
    }


def voice_result(
    score: float | None, min_similarity: float, voiced_s: float = MIN_JUDGED_S
) -> CheckResult:
    """The voice check's result for a similarity (None: not measurable) measured on `voiced_s`
    seconds of speech: a score under `min_similarity` fails as `degraded` (the take is usable
    but marked for review, and retried while retries remain); a take or voice without speech
    to compare, or a take under `MIN_JUDGED_S` of speech, passes, saying so."""
    if score is None:
        return CheckResult(
            "voice", True, float("nan"), min_similarity, "similarity", DEGRADED, "not measured"
        )
    if voiced_s < MIN_JUDGED_S:
        return CheckResult(
            "voice", True, score, min_similarity, "similarity", DEGRADED, "too short to judge"
        )
    passed = score >= min_similarity
    message = "" if passed else f"similarity {score:.2f} under {min_similarity:.2f}"
    return CheckResult("voice", passed, score, min_similarity, "similarity", DEGRADED, message)


def voice_fields(score: float | None, min_similarity: float, voiced_s: float) -> dict:
    """The take record's `voice` field: similarity, threshold, seconds of speech and model."""
    return {
        "voice": {
            "similarity": score,
            "threshold": min_similarity,
            "voiced_s": voiced_s,
            "model": MODEL_NAME,
        }
    }


def voice_take_check(script, min_similarity: float = DEFAULT_MIN_SIMILARITY):
    """The voice check as an extra take check for a render: a callable `(text, audio, speaker)
    -> (CheckResult, record fields)` scoring a take against `speaker`'s reference clips in
    `script`. Raises QcUnavailableError at once when the `qc` extra is missing."""
    require_voice()
    voices = ReferenceVoices(voice_clips(script))

    def check(text: str, audio: np.ndarray, speaker: str | None = None):
        embedding, voiced_s = embed_voiced(audio)
        score = similarity(embedding, voices.voice(speaker)) if speaker else None
        result = voice_result(score, min_similarity, voiced_s)
        return result, voice_fields(score, min_similarity, voiced_s)

    return check
