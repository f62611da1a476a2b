"""`pl.dump_data` of an Acc tile: the cube core writes the whole tile into the GM `workspace=`
through its fixpipe, then prints it. It was placed on V, a pipe only the vector core has, so
every Acc dump was refused (PTO066), with a help, "move it to the other core", that the vector
core cannot follow: L0C is the cube core's."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_api.ops import dump_pipe
from pto_transpile import transpile
from sim_runtime import verify

SEED = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text(encoding="utf-8")
MATMUL = "    pl.matmul(acc, left, right)\n    mm1_vec = mm1_vec_db.next()\n"


def _dumped(workspace: str, extra_param: bool = True) -> str:
    """The seed demo whose first cube stage prints its Acc tile through `workspace`."""
    edits = [(MATMUL, f"    pl.matmul(acc, left, right)\n    pl.dump_data(acc, workspace={workspace})\n"
                      "    mm1_vec = mm1_vec_db.next()\n"),
             ("def stage1(ki, a, b_l1,", f"def stage1(ki, a, {workspace}, b_l1,"),
             ("            stage1(ki, a, b_l1,", f"            stage1(ki, a, {workspace}, b_l1,")]
    if extra_param:
        edits.append(("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n",
                      "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
                      f"    {workspace}: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n"))
    return edited(SEED, edits)


def test_an_acc_tile_is_printed_by_the_cube_core():
    assert dump_pipe("Acc") == "FIX" and dump_pipe("Vec") == "V" and dump_pipe(None) == "V"


def test_a_cube_stage_prints_its_acc_tile_through_a_workspace():
    assert error_messages(transpile(_dumped("ws"), path="k.py", preload=1)) == []


def test_a_workspace_another_stage_writes_is_a_race():
    """`out` is stored by the vector stage of each task, and the dump writes its first rows in
    the cube stage of the next one: run ahead, the dump comes first."""
    errors = error_messages(transpile(_dumped("out", extra_param=False), path="k.py", preload=1))
    assert errors and "`pl.dump_data` on FIX of AIC writes `out`" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_runs_the_dump_on_the_cube_core():
    text = _dumped("ws")
    code = transpile(text, path="k.py", preload=1).code
    run = verify(text, code, "pipeline_demo_kernel", path="k.py")
    assert [row.verdict for row in run.rows] == ["ok", "ok"]
