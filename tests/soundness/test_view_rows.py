"""A view of whole rows of an ND tile reaches those rows' bytes, not the whole tile: a stage
keeping per-task rows of a scratch tile (`keep[(ki % 4) * H:(ki % 4) * H + H, 0:TILE]`, written
by the second stage and read by the fourth of the same task) was refused as if every task wrote
every row (probe h145: "stage4 (task 0) sees stage2 (task 1) and (task 2)", which write other
rows), although the emulator runs it bit-identical. A row bound that is a residue of the loop
variable is followed as the number it is in each task: it repeats with the period its modulus
joins. Rows a later task overwrites before the read (a ring of two at preload 2, a read of the
task before's rows in a ring of three) are refused, and race or differ on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import codes, transpile
from sim_runtime import verify

DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()


def kernel(depth: int, write: str, read: str, columns: str = "0:TILE") -> str:
    """The demo over `pl.DYNAMIC` rows with a scratch tile of `depth` row blocks: the second stage adds its result into
    the rows `write` picks, the fourth adds the rows `read` picks into its own."""
    def rows(pick: str) -> str:
        return f"keep[({pick}) * TILE_HALF:({pick}) * TILE_HALF + TILE_HALF, {columns}]"

    return edited(DEMO, [
        *_DYNAMIC_ROWS,
        ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):",
         "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, kv):"),
        ("    pl.relu(relu_vec, mm1_vec)\n", "    pl.relu(relu_vec, mm1_vec)\n    pl.adds(kv, relu_vec, 0.0)\n"),
        ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out_vec_db, kv):"),
        ("    out_vec = out_vec_db.next()\n    pl.store(",
         "    out_vec = out_vec_db.next()\n    pl.add(out_vec, out_vec, kv)\n    pl.store("),
        ("    # The pipeline loop", "    with pl.section_vector():\n        keep_g = pl.make_tile_group(\n"
         f"            type=pl.TileType(shape=[{depth} * TILE_HALF, TILE], dtype=pl.DT_FP32, "
         "target_memory=pl.MemorySpace.Vec),\n            addrs=0x20000,\n            mutex_ids=[22],\n        )\n"
         "        keep = keep_g.current()\n\n    # The pipeline loop"),
        ("            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)",
         f"            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, {rows(write)})"),
        ("            stage4(ki, sub_id, out, out_vec_db)",
         f"            stage4(ki, sub_id, out, out_vec_db, {rows(read)})"),
    ])


#: `pl.DYNAMIC` rows of `a` and `out`: proven for every count of tasks
_DYNAMIC_ROWS = [("    a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],",
                  "    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
                 ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],",
                  "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
                 ("    for ki in pl.range(0, N_ITER):", "    for ki in pl.range(0, a.shape[0] // TILE):")]


def _verdicts(text: str, preload: int, tasks: int = 9) -> list[str]:
    code = transpile(text, path="k.py", preload=preload, _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = (64 * tasks, 64)
    report = verify(text, code, "pipeline_demo_kernel", path="k.py", shapes={"a": rows, "out": rows})
    return [row.verdict for row in report.rows]


PROVEN = {
    "each task its own rows, a ring of four": (4, "ki % 4", "ki % 4"),
    "each task its own rows, a ring of three": (3, "ki % 3", "ki % 3"),
    "the rows of the task before, a ring of four": (4, "ki % 4", "(ki + 3) % 4"),
}


@pytest.mark.parametrize("preload", [1, 2])
@pytest.mark.parametrize("name", list(PROVEN))
def test_rows_of_a_scratch_tile_per_task_are_proven_and_run_as_the_serial_kernel(name, preload):
    text = kernel(*PROVEN[name])
    assert error_messages(transpile(text, path="k.py", preload=preload)) == []
    for tasks in (1, 5, 9):
        assert _verdicts(text, preload, tasks) == ["ok", "ok"], tasks


#: preload 2 runs two more tasks' second stage before a task's fourth: their rows come round
OVERWRITTEN = {
    "each task its own rows, a ring of two": (2, "ki % 2", "ki % 2"),
    "the rows of the task before, a ring of three": (3, "ki % 3", "(ki + 2) % 3"),
    # from the fourth task on: the rows of three tasks before, which the task two after reuses
    "the rows of three tasks before, a ring of five": (5, "ki % 5", "(ki + 2) % 5"),
}


@pytest.mark.parametrize("name", list(OVERWRITTEN))
def test_rows_a_later_task_overwrites_first_are_refused_and_differ(name):
    text = kernel(*OVERWRITTEN[name])
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "reads `keep_g[0]`" in errors[0], errors
    serial, piped = _verdicts(text, 2)
    assert serial == "ok" and piped != "ok", (serial, piped)
    assert error_messages(transpile(text, path="k.py", preload=1)) == []  # one task ahead: no overlap


def test_a_view_of_some_columns_is_still_its_whole_tile():
    # a row keeps its columns together, a column does not: the view's bytes are taken as its tile's
    text = kernel(4, "ki % 4", "ki % 4", columns="0:TILE_HALF")
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "reads `keep_g[0]`" in errors[0], errors


def test_an_element_past_a_views_rows_is_read_from_its_whole_tile():
    # `kv[TILE_HALF, 0]`: the first element of the next task's rows, which that task's second stage
    # writes after this task's fourth in the serial kernel and before it when pipelined (a fifth
    # block of rows past the ring keeps the element inside the tile)
    text = edited(kernel(5, "ki % 4", "ki % 4"), [
        ("    pl.add(out_vec, out_vec, kv)\n",
         "    pl.add(out_vec, out_vec, kv)\n    pl.adds(out_vec, out_vec, kv[TILE_HALF, 0])\n")])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "reads `keep_g[0]`" in errors[0], errors
    serial, piped = _verdicts(text, 1)
    assert serial == "ok" and piped != "ok", (serial, piped)
