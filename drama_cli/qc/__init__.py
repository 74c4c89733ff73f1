"""Checks on finished takes shared by every backend: signal checks, speech recognition, and the
judgement of a take (stop reasons, record fields, failed checks)."""

from drama_cli import public_names

__all__, __getattr__ = public_names(__name__, {
    "asr": ["asr_check", "transcribe"],
    "signal": ["CheckReport", "check_take"],
    "take_checks": ["check_generation", "failed_checks"],
})
