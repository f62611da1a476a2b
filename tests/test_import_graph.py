"""The package's import graph follows the pipeline: no circle, and no import runs back up.

Every part of `pto_transpile/` stands on a floor (`FLOORS`, lowest first): a module
imports only from lower floors or from its own package, and never so that modules import
each other in a loop. Imports inside functions and under `TYPE_CHECKING` count too:
hiding one there does not make a circle go away.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pto_transpile"

#: The parts of pto_transpile/, lowest first. A part is a subpackage or a top-level module.
FLOORS: list[set[str]] = [
    {"codes", "diagnostics", "preload", "suggest"},  # the vocabulary every step speaks
    {"read"},  # 1: text in, one model out
    {"sync"},  # 2: accesses, schedule, sync graph, plan, ctx ring
    {"emit"},  # 3: the pipelined kernel as nodes
    {"soundness"},  # 4: the proof that it computes what the serial kernel computes
    {"results"},  # what a transpile returns, loop by loop
    {"rules"},  # the judges of every step, and their reporter
    {"driver"},  # transpile(): the steps in order
    {"simulate"},  # on the emulator, on request
    {"output"},  # what the command writes and shows
    {"cli", "entry", "helptext", "__main__", "__init__"},  # the faces: the command (and its --help) and the Python API
]
FACES = FLOORS[-1]


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name (below pto_transpile) -> file."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)] = path
    return out


def imports(text: str, known: set[str]) -> list[tuple[int, str]]:
    """(line, module) for every import of a pto_transpile module in `text`, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "pto_transpile" or node.module.startswith("pto_transpile."):
                base = node.module.removeprefix("pto_transpile").lstrip(".")
                for alias in node.names:
                    target = f"{base}.{alias.name}" if base else alias.name
                    found.append((node.lineno, target if target in known else base or "__init__"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "pto_transpile" or alias.name.startswith("pto_transpile."):
                    found.append((node.lineno, alias.name.removeprefix("pto_transpile").lstrip(".") or "__init__"))
    return found


def part(module: str) -> str:
    return module.split(".")[0]


def floor(module: str) -> int:
    return next(i for i, parts in enumerate(FLOORS) if part(module) in parts)


@cache
def graph(package: Path = PACKAGE) -> dict[str, list[tuple[int, str]]]:
    found = modules(package)
    return {name: imports(path.read_text(encoding="utf-8"), set(found)) for name, path in found.items()}


def wrong_way(edges: dict[str, list[tuple[int, str]]]) -> list[str]:
    """Imports from a higher floor, or from another part of the same floor (faces excepted)."""
    out = []
    for module, targets in edges.items():
        for line, target in targets:
            if part(target) == part(module):
                continue
            up = floor(target) > floor(module)
            sideways = floor(target) == floor(module) and part(module) not in FACES
            if up or sideways:
                out.append(f"{module}:{line} imports {target} ({'up' if up else 'sideways'})")
    return out


def circles(edges: dict[str, list[tuple[int, str]]]) -> list[list[str]]:
    """Each strongly connected set of two modules or more (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for _, w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_every_part_stands_on_a_floor() -> None:
    placed = set().union(*FLOORS)
    assert {part(m) for m in modules()} - placed == set()


def test_no_import_runs_back_up_or_sideways() -> None:
    assert wrong_way(graph()) == []


def test_no_circle() -> None:
    assert circles(graph()) == []


def test_the_checks_see_a_circle_and_an_upward_import(tmp_path) -> None:
    pkg = tmp_path / "pto_transpile"
    (pkg / "read").mkdir(parents=True)
    (pkg / "read" / "__init__.py").write_text("")
    (pkg / "read" / "a.py").write_text("from pto_transpile.read import b\n")
    (pkg / "read" / "b.py").write_text("def f():\n    from pto_transpile.read.a import x\n")
    (pkg / "sync.py").write_text("")
    (pkg / "codes.py").write_text("import pto_transpile.sync\n")
    edges = graph(pkg)
    assert circles(edges) == [["read.a", "read.b"]]
    assert wrong_way(edges) == ["codes:1 imports sync (up)"]
