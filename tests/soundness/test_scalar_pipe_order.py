"""What a wait on the scalar pipe orders, in the check and the emulator alike (probe h142).

The scalar unit issues every op of its core in order and stalls at a wait on `S`, so the core's
later work, on every pipe, follows what the wait acquired. It does not follow the scalar pipe's
own earlier work: a scalar store into a tile needs an S -> MTE3 flag before a DMA reads it, and
PyPTO's `bar_all` waits for V, M, MTE1, MTE2, MTE3 and FIX, not S. Both race models joined the
scalar pipe's whole clock into every pipe at such a wait (and at `bar_all`), and so passed a
scalar store followed by a store of its tile with no flag; the check, unlike the emulator, did
not let a `sync_dst` on S order the later work of other pipes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
HEADER = (KERNELS / "h142_setval_before_scalar_wait.py").read_text(encoding="utf-8")
SHAPES = {"a": (192, 32), "out": (192, 32), "head": (12, 8)}
WAIT = "                pl.system.wait_cross_core(pipe=pl.PipeType.S, event_id=EV_FULL[(t - 1) % 2])\n"
BARRIER = ("                pl.system.bar_all()\n"
           "                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])\n")


@pytest.mark.parametrize("text", [HEADER, edited(HEADER, [(WAIT, BARRIER)])], ids=["a wait on S", "bar_all"])
def test_a_scalar_store_is_not_ordered_before_a_dma_by_a_later_wait_or_barrier(text):
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO068"], [d.message for d in errors]
    assert "`pl.store` on MTE3 of AIV0 reads `hd` while the kernel body at line 79, `setval` on S of AIV0 writes " \
           "`hd`" in errors[0].message, errors[0].message
    report = verify(text, {"as written": text}, "kernel", path="k.py", shapes=SHAPES)
    assert report.rows[0].verdict == "race" and "write by b0.AIV0 on pipe S: pl.setval" in report.rows[0].message


def test_a_flag_waited_for_on_the_scalar_pipe_orders_the_later_vector_op():
    text = (KERNELS / "h142_flag_wait_on_scalar_pipe.py").read_text(encoding="utf-8")
    assert [d.code for d in transpile(text, path="k.py").diagnostics if d.is_error] == []
    report = verify(text, {"as written": text}, "kernel", path="k.py", shapes={"x": (32, 64), "out": (32, 64)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
