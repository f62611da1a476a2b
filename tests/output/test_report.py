"""--report, --gantt and --timeline: what `--simulate` (or `--preload auto`) draws."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from helpers import ROOT
from pto_transpile.cli import main

pytestmark = pytest.mark.emulator

DEMO = ROOT / "examples" / "seed_demo.py"
CELLS_PER_RUN = 4 * (2 + 2 * 2)  # 4 iterations; the AIC runs stages 1 and 3, each AIV stages 2 and 4


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    r = CliRunner().invoke(main, [str(DEMO), "--preload", "2", "--simulate", "--gantt", "--report",
                                  str(out / "r.html"), "--timeline", str(out / "t.json"), "-o", str(out / "g.py")])
    assert r.exit_code == 0, r.output
    return r.output, (out / "r.html").read_text(encoding="utf-8"), json.loads((out / "t.json").read_text())


def test_simulate_prints_the_bound_of_each_loop(demo_run):
    output, _, _ = demo_run
    line = next(x for x in output.splitlines() if x.startswith("pipeline loop 0"))
    assert re.search(r"cube-bound \(b0\.AIC, busiest pipe \w+\), \d+% of the bound; b0\.AIV0 idles \d+%", line)
    assert re.search(r"bound = 4 x \d+ \(beat of b0\.AIC\) \+ fill \d+ \+ drain \d+ = \d+ cycles", output)


def test_gantt_draws_both_runs_a_row_per_core(demo_run):
    output, _, _ = demo_run
    serial = re.search(r"^serial: \d+ cycles$", output, re.M).start()
    pipelined = re.search(r"^pipelined: \d+ cycles$", output, re.M).start()
    assert serial < pipelined
    for run in (output[serial:pipelined], output[pipelined:]):
        assert all(f"\n{core} " in run for core in ("b0.AIC", "b0.AIV0", "b0.AIV1"))
    assert "s1·i0" in output[pipelined:]


def test_gantt_fits_the_console_width():
    from rich.console import Console

    from sim_runtime import run_kernel
    from sim_runtime.gantt import render_gantt

    res = run_kernel(ROOT / "tests" / "sim_kernels" / "demo_p2.py", "pipeline_demo_kernel", {})
    console = Console(record=True, width=60)
    render_gantt([res.gantt("pipelined")], console)
    lines = console.export_text().splitlines()
    assert lines and max(len(x) for x in lines if not x.startswith(("pipelined", "simulated", "s1 ="))) <= 60


def test_the_gantt_names_each_stage_it_numbers():
    # the terminal chart drew `s1`..`s4` with no key (the HTML report has one; first-hour study ux1)
    from rich.console import Console

    from sim_runtime import run_kernel
    from sim_runtime.gantt import render_gantt

    res = run_kernel(ROOT / "tests" / "sim_kernels" / "demo_p2.py", "pipeline_demo_kernel", {})
    console = Console(record=True, width=200)
    render_gantt([res.gantt("pipelined")], console)
    assert "s1 = stage1, s2 = stage2, s3 = stage3, s4 = stage4" in console.export_text()


def test_the_report_is_one_self_contained_page(demo_run):
    _, page, _ = demo_run
    assert page.startswith("<!DOCTYPE html>") and "<script>" in page and "<style>" in page
    # nothing to fetch: no external script, style sheet, image or font; the only URL is SVG's namespace
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:|#)""", page)
    assert set(re.findall(r"https?://[^\s\"'<)]+", page)) == {"http://www.w3.org/2000/svg"}
    for run in ("serial", "pipelined"):
        svg = re.search(rf'<svg class="timeline" data-run="{run}" data-view="core".*?</svg>', page, re.S).group(0)
        assert svg.count('class="cell"') == CELLS_PER_RUN
    assert "cube-bound (b0.AIC" in page and "Change to the input" in page and "Diagnostics" in page


def test_the_trace_holds_both_runs_with_set_to_wait_flows_in_cycles(demo_run):
    _, _, trace = demo_run
    assert "displayTimeUnit" not in trace  # one trace microsecond is one cycle
    processes = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert sorted(processes.values()) == ["pipelined · block 0", "serial · block 0"]
    starts = {e["id"]: e for e in trace["traceEvents"] if e["ph"] == "s"}
    ends = {e["id"]: e for e in trace["traceEvents"] if e["ph"] == "f"}
    assert starts and starts.keys() == ends.keys()
    pipelined = next(p for p, n in processes.items() if n.startswith("pipelined"))
    assert any(e["pid"] == pipelined for e in starts.values())
    assert all(starts[i]["ts"] <= ends[i]["ts"] or starts[i]["tid"] != ends[i]["tid"] for i in starts)


def test_many_iterations_are_drawn_as_their_first_and_last(tmp_path):
    kernel = tmp_path / "demo20.py"
    kernel.write_text(DEMO.read_text(encoding="utf-8").replace("N_ITER = 4\n", "N_ITER = 20\n"), encoding="utf-8")
    r = CliRunner().invoke(main, [str(kernel), "--preload", "2", "--simulate", "--report", str(tmp_path / "r.html"),
                                  "-o", str(tmp_path / "g.py")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    svg = re.search(r'<svg class="timeline" data-run="pipelined" data-view="core".*?</svg>', page, re.S).group(0)
    assert "iterations 4–15" in svg and "not drawn" in svg
    drawn = {int(i) for i in re.findall(r'data-iteration="(\d+)"', svg)}
    assert {0, 1, 2, 3, 16, 17, 18, 19} <= drawn and len(drawn) < 20


def test_preload_auto_report_shows_the_candidates(tmp_path):
    page = tmp_path / "auto.html"
    r = CliRunner().invoke(main, [str(ROOT / "golden" / "two_loops" / "input.py"), "--preload", "auto", "--report",
                                  str(page), "-o", str(tmp_path / "g.py")])
    assert r.exit_code == 0, r.output
    assert "preload 2-4: the same kernel as preload 1 (a loop of two stages" in r.output
    text = page.read_text(encoding="utf-8")
    assert "--preload auto: the candidates" in text and "the same kernel as preload 1" in text
    assert text.count('data-run="pipelined" data-view="core"') == 2  # one drawing per pipeline loop


def test_a_rejected_kernel_gets_a_report_of_its_diagnostics(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(DEMO.read_text(encoding="utf-8").replace("fwd_ids=[0, 1]", "fwd_ids=[0, 99]"), encoding="utf-8")
    page = tmp_path / "bad.html"
    r = CliRunner().invoke(main, [str(bad), "--simulate", "--report", str(page)])
    assert r.exit_code == 1
    text = page.read_text(encoding="utf-8")
    assert "99" in text and "Nothing was generated" in text and "No kernel was simulated" in text


@pytest.mark.parametrize("args, message", [
    (["--report", "r.html"], "--report only applies with --simulate or --preload auto"),
    (["--gantt"], "--gantt only applies with --simulate or --preload auto"),
    (["--simulate", "--report", "."], "is a directory"),
])
def test_report_usage_errors(args, message):
    r = CliRunner().invoke(main, [str(DEMO), "--check", *args])
    assert r.exit_code == 2 and message in r.output


def test_report_takes_one_file(tmp_path):
    other = DEMO.parent / "two_loops.py"  # two files: the same file named twice is read once
    r = CliRunner().invoke(main, [str(DEMO), str(other), "--simulate", "--check", "--report", str(tmp_path / "r.html")])
    assert r.exit_code == 2 and "--report takes one input file" in r.output


def test_an_unwritable_report_is_a_usage_error(tmp_path):
    r = CliRunner().invoke(main, [str(DEMO), "--simulate", "--check", "--report", str(tmp_path / "no" / "r.html")])
    assert r.exit_code == 2 and "PTO098" in r.output and "Traceback" not in r.output


def test_gantt_says_what_the_extra_lines_under_a_core_are():
    from rich.console import Console

    from sim_runtime.gantt import GanttRun, render_gantt
    from sim_runtime.timeline import Span, Timeline

    def chart(spans: list[tuple[int, int]]) -> str:
        line = Timeline([Span("stage", 0, "b0.AIC", "mm", a, b, stage=1, task=i) for i, (a, b) in enumerate(spans)])
        console = Console(record=True, width=80)
        render_gantt([GanttRun("pipelined", line, ["b0.AIC"], 100)], console)
        return console.export_text()

    stacked, apart = chart([(0, 60), (30, 100)]), chart([(0, 50), (50, 100)])
    assert "s1 = mm" in stacked  # (the key: a line of its own)
    assert "drawn on the lines under it" in stacked and len(stacked.splitlines()) == 5
    assert "drawn on the lines under it" not in apart and len(apart.splitlines()) == 4
