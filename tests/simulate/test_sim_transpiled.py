"""The transpiler's own output for the seed demo, run on the emulator.

Issue 4's acceptance, on what users actually get: every generated version is bit-identical
to the serial kernel; deleting any one inserted set or wait is caught (deadlock or
imbalance); deleting every set and wait of one forward edge (flags still balance) is a race
naming the producer's write and the consumer's read.
"""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from pto_transpile import transpile
from sim_runtime import DeadlockError, RaceError, SyncBalanceError, run_kernel, verify

pytestmark = pytest.mark.emulator

SEED = (Path(__file__).parent.parent.parent / "examples" / "seed_demo.py").read_text()
NAME = "pipeline_demo_kernel"


def _generated(preload):
    result = transpile(SEED, preload=preload, path="seed_demo.py")
    assert result.ok, result.diagnostics
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
            yield node.lineno, node.end_lineno, ast.unparse(node)


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.campaign)])
def test_transpiled_demo_loses_any_sync_and_the_emulator_notices(every):
    """Every sync in the campaign; every fourth (prefire, loop, drain beats, drain) by default."""
    code = _generated(2)
    lines = code.splitlines(keepends=True)
    sites = list(_sync_statements(code))
    assert len(sites) == 6 + 2 * 6 + 10 + 6  # prefire, in-loop waits+sets, drain-beat copies, sync drain
    for first, last, _ in sites if every else sites[::4]:
        mutant = lines[:first - 1] + lines[last:]
        # a lost set hangs a waiter (deadlock); a lost wait lets a write overtake a read
        # (race) or leaves a set unconsumed (imbalance): each is a SimulationError
        with pytest.raises((DeadlockError, SyncBalanceError, RaceError)):
            run_kernel("gen.py", NAME, {}, source="".join(mutant))


FORWARD = {
    "mm1_vec_db": ("pl.move(mm1_vec, acc", "pl.relu(relu_vec, mm1_vec)"),
    "p_mat_db": ("pl.insert(p_mat, relu_nz", "pl.move(left, p_mat)"),
    "out_vec_db": ("pl.move(out_vec, acc", "pl.store(out, out_vec"),
}


@pytest.mark.parametrize("buf", sorted(FORWARD))
def test_dropping_a_forward_edge_is_a_race_naming_both_accesses(buf):
    code = _generated(2)
    lines = code.splitlines(keepends=True)
    drop = {i for first, last, text in _sync_statements(code) if f"_pl_fwd_ids_{buf}[" in text
            for i in range(first - 1, last)}
    assert drop
    mutant = "".join(line for i, line in enumerate(lines) if i not in drop)
    with pytest.raises(RaceError) as err:
        run_kernel("gen.py", NAME, {}, source=mutant)
    msg = str(err.value)
    producer, consumer = FORWARD[buf]
    for op in (producer, consumer):
        line = next(i for i, src_line in enumerate(mutant.splitlines(), 1) if op in src_line)
        assert f"gen.py:{line}" in msg
    assert re.search(r"write by b0\.\w+ on pipe \w+: pl\.(move|insert)", msg)
    assert re.search(r"read\s+by b0\.\w+ on pipe \w+: pl\.(relu|move|store)", msg)


def test_transpiled_preload2_beats_serial_cycles():
    serial = run_kernel("s.py", NAME, {}, source=SEED, mode="sequential")
    gen = run_kernel("g.py", NAME, {}, source=_generated(2))
    assert gen.cycles < serial.cycles
    assert np.array_equal(gen.outputs["out"], serial.outputs["out"])


def test_serial_kernel_run_concurrently_is_racy():
    with pytest.raises(RaceError):
        run_kernel("s.py", NAME, {}, source=SEED, mode="concurrent")
