"""A residue (`x % k`) added to a value known only at run time. `ki % 1 + n` is periodic in
neither the loop variable nor the trip count, yet it was taken for periodic: a test on it was
neither refused nor cut by value (`Uniform.test`), and as a vector function's count or a tile
address it passed for a value that is the same in every run. A probe found each kernel below
accepted and wrong on the emulator at the value the check never ran; each is refused now,
naming the sum."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

RESIDUE = kernel("residue_defect.py")
GUARD = "    if ki == n - 1 and ki % 3 == 2:\n"


def _guarded(guard: str, *edits) -> str:
    return edited(RESIDUE, [(GUARD, f"    if {guard}:\n"), *edits])


#: residue_defect.py with its defect behind a guard that holds at one value the check never ran
GUARDED = {
    "trip count": _guarded("ki == n - 1 and ki % 1 == n - 50"),
    "parameter": _guarded("ki == n - 1 and ki % 1 == d - 50",
                          ("def mark(ki, n, st):", "def mark(ki, n, d, st):"),
                          ("    n: pl.DT_INT32,\n", "    n: pl.DT_INT32,\n    d: pl.DT_INT32,\n"),
                          ("            mark(ki, n, st)", "            mark(ki, n, d, st)")),
    "block index": _guarded("ki == n - 1 and ki % 1 + core_id == 1",
                            ("def mark(ki, n, st):", "def mark(ki, n, core_id, st):"),
                            ("            mark(ki, n, st)", "            mark(ki, n, core_id, st)"),
                            ("    for ki in pl.range(0, n):",
                             "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                             "    for ki in pl.range(0, n):")),
}
SUMS = {"trip count": "`ki % 1 == n - 50`", "parameter": "`ki % 1 == d - 50`", "block index": "`ki % 1 + core_id`"}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_test_of_a_residue_plus_a_run_time_value_is_refused(name):
    (message,) = error_messages(transpile(GUARDED[name], path="residue.py", preload=1))
    assert f"{SUMS[name]} adds a residue to a value known only at run time" in message, message


@pytest.mark.parametrize("name, sum_", [("residue_vf_count.py", "`ki % 1 + n`"),
                                        ("residue_tile_address.py", "`(n % 1 + n)`")])
def test_a_residue_plus_a_trip_count_as_a_count_or_an_address_is_refused(name, sum_):
    result = transpile(kernel(name), path=name, preload=2)
    (message,) = error_messages(result)
    assert f"{sum_} adds a residue to a value known only at run time" in message, message


def test_a_long_static_loop_whose_test_adds_a_residue_is_followed_to_its_end():
    """At 300 static tiles the test holds in the last task only: the representative run, which
    the sum keeps out, is not taken; the real run shows the defect."""
    text = _guarded("ki == n - 1 and ki % 1 == n - 300",
                    ("    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, TILE], "
                     "pl.DT_FP32],\n    n: pl.DT_INT32,\n",
                     "    a: pl.Tensor[[300 * TILE, TILE], pl.DT_FP32],\n    out: pl.Tensor[[300 * TILE, TILE], "
                     "pl.DT_FP32],\n"),
                    ("    for ki in pl.range(0, n):", "    n = a.shape[0] // TILE\n    for ki in pl.range(0, n):"))
    (message,) = error_messages(transpile(text, path="residue.py", preload=1))
    assert "stage `scale_store` (task 299) on AIV0 receives `scale` = 2.0 in the serial kernel" in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("d, same", [(50, False), (49, True)])
def test_the_emulator_shows_the_parameter_case_wrong_at_the_value_only(d, same):
    from sim_runtime.verify import verify

    text = GUARDED["parameter"]
    code = transpile(text, path="residue.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "kernel", path="residue.py", shapes={"a": (8 * 32, 32), "out": (8 * 32, 32)},
                    scalars={"n": 8, "d": d})
    assert report.rows[-1].verdict == ("ok" if same else "mismatch"), report.rows[-1].message


# -- found by the next probe: a residue of the loop variable moved by a parameter, by hand or
# through a counter started at it. `(ki + d) % 7` was taken for a residue of `ki`, and a counter
# started at `d` was followed as a number of its own: either way the phase came from this run's
# `d`, the check ran d in {0, 1, 2, 3, 5, 11}, and both kernels are wrong at d = 6 (mod 7).

@pytest.mark.parametrize("name, words", [
    ("residue_plus_param.py", "`(ki + d) % 7` takes a residue of the loop variable moved by a value known only at "
                              "run time"),
    ("counter_from_param.py", "counter `c` starts at a value known only at run time"),
])
def test_a_residue_whose_phase_comes_from_a_parameter_is_refused(name, words):
    (message,) = error_messages(transpile(kernel(name), path=name, preload=1))
    assert words in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("d, same", [(6, False), (5, True), (13, False)])
def test_the_emulator_shows_the_counter_case_wrong_at_one_phase(d, same):
    from sim_runtime.verify import verify

    name = "counter_from_param.py"
    text = kernel(name)
    code = transpile(text, path=name, preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "kernel", path=name, shapes={"a": (4 * 32, 32), "out": (4 * 32, 32)},
                    scalars={"n": 4, "d": d})
    assert report.rows[-1].verdict == ("ok" if same else "mismatch"), report.rows[-1].message
