"""Probe h117, on the argument for every trip count, per-core ranges, hand-written pipelines and
tiling keys."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, kernel_text
from pto_transpile import transpile
from pto_transpile.soundness import check as check_module
from pto_transpile.soundness.check import Config, Problem
from pto_transpile.soundness.proof import HINTS
from pto_transpile.soundness.runtypes import STEP_BUDGET
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_an_unsigned_count_is_not_run_below_zero():
    """`pl.range(0, rounds + 1)` of an unsigned `rounds` runs at least once at every launch: the
    check no longer runs it at `rounds = -1` (no iteration, a wait without its set) and refuses
    the kernel as deadlocking there. It runs as written at the least and the greatest value."""
    text = kernel_text(KERNELS / "h117_unsigned_count_plus_one.py")
    assert _errors(text) == []
    for rounds in (0, 255):
        report = verify(text, {"as written": text}, "hand_pipelined_kernel", shapes={"a": (96, 32), "out": (96, 32)},
                        scalars={"rounds": rounds})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_signed_count_is_still_run_below_zero():
    text = edited(kernel_text(KERNELS / "h117_unsigned_count_plus_one.py"),
                  [("    rounds: pl.DT_UINT8,", "    rounds: pl.DT_INT8,")])
    assert any("deadlocks" in m and "`rounds` = -1" in m for m in _errors(text)), _errors(text)


def test_a_static_kernel_too_long_to_follow_is_refused_saying_so():
    """A static kernel of 10,000 tasks whose real run passes the step budget, and whose proof at a
    few trip counts fails on a test of one task (`d == 5`), was refused only with that proof's words,
    "the loop for every trip count", as if its count were not static. Both are said now (a 10,000
    task kernel takes 14 s to follow to the budget: the judging of the runs is given them here)."""
    runs: list = []

    def run(config, cuts):
        runs.append(config.step_budget)
        return [Problem("long" if len(runs) == 1 else "size", "the kernel runs too many statements", None)]

    instead = Problem("nonuniform", "`d == 5` singles out iterations other than the first, so the check cannot "
                                    "prove the loop for every trip count", None)
    (problem,) = check_module._run_all([Config()], run, lambda: instead)
    assert runs[-1] == STEP_BUDGET
    assert problem.kind == "long_static" and problem.detail == (
        f"its loops are static but run past the {STEP_BUDGET:,} steps the check follows, and proving them at a few "
        f"trip counts instead, as for every count, does not hold: {instead.detail}")
    assert "run fewer tasks per launch" in HINTS[problem.kind]


def test_a_flat_tile_index_is_named_with_the_grid_that_is_proven():
    """`qi * NK + ki` of a long static kernel (NK bounding the inner loop, followed as a count) was
    "`qi * NK` multiplies two values that vary", of a constant; the same at run-time sizes."""
    text = edited(kernel_text(KERNELS / "gemm_tiling_dataclass.py"), [
        ("pl.load(cur_a, a, [i * BLOCK, kk * BLOCK])", "pl.load(cur_a, a, [(i * k_tiles + kk) * BLOCK, 0])")])
    (message,) = _errors(text)
    assert "`i * k_tiles` multiplies a loop variable by a trip count (the flat index of a tile grid" in message
    assert "address the grid in two dimensions" in message, message


def test_a_loop_bounded_by_a_residue_of_a_parameter_is_refused_naming_it(monkeypatch):
    """`for _k in range(d % 2)` was taken for a loop up to `d` (the form of `d % 2` is `d`'s): it ran
    fewer iterations than a discovery run gives a loop, so the run asked for a larger `d` and was run
    again with the same one, without end (a kill after 600 s); in a stage, the check raised an
    internal error. Such a count is refused, naming it. The discovery runs are counted here, so that
    the test fails rather than hangs."""
    runs = []
    discovery_run = check_module._discovery_run

    def counted(*args, **kwargs):
        runs.append(1)
        assert len(runs) < 50, "the discovery runs do not end"
        return discovery_run(*args, **kwargs)

    monkeypatch.setattr(check_module, "_discovery_run", counted)
    text = kernel_text(KERNELS / "h117_residue_bounded_loop.py")
    in_stage = edited(text, [("    with pl.section_cube():\n        for _k in range(d % 2):\n            _skip = "
                              "a_l1_db.next()\n            pl.load(_skip, a, [0, 0])\n", ""),
                             ("    res = res_db.next()\n", "    res = res_db.next()\n    for _k in range(d % 2):\n"
                              "        pass\n")])
    for kernel in (text, in_stage):
        (message,) = _errors(kernel)
        assert "`range(d % 2)` counts to a residue of a run-time value, which the check does not follow" in message
        assert "(`n_rem: pl.DT_INT32`, `pl.range(0, n_rem)`)" in message, message


def test_a_discovery_run_that_asks_for_the_counts_it_had_ends_with_a_refusal(monkeypatch):
    """Whatever makes a discovery run ask for the counts it was given, the check ends, refusing
    the kernel (the defect above, made again: each run asks for a longer loop over `d`)."""
    discovery_run = check_module._discovery_run

    def asking(*args, **kwargs):
        interp = discovery_run(*args, **kwargs)
        run = interp.run

        def run_and_ask():
            trace = run()
            interp.short_roots = {("param", "n"): 3}
            return trace

        interp.run = run_and_ask
        return interp

    monkeypatch.setattr(check_module, "_discovery_run", asking)
    (message,) = _errors((KERNELS / "trip_param.py").read_text(encoding="utf-8"))
    assert "the check's discovery run asks to be run again at the counts it was run at (" in message, message
    assert "so it never settles" in message, message


def test_a_pipeline_loop_counted_to_a_residue_is_refused_naming_the_count_and_the_fix_runs():
    """`pl.range(0, d % 4)` was refused for "`i < d % 4` adds a residue to a value that grows with
    the loop variable", a test only the generated kernel has. The count is named now, with the fix:
    a count of its own, which is proven and runs."""
    text = kernel_text(KERNELS / "h117_residue_trip_count.py")
    (message,) = _errors(text)
    assert "`pl.range(0, d % 4)` counts to a residue of a run-time value" in message, message
    assert "(`n_rem: pl.DT_INT32`, `pl.range(0, n_rem)`)" in message, message
    fixed = edited(text, [("i in pl.range(0, d % 4):", "i in pl.range(0, n_rem):"),
                          ("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    n_rem: pl.DT_INT32,\n")])
    result = transpile(fixed, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(fixed, result.code, "kern", shapes={"a": (128, 32), "out": (128, 32)}, scalars={"d": 3, "n_rem": 3})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
