"""Quantisation: `pl.quant` (fp32 -> int8 / uint8 with a per-row scale) and `pl.dequant`."""

from __future__ import annotations

import numpy as np

from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import OpCall, fits, handles, local, put, values, vector_plan
from sim_runtime.tiles import Tile


def _row_param(call: OpCall, t: Tile, rows: int) -> None:
    if t.dtype.name != "DT_FP32":
        raise call.fail(f"{t.name} must be DT_FP32, got {t.dtype.name}")
    fits(call, t, rows, 1)


@handles("quant")
def quant(call: OpCall) -> OpPlan:
    """SYM: out = clamp(round(src * scale), -128, 127) into int8; ASYM: clamp(round(src *
    scale) + offset, 0, 255) into uint8. `round` is to nearest, ties to even (the conversion's
    default rounding); scale and offset hold one value per row."""
    out, src, scale = call.tile(0), call.tile(1), call.tile(2)
    mode = getattr(call.kwargs.get("mode"), "name", call.kwargs.get("mode") or "SYM")
    offset = call.kwargs.get("offset")
    if src.dtype.name != "DT_FP32":
        raise call.fail(f"src must be DT_FP32, got {src.dtype.name}")
    want = {"SYM": "DT_INT8", "ASYM": "DT_UINT8"}.get(mode)
    if want is None or out.dtype.name != want:
        raise call.fail(f"mode {mode} writes {want or 'int8 (SYM) / uint8 (ASYM)'}, {out.name} is {out.dtype.name}")
    if mode == "ASYM" and not isinstance(offset, Tile):
        raise call.fail("QuantMode.ASYM needs offset=, a tile of one value per row")
    mo, ms, mk = local(call, out), local(call, src), local(call, scale)
    vr, vc = out.valid
    fits(call, src, vr, vc)
    _row_param(call, scale, vr)
    mf = None
    offset_tile = offset if isinstance(offset, Tile) else out
    if mode == "ASYM":
        _row_param(call, offset_tile, vr)
        mf = local(call, offset_tile)
    lo, hi = (-128, 127) if mode == "SYM" else (0, 255)

    def run():
        q = np.rint(values(src, ms, vr, vc).astype(np.float32) * values(scale, mk, vr, 1))
        if mf is not None:
            q = q + values(offset_tile, mf, vr, 1)
        put(out, mo, np.clip(q, lo, hi).astype(out.dtype.compute))

    return vector_plan(call, "quant", run)  # offset= is read: see BLOCK_OP_KEYWORD_ROLES


@handles("dequant")
def dequant(call: OpCall) -> OpPlan:
    """out = (src - offset) * scale in fp32, offset and scale one value per row."""
    out, src, scale, offset = (call.tile(i) for i in range(4))
    if out.dtype.name != "DT_FP32" or src.dtype.name not in ("DT_INT8", "DT_INT16"):
        raise call.fail("dequant turns DT_INT8/DT_INT16 into DT_FP32")
    mo, ms, mk, mf = local(call, out), local(call, src), local(call, scale), local(call, offset)
    vr, vc = out.valid
    if list(src.valid) != [vr, vc]:
        raise call.fail(f"src valid {src.valid} must equal out valid {[vr, vc]}")
    _row_param(call, scale, vr)
    _row_param(call, offset, vr)

    def run():
        v = (values(src, ms, vr, vc).astype(np.float32) - values(offset, mf, vr, 1)) * values(scale, mk, vr, 1)
        put(out, mo, v.astype(np.float32))

    return vector_plan(call, "dequant", run)
