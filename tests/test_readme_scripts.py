"""Every script the README or a page of docs/ names runs (smoke: small sizes), so none of them rots unseen."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from helpers import ROOT

#: script -> arguments that keep the run short
SMOKE = {
    "scripts/document_rules.py": ["--check"],
    "scripts/fuzz_chains.py": ["0", "2"],
    "benchmarks/sim_speedup.py": ["1"],
    "benchmarks/bench_transpile.py": ["--quick"],
    "benchmarks/startup.py": ["1"],
    # run by tests/sim_runtime/test_sim_flash_attention.py
    "benchmarks/sim_flash_attention.py": None,
    # run end to end on a handful of mutants by tests/test_fuzz.py
    "scripts/fuzz.py": None,
    # needs Chromium: its screenshot() takes tests/output/test_report_browser.py's screenshot of the demo's report
    "scripts/report_screenshots.py": None,
}


def test_every_script_the_readme_names_has_a_smoke_run():
    pages = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
    readme = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    named = set(re.findall(r"\b((?:scripts|benchmarks)/\w+\.py)\b", readme))
    named |= {f"benchmarks/{p.name}" for p in (ROOT / "benchmarks").glob("*.py")} if "benchmarks/" in readme else set()
    assert named and named <= set(SMOKE), f"add a smoke run for {sorted(named - set(SMOKE))}"


#: scripts that run a benchmark or a campaign: their smoke runs are themselves long
LONG = {"benchmarks/bench_transpile.py", "benchmarks/startup.py", "benchmarks/sim_speedup.py", "scripts/fuzz_chains.py"}


@pytest.mark.parametrize("script", [pytest.param(k, marks=(pytest.mark.campaign,) if k in LONG else ())
                                    for k in sorted(k for k, v in SMOKE.items() if v is not None)])
def test_script_runs(script):
    proc = subprocess.run([sys.executable, script, *SMOKE[script]], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip()
