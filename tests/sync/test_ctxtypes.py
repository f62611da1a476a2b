"""Ctx fields are initialised with a value of the type they carry (issue 16, goal 6).

PyPTO types each `pl.struct_array` field from its initialiser, so the generated ring's
`field=...` says what the field holds: `0` for ints, `0.0` for floats, `pl.const(0, pl.DT_X)`
for a value with a `pl` dtype.
"""

from __future__ import annotations

import re

import libcst as cst
import pytest

import skeleton as ex
from helpers import kernel_text
from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.sync.ctxtypes import ScalarTypes
from sim_runtime import verify

#: a vector stage that scales the received tile by a scalar it is handed
ST_SCALED = ex.ST.replace("def st(ki, sub_id, out, x_db):", "def st(ki, sub_id, s, out, x_db):").replace(
    "    x = x_db.next()", "    x = x_db.next()\n    pl.muls(x, x, s)")
CALL = "st(ki, sub_id, s, out, x_db)"


def ring(text: str) -> dict[str, str]:
    """field -> initialiser of the generated ring."""
    result = transpile(text, path="k.py")
    assert result.ok, result.diagnostics
    call = re.search(r"pl\.struct_array\(\s*\d+,\s*\"PipeCtx\",(.*?)\)\n", result.code, re.S)
    assert call is not None
    return dict(re.findall(r"(\w+)=((?:pl\.const\([^)]*\))|[^,\s)]+)", call.group(1)))


def scaled(binding: str, **kw) -> str:
    kw.setdefault("loop", ex.loop(binding, ex.cube(), ex.vector(CALL)))
    return ex.kernel(st=ST_SCALED, **kw)


@pytest.mark.parametrize("binding, init", [
    ("s = ki * 2 + 1", "0"),
    ("s = ki * 0.5 + 1.0", "0.0"),
    ("s = ki / 4.0", "0.0"),
    ("s = 1.0 if ki == 0 else ki", "0.0"),
    ("s = HALF // (ki + 1)", "0"),
    ("s = max(ki, 1) * 1.5", "0.0"),
    ("s: pl.DT_FP16 = ki", "0.0"),  # (a kernel scalar holds every fp16 value: never a narrower field)
    ("s = pl.const(2, pl.DT_INT64) * ki", "0"),  # (a kernel scalar, never a dtype of its own: probe h107)
    ("s = float(ki)", "0.0"),
])
def test_a_scalar_field_has_the_type_of_its_value(binding, init):
    fields = ring(scaled(binding))
    assert fields["s"] == init
    assert fields["ki"] == fields["sub_id"] == fields["_pl_is_valid"] == fields["_pl_task_id"] == "0"


def test_a_value_read_from_an_fp16_tile_travels_as_a_kernel_float():
    decls = ex.VEC_DECLS + ("\n    w_db = pl.make_tile_group(type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP16, "
                            "target_memory=pl.MemorySpace.Vec), addrs=0x4000, mutex_ids=[12, 13])\n"
                            "    w = w_db.current()")
    loop = ex.loop(ex.cube(), "with pl.section_vector():\n    s = pl.getval(w, 0)\n    " + CALL)
    text = ex.kernel(st=ST_SCALED, vec_decls=decls, loop=loop)
    result = transpile(text, path="k.py", _skip_rules=["PTO011", "PTO061"])
    assert "s=0.0," in result.code.replace("\n", " ").replace(" ", "")  # a float: a kernel scalar holds fp16


def test_a_typed_scalar_parameter_travels_as_a_kernel_scalar():
    """An int64 field wrapped what the serial kernel kept past 2 ** 63 (probe h107)."""
    params = ex.PARAMS + "\nbias: pl.DT_INT64,"
    text = scaled("s = bias + ki", params=params)
    assert ring(text)["s"] == "0"


def test_struct_fields_take_the_type_of_their_initialiser():
    st = ex.ST_POS.replace("def st(pos, out, x_db):", "def st(pos, out, x_db):").replace(
        "    x = x_db.next()", "    x = x_db.next()\n    pl.muls(x, x, pos.gain)")
    loop = ex.loop("pos.row = ki * TILE + sub_id * HALF", "pos.gain = ki * 0.5",
                   ex.cube(), ex.vector("st(pos, out, x_db)"))
    text = ex.kernel(st=st, decls='pos = pl.struct("Pos", row=0, gain=0.0)', loop=loop)
    # every core computes `pos.row` from `sub_id`: every core binds it
    text = text.replace("    with pl.section_vector():\n        sub_id = pl.get_subblock_idx()\n",
                        "    sub_id = pl.get_subblock_idx()\n")
    fields = ring(text)
    assert fields["row"] == "0" and fields["gain"] == "0.0"


def test_tiling_data_fields_take_their_dataclass_annotation():
    helpers = "from dataclasses import dataclass\n\n\n@dataclass\nclass Tiling:\n    rows: int\n    gain: float"
    text = scaled("s = tiling.gain * ki", helpers=helpers, params=ex.PARAMS + "\ntiling: Tiling,")
    assert ring(text)["s"] == "0.0"


def test_a_helper_returns_the_type_of_its_return_expression():
    helpers = "def gain_of(k):\n    return 0.25 * k"
    text = scaled("s = gain_of(ki)", helpers=helpers)
    result = transpile(text, path="k.py")
    # a helper of the file given a scalar returns a scalar (`_returned_kind`), which travels in a
    # field of the type its return expression has
    assert [d.code for d in result.diagnostics if d.is_error] == []
    assert ring(text)["s"] == "0.0"
    file = read(SourceFile.parse(text, "k.py"))
    types = ScalarTypes(file, file.kernels[0])
    assert types.of(cst.parse_expression("gain_of(ki)")) == "float"
    assert types.of(cst.parse_expression("gain_of(ki) // 1")) == "float"
    assert types.of(cst.Name("ki")) == "int"


def test_the_stage_parameter_decides_when_the_value_does_not():
    """`TILE / (ki + 1)` may stay an int or become a float; used as a row offset, it is an int."""
    st = ST_SCALED.replace("    pl.muls(x, x, s)\n", "").replace("[ki * TILE + sub_id * HALF, 0]",
                                                                  "[ki * TILE + sub_id * HALF + s * 0, 0]")
    text = ex.kernel(st=st, loop=ex.loop("s = TILE / (ki + 1)", ex.cube(), ex.vector(CALL)))
    code = transpile(text, path="k.py", _skip_rules=["PTO061"]).code  # only the ring is looked at
    assert "s=0," in code


def test_a_counter_updated_in_the_loop_keeps_its_type():
    loop = ex.loop(ex.cube(), ex.vector(CALL), "s = s + 0.5")
    assert ring(scaled("", loop="s = 1.0\n" + loop))["s"] == "0.0"
    loop = ex.loop(ex.cube(), ex.vector(CALL), "s = s + 1")
    assert ring(scaled("", loop="s = 1\n" + loop))["s"] == "0"


@pytest.mark.emulator
def test_a_float_carried_in_the_ring_runs_as_the_serial_kernel():
    text = scaled("s = ki * 0.5 + 1.0")
    report = verify(text, transpile(text, path="k.py").code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.emulator
def test_a_typed_local_travels_in_a_kernel_scalar_and_runs_on_the_emulator():
    text = scaled("s: pl.DT_INT64 = ki")
    code = transpile(text, path="k.py").code
    assert "pl.const(" not in code
    report = verify(text, code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


#: a probe found each of these typed `0` (an int) while the value is a float: PyPTO would hand
#: the delayed stage 0 for 0.5
@pytest.mark.parametrize("binding, init", [
    ("s = 2 ** -1", "0.0"),  # an int to a negative power: not known, the stage's use says: a float
    ("s = 2 ** 3", "0"),
    ("s = round(ki * 0.5, 1)", "0.0"),
    ("s = round(ki * 0.5)", "0"),
    ("s = (ki > 0) and 0.5", "0.0"),  # `a and b` is one of its operands, not a truth value
    ("s = ki > 0", "0"),
])
def test_a_power_or_a_rounding_has_the_type_python_gives(binding, init):
    assert ring(scaled(binding))["s"] == init


@pytest.mark.parametrize("items, init", [
    ("(0.5, 2.0)", "0.0"),
    ("[1, 2]", "0"),
    ("range(2)", "0"),
    ("SCALES", "0.0"),  # what a module list holds: the stage's use says, a float
])
def test_a_loop_variable_has_the_type_of_what_it_runs_over(items, init):
    inner = ex.loop(ex.cube(), ex.vector(CALL))
    loop = f"for s in {items}:\n" + "\n".join("    " + line for line in inner.splitlines())
    text = ex.kernel(st=ST_SCALED, loop=loop).replace("N = 4\n", "N = 4\nSCALES = [0.5, 2.0]\n")
    assert ring(text)["s"] == init


def test_a_parameter_the_body_rebinds_travels_as_a_kernel_scalar_of_its_kind():
    params = ex.PARAMS + "\ns: pl.DT_FP32,"
    assert ring(scaled("if ki == 0:\n    s = 1", params=params))["s"] == "0.0"


@pytest.mark.emulator
def test_a_value_only_an_fp16_op_types_is_carried_at_a_kernel_scalars_width():
    """Its field holds a float (`0.0`), not the fp16 the op converts it to: the delayed stage's
    `gain > 1.0` sees 1.0001, as the serial kernel's does; the field typed fp16 (as generated
    before) makes the pipelined kernel clip other tiles, which the emulator's typed fields show."""
    from pathlib import Path

    text = kernel_text(Path(__file__).parents[1] / "soundness" / "kernels" / "gain_to_fp16_tile.py")
    code = transpile(text, path="k.py").code
    assert "gain=0.0," in code
    run = dict(shapes={"a": (160, 32), "out": (160, 32), "gains": (160, 32)}, scalars={"scale": 1.0, "ApplyRelu": 0},
               block_dim=2)
    report = verify(text, code, "tiled_scale_kernel", path="k.py", **run)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
    narrowed = code.replace("gain=0.0,", "gain=pl.const(0.0, pl.DT_FP16),")
    report = verify(text, narrowed, "tiled_scale_kernel", path="k.py", **run)
    assert [r.verdict for r in report.rows] == ["ok", "mismatch"], report.rows[-1].message


@pytest.mark.emulator
@pytest.mark.parametrize("binding", ["s = SCALES[ki % 2]", "s = SCALES[(ki + 1) % 2] * 2"])
def test_an_item_of_a_constant_picked_by_the_iteration_travels_with_its_task(binding):
    """`SCALES[ki % 2]` is a number of the iteration, carried in the ring (probe h98: taken for a
    constant, the delayed stage read the newer task's pick, and the check blamed the kernel)."""
    text = scaled(binding).replace("N = 4\n", "N = 4\nSCALES = (0.5, 2.0)\n")
    assert ring(text)["s"] == "0.0"
    report = verify(text, transpile(text, path="k.py").code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
