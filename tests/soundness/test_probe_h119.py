"""Probe h119: a trip count clamped by constants (`max(n, 0)`, `abs(n)`) of a scalar parameter
was the parameter's sample, so the loop it bounds ran at a few values as a loop of static count,
and a defect past every sample went unseen."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


@pytest.mark.parametrize("bound", ["max(n_tiles, 0)", "max(0, n_tiles)", "abs(n_tiles)", "0 - min(n_tiles, 0)",
                                   "max(n_tiles, 1) - 1 + 1", "abs(min(n_tiles, SEQ))", "n_tiles"])
def test_a_count_clamped_by_constants_is_followed_as_a_trip_count(bound):
    """Each spelling is refused as the plain count is: past SEQ tiles a sequence's last tile is the
    next one's first (the emulator shows the pipelined kernel wrong at `n_tiles = 21`)."""
    text = kernel_text(KERNELS / "h119_clamped_param_count.py")
    if bound != "max(n_tiles, 0)":
        text = edited(text, [("pl.range(0, max(n_tiles, 0))", f"pl.range(0, {bound})")])
    (message,) = _errors(text)
    assert "`x` is written in a loop of run-time trip count" in message, message


def test_a_defect_past_every_sample_of_a_clamped_count_is_refused():
    (message,) = _errors(kernel_text(KERNELS / "h119_clamped_single_loop.py"))
    assert "`pl.store(x, r, [off + HALF, sub_id * TILE])` reaches past the stride" in message, message


@pytest.mark.parametrize("bound", ["max(n_iter, 0)", "min(n_iter, 4)", "abs(n_iter)"])
def test_a_valid_loop_to_a_clamped_count_is_proven_and_runs_as_the_serial_one(bound):
    text = edited(kernel_text(KERNELS / "h118_residue_subtracted_count.py"),
                  [("i in pl.range(0, n_blocks - d % 4):", f"i in pl.range(0, {bound}):"),
                   ("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    n_iter: pl.DT_INT32,\n")])
    result = transpile(text, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    for n in (-3, 5):
        report = verify(text, result.code, "kern", shapes={"a": (160, 32), "out": (160, 32)},
                        scalars={"d": 3, "n_iter": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_clamp_bound_to_a_name_before_the_loop_is_refused_naming_the_parameter():
    """`n_eff = max(n_iter, 0)` then `pl.range(0, n_eff)`: the clamp is followed as a trip count in a
    loop's bounds only; bound to a name, the count would be a sample again, so it is refused with
    the fix, which `test_a_valid_loop_to_a_clamped_count_is_proven_and_runs_as_the_serial_one` runs."""
    text = edited(kernel_text(KERNELS / "h118_residue_subtracted_count.py"),
                  [("    for i in pl.range(0, n_blocks - d % 4):", "    n_eff = max(n_iter, 0)\n"
                                                                   "    for i in pl.range(0, n_eff):"),
                   ("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    n_iter: pl.DT_INT32,\n")])
    (message,) = _errors(text)
    assert "the trip count of `pl.range(0, n_eff)` is computed from `n_iter`, known only at run time, in a way the " \
           "check does not follow as a trip count: write the clamp in the loop's bounds" in message, message


def _runs_ok(text: str, **given) -> list[str]:
    report = verify(text, {"as written": text}, "hand_pipelined_kernel", path="k.py", **given)
    return [r.verdict for r in report.rows]


def test_a_count_no_launch_makes_negative_is_not_run_below_zero():
    """`reps = min(meta.shape[0], 4)` (a dimension) and `reps = pl.getval(meta, 0)` of a `DT_UINT32`
    tensor are never -1; both were run at -1 and refused as a deadlock. Both run clean."""
    import numpy as np

    dims = kernel_text(KERNELS / "h119_min_of_dimension_count.py")
    assert _errors(dims) == []
    for m in (1, 5):
        assert set(_runs_ok(dims, shapes={"a": (96, 32), "out": (96, 32), "meta": (m,)})) == {"ok"}
    unsigned = kernel_text(KERNELS / "h119_unsigned_gm_count.py")
    assert _errors(unsigned) == []
    for v in (0, 3):
        meta = np.zeros(8, dtype=np.uint32)
        meta[0] = v
        assert set(_runs_ok(unsigned, shapes={"a": (96, 32), "out": (96, 32)}, tensors={"meta": meta})) == {"ok"}
    signed = edited(unsigned, [("pl.Tensor[[8], pl.DT_UINT32]", "pl.Tensor[[8], pl.DT_INT32]")])
    assert any("deadlocks" in m for m in _errors(signed))  # -1 is an int32's: the refusal stands


def test_a_token_loop_of_a_clamped_count_is_run_at_each_count_it_can_take():
    """`max(min(pl.getval(meta, 0), 4), 0)` rounds of sets, then as many waits: at most 4 pending,
    every count run; without the `min` the sets pend past the counter's 15 at 16 rounds."""
    import numpy as np

    text = kernel_text(KERNELS / "h119_clamped_token_loop.py")
    assert _errors(text) == []
    for v in (-5, 3, 1000):
        meta = np.zeros(8, dtype=np.int32)
        meta[0] = v
        assert set(_runs_ok(text, shapes={"a": (96, 32), "out": (96, 32)}, tensors={"meta": meta})) == {"ok"}
    unbounded = edited(text, [("    tokens = max(min(pl.getval(meta, 0), 4), 0)\n",
                               "    tokens = max(pl.getval(meta, 0), 0)\n")])
    assert any("overflow the hardware counter" in m for m in _errors(unbounded))


def test_a_count_clamped_by_two_parameters_is_refused_with_a_fix_that_applies():
    """`pl.range(0, min(n, m))`: "write the clamp in the loop's bounds", where it stood (probe h120)."""
    (message,) = _errors(kernel_text(KERNELS / "h120_min_of_two_params.py"))
    assert "computed from `m`, `n`, known only at run time" in message and "count the loop to a parameter the " \
           "caller computes (`n_iter: pl.DT_INT32`, `pl.range(0, n_iter)`)" in message, message
