"""A GM offset after the pipeline loop computed from its trip count (`(n_tiles - 1) * TILE`, the
last tile, read after `sync_all`): refused, as the proof for every trip count does not follow an
offset that moves with the count, but the message pointed at the kernel's `def` and asked to
compute offsets from the loop variable, which code after the loop has none of (probe h212). It
names the op now, with the form that is proven: the tensor's own dimension (`a.shape[0] - TILE`)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

HEADS = kernel_text(Path(__file__).parent / "kernels" / "head_epilogue_after_barrier.py")
#: the loop over heads, the kernel's last lines
OVER_HEADS = HEADS[HEADS.index("    for h in pl.range(0, H):\n"):]
#: the loop over heads taken away: one head, its pipeline loop at the kernel's top level
KERNEL = edited(HEADS, [(OVER_HEADS, "    h = 1\n" + "".join(line[4:] for line in OVER_HEADS.splitlines(True)[1:]))])
LOAD = "pl.load(e, ws, [(n_tiles - 1) * TILE + sub_id * HALF, h * TILE])"


def test_the_offset_is_named_at_its_op_with_the_form_that_is_proven():
    found = [d for d in transpile(KERNEL, path="k.py").diagnostics if d.is_error]
    assert len(found) == 1, found
    assert found[0].message.endswith(
        f"`{LOAD}` reaches GM at an offset that depends on `a.shape[0] // 32`, the trip count of a loop, so the check "
        "cannot prove the loop for every trip count; to make it provable, compute GM offsets from the loop variable "
        "only (`ki * TILE`), and after the loop from the tensor's own dimension (`x.shape[0] - TILE` for its last "
        "tile), not from the number of iterations"), found[0].message
    assert found[0].line == KERNEL[:KERNEL.index(LOAD)].count("\n") + 1


def test_the_form_the_message_names_is_proven_and_verified():
    text = edited(KERNEL, [(LOAD, "pl.load(e, ws, [a.shape[0] - TILE + sub_id * HALF, h * TILE])")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for rows in (32, 96):
        report = verify(text, result.code, "kernel", shapes={"a": (rows, 64), "ws": (rows, 64)})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, report.rows)
