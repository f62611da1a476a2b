"""Which names a statement reads, for what an iteration carries to the next: a field's name
(`g` of `cfgs[0].g`) and a keyword's name (`g` of `f(g=1)`) read nothing of a local `g`. The
check took them for reads of `g` before the iteration bound it, and refused the kernel with
"`g` carries a value from one iteration to the next" (probe h111)."""

from __future__ import annotations

from pathlib import Path

from helpers import assert_proven_and_run, kernel_text, refusal_of

KERNEL = Path(__file__).parent / "kernels" / "field_name_read_as_local.py"
ROWS = {"a": (640, 32), "out": (640, 32)}
BOUND = "        g: pl.DT_FP32 = cfgs[0].g * (ki % 2 + 1)\n"


def test_a_field_of_the_locals_name_is_no_read_of_it():
    assert BOUND in kernel_text(KERNEL)
    assert_proven_and_run(KERNEL, "kernel", shapes=ROWS, scalars={"n": 20})


def test_a_keyword_of_the_locals_name_is_no_read_of_it(tmp_path):
    text = kernel_text(KERNEL).replace(BOUND, "        g: pl.DT_FP32 = scaled(cfgs[0].g, g=ki % 2 + 1)\n")
    text = text.replace("\n\n@pl.jit", "\n\ndef scaled(x, g):\n    return x * g\n\n\n@pl.jit", 1)
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert_proven_and_run(path, "kernel", shapes=ROWS, scalars={"n": 20})


def test_a_local_read_before_it_is_bound_still_carries(tmp_path):
    text = kernel_text(KERNEL).replace(BOUND, "        g: pl.DT_FP32 = g * 0.5 + cfgs[0].g\n")
    text = text.replace("    cfgs = [pl.struct(g=0.5)]\n", "    cfgs = [pl.struct(g=0.5)]\n    g = 0.5\n")
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert "`g` carries a value from one iteration to the next" in refusal_of(path)
