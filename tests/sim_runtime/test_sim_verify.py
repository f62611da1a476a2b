"""verify(): serial vs generated on seeded inputs, one table, no tracebacks."""

import json
from pathlib import Path

import pytest
from rich.console import Console

from sim_runtime import verify

pytestmark = pytest.mark.emulator

KERNELS = Path(__file__).parent.parent / "sim_kernels"
SERIAL_PATH = Path(__file__).parent.parent.parent / "examples" / "seed_demo.py"  # the serial demo as users get it
NAME = "pipeline_demo_kernel"
SERIAL = (SERIAL_PATH).read_text()
P0 = (KERNELS / "demo_p0.py").read_text()
P2 = (KERNELS / "demo_p2.py").read_text()


def test_verify_demo_versions(tmp_path):
    trace = tmp_path / "t.json"
    report = verify(SERIAL, P2, NAME, path="demo.py", seed=3, timeline_path=trace)
    assert report.ok
    serial, gen = report.rows
    assert serial.version == "serial" and serial.speedup == 1.0
    assert gen.verdict == "ok" and gen.max_diff["out"] == 0.0
    assert gen.speedup > 1.0 and gen.cycles < serial.cycles
    assert json.loads(trace.read_text())["traceEvents"]


def test_verify_several_versions_and_render():
    report = verify(SERIAL, {"preload=0": P0, "preload=2": P2}, NAME)
    assert [r.verdict for r in report.rows] == ["ok", "ok", "ok"]
    assert report.rows[2].cycles < report.rows[1].cycles
    console = Console(record=True, width=160)
    report.render(console)
    text = console.export_text()
    assert "preload=2" in text and "ok" in text and "x" in text


def test_verify_turns_simulation_errors_into_verdicts():
    broken = P2.replace("pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_fwd_ids_mm1_vec_db",
                        "pl.system.set_cross_core(pipe=pl.PipeType.M, event_id=_pl_fwd_ids_mm1_vec_db")
    starved = P2.replace("pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_mm1_vec_db[0])", "pass")
    report = verify(SERIAL, {"race": broken, "deadlock": starved, "serial-as-parallel": SERIAL}, NAME)
    verdicts = {r.version: r.verdict for r in report.rows}
    assert verdicts == {"serial": "ok", "race": "race", "deadlock": "deadlock", "serial-as-parallel": "race"}
    assert not report.ok
    assert "data race" in report.rows[1].message
    report.render(Console(record=True, width=200))  # render must not raise either


def test_verify_detects_mismatch():
    # same sync, different math: the generated kernel computes relu(a@b)@d + extra muls
    wrong = P2.replace("pl.relu(relu_vec, mm1_vec)", "pl.muls(relu_vec, mm1_vec, 2.0)")
    report = verify(SERIAL, wrong, NAME)
    assert report.rows[1].verdict == "mismatch" and report.rows[1].max_diff["out"] > 0


def test_verify_reports_broken_sources_without_traceback():
    report = verify(SERIAL, "def broken(:\n    pass\n", NAME, path="gen.py")
    assert report.rows[1].verdict == "error" and "syntax error" in report.rows[1].message
    report = verify("import pypto_pro.language as pl\nx = 1 / 0\n", P2, NAME, path="ser.py")
    assert report.rows[0].verdict == "error" and "ZeroDivisionError" in report.rows[0].message
    assert "ser.py:2" in report.rows[0].message


def test_fixed_contents_replace_one_tensor_and_leave_the_others_as_drawn():
    import numpy as np

    from sim_runtime.verify import make_inputs

    drawn = make_inputs(SERIAL, NAME, path="demo.py", seed=5, shapes=None)
    fixed_b = np.full(drawn["b"].shape, 7.0, dtype=np.float32)
    fixed = make_inputs(SERIAL, NAME, path="demo.py", seed=5, shapes=None, tensors={"b": fixed_b})
    assert np.array_equal(fixed["b"], fixed_b) and not np.array_equal(drawn["b"], fixed_b)
    assert all(np.array_equal(fixed[n], drawn[n]) for n in drawn if n != "b")


def test_fixed_contents_of_another_shape_or_of_no_tensor_are_no_verdict():
    import numpy as np

    wrong_shape = verify(SERIAL, P2, NAME, tensors={"b": np.zeros((3,), dtype=np.float32)})
    assert wrong_shape.rows[0].verdict == "error" and "shape [3]" in wrong_shape.rows[0].message
    no_tensor = verify(SERIAL, P2, NAME, tensors={"lens": np.zeros((1,), dtype=np.int32)})
    assert no_tensor.rows[0].verdict == "error" and "lens" in no_tensor.rows[0].message


def test_fixed_contents_reach_the_kernel():
    import numpy as np

    zero_b = verify(SERIAL, P2, NAME, tensors={"b": np.zeros((64, 64), dtype=np.float32)})
    assert zero_b.ok and not zero_b.rows[0].run.outputs["out"].any()  # relu(a @ 0) @ d


def test_the_largest_difference_counts_alike_elements_as_equal():
    import numpy as np

    from sim_runtime.verify import _max_difference

    inf, nan = np.inf, np.nan
    assert _max_difference(np.array([inf, -inf, nan, 1.0]), np.array([inf, -inf, nan, 1.0])) == 0.0  # was nan
    assert _max_difference(np.array([nan, 2.0]), np.array([1.0, 2.0])) == inf
    assert _max_difference(np.array([inf, 3.0]), np.array([-inf, 1.5])) == inf
    assert _max_difference(np.array([2.0, 3.0], dtype=np.float16), np.array([2.0, 1.5], dtype=np.float16)) == 1.5
    assert _max_difference(np.zeros((0, 4)), np.zeros((0, 4))) == 0.0


STORE = "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n"


@pytest.mark.parametrize("ends", ["exit()", "quit()", "raise SystemExit(3)", "__import__('sys').exit()"])
def test_a_kernel_that_exits_fails_its_run_and_ends_nothing_else(ends):
    """`exit()` in a stage ended the whole tool, status 0, with no verdict (probe h92): the
    SystemExit of a core's thread was re-raised as it was. It is the kernel raising now."""
    assert STORE in SERIAL and STORE in P2
    exits = STORE + f"    if ki == 1:\n        {ends}\n"
    report = verify(SERIAL, P2.replace(STORE, exits), NAME)
    assert [r.verdict for r in report.rows] == ["ok", "error"]
    assert "kernel raised SystemExit" in report.rows[1].message
    serial = verify(SERIAL.replace(STORE, exits), P2, NAME)
    assert [r.verdict for r in serial.rows] == ["error"] and "SystemExit" in serial.rows[0].message
