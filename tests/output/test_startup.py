"""What a call loads before it does anything: start-up is paid on every editor or hook call.

Measured by `benchmarks/startup.py` (times, never asserted here); these tests pin the
cause: which modules each kind of call imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import DEMO

PROBE = """
import json, sys
sys.argv = ["pto-transpile", *json.loads(sys.argv[1])]
from pto_transpile.entry import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
sys.__stderr__.write(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in
                     ("libcst", "rich", "numpy", "sim_runtime") or m.startswith("pto_transpile.soundness"))))
"""


def loaded(*args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args))], capture_output=True, text=True)
    return {m.split(".")[0] for m in json.loads(proc.stderr.strip().splitlines()[-1])}


@pytest.mark.parametrize("args", [("--version",), ("--help",)])
def test_version_and_help_load_no_analysis(args):
    assert loaded(*args) == set()


def test_a_check_loads_the_analysis_but_not_the_emulator_nor_numpy():
    found = loaded(str(DEMO), "--check")
    assert "libcst" in found and not found & {"numpy", "sim_runtime", "rich"}


def test_simulate_loads_the_emulator(tmp_path):
    """The probe sees what a call imports (the tests above are not vacuous)."""
    from pto_transpile.rules._examples import kernel

    small = tmp_path / "k.py"
    small.write_text(kernel())
    assert {"numpy", "sim_runtime"} <= loaded(str(small), "--check", "--simulate")


def test_the_package_imports_transpile_on_first_use():
    probe = ("import sys, pto_transpile; a = 'libcst' in sys.modules; "
             "from pto_transpile import transpile; print(a, 'libcst' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.stdout.split() == ["False", "True"]
