"""The two vector cores' copies of one op run at the same time, in the serial kernel too.

A store both vector cores make to the same GM rows (an offset missing `sub_id * HALF`) is a
race no sync can order; the emulator reports it in the serial kernel. The check refuses it
whatever the preload, and accepts the kernel once each core has its own rows or one core
does the store. The kernels are the tiled_scale example with its store offset edited."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

EXAMPLE = Path(__file__).parents[2] / "examples" / "tiled_scale.py"
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
SHAPES = {"a": (96, 32), "out": (96, 32)}
ARGS = {"scale": 0.5, "ApplyRelu": 0}


def _edited(store: str) -> str:
    text = EXAMPLE.read_text()
    assert STORE in text
    return text.replace(STORE, store)


def _errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("store", [
    "    pl.store(out, res, [i * BLOCK, 0])\n",  # both halves land on the first half
    "    pl.store(out, res, [i * BLOCK + sub_id * 8, 0])\n",  # the halves overlap by 8 rows
])
@pytest.mark.parametrize("preload", [0, 1, 2])
def test_both_vector_cores_storing_the_same_rows_are_refused(store, preload):
    result = transpile(_edited(store), path="twin.py", preload=preload)
    assert result.code is None
    (message,) = _errors(result)
    assert "`pl.store` on MTE3 of AIV0 writes `out[0:16, 0:32]` while the same op on AIV1 writes" in message
    assert "both vector cores run it at once" in message
    (diag,) = [d for d in result.diagnostics if d.severity == "error"]
    assert diag.code == "PTO061" and "pl.get_subblock_idx()" in diag.hint


def test_the_emulator_finds_the_same_race_in_the_serial_kernel():
    text = _edited("    pl.store(out, res, [i * BLOCK, 0])\n")
    piped = transpile(EXAMPLE.read_text(), path="tiled_scale.py", preload=1).code
    report = verify(text, piped, "tiled_scale_kernel", shapes=SHAPES, scalars=ARGS)
    assert report.rows[0].verdict != "ok" and "race" in report.rows[0].message


@pytest.mark.parametrize("store", [
    STORE,
    "    if sub_id == 0:\n        pl.store(out, res, [i * BLOCK, 0])\n",  # one core stores
])
def test_each_core_with_its_own_rows_or_one_core_storing_is_accepted_and_verified(store):
    text = _edited(store)
    result = transpile(text, path="own.py", preload=2)
    assert _errors(result) == []
    report = verify(text, result.code, "tiled_scale_kernel", shapes=SHAPES, scalars=ARGS, block_dim=2)
    assert [row.verdict for row in report.rows] == ["ok"] * len(report.rows), report.rows


def _inserting(valid: str, row: str) -> str:
    """The seed demo whose vector cores insert their halves into the cube's L1 tile with a
    valid shape and a row offset that may depend on a scalar `s`."""
    demo = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()
    edits = [("def stage2(ki, sub_id, mm1_vec_db,", "def stage2(ki, s, sub_id, mm1_vec_db,"),
             ("    relu_nz = relu_nz_db.next()\n",
              f"    relu_nz = relu_nz_db.next()\n    pl.set_validshape(relu_nz, [{valid}, TILE])\n"),
             ("    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])", f"    pl.insert(p_mat, relu_nz, [{row}, 0])"),
             ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n",
              "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n    s: pl.DT_INT32,\n"),
             ("            stage2(ki, sub_id,", "            stage2(ki, s, sub_id,")]
    return edited(demo, edits)


def test_an_insert_into_the_cube_buffer_under_a_run_time_valid_shape_is_accepted():
    # each vector core inserts at most its declared half at its own rows of the L1 tile
    assert _errors(transpile(_inserting("pl.min(s, TILE_HALF)", "sub_id * TILE_HALF"), path="insert.py")) == []


@pytest.mark.parametrize("valid, row, words", [
    ("s", "sub_id * 16", "writes `p_mat_db[0][16:48, 0:64]`"),  # up to 32 rows each, 16 apart
    ("TILE_HALF", "sub_id * (s + 8)", "writes `p_mat_db[0]`"),  # AIV1's rows are known only at run time
])
def test_inserts_of_both_vector_cores_that_may_overlap_are_refused(valid, row, words):
    # found by a probe: the emulator reports the race on L1 at s = 32 (and s = 5)
    (message,) = _errors(transpile(_inserting(valid, row), path="insert.py"))
    assert "`pl.insert` on MTE3 of AIV0 writes `p_mat_db[0][0:32, 0:64]` while the same op on AIV1 " + words in message
    assert "where the valid shapes known only at run time let both reach the same elements" in message
