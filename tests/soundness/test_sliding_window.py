"""A loop whose start moves with an enclosing loop (`pl.range(r, r + win)`) is not followed; the
refusal now says how to write it (probe h97: "the bounds are not integers the check can follow",
with no form to use), and the form it names is proven and runs as the serial kernel."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "sliding_window.py")
LOOP = "        for i in pl.range(r, r + win):\n"


def test_the_refusal_names_the_form_to_use():
    (message,) = error_messages(transpile(KERNEL, path="k.py"))
    assert message.endswith("the bounds of `pl.range(r, r + win)` are not integers the check can follow: count it "
                            "from 0 and add the start in its body (`for k in pl.range(0, win):` with `i = r + k`)")


def test_the_form_it_names_is_proven():
    text = edited(KERNEL, [(LOOP, "        for k in pl.range(0, win):\n            i = r + k\n")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    shapes = {"a": (160, 32), "out": (64, 96), "c": (64, 32), "wt": (96, 32)}
    report = verify(text, result.code, "kern", shapes=shapes, scalars={"d": 1, "alpha": 0.5})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
