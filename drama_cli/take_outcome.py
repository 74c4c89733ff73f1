"""How new takes of a line came out, for the commands that make them (`drama revise`,
`drama edit`): the failed checks of a take and the exit code of the command."""

from __future__ import annotations

from drama_cli.errors import EXIT_CHECKS_FAILED, EXIT_DEGRADED, EXIT_OK


def failed_checks(record: dict) -> list[str]:
    """`name: message` of every failed check in a take record (the splice's long-silence flag
    of an edit included)."""
    results = (record.get("checks") or {}).get("checks") or []
    failed = [f"{r.get('name')}: {r.get('message')}" for r in results if not r.get("passed", True)]
    if (record.get("edit") or {}).get("flagged"):
        failed.append("splice: long silence in the edit")
    return failed


def takes_exit_code(takes: list[dict]) -> int:
    """0 when one of the new takes (dicts with a `status`) passed its checks (or there are
    none), else 3 when one is usable (degraded), else 1 (every new take unusable): the exit
    codes of `drama render`."""
    statuses = {t.get("status", "ok") for t in takes}
    if "ok" in statuses or not statuses:
        return EXIT_OK
    return EXIT_DEGRADED if "degraded" in statuses else EXIT_CHECKS_FAILED


def edit_exit_code(summary: dict) -> int:
    """`takes_exit_code` of a summary's `takes` (a revise or edit summary)."""
    return takes_exit_code(summary.get("takes", []))
