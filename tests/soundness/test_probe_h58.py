"""A probe (h58) found kernels accepted and wrong: a stage given a `pl.struct` writes one of its
fields, and code after the stage calls (later in the loop body, or after the loop) reads the
kernel's own struct. The pipelined stage is given its task's ctx entry in place of the struct,
so its write stays there, and the kernel's struct keeps the older value. What read it was
compared only where the order of accesses shows it: a field that only became the scalar of a
data op (`pl.muls(t, t, st.f)`) or the place of a read of a tensor nothing writes (its initial
contents, the same wherever read) was never compared. Now every op's scalars, and the place of
every GM read, are compared with the serial twin's. The kernels are the tiled-scale example,
each block's tiles a chunk, with a struct handed to the vector stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
OUT2 = ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
        "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
        "    n: pl.DT_INT32,\n")
STORE = ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
         "    pl.store(out, res, [st.i * BLOCK + sub_id * HALF, 0])\n    if j == n - 1:\n        {field}")
FINISH = ("def finish(i, sub_id,", "def finish(j, n, st, sub_id,")
LOOP = ("    for i in pl.range(core_id, n_blocks, num_cores):\n",
        "    st = pl.struct(i=0, last=0, f=1.0)\n    for j in pl.range(0, {count}):\n"
        "        i = core_id * {count} + j\n        st.i = i\n")
CALL = ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
        "            finish(j, {count}, st, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
        "    with pl.section_vector():\n        t = res_db.next()\n{after}")
#: after the loop: the field as a data op's scalar, or as the place of a read of `a`
SCALED = ("        pl.load(t, a, [core_id * BLOCK + sub_id * HALF, 0])\n        pl.muls(t, t, st.f)\n"
          "        pl.store(out2, t, [core_id * BLOCK + sub_id * HALF, 0])\n")
PLACED = ("        pl.load(t, a, [st.last * BLOCK + sub_id * HALF, 0])\n"
          "        pl.store(out2, t, [core_id * BLOCK + sub_id * HALF, 0])\n")


def _kernel(count: str, field: str, after: str) -> str:
    return edited(TILED, [OUT2, (STORE[0], STORE[1].format(field=field)), FINISH,
                          (LOOP[0], LOOP[1].format(count=count)),
                          (CALL[0], CALL[1].format(count=count, after=after))])


HOLES = {
    "a scalar after the loop, n tasks": (_kernel("n", "st.f = 2.0", SCALED), "reads `st.f` = 2.0 in the serial"),
    "a scalar after the loop, 5 tasks": (_kernel("5", "st.f = 2.0", SCALED), "reads `st.f` = 2.0 in the serial"),
    # the loop's last value, left in the struct, is a value of its count after it (probe h85): an
    # offset that moves with the count, refused for it before the runs that compare the reads
    "a read's place after the loop, n tasks": (_kernel("n", "st.last = st.i", PLACED),
                                               "reaches GM at an offset that depends on `n`, the trip count of a loop"),
    "a read's place after the loop, 5 tasks": (_kernel("5", "st.last = st.i", PLACED), "reads `st.last` = "),
}


_LOAD = "        pl.load(t, a, [core_id * BLOCK + sub_id * HALF, 0])\n"
_STORE2 = "        pl.store(out2, t, [core_id * BLOCK + sub_id * HALF, 0])\n"
_READ = "the kernel body reads `st.f` = 2.0 in the serial kernel but 1.0 in the pipelined one"
#: a second probe (h61) found the field reaching data through what the scalars above do not
#: hold: a tile operand given a number, a keyword, an element index, a load's order; the field
#: the kernel's own code reads is compared itself now, whatever it goes on to
HOLES.update({
    "the number of pl.mul": (_kernel("n", "st.f = 2.0", _LOAD + "        pl.mul(t, t, st.f)\n" + _STORE2), _READ),
    "the number of pl.add": (_kernel("n", "st.f = 2.0", _LOAD + "        pl.add(t, t, st.f)\n" + _STORE2), _READ),
    "a load's order": (_kernel("n", "st.f = 2.0", "        pl.load(t, a, [core_id * BLOCK + sub_id * HALF, 0], "
                                                  "order=[1, 0] if st.f > 1.5 else [0, 1])\n" + _STORE2), _READ),
    "an element index": (_kernel("n", "st.last = 3", _LOAD + "        v = pl.getval(t, st.last)\n"
                                                     "        pl.muls(t, t, v)\n" + _STORE2),
                         "reads `st.last` = 3 in the serial kernel but 0 in the pipelined one"),
})

#: a third probe (h62): the field read through `getattr`, and values equal under `==` but not the
#: same number (`-0.0` and `0.0`: `1 / x` tells them apart; `True` and `1`: `str` does)
_MULS = _LOAD + "        pl.muls(t, t, {})\n" + _STORE2
HOLES.update({
    "getattr": (_kernel("n", "st.f = 2.0", _MULS.format('getattr(st, "f")')),
                "reads `getattr(st, \"f\")` = 2.0 in the serial kernel but 1.0"),
    "getattr with a default": (_kernel("n", "st.f = 2.0", _MULS.format('getattr(st, "f", 0.0)')),
                               "reads `getattr(st, \"f\", 0.0)` = 2.0 in the serial kernel but 1.0"),
    "a method of the struct": (_kernel("n", "st.f = 2.0", _MULS.format('st.__getattribute__("f")')),
                               "does not follow a method of a struct (`st.__getattribute__`)"),
    "str of the struct": (_kernel("n", "st.f = 2.0", _MULS.format("float(len(str(st)))")),
                          "cannot tell what `str` does with the list, dict or struct it is given"),
    "-0.0 beside 0.0": (_kernel("n", "st.f = -0.0", _MULS.format("st.f")).replace("f=1.0)", "f=0.0)"),
                        "reads `st.f` = -0.0 in the serial kernel but 0.0 in the pipelined one"),
    "True beside 1": (_kernel("n", "st.f = True", _MULS.format("float(len(str(st.f)))")).replace("f=1.0)", "f=1)"),
                      "reads `st.f` = True in the serial kernel but 1 in the pipelined one"),
})


@pytest.mark.parametrize("name", list(HOLES))
@pytest.mark.parametrize("preload", [1, 2])
def test_a_field_a_stage_writes_read_after_the_loop_is_refused(name, preload):
    text, words = HOLES[name]
    errors = error_messages(transpile(text, path="h.py", preload=preload))
    assert len(errors) == 1 and words in errors[0], errors


@pytest.mark.emulator
@pytest.mark.parametrize("name", ["a scalar after the loop, n tasks", "a read's place after the loop, n tasks"])
def test_the_emulator_shows_them_wrong(name):
    text = HOLES[name][0]
    code = transpile(text, path="h.py", preload=1, _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = (320, 32)
    report = verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows, "out2": (96, 32)},
                    scalars={"scale": 0.5, "ApplyRelu": 0, "n": 3}, block_dim=2, seed=0)
    assert [row.verdict for row in report.rows] == ["ok", "mismatch"], report.summary()


def test_a_field_written_in_every_task_read_later_in_the_loop_body_is_refused():
    # the loop sets the field before the stages, the stage sets it, the body reads it after them
    text = edited(_kernel("5", "st.f = 2.0", SCALED), [
        ("        st.i = i\n", "        st.i = i\n        st.f = 1.0\n"),
        ("    if j == n - 1:\n        st.f = 2.0", "    st.f = 2.0"),
        ("    with pl.section_vector():\n        t = res_db.next()\n",
         "        with pl.section_vector():\n            t = tmp_db.next()\n"),
        ("            mutex_ids=[10, 11],\n        )\n",
         "            mutex_ids=[10, 11],\n        )\n        tmp_db = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x10000,\n            mutex_ids=[12, 13],\n        )\n"),
        (SCALED, SCALED.replace("        ", "            ").replace("core_id * BLOCK", "i * BLOCK"))])
    errors = error_messages(transpile(text, path="h.py", preload=1))
    assert errors and "reads `st.f` = 2.0 in the serial kernel but 1.0 in the pipelined one" in errors[0], errors


#: refused before (PTO054: a scalar or a handle?): `mode in (1, 3)` is a bool whatever `mode` is
FLAG = edited(TILED, [("def finish(i, sub_id,", "def finish(i, sub_id, double,"),
                      ("    epilogue(res, proj, scale)\n",
                       "    epilogue(res, proj, scale)\n    if double:\n        pl.muls(res, res, 2.0)\n"),
                      ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    mode: pl.DT_INT32,\n"),
                      ("    n_blocks = a.shape[0] // BLOCK\n",
                       "    n_blocks = a.shape[0] // BLOCK\n    double = mode in (1, 3)\n"),
                      ("finish(i, sub_id, tiling.scale,", "finish(i, sub_id, double, tiling.scale,")])


def test_a_flag_from_a_membership_test_is_a_scalar():
    assert error_messages(transpile(FLAG, path="flag.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.parametrize("mode", [1, 2])
def test_the_flag_runs_as_the_serial_kernel(mode):
    code = transpile(FLAG, path="flag.py", preload=1).code
    rows = (160, 32)
    report = verify(FLAG, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                    scalars={"scale": 0.5, "ApplyRelu": 1, "mode": mode}, block_dim=2, seed=0)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.summary()


#: each block sums its tiles and stores the sum at its last iteration of the per-core range
#: (`i + num_cores >= n_blocks`): refused before as a test of a per-core range's variable
LAST = ("    if i + num_cores >= n_blocks:\n        pl.store(out, accv, [core_id * BLOCK + sub_id * HALF, 0])\n")
PER_BLOCK_SUM = edited(TILED, [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
     "def finish(i, core_id, num_cores, n_blocks, sub_id, scale, out, proj_vec_db, res_db, accv):"),
    (STORE[0], "    if i == core_id:\n        pl.muls(accv, res, 1.0)\n    else:\n        pl.add(accv, accv, res)\n"
               + LAST.rstrip("\n")),
    ("            mutex_ids=[10, 11],\n        )\n",
     "            mutex_ids=[10, 11],\n        )\n        accv_g = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addrs=0x10000,\n            mutex_ids=[12],\n        )\n        accv = accv_g.current()\n"),
    ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
     "finish(i, core_id, num_cores, n_blocks, sub_id, tiling.scale, out, proj_vec_db, res_db, accv)")])


@pytest.mark.parametrize("test", ["i + num_cores >= n_blocks", "i >= n_blocks - num_cores"])
@pytest.mark.parametrize("preload", [1, 2])
def test_the_last_iteration_of_a_per_core_range_is_a_boundary_test(test, preload):
    text = PER_BLOCK_SUM.replace("i + num_cores >= n_blocks", test)
    assert error_messages(transpile(text, path="sum.py", preload=preload)) == []


@pytest.mark.emulator
def test_the_per_block_sum_runs_as_the_serial_kernel():
    code = transpile(PER_BLOCK_SUM, path="sum.py", preload=1).code
    for rows, blocks in ((32, 1), (96, 2), (224, 3), (160, 4)):
        report = verify(PER_BLOCK_SUM, code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks, seed=0)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (rows, blocks, report.summary())


@pytest.mark.parametrize("test", ["i + num_cores > n_blocks", "i + num_cores == n_blocks"])
def test_a_test_that_misses_some_last_iterations_is_refused_naming_it(test):
    errors = error_messages(transpile(PER_BLOCK_SUM.replace("i + num_cores >= n_blocks", test), path="sum.py"))
    assert errors and f"`{test}` singles out iterations other than the last of a per-core range" in errors[0], errors


def test_setting_the_field_outside_the_stages_as_the_message_says_is_proven():
    # the way out the refusal names: the kernel body sets the field, the stage only reads it
    text = edited(HOLES["a scalar after the loop, n tasks"][0], [
        ("\n    if j == n - 1:\n        st.f = 2.0", ""),
        ("        st.i = i\n", "        st.i = i\n        if j == n - 1:\n            st.f = 2.0\n")])
    assert error_messages(transpile(text, path="h.py", preload=1)) == []
