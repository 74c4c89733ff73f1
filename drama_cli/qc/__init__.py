"""Checks on finished takes shared by every backend: signal checks and speech recognition."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "asr": ["asr_check", "transcribe"],
    "signal": ["CheckReport", "check_take"],
})
