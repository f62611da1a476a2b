"""Loads and stores of GM tensors of more than two dimensions (a batch or head axis in front).

The check places such a window in the tensor seen as rows over every axis but the last,
row-major as GM holds it (`opevents._flat`): `out[b, r:r + 16, 0:32]` of a `[2, N * TILE,
TILE]` tensor is rows `b * N * TILE + r ...` of that view. Every such tensor was taken whole,
so a store into one refused the kernel as a race of the whole tensor. The kernels are the
rules' two-stage example with `out` given more axes."""

from __future__ import annotations

import pytest

import skeleton as ex
from helpers import error_messages
from pto_transpile import transpile
from sim_runtime import verify

STORE = "    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])"
OUT = "out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],"


def _kernel(store: str, dims: str = "2, N * TILE, TILE", cube_store: str = "") -> str:
    """The example with `out` of shape `[dims]`, the vector stage storing at `store`, and the
    cube stage also storing its accumulator at `cube_store` when given."""
    mm, loop = ex.MM, ex.LOOP
    if cube_store:
        mm = mm.replace("def mm(ki, a, a_l1,", "def mm(ki, a, out, a_l1,") + f"\n    pl.store(out, acc, {cube_store})"
        loop = loop.replace("mm(ki, a, a_l1,", "mm(ki, a, out, a_l1,")
    return ex.kernel(st=ex.ST.replace(STORE, f"    pl.store(out, x, {store})"), mm=mm, loop=loop,
                     params=ex.PARAMS.replace(OUT, f"out: pl.Tensor[[{dims}], pl.DT_FP32],"))


SLAB = _kernel("[1, ki * TILE + sub_id * HALF, 0]")
HEADS = _kernel("[1, 2, ki * TILE + sub_id * HALF, 0]", dims="2, 3, N * TILE, TILE")
#: task ki's cube stage stores rows ki of slab 0, its vector stage rows ki + 1 of slab 1
APART = _kernel("[1, (ki + 1) * TILE + sub_id * HALF, 0]", dims="2, (N + 1) * TILE, TILE",
                cube_store="[0, ki * TILE, 0]")
#: both in slab 1: the vector stage of task ki stores the rows the cube stage of task ki + 1
#: stores after it; pipelined, the cube runs task ki + 1 first and the rows end with task ki's
SAME = APART.replace("pl.store(out, acc, [0, ki * TILE, 0])", "pl.store(out, acc, [1, ki * TILE, 0])")


@pytest.mark.parametrize("name, text", [("slab", SLAB), ("heads", HEADS), ("apart", APART)])
@pytest.mark.parametrize("preload", [0, 1, 2])
def test_windows_of_tensors_of_more_axes_are_placed(name, text, preload):
    result = transpile(text, path=f"{name}.py", preload=preload)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]


@pytest.mark.emulator
@pytest.mark.parametrize("name, text", [("slab", SLAB), ("heads", HEADS), ("apart", APART)])
def test_they_verify_ok(name, text):
    code = transpile(text, path=f"{name}.py", preload=1).code
    assert code is not None
    report = verify(text, code, "kernel", path=f"{name}.py", seed=0)
    assert report.ok, report.summary()


def test_the_same_rows_of_one_slab_a_task_apart_are_refused():
    errors = error_messages(transpile(SAME, path="same.py", preload=1))
    assert errors and any("out[1, 32:64, 0:32]" in e for e in errors), errors


@pytest.mark.emulator
def test_the_emulator_agrees_they_differ():
    code = transpile(SAME, path="same.py", preload=1, _skip_rules={"PTO061"}).code
    assert code is not None
    assert not verify(SAME, code, "kernel", path="same.py", seed=0).ok


def test_both_vector_cores_on_the_same_rows_of_a_slab_are_refused():
    errors = error_messages(transpile(_kernel("[1, ki * TILE, 0]"), path="twin.py", preload=1))
    assert errors and "`out[1, 0:16, 0:32]` while the same op on AIV1" in errors[0], errors


#: a 16 x 32 tile stored where the last axis is 16 wide: GM holds the tensor row-major, so each
#: tile row runs on into the next tensor row, and the two vector cores' halves overlap
SPILLS = {"slab": _kernel("[1, ki * TILE + sub_id * HALF, 0]", dims="2, N * TILE, HALF"),
          "plain": _kernel("[ki * TILE + sub_id * HALF, 0]", dims="N * TILE, HALF")}


@pytest.mark.parametrize("name", sorted(SPILLS))
def test_a_window_past_the_last_axis_reaches_the_next_rows(name):
    errors = error_messages(transpile(SPILLS[name], path=f"{name}.py", preload=1))
    assert any("while the same op on AIV1" in e and "run on past the tensor's 16 columns" in e for e in errors), errors


def test_a_window_within_the_last_axis_is_not_spilled():
    text = _kernel("[1, ki * TILE + sub_id * HALF, 0]", dims="2, N * TILE, 2 * TILE")
    assert error_messages(transpile(text, path="wide.py", preload=1)) == []
