"""Probe h191: a helper with positional-only parameters and `**opts`, `relu_into(dst, src,
inplace=True, /, **opts)`, called with `inplace=False`: Python hands the keyword to `opts` and
keeps the default, so the relu runs in place on the cross-core slot and the store reads it while
the cube writes the next tile into it. The check bound the keyword to the parameter, followed a
store of the local tile, and proved the kernel; its mirror (default False, `inplace=True`) was
refused for a race it does not have. A keyword binds no positional-only parameter now, and one
named as such, with no `**` to take it, is a call Python refuses."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

HELPER = [("@pl.pipeline.stage\ndef scale_store(",
           "def relu_into(dst, src, inplace=DEFAULT, /, **opts):\n    res = src if inplace else dst\n"
           "    pl.relu(res, src)\n    return res\n\n\n@pl.pipeline.stage\ndef scale_store("),
          ("    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
           "    res = relu_into(y, c_vec, inplace=GIVEN)\n    pl.store(out, res, [ki * TILE + sub_id * HALF, 0])\n")]


def _helped(default: str, given: str) -> str:
    return edited(kernel("dynamic_rows.py"), HELPER).replace("DEFAULT", default).replace("GIVEN", given)


def test_a_keyword_named_as_a_positional_only_parameter_goes_to_its_kwargs():
    # in place on the cross-core slot, whatever the keyword says
    errors = error_messages(transpile(_helped("True", "False"), path="k.py", preload=1))
    assert errors and "reads `c_vec_db[0]`" in errors[0], errors


def test_the_default_kept_is_followed():
    # into the local tile, whatever the keyword says
    assert error_messages(transpile(_helped("False", "True"), path="k.py", preload=1)) == []


@pytest.mark.parametrize("params", ["dst, src, inplace=True, /", "dst, src, inplace, /, **opts"])
def test_a_keyword_for_a_positional_only_parameter_is_a_type_error(params):
    text = _helped("True", "False").replace("dst, src, inplace=True, /, **opts", params)
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "Python raises TypeError" in errors[0], errors


def test_a_vector_function_given_a_positional_only_parameter_by_keyword_is_a_type_error():
    from test_probe_h187 import SPILLING, TILED

    text = edited(TILED, SPILLING).replace("FAR", "0").replace("def scale_vf(dst, src, spill):",
                                                              "def scale_vf(dst, src, /, spill):")
    assert error_messages(transpile(text.replace("scale_vf(res, proj, scale)", "scale_vf(res, proj, spill=scale)"),
                                    path="k.py")) == []
    named = text.replace("scale_vf(res, proj, scale)", "scale_vf(res, src=proj, spill=scale)")
    errors = error_messages(transpile(named, path="k.py"))
    assert errors and "positional-only parameter `src` by keyword" in errors[0], errors
