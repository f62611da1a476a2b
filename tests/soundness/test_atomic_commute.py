"""Atomic adds of one class commute in the check as on GM (and in the emulator).

GM applies `pl.store(..., atomic=pl.AtomicType.AtomicAdd)` as one read-modify-write per
element, so two such stores into the same elements of one tensor need no order: their order
changes only the rounding. Both vector cores adding their halves into the same rows (a
split-K reduction) was refused as a race of the serial kernel; it is proven now and verifies
ok on the emulator. An atomic add against a plain store, or a read that sees other additions
in the pipelined kernel than in the serial one, is still a problem.

The kernels are the rules' two-stage example with the vector stage's store edited."""

from __future__ import annotations

from pathlib import Path

import pytest

import skeleton as ex
from helpers import error_messages, kernel_text
from pto_transpile import transpile
from pto_transpile.soundness.events import AIV0, AIV1, Event, Foot, Trace
from pto_transpile.soundness.order import run_sequential
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
STORE = "    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])"
ADD = "pl.store(out, x, [0, 0], atomic=pl.AtomicType.AtomicAdd)"
#: `out` is the 16 rows both vector cores add into
PARAMS = ex.PARAMS.replace("out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],", "out: pl.Tensor[[HALF, TILE], pl.DT_FP32],")
BOTH_ADD = ex.kernel(st=ex.ST.replace(STORE, f"    {ADD}"), params=PARAMS)
#: AIV0 adds, AIV1 overwrites the same rows: nothing orders the two
ONE_OVERWRITES = ex.kernel(st=ex.ST.replace(STORE, f"    if sub_id == 0:\n        {ADD}\n    else:\n"
                                                   "        pl.store(out, x, [0, 0])"), params=PARAMS)


@pytest.mark.parametrize("preload", [0, 1, 2])
def test_both_vector_cores_adding_into_the_same_rows_is_proven(preload):
    result = transpile(BOTH_ADD, path="split_k.py", preload=preload)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]
    assert result.code is not None


@pytest.mark.emulator
@pytest.mark.parametrize("preload", [1, 2])
def test_both_vector_cores_adding_into_the_same_rows_verifies_ok(preload):
    code = transpile(BOTH_ADD, path="split_k.py", preload=preload).code
    assert code is not None
    report = verify(BOTH_ADD, code, "kernel", path="split_k.py", seed=0)
    assert report.ok, report.summary()


@pytest.mark.parametrize("preload", [0, 1])
def test_an_add_and_a_plain_store_of_the_same_rows_are_refused(preload):
    # every block adds there and overwrites there: refused across blocks before the run's races
    errors = error_messages(transpile(ONE_OVERWRITES, path="overwrite.py", preload=preload))
    assert errors and "`out` is added to atomically by every block" in errors[0] \
        and "(`pl.store(out, x, [0, 0])`)" in errors[0], errors


PLAIN = Foot(("GM", "out"), 0, 16, 0, 32, "out[0:16, 0:32]")
ADDS = PLAIN._replace(atomic="add")
READ = (AIV0, ("read",), 0)


def _run(writes: list[tuple[int, str, Foot]]) -> tuple:
    """What a last read of `out` by AIV0 sees, and what `out` ends with, after the writes
    `(core, name, foot)` in the order given (an atomic add reads what it adds to as well)."""
    trace = Trace()
    for seq, (core, name, foot) in enumerate(writes):
        trace.events[core].append(Event(core=core, kind="op", seq=seq, writes=(foot,),
                                        reads=(foot,) if foot.atomic else (), ident=(name,)))
    trace.events[AIV0].append(Event(core=AIV0, kind="op", seq=len(writes), reads=(PLAIN,), ident=("read",)))
    outcome = run_sequential(trace)
    return outcome.reaching[READ], outcome.final[("GM", "out")]


def test_atomic_adds_in_another_order_are_seen_alike():
    serial = _run([(AIV0, "w", PLAIN), (AIV0, "a", ADDS), (AIV1, "b", ADDS)])
    swapped = _run([(AIV0, "w", PLAIN), (AIV1, "b", ADDS), (AIV0, "a", ADDS)])
    assert serial == swapped
    assert serial[0] == ((AIV0, ("w",)), (AIV0, ("a",)), (AIV1, ("b",)))  # the plain write below both adds


def test_an_add_moved_across_a_plain_store_is_seen_otherwise():
    serial = _run([(AIV0, "w", PLAIN), (AIV1, "a", ADDS)])
    moved = _run([(AIV1, "a", ADDS), (AIV0, "w", PLAIN)])  # the plain store overwrites the addition
    assert serial[0] != moved[0] and serial[1] != moved[1]
    assert moved[0] == ((AIV0, ("w",)),)


def test_a_plain_store_between_adds_splits_them():
    # the adds before the overwrite are gone; only the one after it commutes with nothing
    assert _run([(AIV0, "a", ADDS), (AIV0, "w", PLAIN), (AIV1, "b", ADDS)])[0] == ((AIV0, ("w",)), (AIV1, ("b",)))


def test_adds_of_one_core_in_another_order_are_seen_otherwise():
    """GM applies one core's additions in the order it issues them, and they round (or truncate, a
    float tile into an integer tensor: probe h106) otherwise in another order: two cores'
    additions commute, one core's do not."""
    across = [(AIV0, "a", ADDS), (AIV1, "b", ADDS), (AIV0, "c", ADDS)]
    assert _run(across) == _run([across[1], across[0], across[2]])  # AIV1's moved among AIV0's
    assert _run(across) != _run([across[2], across[1], across[0]])  # AIV0's own two swapped


def test_two_stages_of_one_core_adding_floats_into_one_region_are_refused():
    """Probe h104: pipelined, the vector core issues `fill_row` of task 1 before `scale_store` of
    task 0; accepted as additions that commute, the emulator's sum differed in its last bits."""
    text = kernel_text(KERNELS / "h104_atomic_add_two_stages_one_core.py")
    result = transpile(text, path="k.py")
    (error,) = [d for d in result.diagnostics if d.is_error]
    assert "`total[0:16, 0:32]` is summed in another order: atomic additions of one core" in error.message, \
        error.message
    assert error.hint.startswith("Let one stage make the atomic additions into a region"), error.hint
