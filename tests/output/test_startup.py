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
                     ("click", "libcst", "rich", "numpy", "sim_runtime") or m.startswith("pto_transpile.soundness"))))
"""


def loaded(*args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args))], capture_output=True, text=True)
    return {m.split(".")[0] for m in json.loads(proc.stderr.strip().splitlines()[-1])}


def test_version_loads_neither_click_nor_the_analysis():
    assert loaded("--version") == set()


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_loads_neither_click_nor_the_analysis(flag):
    """With a click release known to render the kept help text (else click renders it)."""
    from pto_transpile.helptext import CLICK_VERSIONS, click_version

    assert loaded(flag) == (set() if click_version() in CLICK_VERSIONS else {"click"})


def test_help_on_a_narrow_terminal_is_clicks(monkeypatch):
    """Click wraps to a terminal narrower than 80 columns: the kept text would be wrong."""
    monkeypatch.setenv("COLUMNS", "60")
    assert loaded("--help") == {"click"}


def test_a_check_loads_the_analysis_but_not_the_emulator_nor_numpy():
    found = loaded(str(DEMO), "--check")
    assert {"libcst", "click"} <= found and not found & {"numpy", "sim_runtime", "rich"}


def test_simulate_loads_the_emulator(tmp_path):
    """The probe sees what a call imports (the tests above are not vacuous)."""
    from skeleton import kernel

    small = tmp_path / "k.py"
    small.write_text(kernel())
    assert {"numpy", "sim_runtime"} <= loaded(str(small), "--check", "--simulate")


def test_the_package_imports_transpile_on_first_use():
    probe = ("import sys, pto_transpile; a = 'libcst' in sys.modules; "
             "from pto_transpile import transpile; print(a, 'libcst' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.stdout.split() == ["False", "True"]
