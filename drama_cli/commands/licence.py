"""What `drama` tells a producer about the model's licence: the short summary `model pull`
shows before it asks for acceptance, the acceptance itself, the rows `model info` prints, and
the one-line notice of a render with a folder whose licence was never accepted (once per
project). The licence facts come from the folder (`drama_cli.backends.model_licence`); the summary is ours and
describes only the licence it names."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import typer

from drama_cli.backends import registry
from drama_cli.backends.model_licence import (
    FolderLicence,
    read_folder_licence,
    record_acceptance,
    slug,
)
from drama_cli.errors import UsageError
from engine.files import write_text_atomic

SUMMARISED = "fish-audio-community-license"  # the licence SUMMARY describes, as `model_licence.slug` gives it
SUMMARY = (
    "research and non-commercial use are free of charge;",
    "commercial use is free only while you and your affiliates have less than USD 500,000 of "
    "gross annual revenue; above that you need a licence from Fish Audio;",
    "offering the model as a hosted speech service for others needs a separate licence, at any revenue;",
    "no cloning or imitating an identifiable person's voice without their consent;",
    "no removing watermarks;",
    "no using the model or its outputs to train other speech or foundation models;",
    "what you distribute carries a notice file with the licence's notice text and the words "
    '"Built with Fish Audio".',
)
NOTICE_MARKER = ".license-notice"  # in a project folder: the render notice was shown there


def summary_lines(licence: FolderLicence) -> list[str]:
    """The licence as `model pull` shows it: its name and full-text path, our summary when the
    LICENSE is the licence it describes (else a line saying to read it in full), and each way
    the README front matter disagrees with it."""
    lines = [
        f"licence: {licence.title or 'untitled'}"
        + (f" ({licence.dated})" if licence.dated else ""),
        f"full text: {licence.licence_file}",
    ]
    if licence.title and slug(licence.title).startswith(SUMMARISED):
        lines.append("in short (the LICENSE file is what binds; this is drama's summary):")
        lines += [f"  - {item}" for item in SUMMARY]
    else:
        lines.append("drama has no summary of this licence: read the full text")
    lines += [f"note: {text}" for text in licence.disagreements]
    return lines


def acceptance_text(licence: FolderLicence) -> str:
    """One line: when and how the folder's LICENSE was accepted, or that it was not (and how to)."""
    record = licence.acceptance()
    if licence.licence_file is None:
        return "nothing to accept: the folder has no LICENSE"
    if licence.accepted():
        return f"accepted {record.get('accepted_at')} (revision {record.get('revision')}, {record.get('how')})"
    if record:
        return (
            f"accepted {record.get('accepted_at')} for another LICENSE (its SHA-256 differs): "
            f"run `drama model accept-license {licence.folder}`"
        )
    return f"not accepted: run `drama model accept-license {licence.folder}`"


def settle_acceptance(
    licence: FolderLicence,
    revision: str,
    accept: bool,
    what: str,
    ask: Callable[[str], bool] | None = None,
) -> dict | None:
    """Make sure the folder's LICENSE is accepted before the weights come: nothing to do when
    it already is, a note on stderr when there is no LICENSE; else print the summary on stderr and record the
    acceptance given by `accept` (`--accept-license`) or by `ask` (a yes on a terminal).

    what: the model named in messages (`fishaudio/drama-3@REV`). Returns the new record, or
    None when none was written. Raises UsageError (exit 2) when it is not accepted."""
    if licence.licence_file is None:
        print(
            f"drama: note: {what} has no LICENSE file; there is no licence to accept",
            file=sys.stderr,
        )
        return None
    if licence.accepted():
        return None
    for line in summary_lines(licence):
        print(line, file=sys.stderr)
    if accept:
        return record_acceptance(licence, revision, "--accept-license")
    if ask is not None and ask(f"Accept the licence of {what}?"):
        return record_acceptance(licence, revision, "answered yes on a terminal")
    raise UsageError(
        f"the licence of {what} is not accepted: read {licence.licence_file}, then run "
        "again with --accept-license (nothing else was downloaded)"
    )


def terminal_question() -> Callable[[str], bool] | None:
    """A yes/no question on the terminal (default no), or None when stdin or stderr is not one."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    return lambda question: typer.confirm(question, default=False, err=True)


def notice_once_per_project(
    project: Path, model_folder: Path | None, notice: Callable[[str], None]
) -> bool:
    """Before a render with `model_folder`: when its LICENSE was never accepted, pass one line
    to `notice`, once per project folder (a `NOTICE_MARKER` file there remembers it). Returns
    whether the notice was given."""
    if model_folder is None:
        return False
    licence = read_folder_licence(model_folder)
    marker = Path(project) / NOTICE_MARKER
    if licence.licence_file is None or licence.accepted() or marker.exists():
        return False
    notice(
        f"the licence of the model in {model_folder} was never accepted: read its LICENSE and run "
        f"`drama model accept-license {model_folder}` (shown once per project)"
    )
    write_text_atomic(marker, f"{licence.sha256}\n")
    return True


def notice_before_render(
    project: Path, engine_name: str, model: str | None, notice: Callable[[str], None]
) -> bool:
    """`notice_once_per_project` for a render with the engine named `engine_name` and the
    `--model` flag `model`: only the engines that run a Drama 3 model folder have one (found as
    `drama_cli.backends.registry.find_model` finds it on this machine; with `--cluster`, the
    folder the workers read when the cluster shares it). Returns whether a notice was given."""
    if (
        engine_name not in registry.backend_names()
        or not registry.backend_entry(engine_name).needs_model
    ):
        return False
    return notice_once_per_project(project, registry.find_model(model), notice)
