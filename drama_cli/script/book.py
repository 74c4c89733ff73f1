"""Books: the `book:` block, chapters, credits and chapter headings read aloud.

A YAML script is a book when it has a `book:` block; a Fountain script when its title page
names a `Narrator:` (its other title-page keys fill the block). Chapters come from YAML
`chapters:` (a list, each holding its `scenes:`), from `chapter:` on a scene (scenes with the
same chapter title are joined, in order) or from Fountain `#` sections (`##` and deeper stay
structure); each `chapters:` entry and each `#` section is a chapter of its own, even when
another has the same title; a script without chapters is one chapter per scene.

`finish_book` runs once a script is read: it sets each scene's chapter, builds
`Script.chapters`, and for a book adds what the narrator speaks: opening and closing credits
(the producer's own lines, or lines made from the book block and marked `generated`) as the
scenes `opening-credits` and `closing-credits`, and each chapter's title at its start.
"""

from __future__ import annotations

from yaml.nodes import SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.direction import parse_directions
from drama_cli.script.document import Book, Chapter, Line, Scene, Script, Warning_
from drama_cli.script.yaml_scenes import read_lines, read_scene

BOOK_TEXT_KEYS = (
    "title",
    "subtitle",
    "author",
    "narrator",
    "publisher",
    "year",
    "language",
    "cover",
    "copyright",
)
BOOK_KEYS = (
    *BOOK_TEXT_KEYS,
    "opening_credits",
    "closing_credits",
    "chapter_headings",
    "credit_engine",
)
# What the Drama 3 licence asks delivered work to show (docs/internals/model-licence.md); also
# spoken in the generated closing credits with `credit_engine: true`.
ENGINE_CREDIT = "Built with Fish Audio"
CHAPTER_KEYS = ("title", "scenes")
CREDIT_CHOICES = ("generated", "none")
OPENING_ID, CLOSING_ID = "opening-credits", "closing-credits"
OPENING_TITLE, CLOSING_TITLE = "Opening Credits", "Closing Credits"
HEADING_PAUSE_S = 1.5  # silence after a chapter title read aloud, seconds
# The placeholder speaker `drama import --dialogue` gives a quote without a speech tag: each of
# its lines is a warning at the line, for the producer to give it its speaker.
UNATTRIBUTED = "UNATTRIBUTED"
# Fountain title-page keys that fill the book block (lower case) -> Book field.
TITLE_PAGE_FIELDS = {
    "title": "title",
    "subtitle": "subtitle",
    "author": "author",
    "authors": "author",
    "narrator": "narrator",
    "publisher": "publisher",
    "year": "year",
    "language": "language",
    "cover": "cover",
    "copyright": "copyright",
}


def read_book_node(reader, node) -> Book:
    """The `book:` block of a YAML script (keys in BOOK_KEYS). `reader` is the YAML reader
    (`yaml_reader.YamlReader`). Raises ScriptError at the value for a bad key or value."""
    fields = reader.mapping(node, BOOK_KEYS, "the book block")
    book = Book(position=reader.at(node))
    for key in BOOK_TEXT_KEYS:
        if key in fields:
            value = reader.text(fields[key][1], key)
            setattr(book, key, " ".join(value.split()) if value and value.strip() else None)
    for key in ("opening_credits", "closing_credits"):
        if key in fields:
            _read_credits(reader, book, key, fields[key][1])
    if "chapter_headings" in fields:
        book.chapter_headings = reader.boolean(fields["chapter_headings"][1], "chapter_headings")
    if "credit_engine" in fields:
        book.credit_engine = reader.boolean(fields["credit_engine"][1], "credit_engine")
    return book


def _read_credits(reader, book: Book, key: str, node) -> None:
    if isinstance(node, SequenceNode):
        scene = Scene(
            id=OPENING_ID if key == "opening_credits" else CLOSING_ID, position=reader.at(node)
        )
        read_lines(reader, node, scene)
        setattr(book, key, "lines")
        setattr(book, key.replace("credits", "lines"), list(scene.elements))
        return
    value = reader.scalar(node, key).strip().lower()
    value = {"off": "none", "false": "none", "no": "none", "auto": "generated"}.get(value, value)
    if value not in CREDIT_CHOICES:
        raise reader.error(
            f"{key} must be 'generated', 'none' or a list of lines, got {value!r}",
            node,
            "write the credits as lines ('- NARRATOR: ...') or 'generated'",
        )
    setattr(book, key, value)


def read_chapters_node(reader, node, first_number: int = 1) -> list[Scene]:
    """The scenes of a YAML `chapters:` list, each scene's `chapter` set to its chapter's title.
    Scenes are numbered on from `first_number` (default ids `scene-N`). Raises ScriptError at
    the node for a chapter that is not a mapping with a title and scenes."""
    if not isinstance(node, SequenceNode):
        raise reader.error(
            "'chapters' must be a list of chapters",
            node,
            "start each chapter with '- title: ...' and give it 'scenes:'",
        )
    scenes: list[Scene] = []
    for entry, chapter_node in enumerate(node.value, start=1):
        fields = reader.mapping(chapter_node, CHAPTER_KEYS, "a chapter")
        if "title" not in fields:
            raise reader.error("this chapter has no title", chapter_node, "add 'title: Chapter 1'")
        title = " ".join((reader.text(fields["title"][1], "title") or "").split())
        if not title:
            raise reader.error("the chapter title is empty", fields["title"][1])
        if "scenes" not in fields or not isinstance(fields["scenes"][1], SequenceNode):
            where = fields["scenes"][1] if "scenes" in fields else chapter_node
            raise reader.error(
                f"chapter {title!r} needs a list of scenes",
                where,
                "give it 'scenes:' with '- id: ...' items",
            )
        if not fields["scenes"][1].value:
            raise reader.error(
                f"chapter {title!r} has no scenes",
                fields["scenes"][1],
                "give it at least one scene ('- lines: ...'), or remove the chapter",
            )
        for scene_node in fields["scenes"][1].value:
            with reader.problems.collect():
                scene = read_scene(reader, scene_node, first_number + len(scenes))
                scene.chapter, scene.chapter_entry = title, entry
                scenes.append(scene)
    return scenes


def book_from_title_page(title_page: dict[str, str], source: str) -> Book | None:
    """The book block of a Fountain script from its title page; None unless it names a
    `Narrator:` (the title page of a play stays a play). `Credits: none` leaves the credits
    out and `Chapter Headings: no` the headings."""
    keys = {key.strip().lower(): " ".join(value.split()) for key, value in title_page.items()}
    if "narrator" not in keys:
        return None
    book = Book(position=SourcePosition(source, 1, 1))
    for key, name in TITLE_PAGE_FIELDS.items():
        if keys.get(key) and getattr(book, name) is None:
            setattr(book, name, keys[key])
    if keys.get("credits", "").lower() in ("none", "no", "off"):
        book.opening_credits = book.closing_credits = "none"
    if keys.get("chapter headings", "").lower() in ("no", "off", "false", "none"):
        book.chapter_headings = False
    return book


def opening_credit_text(book: Book, fallback_title: str = "") -> str:
    """The generated opening credits: `<Title>[: <Subtitle>], written by <Author>, narrated by
    <Narrator>.` (parts the book block does not give are left out)."""
    title = book.title or fallback_title or "This book"
    text = f"{title}: {book.subtitle}" if book.subtitle else title
    if book.author:
        text += f", written by {book.author}"
    if book.narrator:
        text += f", narrated by {book.narrator}"
    return _sentence(text)


def closing_credit_texts(book: Book, fallback_title: str = "") -> list[str]:
    """The generated closing credits: `This has been <Title>, written by <Author>, narrated by
    <Narrator>.`, the copyright line when given, ENGINE_CREDIT with `credit_engine`, and `The end.`"""
    text = f"This has been {book.title or fallback_title or 'this book'}"
    if book.author:
        text += f", written by {book.author}"
    if book.narrator:
        text += f", narrated by {book.narrator}"
    texts = [_sentence(text)]
    if book.copyright:
        texts.append(_sentence(book.copyright))
    if book.credit_engine:
        texts.append(_sentence(ENGINE_CREDIT))
    return [*texts, "The end."]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def finish_book(script: Script) -> Script:
    """Set chapters and, for a book, add its credits and spoken chapter headings (in place).

    Fountain: `#` sections set the scenes' chapters, and a title page naming a narrator makes
    the book block. Every generated line is spoken by `script.narrator` and has
    `generated=True`. Raises ScriptError at the book block when a generated line is needed and
    the script names no narrator, or when a scene id the credits need is taken.
    """
    if script.format == "fountain":
        _fountain_chapters(script)
        if script.book is None:
            script.book = book_from_title_page(script.title_page, script.source)
    book = script.book
    body = list(script.scenes)
    groups = _chapter_groups(body)
    if book is not None:
        if book.title is None and script.title:
            book.title = script.title
        if book.chapter_headings:
            for title, scenes in groups:
                _add_heading(script, scenes[0], title)
        opening = _credits_scene(script, book, "opening")
        closing = _credits_scene(script, book, "closing")
        script.scenes = [*([opening] if opening else []), *body, *([closing] if closing else [])]
    chapters = []
    if book is not None and script.scenes and script.scenes[0].id == OPENING_ID:
        chapters.append(Chapter(0, OPENING_TITLE, [OPENING_ID], "opening"))
    first = len(chapters)  # chapters count from 1, after the opening credits (0)
    for index, (title, scenes) in enumerate(groups, start=1):
        chapters.append(
            Chapter(first + index - (1 if first else 0), title, [scene.id for scene in scenes])
        )
    if book is not None and script.scenes and script.scenes[-1].id == CLOSING_ID:
        chapters.append(
            Chapter(
                chapters[-1].number + 1 if chapters else 1, CLOSING_TITLE, [CLOSING_ID], "closing"
            )
        )
    script.chapters = chapters
    script.warnings += unattributed_warnings(script)
    return script


def unattributed_warnings(script: Script) -> list[Warning_]:
    """One warning per line spoken by UNATTRIBUTED, at the line, quoting its text."""
    return [
        Warning_(
            f"line {line.id} has no speaker yet ({UNATTRIBUTED}): {_excerpt(line.text)}; "
            "give it its speaker",
            line.position,
        )
        for scene in script.scenes
        for line in scene.lines
        if line.speaker == UNATTRIBUTED
    ]


def _excerpt(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return f'"{text}"' if len(text) <= limit else f'"{text[: limit - 1]}…"'


def _fountain_chapters(script: Script) -> None:
    """Scenes' chapters from `#` sections: a section before a scene's first line opens the
    chapter at that scene; one after it opens the chapter at the next scene."""
    current = pending = None
    sections = 0  # `#` sections so far: each one is a chapter of its own, whatever its title
    for scene in script.scenes:
        if pending is not None:
            current, pending = pending, None
        spoken = False
        for entry in scene.elements:
            if isinstance(entry, Line):
                spoken = True
            elif entry.kind == "section" and entry.depth == 1 and entry.text.strip():
                sections += 1
                title = (" ".join(entry.text.split()), sections)
                if spoken:
                    pending = title
                else:
                    current = title
        scene.chapter, scene.chapter_entry = current if current else (None, None)


def _chapter_groups(scenes: list[Scene]) -> list[tuple[str, list[Scene]]]:
    """(chapter title, its scenes) in order of first appearance; a scene without a chapter is a
    chapter of its own, titled by the scene's title (else its id). Scenes of one `chapters:`
    entry or Fountain `#` section (`chapter_entry`) form one chapter; only a scene's own
    `chapter:` joins scenes by title."""
    groups: dict[tuple, list[Scene]] = {}
    order: list[tuple[str, list[Scene]]] = []
    for scene in scenes:
        key = (
            ("entry", scene.chapter_entry)
            if scene.chapter_entry is not None
            else ("title", scene.chapter)
        )
        if scene.chapter is None:
            order.append((scene.title or scene.id, [scene]))
        elif key in groups:
            groups[key].append(scene)
        else:
            groups[key] = [scene]
            order.append((scene.chapter, groups[key]))
    return order


def _narrator(script: Script, what: str) -> str:
    if script.narrator:
        return script.narrator
    where = script.book.position if script.book else SourcePosition(script.source, 1, 1)
    raise ScriptError(
        f"{what} is spoken by the narrator, but the script names none",
        where,
        "add 'narrator: NAME' (a cast member), or turn it off in the book block "
        "(opening_credits: none, closing_credits: none, chapter_headings: false)",
    )


def _generated_line(script: Script, line_id: str, text: str, what: str) -> Line:
    speaker = _narrator(script, what)
    where = script.book.position if script.book else SourcePosition(script.source, 1, 1)
    line = Line(id=line_id, speaker=speaker, text=text, cue=speaker, position=where, generated=True)
    line.spans = parse_directions(text, where)
    return line


def _add_heading(script: Script, scene: Scene, title: str) -> None:
    line = _generated_line(script, f"{scene.id}-heading", _sentence(title), "a chapter heading")
    line.pause_after_s = HEADING_PAUSE_S
    _check_free_line_id(script, line.id)
    scene.lines.insert(0, line)
    scene.elements.insert(0, line)


def _credits_scene(script: Script, book: Book, which: str) -> Scene | None:
    mode = book.opening_credits if which == "opening" else book.closing_credits
    if mode == "none":
        return None
    scene_id = OPENING_ID if which == "opening" else CLOSING_ID
    if any(scene.id == scene_id for scene in script.scenes):
        raise ScriptError(
            f"scene id {scene_id!r} is kept for the book's credits",
            script.scene(scene_id).position,
            "give the scene another id",
        )
    title = OPENING_TITLE if which == "opening" else CLOSING_TITLE
    scene = Scene(id=scene_id, title=title, position=book.position)
    if mode == "lines":
        scene.elements = list(book.opening_lines if which == "opening" else book.closing_lines)
        scene.lines = [entry for entry in scene.elements if isinstance(entry, Line)]
        return scene
    fallback = script.title
    texts = (
        [opening_credit_text(book, fallback)]
        if which == "opening"
        else closing_credit_texts(book, fallback)
    )
    for number, text in enumerate(texts, start=1):
        line = _generated_line(script, f"{scene_id}-{number}", text, f"the {title.lower()}")
        _check_free_line_id(script, line.id)
        scene.lines.append(line)
        scene.elements.append(line)
    return scene


def _check_free_line_id(script: Script, line_id: str) -> None:
    for scene in script.scenes:
        for line in scene.lines:
            if line.id == line_id and not line.generated:
                raise ScriptError(
                    f"line id {line_id!r} is kept for the book's generated lines",
                    line.position,
                    "give the line another id",
                )
