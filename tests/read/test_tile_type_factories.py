"""A tile type a function of the file makes (`type=half_vec()`, production kernels' factories of
tile types) is read as the `pl.TileType(...)` the function returns, its parameters replaced by
the arguments. The reader could not resolve its memory and refused the kernel with PTO028 ("an
unresolvable memory space", asking for the `target_memory` it had) and PTO052 (asking for the
`g.next()` it used) (probe h139)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parents[1] / "soundness" / "kernels" / "trip_param.py").read_text(encoding="utf-8")
GROUP = "    c_vec_db = pl.make_tile_group(\n"
INLINE = GROUP + "        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
HEAD = "HALF = TILE // 2\n"

FACTORIES = {
    "no parameter": ("def half_vec():\n    \"\"\"The tile each vector core handles.\"\"\"\n"
                     "    return pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n",
                     "half_vec()"),
    "a memory by position": ("def half(memory):\n    return pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, "
                             "target_memory=memory)\n", "half(pl.MemorySpace.Vec)"),
    "a default and a keyword": ("def tile(shape, memory=pl.MemorySpace.Vec, dtype=pl.DT_FP16):\n"
                                "    return pl.TileType(shape=shape, dtype=dtype, target_memory=memory)\n",
                                "tile([HALF, TILE], dtype=pl.DT_FP32)"),
    "keyword-only parameters": ("def tile(*, rows, memory):\n"
                                "    return pl.TileType(shape=[rows, TILE], dtype=pl.DT_FP32, target_memory=memory)\n",
                                "tile(memory=pl.MemorySpace.Vec, rows=HALF)"),
    # one factory returning what another makes, its arguments passed on (probe h143)
    "a factory of a factory": ("def vec_type(rows, dtype):\n    return pl.TileType(shape=[rows, TILE], dtype=dtype, "
                               "target_memory=pl.MemorySpace.Vec)\n\n\ndef half_vec(dtype=pl.DT_FP32):\n"
                               "    return vec_type(HALF, dtype)\n", "half_vec()"),
    # what a factory makes bound to a module name (probe h147: PTO028 and PTO052)
    "a module name for what a factory makes": ("def half_vec():\n    return pl.TileType(shape=[HALF, TILE], "
                                               "dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n\n\n"
                                               "HALF_VEC = half_vec()\n", "HALF_VEC"),
    # no factory: the memory named at module level (probe h143)
    "a memory bound to a name": ("VEC = pl.MemorySpace.Vec\n",
                                 "pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=VEC)"),
}


def _proven_and_runs(text: str) -> None:
    """`text` is proven at preload 2, and the emulator runs what it writes as the serial kernel."""
    result = transpile(text, path="k.py", preload=2)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "kernel", path="k.py", shapes={"a": (96, 32), "out": (96, 32)},
                    scalars={"n": 3})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def _kernel(factory: str, call: str) -> str:
    return edited(KERNEL, [(HEAD, HEAD + "\n\n" + factory + "\n"), (INLINE, f"{GROUP}        type={call},\n")])


@pytest.mark.parametrize("way", list(FACTORIES))
def test_a_tile_type_made_by_a_function_is_read_and_the_kernel_proven(way):
    text = _kernel(*FACTORIES[way])
    _proven_and_runs(text)


def test_a_function_doing_more_than_returning_a_type_is_not_read_as_one():
    factory = ("def half_vec():\n    shape = [HALF, TILE]\n"
               "    return pl.TileType(shape=shape, dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n")
    codes = [d.code for d in transpile(_kernel(factory, "half_vec()"), path="k.py", preload=2).diagnostics
             if d.is_error]
    assert "PTO028" in codes, codes


def test_factories_calling_each_other_for_ever_are_not_read():
    factory = "def ping():\n    return pong()\n\n\ndef pong():\n    return ping()\n"
    codes = [d.code for d in transpile(_kernel(factory, "ping()"), path="k.py", preload=2).diagnostics if d.is_error]
    assert "PTO028" in codes, codes


@pytest.mark.parametrize("local", ["pl.MemorySpace.Vec", "pl.MemorySpace.Mat"])
def test_a_module_name_a_factory_reads_is_the_modules_whatever_the_kernel_binds(local):
    # the factory's body runs in the module's scope: the kernel's own `MEMV` is not what it reads. The
    # reader read the substituted call in the kernel's scope: a crash (PTO099, the refusal pointed into
    # the factory's nodes), then PTO028 "unresolvable memory space" (probe h147)
    factory = ("MEMV = pl.MemorySpace.Vec\n\n\ndef half_vec():\n"
               "    return pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=MEMV)\n")
    text = edited(_kernel(factory, "half_vec()"), [(GROUP, f"    MEMV = {local}\n" + GROUP)])
    _proven_and_runs(text)


def test_a_factorys_default_is_what_its_name_meant_when_the_def_ran():
    # Python computes `memory=MEM` once, at the `def`: the later `MEM = Mat` does not change it. The
    # reader read the name as the module ends and refused the Vec group as Mat (PTO066, probe h147)
    factory = ("MEM = pl.MemorySpace.Vec\n\n\ndef vec_type(rows, memory=MEM):\n"
               "    return pl.TileType(shape=[rows, TILE], dtype=pl.DT_FP32, target_memory=memory)\n\n\n"
               "def half_vec():\n    return vec_type(HALF)\n\n\nMEM = pl.MemorySpace.Mat\n")
    text = _kernel(factory, "half_vec()")
    _proven_and_runs(text)


def test_a_factorys_default_rebound_to_the_wrong_memory_before_the_def_is_refused():
    # the other way round: Mat when the `def` ran, Vec at the end; the group is Mat, which a vector stage
    # cannot read, and whose tiles overlap `a_l1` there (the same fix must not read the late value)
    factory = ("MEM = pl.MemorySpace.Mat\n\n\ndef vec_type(rows, memory=MEM):\n"
               "    return pl.TileType(shape=[rows, TILE], dtype=pl.DT_FP32, target_memory=memory)\n\n\n"
               "def half_vec():\n    return vec_type(HALF)\n\n\nMEM = pl.MemorySpace.Vec\n")
    errors = [d.message for d in transpile(_kernel(factory, "half_vec()"), path="k.py", preload=2).diagnostics
              if d.is_error]
    assert any("`c_vec_db`" in m and "`Mat`" in m for m in errors), errors


def test_a_factorys_default_naming_what_the_kernel_binds_too_is_the_modules():
    # `memory=MEMV` was computed at the `def`, from the module's `MEMV`; substituted as text, it was read
    # in the kernel's scope, where `MEMV` is the kernel's own: PTO028 and PTO052 (probe h149)
    factory = ("MEMV = pl.MemorySpace.Vec\n\n\ndef half_vec(memory=MEMV):\n"
               "    return pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=memory)\n")
    text = edited(_kernel(factory, "half_vec()"), [(GROUP, "    MEMV = pl.MemorySpace.Mat\n" + GROUP)])
    _proven_and_runs(text)
