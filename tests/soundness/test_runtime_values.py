"""Values known only at run time: data read from GM and scalar kernel parameters.

A value read with `pl.getval` or `t[i]` is unknown as a number but named by the read that
produced it, so a stage that receives it from another iteration than in the serial kernel
is refused; scalar parameters are tried at values where tasks in flight together meet."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"
EXAMPLES = Path(__file__).parents[2] / "examples"


def _transpile(name: str, **kw):
    return transpile((KERNELS / name).read_text(), path=name, **kw)


def _messages(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def test_a_gm_value_kept_in_a_struct_for_a_later_stage_is_refused():
    result = _transpile("factor_in_struct.py")
    assert result.code is None
    messages = _messages(result)
    assert any("receives `factor` = <value of the read #1 of stage `read_factor` (task 0)> in the serial kernel"
               in m for m in messages), messages


def test_a_gm_value_passed_as_an_argument_travels_with_its_iteration():
    result = _transpile("factor_in_body.py")
    assert _messages(result) == []
    assert "_pl_ctx_neg1.f," in result.code  # read back from its own iteration's ctx


@pytest.mark.parametrize("name", ["store_offset_param.py", "store_offset_far.py"])
def test_stores_offset_by_a_scalar_differently_are_refused_for_every_value(name):
    # `out[ki + d]` beside `out[ki]`: they meet for some d (1, or 13 beyond every sampled value)
    result = _transpile(name)
    assert result.code is None
    (message,) = _messages(result)
    assert "`out` is written, and its accesses are offset by the run-time value of `d` differently" in message
    assert "for every value of `d`" in message and "offset every access of `out` by the same" in message


def test_accesses_offset_by_a_scalar_alike_are_accepted():
    # every access of `out` moves with `d` alike: the same pattern for every value, shifted
    text = (KERNELS / "store_offset_param.py").read_text()
    same = text.replace("pl.store(out, z_vec, [ki * TILE + sub_id * HALF, 0])",
                        "pl.store(out, z_vec, [(ki + d) * TILE + sub_id * HALF, 0])")
    assert same != text
    same = same.replace("fill_row(ki, sub_id,", "fill_row(ki, d, sub_id,")
    assert same.count("fill_row(ki, d, sub_id,") == 2
    result = transpile(same, path="same_offset.py")
    assert _messages(result) == []


@pytest.mark.emulator
@pytest.mark.parametrize("name, scalars, same", [
    ("factor_in_body.py", None, True),
    ("factor_in_struct.py", None, False),
    ("store_offset_param.py", {"d": 0}, True),
    ("store_offset_param.py", {"d": 1}, False),
    ("store_offset_param.py", {"d": 2}, True),
    ("store_offset_far.py", {"d": 2}, True),
    ("store_offset_far.py", {"d": 13}, False),
])
def test_the_emulator_agrees(name, scalars, same):
    """The transform's output (written without the check) is right exactly where the check
    accepts: the refused kernels compute other numbers for the values the check names."""
    from sim_runtime.verify import verify

    text = (KERNELS / name).read_text()
    code = transpile(text, path=name, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "kernel", path=name, scalars=scalars)
    row = report.rows[-1]
    assert row.verdict == ("ok" if same else "mismatch"), (row.verdict, row.message)


@pytest.mark.parametrize("test, shown", [
    ("d == 7", "d=7"),
    ("d == 100000", "d=100000"),
    ("2 * d + 1 == 15", "d=7"),
    ("d - 3 >= 40", "d=43"),
    ("d < -3", "d=-4"),
    ("min(d, 20) == 20", "d=20"),
    ("d % 8 == 6", "d=6"),
    ("(d + 1) % 20 == 0", "d=19"),
    ("d % 100 == 77", "d=77"),
    ("d > 20 and d % 8 == 6", "d=22"),
    ("d % 8 == 6 and d % 3 == 2", "d=14"),
    # a test reached only on one residue: its pieces are run at every residue too
    ("d % 7 == 3 and d > 5", "d=10"),
    ("d % 7 == 0 and d > 0", "d=7"),
    ("d % 7 == 0 and d != 0", "d=7"),
    # `~d` is `-d - 1`: affine, cut at its root like any other (a second probe's finding)
    ("~d == -8", "d=7"),
    ("~(d - 7) == -1", "d=7"),
])
def test_a_test_on_a_scalar_is_run_on_each_side_of_its_root(test, shown):
    # the defect shows at values the sampled trials never take: the check runs the values
    # around the root of every test it meets on the parameter
    text = (KERNELS / "branch_on_param.py").read_text().replace("if d == 7:", f"if {test}:")
    result = transpile(text, path="branch_on_param.py")
    assert result.code is None
    (message,) = _messages(result)
    assert "`pl.store` on MTE3 of AIV0 writes `a[" in message and f"(shown with {shown})" in message


def test_a_test_on_a_scalar_whose_branch_is_sound_is_accepted():
    text = (KERNELS / "branch_on_param.py").read_text().replace(
        "pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])", "pl.store(out, y, [ki * TILE + sub_id * HALF, 0])")
    result = transpile(text, path="branch_on_param.py")
    assert _messages(result) == []


@pytest.mark.emulator
@pytest.mark.parametrize("d, same", [(7, False), (6, True), (8, True), (2, True)])
def test_the_emulator_agrees_on_the_test_on_a_scalar(d, same):
    from sim_runtime.verify import verify

    text = (KERNELS / "branch_on_param.py").read_text()
    code = transpile(text, path="branch_on_param.py", _skip_rules=["PTO061"]).code
    assert code is not None
    row = verify(text, code, "kernel", path="branch_on_param.py", scalars={"d": d}).rows[-1]
    assert (row.verdict == "ok") == same, (row.verdict, row.message)


@pytest.mark.parametrize("before, test", [("", "d == j"), ("    if d > 250:\n        pass\n", "d == j"),
                                          ("", "min(d, 500) == j")], ids=["one", "after-another", "of-a-min"])
def test_tests_splitting_a_scalar_into_too_many_cases_are_refused(before, test):
    """The refusal names the test that cuts the values at the most places (probe h253: the first
    test on `d`, and a `min` cut once, were named)."""
    text = (KERNELS / "branch_on_param.py").read_text().replace(
        "    if d == 7:\n", f"{before}    for j in range(300):\n        if {test}:\n            pass\n    if d == 7:\n")
    result = transpile(text, path="branch_on_param.py")
    assert result.code is None
    (message,) = _messages(result)
    assert f"the tests on `d` (`{test}`) split their values into more cases than the check runs (200)" in message


def _without_branch() -> str:
    return (KERNELS / "branch_on_param.py").read_text().replace(
        "    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n", "")


@pytest.mark.parametrize("old, new, expr", [
    ("            addrs=0x4000,\n", "            addrs=0x4000 + d * 0x100,\n", "0x4000 + d * 0x100"),
    ("addr=0x8000)", "addr=0x8000 + d)", "0x8000 + d"),
])
def test_a_tile_address_from_a_scalar_is_refused(old, new, expr):
    # at d = 56 the group's second slot lands on `z_vec` (the emulator shows the race below);
    # no sampled value reaches it
    text = _without_branch()
    assert old in text
    result = transpile(text.replace(old, new), path="address.py")
    assert result.code is None
    (message,) = _messages(result)
    assert f"the tile address `{expr}` depends on the run-time value of `d`" in message


@pytest.mark.emulator
@pytest.mark.parametrize("d, same", [(2, True), (56, False)])
def test_the_emulator_agrees_on_the_address_from_a_scalar(d, same):
    from sim_runtime.verify import verify

    text = _without_branch().replace("            addrs=0x4000,\n", "            addrs=0x4000 + d * 0x100,\n")
    code = transpile(text, path="address.py", _skip_rules=["PTO061"]).code
    assert code is not None
    row = verify(text, code, "kernel", path="address.py", scalars={"d": d}).rows[-1]
    assert (row.verdict == "ok") == same, (row.verdict, row.message)


@pytest.mark.parametrize("test, construct", [
    ("d // 2 == 3", "`d // 2 == 3` tests the run-time value of `d` in a way the check cannot split into cases"),
    ("d % 8 == 6 and d % 5 == 4 and d % 7 == 3", "the tests on residues of `d` repeat only every 280 values"),
])
def test_a_test_on_a_scalar_outside_the_argument_is_refused_naming_it(test, construct):
    # such tests were tried at the sampled values only: now the check says it cannot split them
    text = (KERNELS / "branch_on_param.py").read_text().replace("if d == 7:", f"if {test}:")
    (message,) = _messages(transpile(text, path="branch_on_param.py"))
    assert construct in message and "for every value of `d`" in message, message


# a number computed from a run-time value stays one ----------------------------------------
# The tiled_scale example with its cube stage also storing its product to `out` and the
# vector stage's store shifted one block down when a run-time test holds (`sh = 1`): then the
# vector stage of task `i` writes the rows the cube stage of task `i + 1` writes, which the
# pipeline overlaps (a race the emulator shows at the value the test singles out).
_SHIFT = (("def project(i, a, w_slot,", "def project(i, a, out, w_slot,"),
          ("    pl.matmul(acc, left, right)\n",
           "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [i * BLOCK, 0])\n"),
          ("project(i, a, w_slot,", "project(i, a, out, w_slot,"),
          ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
           "def finish(i, sub_id, scale, core_id, num_cores, d, out, proj_vec_db, res_db):\n"
           "    sh = 1 if TEST else 0\n"),
          ("pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
           "pl.store(out, res, [(i + sh) * BLOCK + sub_id * HALF, 0])"),
          ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, tiling.scale, core_id, num_cores, d, out,"),
          ("    tiling: ScaleTiling,\n):", "    tiling: ScaleTiling,\n    d: pl.DT_INT32,\n):"))
_BLOCKS = ()
_TRIPS = (("tiling.scale, core_id, num_cores, d, out,", "tiling.scale, core_id, num_cores, n_blocks, out,"),)


def _shifted(test: str, edits=()) -> str:
    text = (EXAMPLES / "tiled_scale.py").read_text()
    for old, new in (*_SHIFT, *edits):
        assert old in text, old
        text = text.replace(old, new)
    return text.replace("TEST", test)


@pytest.mark.parametrize("test, edits", [
    # each races on the emulator at the value it singles out (d = 7, 13; block 1 of 2; 13 trips),
    # and was accepted while the check took the result for this run's plain number
    ("d / 1 == 7", ()), ("float(d) == 7.0", ()), ("d * 1.0 == 7", ()), ("len(range(d)) == 13", ()),
    ("bool(d - 7) is False", ()), ("min(d, 9) / 1 == 7", ()),
    ("core_id / 1 == 1", _BLOCKS), ("float(core_id) == 1.0", _BLOCKS),
    ("d / 1 == 13", _TRIPS),
])
def test_a_test_on_a_number_computed_from_a_run_time_value_is_not_settled_by_the_values_run(test, edits):
    result = transpile(_shifted(test, edits), path="shift.py")
    assert result.code is None, test
    assert any("writes `out`" in m for m in _messages(result)), _messages(result)


@pytest.mark.parametrize("test", ["False", "d < -(2 ** 40)"])
def test_the_same_kernel_without_the_shift_is_accepted(test):
    assert _messages(transpile(_shifted(test), path="shift.py")) == []


def test_a_scale_computed_from_a_scalar_stays_data():
    text = _shifted("False").replace("epilogue(res, proj, scale)", "epilogue(res, proj, float(d) / 2)")
    assert "float(d) / 2" in text
    assert _messages(transpile(text, path="scale.py")) == []


# defaults are computed when the `def` runs -------------------------------------------------
def _with_default(default: str, after: str = "") -> str:
    text = _shifted("False")
    old = "def finish(i, sub_id, scale, core_id, num_cores, d, out, proj_vec_db, res_db):\n    sh = 1 if False else 0\n"
    assert old in text
    text = text.replace(old, f"def finish(i, sub_id, scale, core_id, num_cores, d, out, proj_vec_db, res_db, "
                             f"sh={default}):\n{after}")
    assert f"sh={default}" in text
    return text


def test_a_default_is_the_value_of_its_names_when_the_def_ran():
    # `SH = 1` when `finish` is defined, `SH = 0` at the end: Python passes 1 (the emulator races)
    imports = "import pypto_pro.language as pl\n"
    text = _with_default("SH").replace(imports, imports + "SH = 1\n").replace("\n\n@pl.jit", "\n\nSH = 0\n\n\n@pl.jit")
    assert "SH = 1\n" in text and "SH = 0\n" in text
    assert _messages(transpile(text, path="default.py"))
    assert _messages(transpile(text.replace("SH = 1\n", "SH = 0\n"), path="default.py")) == []


def test_a_mutable_default_is_shared_by_every_call():
    # the third call shifts: a fresh `[0]` per call (the check before) never counted to 3
    after = "    calls[0] = calls[0] + 1\n    sh = 1 if calls[0] == 3 else 0\n"
    text = _with_default("0", after).replace("sh=0):", "calls=[0]):")
    assert "calls=[0]" in text
    assert _messages(transpile(text, path="mutable_default.py"))


def test_an_inner_loop_that_starts_running_past_its_start_is_run_at_those_counts():
    # `pl.range(11, d)` runs no iteration at any sampled value of d (0 .. 11): its trip count
    # counts from 11, and the run that shows the race has d = 12
    text = (KERNELS / "branch_on_param.py").read_text().replace("    if d == 7:\n", "    for j in pl.range(11, d):\n")
    assert "pl.range(11, d)" in text
    (message,) = _messages(transpile(text, path="range_from_11.py"))
    assert "`pl.store` on MTE3 of AIV0 writes `a[" in message and "(shown with `d` = 12)" in message


@pytest.mark.parametrize("test", ["(d, 0) == (7, 0)", "[d] == [7]"])
def test_a_test_on_a_sequence_holding_a_scalar_is_followed_both_ways(test):
    text = (KERNELS / "branch_on_param.py").read_text().replace("if d == 7:", f"if {test}:")
    (message,) = _messages(transpile(text, path="sequence_test.py"))
    assert "`pl.store` on MTE3 of AIV0 writes `a[" in message


def test_a_loop_whose_stop_is_the_parameter_minus_a_constant_is_counted_from_that_constant():
    # `pl.range(0, d - 20)` runs no iteration until d = 21: its zero is d = 20, not the stop
    text = (KERNELS / "branch_on_param.py").read_text().replace("    if d == 7:\n",
                                                                "    for j in pl.range(0, d - 20):\n")
    (message,) = _messages(transpile(text, path="range_minus_20.py"))
    assert "`pl.store` on MTE3 of AIV0 writes `a[" in message and "(shown with `d` = 21)" in message
