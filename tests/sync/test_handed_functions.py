"""A stage calling a function of the file it is handed (`post(y, c)`, the stage called with
`_relu`) is scanned as if it called that function by name, so its tile accesses order the pipeline
(probe h94: the consumer's read was missed and the tile group looked used by one stage, PTO033).
One chosen per iteration would travel in a ctx field, which holds numbers only: refused, saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parents[1] / "soundness" / "kernels" / "trip_param.py").read_text(encoding="utf-8")
FUNCTIONS = ("def _relu(y, c):\n    pl.relu(y, c)\n    return 0\n\n\n"
             "def _neg_in_place(y, c):\n    pl.muls(c, c, -1.0)\n    pl.relu(y, c)\n    return 0\n\n\n"
             "def _apply(fn, y, c):\n    return fn(y, c)\n\n\n")
BRANCH = "    if ki == 0:\n        pl.relu(y, c_vec)\n    else:\n        pl.add(y, c_vec, bias_ring[ki % 3])\n"


def _handed(argument: str, call: str = "    post(y, c_vec)\n") -> str:
    first = "\n\n@pl.pipeline.stage\ndef mm_stage"
    return edited(KERNEL, [(first, "\n\n" + FUNCTIONS + first.lstrip("\n")),
                           ("def scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring):",
                            "def scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring, post):"),
                           (BRANCH, call),
                           ("scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)",
                            f"scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring, {argument})")])


def _verified(text: str) -> None:
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for n in (1, 4, 5):
        report = verify(text, result.code, "kernel", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                        scalars={"n": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, report.rows)


@pytest.mark.parametrize("function", ["_relu", "_neg_in_place"])
def test_a_handed_function_is_scanned_as_called_by_name(function):
    """`_neg_in_place` also writes the consumed tile: the pipeline must order that write too."""
    _verified(_handed(function))


def test_handed_on_to_a_helper():
    _verified(_handed("_neg_in_place", "    _apply(post, y, c_vec)\n"))


@pytest.mark.parametrize("choice", ["_relu if ki == 0 else _neg_in_place", "(_relu, _neg_in_place)[ki % 2]"])
def test_a_function_chosen_per_iteration_cannot_travel_in_a_ctx_field(choice):
    (message,) = error_messages(transpile(_handed(choice), path="k.py"))
    assert message == (f"`{choice}` travels to stage `scale_store` in a ctx field, but it is a function of the file, "
                       "which a ctx field cannot hold")


def test_handed_by_a_kernel_local_bound_once():
    """`post = _neg_in_place` in the kernel, then `scale_store(..., post)` (probe h99: a false PTO033)."""
    loop = "    for ki in pl.range(0, n):\n"
    _verified(edited(_handed("post"), [(loop, "    post = _neg_in_place\n" + loop)]))


def test_a_kernel_local_bound_twice_is_not_followed():
    loop = "    for ki in pl.range(0, n):\n"
    text = edited(_handed("post"), [(loop, "    post = _neg_in_place\n    if n > 3:\n        post = _relu\n" + loop)])
    assert error_messages(transpile(text, path="k.py"))


def test_handed_as_the_parameter_default():
    """`def scale_store(..., post=_neg_in_place)`, called without it (probe h102: its reads of the
    consumed tile were missed, and the check refused with a help naming tile groups)."""
    text = edited(_handed("post"), [
        ("def scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring, post):",
         "def scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring, post=_neg_in_place):"),
        ("scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring, post)",
         "scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)")])
    _verified(text)
