"""A `@pl.jit(datatype={"x": "o_dt"})` name is the dtype of `x`. The check proves the kernel with
the dtype `x` is declared with; the emulator bound the name to whatever a launch gave, so a launch
at FP32 of a group laid out for the FP16 `x` was run, and raced pipelined (probe h122). A launch
that contradicts the declaration is refused now, by the launch syntax as by `simulate`; one at
the declared dtype runs as before, and a name two parameters declare apart is not read at all."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime.errors import KernelError
from sim_runtime.launch import simulate
from sim_runtime.loader import load_kernel_module

TEXT = kernel_text(Path(__file__).parent / "kernels" / "h122_datatype_launch.py")


def _inputs(rows: int = 96) -> dict:
    rng = np.random.default_rng(0)
    return {"a": rng.standard_normal((rows, 32)).astype(np.float32), "x": np.zeros((16, 32), np.float16),
            "out": np.zeros((rows, 32), np.float32)}


@pytest.fixture(scope="module")
def kernels():
    code = transpile(TEXT, path="k.py", preload=2).code
    assert code is not None
    return load_kernel_module(TEXT, path="k.py").kernel, load_kernel_module(code, path="k_p2.py").kernel


@pytest.mark.parametrize("given", [{"o_dt": "DT_FP32"}, {"x": "DT_FP32"}])
def test_a_launch_binding_the_name_against_the_declaration_is_refused(kernels, given):
    for kernel, mode in zip(kernels, ("sequential", "concurrent"), strict=True):
        with pytest.raises(KernelError, match="declared DT_FP16: the launch binds it to DT_FP32"):
            simulate(kernel, _inputs(), mode=mode, datatypes=given)


def test_the_launch_syntax_refuses_it_too(kernels):
    _, piped = kernels
    inputs = _inputs()
    with pytest.raises(KernelError, match="declared DT_FP16"):
        piped[None, 1, {"o_dt": "DT_FP32"}](inputs["a"], inputs["x"], inputs["out"])


def test_a_launch_at_the_declared_dtype_runs_as_the_serial_kernel(kernels):
    serial, piped = kernels
    results = [simulate(kernel, _inputs(), mode=mode, datatypes={"o_dt": "DT_FP16"})
               for kernel, mode in zip((serial, piped), ("sequential", "concurrent"), strict=True)]
    assert np.array_equal(results[0].outputs["out"], results[1].outputs["out"])


def test_a_name_two_parameters_declare_apart_is_not_read():
    """`datatype={"x": "o_dt", "a": "o_dt"}` with `x` FP16 and `a` FP32: no launch can bind it."""
    text = edited(TEXT, [('datatype={"x": "o_dt"}', 'datatype={"x": "o_dt", "a": "o_dt"}')])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "the dtype of this tile type (`o_dt`) is not a `pl` dtype the check can read" in message, message
