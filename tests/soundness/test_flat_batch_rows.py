"""A batch of sequences flattened into rows (`a: [batch * seq, ...]`): walked by a loop over the
batch around a loop over a sequence's tiles, the row tile `b * seq_tiles + s` multiplies a loop
variable by a trip count, which the check does not follow; the hint said to address the grid in
two dimensions, which a flat layout is not (probe h119). It now names the form that is proven: one
loop over the flat index, the coordinates read back from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

NESTED = kernel_text(Path(__file__).parent / "kernels" / "h119_flat_batch_rows.py")
FLAT = edited(NESTED, [("""    for b in pl.range(core_id, batch, num_cores):
        for s in pl.range(0, seq_tiles):
            i = b * seq_tiles + s  # the row tile, counted over the whole batch
            with pl.section_cube():
                project(i, b, a, w, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
            with pl.section_vector():
                finish(i, b, sub_id, scale, out, proj_vec_db, res_db)
""", """    for i in pl.range(core_id, batch * seq_tiles, num_cores):  # the row tile over the whole batch
        b = i // seq_tiles  # its sequence
        with pl.section_cube():
            project(i, b, a, w, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, b, sub_id, scale, out, proj_vec_db, res_db)
""")])


def test_the_nested_walk_is_refused_with_the_flat_walk_as_the_fix():
    (message,) = error_messages(transpile(NESTED, path="k.py"))
    assert "`b * seq_tiles` multiplies a loop variable by a trip count" in message, message
    assert "one loop over their flat index" in message and "`i = t // n`" in message, message


@pytest.mark.parametrize("preload", [1, 2])
def test_the_flat_walk_the_hint_names_is_proven_and_runs_as_the_serial_kernel(preload):
    result = transpile(FLAT, path="k.py", preload=preload)
    assert error_messages(result) == []
    for batch, seq_tiles, blocks in ((3, 2, 2), (2, 3, 3), (1, 4, 1)):
        rows = batch * seq_tiles * 32
        report = verify(FLAT, result.code, "tiled_grid_kernel", path="k.py",
                        shapes={"a": (rows, 32), "w": (32, batch * 32), "out": (rows, batch * 32)},
                        scalars={"scale": 0.5, "batch": batch}, block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (batch, seq_tiles, report.rows[-1].message)
