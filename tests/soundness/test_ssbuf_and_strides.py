"""What moves data outside tiles and plain GM offsets: the SSBUF shared by a block's cores, and
a GM tensor's strides changed in the kernel.

Found by a hostile probe, each accepted and then reported by the emulator: a cube stage
handing a scalar to a vector stage through `pl.ssbuf_store`/`pl.ssbuf_load` (never
synchronised: the next task's store overwrites it first), and `pl.set_stride(a, [0, 1])`
making every row of `a` the same row, so a store the check placed past the rows the cube
stage loads lands on them. The kernels are `branch_on_param.py` edited."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import edited
from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text()
GUARDED = "    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n"
STORE_SCALAR = ("    cur_a = a_l1.next()\n",
                "    cst = pl.struct(\"SB\", s=ki * 1.0 + 1.0)\n    pl.ssbuf_store(cst, 0)\n    cur_a = a_l1.next()\n")


def _edited(*edits: tuple[str, str]) -> str:
    return edited(KERNEL, edits)


def _errors(result) -> list:
    return [d for d in result.diagnostics if d.severity == "error"]


def test_an_ssbuf_handover_between_stages_is_a_race_at_every_preload():
    load = "    vst = pl.struct(\"SB\", s=0.0)\n    pl.ssbuf_load(vst, 0)\n    pl.muls(y, c_vec, vst.s)\n"
    text = _edited(STORE_SCALAR, (GUARDED, load))
    for preload in (0, 1):
        (error,) = _errors(transpile(text, path="ssbuf.py", preload=preload))
        assert re.search(r"`pl\.ssbuf_load` on S of AIV0 reads `SSBUF\[0:4\]` while stage `mm_stage` \(task \d\), "
                         r"`pl\.ssbuf_store` on S of AIC writes `SSBUF\[0:4\]`, and nothing orders the two",
                         error.message), error.message


def test_an_ssbuf_op_on_a_struct_passed_to_its_stage_is_refused():
    # pipelined, the stage receives the struct inside the ctx ring's entry: the op would move that
    text = _edited(STORE_SCALAR, (GUARDED, "    pl.ssbuf_load(vst, 0)\n"),
                   ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db, a):",
                    "def scale_store(ki, d, sub_id, out, c_vec_db, y_db, a, vst):"),
                   ("        sub_id = pl.get_subblock_idx()\n",
                    "        sub_id = pl.get_subblock_idx()\n        vst = pl.struct(\"SB\", s=0.0)\n"),
                   ("scale_store(ki, d, sub_id, out, c_vec_db, y_db, a)",
                    "scale_store(ki, d, sub_id, out, c_vec_db, y_db, a, vst)"))
    (error,) = _errors(transpile(text, path="ssbuf_arg.py", preload=1))
    assert "`pl.ssbuf_load` moves a struct that reaches its stage as an argument" in error.message


def test_strides_set_in_the_kernel_are_refused():
    text = _edited((GUARDED, "    pl.store(a, y, [N * TILE + sub_id * HALF, 0])\n"),
                   ("    d: pl.DT_INT32,\n):\n", "    d: pl.DT_INT32,\n):\n    pl.set_stride(a, [0, 1])\n"))
    (error,) = _errors(transpile(text, path="stride.py"))
    assert "`pl.set_stride` moves the GM elements every later access of the tensor reaches" in error.message
    assert "Keep GM tensors contiguous" in error.hint
