"""The naturalness estimate: a take's mean opinion score predicted by DNSMOS.

DNSMOS (Microsoft's deep noise suppression MOS predictor, ITU-T P.835 and P.808 heads) runs
through the `speechmos` package, whose wheel ships the ONNX models (9 MB), on onnxruntime on the
CPU: nothing is downloaded. It predicts, on a 1 to 5 scale, the overall quality (`ovrl`), the
speech signal (`sig`), the background (`bak`) and the P.808 score (`p808`) of 16 kHz speech in
9-second windows (a shorter take is repeated to fill one). The score is shown beside the voice
match; a take fails on it only when the producer sets a floor (`--min-quality`).

Measured on the example casts (docs/guide/qc.md "Naturalness"): a clean reference clip scores
`ovrl` 3.30; the same clip under white noise at 20 dB SNR 2.65, at 10 dB 2.06.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np
import soxr

from drama_cli.errors import QcUnavailableError
from drama_cli.qc.signal import DEGRADED, CheckResult
from drama_cli.qc.voice import INSTALL_HINT
from engine.constants import SAMPLE_RATE

MOS_RATE = 16_000  # Hz, DNSMOS's input rate
MODEL_NAME = "dnsmos-p835"
MIN_SCORED_S = 0.25  # shorter audio has no score


def require_quality() -> None:
    """Raise QcUnavailableError, naming the install command, when `speechmos` or onnxruntime
    (the `qc` extra) is missing."""
    for package in ("speechmos", "onnxruntime", "librosa"):
        if importlib.util.find_spec(package) is None:
            raise QcUnavailableError(f"the quality estimate needs {package}; {INSTALL_HINT}")


@functools.lru_cache(maxsize=1)
def _predictor():
    require_quality()
    # optional: onnxruntime and speechmos (the qc extra), checked by require_quality
    import onnxruntime
    from speechmos import dnsmos

    folder = Path(dnsmos.__file__).parent / "dnsmos_models"
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # one core per predictor; `drama qc` runs one per worker
    options.inter_op_num_threads = 1

    class OneCoreDnsmos(dnsmos.DNSMOS):
        """speechmos' DNSMOS with sessions held to one thread."""

        def __init__(self) -> None:
            self.primary_model_path = str(folder / "sig_bak_ovr.onnx")
            self.onnx_sess = onnxruntime.InferenceSession(
                self.primary_model_path, options, providers=["CPUExecutionProvider"]
            )
            self.p808_onnx_sess = onnxruntime.InferenceSession(
                str(folder / "model_v8.onnx"), options, providers=["CPUExecutionProvider"]
            )

    return OneCoreDnsmos()


def naturalness(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> dict | None:
    """DNSMOS scores of float32 mono `audio` `[samples]` at `sample_rate` Hz:
    `{"ovrl", "sig", "bak", "p808"}` (1 to 5, 3 decimals), or None for audio under
    `MIN_SCORED_S` or without signal. Raises QcUnavailableError when the `qc` extra is missing."""
    model = _predictor()
    audio = np.asarray(audio, dtype=np.float32)
    if audio.size < MIN_SCORED_S * sample_rate or not np.isfinite(audio).all():
        return None
    if not np.abs(audio).max() > 0:
        return None
    if sample_rate != MOS_RATE:
        audio = soxr.resample(audio, sample_rate, MOS_RATE).astype(np.float32)
    scores = model(np.clip(audio, -1.0, 1.0), MOS_RATE, False)
    return {
        "ovrl": round(float(scores["ovrl_mos"]), 3),
        "sig": round(float(scores["sig_mos"]), 3),
        "bak": round(float(scores["bak_mos"]), 3),
        "p808": round(float(scores["p808_mos"]), 3),
    }


def quality_result(scores: dict | None, min_quality: float | None) -> CheckResult:
    """The quality check's result: without a floor (`min_quality` None) it always passes; with
    one, an overall score under it fails as `degraded`."""
    value = float("nan") if scores is None else scores["ovrl"]
    limit = float("nan") if min_quality is None else min_quality
    passed = min_quality is None or scores is None or value >= min_quality
    message = "" if passed else f"naturalness {value:.2f} under {min_quality:.2f}"
    return CheckResult("quality", passed, value, limit, "mos", DEGRADED, message)


def quality_fields(scores: dict | None, min_quality: float | None) -> dict:
    """The take record's `quality` field: the DNSMOS scores (None when not scored), the floor
    and the model."""
    return {"quality": {**(scores or {"ovrl": None}), "floor": min_quality, "model": MODEL_NAME}}


def quality_take_check(min_quality: float | None = None):
    """The naturalness estimate as an extra take check for a render: a callable `(text, audio,
    speaker) -> (CheckResult, record fields)`. Raises QcUnavailableError at once when the `qc`
    extra is missing."""
    require_quality()

    def check(text: str, audio: np.ndarray, speaker: str | None = None):
        scores = naturalness(audio)
        return quality_result(scores, min_quality), quality_fields(scores, min_quality)

    return check
