"""Values the check took for whole numbers, or for the wrong class's fields, found by a hostile
probe (h64). Each kernel is the tiled-scale example with the shift of test_runtime_values.py: a
test on a run-time value moves the vector stage's store one block down, where it races with the
next task's cube store once pipelined. The check followed the test at sampled whole numbers (or
not at all) and never took the shifting branch; the emulator shows the race at a fraction.

* an element of a floating-point GM tensor read once before the loop (`d = pl.getval(params,
  0)`) was sampled as an integer, as an integer tensor's element is: now data;
* a parameter without an annotation and an integer default (`d=0`) was taken to be an integer,
  though a launch may pass `0.5`: now data, as a float parameter is;
* the tiling-data class was found by its name's first `class` statement, not by what the name
  means at the kernel (a second definition, an alias `ScaleTiling = ScaleTilingV2`), and its
  field annotations were trusted when a method (`__post_init__`) may set a field to a fraction;
* a field of tiling data set in a cube stage and read in a vector stage was let through: now
  refused as what the pipeline does not carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
#: project also stores A_i @ W to out[i]; finish stores one block down when `sh` is 1
SHIFT = [("def project(i, a, w_slot,", "def project(i, a, out, w_slot,"),
         ("    pl.matmul(acc, left, right)\n",
          "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [i * BLOCK, 0])\n"),
         ("project(i, a, w_slot,", "project(i, a, out, w_slot,"),
         ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
          "def finish(i, sub_id, scale, d, out, proj_vec_db, res_db):\n    sh = 1 if 0 < d < 1 else 0\n"),
         ("pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
          "pl.store(out, res, [(i + sh) * BLOCK + sub_id * HALF, 0])")]
CLASS = '''@dataclass
class ScaleTiling:
    """Tiling data computed on the host."""

    scale: float
'''
BY_MODE = ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, tiling.scale, tiling.mode, out,")


def _gm(dtype: str) -> str:
    return edited(TILED, [*SHIFT, ("    tiling: ScaleTiling,\n):",
                                   f"    tiling: ScaleTiling,\n    params: pl.Tensor[[1, 8], {dtype}],\n):"),
                          ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = a.shape[0] // BLOCK\n"
                                                                   "    d = pl.getval(params, 0)\n"),
                          ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, tiling.scale, d, out,")])


GM_FLOAT = _gm("pl.DT_FP32")
UNANNOTATED = edited(TILED, [*SHIFT, ("    tiling: ScaleTiling,\n):", "    tiling: ScaleTiling,\n    d=0,\n):"),
                             ("    n_blocks = a.shape[0] // BLOCK\n",
                              "    n_blocks = a.shape[0] // BLOCK\n    half = 0\n"
                              "    if 0 < d < 1:\n        half = 1\n"),
                             ("finish(i, sub_id, tiling.scale, out,",
                              "finish(i, sub_id, tiling.scale, half * 0.5, out,")])
REDEFINED = edited(TILED, [*SHIFT, BY_MODE, (CLASS, CLASS + "    mode: int\n\n\n" + CLASS + "    mode: float\n")])
ALIASED = edited(TILED, [*SHIFT, BY_MODE, (CLASS, CLASS + "    mode: int\n\n\n"
                                           + CLASS.replace("ScaleTiling:", "ScaleTilingV2:")
                                           + "    mode: float\n\n\nScaleTiling = ScaleTilingV2\n")])
POST_INIT = edited(TILED, [*SHIFT, BY_MODE, (CLASS, CLASS + "    mode: int\n\n    def __post_init__(self):\n"
                                                   "        self.mode = self.mode / 4\n")])
#: the cube stage sets a field of the tiling data that the vector stage scales by
FIELD_SET = edited(TILED, [(CLASS, CLASS + "    mode: int\n"),
                           ("def project(i, a, w_slot,", "def project(i, a, tiling, w_slot,"),
                           ("    cur_a = a_l1_db.next()\n", "    tiling.mode = i + 1\n    cur_a = a_l1_db.next()\n"),
                           ("project(i, a, w_slot,", "project(i, a, tiling, w_slot,"),
                           ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
                            "def finish(i, sub_id, tiling, out, proj_vec_db, res_db):"),
                           ("    epilogue(res, proj, scale)", "    epilogue(res, proj, tiling.scale * tiling.mode)"),
                           ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, tiling, out,")])


@pytest.mark.parametrize("text", [GM_FLOAT, UNANNOTATED, REDEFINED, ALIASED, POST_INIT],
                         ids=["float GM element", "no annotation", "class defined twice", "class alias", "post_init"])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_fraction_the_check_took_for_a_whole_number_is_followed_and_the_race_found(text, preload):
    errors = error_messages(transpile(text, path="k.py", preload=preload))
    assert errors and "writes `out`" in errors[0], errors


def test_an_integer_gm_element_is_still_sampled_as_one():
    """No whole number lies strictly between 0 and 1: the branch is never taken, and the kernel is
    right for every value of an integer tensor's element."""
    assert error_messages(transpile(_gm("pl.DT_INT32"), path="k.py", preload=1)) == []


def test_a_field_of_tiling_data_set_in_a_stage_is_refused_naming_it():
    errors = error_messages(transpile(FIELD_SET, path="k.py", preload=1))
    assert len(errors) == 1 and "`tiling.mode` sets a field of tiling data" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_shows_the_fractions_wrong():
    shapes = {"a": (160, 32), "out": (192, 32)}
    for text, scalars, seed, preload in ((GM_FLOAT, {"scale": 0.5, "ApplyRelu": 1}, 6, 1),
                                         (REDEFINED, {"scale": 0.5, "mode": 0.5, "ApplyRelu": 1}, 0, 1),
                                         (UNANNOTATED, {"scale": 0.5, "d": 0.5, "ApplyRelu": 0}, 0, 2)):
        code = transpile(text, path="k.py", preload=preload, _skip_rules=["PTO061"]).code
        report = verify(text, code, "tiled_scale_kernel", shapes=shapes, scalars=scalars, block_dim=1, seed=seed)
        assert [row.verdict for row in report.rows][0] == "ok" and report.rows[-1].verdict != "ok", scalars


def _by_parameter(test: str) -> str:
    """The shift decided by `test` of an integer parameter `d`."""
    return edited(TILED, [*SHIFT, ("    tiling: ScaleTiling,\n):", "    tiling: ScaleTiling,\n    d: pl.DT_INT32,\n):"),
                          ("    sh = 1 if 0 < d < 1 else 0\n", f"    sh = 1 if {test} else 0\n"),
                          ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, tiling.scale, d, out,")])


def test_a_residue_of_a_parameter_that_bounds_no_loop_joins_no_period():
    """`d % 1024` of an alignment test: the discovery run follows every integer parameter as a size
    (it may bound a loop), and its residues joined the loops' period: 1,035 runs, refused past the
    limit of 600 (`d % 128`: accepted after 3 minutes; `d % 512`: 5 GB). The parameter's tests are
    cut where they change instead, as for any sampled parameter."""
    assert error_messages(transpile(_by_parameter("d % 1024 == 0 and False"), path="k.py", preload=1)) == []
    errors = error_messages(transpile(_by_parameter("d % 1024 == 5"), path="k.py", preload=1))
    assert errors and "`out` is written in a loop of run-time trip count" in errors[0], errors


LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
#: each core doubles its first block: `gain` is bound at the top of every iteration, before any read
GAIN = edited(TILED, [(LOOP, LOOP + "        gain = 2.0 if i == core_id else 1.0\n"),
                      ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, gain, out,")])
#: the same flag carried: read by the stage before the iteration binds it again
CARRIED = edited(TILED, [(LOOP, "    gain = 2.0\n" + LOOP),
                         ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
                          "finish(i, sub_id, gain, out, proj_vec_db, res_db)\n        gain = 1.0\n")])


def test_a_number_bound_before_any_read_in_every_iteration_is_not_carried():
    """Refused before as "`gain` carries a value from one iteration to the next" (the rule is for a
    name an iteration may read before it binds it). Carried, the same flag differs at the first
    iteration's start only: it singles out the first iteration (`test_first_flag.py`); a value
    that changes at every iteration's start is still refused."""
    assert error_messages(transpile(GAIN, path="k.py", preload=1)) == []
    assert error_messages(transpile(CARRIED, path="k.py", preload=1)) == []
    halved = CARRIED.replace("        gain = 1.0\n", "        gain = gain * 0.5\n")
    errors = error_messages(transpile(halved, path="k.py", preload=1))
    assert len(errors) == 1 and "`gain` carries a value from one iteration to the next" in errors[0], errors


@pytest.mark.emulator
@pytest.mark.parametrize("text", [GAIN, CARRIED], ids=["bound", "carried"])
def test_it_runs_as_the_serial_kernel(text):
    code = transpile(text, path="k.py", preload=1).code
    for rows, blocks in ((160, 1), (96, 2), (160, 3)):
        report = verify(text, code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks, seed=0)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (rows, blocks)


KERNELS = Path(__file__).parent / "kernels"
#: a vector function whose loop runs `n - Wide` times, `Wide` a tiling-key field: 16 or 15
#: registers, inside the tile in both instances (refused before: the field was unknown there)
KEYED_VF = edited((KERNELS / "store_offset_param.py").read_text(), [
    ("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"
                                          "from pypto_pro.runtime.tilingkey import TilingKeyField\n"),
    ("\n\n@pl.pipeline.stage\ndef mm_stage", "\n\nclass FillKey:\n"
                                             "    Wide = TilingKeyField(bits=1, values=[0, 1])\n\n\n"
                                             "@pl.vector_function\ndef fill_vf(t, n):\n"
                                             "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
                                             "    x = vf.full(2.0, p32)\n"
                                             "    for i in pl.range(0, n - Wide):  # noqa: F821\n"
                                             "        vf.store_align(t + 64 * i, x, p32)\n\n\n"
                                             "@pl.pipeline.stage\ndef mm_stage"),
    ("    pl.relu(y, c_vec)\n    pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])",
     "    pl.relu(c_vec, c_vec)\n    fill_vf(y, 16)\n    pl.set_validshape(y, [HALF, TILE])\n"
     "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])"),
    ("@pl.jit(auto_mutex=True, pipeline=", "@pl.jit(auto_mutex=True, tiling_key=FillKey, pipeline="),
    ("        y_db = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),",
     "        y_db = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),"),
])


def test_a_tiling_key_field_is_bound_in_a_vector_function_per_instance():
    assert error_messages(transpile(KEYED_VF, path="k.py", preload=1)) == []
    # 16 + 60 * Wide registers: past the tile into the next slot in the instance Wide = 1 only
    wide = KEYED_VF.replace("range(0, n - Wide)", "range(0, n + 60 * Wide)")
    errors = error_messages(transpile(wide, path="k.py", preload=1))
    assert errors and "Wide=1" in errors[0], errors


@pytest.mark.emulator
@pytest.mark.parametrize("wide", [0, 1])
def test_the_keyed_vector_function_runs_as_the_serial_kernel(wide):
    code = transpile(KEYED_VF, path="k.py", preload=1).code
    report = verify(KEYED_VF, code, "kernel", shapes={}, scalars={"d": 0, "Wide": wide}, block_dim=1, seed=0)
    assert [row.verdict for row in report.rows] == ["ok", "ok"]
