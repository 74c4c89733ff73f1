"""Checks on finished takes shared by every backend: signal checks, speech recognition, and the
judgement of a take (stop reasons, record fields, failed checks)."""
