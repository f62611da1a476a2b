"""A GM offset adding a residue to the block index (`core_id * (2 * BLOCK) + (j % 2) * BLOCK`, a
double-buffered workspace per block) is outside what the check follows; its refusal now names the
form that is (probe h97: "keep residues apart", which no GM offset of this kind can), and that form,
one tensor per slot picked by the residue, is proven and runs as the serial kernel."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "workspace_slots.py")
WS2 = "    ws2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"


def test_the_refusal_names_a_tensor_per_slot():
    (message,) = error_messages(transpile(KERNEL, path="k.py"))
    assert "adds a residue to a value known only at run time" in message
    assert message.endswith("give each slot a tensor of its own, picked by the residue (`(ws_a, ws_b)[j % 2]`) "
                            "and offset by the run-time value alone"), message


def test_a_tensor_per_slot_is_proven():
    text = edited(KERNEL, [
        ("def finish(i, sub_id, out, ws, ws2,", "def finish(i, sub_id, out, ws, ws2, ws3,"),
        ("    pl.store(ws2, res, [core_id * (2 * BLOCK) + (j % 2) * BLOCK + sub_id * HALF, 0])",
         "    pl.store((ws2, ws3)[j % 2], res, [core_id * BLOCK + sub_id * HALF, 0])"),
        (WS2, WS2 + WS2.replace("ws2", "ws3")),
        ("finish(i, sub_id, out, ws, ws2, proj_vec_db", "finish(i, sub_id, out, ws, ws2, ws3, proj_vec_db")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    shapes = {"a": (160, 32), "out": (160, 32), "ws2": (96, 32), "ws3": (96, 32)}
    report = verify(text, result.code, "kern", shapes=shapes, scalars={"d": 1, "alpha": 0.5}, block_dim=3)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
