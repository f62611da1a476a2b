"""Trip counts computed from a scalar parameter by a division (`n_blocks = n_rows // BLOCK`,
`(n_rows + BLOCK - 1) // BLOCK`), as kernels whose host passes the row count write them. The
quotient is a trip-count root of its own, as one of a `pl.DYNAMIC` dimension is, and the
parameter under it is that run-time value in the runs at chosen counts, never a sample. Refused
before ("the trip count ... is not a run-time size plus a constant"). The kernels are the
tiled-scale example with the row count given as a parameter."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
PARAM = ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    n_rows: pl.DT_INT32,\n")
COUNT = "    n_blocks = a.shape[0] // BLOCK\n"
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])"
FLOOR = edited(TILED, [PARAM, (COUNT, "    n_blocks = n_rows // BLOCK\n")])
CEIL = edited(TILED, [PARAM, (COUNT, "    n_blocks = (n_rows + BLOCK - 1) // BLOCK\n")])
#: the tiles stored from the last one down: an offset by the quotient, which the argument for
#: every trip count does not cover
MIRRORED = edited(FLOOR, [(STORE, "    pl.store(out, res, [(nb - 1 - i) * BLOCK + sub_id * HALF, 0])"),
                          ("def finish(i, sub_id,", "def finish(i, nb, sub_id,"),
                          ("finish(i, sub_id, tiling.scale,", "finish(i, n_blocks, sub_id, tiling.scale,")])
#: the row count itself in an offset: a run-time value the run does not sample
BY_ROWS = edited(FLOOR, [(STORE, "    pl.store(out, res, [n_rows - (i + 1) * BLOCK + sub_id * HALF, 0])"),
                         ("def finish(i, sub_id,", "def finish(i, n_rows, sub_id,"),
                         ("finish(i, sub_id, tiling.scale,", "finish(i, n_rows, sub_id, tiling.scale,")])


@pytest.mark.parametrize("name, text", [("floor", FLOOR), ("ceil", CEIL)])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_count_divided_from_a_parameter_is_proven(name, text, preload):
    assert error_messages(transpile(text, path=f"{name}.py", preload=preload)) == []


def _runs_as_serial(text: str, preload: int, cases) -> None:
    """The pipelined kernel runs as the serial one on the emulator at each (n_rows, blocks)."""
    code = transpile(text, path="k.py", preload=preload).code
    assert code is not None
    rows = (160, 32)
    for n_rows, blocks in cases:
        report = verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                        scalars={"scale": 0.5, "ApplyRelu": 1, "n_rows": n_rows}, block_dim=blocks, seed=0)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (n_rows, blocks)


@pytest.mark.emulator
@pytest.mark.parametrize("text", [FLOOR, CEIL], ids=["floor", "ceil"])
def test_it_runs_as_the_serial_kernel_for_several_counts_and_blocks(text):
    _runs_as_serial(text, 1, ((160, 1), (130, 2), (96, 3), (33, 2), (0, 2)))


def test_an_offset_by_the_quotient_is_refused_naming_it():
    errors = error_messages(transpile(MIRRORED, path="mirrored.py", preload=1))
    assert len(errors) == 1, errors
    assert "reaches GM at an offset that depends on `n_rows // 32`, the trip count of a loop" in errors[0], errors


def test_an_offset_by_the_parameter_itself_is_not_sampled():
    # `n_rows` is the run-time value under the root: its offsets reach anywhere in `out`
    errors = error_messages(transpile(BY_ROWS, path="by_rows.py", preload=1))
    assert errors and all("writes `out` while" in e for e in errors), errors


#: the last tile short, as the README's row tail (`rows = pl.min(BLOCK, n_rows - i * BLOCK)` and a
#: valid shape): refused at first (the discovery run took `n_rows` as a number beside its quotient)
TAIL = edited(CEIL, [
    ("def finish(i, sub_id,", "def finish(i, nr, sub_id,"),
    (STORE, "    rows = pl.min(BLOCK, nr - i * BLOCK)\n    if rows - sub_id * HALF > 0:\n"
            "        pl.set_validshape(res, [pl.min(HALF, rows - sub_id * HALF), BLOCK])\n"
            "        pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])"),
    ("finish(i, sub_id, tiling.scale,", "finish(i, n_rows, sub_id, tiling.scale,")])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_row_tail_of_the_parameter_is_proven(preload):
    assert error_messages(transpile(TAIL, path="tail.py", preload=preload)) == []


@pytest.mark.emulator
def test_the_row_tail_runs_as_the_serial_kernel():
    _runs_as_serial(TAIL, 2, ((130, 1), (100, 2), (33, 3), (1, 2)))


#: the quotient split over the blocks in runs of consecutive tiles: refused at first (the runs at
#: chosen counts sampled `n_rows`, whose quotient the root, a `min`, only holds)
SPLIT = edited(CEIL, [("    for i in pl.range(core_id, n_blocks, num_cores):\n",
                       "    per = (n_blocks + num_cores - 1) // num_cores\n"
                       "    for j in pl.range(0, pl.min(per, n_blocks - core_id * per)):\n"
                       "        i = core_id * per + j\n")])


def test_a_quotient_split_in_chunks_over_the_blocks_is_proven():
    assert error_messages(transpile(SPLIT, path="split.py", preload=1)) == []


def test_a_chunk_one_tile_too_long_is_refused():
    errors = error_messages(transpile(SPLIT.replace("pl.min(per, ", "pl.min(per + 1, "), path="split.py"))
    assert errors and "reaches past its block's own chunk" in errors[0], errors


@pytest.mark.emulator
def test_the_split_runs_as_the_serial_kernel():
    _runs_as_serial(SPLIT, 1, ((160, 3), (130, 2), (33, 4), (0, 2)))
