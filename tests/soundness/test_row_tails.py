"""Row counts that are not a multiple of the tile: the last block is a tail.

The tiled_scale example, edited the way production kernels handle a tail: the block count
rounds up, `rows = pl.min(BLOCK, m - i * BLOCK)` travels to both stages (a scalar: `pl.min`
of numbers, an integer ctx field), and each vector core stores only its own rows of the
block under a valid shape. With the store offset a multiple of the loop variable and the
subblock index, the check proves it for every row count; with an offset computed from
`rows` (where the store lands depends on a run-time value) it is refused, naming that."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

EXAMPLE = Path(__file__).parents[2] / "examples" / "tiled_scale.py"

_TAIL = (
    ("def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db):\n    cur_a = a_l1_db.next()\n",
     "def project(i, rows, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db):\n"
     "    cur_a = a_l1_db.next()\n    pl.set_validshape(cur_a, [rows, BLOCK])\n"),
    ("    n_blocks = a.shape[0] // BLOCK\n",
     "    m_total = a.shape[0]\n    n_blocks = (m_total + BLOCK - 1) // BLOCK\n"),
    ("        with pl.section_cube():\n            project(i, a,",
     "        rows = pl.min(BLOCK, m_total - i * BLOCK)\n"
     "        with pl.section_cube():\n            project(i, rows, a,"),
    ("finish(i, sub_id, tiling.scale,", "finish(i, sub_id, rows, tiling.scale,"),
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
     "def finish(i, sub_id, rows, scale, out, proj_vec_db, res_db):"),
)
_BODY = ("    epilogue(res, proj, scale)\n"
         "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n")
#: each core stores its own rows of the block, at a static offset, shortened by a valid shape
OWN_ROWS = ("    mine = pl.min(HALF, rows - sub_id * HALF)\n"
            "    if mine > 0:\n"
            "        pl.set_validshape(res, [mine, BLOCK])\n"
            "        epilogue(res, proj, scale)\n"
            "        pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n")
#: the Acc split in two halves of the valid rows: where AIV1's half lands depends on `rows`
SPLIT_HALVES = ("    half = (rows + 1) // 2\n"
                "    pl.set_validshape(proj, [half, BLOCK])\n"
                "    pl.set_validshape(res, [half, BLOCK])\n"
                "    epilogue(res, proj, scale)\n"
                "    pl.store(out, res, [i * BLOCK + sub_id * half, 0])\n")


def tail_kernel(body: str) -> str:
    text = EXAMPLE.read_text()
    for old, new in (*_TAIL, (_BODY, body)):
        assert old in text, old
        text = text.replace(old, new)
    return text


def _errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("preload", [1, 2])
def test_a_tail_stored_at_static_offsets_under_a_valid_shape_is_accepted(preload):
    result = transpile(tail_kernel(OWN_ROWS), path="tail.py", preload=preload)
    assert _errors(result) == []
    assert "rows=0" in result.code.replace(" ", "")  # `rows` travels in an integer ctx field


@pytest.mark.parametrize("rows, block_dim", [(66, 1), (80, 3), (104, 2)])
def test_the_tail_kernel_verifies_on_the_emulator(rows, block_dim):
    text = tail_kernel(OWN_ROWS)
    piped = transpile(text, path="tail.py", preload=2).code
    report = verify(text, piped, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                    scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=block_dim)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows


def test_an_offset_computed_from_the_tail_is_refused_naming_what_is_not_known():
    result = transpile(tail_kernel(SPLIT_HALVES), path="split.py", preload=1)
    assert result.code is None
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert "where `out` is reached is not known" in error.message
    assert "`(a.shape[0] + 32 - 1) // 32` = " in error.message  # the trip count as written, not a tree of op names
    assert "pl.set_validshape(res, [pl.min(HALF, rows - sub_id * HALF), BLOCK])" in error.hint


@pytest.mark.parametrize("guard", ["", "    if mine > 0:\n"])
def test_both_cores_storing_their_tail_on_the_same_rows_are_refused(guard):
    # a valid shape known only at run time is a superset, but both stores start on the same
    # row, which both write; under a run-time `if` both may run
    indent = "    " if guard else ""
    body = ("    mine = pl.min(HALF, rows - sub_id * HALF)\n" + guard
            + indent + "    pl.set_validshape(res, [mine, BLOCK])\n"
            + indent + "    epilogue(res, proj, scale)\n"
            + indent + "    pl.store(out, res, [i * BLOCK, 0])\n")
    result = transpile(tail_kernel(body), path="same.py", preload=1)
    assert result.code is None
    (message,) = _errors(result)
    assert "`pl.store` on MTE3 of AIV0 writes `out[0:16, 0:32]` while the same op on AIV1 writes" in message
    assert ("if a condition the check cannot decide lets both run it" in message) == bool(guard)


def test_leaving_a_stage_early_on_the_tail_is_refused_at_the_return_with_the_form_that_is_proven():
    body = ("    mine = pl.min(HALF, rows - sub_id * HALF)\n"
            "    if mine <= 0:\n"
            "        return\n"
            "    pl.set_validshape(res, [mine, BLOCK])\n"
            "    epilogue(res, proj, scale)\n"
            "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n")
    text = tail_kernel(body)
    result = transpile(text, path="early.py", preload=1)
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert "`return` under a condition the check cannot decide" in error.message
    assert text.splitlines()[error.line - 1].strip() == "return"
    assert "`if mine > 0:` around the rest of the stage" in error.hint


def test_both_cores_storing_tails_that_may_overlap_are_refused():
    # the halves start 8 rows apart, each up to 16 rows long: they overlap whenever a core has
    # more than 8 rows, which the valid shape, known only at run time, allows
    body = ("    mine = pl.min(HALF, rows - sub_id * HALF)\n"
            "    if mine > 0:\n"
            "        pl.set_validshape(res, [mine, BLOCK])\n"
            "        epilogue(res, proj, scale)\n"
            "        pl.store(out, res, [i * BLOCK + sub_id * 8, 0])\n")
    (message,) = _errors(transpile(tail_kernel(body), path="overlap.py", preload=1))
    assert "writes `out[0:16, 0:32]` while the same op on AIV1 writes `out[8:24, 0:32]`" in message
    assert "where the valid shapes known only at run time let both reach the same elements" in message


@pytest.mark.parametrize("rows, block_dim", [(80, 1), (104, 2)])
def test_the_tail_written_inline_in_the_stage_calls_travels_with_its_iteration(rows, block_dim):
    # a probe's kernel: `pl.min(BLOCK, a.shape[0] - i * BLOCK)` written in the calls reads a
    # tensor and the loop variable; it was passed as written, and the delayed `finish` computed
    # the next block's tail (the emulator: a mismatch). It travels in the ctx ring now
    text = tail_kernel(OWN_ROWS).replace("        rows = pl.min(BLOCK, m_total - i * BLOCK)\n", "").replace(
        "            project(i, rows, ", "            project(i, pl.min(BLOCK, a.shape[0] - i * BLOCK), ").replace(
        "            finish(i, sub_id, rows,", "            finish(i, sub_id, pl.min(BLOCK, a.shape[0] - i * BLOCK),")
    assert "pl.min(BLOCK, a.shape[0] - i * BLOCK)" in text
    result = transpile(text, path="tail.py", preload=1)
    assert _errors(result) == []
    assert "_pl_arg_finish_2=0" in result.code.replace(" ", "")  # an integer ctx field
    report = verify(text, result.code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                    scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=block_dim)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows



def test_an_element_of_a_tensor_passed_to_a_stage_travels_with_its_iteration():
    # a probe's kernel: `sc[i]` written in the call was taken as a handle (a subscript of the
    # tensor) and passed as written: the delayed `finish` read the next block's scale (the
    # emulator: a mismatch). An element is a number of the iteration: it travels
    text = tail_kernel(OWN_ROWS).replace("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n"
                                         "    sc: pl.Tensor[[pl.DYNAMIC], pl.DT_FP32],\n").replace(
        "            finish(i, sub_id, rows, tiling.scale,", "            finish(i, sub_id, rows, sc[i],")
    assert "sc[i]," in text
    result = transpile(text, path="tail.py", preload=1)
    assert _errors(result) == []
    assert "_pl_arg_finish_3" in result.code
    report = verify(text, result.code, "tiled_scale_kernel", shapes={"a": (80, 32), "out": (80, 32), "sc": (3,)},
                    scalars={"scale": 0.5, "ApplyRelu": 1})
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows



def test_a_valid_shape_set_at_run_time_in_one_stage_and_used_in_another_is_refused():
    # a probe's kernel: `fill_row` sets the shape of `y_db`'s slot from a GM read, `scale_store`
    # (a beat later) computes and stores under it; pipelined, the next task's `fill_row` resets it
    # first (the emulator: a mismatch). A shape known only at run time was taken as the largest in
    # both runs, so nothing differed
    base = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text()
    text = edited(base, [
        ("def fill_row(ki, sub_id, out, z_vec):\n",
         "def fill_row(ki, sub_id, out, z_vec, y_db, sc):\n    w = y_db.current()\n"
         "    pl.set_validshape(w, [sc[ki] % 8 + 8, TILE])\n"),
        ("    y = y_db.next()\n", "    y = y_db.current()\n"),
        ("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    sc: pl.Tensor[[N], pl.DT_INT32],\n"),
        ("fill_row(ki, sub_id, out, z_vec)\n", "fill_row(ki, sub_id, out, z_vec, y_db, sc)\n")])
    errors = _errors(transpile(text, path="k.py"))
    assert errors and all("uses a tile whose valid shape stage `fill_row` in task 0 set in the serial kernel but stage "
                          "`fill_row` in task 1 in the pipelined one" in e for e in errors), errors
