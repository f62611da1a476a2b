"""The --report page as a person sees it: opened in a real headless Chromium.

The page must load without a console error or an uncaught exception and without any
network request (everything is inline), draw one cell per stage invocation, and show a
cell's stage, iteration and cycles when the mouse is over it. A screenshot is taken (and
kept in the test's temporary directory). CI installs Debian's `chromium` (`.ci/run`); on a
machine without it the test is skipped, except under CI, where that is a failure.
"""

from __future__ import annotations

import os
import sys

import pytest
from click.testing import CliRunner

from browser import chromium, open_page
from helpers import ROOT
from pto_transpile.cli import main

sys.path.insert(0, str(ROOT / "scripts"))
from report_screenshots import screenshot  # noqa: E402

pytestmark = pytest.mark.emulator

DEMO = ROOT / "examples" / "seed_demo.py"
N_ITER = 4
#: the demo's stage invocations per run: the AIC runs stages 1 and 3, each AIV stages 2 and 4
CELLS_PER_RUN = N_ITER * (2 + 2 * 2)


@pytest.fixture(scope="module")
def browser():
    path = chromium()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return path


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    page = out / "report.html"
    r = CliRunner().invoke(main, [str(DEMO), "--preload", "2", "--simulate", "--report", str(page), "-o",
                                  str(out / "gen.py")])
    assert r.exit_code == 0, r.output
    return page


def test_the_report_loads_draws_every_stage_invocation_and_explains_a_cell(browser, demo_report, tmp_path):
    page, profile = open_page(browser, demo_report.as_uri())
    try:
        assert page.errors() == [], "the page logged errors while loading"
        cells = page.evaluate("""Array.from(document.querySelectorAll('svg.timeline[data-view=core]')).map(
            svg => [svg.getAttribute('data-run'), svg.querySelectorAll('rect.cell').length])""")
        assert cells == [["serial", CELLS_PER_RUN], ["pipelined", CELLS_PER_RUN]]
        labels = page.evaluate("""Array.from(document.querySelectorAll(
            'svg.timeline[data-run=pipelined][data-view=core] rect.cell')).map(
            c => 's' + c.dataset.stage + '·i' + c.dataset.iteration).sort()""")
        assert labels == sorted(f"s{s}·i{i}" for s in (1, 2, 2, 3, 4, 4) for i in range(N_ITER))
        box = page.evaluate("""(() => {
            const c = document.querySelector('svg.timeline[data-run=pipelined][data-view=core] rect.cell');
            c.scrollIntoView({block: 'center'});
            const r = c.getBoundingClientRect();
            return {x: r.x + r.width / 2, y: r.y + r.height / 2, cycles: c.dataset.cycles};
        })()""")
        assert page.evaluate("getComputedStyle(document.getElementById('tip')).display") == "none"
        page.call("Input.dispatchMouseEvent", type="mouseMoved", x=box["x"], y=box["y"])
        tip = page.evaluate("""(() => { const t = document.getElementById('tip');
            return getComputedStyle(t).display === 'none' ? '' : t.textContent; })()""")
        assert "s1·i0" in tip and "stage 1" in tip and "iteration 0" in tip, tip
        assert f"({box['cycles']} cycles)" in tip, tip
        shot = tmp_path / "report.png"
        screenshot(page, shot)  # what scripts/report_screenshots.py puts in docs/
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width >= 1000 and height >= 500
        assert page.errors() == [], "the page logged errors"
        assert page.requests() == [], "the page asked the network for something"
    finally:
        page.close()
        profile.cleanup()
