"""`drama check --numbers`: every number expression of the script's lines, where it is written,
what will be said, and what is left as written; and the warning for digits in a line whose
language has no number rules.

The expressions come from the normaliser, passed in by the caller (`Expressions`: text and
language label -> the expressions, None for a language without rules), as the script stage does
not import the compile stage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from drama_cli.errors import SourcePosition
from drama_cli.script.document import Script, Warning_
from drama_cli.script.lexicon import language_code, line_matches, text_language
from drama_cli.script.unknown_words import source_position, source_rows

Expressions = Callable[[str, str], "list | None"]


@dataclass(frozen=True)
class NumberRow:
    """One number expression of a line: `written` as in the script, `said` (None: left as
    written, `why` says why), the `form` that said it, the `language` it is said in, the `line`
    id and the `position` where it is written."""

    written: str
    said: str | None
    why: str
    form: str
    language: str
    line: str
    position: SourcePosition | None

    def to_json(self) -> dict:
        """The row as JSON data; `position` as `file:line:col` text."""
        return {
            "written": self.written,
            "said": self.said,
            "left_as_written": self.said is None,
            "why": self.why or None,
            "form": self.form,
            "language": self.language,
            "line": self.line,
            "position": str(self.position) if self.position else None,
        }


def number_rows(
    script: Script, expressions: Expressions, listed: bool = True
) -> tuple[list[NumberRow], list[Warning_]]:
    """The number expressions of every line whose normalisation is on, in script order (only
    those of text with digits unless `listed`), and one warning per line with digits in a
    language that has no number rules."""
    rows: list[NumberRow] = []
    warnings: list[Warning_] = []
    source = source_rows(script)
    for line in script.lines():
        if not (script.normalize and line.normalize):
            continue
        covered = [(id(span), m.start, m.end) for span, m in line_matches(script, line)]
        speaker, unsupported = line.speaker, []
        for span in line.spans:
            if span.kind == "switch":
                speaker = span.value
            if span.kind != "text" or not (listed or re.search(r"\d", span.text)):
                continue
            language = text_language(script, speaker, span.text, line.lang)
            found = expressions(span.text, language)
            if found is None:
                if re.search(r"\d", span.text):
                    unsupported.append(language_code(language) or language)
                continue
            for expression in found:
                if any(
                    key == id(span) and a < expression.end and expression.start < b
                    for key, a, b in covered
                ):
                    continue
                where = source_position(
                    source, line, expression.written, span.column + expression.start
                )
                rows.append(
                    NumberRow(
                        expression.written,
                        expression.said,
                        expression.why,
                        expression.form,
                        language,
                        line.id,
                        where,
                    )
                )
        for language in dict.fromkeys(unsupported):
            warnings.append(
                Warning_(
                    f"line {line.id}: digits in a {language} line are sent as written: "
                    f"number rules cover English, German, French and Spanish",
                    line.position,
                )
            )
    return rows, warnings
