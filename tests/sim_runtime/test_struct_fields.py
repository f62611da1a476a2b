"""Struct fields take their initialiser's type, as the C++ struct PyPTO lowers `pl.struct` and
`pl.struct_array` to does: a value stored into a field of a narrower or another type changes as on
the device (probe h98: a ctx field typed fp16 carried 1.0001 as 1.0, and the emulator, whose fields
were untyped, reported the pipelined kernel correct)."""

from __future__ import annotations

import textwrap

import pytest

from sim_runtime import run_kernel

pytestmark = pytest.mark.emulator

KERNEL = "import pypto_pro.language as pl\n" + textwrap.dedent("""
@pl.jit
def k(out: pl.Tensor[[1, 8], pl.DT_FP32]):
    with pl.section_vector():
        ring = pl.struct_array(2, "R", f=INIT)
        ring[1].f = VALUE
        pl.setval(out, 0, ring[1].f)
""")


@pytest.mark.parametrize("init, value, seen", [
    ("pl.const(0.0, pl.DT_FP16)", "1.0001", 1.0),  # fp16 has 10 bits of mantissa
    ("pl.const(0.0, pl.DT_BF16)", "1.01", 1.0078125),  # bf16 has 7
    ("pl.const(0.0, pl.DT_FP32)", "1.0001", 1.000100016593933),
    ("0", "2.75", 2.0),  # an int field truncates
    ("0", "-2.75", -2.0),
    ("pl.const(0, pl.DT_INT8)", "300", 44.0),  # an int8 field wraps
    ("0.0", "1.0001", 1.0001),  # a float literal's field: a kernel scalar, as every float is emulated
])
def test_a_field_holds_values_of_its_initialisers_type(init, value, seen):
    out = run_kernel("k.py", "k", {}, source=KERNEL.replace("INIT", init).replace("VALUE", value)).outputs["out"]
    assert out[0, 0] == pytest.approx(seen, rel=1e-7, abs=0), out[0, 0]


def test_a_field_holding_something_else_than_a_number_is_kept():
    src = KERNEL.replace("f=INIT", "f=0, g=None").replace("ring[1].f = VALUE", "ring[1].g = (1.5, 2)\n        "
                                                             "ring[1].f = ring[1].g[0]")
    assert run_kernel("k.py", "k", {}, source=src).outputs["out"][0, 0] == 1.0  # 1.5 into the int field


LOCAL = "import pypto_pro.language as pl\n" + textwrap.dedent("""
@pl.jit
def k(out: pl.Tensor[[1, 8], pl.DT_FP32]):
    with pl.section_vector():
        x: ANNOTATION = VALUE
        pl.setval(out, 0, x)
""")


@pytest.mark.parametrize("annotation, value, seen", [
    ("pl.DT_FP16", "1.0001", 1.0),  # a kernel scalar of that dtype on the device
    ("pl.DT_INT8", "300", 44.0),
    ("pl.DT_FP32", "1.00000001", 1.0),
    ("float", "1.0001", 1.0001),  # not a `pl` dtype: kept as it is
])
def test_a_local_annotated_with_a_pl_dtype_holds_a_value_of_it(annotation, value, seen):
    out = run_kernel("k.py", "k", {}, source=LOCAL.replace("ANNOTATION", annotation).replace("VALUE", value))
    assert out.outputs["out"][0, 0] == pytest.approx(seen, rel=1e-7, abs=0)


def test_ssbuf_copies_the_fields_of_a_struct_and_not_its_kinds():
    """`pl.ssbuf_store` lays out the fields alone (probe h109: the fields' kinds, kept beside them,
    were taken for the first word, and every store raised a TypeError blamed on the kernel)."""
    source = "import pypto_pro.language as pl\n" + textwrap.dedent("""
    @pl.jit
    def k(out: pl.Tensor[[1, 8], pl.DT_FP32]):
        with pl.section_vector():
            w = pl.struct("SB", s=0.25, n=3)
            pl.ssbuf_store(w, 0)
            r = pl.struct("SB", s=0.0, n=pl.const(0, pl.DT_INT8))
            pl.ssbuf_load(r, 0)
            pl.setval(out, 0, r.s + r.n)
    """)
    assert run_kernel("k.py", "k", {}, source=source).outputs["out"][0, 0] == 3.25


def test_a_float_field_of_tiling_data_given_a_whole_number_holds_a_float():
    """A launch passes a `float` field as the float it is, given `2` or `2.0` (probe h109: the int 2
    made a struct initialised from it a field of integers in the emulator alone)."""
    from dataclasses import dataclass

    from sim_runtime.kernelspec import build_tiling_data

    @dataclass
    class Tiling:
        scale: float
        rows: int

    built = build_tiling_data(Tiling, {"scale": 2, "rows": 3})
    assert type(built.scale) is float and type(built.rows) is int
