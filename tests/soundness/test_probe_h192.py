"""Probe h192: Python computes every positional argument of a call, starred ones too, before any
keyword, wherever the keyword is written. `relu_into(y, c_vec, inplace=len(used) > 0,
*[used.append(ki)])` appends first, so `inplace` is True and the store reads the cross-core slot
while the cube writes the next tile into it; the check computed the arguments in the order
written, took `inplace` False, followed the local tile and proved the kernel."""

from __future__ import annotations

from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

HELPER = [("@pl.pipeline.stage\ndef scale_store(",
           "def relu_into(dst, src, *extra, inplace=False):\n    res = src if inplace else dst\n"
           "    pl.relu(res, src)\n    return res\n\n\n@pl.pipeline.stage\ndef scale_store("),
          ("    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
           "    used = []\n    res = CALL\n    pl.store(out, res, [ki * TILE + sub_id * HALF, 0])\n")]


def test_positional_arguments_are_computed_before_keywords():
    call = "relu_into(y, c_vec, inplace=len(used) > 0, *[used.append(ki)])"
    text = edited(kernel("dynamic_rows.py"), HELPER).replace("CALL", call)
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "reads `c_vec_db[0]`" in errors[0], errors


def test_a_keyword_computed_before_a_later_list_is_followed():
    # `used` is empty when `inplace` is computed: into the local tile
    call = "relu_into(y, c_vec, *[], inplace=len(used) > 0)"
    assert error_messages(transpile(edited(kernel("dynamic_rows.py"), HELPER).replace("CALL", call), path="k.py",
                                    preload=1)) == []


def test_a_consumer_handing_its_tile_to_a_call_not_followed_is_named():
    # PTO033 said the group had no consumer, and nothing about the stage given it
    text = edited(kernel("dynamic_rows.py"), HELPER).replace("CALL", "relu_into(*[y, c_vec])")
    (message, *_) = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO033"]
    assert "`scale_store` is given it, but none of the ops pto-transpile follows there touches it" in message, message
