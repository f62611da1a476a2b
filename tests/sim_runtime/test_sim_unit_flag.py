"""`phase=` on matmul*/store: the Acc unit flag between the cube's M and FIX pipes replaces the
Acc tile's auto_mutex (PyPTO emits none for that call). The emulator applied the mutex anyway,
so a store without a phase after phase matmuls ran "ok", and mis-paired phases never hung."""

from __future__ import annotations

import numpy as np
import pytest

from phase_kernels import ksplit, run_ahead
from pto_transpile import transpile
from sim_runtime import DeadlockError, RaceError, run_kernel, verify
from sim_runtime.errors import UnsupportedOpError

pytestmark = pytest.mark.emulator

RNG = np.random.default_rng(3)
A = RNG.standard_normal((96, 64)).astype(np.float32)
B = RNG.standard_normal((64, 32)).astype(np.float32)


def _run(text: str, n_iter: int = 3):
    return run_kernel(source=text, kernel_name="k", inputs={"a": A[:32 * n_iter], "b": B})


def test_a_k_split_accumulated_with_phases_runs_ok_serial_and_pipelined():
    text = ksplit()
    run = verify(text, transpile(text, path="k.py", preload=1).code, "k", path="k.py")
    assert [row.verdict for row in run.rows] == ["ok", "ok"], run.rows
    np.testing.assert_allclose(_run(text).outputs["out"], A @ B, rtol=1e-5, atol=1e-4)


def test_the_store_starts_once_the_final_matmul_has_ended():
    spans = [s for s in _run(ksplit(n_iter=1), n_iter=1).timeline.spans if s.kind == "op"]
    final = next(s for s in spans if s.name == "matmul_acc")
    store = next(s for s in spans if s.name == "store")
    assert store.start >= final.end


def test_only_partial_matmuls_leave_the_final_store_waiting_forever():
    with pytest.raises(DeadlockError, match=r"pl.store\(phase=STPhase.Final\) waits for the Acc unit flag .* to be "
                                            r"1, but it is 0 \(its value at launch\)"):
        _run(ksplit(last="Partial"))


def test_a_store_without_phase_is_not_ordered_after_phase_matmuls():
    with pytest.raises(RaceError, match=r"(?s)write by b0.AIC on pipe M: pl.matmul_acc.*read  by b0.AIC on pipe FIX"):
        _run(ksplit(store=None, n_iter=2), n_iter=2)


def test_a_partial_store_leaves_the_next_matmul_of_its_region_waiting_forever():
    """Task 2 reuses task 0's Acc tile: its first matmul waits for 0, which only a Final store sets."""
    with pytest.raises(DeadlockError, match=r"pl.matmul\(phase=AccPhase.Partial\) .* to be 0, but it is 1 \(last set "
                                            r"by pl.matmul_acc\(phase=AccPhase.Final\)"):
        _run(ksplit(store="Partial"))


def test_each_acc_region_has_its_own_flag():
    """Run ahead, the Final matmul of task t comes before the Final store of task t - 1: on two
    Acc tiles each flag goes 0, 1, 0 in turn; on one, the matmul finds the flag still at 1."""
    np.testing.assert_allclose(_run(run_ahead(slots=2)).outputs["out"], A @ B, rtol=1e-5, atol=1e-4)
    with pytest.raises(DeadlockError, match="the M pipe hangs"):
        _run(run_ahead(slots=1))


def test_acc_regions_that_overlap_are_refused():
    text = run_ahead(slots=2).replace("addr=0x1000", "addr=0x800")
    with pytest.raises(UnsupportedOpError, match=r"overlaps the region \[0x0, 0x1000\)"):
        _run(text)
