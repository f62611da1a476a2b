"""The transpiler's table of `pl` names (pto_api/names.py) knows every name the emulator's
`pl` offers: a name missing from the table and close to one in it would be called a
misspelling (PTO073) although it exists."""

from __future__ import annotations

import pytest

from pto_api.names import PL_KEYWORDS, PL_MEMBERS, PL_NAMES

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
