"""`NOTICE.txt` beside a book voiced with Drama 3: the credit the model's licence asks for, the
licence's own notice text (read from the model folder, never written here), and who voiced
what: each speaking cast member with the consent or voice source the cast records."""

from __future__ import annotations

NOTICE_NAME = "NOTICE.txt"
MISSING_NOTICE = (
    "The notice text of the model's licence could not be read from a model folder; "
    "copy it here from the LICENSE file that came with the model."
)


def notice_file_text(script, facts: dict, licence_notice: str | None) -> str:
    """The text of NOTICE.txt for a book of `script` whose takes have `facts`
    (`drama_cli.book.assemble.book_facts`: `credit`, `credited_engines`, `model_revisions`).
    licence_notice: the notice text from the model folder (`drama_cli.backends.model_licence`), or None."""
    revisions = ", ".join(facts.get("model_revisions") or ()) or "unknown"
    engines = ", ".join(facts.get("credited_engines") or ()) or "unknown"
    lines = [
        f"{facts['credit']}.",
        "",
        f"Voiced with the Drama 3 model (engine {engines}, model revision {revisions}).",
        "",
        "Notice of the model's licence:",
        licence_notice or MISSING_NOTICE,
        "",
        "Voices:",
    ]
    speaking = {name for line in script.lines() for name in line.speakers()}
    for member in script.cast.values():
        if member.name in speaking:
            lines.append(f"  {member.name}: {voice_line(member)}")
    return "\n".join(lines) + "\n"


def voice_line(member) -> str:
    """Where one cast member's voice comes from, in words: its consent or voice source, or
    that it has no reference clip (a voice of the model's own) or records neither."""
    parts = []
    if member.consent is not None:
        consent = member.consent
        parts.append(
            f"consent given by {consent.by} on {consent.on}"
            + (f" ({consent.note})" if consent.note else "")
        )
    if member.voice_source is not None:
        source = member.voice_source
        parts.append(f"voice source: {source.kind}" + (f" ({source.note})" if source.note else ""))
    if parts:
        return "; ".join(parts)
    if not member.references:
        return "no reference clip (a voice the model made up)"
    return "reference clip used; no consent or voice source recorded"
