"""The limits of the voice and quality checks, their defaults and their command-line checking:
the commands read these before the checks' models are loaded (numpy only)."""

from __future__ import annotations

import math

from drama_cli.errors import UsageError

# Between the scores of takes in their own voice and in voices 1.8 semitones or more away on
# the example casts; the figures are in `drama_cli.qc.voice` and docs/guide/qc.md.
DEFAULT_MIN_SIMILARITY = 0.80
MOS_RANGE = (1.0, 5.0)  # DNSMOS scores
# Shorter takes are scored but not failed on voice (`drama_cli.qc.voice.voice_result`): the
# encoder reads 1.6 s windows, and a word or two ("Bingley.", "Chapter Two.") scored 0.70 to
# 0.77 against its own character's clip.
MIN_JUDGED_S = 1.6


def check_qc_limits(min_similarity: float | None, min_quality: float | None) -> None:
    """UsageError for `--min-similarity` outside 0..1 or `--min-quality` outside 1..5."""
    if min_similarity is not None and not (
        math.isfinite(min_similarity) and 0.0 <= min_similarity <= 1.0
    ):
        raise UsageError(f"--min-similarity must be within 0..1, not {min_similarity}")
    if min_quality not in (None, 0) and not (
        math.isfinite(min_quality) and MOS_RANGE[0] <= min_quality <= MOS_RANGE[1]
    ):
        raise UsageError(
            f"--min-quality must be within 1..5 (a MOS), or 0 for none, not {min_quality}"
        )


def project_qc_limits(
    store, min_similarity: float | None = None, min_quality: float | None = None
) -> tuple[float, float | None]:
    """The voice and quality limits a command uses: those given (not None) over those saved in
    the project's `project.json` under "qc" (`qc_record`), the similarity defaulting to
    DEFAULT_MIN_SIMILARITY and the quality floor to none (a floor of 0 is none). Raises UsageError for a value out
    of range, a saved one naming the file."""
    check_qc_limits(min_similarity, min_quality)
    saved = store.project().get("qc") or {}
    try:
        for name in ("min_similarity", "min_quality"):
            value = saved.get(name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float))
            ):
                raise UsageError(f"{name} is not a number")
        check_qc_limits(saved.get("min_similarity"), saved.get("min_quality"))
    except UsageError as err:
        raise UsageError(
            f"{store.project_path}: saved qc settings: {err}; fix them there, or delete the "
            f'file\'s "qc" entry'
        ) from None
    if min_similarity is None:
        min_similarity = saved.get("min_similarity", DEFAULT_MIN_SIMILARITY)
    if min_quality is None:
        min_quality = saved.get("min_quality")
    if min_quality == 0:  # `--min-quality 0`: no floor (the score is shown only)
        min_quality = None
    return float(min_similarity), None if min_quality is None else float(min_quality)


def qc_record(min_similarity: float, min_quality: float | None) -> dict:
    """The form a project keeps its limits in (`project.json`, "qc"): the similarity when it
    is not the default, the quality floor when there is one."""
    record: dict = {}
    if min_similarity != DEFAULT_MIN_SIMILARITY:
        record["min_similarity"] = min_similarity
    if min_quality is not None:
        record["min_quality"] = min_quality
    return record


def save_qc_limits(store, min_similarity: float, min_quality: float | None) -> None:
    """Keep the limits in the project's `project.json` (an existing project only: a command
    that finds no project makes none)."""
    info = store.project()
    if not info:
        return
    record = qc_record(min_similarity, min_quality)
    if (info.get("qc") or {}) != record:
        info = {key: value for key, value in info.items() if key != "qc"}
        store.write_project({**info, "qc": record} if record else info)
