"""A value the loop body binds in every branch of an `if` with an `else` is bound in every
iteration: nothing is carried from the one before (`loops.read_first`). Production kernels pick
a per-iteration value by a tiling key that way (`if IsTnd == 1: off = ...` / `else: off = ...`);
it was refused as a value carried across iterations, while the one-line `x = a if k else b` was
proven. A binding in some branches only, and a carried value read by an `elif` test (which was
not read at all), are still carried, but where a tiling-key instance decides the test. And a
stage under a test of a module dtype constant against itself (`if DTYPE == pl.DT_FP32:`, one
enum member) is decided. The kernels are examples/tiled_scale.py with the scale of `finish`
chosen in the loop body."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

BASE = (ROOT / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
CALL = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
CARRIED = "carries a value computed from a loop variable or counter from one iteration to the next"


def choose(body: str, before: str = "") -> str:
    """tiled_scale.py whose loop body starts with `body` (choosing `sc`, the scale `finish` gets),
    with `before` ahead of the loop."""
    return edited(BASE, [(LOOP, before + LOOP + body),
                         (CALL, "            finish(i, sub_id, sc, out, proj_vec_db, res_db)\n")])


EVERY_BRANCH = choose("        if ApplyRelu == 0:  # noqa: F821\n            sc = i * 2\n"
                      "        else:\n            sc = i * 3\n")
ONE_LINE = choose("        if ApplyRelu == 0: sc = i * 2  # noqa: E701, F821\n"
                  "        else: sc = i * 3  # noqa: E701\n")
ELIF = choose("        if ApplyRelu == 0:  # noqa: F821\n            sc = i * 2\n"
              "        elif ApplyRelu == 1:  # noqa: F821\n            sc = i * 3\n        else:\n            sc = i\n")
SOME_BRANCH = choose("        if j % 3 == 0:\n            sc = i * 2\n        j = j + 1\n",
                     before="    sc = 1\n    j = 0\n")
#: bound in some branches, of a test the tiling-key instance decides: in every iteration of
#: instance 0, in none of instance 1 (which keeps the 1 set before the loop)
KEY_BRANCH = choose("        if ApplyRelu == 0:  # noqa: F821\n            sc = i * 2\n", before="    sc = 1\n")
ELIF_READS_CARRIED = choose("        if ApplyRelu == 5:  # noqa: F821\n            sc = i\n        elif prev > 0:\n"
                            "            sc = i * 2\n        else:\n            sc = i * 3\n        prev = i\n",
                            before="    prev = 0\n")
DTYPE_GUARD = edited(BASE, [("HALF = BLOCK // 2", "DTYPE = pl.DT_FP32\nHALF = BLOCK // 2"),
                            ("        with pl.section_vector():\n" + CALL,
                             "        if DTYPE == pl.DT_FP32:\n            with pl.section_vector():\n    " + CALL)])
SHAPES = {"a": (160, 32), "out": (160, 32)}


@pytest.mark.parametrize("name", ["EVERY_BRANCH", "ONE_LINE", "ELIF", "DTYPE_GUARD", "KEY_BRANCH"])
def test_a_value_bound_in_every_branch_is_not_carried(name):
    result = transpile(globals()[name], path=f"{name.lower()}.py")
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]


@pytest.mark.emulator
@pytest.mark.parametrize("relu", [0, 1])
@pytest.mark.parametrize("name", ["EVERY_BRANCH", "DTYPE_GUARD", "KEY_BRANCH"])
def test_they_verify_ok(name, relu):
    text = globals()[name]
    code = transpile(text, path="chosen.py").code
    assert code is not None
    report = verify(text, code, "tiled_scale_kernel", path="chosen.py", block_dim=2, shapes=SHAPES,
                    scalars={"scale": 0.5, "ApplyRelu": relu})
    assert report.ok, report.summary()


@pytest.mark.parametrize("name", ["SOME_BRANCH", "ELIF_READS_CARRIED"])
def test_a_value_bound_in_some_branches_or_read_by_an_elif_test_is_carried(name):
    errors = error_messages(transpile(globals()[name], path=f"{name.lower()}.py"))
    assert any(CARRIED in e for e in errors), errors


#: a barrier after the loop, under a test
BARRIER = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"


def _barrier_under(test: str) -> str:
    return edited(BASE, [(BARRIER, BARRIER + f"    if {test}:  # noqa: F821\n        pl.system.sync_all()\n")])


def test_a_barrier_under_a_test_of_compile_time_values_is_reached_by_every_block():
    for test in ("ApplyRelu == 1", "True", "HALF == 16"):
        result = transpile(_barrier_under(test), path="barrier.py")
        assert error_messages(result) == [], (test, [str(d) for d in result.diagnostics])


def test_a_barrier_under_a_test_of_the_block_is_refused():
    errors = error_messages(transpile(_barrier_under("core_id > 0"), path="barrier.py"))
    words = "a test that may go another way on another block or on the other vector core of a block"
    assert any(words in e for e in errors), errors
