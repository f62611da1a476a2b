"""sim_runtime is a layering: a module imports only modules of lower layers (no cycles, no
function-level imports that sneak around it), and never the transpiler's analysis."""

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.emulator

PACKAGE = Path(__file__).resolve().parent.parent.parent / "sim_runtime"

#: Lowest first. A module may import only modules of strictly lower layers.
LAYERS = [
    {"errors", "costs", "scheduler", "dtypes", "assumed"},
    {"layouts", "memory", "rounding", "minifloat", "opplan", "timeline", "crosscore", "kernelspec", "coretime"},
    {"gantt", "bound"},
    {"tiles", "races", "atomics", "unitflags"},
    {"vf", "gm", "debug", "typedlocals"},  # and the ops package (its modules import tiles, vf-free helpers)
    {"machine", "vfops", "vfmem", "vflanes"},
    {"lowering"},
    {"launch"},
    {"pl"},
    {"loader"},
    {"api"},
    {"verify"},
    {"__init__"},
]
LAYER = {m: i for i, layer in enumerate(LAYERS) for m in layer}


def imports(path: Path) -> set[str]:
    """Every sim_runtime module `path` imports, wherever the import statement is."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for n in names:
            parts = n.split(".")
            if parts[0] in ("pto_transpile",):
                out.add(n)
            elif parts[0] == "sim_runtime" and len(parts) > 1 and (PACKAGE / f"{parts[1]}.py").exists():
                out.add(parts[1])
    return out


MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))


def test_every_module_has_a_layer():
    assert set(MODULES) == set(LAYER)


@pytest.mark.parametrize("module", MODULES)
def test_imports_go_down_only(module):
    for dep in imports(PACKAGE / f"{module}.py"):
        assert not dep.startswith("pto_transpile"), f"{module} imports the transpiler ({dep})"
        assert LAYER[dep] < LAYER[module], f"sim_runtime.{module} (layer {LAYER[module]}) imports " \
                                           f"sim_runtime.{dep} (layer {LAYER[dep]})"
