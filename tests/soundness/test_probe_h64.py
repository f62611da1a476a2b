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
