"""The transpiler's table of `pl` names (pto_api/names.py) knows every name the emulator's
`pl` offers: a name missing from the table and close to one in it would be called a
misspelling (PTO073) although it exists."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import ROOT
from pto_api.names import PL_KEYWORDS, PL_MEMBERS, PL_NAMES, PL_PARAMETERS, bind
from pto_api.ops import OP_KEYWORDS, op_keywords
from pto_transpile.suggest import closest

pytestmark = pytest.mark.emulator

#: what sim_runtime/pl.py imports or defines for its own workings, not names of the API
MACHINERY = {"ACC_TO_VEC_MODES", "CROSS_CORE_SYNC_MODES", "DTYPES", "JitKernel", "KernelError", "Location", "PIPES",
             "SimpleNamespace", "TilingKeySchema", "UnsupportedOpError", "annotations", "builtins", "caller",
             "current_core", "dataclass", "enum", "functools", "launch"}


def test_every_name_of_the_emulators_pl_is_known():
    import sim_runtime.pl as pl

    names = {n for n in dir(pl) if not n.startswith("_")} - MACHINERY
    assert names - PL_NAMES == set()


def test_every_member_of_the_emulators_namespaces_is_known():
    import sim_runtime.pl as pl

    for namespace, members in PL_MEMBERS.items():
        obj = getattr(pl, namespace)
        have = {m.name for m in obj} if isinstance(obj, type) else {n for n in vars(obj) if not n.startswith("_")}
        have.discard("is_pipeline_stage")  # the emulator's own query, not part of the API
        assert have <= members, (namespace, have - members)


def test_the_keyword_tables_match_the_emulators_signatures():
    import dataclasses
    import inspect

    import sim_runtime.pl as pl
    import sim_runtime.tiles as tiles

    assert {f.name for f in dataclasses.fields(pl.PipelineConfig)} == PL_KEYWORDS[("pipeline", "PipelineConfig")]
    assert {f.name for f in dataclasses.fields(tiles.TileType)} <= PL_KEYWORDS[("TileType",)]
    group = set(inspect.signature(tiles.make_tile_group).parameters) - {"owner", "where"}
    assert group == PL_KEYWORDS[("make_tile_group",)]
    assert pl._JIT_KEYWORDS == PL_KEYWORDS[("jit",)]
    assert set(inspect.signature(pl.make_tile).parameters) == PL_KEYWORDS[("make_tile",)]
    assert [p.kind for p in inspect.signature(pl.range).parameters.values()] == [inspect.Parameter.VAR_POSITIONAL]
    assert PL_KEYWORDS[("range",)] == frozenset()
    for name in ("set_cross_core", "wait_cross_core", "sync_src", "sync_dst", "mutex_lock", "mutex_unlock",
                 "sync_all"):
        assert set(inspect.signature(getattr(pl.system, name)).parameters) == PL_KEYWORDS[("system", name)], name


def test_the_emulator_takes_the_parameters_the_check_binds():
    """By position and keyword as PyPTO does: a call the check binds one way and the emulator
    another (its own name, `set_validshape(target=...)`) is proven on one reading, run on another."""
    import dataclasses
    import inspect

    import sim_runtime.pl as pl
    import sim_runtime.tiles as tiles

    def split(fn) -> tuple[tuple[str, ...], tuple[str, ...]]:
        params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("owner", "where")]
        return (tuple(p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD),
                tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY))

    assert (tuple(f.name for f in dataclasses.fields(tiles.TileType)), ()) == PL_PARAMETERS[("TileType",)]
    assert split(pl.make_tile) == PL_PARAMETERS[("make_tile",)]
    assert split(tiles.make_tile_group) == PL_PARAMETERS[("make_tile_group",)]
    assert split(pl.set_validshape) == PL_PARAMETERS[("set_validshape",)]


def test_bind_places_arguments_as_python_does():
    assert bind(("TileType",), [[1, 8], "i32", "Vec", [1, 4]], {"layout": "ND"}) == {
        "shape": [1, 8], "dtype": "i32", "target_memory": "Vec", "valid_shape": [1, 4], "layout": "ND"}
    assert bind(("set_validshape",), [], {"tile": "t", "shape": [1, 4]}) == {"tile": "t", "shape": [1, 4]}
    assert bind(("set_validshape",), ["t"], {"tile": "t"}) is None  # given twice
    assert bind(("set_validshape",), [], {"target": "t"}) is None  # not a parameter
    assert bind(("make_tile",), ["tt", 0x100], {}) is None  # addr is keyword-only


def _keywords_read(package: Path) -> dict[str, set[str]]:
    """Per op of the emulator's handlers (`@handles("op", ...)`), the keyword names that the
    handler and the functions of its module it calls read: `call.arg(i, "kw")`,
    `call.kwargs.get("kw")`, `call.kwargs["kw"]`, `"kw" in call.kwargs`."""
    def reads(fn: ast.AST) -> set[str]:
        out = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                if n.func.attr in ("arg", "tile") and len(n.args) >= 2 and isinstance(n.args[1], ast.Constant):
                    out.add(n.args[1].value)
                kwargs = isinstance(n.func.value, ast.Attribute) and n.func.value.attr == "kwargs"
                if n.func.attr == "get" and kwargs and n.args and isinstance(n.args[0], ast.Constant):
                    out.add(n.args[0].value)
            if isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant) \
                    and any(isinstance(c, ast.Attribute) and c.attr == "kwargs" for c in n.comparators):
                out.add(n.left.value)
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "kwargs" \
                    and isinstance(n.slice, ast.Constant):
                out.add(n.slice.value)
        return {k for k in out if isinstance(k, str)}

    found: dict[str, set[str]] = {}
    for path in sorted(package.glob("*.py")):
        functions = {f.name: f for f in ast.parse(path.read_text(encoding="utf-8")).body
                     if isinstance(f, ast.FunctionDef)}
        for fn in functions.values():
            ops = [a.value for d in fn.decorator_list if isinstance(d, ast.Call)
                   and getattr(d.func, "id", None) == "handles" for a in d.args if isinstance(a, ast.Constant)]
            seen, todo = set(), [fn.name]
            while todo:
                name = todo.pop()
                if name not in seen:
                    seen.add(name)
                    todo += [n.func.id for n in ast.walk(functions[name]) if isinstance(n, ast.Call)
                             and isinstance(n.func, ast.Name) and n.func.id in functions]
            for op in ops:
                found.setdefault(op, set()).update(*(reads(functions[n]) for n in seen))
    return found


def test_no_keyword_the_emulator_reads_is_called_a_misspelling():
    """PTO074 reports a data op's keyword only when it is a near misspelling of one in the op's
    set: no keyword an emulator handler reads may be one (the scan finds the keywords of
    load, move and store, so it is not vacuous)."""
    read = _keywords_read(ROOT / "sim_runtime" / "ops")
    assert {"offsets", "order"} <= read["load"] and "acc_to_vec_mode" in read["move"]
    for op, keywords in read.items():
        known = op_keywords(op)
        assert known is not None, op
        for keyword in keywords - known:
            assert closest(keyword, known) is None, (op, keyword, closest(keyword, known))
    for op, keywords in OP_KEYWORDS.items():
        assert read.get(op, set()) <= keywords | {"mode"}, op


def test_every_vector_op_of_the_emulator_is_a_memory_op_or_a_register_op():
    # a vf op in neither table is "an op with unknown roles" (PTO053) wherever a vector
    # function passes it a parameter, a scalar as much as a tile
    import sim_runtime.pl as pl
    from pto_api.ops import VF_OP_ROLES, VF_REGISTER_OPS

    ops = {n for n in dir(pl.Vf) if not n.startswith("_")}
    assert ops - set(VF_OP_ROLES) - VF_REGISTER_OPS == set()
    assert VF_REGISTER_OPS <= ops and not VF_REGISTER_OPS & set(VF_OP_ROLES)
