"""Benchmark: how well `drama import --dialogue` gives each quote of a novel its speaker.

The development set is `tests/data/attribution/`: chapters of public-domain novels (`BOOK_*.txt`,
paragraphs separated by blank lines) with, beside each, a TSV of every quotation in order
(`speaker`, the quote's first words), attributed by hand. `-` marks a quotation nobody speaks
(a word cited, a sign); those are not counted. `characters.tsv` lists, per book, the other
names a character's lines may carry (`HOLMES`: `SHERLOCK HOLMES`, `MR. HOLMES`; a first-person
narrator's include `NARRATOR`, the key the import gives a narrator it cannot name).

Each book's chapters go through the import's attribution together (the whole book is what the
character list is learnt from). Every gold quotation is found in the imported lines by its
words, and counted by kind, which this script decides by itself from the text:

* `name tag`: a speech tag beside the quote names someone ("said Holmes", "the King returned");
* `pronoun tag`: the tag's subject is a pronoun ("he remarked", "said I");
* `no tag`: neither (a reply in an exchange, a quote after a beat of narration).

It prints, per kind and per book: quotes, coverage (given a speaker), precision (right among
those given one), accuracy (right among all), best two (the right speaker is the line's speaker
or its second candidate), and the characters spoken by more than one voice (one person split
into several cast keys).

    python bench/attribution.py                  # the table
    python bench/attribution.py --book holmes    # one book
    python bench/attribution.py --wrong          # every quote given the wrong speaker, or none
    python bench/attribution.py --min-confidence 0.6
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drama_cli.manuscript.attribution import AttributionOptions  # noqa: E402
from drama_cli.manuscript.imported import NARRATOR, ImportedChapter, Manuscript  # noqa: E402
from drama_cli.manuscript.plain_text import strip_markers  # noqa: E402
from drama_cli.manuscript.writer import chapter_scenes  # noqa: E402
from drama_cli.script.book import UNATTRIBUTED  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "attribution"
KINDS = ("name tag", "pronoun tag", "no tag")

# The scorer's own idea of a speech tag, kept apart from the importer's rules on purpose.
_VERB = (
    r"(?:said|says|say|asked|cried|replied|answered|returned|remarked|exclaimed|observed|"
    r"muttered|murmured|added|continued|began|went on|repeated|whispered|shouted|called|"
    r"interrupted|rejoined|retorted|resumed|inquired|enquired|demanded|responded|pursued|"
    r"persisted|protested|sighed|laughed|growled|groaned|screamed|yelled|roared|thought|"
    r"explained|declared|urged|insisted|suggested|admitted|concluded|stammered|faltered|"
    r"sobbed|gasped|snapped|sneered|hissed|cried out|put in|struck in|broke in|ventured|"
    r"panted|grumbled|observed|agreed|assented|corrected|chimed in|shrieked|bawled|drawled|"
    r"moaned|whimpered|cooed|breathed|pleaded|begged|sang|squeaked|piped|howled|mumbled)"
)
_PRONOUN = r"(?:he|she|I|they|we|it)"
_SUBJECT = (
    r"(?:[A-Z][\w’'.-]*(?:\s+[A-Z][\w’'.-]*){0,3}"
    r"|(?:the|his|her|my|our|their|a|an)\s+[\w’'-]+(?:\s+[\w’'-]+){0,2})"
)
_AFTER = re.compile(
    rf"^[\s,;:—–-]*(?:(?P<p1>{_PRONOUN})\s+(?:\w+ly\s+)?{_VERB}\b|{_VERB}\s+(?P<p2>{_PRONOUN})\b|"
    rf"(?P<n1>{_SUBJECT})\s+(?:\w+ly\s+)?{_VERB}\b|{_VERB}\s+(?P<n2>{_SUBJECT}))"
)
_BEFORE = re.compile(
    rf"(?:(?P<p1>\b{_PRONOUN})\s+(?:\w+ly\s+)?{_VERB}|(?P<n1>{_SUBJECT})\s+(?:\w+ly\s+)?{_VERB})"
    r"(?:\s+[\w’']+){0,4}[\s,:—–-]*$"
)
_QUOTE = re.compile(r"“([^”]*)(?:”|$)")


def paragraphs_of(text: str) -> list[str]:
    """A chapter file's paragraphs, each on one line."""
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def curly(paragraph: str) -> str:
    """Straight double quotes as curly ones: opening at the start or after a space or dash."""
    return re.sub(
        r'"',
        lambda m: "“" if m.start() == 0 or paragraph[m.start() - 1] in " (—-" else "”",
        paragraph,
    )


def quotes_of(paragraph: str) -> list[tuple[str, str, str]]:
    """(quote text, narration before it, narration after it) for each “…” of a paragraph (an
    unclosed one runs to the paragraph's end)."""
    found = list(_QUOTE.finditer(paragraph))
    out = []
    for i, match in enumerate(found):
        start = found[i - 1].end() if i else 0
        end = found[i + 1].start() if i + 1 < len(found) else len(paragraph)
        out.append((match.group(1), paragraph[start : match.start()], paragraph[match.end() : end]))
    return out


def kind_of(before: str, after: str) -> str:
    """`name tag`, `pronoun tag` or `no tag`, from the narration around a quote."""
    for pattern, text in ((_AFTER, after[:80]), (_BEFORE, before[-80:])):
        match = pattern.search(text)
        if match:
            groups = match.groupdict()
            return "pronoun tag" if groups.get("p1") or groups.get("p2") else "name tag"
    return "no tag"


def words(text: str) -> str:
    """Lower-case words and digits of a text, one space apart, for finding a quote in a line."""
    return " ".join(re.findall(r"[\w’']+", text.lower().replace("_", "")))


def load_characters() -> dict[tuple[str, str], set[str]]:
    """(book, canonical name) → the names a line of that character may carry."""
    forms: dict[tuple[str, str], set[str]] = {}
    for row in (DATA / "characters.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        if not row.strip():
            continue
        book, name, *others = row.split("\t")
        extra = {o.strip().upper() for o in (others[0].split("|") if others else []) if o.strip()}
        forms[(book, name)] = {name, *extra}
    return forms


def gold_of(book: str) -> list[tuple[Path, list[tuple[str, str, str, str]]]]:
    """Per chapter file of the book: [(speaker, kind, quote text, opening in the TSV)]."""
    out = []
    for path in sorted(DATA.glob(f"{book}_*.txt")):
        rows = path.with_suffix(".tsv").read_text(encoding="utf-8").splitlines()[1:]
        gold = [tuple(r.split("\t", 1)) for r in rows if r.strip()]
        quotes = [
            q for p in paragraphs_of(path.read_text(encoding="utf-8")) for q in quotes_of(curly(p))
        ]
        if len(gold) != len(quotes):
            sys.exit(f"{path.name}: {len(quotes)} quotes in the text, {len(gold)} in the TSV")
        chapter = []
        for (speaker, opening), (text, before, after) in zip(gold, quotes, strict=True):
            if not words(text).startswith(words(opening)):
                sys.exit(f"{path.name}: the TSV's {opening!r} is not the text's {text[:40]!r}")
            chapter.append((speaker, kind_of(before, after), text, opening))
        out.append((path, chapter))
    return out


def imported(paths: list[Path], options: AttributionOptions) -> tuple[list[list], float]:
    """The lines of each chapter as `drama import --dialogue` attributes them, and the time."""
    chapters = []
    for path in paths:
        left_out: Counter = Counter()
        paragraphs = [
            strip_markers(p, left_out) for p in paragraphs_of(path.read_text(encoding="utf-8"))
        ]
        chapters.append(ImportedChapter(path.stem, paragraphs))
    manuscript = Manuscript(paths[0].stem.split("_")[0], None, chapters)
    start = time.perf_counter()
    result = chapter_scenes(manuscript, True, options)
    elapsed = time.perf_counter() - start
    return [[line for _, lines in scenes for line in lines] for _, scenes, _ in result], elapsed


def find_speaker(lines: list, cursor: int, text: str) -> tuple[str | None, list[str], int]:
    """The speaker of the imported line holding the quote's first words (None when it is a
    narrator's line or UNATTRIBUTED), its candidates, and where the next search starts."""
    probe = " ".join(words(text).split()[:6])
    if not probe:
        return None, [], cursor
    window = range(cursor, min(len(lines), cursor + 40))
    starts = [i for i in window if words(lines[i].text).startswith(probe)]
    for index in starts[:1] or [i for i in window if probe in words(lines[i].text)]:
        line = lines[index]
        narration = line.speaker == NARRATOR and not line.rule  # a narrator's quote has a rule
        found = None if line.speaker in (None, UNATTRIBUTED) or narration else line.speaker
        return found, [who for who, _ in getattr(line, "candidates", None) or []], index
    return None, [], cursor


def score(books: list[str], options_of, show_wrong: bool) -> None:
    """Print the table for `books`."""
    forms = load_characters()
    totals: dict[str, Counter] = defaultdict(Counter)
    voices: dict[tuple[str, str], set[str]] = defaultdict(set)
    timing = 0.0
    for book in books:
        gold = gold_of(book)
        chapters, elapsed = imported([path for path, _ in gold], options_of())
        timing += elapsed
        for (path, quotes), lines in zip(gold, chapters, strict=True):
            cursor = 0
            for speaker, kind, text, opening in quotes:
                if speaker == "-":
                    continue
                predicted, candidates, cursor = find_speaker(lines, cursor, text)
                accepted = forms.get((book, speaker), {speaker})
                right = predicted is not None and predicted.upper() in accepted
                in_two = right or any(who.upper() in accepted for who in candidates)
                for key in (kind, "all", f"book {book}"):
                    totals[key]["quotes"] += 1
                    totals[key]["given"] += predicted is not None
                    totals[key]["right"] += right
                    totals[key]["in two"] += in_two
                if right:
                    voices[(book, speaker)].add(predicted.upper())
                if show_wrong and not right:
                    print(f"{path.stem}\t{kind}\t{speaker}\t{predicted}\t{opening}")
    print(f"{'':<16}{'quotes':>7}{'coverage':>10}{'precision':>11}{'accuracy':>10}{'best two':>10}")
    for key in (*KINDS, "all", *(f"book {b}" for b in books)):
        row = totals[key]
        if not row["quotes"]:
            continue
        coverage = row["given"] / row["quotes"]
        precision = row["right"] / row["given"] if row["given"] else 0.0
        accuracy = row["right"] / row["quotes"]
        in_two = row["in two"] / row["quotes"]
        print(
            f"{key:<16}{row['quotes']:>7}{coverage:>10.1%}{precision:>11.1%}{accuracy:>10.1%}"
            f"{in_two:>10.1%}"
        )
    split = {k: sorted(v) for k, v in voices.items() if len(v) > 1}
    print(f"characters spoken by more than one voice: {len(split)}")
    for (book, name), keys in sorted(split.items()):
        print(f"  {book} {name}: {', '.join(keys)}")
    print(f"attribution time: {timing:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--book", action="append", help="one book (the files' prefix); repeatable")
    parser.add_argument("--wrong", action="store_true", help="list every quote not right")
    parser.add_argument(
        "--min-confidence", type=float, default=0.0, help="as `drama import --min-confidence`"
    )
    args = parser.parse_args()
    books = args.book or sorted({p.stem.split("_")[0] for p in DATA.glob("*_*.txt")})
    score(books, lambda: AttributionOptions(min_confidence=args.min_confidence), args.wrong)


if __name__ == "__main__":
    main()
