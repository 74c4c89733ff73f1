"""The pipeline's shape holds: imports point one way (script → compile → backends → render →
commands → studio; takes, qc and mix never import render, edit or commands; edit, book and plot work
from mix, qc and takes, never from render; manuscript, the import of novels and plays, reads
only script and errors, and only commands and studio import it; book delivery and manuscript
import never import each other; the engine never imports the CLI; backends take
the engine's public names from `engine`), the modules of manuscript
and book import each other without a cycle, no module imports another module's private names,
and tests import each name from the module that defines it."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from drama_cli.backends.registry import BACKENDS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "drama_cli"

# stage -> the stages its modules may import (besides itself)
ALLOWED = {
    "errors": set(),
    "script": {"errors"},
    "compile": {"errors", "script"},
    "backends": {"errors", "script", "compile"},
    "takes": {"errors", "script", "compile"},
    "qc": {"errors", "script", "compile", "takes"},
    "mix": {"errors", "script", "takes", "qc"},
    "render": {"errors", "script", "compile", "backends", "takes", "qc", "mix"},
    "edit": {"errors", "script", "compile", "backends", "takes", "qc", "mix"},
    "book": {"errors", "script", "compile", "takes", "qc", "mix"},
    "manuscript": {"errors", "script"},
    "cast": {"errors", "script", "compile", "backends", "takes", "qc", "mix"},
    "plot": {"errors", "script", "compile", "takes", "qc", "mix", "edit"},
    "commands": {
        "errors",
        "script",
        "compile",
        "backends",
        "takes",
        "qc",
        "mix",
        "render",
        "edit",
        "plot",
        "book",
        "manuscript",
        "cast",
    },
    "studio": {
        "errors",
        "script",
        "compile",
        "backends",
        "takes",
        "qc",
        "mix",
        "render",
        "edit",
        "plot",
        "book",
        "manuscript",
        "cast",
        "commands",
    },
    "cli": {"errors", "commands", "studio", "__init__"},
    "__init__": set(),
}


def stage_of(path: Path) -> str:
    """The stage of a module: its sub-package, or its own name for a top-level module."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import in a file, function-level imports included; a
    `from package import name` counts as importing `package.name`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def imported_stage(module: str) -> str | None:
    """The stage a dotted import lands in: a sub-package or top-level module of drama_cli, or
    `__init__` for names the package itself defines (`drama_cli.__version__`)."""
    parts = module.split(".")
    if parts[0] != "drama_cli":
        return None
    if (PACKAGE / parts[1]).is_dir() or (PACKAGE / f"{parts[1]}.py").exists():
        return parts[1]
    return "__init__"


DRAMA_MODULES = sorted(PACKAGE.rglob("*.py"))
ENGINE_MODULES = sorted((ROOT / "engine").rglob("*.py"))


def test_every_module_has_a_stage():
    assert {stage_of(path) for path in DRAMA_MODULES} <= set(ALLOWED)


@pytest.mark.parametrize("path", DRAMA_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_stage_imports_a_later_one(path):
    stage = stage_of(path)
    backward = [
        f"{path.relative_to(ROOT)}:{line}: {stage} imports {module}"
        for line, module in imported_modules(path)
        if (target := imported_stage(module)) not in (None, stage, "__init__")
        and target not in ALLOWED[stage]
    ]
    assert backward == []


def module_name(path: Path) -> str:
    """The dotted name of a module of this project (a package is its `__init__.py`)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(paths: list[Path]) -> dict[str, set[str]]:
    """Module → the modules among `paths` it imports, function-level imports included; a
    `from package import name` points at `package.name` when that is a module, else at
    `package`."""
    names = {module_name(path) for path in paths}
    graph = {}
    for path in paths:
        targets = {
            module if module in names else module.rpartition(".")[0]
            for _, module in imported_modules(path)
        }
        graph[module_name(path)] = targets & names - {module_name(path)}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules of each import cycle in `graph` (its strongly connected components of more
    than one module), sorted."""
    reaches = {module: _reached_from(module, graph) for module in graph}
    cycles = {
        tuple(sorted(m for m in reaches[module] if module in reaches[m]))
        for module in graph
        if module in reaches[module]
    }
    return sorted(list(cycle) for cycle in cycles)


def _reached_from(start: str, graph: dict[str, set[str]]) -> set[str]:
    """Every module reached by following imports from `start` (itself only through a cycle)."""
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += graph[module]
    return seen


# Stages whose modules import each other without a cycle (backends.base and backends.registry
# still import each other).
ACYCLIC_STAGES = ("manuscript", "book")


@pytest.mark.parametrize("stage", ACYCLIC_STAGES)
def test_the_modules_of_a_stage_import_each_other_without_a_cycle(stage):
    cycles = import_cycles(import_graph(DRAMA_MODULES))
    assert [
        cycle for cycle in cycles if any(m.startswith(f"drama_cli.{stage}") for m in cycle)
    ] == []


def test_an_import_cycle_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


def private_imports(path: Path) -> list[str]:
    """`file:line: module._name` for every `from module import _name` of a module of this
    project (drama_cli or engine) other than the file itself."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] in ("drama_cli", "engine")
        ):
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}.{alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


@pytest.mark.parametrize(
    "path", DRAMA_MODULES + ENGINE_MODULES, ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_imports_another_modules_private_names(path):
    assert private_imports(path) == []


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_engine_never_imports_the_cli(path):
    assert [module for _, module in imported_modules(path) if module.startswith("drama_cli")] == []


@pytest.mark.parametrize(
    "path", sorted((PACKAGE / "backends").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_backends_take_the_engines_public_names_from_engine(path):
    public = set(importlib.import_module("engine").__all__)
    deep = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for line, module in imported_modules(path)
        if module.startswith("engine.")
        and module.rpartition(".")[0] != "engine"
        and module.rpartition(".")[2] in public
    ]
    assert deep == []


def defined_names(module_path: Path) -> set[str]:
    names = set()
    for node in ast.parse(module_path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def module_path(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


TEST_MODULES = sorted(Path(__file__).parent.glob("*.py"))


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: p.name)
def test_tests_import_names_from_their_defining_module(path):
    wrong = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        if node.module.split(".")[0] not in ("drama_cli", "engine"):
            continue
        source = module_path(node.module)
        assert source is not None, f"{path.name}:{node.lineno}: no module {node.module}"
        defined = defined_names(source)
        wrong += [
            f"{path.name}:{node.lineno}: {alias.name} is not defined in {node.module}"
            for alias in node.names
            if alias.name not in defined and module_path(f"{node.module}.{alias.name}") is None
        ]
    assert wrong == []


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: p.name)
def test_no_test_imports_another_test_module(path):
    test_names = {p.stem for p in TEST_MODULES if p.stem.startswith("test_")}
    imports = [module for _, module in imported_modules(path)]
    assert [m for m in imports if m.split(".")[0] in test_names or m.startswith("tests.")] == []


# commands/__init__.py registers the verbs and engine/__init__.py is the engine's public entry
# point; every other package file is its docstring alone
PACKAGE_FILES = sorted(
    p
    for p in [*PACKAGE.rglob("__init__.py"), *(ROOT / "engine").rglob("*/__init__.py")]
    if p.parent not in (PACKAGE, PACKAGE / "commands")
)


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_package_file_holds_only_its_docstring(path):
    body = ast.parse(path.read_text(encoding="utf-8")).body
    assert [type(node).__name__ for node in body] == ["Expr"]
    assert isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)


IMPORT_REASONS = ("# lazy:", "# cycle:", "# optional:")


def unexplained_function_imports(path: Path) -> list[str]:
    """`file:line` of each group of consecutive imports inside a function whose first import
    holds no reason comment (on any of its lines, as the formatter may wrap it) and has none on
    the line directly above it. A reason is a measured
    start-up cost (`# lazy:`), an import cycle (`# cycle:`) or a package that may be absent
    (`# optional:`)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for block in statement_blocks(node):
            previous = None
            for statement in block:
                is_import = isinstance(statement, (ast.Import, ast.ImportFrom))
                if is_import and not isinstance(previous, (ast.Import, ast.ImportFrom)):
                    written = "\n".join(lines[statement.lineno - 1 : statement.end_lineno])
                    above = lines[statement.lineno - 2].strip()
                    if not any(
                        reason in written for reason in IMPORT_REASONS
                    ) and not above.startswith(IMPORT_REASONS):
                        found.append(f"{path.relative_to(ROOT)}:{statement.lineno}")
                previous = statement
    return found


def statement_blocks(function: ast.AST) -> list[list[ast.stmt]]:
    """Every statement list inside `function` (its body, and those of its ifs, trys and loops),
    nested functions excluded (ast.walk visits them on their own)."""
    blocks, stack = [], [function]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not block:
                continue
            if name != "handlers":
                blocks.append(block)
            stack += [
                child
                for child in block
                if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ]
    return blocks


@pytest.mark.parametrize(
    "path", DRAMA_MODULES + ENGINE_MODULES, ids=lambda p: str(p.relative_to(ROOT))
)
def test_an_import_inside_a_function_says_why_it_is_not_at_the_top(path):
    assert unexplained_function_imports(path) == []


BACKEND_NAMES = {entry.name for entry in BACKENDS}
# Where a string equal to a backend's name is a record field, not a backend: a key of a dict
# literal or of a subscript, the key given to `.get` / `.pop` / `.setdefault`, or an entry of
# a module-level tuple of field names (a name ending in FIELDS).
KEY_METHODS = {"get", "pop", "setdefault"}


def backend_name_literals(path: Path) -> list[str]:
    """`module:line: 'name'` for every string literal of `path` equal to a registered backend's
    name, where it names a backend (see `test_only_a_backends_own_module_names_it`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed: set[int] = set()  # ids of the constants that are field names or allowed here
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            allowed |= {id(key) for key in node.keys if key is not None}
        elif isinstance(node, ast.Subscript):
            allowed.add(id(node.slice))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in KEY_METHODS
            and node.args
        ):
            allowed.add(id(node.args[0]))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any(n.endswith("FIELDS") for n in names) or names == ["LEGACY_DRAMA3_MODEL_ENGINES"]:
                allowed |= {id(item) for item in node.value.elts}
        elif (  # the registry's one line per backend: BackendEntry("name", ...)
            path == PACKAGE / "backends" / "registry.py"
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "BackendEntry"
            and node.args
        ):
            allowed.add(id(node.args[0]))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value in BACKEND_NAMES
        and id(node) not in allowed
    ]


def own_backend_modules(path: Path) -> bool:
    """A backend's own module (`drama_cli/backends/NAME.py`) or one of its helpers
    (`NAME_*.py`)."""
    if path.parent != PACKAGE / "backends":
        return False
    return any(path.stem == name or path.stem.startswith(f"{name}_") for name in BACKEND_NAMES)


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in [*DRAMA_MODULES, *sorted((ROOT / "engine").rglob("*.py"))]
        if not own_backend_modules(p)
    ],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_only_a_backends_own_module_names_it(path):
    """Adding a backend is its module plus one line in the registry: no other module of
    `drama_cli/` or `engine/` holds a string literal equal to a registered backend's name
    (`"drama3"`, `"scratch"`), so nothing decides what a backend is or does by its name; they
    read `Capabilities` instead. Allowed: the backend's own module `drama_cli/backends/NAME.py`
    and its helpers `NAME_*.py`; the name as the first argument of its `BackendEntry` line in
    `drama_cli/backends/registry.py`; the same word as the name of a record field (the take
    record's `scratch` flag): a key of a dict literal or subscript, the key given to `.get`,
    `.pop` or `.setdefault`, an entry of a module-level tuple named `*FIELDS`; and
    `LEGACY_DRAMA3_MODEL_ENGINES` (`drama_cli/takes/take_record.py`), the one place that reads
    take records written before they said whether the Drama 3 model voiced them. Docstrings,
    comments and tests are not checked."""
    assert backend_name_literals(path) == []
