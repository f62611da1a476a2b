"""A 2-D grid of tiles walked by one strided index, the way PyPTO's multi-core tutorial splits
work: `for idx in pl.range(core_id, m_tiles * n_tiles, num_cores)` with the tile's row and
column read back as `i = idx // n_tiles`, `j = idx % n_tiles` (examples/tiled_grid.py). Two
iterations have different `idx`, so different `(i, j)` for every `n_tiles >= 1`, and an access
placed by the row along one axis and the column along another keeps them apart (docs/design.md,
"A tile grid"). Refused before: "`idx // n_tiles` divides the loop variable", or a race on a
place "not known". The kernels are edits of the example."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

GRID = (Path(__file__).parents[2] / "examples" / "tiled_grid.py").read_text()
ROW_COL = "        i = idx // n_tiles  # the tile's row\n        j = idx % n_tiles  # and its column\n"
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, j * BLOCK])"
COUNT = "    n_tiles = w.shape[1] // BLOCK\n"
SCALE = "    pl.muls(res, proj, scale)"
DIVMOD = edited(GRID, [(ROW_COL, "        i, j = divmod(idx, n_tiles)\n")])
#: the width passed by the host as a scalar, the grid's columns its floor quotient
WIDTH = edited(GRID, [("    scale: pl.DT_FP32,\n", "    scale: pl.DT_FP32,\n    width: pl.DT_INT32,\n"),
                      (COUNT, "    n_tiles = width // BLOCK\n")])
#: the cube reads the tile of `out` at the start of the row, which the task before wrote when it
#: is in the same row: wrong from two columns on (the task runs ahead of the one before's store)
STALE = edited(GRID, [("            project(i, j, a, w,", "            project(i, j, out, w,")])
#: every column of a row stored at the row's first tile
ROW_ONLY = edited(GRID, [(STORE, "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])")])
#: the column taken modulo the number of rows: two tiles share a (row, column) pair
MIXED = edited(GRID, [(ROW_COL, "        i = idx // n_tiles\n        j = idx % m_tiles\n")])
#: a ceiling count of columns: the last tile of a row may reach past the row's end
CEIL = edited(GRID, [(COUNT, "    n_tiles = (w.shape[1] + BLOCK - 1) // BLOCK\n")])
TESTED = edited(GRID, [(SCALE, "    pl.muls(res, proj, scale if j > 0 else 1.0)")])
RESIDUE = edited(GRID, [(SCALE, "    pl.muls(res, proj, scale * (j % 2 + 1))")])


def _shapes(rows: int, cols: int) -> dict:
    return {"a": (rows, 32), "w": (32, cols), "out": (rows, cols)}


@pytest.mark.parametrize("name, text", [("example", GRID), ("divmod", DIVMOD), ("width", WIDTH)])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_grid_walked_by_one_index_is_proven(name, text, preload):
    assert error_messages(transpile(text, path=f"{name}.py", preload=preload)) == []


@pytest.mark.emulator
@pytest.mark.parametrize("preload", [1, 2])
def test_it_runs_as_the_serial_kernel_for_several_grids_and_blocks(preload):
    code = transpile(GRID, path="k.py", preload=preload).code
    assert code is not None
    for rows, cols, blocks in ((96, 64, 1), (64, 96, 3), (32, 128, 4), (160, 96, 2)):
        report = verify(GRID, code, "tiled_grid_kernel", shapes=_shapes(rows, cols), scalars={"scale": 0.5},
                        block_dim=blocks, seed=0)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (rows, cols, blocks)


def test_a_read_of_another_tile_of_the_row_is_refused_and_is_wrong_from_two_columns():
    errors = error_messages(transpile(STALE, path="stale.py", preload=1))
    assert len(errors) == 1 and "`out` is written at places a tile grid gives" in errors[0] \
        and "not each placed by both coordinates" in errors[0], errors
    code = transpile(STALE, path="stale.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None

    def verdict(cols: int) -> str:
        report = verify(STALE, code, "tiled_grid_kernel", shapes=_shapes(64, cols), scalars={"scale": 0.5},
                        block_dim=1, seed=0)
        return report.rows[-1].verdict

    assert verdict(32) == "ok"  # one column: every task reads the tile it writes itself
    assert verdict(64) != "ok"  # two: the second tile of a row reads the first before it is stored


@pytest.mark.parametrize("text, words", [
    (ROW_ONLY, "not each placed by both coordinates"),
    (MIXED, "not each placed by both coordinates of one grid"),
    (CEIL, "the grid's column count is not a floor quotient of a size"),
    (TESTED, "`j > 0` tests a coordinate of a tile grid"),
    (RESIDUE, "`j % 2` divides a coordinate of a tile grid"),
], ids=["row only", "mixed counts", "ceiling count", "test", "residue"])
def test_what_the_grid_does_not_keep_apart_is_refused_naming_the_grid(text, words):
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert len(errors) == 1 and words in errors[0], errors


#: the grid walked by two nested loops, as the refusals of a test or a residue of a coordinate say
NESTED = ("    total_tiles = m_tiles * n_tiles  # the tiles of the grid, numbered row by row\n"
          "    for idx in pl.range(core_id, total_tiles, num_cores):\n" + ROW_COL,
          "    for i in pl.range(core_id, m_tiles, num_cores):\n        for j in pl.range(0, n_tiles):\n")


def _nested(text: str) -> str:
    """`text` with its loop over the grid made two nested loops (the body one level deeper)."""
    head, loop = text.split(NESTED[0])
    body, tail = loop.split("\n\n\n", 1)
    return head + NESTED[1] + "\n".join("    " + line for line in body.splitlines()) + "\n\n\n" + tail


@pytest.mark.parametrize("text", [TESTED, RESIDUE], ids=["test", "residue"])
def test_walking_the_grid_with_nested_loops_as_the_refusal_says_is_proven(text):
    assert "two nested loops" in error_messages(transpile(text, path="k.py", preload=1))[0]
    assert error_messages(transpile(_nested(text), path="k.py", preload=1)) == []


def test_counting_the_columns_by_a_floor_quotient_as_the_refusal_says_is_proven():
    assert "`n_tiles = out.shape[1] // TILE`" in error_messages(transpile(CEIL, path="k.py", preload=1))[0]
    assert error_messages(transpile(edited(CEIL, [("    n_tiles = (w.shape[1] + BLOCK - 1) // BLOCK\n",
                                                    "    n_tiles = out.shape[1] // BLOCK\n")]),
                                    path="k.py", preload=1)) == []


#: four columns fixed by the shapes: `n_tiles` is the number 4, and `idx // 4` keeps its old reading
STATIC = edited(GRID, [("    w: pl.Tensor[[BLOCK, pl.DYNAMIC], pl.DT_FP32],\n",
                        "    w: pl.Tensor[[BLOCK, 4 * BLOCK], pl.DT_FP32],\n"),
                       ("    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],\n",
                        "    out: pl.Tensor[[pl.DYNAMIC, 4 * BLOCK], pl.DT_FP32],\n")])


def test_a_static_count_of_columns_is_refused_naming_nested_loops_which_are_proven():
    errors = error_messages(transpile(STATIC, path="k.py", preload=1))
    assert len(errors) == 1 and "`idx // n_tiles` divides the loop variable by a number" in errors[0] \
        and "`for j in pl.range(0, 4):`" in errors[0], errors
    assert error_messages(transpile(_nested(STATIC), path="k.py", preload=1)) == []


def test_a_column_computed_c_style_is_refused_naming_the_residue():
    """`j = idx - i * n_tiles` is the column too, but the product of a coordinate and the count is
    nothing the check follows; the refusal names `idx % n_tiles`, which is the example."""
    text = edited(GRID, [("        j = idx % n_tiles  # and its column\n", "        j = idx - i * n_tiles\n")])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert len(errors) == 1 and "read the column as `j = idx % n_tiles`" in errors[0], errors


def test_a_residue_by_a_parameter_is_named_as_one_not_as_a_grid():
    """`ki % p == 1` of a scalar `p` is a column of a grid as the check reads it; with no row of
    that grid computed, the refusal called it one and told its author to walk a grid with two
    loops (probe h240). It names the residue and the compile-time period that is proven."""
    base = kernel_text(Path(__file__).parent / "kernels" / "dynamic_rows.py")
    text = edited(base, [("def scale_store(ki, sub_id,", "def scale_store(ki, p, sub_id,"),
                         ("    pl.relu(y, c_vec)\n", "    if ki % p == 1:\n        pl.muls(y, c_vec, 2.0)\n"
                                                   "    else:\n        pl.relu(y, c_vec)\n"),
                         ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n):",
                          "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    p: pl.DT_INT32,\n):"),
                         ("scale_store(ki, sub_id,", "scale_store(ki, p, sub_id,")])
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "`ki % p == 1` tests a residue of the loop variable by a value known only at run time" in message, message
    assert "tile grid" not in message.split("; to make it provable")[0], message
    fixed = text.replace("ki % p == 1", "ki % 3 == 1")
    assert error_messages(transpile(fixed, path="k.py", preload=1)) == []


def test_a_residue_of_a_quotient_is_told_its_periodic_form():
    """`(ki // 2) % 2` is refused at `ki // 2`; the help named a grid and residues, not the form of
    the same value that is proven, `(ki % 4) // 2` (probe h240)."""
    base = kernel_text(Path(__file__).parent / "kernels" / "dynamic_rows.py")
    relu = "    pl.relu(y, c_vec)\n"
    text = edited(base, [(relu, "    if (ki // 2) % 2 == 1:\n        pl.muls(y, c_vec, 2.0)\n    else:\n    " + relu)])
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "take the residue first, which is periodic: `(x % (2 * m)) // 2`" in message, message
    assert error_messages(transpile(text.replace("(ki // 2) % 2", "(ki % 4) // 2"), path="k.py", preload=1)) == []
