"""The licence of a model folder: what its `LICENSE` and its README front matter say, the
attribution notice the licence asks distributors to pass on, and the user's recorded acceptance.

Facts this relies on are in docs/internals/model-licence.md: the released folder ships the
licence as `LICENSE`, its README front matter names another licence and links a file the
folder does not contain, and the licence quotes, in its distribution clause, the notice text
to put in a "Notice" file. Nothing here words or interprets the licence; the text comes from
the folder.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.files import file_sha256, write_text_atomic

LICENSE_FILE = "LICENSE"
README_FILE = "README.md"
NOTICE_FILES = ("NOTICE", "NOTICE.txt", "NOTICE.md")
ACCEPTANCE_FILE = "drama-license-acceptance.json"
FRONT_MATTER_KEYS = ("license", "license_name", "license_link")
# The notice quoted after the words "attribution notice" and a colon, in straight or curly quotes.
QUOTED_NOTICE = re.compile(
    r"attribution notice[^:]{0,200}:\s*[\"\u201c]([^\"\u201d]{10,600})[\"\u201d]",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class FolderLicence:
    """What a model folder says about its licence.

    licence_file: the folder's `LICENSE` (None when absent). sha256: hex digest of its bytes.
    title, dated: its first line and, when the second says a version or date, that line
    (Markdown marks removed). front_matter: `license`, `license_name` and `license_link` from
    the README's YAML front matter, as text (missing keys absent). disagreements: one sentence
    per way the README and the LICENSE differ. notice_text: the attribution notice quoted in
    the LICENSE, else the text of a NOTICE file in the folder, else None.
    """

    folder: Path
    licence_file: Path | None = None
    sha256: str | None = None
    title: str | None = None
    dated: str | None = None
    front_matter: dict[str, object] = field(default_factory=dict)
    disagreements: tuple[str, ...] = ()
    notice_text: str | None = None

    def acceptance(self) -> dict | None:
        """The acceptance record in the folder (`record_acceptance`), or None."""
        return read_acceptance(self.folder)

    def accepted(self) -> bool:
        """Whether the folder records an acceptance of this very LICENSE (same SHA-256)."""
        record = self.acceptance()
        return bool(record and self.sha256 and record.get("license_sha256") == self.sha256)

    def as_dict(self) -> dict:
        """Plain JSON data: the fields above (paths as text) plus `accepted` and `acceptance`."""
        return {
            "license_file": str(self.licence_file) if self.licence_file else None,
            "sha256": self.sha256,
            "title": self.title,
            "dated": self.dated,
            "readme_front_matter": dict(self.front_matter),
            "disagreements": list(self.disagreements),
            "notice_text": self.notice_text,
            "accepted": self.accepted(),
            "acceptance": self.acceptance(),
        }


def read_folder_licence(folder: str | Path) -> FolderLicence:
    """Read the licence facts of a model folder (a folder without any of the files gives a
    record of Nones). Never raises for unreadable or malformed files: they count as absent."""
    folder = Path(folder)
    licence_path = folder / LICENSE_FILE
    text = _read_text(licence_path)
    front = front_matter(_read_text(folder / README_FILE) or "")
    title, dated = _heading(text or "")
    licence = FolderLicence(
        folder,
        licence_path if text is not None else None,
        file_sha256(licence_path) if text is not None else None,
        title,
        dated,
        front,
    )
    return dataclasses.replace(
        licence,
        disagreements=tuple(_disagreements(licence)),
        notice_text=_notice(text or "", folder),
    )


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def front_matter(readme: str) -> dict:
    """The licence keys (`FRONT_MATTER_KEYS`) of a Markdown file's leading YAML block between
    `---` lines, as text; {} when there is none or it is not YAML."""
    import yaml  # lazy: yaml, 12 ms at start-up (drama --help loads this module)

    match = re.match(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(\r?\n|\Z)", readme, re.DOTALL)
    if match is None:
        return {}
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: str(data[key]) for key in FRONT_MATTER_KEYS if data.get(key) is not None}


def _plain(line: str) -> str:
    return re.sub(r"[#*_`]+", "", line).strip()


def _heading(text: str) -> tuple[str | None, str | None]:
    lines = [_plain(line) for line in text.splitlines() if _plain(line)]
    title = lines[0] if lines else None
    second = lines[1] if len(lines) > 1 else ""
    dated = second if re.search(r"version|updated|\b(19|20)\d\d\b", second, re.IGNORECASE) else None
    return title, dated


def slug(name: str) -> str:
    """`name` lower-cased with every run of other characters than letters and digits as one
    `-`, and a trailing `agreement` dropped: "FISH AUDIO COMMUNITY LICENSE AGREEMENT" and
    "fish-audio-community-license" give the same slug."""
    words = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return re.sub(r"-?agreement$", "", words)


def _disagreements(licence: FolderLicence) -> list[str]:
    found = []
    name, link = licence.front_matter.get("license_name"), licence.front_matter.get("license_link")
    if licence.licence_file is None and (name or link):
        found.append(
            f"the README front matter names a licence but the folder has no {LICENSE_FILE} file"
        )
    if link and "://" not in link and not (licence.folder / link).is_file():
        found.append(f"the README front matter links {link}, which the folder does not contain")
    if name and licence.title and slug(name) != slug(licence.title):
        found.append(
            f"the README front matter names {name!r} but {LICENSE_FILE} is {licence.title!r}"
        )
    return found


def _notice(text: str, folder: Path) -> str | None:
    quoted = QUOTED_NOTICE.search(text)
    if quoted:
        return " ".join(quoted.group(1).split())
    for name in NOTICE_FILES:
        notice = _read_text(folder / name)
        if notice and notice.strip():
            return notice.strip()
    return None


def read_acceptance(folder: str | Path) -> dict | None:
    """The acceptance record of a model folder (`ACCEPTANCE_FILE`), or None when there is none
    or it cannot be read."""
    try:
        record = json.loads((Path(folder) / ACCEPTANCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def record_acceptance(
    licence: FolderLicence, revision: str, how: str, now: dt.datetime | None = None
) -> dict:
    """Write the acceptance of `licence` into its folder: the LICENSE's SHA-256, the time
    (UTC, ISO 8601), the model revision and `how` it was accepted (e.g. `--accept-license`).
    Returns the record. Raises ValueError when the folder has no LICENSE to accept."""
    if licence.sha256 is None:
        raise ValueError(f"{licence.folder} has no {LICENSE_FILE} to accept")
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    record = {
        "license_file": LICENSE_FILE,
        "license_sha256": licence.sha256,
        "license_title": licence.title,
        "accepted_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "revision": revision,
        "how": how,
    }
    write_text_atomic(licence.folder / ACCEPTANCE_FILE, json.dumps(record, indent=2) + "\n")
    return record
