"""Reading YAML as written: the node reader shared by scripts, cast files, lexicons and books
(case Y1, Y3).

The file is composed to YAML nodes (`compose`), never constructed: every text field is taken
from the scalar's source string, so `no`, `Yes`, `Null`, `10:30` stay strings. A text value
written as an unquoted flow sequence (`text: [sighs]`) is taken as its exact source slice. A
value swallowed by a comment (`text: #1 rule`, YAML reads everything after ` #` as a comment)
is recovered from the source line and reported as a warning, so it is never silently empty.
"""

from __future__ import annotations

import difflib
import re

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from drama_cli.errors import ScriptError, SourcePosition
from drama_cli.script.characters import (
    BAD_IN_VALUE,
    INVISIBLE,
    character_error,
    invisible_warning,
    refuse_control_characters,
)
from drama_cli.script.document import DialogueNumbers, Warning_
from drama_cli.script.problems import Problems

QUOTE_HINT = 'put the value in double quotes, e.g. text: "[sighs] Fine."'
MIN_PAUSE_S = -10.0  # a negative pause overlaps the end of the line before
MAX_PAUSE_S = 60.0  # longer silences are a typo (99999 s wrote a 13 GB mix)


# a value that opens with `*word` (`- A: *Look out`): YAML reads the word as an alias
_ALIAS_TEXT = re.compile(r"^\s*(?:-\s+)?(?:[^\s:#*&!<][^:#]*:\s+)?(\*[^\s#].*?)\s*$")
_COMMENT_AFTER = re.compile(r"\s+(#[^\s#].*)$")  # `We are #1 here`: YAML's comment cuts the text


class YamlReader:
    """One YAML source being read; holds the text for positions and recovery."""

    def __init__(self, source: str, path: str, problems: Problems | None = None):
        self.source = source
        self.path = path
        self.problems = problems or Problems()
        self.lines = source.split("\n")
        self.warnings: list[Warning_] = []
        self.numbers = DialogueNumbers()

    def at(self, node: Node) -> SourcePosition:
        """1-based position of a node's first character."""
        return SourcePosition(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def text_start(self, node: Node) -> SourcePosition:
        """Position of the first character of a text value: after an opening quote, or on the
        first content line of a block scalar (`|`, `>`)."""
        where = self.at(node)
        style = getattr(node, "style", None)
        if style in ("'", '"'):
            return SourcePosition(where.file, where.line, where.column + 1)
        if style in ("|", ">") and node.start_mark.line + 1 < len(self.lines):
            content = self.lines[node.start_mark.line + 1]
            return SourcePosition(
                where.file, where.line + 1, len(content) - len(content.lstrip(" ")) + 1
            )
        return where

    def error(self, message: str, node: Node, hint: str | None = None) -> ScriptError:
        """A ScriptError located at `node`."""
        return ScriptError(message, self.at(node), hint)

    def mapping(
        self, node: Node, allowed: tuple[str, ...] | None, what: str
    ) -> dict[str, tuple[Node, Node]]:
        """Keys of a mapping node -> (key node, value node); duplicates and unknown keys raise.
        A YAML merge key (`<<: *base`, or a list of aliases) adds the keys of the mappings it
        names that the mapping does not set itself."""
        if not isinstance(node, MappingNode):
            raise self.error(f"{what} must be a mapping of keys to values", node)
        result: dict[str, tuple[Node, Node]] = {}
        merged: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                for base in (
                    value_node.value if isinstance(value_node, SequenceNode) else [value_node]
                ):
                    for key, pair in self.mapping(base, allowed, what).items():
                        merged.setdefault(key, pair)
                continue
            key = self.scalar(key_node, "key")
            if key in result:
                first = result[key][0].start_mark.line + 1
                raise self.error(
                    f"duplicate key {key!r} (first at line {first})",
                    key_node,
                    "keep one: each key may appear once in a mapping",
                )
            if allowed is not None and key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = (
                    f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(allowed)}"
                )
                raise self.error(f"unknown key {key!r} in {what}", key_node, hint)
            result[key] = (key_node, value_node)
        return {**merged, **result}

    def scalar(self, node: Node, what: str) -> str:
        """A scalar's exact source string; raises for lists and mappings."""
        if isinstance(node, ScalarNode):
            return node.value
        raise self.error(f"{what} must be a single value, not a list or mapping", node, QUOTE_HINT)

    def text(self, node: Node, what: str) -> str | None:
        """A text field as the exact source string (None when empty); see the module docstring."""
        if isinstance(node, ScalarNode):
            self._warn_tag_or_anchor(node, what)
            if node.value == "" and node.style is None:
                return self._recover_comment(node, what)
            if node.style is None:
                self._warn_cut_by_comment(node, what)
            self._warn_invisible(node, node.value)
            return node.value
        if isinstance(node, SequenceNode) and node.flow_style:
            text = self.source[node.start_mark.index : node.end_mark.index]
            self._warn_invisible(node, text)
            return text
        raise self.error(f"{what} must be text, not a list or mapping", node, QUOTE_HINT)

    def _warn_invisible(self, node: Node, text: str) -> None:
        """Warn at each invisible character of a text (`characters.INVISIBLE`), written in the
        file or as an escape (`"\\u202e"`), once per place."""
        if text.isascii():
            return
        seen = {(w.position.line, w.position.column) for w in self.warnings if w.position}
        for found in INVISIBLE.finditer(text):
            where = _character_position(node, found.group(), found.start(), self.source, self.path)
            if (where.line, where.column) not in seen:
                seen.add((where.line, where.column))
                self.warnings.append(invisible_warning(found.group(), where))

    def _warn_tag_or_anchor(self, node: ScalarNode, what: str) -> None:
        """Warn when a text opens with a word YAML reads as a tag (`!Look out`) or an anchor
        (`&Look out`): YAML drops the word, so the text would be sent without it. The warning
        is at the word and gives the value in double quotes."""
        start, end = node.start_mark.index, node.end_mark.index
        written = self.source[start:end]
        if not written or written[0] not in "!&":
            return
        word = written.split(None, 1)[0]
        kind = "a tag" if word[0] == "!" else "an anchor"
        quoted = double_quoted(" ".join(written.split()))
        self.warnings.append(
            Warning_(
                f"{what} starts with {word!r}, which YAML reads as {kind}, not a word: it would "
                f"be sent as {node.value!r} (write it in double quotes: {quoted})",
                self.at(node),
            )
        )

    def _recover_comment(self, node: Node, what: str) -> str | None:
        line = self.lines[node.start_mark.line]
        rest = line[node.start_mark.column :]
        match = re.search(r"(?:^|\s)(#.*)$", rest)
        if not match:
            return None
        recovered = match.group(1).rstrip()
        self.warnings.append(
            Warning_(
                f"{what} {recovered!r} starts with '#', which YAML reads as a comment; "
                "taken as the text (quote it to silence this warning)",
                self.at(node),
            )
        )
        return recovered

    def _warn_cut_by_comment(self, node: Node, what: str) -> None:
        """Warn when an unquoted text is followed on its row by `#` and a word (`We are #1 here`):
        YAML ends the text there, so the words after it are lost; a comment written `# ...` is
        taken as the writer's own."""
        end = node.end_mark
        if end.line >= len(self.lines):
            return
        match = _COMMENT_AFTER.match(self.lines[end.line][end.column :])
        if match:
            self.warnings.append(
                Warning_(
                    f"{what} {node.value!r} stops before {match.group(1).rstrip()!r}, which YAML reads as a "
                    "comment (quote the text to keep it, or write the comment as '# ...')",
                    self.at(node),
                )
            )

    def integer(self, node: Node, what: str) -> int:
        """A whole number from a scalar; raises ScriptError otherwise."""
        value = self.scalar(node, what)
        try:
            return int(value)
        except ValueError:
            raise self.error(f"{what} must be a whole number, got {value!r}", node) from None

    def seconds(self, node: Node, what: str, low: float = 0.0, high: float = MAX_PAUSE_S) -> float:
        """Seconds from `0.5`, `-0.5`, `0.5s` or `500ms`, within [low, high]; raises ScriptError
        for anything else."""
        value = self.scalar(node, what).strip().lower()
        match = re.fullmatch(r"([-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*(ms|s)?", value)
        if not match:
            example = "-0.5, 0.5s or 500ms" if low < 0 else "0.5, 0.5s or 500ms"
            raise self.error(f"{what} must be a duration like {example}, got {value!r}", node)
        number = float(match.group(1))
        number = number / 1000 if match.group(2) == "ms" else number
        if not low <= number <= high:
            raise self.error(
                f"{what} must be between {low:g} and {high:g} seconds, got {number:g}", node
            )
        return number

    def number(self, node: Node, what: str, low: float, high: float) -> float:
        """A decimal number within [low, high] (e.g. a level in dB); raises ScriptError otherwise."""
        value = self.scalar(node, what).strip().lower()
        value = value[:-2].strip() if value.endswith("db") else value
        try:
            number = float(value)
        except ValueError:
            raise self.error(f"{what} must be a number, got {value!r}", node) from None
        if not low <= number <= high:
            raise self.error(f"{what} must be between {low:g} and {high:g}, got {number:g}", node)
        return number

    def boolean(self, node: Node, what: str) -> bool:
        """true/yes/on or false/no/off; raises ScriptError otherwise."""
        value = self.scalar(node, what).strip().lower()
        if value in ("true", "yes", "on"):
            return True
        if value in ("false", "no", "off"):
            return False
        raise self.error(f"{what} must be true or false, got {value!r}", node)

    def string_list(self, node: Node, what: str) -> list[str]:
        """A list of strings, or one string (comma-separated for aliases)."""
        if isinstance(node, SequenceNode):
            return [self.scalar(item, what) for item in node.value]
        return [part.strip() for part in self.scalar(node, what).split(",") if part.strip()]


_TAB_INDENT = re.compile(
    r"^ *\t[^\n]*\S", re.MULTILINE
)  # a tab in the indentation of a line with text
# A backslash escape of a double-quoted scalar, read one after another (so `\\` is one escape).
_ESCAPE = re.compile(r"\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)
_NAMED_ESCAPES = {
    "0": "\x00",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    "N": "\x85",
    "L": "\u2028",
    "P": "\u2029",
}


def double_quoted(text: str) -> str:
    """`text` as a YAML double-quoted value (backslashes and quotes escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def compose(source: str, path: str) -> Node | None:
    """`yaml.compose` with tabs and YAML syntax errors turned into located ScriptErrors.

    A control character or lone surrogate is refused at its place, written in the file or as
    an escape of a double-quoted value (`"\\x07"`, `"\\ud800"`; `drama_cli.script.characters`).
    libyaml (`yaml.CSafeLoader`, when PyYAML has it) reads the script; only a script it refuses
    is read again by the pure-Python loader, whose messages and marks the errors are built from
    (it reads a 5 MB script about ten times slower)."""
    refuse_control_characters(source, path)
    root = _compose(source, path)
    _refuse_escaped_characters(root, source, path)
    return root


def _compose(source: str, path: str) -> Node | None:
    tab = _TAB_INDENT.search(source)
    if tab is not None:
        number = source.count("\n", 0, tab.start()) + 1
        column = tab.group().index("\t") + 1
        raise ScriptError(
            "tab in indentation",
            SourcePosition(path, number, column),
            "YAML indents with spaces: replace the tab with spaces",
        )
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None and not source.startswith("\ufeff"):  # libyaml counts marks after a BOM
        try:
            return _plain_styles(yaml.compose(source, Loader=fast))
        except (yaml.YAMLError, UnicodeError, RecursionError):
            pass  # read again below for the located message
    try:
        return yaml.compose(source, Loader=yaml.SafeLoader)
    except RecursionError:
        line, column = _deepest_point(source)
        raise ScriptError(
            "YAML nested too deeply to read",
            SourcePosition(path, line, column),
            "a script needs only a few levels: check the brackets and indentation from here",
        ) from None
    except yaml.MarkedYAMLError as err:
        if "quoted scalar" in (err.context or "") and err.context_mark is not None:
            mark = (
                err.context_mark
            )  # an unclosed quote: report where it opens, not where the file ends
            raise ScriptError(
                "unclosed quote",
                SourcePosition(path, mark.line + 1, mark.column + 1),
                f"close it with {source[mark.index]} on the same value",
            ) from None
        mark = err.problem_mark or err.context_mark
        where = (
            SourcePosition(path, mark.line + 1, mark.column + 1)
            if mark
            else SourcePosition(path, 1, 1)
        )
        problem = err.problem or err.context or "unreadable YAML"
        hint = (
            "replace the tab with spaces"
            if "\\t" in problem or "\t" in problem
            else (
                QUOTE_HINT
                + "; values that start with [ { * & ! @ ` % or hold ': ' or ' #' need quotes"
            )
        )
        if mark is not None and (alias := _ALIAS_TEXT.match(source.split("\n")[mark.line])):
            hint = f"write it in double quotes: {double_quoted(alias.group(1))}"
        raise ScriptError(f"YAML cannot read this: {problem}", where, hint) from None
    except yaml.YAMLError as err:
        raise ScriptError(f"YAML cannot read this: {err}", SourcePosition(path, 1, 1)) from None


def _refuse_escaped_characters(root: Node | None, source: str, path: str) -> None:
    """Raise the located error of the first value (or key) that holds a character the file may
    not: one written as an escape, since the file's own text was checked before."""
    stack, seen = ([root] if root is not None else []), set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            found = BAD_IN_VALUE.search(node.value)
            if found is not None:
                raise character_error(
                    found.group(), _escape_position(node, found.group(), source, path)
                )
        elif isinstance(node, SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, MappingNode):
            stack.extend(item for pair in reversed(node.value) for item in reversed(pair))


def _escape_position(node: ScalarNode, character: str, source: str, path: str) -> SourcePosition:
    """Where the escape that writes `character` in `node` begins (the value's start when no
    escape writes it)."""
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", source))
    begin = starts[node.start_mark.line] + node.start_mark.column
    end = starts[min(node.end_mark.line, len(starts) - 1)] + node.end_mark.column
    for escape in _ESCAPE.finditer(source, begin, end):
        code = escape.group()[1:]
        written = chr(int(code[1:], 16)) if len(code) > 1 else _NAMED_ESCAPES.get(code)
        if written == character:
            line = source.count("\n", 0, escape.start())
            return SourcePosition(path, line + 1, escape.start() - starts[line] + 1)
    return SourcePosition(path, node.start_mark.line + 1, node.start_mark.column + 1)


def _character_position(
    node: Node, character: str, nth: int, source: str, path: str
) -> SourcePosition:
    """Where `character`, found at index `nth` of the value of `node`, is written: its own
    place in the file when written as itself, else the escape that writes it."""
    value_before = (node.value if isinstance(node, ScalarNode) else "")[:nth]
    begin, end = node.start_mark.index, node.end_mark.index
    written = source.find(character, begin, end)
    skip = value_before.count(character)
    while written != -1 and skip:
        written, skip = source.find(character, written + 1, end), skip - 1
    if written == -1:
        return _escape_position(node, character, source, path)
    line = source.count("\n", 0, written)
    return SourcePosition(path, line + 1, written - (source.rfind("\n", 0, written) + 1) + 1)


def _plain_styles(root: Node | None) -> Node | None:
    """Give libyaml's plain scalars the style the Python loader gives them (None, not ''), so
    an empty plain value reads the same either way (`YamlReader.text` recovers a `#` value)."""
    stack, seen = ([root] if root is not None else []), set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # aliases share nodes, and may loop
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.style == "":
                node.style = None
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            stack.extend(item for pair in node.value for item in pair)
    return root


def _deepest_point(source: str, limit: int = 100) -> tuple[int, int]:
    """(line, column), 1-based, where flow brackets or indentation first nest `limit` levels deep
    (the end of the deepest point when they never do)."""
    depth, best = 0, (0, (1, 1))
    for number, line in enumerate(source.split("\n"), start=1):
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and indent // 2 >= limit:
            return number, indent + 1
        for column, char in enumerate(line, start=1):
            depth += (char in "[{") - (char in "]}")
            if depth >= limit:
                return number, column
            if depth > best[0]:
                best = (depth, (number, column))
    return best[1]
