"""Tiling-data fields declared with a `pl` dtype (`shift: pl.DT_INT32`, probe h107): a launch
passes one of the dtype's values, as to a scalar parameter of that dtype, so the check samples
an integer one and follows a float one as data, as it does `int` and `float` fields. They were
taken for fields that may hold an object, and every kernel reading one was refused with a help
about calling `pl` ops."""

from __future__ import annotations

import pytest
from test_hidden_class_code import TILED

from helpers import edited, error_messages
from pto_transpile import driver, transpile
from sim_runtime import verify

SHAPES = {"a": (160, 32), "out": (160, 32), "ws": (160, 32)}


def _with_field(declared: str, use: str, gate: bool = False) -> str:
    """The tiled-scale example with tiling field `shift` declared `declared`, added to the scale
    (`use`); with `gate`, a vector store into `ws`, which the cube loads every iteration, made
    only when `shift == 7`: a race the pipelined kernel has at that value alone."""
    edits = [("    scale: float\n", f"    scale: float\n    shift: {declared}\n"),
             ("finish(i, sub_id, tiling.scale, out,", f"finish(i, sub_id, {use}, out,")]
    if gate:
        edits += [("def project(i, a, w_slot,", "def project(i, ws, a, w_slot,"),
                  ("    acc = acc_db.next()\n", "    acc = acc_db.next()\n    pl.load(cur_a, ws, [0, 0])\n"),
                  ("def finish(i, sub_id, scale, out,", "def finish(i, shift, ws, sub_id, scale, out,"),
                  ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
                   "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n    if shift == 7:\n"
                   "        pl.store(ws, res, [sub_id * HALF, 0])\n"),
                  ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
                   "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
                   "    ws: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
                  ("project(i, a, w_slot,", "project(i, ws, a, w_slot,"),
                  (f"finish(i, sub_id, {use}, out,", f"finish(i, tiling.shift, ws, sub_id, {use}, out,")]
    return edited(TILED, edits)


@pytest.mark.parametrize("declared, value", [("pl.DT_INT32", -3), ("pl.DT_UINT8", 200), ("pl.DT_FP32", 0.25)])
def test_a_field_of_a_pl_dtype_is_read_as_a_number(declared, value):
    text = _with_field(declared, "tiling.scale + tiling.shift")
    result = transpile(text, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    report = verify(text, result.code, "tiled_scale_kernel", shapes=SHAPES, block_dim=2,
                    scalars={"scale": 0.5, "shift": value, "ApplyRelu": 1})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("declared", ["pl.DT_INT32", "pl.DT_UINT8"])
def test_a_race_at_one_value_of_an_integer_field_is_refused(declared, monkeypatch):
    text = _with_field(declared, "tiling.scale", gate=True)
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and "`ws`" in messages[0], messages
    # the kernel the transform writes, unproven: it races at that value of the field alone
    monkeypatch.setattr(driver, "prove", lambda *_args: [])
    code = transpile(text, path="k.py").code
    run = dict(shapes=SHAPES, block_dim=2)
    assert verify(text, code, "tiled_scale_kernel", scalars={"scale": 0.5, "shift": 3, "ApplyRelu": 1},
                  **run).rows[-1].verdict == "ok"
    assert verify(text, code, "tiled_scale_kernel", scalars={"scale": 0.5, "shift": 7, "ApplyRelu": 1},
                  **run).rows[-1].verdict != "ok"
