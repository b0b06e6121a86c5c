"""The package's shape, read from its source so it stays true: no import cycle (not even one
closed only for the type checker), no private
interpreter machinery, no module over 700 lines, at most 3 ``dict[str, Any]`` under
``server/``, and the operations keyword-only after their first parameter.

"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "server"
PACKAGE = SERVER / "gotchas"

MAX_LINES = 700
MAX_DICT_ANY = 3
PRIVATE_MODULES = {"_sre", "sre_compile", "sre_parse", "sre_constants"}
OPERATIONS = ("operations", "holding", "propose", "replay", "pending")
"""``gotchas.operations`` and the modules whose operations it hands out."""


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SERVER).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_only(tree: ast.Module) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``: imports the checker reads and the program never runs."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        named = isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
        if named or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            assert isinstance(node, ast.If)
            for child in node.body:
                skipped.update(id(inner) for inner in ast.walk(child))
    return skipped


def imports(name: str, path: Path, known: dict[str, Path], *, typed: bool = False) -> set[str]:
    """The package's modules that ``name`` imports when it runs, inside functions too; with
    ``typed``, those it imports for the type checker alone as well."""
    tree = ast.parse(path.read_bytes())
    skipped = set() if typed else _type_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    found.add(full)
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for after in sorted(graph[node]):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in on_stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def import_cycles(*, typed: bool = False) -> list[list[str]]:
    known = modules()
    return cycles({name: imports(name, path, known, typed=typed) for name, path in known.items()})


def private_machinery() -> Iterator[tuple[str, int, str]]:
    """(module, line, what) for every use of the regex engine's internals, exec, eval or frames."""
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_bytes())):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.partition(".")[0] in PRIVATE_MODULES:
                        yield name, line, f"import {alias.name}"
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PRIVATE_MODULES:
                yield name, line, f"from {node.module} import"
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in ("exec", "eval", "__import__"):
                    yield name, line, f"{node.func.id}()"
            elif isinstance(node, ast.Attribute) and node.attr in ("_getframe", "exec", "eval"):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("sys", "builtins"):
                    yield name, line, f"{owner.id}.{node.attr}"


def long_modules() -> dict[str, int]:
    counts = {name: len(path.read_bytes().splitlines()) for name, path in modules().items()}
    return {name: n for name, n in counts.items() if n > MAX_LINES}


def dict_any() -> dict[str, int]:
    pattern = re.compile(r"dict\[str, Any\]")
    counts = {name: len(pattern.findall(path.read_text("utf-8"))) for name, path in modules().items()}
    return {name: n for name, n in counts.items() if n}


def positional_operations() -> list[str]:
    """Public functions of the operations taking a positional parameter after their first."""
    found = []
    for module in OPERATIONS:
        tree = ast.parse((PACKAGE / f"{module}.py").read_bytes())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
                args = node.args
                if len(args.posonlyargs) + len(args.args) > 1 or args.vararg is not None:
                    found.append(f"{module}.{node.name}")
    return found


# --- the rules, on every module -----------------------------------------------------------------


def test_no_import_cycle() -> None:
    assert import_cycles() == []


def test_no_import_cycle_for_the_type_checker_either() -> None:
    """A circle of type-only imports runs, but a reader still cannot tell which module is below."""
    assert import_cycles(typed=True) == []


def test_no_private_interpreter_machinery() -> None:
    assert list(private_machinery()) == []


def test_no_module_over_700_lines() -> None:
    assert long_modules() == {}


def test_at_most_three_dict_str_any_under_server() -> None:
    assert sum(dict_any().values()) <= MAX_DICT_ANY, dict_any()


def test_operations_take_keywords_after_their_first_parameter() -> None:
    assert positional_operations() == []


# --- the checks themselves can fail ------------------------------------------------------------


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    """An import inside a function counts; one under ``if TYPE_CHECKING:`` does not."""
    (tmp_path / "a.py").write_text("def f():\n    from pkg import b\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("from pkg.a import f\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import pkg.a\n")
    known = {f"pkg.{n}": tmp_path / f"{n}.py" for n in "abc"}
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": set()}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    typed = {name: imports(name, path, known, typed=True) for name, path in known.items()}
    assert typed["pkg.c"] == {"pkg.a"}


def test_the_package_is_found_and_read() -> None:
    """An empty module list would make every rule pass: the rules read the real package."""
    found = modules()
    assert {"gotchas.cli", "gotchas.cli.registry", "gotchas.operations", "gotchas.workspace"} <= set(found)
    assert imports("gotchas.cli.parser", found["gotchas.cli.parser"], found) >= {"gotchas.cli.registry"}
