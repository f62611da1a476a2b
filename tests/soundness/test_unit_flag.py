"""`phase=` on matmul*/store: the check follows the Acc unit flag (`pto_api.sync.UNIT_FLAG`) as
the emulator does (tests/sim_runtime/test_sim_unit_flag.py, same kernels). It modelled the Acc
tile's auto_mutex on these calls, which PyPTO does not emit: a store without a phase after
phase matmuls was proven, and mis-paired phases never hung."""

from __future__ import annotations

import pytest

from helpers import error_messages
from phase_kernels import ksplit, run_ahead
from pto_transpile import transpile


def _errors(text: str, preload: int | None = 1) -> list[str]:
    return error_messages(transpile(text, path="k.py", preload=preload))


def test_a_k_split_accumulated_with_phases_is_proven():
    assert _errors(ksplit()) == []


@pytest.mark.parametrize(("kernel", "stuck"), [
    (ksplit(last="Partial"), "`pl.store` on FIX of AIC with `phase=STPhase.Final` waits for the unit flag of Acc "
                             "bytes [0, 4096) to be 1, but it is 0 (its value at launch)"),
    (ksplit(store="Partial"), "stage `mm` (task 2), `pl.matmul` on M of AIC with `phase=AccPhase.Partial` waits for "
                              "the unit flag of Acc bytes [0, 4096) to be 0, but it is 1 (set by stage `mm` (task 0), "
                              "`pl.matmul_acc` on M of AIC)"),
], ids=["only-partial-matmuls", "partial-store"])
def test_mispaired_phases_hang(kernel, stuck):
    errors = _errors(kernel)
    assert len(errors) == 1 and "the pipelined kernel hangs" in errors[0] and stuck in errors[0], errors


def test_a_store_without_phase_races_with_phase_matmuls():
    errors = _errors(ksplit(store=None, n_iter=2))
    assert errors and "`pl.store` on FIX of AIC reads `acc_db[0]` while stage `mm` (task 0), `pl.matmul_acc` on M " \
                      "of AIC writes `acc_db[0]`, and nothing orders the two" in errors[0], errors


def test_a_store_in_a_later_cube_stage_is_refused_before_the_flag():
    """A task's Acc tile handed to a later cube stage through its group is state across
    iterations to the transpiler, phase or not (PTO065): it never pipelines this."""
    assert any("`st` reads `acc` (a tile of `acc_db`) before writing it" in e for e in _errors(ksplit(stages=2)))


def test_each_acc_region_has_its_own_flag():
    """The order preload 1 gives a matmul stage and a later store stage, by hand: two Acc tiles
    keep a flag each; on one, task 1's matmul finds the flag task 0's Final matmul set."""
    assert _errors(run_ahead(slots=2), preload=None) == []
    errors = _errors(run_ahead(slots=1), preload=None)
    assert len(errors) == 1 and "hangs: the kernel body at line 44, `pl.matmul` on M of AIC with " \
                                "`phase=AccPhase.Partial` waits for the unit flag" in errors[0], errors


def test_acc_regions_that_overlap_are_not_followed():
    found = transpile(run_ahead(slots=2).replace("addr=0x1000", "addr=0x800"), path="k.py").diagnostics
    assert any(d.code == "PTO077" and "which overlap bytes [0, 4096) another phase call used" in d.message
               for d in found), found


def test_a_phase_call_under_a_runtime_condition_is_not_followed():
    """Which value the flag holds after a store that may not run is not known (skipped, it
    leaves 1 and the region's next matmul hangs)."""
    text = ksplit().replace("mm(ki, a, b, out,", "mm(ki, a, b, out, gate,").replace(
        "    pl.store(out, acc", "    if gate[ki] > 0:\n        pl.store(out, acc").replace(
        "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n",
        "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n    gate: pl.Tensor[[N_ITER], pl.DT_INT32],\n")
    assert _errors(text) == ["the pipelined kernel is not proven equivalent to the serial one: `pl.store(..., "
                             "phase=...)` runs under a runtime condition: the check follows the Acc unit flag only "
                             "for calls that always run, on a known Acc tile"]
