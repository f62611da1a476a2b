"""Vector-function bodies the evaluator read wrongly or crashed on (probe h132).

- A float operand of a bitwise operator (`256.0 & -32`) in a branch that never runs raised
  TypeError, an internal error on a valid kernel; the evaluator could not decide `LANES is not
  None` either, so it ran both ways. Both are followed now: the kernel is proven and runs.
- A mask pattern that is no `pl.MaskPattern` member (`"VL²"`: `isdigit()` holds, `int()` fails)
  crashed the check; it is refused, as the emulator refuses the serial kernel.
- A positional-only parameter (`def f(dst, /, src)`) had no role: it has its own now.
- A call through a local name (`f = scale_vf`) is named; a float bound of `pl.range` and a flag
  given as a number are read as the op reads them (`int()`, truth)."""

from __future__ import annotations

import pytest
from test_vf_probe import _CALL, _END, _LOOP, BASE

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

SHAPES = {"a": (192, 32), "out": (192, 32)}
SCALARS = {"scale": 0.5, "ApplyRelu": 1}


@pytest.mark.parametrize("preload", [1, 2])
def test_a_float_bitwise_operand_in_a_branch_that_never_runs_is_no_crash(preload):
    text = edited(BASE, [(_END, _END + "    if LANES is not None:\n        tail = 0\n    else:\n"
                                       "        tail = (HALF * BLOCK / 2) & -32\n"
                                       "    vf.store_align(dst, x, p32, tail)\n")])
    result = transpile(text, path="k.py", preload=preload)
    assert error_messages(result) == [] and result.code is not None
    rows = verify(text, result.code, "tiled_scale_kernel", path="k.py", block_dim=2, shapes=SHAPES,
                  scalars=SCALARS).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


def test_a_mask_pattern_that_is_no_member_is_refused_as_the_emulator_refuses_it():
    text = edited(BASE, [("pattern=pl.MaskPattern.ALL", 'pattern="VL²"')])
    (message,) = error_messages(transpile(text, path="k.py", preload=2))
    assert "mask pattern 'VL²' is no `pl.MaskPattern` member" in message, message
    rows = verify(text, text, "tiled_scale_kernel", path="k.py", shapes=SHAPES, scalars=SCALARS).rows
    assert rows[0].verdict != "ok", rows[0]


def test_a_positional_only_parameter_has_its_role():
    """`def scale_vf(dst, /, src)`: the roles were read off the ordinary parameters alone, shifted
    by one place, and the scan lost the read of `proj` (probe h132: PTO033 said the group had no
    consumer). The same program as the base: proven and run."""
    text = edited(BASE, [("def scale_vf(dst, src):\n", "def scale_vf(dst, /, src):\n")])
    result = transpile(text, path="k.py", preload=2)
    assert error_messages(result) == [] and result.code is not None
    rows = verify(text, result.code, "tiled_scale_kernel", path="k.py", block_dim=2, shapes=SHAPES,
                  scalars=SCALARS).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


def test_a_vector_function_called_through_a_local_name_is_refused_naming_the_call():
    """`f = scale_vf; f(res, proj)`: the scan follows calls by the names the file's `def`s bind;
    it missed this one's read of `proj`, and PTO033 said the group had no consumer (probe h132)."""
    text = edited(BASE, [(_CALL, "    f = scale_vf\n    f(res, proj)\n")])
    (message,) = error_messages(transpile(text, path="k.py", preload=2))
    assert message.startswith("`f` is called with tile(s) of buffer(s) proj_vec_db, but it is no function of the file "
                              "the access scan can name"), message


@pytest.mark.parametrize("edit", [(_LOOP, "    for k in pl.range(0, HALF * BLOCK / LANES):\n"),
                                  ("        x = vf.load_align(src, k * LANES)\n",
                                   "        x = vf.load_align(src, k * LANES, post_update=0)\n")],
                         ids=["a float bound of pl.range", "post_update=0"])
def test_static_values_of_another_python_type_are_read_as_the_op_reads_them(edit):
    """`pl.range` takes `int()` of its bounds and an op a flag by its truth, as the emulator does:
    both were called "not static" (probe h132)."""
    text = edited(BASE, [edit])
    result = transpile(text, path="k.py", preload=2)
    assert error_messages(result) == [] and result.code is not None
    rows = verify(text, result.code, "tiled_scale_kernel", path="k.py", block_dim=2, shapes=SHAPES,
                  scalars=SCALARS).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message
