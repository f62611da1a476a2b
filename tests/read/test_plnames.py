"""`pl` is found from the imports, not by spelling."""

import libcst as cst
import pytest

from pto_transpile.read.plnames import PlNames


@pytest.mark.parametrize("imports, expr, path, ref", [
    ("import pypto_pro.language as pl", "pl.pipeline.stage", ("pipeline", "stage"), "pl"),
    ("from pypto_pro import language as pto", "pto.make_tile_group", ("make_tile_group",), "pto"),
    ("import pypto_pro.language", "pypto_pro.language.jit", ("jit",), "pypto_pro.language"),
    ("from pypto_pro.language import pipeline", "pipeline.stage", ("pipeline", "stage"), None),
    ("from pypto_pro.language import make_tile_group as mtg", "mtg", ("make_tile_group",), None),
    ("import pypto_pro.language.pipeline as pp", "pp.PipelineConfig", ("pipeline", "PipelineConfig"), None),
    ("import os as pl", "pl.jit", None, None),  # a module called `pl` that is not pypto_pro.language
    ("import pypto.language as pl", "pl.jit", None, None),
])
def test_pl_paths(imports, expr, path, ref):
    names = PlNames.from_module(cst.parse_module(imports + "\n"))
    assert names.path(cst.parse_expression(expr)) == path
    assert names.module_ref == ref


def test_guarded_imports_count():
    src = "try:\n    import pypto_pro.language as pl\nexcept ImportError:\n    pl = None\n"
    assert PlNames.from_module(cst.parse_module(src)).module_ref == "pl"
