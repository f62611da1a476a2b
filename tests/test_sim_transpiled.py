"""The transpiler's own output for the seed demo, run on the emulator (skipped without it)."""

import ast
from pathlib import Path

import numpy as np
import pytest

from sim_runtime import SimulationError, run_kernel, verify

pto_transpile = pytest.importorskip("pto_transpile")

SEED = (Path(__file__).parent / "sim_kernels" / "demo_serial.py").read_text()
NAME = "pipeline_demo_kernel"


def _generated(preload):
    result = pto_transpile.transpile(SEED, preload=preload, path="seed_demo.py")
    if result.code is None:
        pytest.skip(f"transpile refused preload={preload}: {result.diagnostics}")
    return result.code


@pytest.mark.parametrize("preload", [0, 1, 2])
def test_transpiled_demo_is_bit_identical_to_serial(preload):
    report = verify(SEED, _generated(preload), NAME, path="seed_demo.py", seed=preload)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def _sync_statements(code):
    """(first line, last line) of every set/wait statement (the output may wrap calls)."""
    for node in ast.walk(ast.parse(code)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "attr", "") in ("set_cross_core", "wait_cross_core")):
            yield node.lineno, node.end_lineno


def test_transpiled_demo_loses_any_sync_and_the_emulator_notices():
    code = _generated(2)
    lines = code.splitlines(keepends=True)
    sites = list(_sync_statements(code))
    assert sites
    for first, last in sites:
        mutant = lines[:first - 1] + lines[last:]
        with pytest.raises(SimulationError):
            run_kernel("gen.py", NAME, {}, source="".join(mutant))


def test_transpiled_preload2_beats_serial_cycles():
    serial = run_kernel("s.py", NAME, {}, source=SEED, mode="sequential")
    gen = run_kernel("g.py", NAME, {}, source=_generated(2))
    assert gen.cycles < serial.cycles
    assert np.array_equal(gen.outputs["out"], serial.outputs["out"])
