"""Scorer: how many of the hand-made number cases (`tests/number_cases/`) are said right.

Each case is (class, genre, written, said); a case whose said equals its written is one that
must be left exactly as written. Prints, per language and per class, the cases said right, the
outputs that still hold a digit, and the half-converted ones (changed, yet holding a digit), then
each wrong case with what was said.

    python bench/number_cases.py              # every language
    python bench/number_cases.py --quiet      # the counts only

Recorded on the case set as first written (82 cases in English, German, French and Spanish),
before the table, garbled-form, identifier, separator, equation and heading rules and after:

    before   42 / 82 right, 24 wrong outputs with a digit, 1 half-converted
             (identifiers 2 / 19, equations 0 / 5, headings 4 / 9, ordinals 5 / 9, times 5 / 8)
    after    82 / 82 right, 0 wrong outputs with a digit, 0 half-converted
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from number_cases import de, en, es, fr  # noqa: E402

from drama_cli.compile.normalise import normalise_text  # noqa: E402

TABLES = {"en": en.ROWS, "de": de.ROWS, "fr": fr.ROWS, "es": es.ROWS}


def score(quiet: bool = False) -> dict[str, int]:
    """Says every case and prints the counts; returns the totals (cases, right, digits, half)."""
    totals: Counter = Counter()
    by_class: dict[str, Counter] = {}
    wrong: list[str] = []
    for language, rows in TABLES.items():
        for kind, _genre, written, said in rows:
            got = normalise_text(written, language)
            row = by_class.setdefault(kind, Counter())
            for counts in (totals, row):
                counts["cases"] += 1
                counts["right"] += got == said
                counts["digits"] += bool(re.search(r"\d", got)) and got != said
                counts["half"] += got != written and bool(re.search(r"\d", got))
            if got != said:
                wrong.append(
                    f"  {language}  {written!r}\n      said  {got!r}\n      want  {said!r}"
                )
    for kind, counts in sorted(by_class.items()):
        print(f"{kind:<11} {counts['right']:>3} / {counts['cases']:<3} right")
    print(
        f"total       {totals['right']:>3} / {totals['cases']:<3} right, "
        f"{totals['digits']} wrong outputs with a digit, {totals['half']} half-converted"
    )
    if not quiet and wrong:
        print("wrong:")
        print("\n".join(wrong))
    return dict(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quiet", action="store_true")
    score(parser.parse_args().quiet)


if __name__ == "__main__":
    main()
