"""Kernels a hostile probe (h76) found accepted and wrong on the emulator, all edits of the seed
demo: stage2 (vector) writes a scratch tile every task, stage4 (vector) reads it after writing
part of it itself, so the proof stands or falls with which bytes stage4's own write covers. Each
refused kernel has a valid twin that stays proven: the fixes follow the bytes, they refuse no form."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from pto_transpile.soundness import vfextent
from sim_runtime import verify

SEED = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()


def _seed(vfs: str, two: tuple[str, str], four: tuple[str, str], extra: str, tiles: str) -> str:
    """The seed demo with vector functions `vfs`; stage2 is given the names `two[0]` and runs
    `two[1]` first, stage4 is given `four[0]` and runs `four[1]` after its store; `extra` is a
    new output of type `extra`; `tiles` are made in a vector section before the loop."""
    body = "".join(f"    {line}\n" for line in two[1].splitlines())
    tail = "".join(f"    {line}\n" for line in four[1].splitlines())
    return edited(SEED, [
        ("import pypto_pro.language as pl\n",
         "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"),
        ("N_ITER = 4\n", "N_ITER = 4\n\n\n" + vfs),
        ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n"
         '    """Vector: relu on this AIV\'s half, convert to NZ, insert it into the L1 buffer by row offset."""\n',
         f"def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, {two[0]}):\n" + body),
        ("def stage4(ki, sub_id, out, out_vec_db):", f"def stage4(ki, sub_id, out, out_vec_db, {four[0]}, extra):"),
        ("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n",
         "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n" + tail),
        ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):\n",
         f"    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n    extra: {extra},\n):\n"),
        ("    # The pipeline loop: the 4 stages, cube and vector alternating\n",
         "    with pl.section_vector():\n" + "".join(f"        {line}\n" for line in tiles.splitlines())
         + "\n    # The pipeline loop: the 4 stages, cube and vector alternating\n"),
        ("            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)",
         f"            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, {two[0]})"),
        ("            stage4(ki, sub_id, out, out_vec_db)",
         f"            stage4(ki, sub_id, out, out_vec_db, {four[0]}, extra)"),
    ])


def _group(name: str, shape: str, dtype: str, addr: int, mutex: int, extra: str = "") -> str:
    return (f"{name} = pl.make_tile_group(type=pl.TileType(shape={shape}, dtype=pl.{dtype}, "
            f"target_memory=pl.MemorySpace.Vec{extra}), addrs={addr:#x}, mutex_ids=[{mutex}])\n")


def _wrong_on_the_emulator(text: str, extra: tuple[int, int]) -> bool:
    """Whether the pipelined kernel, made with the proof skipped, differs from the serial one."""
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "pipeline_demo_kernel", shapes={"extra": extra}, seed=0)
    assert report.rows[0].verdict == "ok", report.rows[0].message
    return report.rows[-1].verdict != "ok"


# -- 1. a vector-function store writes whole lanes of the register's dtype ----------------------

#: stage2 fills 3 elements of the [1, 3] `scr` with a register `full` makes: of a scalar without
#: `dtype=`, an int64 register (8-byte lanes), so the 12-byte mask turns on 2 lanes, 16 bytes, one
#: element past `scr`; stage4 broadcasts that element through `q - 5` (`q` is 32 bytes on).
LANES = """\
@pl.vector_function
def fill_vf(t, v):
    m = vf.update_mask(3, dtype=pl.DT_INT32)
    x = vf.full(v{dtype})
    vf.store_align(t, x, m)


@pl.vector_function
def pick_vf(t, o):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_INT32)
    r = vf.load_align(t, -5, dist=pl.LoadDist.BRC_B32)
    vf.store_align(o, r, p)
"""


def _lanes(dtype: str = "", value: str = "ki * 4294967296 + 5") -> str:
    """`value`'s high half is the element past `scr` an int64 lane writes."""
    return _seed(LANES.format(dtype=dtype), ("scr_g", f"scr = scr_g.current()\nfill_vf(scr, {value})"),
                 ("q_g, o_g", "q = q_g.current()\no = o_g.current()\npick_vf(q, o)\n"
                  "pl.store(extra, o, [ki * 2 + sub_id, 0])"),
                 "pl.Tensor[[N_ITER * 2, 64], pl.DT_INT32]",
                 _group("scr_g", "[1, 3]", "DT_INT32", 0x20000, 22) + _group("q_g", "[1, 8]", "DT_INT32", 0x20020, 24)
                 + _group("o_g", "[1, 64]", "DT_INT32", 0x20100, 23))


@pytest.mark.parametrize("preload", [1, 2])
def test_a_store_of_a_register_wider_than_the_tiles_elements_is_refused(preload):
    """The check counted lanes of the tile's 4-byte elements: exactly 12 bytes, all inside `scr`,
    so stage4's read of the 13th to 16th byte saw no write at all."""
    errors = error_messages(transpile(_lanes(), path="k.py", preload=preload))
    assert len(errors) == 1 and "pick_vf()" in errors[0] and "fill_vf()" in errors[0], errors


def test_the_register_of_the_tiles_dtype_is_proven():
    """With `dtype=pl.DT_INT32` the register's lanes are the tile's: 12 bytes, inside `scr`."""
    assert error_messages(transpile(_lanes(", dtype=pl.DT_INT32", "ki + 5"), path="k.py", preload=1)) == []


@pytest.mark.emulator
def test_the_emulator_writes_the_registers_lanes():
    assert _wrong_on_the_emulator(_lanes(), (8, 64))
    assert not _wrong_on_the_emulator(_lanes(", dtype=pl.DT_INT32", "ki + 5"), (8, 64))


#: `vf.full(v, mask, pl.DT_INT64)` of a float: int64 lanes, the dtype given by position (the
#: check read only `dtype=`, took the float's fp32 lanes and proved the kernel)
INT64_BY_POSITION = (", vf.create_mask(), pl.DT_INT64", "ki * 4294967296.0 + 5.0")


def test_a_register_dtype_given_by_position_is_its_lanes():
    errors = error_messages(transpile(_lanes(*INT64_BY_POSITION), path="k.py", preload=1))
    assert len(errors) == 1 and "pick_vf()" in errors[0] and "fill_vf()" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_writes_the_lanes_of_a_dtype_given_by_position():
    assert _wrong_on_the_emulator(_lanes(*INT64_BY_POSITION), (8, 64))


def _functions(body: str) -> vfextent.VectorFunctions:
    """The evaluator of one vector function `f(t, v)` with `body`."""
    text = "def f(t, v):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return vfextent.VectorFunctions(lambda name: text if name == "f" else None, lambda name: None)


def _stored(body: str, elem: int, arg) -> tuple:
    """The bytes `body(t, v)` stores to a `[1, 3]` tile of `elem`-byte elements, and whether exactly."""
    extent = _functions(body).extents("f", (vfextent.TileArg(elem, (1, 3)), arg))[0]
    return extent.writes, extent.exact


@pytest.mark.parametrize(("body", "elem", "arg", "stored"), [
    # an int scalar makes int64 lanes: a 12-byte mask turns on two, past the tile; 16 bytes are whole lanes
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v)\nvf.store_align(t, x, m)", 4, 5, (((0, 256),), False)),
    ("m = vf.update_mask(4, dtype=pl.DT_INT32)\nx = vf.full(v)\nvf.store_align(t, x, m)", 4, 5, (((0, 16),), True)),
    # a float scalar makes fp32 lanes: in an fp16 tile, a 6-byte mask turns on two lanes, 8 bytes
    ("m = vf.update_mask(3, dtype=pl.DT_FP16)\nx = vf.full(v)\nvf.store_align(t, x, m)", 2, 5.0,
     (((0, 256),), False)),
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v)\nvf.store_align(t, x, m)", 4, 5.0, (((0, 12),), True)),
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v, dtype=pl.DT_INT32)\nvf.store_align(t, x, m)", 4, 5,
     (((0, 12),), True)),
    # lane-wise ops keep their source's lanes, through a name bound in a loop
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v)\nfor i in range(4):\n    y = vf.load_align(t)\n"
     "    x = vf.add(x, y, m)\nvf.store_align(t, x, m)", 4, 5.0, (((0, 12),), True)),
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v)\nfor i in range(4):\n    y = vf.load_align(t)\n"
     "    x = vf.add(x, y, m)\nvf.store_align(t, x, m)", 4, 5, (((0, 256),), False)),
    # a dtype by position, as PyPTO's signatures take it: int64 lanes of a float
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v, vf.create_mask(), pl.DT_INT64)\nvf.store_align(t, x, m)",
     4, 5.0, (((0, 256),), False)),
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.load_align(t, 0, pl.LoadDist.NORM, pl.DT_INT64)\n"
     "vf.store_align(t, x, m)", 4, 5, (((0, 256),), False)),
    ("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v, vf.create_mask(), pl.DT_INT32)\nvf.store_align(t, x, m)",
     4, 5, (((0, 12),), True)),
], ids=["int64-past", "int64-whole", "fp32-in-fp16", "fp32", "dtype", "loop-fp32", "loop-int64",
        "full-dtype-by-position", "load-dtype-by-position", "full-int32-by-position"])
def test_a_stores_bytes_follow_the_registers_lanes(body, elem, arg, stored):
    """Whole lanes of the register's dtype, under the mask read at those lanes; a mask of other
    lanes than the register's is taken as the whole register (a superset, not exact)."""
    assert _stored(body, elem, arg) == stored


def test_a_call_with_an_int_and_one_with_an_equal_float_are_two_calls():
    """`5 == 5.0`: the remembered extents of one were given to the other, whose lanes differ."""
    vfs = _functions("m = vf.update_mask(3, dtype=pl.DT_INT32)\nx = vf.full(v)\nvf.store_align(t, x, m)")
    tile = vfextent.TileArg(4, (1, 3))
    assert [vfs.extents("f", (tile, a))[0].writes for a in (5.0, 5)] == [((0, 12),), ((0, 256),)]


# -- 2. `pl.make_tile(..., size=)` past the shape: ops write the shape's bytes only ---------------

def _sized(shape: str = "[1, 8]") -> str:
    """`big` (type `shape`, 64 bytes reserved) and `pad` (its second 32 bytes); stage2 fills `pad`
    every task, stage4 fills `big`, then stores `pad`: a `[1, 8]` `big` leaves `pad` as stage2 made it."""
    return _seed("", ("pad", "pl.system.bar_all()\npl.full(pad, ki)"),
                 ("big, pad", "pl.system.bar_all()\npl.full(big, 0)\npl.system.bar_all()\n"
                  "pl.store(extra, pad, [ki * 2 + sub_id, 0])"),
                 "pl.Tensor[[N_ITER * 2, 8], pl.DT_INT32]",
                 "t_type = pl.TileType(shape=[1, 8], dtype=pl.DT_INT32, target_memory=pl.MemorySpace.Vec)\n"
                 f"big = pl.make_tile(pl.TileType(shape={shape}, dtype=pl.DT_INT32, "
                 "target_memory=pl.MemorySpace.Vec), addr=0x20000, size=64)\n"
                 "pad = pl.make_tile(t_type, addr=0x20020)")


@pytest.mark.parametrize("preload", [1, 2])
def test_a_write_of_a_tile_with_room_past_its_shape_covers_only_the_shape(preload):
    """`pl.full(big, 0)` was taken as overwriting all 64 bytes `size=` reserves, so stage4's
    store of `pad` saw it in both runs and never which task's `pl.full(pad, ki)` it reads."""
    errors = error_messages(transpile(_sized(), path="k.py", preload=preload))
    assert len(errors) == 1 and "reads `pad`" in errors[0] and f"stage `stage2` (task {preload})" in errors[0], errors


def test_a_tile_whose_shape_fills_its_room_still_covers_it():
    """A `[1, 16]` `big` writes all 64 bytes: stage4 stores what it wrote itself."""
    assert error_messages(transpile(_sized("[1, 16]"), path="k.py", preload=1)) == []


def test_a_tile_with_less_room_than_its_shape_is_refused():
    """Its ops write the whole shape, past the bytes the tile was taken to span (the emulator
    refuses the declaration)."""
    errors = error_messages(transpile(_sized().replace("size=64", "size=16"), path="k.py", preload=1))
    assert len(errors) == 1 and "reserves 16 bytes, fewer than the 32 of its shape" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_writes_the_shape_only():
    assert _wrong_on_the_emulator(_sized(), (8, 8))
    assert not _wrong_on_the_emulator(_sized("[1, 16]"), (8, 8))


# -- 3 and 4. `pl.TileType` and `pl.set_validshape` read by their signatures ----------------------

#: stage2 stores 8 int32 lanes into `t` ([1, 8]) every task; stage4 fills `t`'s valid window, then
#: broadcasts element 5 into a row of `extra`: with a [1, 4] window, element 5 is stage2's
VALID = """\
@pl.vector_function
def put_vf(t, v):
    m = vf.update_mask(8, dtype=pl.DT_INT32)
    x = vf.full(v, dtype=pl.DT_INT32)
    vf.store_align(t, x, m)


@pl.vector_function
def get_vf(t, o):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_INT32)
    r = vf.load_align(t, 5, dist=pl.LoadDist.BRC_B32)
    vf.store_align(o, r, p)
"""


def _valid(tile_type: str, narrow: str = "") -> str:
    """`t_g` of type `tile_type`; stage4 runs `narrow` before its `pl.full(t, 0)`."""
    return _seed(VALID, ("t_g", "t = t_g.current()\nput_vf(t, ki)"),
                 ("t_g, o_g", f"t = t_g.current()\n{narrow}pl.full(t, 0)\no = o_g.current()\nget_vf(t, o)\n"
                  "pl.store(extra, o, [ki * 2 + sub_id, 0])"),
                 "pl.Tensor[[N_ITER * 2, 64], pl.DT_INT32]",
                 f"t_g = pl.make_tile_group(type={tile_type}, addrs=0x20000, mutex_ids=[22])\n"
                 + _group("o_g", "[1, 64]", "DT_INT32", 0x20100, 23))


PLAIN = "pl.TileType(shape=[1, 8], dtype=pl.DT_INT32, target_memory=pl.MemorySpace.Vec)"


@pytest.mark.parametrize("tile_type", [
    "pl.TileType([1, 8], pl.DT_INT32, pl.MemorySpace.Vec, [1, 4])",
    "pl.TileType([1, 8], pl.DT_INT32, pl.MemorySpace.Vec, valid_shape=[1, 4])",
], ids=["by-position", "by-keyword"])
def test_a_valid_shape_given_by_position_is_read(tile_type):
    """`TileType(shape, dtype, target_memory, valid_shape, ...)`: a valid shape given fourth was
    dropped, so `pl.full(t, 0)` was taken as writing all of `t`, element 5 too."""
    errors = error_messages(transpile(_valid(tile_type), path="k.py", preload=1))
    assert len(errors) == 1 and "get_vf()" in errors[0] and "put_vf()" in errors[0], errors


@pytest.mark.parametrize("narrow", [
    "pl.set_validshape(tile=t, shape=[1, 4])\n",
    "pl.set_validshape(t, shape=[1, 4])\n",
    "pl.set_validshape(t, [1, 4])\n",
], ids=["keywords", "mixed", "positions"])
def test_a_set_validshape_by_keyword_is_read(narrow):
    """`set_validshape(tile, shape)` changed the model only when its tile came by position."""
    errors = error_messages(transpile(_valid(PLAIN, narrow), path="k.py", preload=1))
    assert len(errors) == 1 and "get_vf()" in errors[0] and "put_vf()" in errors[0], errors


@pytest.mark.parametrize(("tile_type", "narrow"), [
    ("pl.TileType([1, 8], pl.DT_INT32, pl.MemorySpace.Vec, [1, 8])", ""),
    (PLAIN, "pl.set_validshape(tile=t, shape=[1, 8])\n"),
], ids=["TileType", "set_validshape"])
def test_a_whole_valid_shape_by_position_or_keyword_is_proven(tile_type, narrow):
    """The whole tile valid: stage4's fill covers element 5, which it then reads back itself."""
    assert error_messages(transpile(_valid(tile_type, narrow), path="k.py", preload=1)) == []


def test_a_keyword_set_validshape_does_not_take_is_refused():
    """`target=` was the emulator's name, which PyPTO's `set_validshape(tile, shape)` does not take."""
    result = transpile(_valid(PLAIN, "pl.set_validshape(target=t, shape=[1, 4])\n"), path="k.py", preload=1)
    assert error_messages(result) == ["`pl.set_validshape` takes no keyword `target` (it takes `shape`, `tile`)"]


def test_arguments_that_do_not_bind_are_refused():
    """Python raises TypeError on them; the check names the parameters instead of reading past them."""
    errors = error_messages(transpile(_valid(PLAIN, "pl.set_validshape(t, [1, 4], shape=[1, 4])\n"), path="k.py",
                                      preload=1))
    assert len(errors) == 1 and "does not match `pl.set_validshape`'s parameters (tile, shape)" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_takes_pyptos_names_and_positions():
    assert _wrong_on_the_emulator(_valid(PLAIN, "pl.set_validshape(tile=t, shape=[1, 4])\n"), (8, 64))
    assert _wrong_on_the_emulator(_valid("pl.TileType([1, 8], pl.DT_INT32, pl.MemorySpace.Vec, [1, 4])"), (8, 64))
    assert not _wrong_on_the_emulator(_valid(PLAIN, "pl.set_validshape(tile=t, shape=[1, 8])\n"), (8, 64))


# -- `pl.dump_data(data, offsets, shapes, *, workspace)`: its places --------------------------------

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"


def _dumped(dump: str) -> str:
    """rows_two_stages.py whose vector stage, given `a` too, runs `dump` after its store."""
    return edited(ROWS, [(STORE, f"{STORE}    {dump}\n"),
                         ("def finish(i, sub_id, out,", "def finish(i, sub_id, a, out,"),
                         ("            finish(i, sub_id, out,", "            finish(i, sub_id, a, out,")])


@pytest.mark.parametrize("dump", [
    "pl.dump_data(a, [i * BLOCK + sub_id * HALF, 0], [HALF, BLOCK])",
    "pl.dump_data(a, offsets=[i * BLOCK + sub_id * HALF, 0], shapes=[HALF, BLOCK])",
    "pl.system.bar_all()\n    pl.dump_data(out, [i * BLOCK + sub_id * HALF, 0], [HALF, BLOCK])",
], ids=["input", "by-keyword", "the-rows-it-stored"])
def test_a_dumped_window_is_placed_at_its_offsets(dump):
    """`dump_data`'s offsets are argument 1: they were judged as an operand that must not vary with
    the loop (and argument 2, its shapes, taken as the place)."""
    assert error_messages(transpile(_dumped(dump), path="k.py", preload=1)) == []


def test_a_dumps_workspace_is_written():
    """`workspace=` is a GM tensor the dump writes (an Acc tile goes through it): it was no event,
    so a stage loading the tensor raced with it unseen."""
    errors = error_messages(transpile(_dumped("pl.dump_data(res, workspace=a)"), path="k.py", preload=1))
    assert errors and "`pl.dump_data` on V of AIV0 writes `a` while stage `project` (task 1), `pl.load`" in errors[0]


@pytest.mark.emulator
def test_the_emulator_runs_the_placed_dumps():
    text = _dumped("pl.dump_data(a, [i * BLOCK + sub_id * HALF, 0], [HALF, BLOCK])")
    code = transpile(text, path="k.py", preload=1).code
    rows = verify(text, code, "kern", path="k.py", shapes={"a": (96, 32), "out": (96, 32)}).rows
    assert [row.verdict for row in rows] == ["ok", "ok"]
