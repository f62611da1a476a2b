"""The seed demo on the emulator: serial meaning, generated kernels bit-identical, timing, trace."""

import json
from pathlib import Path

import numpy as np
import pytest

from sim_runtime import RaceError, run_kernel

pytestmark = pytest.mark.emulator

KERNELS = Path(__file__).parent.parent / "sim_kernels"
SERIAL_PATH = Path(__file__).parent.parent.parent / "examples" / "seed_demo.py"  # the serial demo as users get it
NAME = "pipeline_demo_kernel"


def demo_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "a": rng.standard_normal((256, 64)).astype(np.float32),
        "b": rng.standard_normal((64, 64)).astype(np.float32),
        "d": rng.standard_normal((64, 64)).astype(np.float32),
    }


@pytest.fixture(scope="module")
def serial():
    return run_kernel(SERIAL_PATH, NAME, demo_inputs(), mode="sequential")


def test_serial_sequential_matches_numpy(serial):
    x = demo_inputs()
    # in double precision, rounding to fp32 where the kernel does (the Acc -> UB move)
    mm1 = (x["a"].astype(np.float64) @ x["b"].astype(np.float64)).astype(np.float32)
    ref = np.maximum(mm1, np.float32(0)).astype(np.float64) @ x["d"].astype(np.float64)
    np.testing.assert_allclose(serial.outputs["out"], ref, rtol=1e-5, atol=1e-5)
    assert serial.cycles > 0
    assert serial.warnings == []


def test_inputs_are_copied_not_modified():
    x = demo_inputs()
    before = {k: v.copy() for k, v in x.items()}
    run_kernel(SERIAL_PATH, NAME, x, mode="sequential")
    for k in x:
        assert np.array_equal(x[k], before[k])


@pytest.mark.parametrize("version", ["demo_p0", "demo_p2"])
def test_generated_concurrent_is_bit_identical_to_serial(serial, version):
    res = run_kernel(KERNELS / f"{version}.py", NAME, demo_inputs(), mode="concurrent")
    assert np.array_equal(res.outputs["out"], serial.outputs["out"])
    assert res.warnings == []
    # every tensor parameter is reported, inputs unchanged
    assert set(res.outputs) == {"a", "b", "d", "out"}
    assert np.array_equal(res.outputs["a"], demo_inputs()["a"])


@pytest.mark.parametrize("seed", [1, 7])
def test_random_schedules_still_bit_identical(serial, seed):
    res = run_kernel(KERNELS / "demo_p2.py", NAME, demo_inputs(), schedule="random", seed=seed)
    assert np.array_equal(res.outputs["out"], serial.outputs["out"])


def test_generated_p0_in_sequential_mode_balances_and_matches(serial):
    res = run_kernel(KERNELS / "demo_p0.py", NAME, demo_inputs(), mode="sequential")
    assert np.array_equal(res.outputs["out"], serial.outputs["out"])


def test_preload2_is_faster_than_preload0():
    p0 = run_kernel(KERNELS / "demo_p0.py", NAME, demo_inputs())
    p2 = run_kernel(KERNELS / "demo_p2.py", NAME, demo_inputs())
    print(f"demo cycles: preload 0 = {p0.cycles}, preload 2 = {p2.cycles}")
    assert p2.cycles < p0.cycles
    # the cube is the busy core; pipelining raises its utilisation
    assert p2.cores["b0.AIC"].utilisation > p0.cores["b0.AIC"].utilisation
    for stats in p2.cores.values():
        assert stats.busy + stats.idle == p2.cycles


def test_serial_kernel_in_concurrent_mode_races():
    with pytest.raises(RaceError) as err:
        run_kernel(SERIAL_PATH, NAME, demo_inputs(), mode="concurrent")
    msg = str(err.value)
    assert "seed_demo.py:" in msg and "b0.AIC" in msg and "b0.AIV" in msg


def test_source_text_is_accepted_as_path_or_keyword(serial):
    text = (SERIAL_PATH).read_text()
    a = run_kernel(text, NAME, demo_inputs(), mode="sequential")
    b = run_kernel("my_demo.py", NAME, demo_inputs(), mode="sequential", source=text)
    assert np.array_equal(a.outputs["out"], serial.outputs["out"])
    assert np.array_equal(b.outputs["out"], serial.outputs["out"])


def test_chrome_trace_structure(tmp_path):
    res = run_kernel(KERNELS / "demo_p2.py", NAME, demo_inputs())
    path = tmp_path / "trace.json"
    res.write_trace(path)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert sorted(names.values()) == ["b0.AIC", "b0.AIV0", "b0.AIV1"]
    assert any(e["ph"] == "M" and e["name"] == "process_name" and e["pid"] == 0 for e in events)
    slices = [e for e in events if e["ph"] == "X"]
    assert all(isinstance(e["ts"], int) and e["dur"] >= 0 for e in slices)
    stages = [e for e in slices if e["cat"] == "stage"]
    by_core = {}
    for e in stages:
        by_core.setdefault(names[e["tid"]], set()).add(e["name"])
    # stage numbers are 1-based (declaration order), tasks 0..N_ITER-1
    assert by_core["b0.AIC"] == {f"s{s}·i{t}" for s in (1, 3) for t in range(4)}
    assert by_core["b0.AIV0"] == by_core["b0.AIV1"] == {f"s{s}·i{t}" for s in (2, 4) for t in range(4)}
    assert max(e["ts"] + e["dur"] for e in slices) == res.cycles
    # the timeline itself: every stage execution with block, core, stage and task
    s = res.timeline.stages[0]
    assert (s.block, s.core, s.stage, s.task) == (0, "b0.AIC", 1, 0) and s.end > s.start


def test_gantt_renders(capsys):
    from rich.console import Console

    res = run_kernel(KERNELS / "demo_p2.py", NAME, demo_inputs())
    console = Console(record=True, width=120)
    res.render_gantt(console)
    text = console.export_text()
    assert "b0.AIC" in text and "b0.AIV1" in text and "1" in text and "4" in text


def test_a_gantt_cell_too_narrow_for_its_label_shows_its_stage_as_sN():
    """A bare digit read as a count (study ux2): `s2` where three cells fit (two and a space), the
    digit where fewer do."""
    from sim_runtime.gantt import _line
    from sim_runtime.timeline import Span

    def cells(length: int) -> str:
        span = Span("stage", 0, "AIV0", "st", 0, length, stage=2, task=3)
        return "".join(c for c, _ in _line([span], 1.0, 8))

    assert cells(8) == "s2·i3   " and cells(3) == "s2 ·····" and cells(2) == "2 ······" and cells(1) == "2·······"
