"""FlashAttention (DN) on the emulator: the serial kernel computes softmax(q k^T / sqrt(d)) v,
and the transpiler's pipelined versions compute exactly the same bits, faster.

Inputs as on the device: q [256, 128], k and v [512, 128], fp16 uniform in [0, 1). The
examples' rows are `pl.DYNAMIC`; they are transpiled here at those rows (`fixed_rows`: one
run of the proof instead of dozens), and as they are by the campaign test at the end.
"""

import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from helpers import fixed_rows
from helpers import flash_attention_inputs as inputs
from pto_transpile import transpile
from pto_transpile.cli import main
from sim_runtime import RaceError, load_kernel_module, run_kernel

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parent.parent.parent
FA = ROOT / "examples" / "flash_attention_dn.py"
OVERLAP = ROOT / "examples" / "flash_attention_dn_overlap.py"
TOL = 5e-3


def reference(q, k, v):
    """softmax(q k^T / sqrt(d)) v in double precision."""
    s = q.astype(np.float64) @ k.astype(np.float64).T / np.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


@cache
def serial(path):
    return run_kernel(path, path.stem, inputs(), mode="sequential")


def pipelined(path, preload):
    result = transpile(fixed_rows(path.read_text()), preload=preload, path=path.name)
    assert result.ok, result.diagnostics
    return run_kernel(f"{path.stem}_p{preload}.py", path.stem, inputs(), source=result.code)


def test_serial_kernel_matches_the_numpy_reference_of_its_file():
    file_reference = load_kernel_module(FA).reference
    qkv = {name: inputs()[name] for name in "qkv"}
    np.testing.assert_allclose(file_reference(**qkv), reference(**qkv), rtol=1e-12)
    out = serial(FA).outputs["o"]
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), file_reference(**qkv), atol=TOL, rtol=TOL)
    assert serial(FA).warnings == []


@pytest.mark.parametrize("preload", [0, 1, 2])
def test_pipelined_kernel_is_bit_identical_to_serial(preload):
    run = pipelined(FA, preload)
    assert np.array_equal(run.outputs["o"], serial(FA).outputs["o"])
    if preload:
        assert run.cycles < serial(FA).cycles


def test_address_reuse_variant_computes_the_same_bits_at_preload_1():
    assert np.array_equal(serial(OVERLAP).outputs["o"], serial(FA).outputs["o"])
    run = pipelined(OVERLAP, 1)
    assert np.array_equal(run.outputs["o"], serial(FA).outputs["o"])
    assert run.cycles < serial(OVERLAP).cycles


def test_preload_3_forward_only_refusal_is_a_real_race():
    # PTO057 refuses preload 3: 3 forward-only P tiles are too few, compute_p overwrites a P
    # tile compute_pv has not read yet. Written anyway, the kernel really races.
    result = transpile(FA.read_text(), preload=3, path=FA.name)
    assert [d.code for d in result.diagnostics] == ["PTO057"] and result.code is None
    result = transpile(fixed_rows(FA.read_text()), preload=3, path=FA.name, _skip_rules=["PTO057", "PTO061"])
    with pytest.raises(RaceError, match=r"(?s)read\s+by b0\.AIC on pipe MTE1: pl\.move in compute_pv.*"
                                        r"write by b0\.AIV\d on pipe MTE3: pl\.insert in compute_p"):
        run_kernel("fa_p3.py", FA.stem, inputs(), source=result.code)


@pytest.mark.campaign  # the proof for every size (85 runs at preload 2), then two emulator runs
def test_cli_simulate_prints_the_cycles_and_pipelining_pays(tmp_path):
    from click.testing import CliRunner

    shapes = ["--shape", "q=256x128", "--shape", "k=512x128", "--shape", "v=512x128", "--shape", "o=256x128"]
    r = CliRunner().invoke(main, [str(FA), "--simulate", *shapes, "-o", str(tmp_path / "fa.py")],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    cycles = {v: int(re.search(rf"\b{v}\b\D*?(\d+)", r.output).group(1)) for v in ("serial", "pipelined")}
    assert 0 < cycles["pipelined"] < cycles["serial"], r.output


@pytest.mark.campaign
def test_the_benchmark_script_runs():
    """Its times are for reading, never asserted: a loaded machine is no failure."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sim_flash_attention.py")], capture_output=True,
                       text=True, check=True)
    assert "pipelined" in r.stdout and "simulated cycles" in r.stdout, r.stdout
