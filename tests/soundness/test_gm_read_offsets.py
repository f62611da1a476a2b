"""A value the kernel reads from GM once, before its loops, is a run-time value like a scalar
parameter: the offset `(starts[0] + i) * T` of a grouped matmul is proven for every value it
can take, as `(start + i) * T` is for a parameter `start`. It was taken as an offset of unknown
place (every element of `out`), and the kernel refused as racing with itself. A defect that
shows only for some values of the read (a store one block short, racing at `starts[0] = 0`;
a store under `if s0 == 7:`) is refused; a value read inside the loop belongs to its iteration
and stays an offset of unknown place."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import edited, error_messages
from pto_transpile import codes, transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parent / "kernels" / "group_from_gm.py").read_text()
NAME = "grouped_mm_kernel"
#: the cube stage also stores its product, at the rows of its own block
CUBE_STORES = [
    ("def gmm_stage(blk, g, x, w,", "def gmm_stage(blk, g, s0, x, w, out,"),
    ("gmm_stage(start + i, g, x, w,", "gmm_stage(start + i, g, start, x, w, out,"),
]


def _verify(text: str, code: str, start: int, count: int):
    rows = (start + count + 2) * 32
    return verify(text, code, NAME, shapes={"x": (rows, 64), "out": (rows, 64)}, scalars={"alpha": 0.5},
                  tensors={"starts": np.array([start, 0, 0, 0], dtype=np.int32),
                           "counts": np.array([count, 0, 0, 0], dtype=np.int32)})


def test_an_offset_read_from_gm_before_the_loop_is_proven_and_verified():
    result = transpile(KERNEL, path="group.py")
    assert error_messages(result) == []
    for start, count in ((0, 0), (1, 3), (3, 4)):
        report = _verify(KERNEL, result.code, start, count)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (start, count, report.rows)


def test_a_store_that_races_only_when_the_read_value_is_0_is_refused():
    # the vector stage stores block i + 1 whatever the group's start: at starts[0] = 0 the cube's
    # store of block i + 1 (one task later) runs ahead of the vector stage's store of it
    text = edited(KERNEL, CUBE_STORES + [
        ("    pl.matmul(acc, left, right)\n",
         "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [blk * T, 0])\n"),
        ("scale_store(start + i, sub_id", "scale_store(i + 1, sub_id"),
    ])
    (message,) = error_messages(transpile(text, path="group.py"))
    assert "its accesses are offset by the run-time value of `starts[0]` differently" in message
    code = transpile(text, path="group.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert [row.verdict for row in _verify(text, code, 0, 3).rows] == ["ok", "race"]
    assert [row.verdict for row in _verify(text, code, 2, 3).rows] == ["ok", "ok"]


def test_a_store_under_a_test_on_the_read_value_is_run_where_the_test_holds():
    text = edited(KERNEL, CUBE_STORES + [
        ("    pl.matmul(acc, left, right)\n",
         "    pl.matmul(acc, left, right)\n    if s0 == 7:\n        pl.store(out, acc, [(blk - 1) * T, 0])\n"),
    ])
    # the store runs only at starts[0] = 7, which no sample is: the run there found it
    (message,) = error_messages(transpile(text, path="group.py"))
    assert "`pl.store(out, acc, [(blk - 1) * T, 0])` and `pl.store(out, yv, [blk * T + sub_id * HALF, 0])` " \
           "do not stay within one stride" in message


def test_a_value_read_in_the_loop_is_an_offset_of_unknown_place():
    text = edited(KERNEL, [("            scale_store(start + i, sub_id", "            scale_store(starts[i], sub_id")])
    (message,) = error_messages(transpile(text, path="group.py"))
    assert "where `out` is reached is not known" in message


def test_the_two_vector_cores_reading_starts_sub_id_read_two_values():
    text = edited(KERNEL, [
        ("        sub_id = pl.get_subblock_idx()\n",
         "        sub_id = pl.get_subblock_idx()\n        mine = starts[sub_id]\n"),
        ("scale_store(start + i, sub_id", "scale_store(mine + i, sub_id"),
    ])
    (message,) = error_messages(transpile(text, path="group.py"))
    assert "offset by the run-time value of `starts[0]`, `starts[1]` differently" in message


def test_a_setval_into_gm_is_a_write_and_a_value_read_before_it_is_not_one_value():
    # the vector stage writes (`pl.setval`, taken for a read of GM before) the element the kernel
    # body reads for the next task: pipelined, the read runs before the write it sees serially
    text = edited(KERNEL, [
        ("def scale_store(blk, sub_id, alpha, out, y_vec_db):",
         "def scale_store(blk, s, sub_id, alpha, starts, out, y_vec_db):"),
        ("    pl.muls(yv, yv, alpha)\n", "    pl.setval(starts, 1 + sub_id, 1)\n    pl.adds(yv, yv, s)\n"),
        ("    for i in pl.range(0, cnt):\n",
         "    for i in pl.range(0, cnt):\n        with pl.section_vector():\n            s = starts[1 + sub_id]\n"),
        ("scale_store(start + i, sub_id, alpha, out, y_vec_db)",
         "scale_store(i, s, sub_id, alpha, starts, out, y_vec_db)"),
    ])
    (message,) = error_messages(transpile(text, path="group.py"))
    # each vector core writes and reads its own element: the difference is which write a read sees
    line = text.splitlines().index("            s = starts[1 + sub_id]") + 1
    assert f"the kernel body at line {line}, `getval` on S of AIV0 reads `starts[1]`: in the serial kernel it sees " \
           "stage `scale_store` (task 0), `setval` on S of AIV0, in the pipelined kernel no write" in message, message
    code = transpile(text, path="group.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert _verify(text, code, 1, 3).rows[1].verdict != "ok"


@pytest.mark.parametrize("helper", ["def first(t):\n    return pl.getval(t, 0)\n",
                                    "def first(t) -> int:\n    return t[0]\n"], ids=["getval", "annotated"])
def test_a_value_read_by_a_helper_and_passed_whole_to_a_stage_is_a_scalar(helper):
    # its kind comes from the helper's return annotation or from what every `return` gives, its
    # type from the element it reads: it travels in the ctx ring (PTO054/PTO072 refused it)
    text = edited(KERNEL, [
        ("@pl.jit(", helper + "\n\n@pl.jit("), ("    start = starts[0]\n", "    start = first(starts)\n"),
        ("def scale_store(blk, sub_id,", "def scale_store(blk0, i, sub_id,"),
        ("    pl.store(out, yv, [blk * T + sub_id * HALF, 0])",
         "    pl.store(out, yv, [(blk0 + i) * T + sub_id * HALF, 0])"),
        ("scale_store(start + i, sub_id,", "scale_store(start, i, sub_id,"),
    ])
    result = transpile(text, path="group.py")
    assert error_messages(result) == []
    for start, count in ((0, 2), (2, 3)):
        assert [row.verdict for row in _verify(text, result.code, start, count).rows] == ["ok", "ok"]


def test_too_many_cases_name_the_test_that_cut_the_values():
    """Probe h241: `abs` of four int elements read by number (a static loop of four) cut each at 0,
    more cases than the check runs; the refusal named the elements only, as "tests" of a kernel that
    writes none. It names the test's code, and the help speaks of values read from GM."""
    text = (Path(__file__).parent / "kernels" / "factor_in_body.py").read_text()
    text = edited(text, [("factors: pl.Tensor[[N], pl.DT_FP32]", "factors: pl.Tensor[[N], pl.DT_INT32]"),
                         ("f = factors[ki]", "f = abs(factors[ki])")])
    (found,) = [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert "the tests on `factors[0]`, `factors[1]`, `factors[2]`, `factors[3]` (`abs(factors[ki])`) split" \
        in found.message, found.message
    assert "an element read from GM by number" in found.hint, found.hint
