"""Scalar-pipe accesses of GM go through the core's data cache, which PyPTO makes consistent
across cores and pipes only by `pl.system.dcci` (probe h140). The cube stores x_i to a two-slot
workspace through the fixpipe and each AIV reads one element of it by subscript: the slot's line
an earlier task's read brought into the AIV's cache may still be there two tasks later. The check
(and the emulator, which has no cache) took the generated handshake as enough and accepted. It
now asks for a `dcci` of the tensor between the sync and a scalar read (or between a scalar write
and the sync after it), and accepts the kernel with one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "h140_scalar_read_of_workspace.py")
READ = "    w = ws[(ki % 2) * TILE + sub_id * HALF, 0]\n"
DCCI = "    pl.system.dcci(ws, [(ki % 2) * TILE + sub_id * HALF, 0], cache_line=pl.CacheLine.SINGLE_CACHE_LINE)\n"


def test_a_scalar_read_of_what_another_core_wrote_needs_a_dcci():
    errors = [d for d in transpile(KERNEL, path="k.py", preload=1).diagnostics if d.is_error]
    assert len(errors) == 1, [d.message for d in errors]
    assert ("`getval` on S of AIV0 reads GM `ws` through the scalar pipe's data cache, and stage `mm_stage` "
            "(task 0), `pl.store` on FIX of AIC wrote those bytes, with no `pl.system.dcci(ws, ...)` of the whole "
            "cache or of the line at that element on AIV0 before it") in errors[0].message, errors[0].message
    assert errors[0].hint.startswith("Clean and invalidate the core's data cache for the tensor")


def test_a_dcci_before_the_sync_does_not_count():
    """Before the loop, the generated waits stand between it and the reads."""
    sub = "        sub_id = pl.get_subblock_idx()\n"
    text = edited(KERNEL, [(sub, sub + "        pl.system.dcci(ws, cache_line=pl.CacheLine.ENTIRE_DATA_CACHE)\n")])
    errors = [d.message for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert len(errors) == 1 and "of the line at that element on AIV0 before it" in errors[0], errors


@pytest.mark.parametrize("preload", [1, 2])
def test_with_a_dcci_the_kernel_is_proven_and_runs_as_the_serial_one(preload):
    text = edited(KERNEL, [(READ, DCCI + READ)])
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "kernel", path="k.py", shapes={"a": (160, 32), "out": (160, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_scalar_write_another_core_reads_needs_a_dcci_after_it():
    """The sums a scalar store leaves in the AIV's cache, read back by the cube after the loop."""
    store = "    out[ki * 2 + sub_id, 0] = x + w\n"
    call = "            vec_stage(ki, sub_id, ws, out, c_vec_db)\n"
    after = (call + "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n    with pl.section_cube():\n"
             "        back = a_l1.current()\n        pl.load(back, out, [0, 0])\n")
    text = edited(KERNEL, [(READ, DCCI + READ), (call, after)])
    errors = [d.message for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert len(errors) == 1 and "`setval` on S of AIV0 writes GM `out` through the scalar pipe's data cache" \
        in errors[0] and "of the line at that element on AIV0 after it" in errors[0], errors
    cleaned = edited(text, [(store, store + "    pl.system.dcci(out, [ki * 2 + sub_id, 0])\n")])
    # the cube's load of every task's sums sees them in another interleaving of the cores, of rows
    # apart: the same contents (it was refused as seeing the writes in another order)
    result = transpile(cleaned, path="k.py", preload=1)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(cleaned, result.code, "kernel", path="k.py", shapes={"a": (160, 32), "out": (160, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("line", ["[2 * TILE - 1, 0]", "[(ki % 2) * TILE, 0]"], ids=["another row", "AIV0's row"])
def test_a_dcci_of_a_line_the_read_does_not_reach_does_not_count(line):
    """Any dcci of the tensor counted, whatever line it named (probes h141, h142): AIV1 reads the
    row 16 past AIV0's, whose line a dcci at AIV0's row does not reach."""
    dcci = f"    pl.system.dcci(ws, {line}, cache_line=pl.CacheLine.SINGLE_CACHE_LINE)\n"
    errors = [d.message for d in transpile(edited(KERNEL, [(READ, dcci + READ)]), path="k.py", preload=1).diagnostics
              if d.is_error]
    assert len(errors) == 1 and "of the line at that element on AIV" in errors[0], errors


def test_a_dcci_of_the_whole_cache_counts():
    dcci = "    pl.system.dcci(ws, cache_line=pl.CacheLine.ENTIRE_DATA_CACHE)\n"
    assert transpile(edited(KERNEL, [(READ, dcci + READ)]), path="k.py", preload=1).ok
