"""The exception report of a `drama qc` run: one row per line that needs attention, most severe
first, as a static HTML page (`qc-report.html`: the reason, the scores, a player for the take
and for the character's reference clip, a link into the studio) and a CSV (`qc-report.csv`).

A book's report (`drama book --qc`, `chapters` given) has a chapter column and lists the rows
chapter by chapter, the most severe first within each: one page and one table for the whole
book, in the order a producer listens.

Every piece of text from the script or the takes is HTML-escaped; file links are relative to
the report's folder when they lie under it, percent-encoded either way.
"""

from __future__ import annotations

import csv
import html
import io
import os
from pathlib import Path
from urllib.parse import quote, urlencode

from drama_cli.qc.project_qc import QcRun
from engine.files import write_bytes_atomic

HTML_NAME = "qc-report.html"
CSV_NAME = "qc-report.csv"
CSV_COLUMNS = (
    "severity",
    "scene",
    "line",
    "speaker",
    "take",
    "similarity",
    "mos",
    "wer",
    "reason",
    "text",
)
STUDIO_URL = "http://127.0.0.1:8765/"  # `drama studio`'s default address

_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 0.4em; text-align: left; vertical-align: top; }
tr.unusable td.severity { color: #b00020; font-weight: bold; }
tr.review td.severity { color: #a15c00; font-weight: bold; }
td.score { font-variant-numeric: tabular-nums; white-space: nowrap; }
audio { width: 14em; }
""".strip()


def _score(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _link(path: str | None, folder: Path) -> str | None:
    if not path:
        return None
    target = Path(path).resolve()
    try:
        relative = os.path.relpath(target, folder.resolve())
    except ValueError:  # another drive
        return target.as_uri()
    return quote(Path(relative).as_posix())


def studio_link(scene_id: str, line_id: str, base: str = STUDIO_URL) -> str:
    """The studio's address that opens a line (`#scene=…&line=…`)."""
    return f"{base}#{urlencode({'scene': scene_id, 'line': line_id})}"


def _rows(run: QcRun, chapters: dict | None) -> list:
    """The lines that need attention, most severe first; with `chapters` (scene id: (number,
    title)) chapter by chapter, the most severe first within each."""
    rows = run.attention
    if chapters:
        rows = sorted(rows, key=lambda line: chapters.get(line.scene_id, (0, ""))[0])
    return rows


def _chapter(line, chapters: dict | None) -> tuple:
    return (chapters or {}).get(line.scene_id, ("", ""))


def report_html(
    run: QcRun, folder: Path, title: str, studio: str = STUDIO_URL, chapters: dict | None = None
) -> str:
    """The report page for `run`, its links relative to `folder` (where it is written); with
    `chapters` (scene id: (number, title)), a chapter column, rows chapter by chapter."""
    rows = _rows(run, chapters)
    esc = html.escape
    body = []
    for line in rows:
        take = _link(line.wav, folder)
        refs = [_link(ref, folder) for ref in line.references]
        take_player = (
            f'<audio controls preload="none" src="{esc(take)}"></audio>' if take else "no take"
        )
        ref_player = " ".join(
            f'<audio controls preload="none" src="{esc(ref)}"></audio>' for ref in refs if ref
        )
        number, name = _chapter(line, chapters)
        chapter_cell = f'<td class="chapter">{esc(f"{number} {name}".strip())}</td>'
        body.append(
            f'<tr class="{esc(line.severity)}" data-scene="{esc(line.scene_id)}"'
            f' data-line="{esc(line.line_id)}">'
            f"{chapter_cell if chapters else ''}"
            f'<td class="severity">{esc(line.severity)}</td>'
            f"<td>{esc(line.scene_id)}<br>{esc(line.line_id)}</td>"
            f"<td>{esc(line.speaker)}</td>"
            f"<td>{esc(line.text)}</td>"
            f'<td class="reason">{"<br>".join(esc(f) for f in line.failures)}</td>'
            f'<td class="score">{_score(line.similarity)}</td>'
            f'<td class="score">{_score(line.mos)}</td>'
            f'<td class="score">{_score(line.wer)}</td>'
            f"<td>{take_player}</td><td>{ref_player}</td>"
            f'<td><a href="{esc(studio_link(line.scene_id, line.line_id, studio))}">studio</a></td>'
            "</tr>"
        )
    summary = (
        f"{len(rows)} of {len(run.lines)} lines need attention; checks: {', '.join(run.checks)}"
    )
    empty = "" if rows else "<p>Every line passed its checks.</p>"
    return (
        "<!doctype html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        f"<style>{_STYLE}</style></head><body>"
        f'<h1>{esc(title)}</h1><p id="summary">{esc(summary)}</p>{empty}'
        '<table id="exceptions"><thead><tr>'
        + ("<th>chapter</th>" if chapters else "")
        + "<th>severity</th><th>scene / line</th>"
        "<th>speaker</th><th>text</th><th>reason</th><th>voice</th><th>MOS</th><th>WER</th>"
        "<th>take</th><th>reference</th><th></th></tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table></body></html>\n"
    )


def report_csv(run: QcRun, chapters: dict | None = None) -> str:
    """The report's rows as CSV (`CSV_COLUMNS`), most severe first; with `chapters` (scene id:
    (number, title)) a first `chapter` column (the number), rows chapter by chapter."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((["chapter"] if chapters else []) + list(CSV_COLUMNS))
    for line in _rows(run, chapters):
        row = line.to_dict()
        writer.writerow(
            ([_chapter(line, chapters)[0]] if chapters else [])
            + [
                row["severity"],
                row["scene"],
                row["line"],
                row["speaker"],
                row["take"] if row["take"] is not None else "",
                _score(row["similarity"], 4),
                _score(row["mos"], 3),
                _score(row["wer"], 4),
                row["reason"],
                row["text"],
            ]
        )
    return out.getvalue()


def write_report(
    run: QcRun, folder: Path, title: str, chapters: dict | None = None
) -> tuple[Path, Path]:
    """Write `qc-report.html` and `qc-report.csv` into `folder` (atomic each); their paths.
    chapters: scene id: (number, title), for a book's report (`report_html`)."""
    folder.mkdir(parents=True, exist_ok=True)
    page, table = folder / HTML_NAME, folder / CSV_NAME
    html_text = report_html(run, folder, title, chapters=chapters)
    write_bytes_atomic(page, html_text.encode("utf-8"))
    write_bytes_atomic(table, report_csv(run, chapters).encode("utf-8"))
    return page, table


def report_json(run: QcRun) -> dict:
    """`drama qc --json`: the run's counts and timing, and every row of the report."""
    return {
        "checks": list(run.checks),
        "lines": len(run.lines),
        "attention": [line.to_dict() for line in run.attention],
        "measured": run.measured,
        "cached": run.cached,
        "workers": run.workers,
        "seconds": round(run.seconds, 3),
    }
